/* Input that Windows would drop: the secure desktop, and elevated windows (UIPI). */
#ifndef WINAGENT_AUTOMATION_WIN_WIN_INTEGRITY_H
#define WINAGENT_AUTOMATION_WIN_WIN_INTEGRITY_H

#include "automation/backend.h"

/* The backend's input_reaches (backend.h). */
wa_err win_input_reaches(uint64_t hwnd);

#endif
