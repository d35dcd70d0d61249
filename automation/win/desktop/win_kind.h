/* What a window is by its make, not its title (win_kind.c): the shell's Run dialog by
 * its controls, an address bar by the band around it; the control a click or a key
 * reaches; the clipboard's owner. The gate tells routes to a shell by these. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_KIND_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_KIND_H

#include "automation/backend.h"

wa_err win_window_kind(uint64_t hwnd, struct wa_window_kind *out);
wa_err win_focused_control(uint64_t top, uint64_t *control);
wa_err win_control_at(int x, int y, uint64_t *control);
wa_err win_clipboard_owner(uint64_t *hwnd);

#endif
