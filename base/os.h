/* Operating-system services the portable core needs, implemented once per platform:
 * base/posix/os_posix.c for the native build, base/win/win_os.c (and win_net.c) for
 * Windows; os_common.c for what is the same on both.
 * All paths and strings are UTF-8. */
#ifndef WINAGENT_BASE_OS_H
#define WINAGENT_BASE_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/wa_err.h"

/* Milliseconds on a monotonic clock (for durations). */
int64_t os_now_ms(void);
/* The same clock with sub-millisecond resolution (for benchmarks and timings). */
double os_clock_ms(void);
/* Wall-clock milliseconds since the Unix epoch (for timestamps). */
int64_t os_time_ms(void);
/* Local time of `ms` (os_time_ms scale) split into fields; month 1-12. */
struct os_tm {
    int year, month, day, hour, min, sec, msec;
};
void os_local_time(int64_t ms, struct os_tm *out);
/* The same in UTC (for ISO 8601 timestamps on the wire). */
void os_utc_time(int64_t ms, struct os_tm *out);

/* Sleeps up to ms milliseconds, waking early when an interrupt is requested.
 * Returns WA_E_OK, or WA_E_INTERRUPTED when cut short. */
wa_err os_sleep_ms(int ms);

/* Interruption: Ctrl+C, or (when watch_stdin and stdin is a pipe) the pipe closing
 * because the parent died. Installing is idempotent. Long operations poll
 * os_interrupted() and give up with WA_E_INTERRUPTED. */
void os_interrupt_install(bool watch_stdin);
bool os_interrupted(void);
void os_interrupt_request(void);
/* Takes back an interrupt that os_interrupt_request made (a batch task's wall time ran
 * out; the batch goes on); Ctrl+C and a closed stdin stay. True when it was taken back. */
bool os_interrupt_withdraw(void);
/* Whether stdin is an interactive console a person can answer questions on (not a
 * pipe, a file or the null device). */
bool os_stdin_is_console(void);
/* Sleeps ms milliseconds whatever the interrupt flag says (watchdogs). */
void os_nap_ms(int ms);
/* Why the interrupt came: "ctrl-c", "stdin closed", "requested", "stop gesture" or
 * "the person took over"; NULL when none. */
const char *os_interrupt_reason(void);
/* The reasons of an interrupt, the first winning. */
enum {
    OS_INTERRUPT_CTRL_C = 1,
    OS_INTERRUPT_STDIN = 2,
    OS_INTERRUPT_REQUESTED = 3,
    OS_INTERRUPT_STOP_GESTURE = 4, /* the person's stop gesture (the corner, the chord) */
    OS_INTERRUPT_TAKEN_OVER = 5,   /* the person's own input with --takeover stop */
};
/* For the platform implementations (base/os_common.c keeps the flag): records an
 * interrupt, the first reason winning. Async-signal-safe. */
void os_interrupt_mark(int reason);
/* Records an interrupt for reason (the person's stop) and wakes os_sleep_ms, from any
 * thread. */
void os_interrupt_raise(int reason);
/* Whether the interrupt is the person's doing (OS_INTERRUPT_STOP_GESTURE, _TAKEN_OVER). */
bool os_interrupted_by_person(void);
/* Clears the interrupt when its reason is `reason`; true when it did. */
bool os_interrupt_unmark(int reason);

/* The platform's path separator, and a path rewritten to use it throughout (on
 * Windows '/' becomes '\\'; elsewhere nothing changes). */
#ifdef _WIN32
#define OS_SEP "\\"
#else
#define OS_SEP "/"
#endif
void os_path_native(char *path);

/* Files. os_fopen takes a UTF-8 path on every platform. */
FILE *os_fopen(const char *path, const char *mode);
bool os_path_exists(const char *path);
bool os_is_dir(const char *path);
/* A regular file, not a link, folder or device. */
bool os_is_plain_file(const char *path);
/* Creates the folder and its parents; an existing folder is fine. */
wa_err os_mkdir_p(const char *path);
/* Reads a whole file of at most max bytes into a NUL-terminated heap buffer. */
wa_err os_read_file(const char *path, size_t max, char **out, size_t *len);
/* Writes a whole file atomically (a temporary file beside it, then a rename). */
wa_err os_write_file(const char *path, const void *data, size_t len);
/* Whether users other than this one (administrators and the system aside) can write
 * into the folder: add or replace files there, or change who may. WA_E_UNSUPPORTED when
 * its permissions cannot be read (some network and redirected drives). */
wa_err os_dir_others_write(const char *path, bool *others);
/* Removes a file; a missing file is fine. */
wa_err os_remove(const char *path);
/* The folder holding the running executable (heap string), or NULL. */
char *os_exe_dir(void);
/* The user's temporary folder (heap string, no trailing separator). */
char *os_temp_dir(void);

/* The entries of a folder (files and folders, without "." and ".."), sorted bytewise
 * by name. Caller-owned: os_dir_list_cleanup frees the names. */
