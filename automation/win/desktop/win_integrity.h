/* Input that Windows would drop: the secure desktop, and elevated windows (UIPI). */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_INTEGRITY_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_INTEGRITY_H

#include <windows.h>

#include "automation/backend.h"

/* The backend's input_reaches (backend.h). */
wa_err win_input_reaches(uint64_t hwnd);

/* The integrity level of a token, its RID (0x2000 medium, 0x3000 high), or -1. */
long win_token_integrity(HANDLE token);

#endif
