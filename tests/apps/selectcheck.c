/* selectcheck.c - Wine's wineserver against select() under load, with no winagent.
 *
 *   selectcheck.exe PORT THREADS read|both
 *
 * A small HTTP server on 127.0.0.1:PORT shaped as civetweb's is on Windows: one thread
 * waits on the listening socket with select() and accepts, THREADS workers each wait on
 * their connection with select() before every recv, answer, shut down and drain. With
 * "both", every select() names its socket in the read set and in the except set, as
 * civetweb's poll() does; under Wine 8 a few thousand requests later the wineserver
 * aborts (server/sock.c, complete_async_poll: "output->count == signaled_count"), and
 * with it every socket of the session: the port is closed while this program lives on.
 * With "read" (what winagent's civetweb does, base/win/win_select.c) it serves on.
 * Drive it with tests/lib/serveload.py's hammer (new connection per request). */
#include <winsock2.h>
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE 256

static SOCKET queue[QUEUE];
static int head, tail, queued;
static CRITICAL_SECTION lock;
static HANDLE ready;
static int both;

/* Waits for s to be readable: select() with the read set, and with "both" the except
 * set too. */
static int wait_readable(SOCKET s, int ms)
{
    fd_set r, e;
    FD_ZERO(&r);
    FD_SET(s, &r);
    FD_ZERO(&e);
    FD_SET(s, &e);
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    return select(0, &r, NULL, both ? &e : NULL, &tv);
}

static DWORD WINAPI worker(void *unused)
{
    (void)unused;
    static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                "Content-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}";
    for (;;) {
        WaitForSingleObject(ready, INFINITE);
        EnterCriticalSection(&lock);
        SOCKET s = queue[head];
        head = (head + 1) % QUEUE;
        queued--;
        LeaveCriticalSection(&lock);
        char buf[8192];
        int got = 0, n;
        while (got < (int)sizeof buf - 1 && wait_readable(s, 5000) > 0 &&
               (n = recv(s, buf + got, (int)sizeof buf - 1 - got, 0)) > 0) {
            got += n;
            buf[got] = '\0';
            const char *end = strstr(buf, "\r\n\r\n"), *cl = strstr(buf, "Content-Length: ");
            if (end && got - (int)(end + 4 - buf) >= (cl ? atoi(cl + 16) : 0))
                break;
        }
        send(s, reply, (int)sizeof reply - 1, 0);
        shutdown(s, SD_SEND);
        while (wait_readable(s, 1000) > 0 && recv(s, buf, sizeof buf, 0) > 0)
            ;
        closesocket(s);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[3], "read") && strcmp(argv[3], "both"))) {
        fprintf(stderr, "usage: selectcheck.exe PORT THREADS read|both\n");
        return 2;
    }
    both = strcmp(argv[3], "both") == 0;
    WSADATA wsa;
    WSAStartup(MAKEWORD(2, 2), &wsa);
    InitializeCriticalSection(&lock);
    ready = CreateSemaphoreW(NULL, 0, QUEUE, NULL);
    SOCKET l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((u_short)atoi(argv[1]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    u_long nonblocking = 1;
    if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 200) ||
        ioctlsocket(l, FIONBIO, &nonblocking)) {
        fprintf(stderr, "cannot listen: %d\n", WSAGetLastError());
        return 1;
    }
    for (int i = 0; i < atoi(argv[2]); i++)
        CloseHandle(CreateThread(NULL, 0, worker, NULL, 0, NULL));
    printf("listening on 127.0.0.1:%s\n", argv[1]);
    fflush(stdout);
    for (;;) {
        if (wait_readable(l, 200) <= 0)
            continue;
        SOCKET s = accept(l, NULL, NULL);
        if (s == INVALID_SOCKET)
            continue;
        u_long blocking = 0;
        ioctlsocket(s, FIONBIO, &blocking);
        EnterCriticalSection(&lock);
        if (queued == QUEUE) {
            LeaveCriticalSection(&lock);
            closesocket(s);
            continue;
        }
        queue[tail] = s;
        tail = (tail + 1) % QUEUE;
        queued++;
        LeaveCriticalSection(&lock);
        ReleaseSemaphore(ready, 1, NULL);
    }
}