struct os_dir_list {
    char **names;
    size_t count;
};
wa_err os_list_dir(const char *path, struct os_dir_list *out);
void os_dir_list_cleanup(struct os_dir_list *l);
/* Sorts the names (byte order); the platform listings end with it. */
void os_dir_list_sort(struct os_dir_list *l);

/* Environment variable as a heap UTF-8 string; NULL when unset. */
char *os_getenv(const char *name);
/* Sets (value != NULL) or removes a variable for this process and its children. */
wa_err os_setenv(const char *name, const char *value);

/* The names of this process's environment variables (os_dir_list_cleanup frees). */
wa_err os_env_names(struct os_dir_list *out);

/* Runs fn(arg) on a new detached thread. */
wa_err os_thread_start(void (*fn)(void *), void *arg);

/* Runs fn(ctx, i) for every i in [0, n) on the calling thread and one helper thread
 * (started once and kept; while it is on another call, the caller runs them all),
 * each taking the next piece not yet taken, and returns when all are done. The caller
 * never waits for a helper that has not started (it takes the pieces itself), and at
 * most for the one piece the helper is on; once this returns, fn and ctx are no longer
 * touched. n == 1, or no thread to be had: all on the calling thread. */
void os_run_pieces(int n, void (*fn)(void *ctx, int i), void *ctx);

/* Runs fn(arg) beside the caller, as os_thread_start does, on os_run_pieces's kept
 * helper when it is waiting for work (no thread to make: under Wine 8 a new one first
 * runs 4-10 ms after it is made), else on a new thread. Returns once it is handed over.
 * While fn runs, os_run_pieces callers run their pieces alone. */
wa_err os_run_beside(void (*fn)(void *), void *arg);

/* A mutex between the threads of this process. os_mutex_new: NULL when out of memory. */
struct os_mutex;
struct os_mutex *os_mutex_new(void);
void os_mutex_free(struct os_mutex *m); /* NULL is fine */
void os_mutex_lock(struct os_mutex *m);
void os_mutex_unlock(struct os_mutex *m);

/* An auto-reset event: set wakes one waiter (or the next one to wait). */
struct os_event;
struct os_event *os_event_new(void);
void os_event_free(struct os_event *e); /* NULL is fine */
void os_event_set(struct os_event *e);
/* True when set within timeout_ms (negative: no limit); the event is reset. */
bool os_event_wait(struct os_event *e, int timeout_ms);

/* The desktop's input lock, between winagent processes of this user session: input
 * from two of them never interleaves. Waits up to timeout_ms; WA_E_TIMEOUT names the
 * wait. The returned handle goes back to os_input_unlock. */
wa_err os_input_lock(int timeout_ms, intptr_t *handle);
void os_input_unlock(intptr_t handle);

/* Process id of this process. */
unsigned long os_pid(void);

/* n bytes from the system's cryptographic random source (tokens, not simulation). */
wa_err os_random_bytes(void *buf, size_t n);

/* For stdio protocols (MCP): makes stdin binary and returns a private binary stream on
 * the original stdout; afterwards the process's stdout (fd 1, and on Windows the
 * standard output handle children inherit) points at stderr, so stray output of any
 * layer or child process can never corrupt the protocol. Call once, before any output. */
wa_err os_protocol_stdio(FILE **out);

/* Connections waiting to be accepted: room for a burst of clients that each open a new
 * connection per request, so that none waits out a dropped SYN. */
#define TCP_BACKLOG 128

/* Loopback TCP, just enough for `winagent serve --port`: one listener on 127.0.0.1
 * (never another address) and blocking sockets with timeouts. Timeouts are in
 * milliseconds; callers poll os_interrupted() between them. */
typedef intptr_t os_socket;
#define OS_SOCKET_NONE ((os_socket)-1)
/* Listens on 127.0.0.1:port (0 picks a free port); *bound_port is the port taken. */
wa_err os_tcp_listen_loopback(int port, os_socket *out, int *bound_port);
/* How long a send to an accepted client may block before it fails (a client that
 * stops reading). */
#define OS_TCP_SEND_TIMEOUT_MS 10000
/* Waits up to timeout_ms for a client; *out is OS_SOCKET_NONE when none came, and
 * *peer its IPv4 address (host order; 0 when unknown). */
wa_err os_tcp_accept(os_socket listener, int timeout_ms, os_socket *out, uint32_t *peer);
/* Receives up to cap bytes: WA_E_OK with *got > 0 for data, WA_E_OK with *got == 0
 * when the peer closed, WA_E_TIMEOUT when nothing came within timeout_ms, WA_E_IO. */
wa_err os_tcp_recv(os_socket s, void *buf, size_t cap, int timeout_ms, size_t *got);
/* Sends all len bytes (WA_E_IO when the peer went away). */
wa_err os_tcp_send(os_socket s, const void *data, size_t len);
/* Closes a socket; OS_SOCKET_NONE is fine. */
void os_tcp_close(os_socket s);

#endif
