/* winagent's one error enum: codes, their wire names and messages, plus a detail line. */
#ifndef WINAGENT_BASE_WA_ERR_H
#define WINAGENT_BASE_WA_ERR_H

#include <stdarg.h>

/* printf-style checking; MinGW needs gnu_printf for its C99 printf (%zu, %lld). */
#if defined(__MINGW32__)
#define WA_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#define WA_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define WA_PRINTF(fmt, args)
#endif

/* X(NAME, "wire_code", "message"). The wire code is what JSON results, the CLI and
 * MCP report as error.code; keep those stable. */
#define WA_ERROR_MAP(X)                                                                            \
    X(OK, "ok", "success")                                                                         \
    X(NOMEM, "out_of_memory", "out of memory")                                                     \
    X(INVALID_ARGS, "invalid_args", "invalid arguments")                                           \
    X(USAGE, "usage", "usage error")                                                               \
    X(CONFIG, "config", "configuration error")                                                     \
    X(UNSUPPORTED, "unsupported", "not supported by this backend")                                 \
    X(WINDOW_NOT_FOUND, "window_not_found", "window not found")                                    \
    X(ELEMENT_NOT_FOUND, "element_not_found", "element not found")                                 \
    X(STALE_REF, "stale_ref", "element reference is stale")                                        \
    X(AMBIGUOUS, "ambiguous", "selector matches more than one element")                            \
    X(FOCUS_FAILED, "focus_failed", "could not bring the window to the foreground")                \
    X(TIMEOUT, "timeout", "timed out")                                                             \
    X(ACTION_FAILED, "action_failed", "action failed")                                             \
    X(DENIED, "denied", "refused by policy")                                                       \
    X(SHELL_DISABLED, "shell_disabled", "needs the shell permission")                              \
    X(FOCUS_LOST, "focus_lost", "another window took the foreground")                              \
    X(NOT_VERIFIED, "not_verified", "read back, the action shows no effect")                       \
    X(CANCELLED, "cancelled", "cancelled by the client")                                           \
    X(DIVERGED, "diverged", "the desktop differs from the recording")                              \
    X(IO, "io_error", "input/output error")                                                        \
    X(TOO_LARGE, "too_large", "data exceeds its size limit")                                       \
    X(PARSE, "parse_error", "malformed data")                                                      \
    X(NETWORK, "network_error", "network error")                                                   \
    X(HTTP, "http_error", "server returned an error")                                              \
    X(RATE_LIMITED, "rate_limited", "rate limited by the server")                                  \
    X(QUOTA, "quota_exceeded", "quota exhausted")                                                  \
    X(BLOCKED, "blocked", "the model refused or blocked the request")                              \
    X(INTERRUPTED, "interrupted", "interrupted")                                                   \
    X(ELEVATED_TARGET, "elevated_target",                                                          \
      "the window runs at a higher integrity level: Windows would drop the input")                 \
    X(SECURE_DESKTOP, "secure_desktop_active",                                                     \
      "the secure desktop (a UAC prompt) is up: no input reaches it")                              \
    X(BACKGROUND_UNAVAILABLE, "background_unavailable",                                            \
      "no background route: the action needs the foreground, the real mouse or the keyboard")      \
    X(COVERED, "covered", "another program's window lies over the point")                          \
    X(TARGET_GONE, "target_gone", "the target program ended while acting (it crashed)")            \
    X(TARGET_HUNG, "target_hung", "the target program stopped answering while acting")             \
    X(USER_ACTIVE, "user_active", "a person is using the mouse or keyboard: winagent sent nothing")

typedef enum {
#define WA_X_ENUM(name, code, msg) WA_E_##name,
    WA_ERROR_MAP(WA_X_ENUM)
#undef WA_X_ENUM
        WA_E__COUNT
} wa_err;

/* "invalid_args"; "unknown" for values outside the table. */
const char *wa_err_code(wa_err e);
/* "invalid arguments". */
const char *wa_err_message(wa_err e);
/* The enum value for a wire code, or WA_E__COUNT when unknown. */
wa_err wa_err_from_code(const char *code);

/* Records a detail line for the calling thread and returns e, so a failing function
 * can `return wa_fail(WA_E_TIMEOUT, "window %s did not answer in %d ms", ...)`.
 * The detail is truncated to 511 bytes. It must never contain secrets. */
wa_err wa_fail(wa_err e, const char *fmt, ...) WA_PRINTF(2, 3);

/* The calling thread's last detail line ("" when none), valid until the next wa_fail. */
const char *wa_err_detail(void);
/* Forgets the detail line (call before an operation whose detail you will read). */
void wa_err_clear(void);

#endif
