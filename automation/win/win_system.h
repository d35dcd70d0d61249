/* The machine's facts for `winagent doctor`: Windows' version, the session and its
 * desktop, the process's integrity, UIAccess and DPI awareness, UAC's policy and
 * whether UI Automation answers. */
#ifndef WINAGENT_AUTOMATION_WIN_WIN_SYSTEM_H
#define WINAGENT_AUTOMATION_WIN_WIN_SYSTEM_H

#include "automation/backend.h"

/* The backend's system_info (backend.h). */
wa_err win_system_info(struct wa_system_info *out);

#endif
