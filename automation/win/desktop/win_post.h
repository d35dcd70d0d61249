/* Background input on Windows: clicks and text posted as window messages to one
 * window, never SendInput, never the cursor, never the foreground. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_POST_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_POST_H

#include <windows.h>

#include "automation/backend.h"

/* The backend's post_click, post_wheel and post_text (backend.h). */
wa_err win_post_click(uint64_t top, int x, int y, enum wa_button b, int count, uint64_t *child);
wa_err win_post_wheel(uint64_t top, int x, int y, int notches, bool horizontal, uint64_t *child);
wa_err win_post_text(uint64_t hwnd, const char *utf8, uint64_t *control);
/* Where typing into top-level window top goes: the control with its thread's keyboard
 * focus, else (a thread not in front has none) its only writable edit; NULL when
 * neither is there. */
HWND win_typing_target(HWND top);

#endif
