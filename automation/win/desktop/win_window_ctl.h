/* Top-level windows changed: focus, move, state and close (the backend's slots). */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_WINDOW_CTL_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_WINDOW_CTL_H

#include <stdint.h>

#include "automation/backend.h"

wa_err win_focus_window(uint64_t hwnd);
wa_err win_move_window(uint64_t hwnd, struct wa_rect r);
wa_err win_set_window_state(uint64_t hwnd, enum wa_window_state s);
/* Posts WM_CLOSE and waits up to 2 s for the window to go. When it is still there
 * (an unsaved-changes prompt, say) the result is still WA_E_OK, and the detail line
 * (wa_err_detail) says so and names the window now in the foreground; when it went,
 * the detail is "closed". */
wa_err win_close_window(uint64_t hwnd);

#endif
