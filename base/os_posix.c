/* base/os.h for POSIX systems (the native build). */
#include "base/os.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_int interrupt_reason; /* 0 none, 1 ctrl-c, 2 stdin closed, 3 requested */

int64_t os_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t os_time_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void os_local_time(int64_t ms, struct os_tm *out)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    localtime_r(&t, &tm);
    out->year = tm.tm_year + 1900;
    out->month = tm.tm_mon + 1;
    out->day = tm.tm_mday;
    out->hour = tm.tm_hour;
    out->min = tm.tm_min;
    out->sec = tm.tm_sec;
    out->msec = (int)(ms % 1000);
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
    atomic_store(&interrupt_reason, 1);
}

static void *stdin_watch(void *arg)
{
    (void)arg;
    char buf[256];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        ;
    int expected = 0;
    atomic_compare_exchange_strong(&interrupt_reason, &expected, 2);
    return NULL;
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

bool os_interrupted(void)
{
    return atomic_load(&interrupt_reason) != 0;
}

void os_interrupt_request(void)
{
    int expected = 0;
    atomic_compare_exchange_strong(&interrupt_reason, &expected, 3);
}

const char *os_interrupt_reason(void)
{
    switch (atomic_load(&interrupt_reason)) {
    case 1:
        return "ctrl-c";
    case 2:
        return "stdin closed";
    case 3:
        return "requested";
    default:
        return NULL;
    }
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
    wa_err e = WA_E_OK;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap > max + 1) {
                e = wa_fail(WA_E_TOO_LARGE, "%s is larger than %zu bytes", path, max);
                break;
            }
            char *p = realloc(buf, cap * 2);
            if (!p)
                break;
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    if (!buf)
        return wa_fail(WA_E_NOMEM, "out of memory reading %s", path);
    if (!e && n > max)
        e = wa_fail(WA_E_TOO_LARGE, "%s is larger than %zu bytes", path, max);
    if (e) {
        free(buf);
        return e;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return WA_E_OK;
}

wa_err os_write_file(const char *path, const void *data, size_t len)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp)
        return wa_fail(WA_E_NOMEM, "out of memory");
    snprintf(tmp, n + 32, "%s.tmp%lu", path, (unsigned long)getpid());
    FILE *f = fopen(tmp, "wb");
    wa_err e = WA_E_OK;
    if (!f) {
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
