/* The fake desktop's machine facts for `winagent doctor`, from the scene's "system". */
#ifndef WINAGENT_FAKE_SYSTEM_H
#define WINAGENT_FAKE_SYSTEM_H

#include "automation/backend.h"

/* The backend's system_info (backend.h). The scene's "system" object:
 * {"product": "Windows 11 Pro", "release": "23H2", "version": [10, 0, 22631, 3007],
 *  "wine": "8.0", "session": 1, "console_session": 1, "remote": false,
 *  "elevated": false, "uiaccess": false, "dpi_awareness": "unaware" | "system" |
 *  "per_monitor" | "per_monitor_v2", "uac": {"EnableLUA": 1,
 *  "ConsentPromptBehaviorAdmin": 5, "PromptOnSecureDesktop": 1},
 *  "uia": true | "why it is not reachable"}
 * beside the scene's "winagent_integrity" (the integrity level; medium when not said)
 * and "secure_desktop" (then the input desktop is Winlogon's, else Default). A field
 * the scene leaves out is unknown. */
wa_err fake_system_info(struct wa_system_info *out);

#endif
