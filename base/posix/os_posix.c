/* base/os.h for POSIX systems (the native build). */
#include "base/dynbuf.h"
#include "base/os.h"
#include "base/str.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int64_t os_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double os_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int64_t os_time_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Splits ms into fields, in local time or UTC. */
static void split_time(int64_t ms, bool local, struct os_tm *out)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (local)
        localtime_r(&t, &tm);
    else
        gmtime_r(&t, &tm);
    out->year = tm.tm_year + 1900;
    out->month = tm.tm_mon + 1;
    out->day = tm.tm_mday;
    out->hour = tm.tm_hour;
    out->min = tm.tm_min;
    out->sec = tm.tm_sec;
    out->msec = (int)(ms % 1000);
}

void os_local_time(int64_t ms, struct os_tm *out)
{
    split_time(ms, true, out);
}

void os_utc_time(int64_t ms, struct os_tm *out)
{
    split_time(ms, false, out);
}

wa_err os_sleep_ms(int ms)
{
    int64_t end = os_now_ms() + (ms > 0 ? ms : 0);
    for (;;) {
        if (os_interrupted())
            return WA_E_INTERRUPTED;
        int64_t left = end - os_now_ms();
        if (left <= 0)
            return WA_E_OK;
        if (left > 20)
            left = 20; /* poll the flag often enough for a prompt Ctrl+C */
        struct timespec ts = {0, (long)left * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void on_sigint(int sig)
{
    (void)sig;
    os_interrupt_mark(OS_INTERRUPT_CTRL_C);
}

static void *stdin_watch(void *arg)
{
    (void)arg;
    char buf[256];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        ;
    os_interrupt_mark(OS_INTERRUPT_STDIN);
    return NULL;
}

bool os_stdin_is_console(void)
{
    return isatty(0) == 1;
}

void os_interrupt_install(bool watch_stdin)
{
    static atomic_int installed;
    if (atomic_exchange(&installed, 1))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct stat st;
    if (watch_stdin && fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) {
        pthread_t t;
        if (pthread_create(&t, NULL, stdin_watch, NULL) == 0)
            pthread_detach(t);
    }
}

void os_interrupt_request(void)
{
    os_interrupt_mark(OS_INTERRUPT_REQUESTED);
}

void os_interrupt_raise(int reason)
{
    os_interrupt_mark(reason); /* os_sleep_ms polls the flag */
}

bool os_interrupt_withdraw(void)
{
    return os_interrupt_unmark(OS_INTERRUPT_REQUESTED);
}

void os_nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

FILE *os_fopen(const char *path, const char *mode)
{
    return fopen(path, mode);
}

bool os_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool os_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool os_is_plain_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

wa_err os_mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof tmp)
        return wa_fail(WA_E_INVALID_ARGS, "bad folder path");
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return wa_fail(WA_E_IO, "cannot create folder %s: %s", tmp, strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return wa_fail(WA_E_IO, "cannot create folder %s: %s", tmp, strerror(errno));
    return WA_E_OK;
}

wa_err os_read_file(const char *path, size_t max, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return wa_fail(WA_E_IO, "cannot open %s: %s", path, strerror(errno));
    struct dynbuf b;
    dynbuf_init(&b, max);
    wa_err e = WA_E_OK;
    char chunk[16384];
    size_t got;
    while (!e && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        e = dynbuf_add(&b, chunk, got);
    if (!e && ferror(f))
        e = wa_fail(WA_E_IO, "cannot read %s: %s", path, strerror(errno));
    fclose(f);
    if (e == WA_E_TOO_LARGE)
        e = wa_fail(WA_E_TOO_LARGE, "%s is larger than %zu bytes", path, max);
    if (e) {
        dynbuf_cleanup(&b);
        return e;
    }
    size_t n = b.len;
    *out = dynbuf_take(&b);
    if (!*out)
        return wa_fail(WA_E_NOMEM, "out of memory reading %s", path);
    if (len)
        *len = n;
    return WA_E_OK;
}

wa_err os_dir_others_write(const char *path, bool *others)
{
    struct stat st;
    *others = true;
    if (lstat(path, &st) != 0)
        return wa_fail(WA_E_IO, "cannot read %s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return wa_fail(WA_E_INVALID_ARGS, "%s is not a folder", path);
    /* Its owner may change who writes; the group and the rest of the world may write. */
    *others = (st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH));
    return WA_E_OK;
}

wa_err os_write_file(const char *path, const void *data, size_t len)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp)
        return wa_fail(WA_E_NOMEM, "out of memory");
    static atomic_uint serial; /* unique per writer: threads of one process write at once */
    snprintf(tmp, n + 32, "%s.tmp%lu-%u", path, (unsigned long)getpid(),
             atomic_fetch_add(&serial, 1));
    /* Created anew, never through a link someone planted at its name. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    wa_err e = WA_E_OK;
    if (!f) {
        if (fd >= 0)
            close(fd);
        e = wa_fail(WA_E_IO, "cannot write %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        e = wa_fail(WA_E_IO, "cannot write %s: %s", tmp, strerror(errno));
        remove(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        e = wa_fail(WA_E_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
    }
out:
    free(tmp);
    return e;
}

wa_err os_remove(const char *path)
{
    if (remove(path) != 0 && errno != ENOENT)
        return wa_fail(WA_E_IO, "cannot remove %s: %s", path, strerror(errno));
    return WA_E_OK;
}

char *os_exe_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    return strdup(buf);
}

char *os_temp_dir(void)
{
    const char *t = getenv("TMPDIR");
    return strdup(t && *t ? t : "/tmp");
}

char *os_getenv(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

wa_err os_setenv(const char *name, const char *value)
{
    int rc = value ? setenv(name, value, 1) : unsetenv(name);
    return rc == 0 ? WA_E_OK : wa_fail(WA_E_INVALID_ARGS, "cannot set %s", name);
}

struct thread_start {
    void (*fn)(void *);
    void *arg;
};

static void *thread_main(void *p)
{
    struct thread_start ts = *(struct thread_start *)p;
    free(p);
    ts.fn(ts.arg);
    return NULL;
}

wa_err os_thread_start(void (*fn)(void *), void *arg)
{
    struct thread_start *ts = malloc(sizeof *ts);
    if (!ts)
        return wa_fail(WA_E_NOMEM, "out of memory");
    ts->fn = fn;
    ts->arg = arg;
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, ts) != 0) {
        free(ts);
        return wa_fail(WA_E_IO, "cannot start a thread");
    }
    pthread_detach(t);
    return WA_E_OK;
}

unsigned long os_pid(void)
{
    return (unsigned long)getpid();
}

wa_err os_list_dir(const char *path, struct os_dir_list *out)
{
    out->names = NULL;
    out->count = 0;
    DIR *d = opendir(path);
    if (!d)
        return wa_fail(WA_E_IO, "cannot list %s: %s", path, strerror(errno));
    size_t cap = 0;
    wa_err e = WA_E_OK;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        if (out->count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **p = wa_reallocarray(out->names, ncap, sizeof *p);
            if (!p) {
                e = wa_fail(WA_E_NOMEM, "out of memory listing %s", path);
                break;
            }
            out->names = p;
            cap = ncap;
        }
        if (!(out->names[out->count] = strdup(ent->d_name))) {
            e = wa_fail(WA_E_NOMEM, "out of memory listing %s", path);
            break;
        }
        out->count++;
    }
    closedir(d);
    if (e) {
        os_dir_list_cleanup(out);
        return e;
    }
    os_dir_list_sort(out);
    return WA_E_OK;
}

wa_err os_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return wa_fail(WA_E_IO, "no random bytes from the system: %s", strerror(errno));
        p += got;
        n -= (size_t)got;
    }
    return WA_E_OK;
}

wa_err os_protocol_stdio(FILE **out)
{
    *out = NULL;
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    if (fd < 0)
        return wa_fail(WA_E_IO, "cannot duplicate stdout: %s", strerror(errno));
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        return wa_fail(WA_E_IO, "cannot open the protocol stream: %s", strerror(errno));
    }
    dup2(STDERR_FILENO, STDOUT_FILENO);
    *out = f;
    return WA_E_OK;
}

/* Waits until fd is readable; 1 ready, 0 timed out, -1 error. */
static int wait_readable(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int rc;
    do
        rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR && !os_interrupted());
    return rc;
}

wa_err os_tcp_listen_loopback(int port, os_socket *out, int *bound_port)
{
    *out = OS_SOCKET_NONE;
    if (port < 0 || port > 65535)
        return wa_fail(WA_E_INVALID_ARGS, "port %d is out of range", port);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return wa_fail(WA_E_IO, "cannot create a socket: %s", strerror(errno));
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, TCP_BACKLOG) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) != 0) {
        wa_err e = wa_fail(WA_E_IO, "cannot listen on 127.0.0.1:%d: %s", port, strerror(errno));
        close(s);
        return e;
    }
    *bound_port = ntohs(a.sin_port);
    *out = s;
    return WA_E_OK;
}

