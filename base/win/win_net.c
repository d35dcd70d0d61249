/* base/os.h's loopback TCP for Windows, on Winsock 2. */
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <stdatomic.h>

#include "base/os.h"

static wa_err net_fail(const char *what)
{
    return wa_fail(WA_E_IO, "%s (Winsock error %d)", what, WSAGetLastError());
}

static wa_err net_start(void)
{
    static atomic_int started;
    if (atomic_load(&started))
        return WA_E_OK;
    WSADATA d;
    int rc = WSAStartup(MAKEWORD(2, 2), &d);
    if (rc != 0)
        return wa_fail(WA_E_IO, "cannot start Winsock (error %d)", rc);
    atomic_store(&started, 1);
    return WA_E_OK;
}

/* 1 readable, 0 timed out, -1 error. */
static int wait_readable(SOCKET s, int timeout_ms)
{
    fd_set set;
    FD_ZERO(&set);
    FD_SET(s, &set);
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    int rc = select(0, &set, NULL, NULL, &tv);
    return rc == SOCKET_ERROR ? -1 : rc > 0;
}

wa_err os_tcp_listen_loopback(int port, os_socket *out, int *bound_port)
{
    *out = OS_SOCKET_NONE;
    if (port < 0 || port > 65535)
        return wa_fail(WA_E_INVALID_ARGS, "port %d is out of range", port);
    wa_err e = net_start();
    if (e)
        return e;
    SOCKET s = WSASocketW(AF_INET, SOCK_STREAM, IPPROTO_TCP, NULL, 0, WSA_FLAG_NO_HANDLE_INHERIT);
    if (s == INVALID_SOCKET)
        return net_fail("cannot create a socket");
    /* No other program may bind the same port while we hold it. */
    BOOL one = TRUE;
    setsockopt(s, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((u_short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int len = sizeof a;
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, TCP_BACKLOG) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) != 0) {
        e = wa_fail(WA_E_IO, "cannot listen on 127.0.0.1:%d (Winsock error %d)", port,
                    WSAGetLastError());
        closesocket(s);
        return e;
    }
    *bound_port = ntohs(a.sin_port);
    *out = (os_socket)s;
    return WA_E_OK;
}

wa_err os_tcp_accept(os_socket listener, int timeout_ms, os_socket *out, uint32_t *peer)
{
    *out = OS_SOCKET_NONE;
    *peer = 0;
    int rc = wait_readable((SOCKET)listener, timeout_ms);
    if (rc == 0)
        return WA_E_OK;
    if (rc < 0)
        return net_fail("cannot wait for a client");
    /* The peer's address is asked apart: Wine's accept() fails (WSAENOTCONN) when asked
     * for the address of a client that reset the connection in the meantime. */
    SOCKET c = accept((SOCKET)listener, NULL, NULL);
    if (c == INVALID_SOCKET) { /* the client may have given up already */
        int err = WSAGetLastError();
        return err == WSAECONNRESET || err == WSAEWOULDBLOCK || err == WSAENOTCONN ||
                       err == WSAECONNABORTED
                   ? WA_E_OK
                   : net_fail("cannot accept a client");
    }
    struct sockaddr_in from;
    int from_len = sizeof from;
    if (getpeername(c, (struct sockaddr *)&from, &from_len) != 0) {
        closesocket(c); /* gone already */
        return WA_E_OK;
    }
    if (from.sin_family == AF_INET)
        *peer = ntohl(from.sin_addr.s_addr);
    SetHandleInformation((HANDLE)c, HANDLE_FLAG_INHERIT, 0);
    /* A client that stops reading cannot hold a sender forever. */
    DWORD send_ms = OS_TCP_SEND_TIMEOUT_MS;
    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, (const char *)&send_ms, sizeof send_ms);
    *out = (os_socket)c;
    return WA_E_OK;
}

wa_err os_tcp_recv(os_socket s, void *buf, size_t cap, int timeout_ms, size_t *got)
{
    *got = 0;
    int rc = wait_readable((SOCKET)s, timeout_ms);
    if (rc == 0)
        return WA_E_TIMEOUT;
    if (rc < 0)
        return net_fail("cannot wait for data");
    int n = recv((SOCKET)s, buf, cap > 0x40000000 ? 0x40000000 : (int)cap, 0);
    if (n == SOCKET_ERROR)
        return net_fail("cannot receive");
    *got = (size_t)n;
    return WA_E_OK;
}

wa_err os_tcp_send(os_socket s, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        int chunk = len > 0x40000000 ? 0x40000000 : (int)len;
        int n = send((SOCKET)s, p, chunk, 0);
        if (n == SOCKET_ERROR || n == 0)
            return net_fail("cannot send");
        p += n;
        len -= (size_t)n;
    }
    return WA_E_OK;
}

void os_tcp_close(os_socket s)
{
    if (s != OS_SOCKET_NONE)
        closesocket((SOCKET)s);
}
