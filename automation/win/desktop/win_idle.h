/* When a window's thread has handled the input sent to it. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_IDLE_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_IDLE_H

#include "automation/backend.h"

/* The backend's input_handled (backend.h). */
wa_err win_input_handled(uint64_t hwnd, int timeout_ms);

#endif