wa_err os_tcp_accept(os_socket listener, int timeout_ms, os_socket *out, uint32_t *peer)
{
    *out = OS_SOCKET_NONE;
    *peer = 0;
    int rc = wait_readable((int)listener, timeout_ms);
    if (rc == 0 || (rc < 0 && errno == EINTR))
        return WA_E_OK;
    if (rc < 0)
        return wa_fail(WA_E_IO, "cannot wait for a client: %s", strerror(errno));
    struct sockaddr_in from;
    socklen_t from_len = sizeof from;
    int c = accept((int)listener, (struct sockaddr *)&from, &from_len);
    if (c >= 0) {
        *peer = from.sin_family == AF_INET ? ntohl(from.sin_addr.s_addr) : 0;
        fcntl(c, F_SETFD, FD_CLOEXEC);
        /* A client that stops reading cannot hold a sender forever. */
        struct timeval tv = {OS_TCP_SEND_TIMEOUT_MS / 1000, (OS_TCP_SEND_TIMEOUT_MS % 1000) * 1000};
        setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    if (c < 0) /* the client may have given up already: not the listener's fault */
        return errno == ECONNABORTED || errno == EAGAIN || errno == EINTR
                   ? WA_E_OK
                   : wa_fail(WA_E_IO, "cannot accept a client: %s", strerror(errno));
    *out = c;
    return WA_E_OK;
}

wa_err os_tcp_recv(os_socket s, void *buf, size_t cap, int timeout_ms, size_t *got)
{
    *got = 0;
    int rc = wait_readable((int)s, timeout_ms);
    if (rc == 0 || (rc < 0 && errno == EINTR))
        return WA_E_TIMEOUT;
    if (rc < 0)
        return wa_fail(WA_E_IO, "cannot wait for data: %s", strerror(errno));
    ssize_t n;
    do
        n = recv((int)s, buf, cap, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return wa_fail(WA_E_IO, "cannot receive: %s", strerror(errno));
    *got = (size_t)n;
    return WA_E_OK;
}

wa_err os_tcp_send(os_socket s, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send((int)s, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return wa_fail(WA_E_IO, "cannot send: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    return WA_E_OK;
}

void os_tcp_close(os_socket s)
{
    if (s != OS_SOCKET_NONE)
        close((int)s);
}

/* ---- environment, mutexes, the input lock ---- */

extern char **environ;

wa_err os_env_names(struct os_dir_list *out)
{
    out->names = NULL;
    out->count = 0;
    size_t n = 0;
    while (environ && environ[n])
        n++;
    out->names = calloc(n + 1, sizeof *out->names);
    if (!out->names)
        return wa_fail(WA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        char *name = malloc(len + 1);
        if (!name) {
            os_dir_list_cleanup(out);
            return wa_fail(WA_E_NOMEM, "out of memory");
        }
        memcpy(name, environ[i], len);
        name[len] = '\0';
        out->names[out->count++] = name;
    }
    return WA_E_OK;
}

struct os_mutex {
    pthread_mutex_t m;
};

struct os_mutex *os_mutex_new(void)
{
    struct os_mutex *m = malloc(sizeof *m);
    if (m && pthread_mutex_init(&m->m, NULL) != 0) {
        free(m);
        m = NULL;
    }
    return m;
}

void os_mutex_free(struct os_mutex *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->m);
    free(m);
}

void os_mutex_lock(struct os_mutex *m)
{
    pthread_mutex_lock(&m->m);
}

void os_mutex_unlock(struct os_mutex *m)
{
    pthread_mutex_unlock(&m->m);
}

struct os_event {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool set;
};

struct os_event *os_event_new(void)
{
    struct os_event *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&e->m, NULL) != 0 || pthread_cond_init(&e->c, &a) != 0) {
        free(e);
        e = NULL;
    }
    pthread_condattr_destroy(&a);
    return e;
}

void os_event_free(struct os_event *e)
{
    if (!e)
        return;
    pthread_cond_destroy(&e->c);
    pthread_mutex_destroy(&e->m);
    free(e);
}

void os_event_set(struct os_event *e)
{
    pthread_mutex_lock(&e->m);
    e->set = true;
    pthread_cond_signal(&e->c);
    pthread_mutex_unlock(&e->m);
}

bool os_event_wait(struct os_event *e, int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout_ms >= 0) {
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&e->m);
    while (!e->set) {
        int rc = timeout_ms < 0 ? pthread_cond_wait(&e->c, &e->m)
                                : pthread_cond_timedwait(&e->c, &e->m, &until);
        if (rc != 0 && !e->set)
            break;
    }
    bool got = e->set;
    e->set = false;
    pthread_mutex_unlock(&e->m);
    return got;
}

/* A lock file in the temporary folder, held with a non-blocking flock polled until the
 * deadline: a process that dies releases it with its descriptor. */
wa_err os_input_lock(int timeout_ms, intptr_t *handle)
{
    *handle = -1;
    char *tmp = os_temp_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/winagent-input-%lu.lock", tmp ? tmp : "/tmp",
             (unsigned long)getuid());
    free(tmp);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return wa_fail(WA_E_IO, "cannot open the input lock %s: %s", path, strerror(errno));
    int64_t end = os_now_ms() + timeout_ms;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            *handle = fd;
            return WA_E_OK;
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            close(fd);
            return wa_fail(WA_E_IO, "cannot take the input lock: %s", strerror(errno));
        }
        if (os_now_ms() >= end) {
            close(fd);
            return wa_fail(WA_E_TIMEOUT, "another winagent kept the desktop's input for %d ms",
                           timeout_ms);
        }
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

void os_input_unlock(intptr_t handle)
{
    if (handle >= 0) {
        flock((int)handle, LOCK_UN);
        close((int)handle);
    }
}
