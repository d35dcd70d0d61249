/* Holds on the processes behind windows, to tell after acting whether a program ended
 * while it was acted on, and how (its exit code); the processes a program started. */
#ifndef WINAGENT_AUTOMATION_WIN_WIN_PROCESS_H
#define WINAGENT_AUTOMATION_WIN_WIN_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"

/* The backend's watch_process, process_state and unwatch_process (backend.h). */
wa_err win_watch_process(uint64_t hwnd, uintptr_t *watch);
wa_err win_process_state(uintptr_t watch, struct wa_process_state *out);
void win_unwatch_process(uintptr_t watch);
/* The backend's started_by, process_parent and wait_ready (backend.h): a Toolhelp
 * snapshot of the processes, their creation times, WaitForInputIdle. */
wa_err win_started_by(unsigned long pid, int64_t since_ms, struct wa_started *out, size_t max,
                      size_t *count);
wa_err win_process_parent(unsigned long pid, unsigned long *parent);
wa_err win_wait_ready(unsigned long pid, int timeout_ms);

#endif
