/* Operating-system services the portable core needs, implemented once per platform:
 * base/os_posix.c for the native build, automation/win/win_os.c for Windows.
 * All paths and strings are UTF-8. */
#ifndef WINAGENT_BASE_OS_H
#define WINAGENT_BASE_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

/* Milliseconds on a monotonic clock (for durations). */
int64_t os_now_ms(void);
/* Wall-clock milliseconds since the Unix epoch (for timestamps). */
int64_t os_time_ms(void);
/* Local time of `ms` (os_time_ms scale) split into fields; month 1-12. */
struct os_tm {
    int year, month, day, hour, min, sec, msec;
};
void os_local_time(int64_t ms, struct os_tm *out);

/* Sleeps up to ms milliseconds, waking early when an interrupt is requested.
 * Returns WA_E_OK, or WA_E_INTERRUPTED when cut short. */
wa_err os_sleep_ms(int ms);

/* Interruption: Ctrl+C, or (when watch_stdin and stdin is a pipe) the pipe closing
 * because the parent died. Installing is idempotent. Long operations poll
 * os_interrupted() and give up with WA_E_INTERRUPTED. */
void os_interrupt_install(bool watch_stdin);
bool os_interrupted(void);
void os_interrupt_request(void);
/* Why the interrupt came: "ctrl-c", "stdin closed" or "requested"; NULL when none. */
const char *os_interrupt_reason(void);

/* Files. os_fopen takes a UTF-8 path on every platform. */
FILE *os_fopen(const char *path, const char *mode);
bool os_path_exists(const char *path);
bool os_is_dir(const char *path);
/* Creates the folder and its parents; an existing folder is fine. */
wa_err os_mkdir_p(const char *path);
/* Reads a whole file of at most max bytes into a NUL-terminated heap buffer. */
wa_err os_read_file(const char *path, size_t max, char **out, size_t *len);
/* Writes a whole file atomically (a temporary file beside it, then a rename). */
wa_err os_write_file(const char *path, const void *data, size_t len);
/* Removes a file; a missing file is fine. */
wa_err os_remove(const char *path);
/* The folder holding the running executable (heap string), or NULL. */
char *os_exe_dir(void);
/* The user's temporary folder (heap string, no trailing separator). */
char *os_temp_dir(void);

/* Environment variable as a heap UTF-8 string; NULL when unset. */
char *os_getenv(const char *name);
/* Sets (value != NULL) or removes a variable for this process and its children. */
wa_err os_setenv(const char *name, const char *value);

/* Runs fn(arg) on a new detached thread. */
wa_err os_thread_start(void (*fn)(void *), void *arg);

/* Process id of this process. */
unsigned long os_pid(void);

#endif
