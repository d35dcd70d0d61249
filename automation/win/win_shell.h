/* The shell tool on Windows: the backend's run_shell slot. */
#ifndef WINAGENT_WIN_SHELL_H
#define WINAGENT_WIN_SHELL_H

#include <stddef.h>

#include "automation/backend.h"

/* Runs command through the shell named by WINAGENT_SHELL (a command-line prefix such
 * as "cmd.exe /c"; default "powershell.exe -NoProfile -NonInteractive -ExecutionPolicy
 * Bypass -Command"), with no window and stdin empty.
 *
 * Quoting: for cmd.exe the command is appended after a space exactly as given (cmd
 * has its own rules, and users write cmd syntax); when it starts with a double quote
 * it is wrapped in one more pair, which cmd /c strips again. For any other shell it is
 * appended as one argument quoted by the CommandLineToArgvW rules.
 *
 * The shell and everything it starts run in a job object; after timeout_ms (<= 0: 60 s)
 * the job is killed (out->timed_out, exit_code -1), otherwise programs it started in the
 * background keep running. stdout and stderr are each kept to cap bytes of what the
 * program wrote (0: 64 KiB), head and tail with "\n…[N bytes omitted]…\n" between,
 * then decoded: UTF-8 when valid, UTF-16 when it looks like it, else the system's OEM
 * code page (what console programs write into pipes).
 *
 * WA_E_OK whenever the shell started (whatever its exit code); WA_E_ACTION_FAILED
 * when it cannot be started; WA_E_INTERRUPTED (job killed, out filled) on Ctrl+C. */
wa_err win_run_shell(const char *shell_program, const char *command, int timeout_ms, size_t cap,
                     struct wa_shell_result *out);

#endif
