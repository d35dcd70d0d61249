/* Top-level windows on Windows: the backend's window slots, and the helpers other
 * parts of the Windows backend (capture, tree) share: handle checks, frames, titles,
 * process names. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_WINDOW_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_WINDOW_H

#include <windows.h>
#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"

/* ---- helpers ---- */

/* "error 5: Access is denied" for a GetLastError value, written into buf (for the
 * detail lines of the whole Windows backend). Returns buf. */
const char *win_error_text(DWORD err, char *buf, size_t size);

/* Whether this process runs under Wine (which identifies itself through an export of
 * its ntdll), whose X11 driver behaves unlike Windows in places. */
bool win_under_wine(void);

/* uint64_t handle <-> HWND, as struct wa_window and the tools carry them. */
static inline HWND win_hwnd(uint64_t h)
{
    return (HWND)(uintptr_t)h;
}
static inline uint64_t win_handle(HWND h)
{
    return (uint64_t)(uintptr_t)h;
}

/* *out = the window if it still exists; WA_E_WINDOW_NOT_FOUND naming the handle (a
 * stale one, say) otherwise. */
wa_err win_window_check(uint64_t handle, HWND *out);

/* The visible frame in screen pixels: DWM's extended frame bounds (which leave out
 * the invisible resize borders of Windows 10 and later), else GetWindowRect. */
bool win_window_frame(HWND h, RECT *out);

/* The title as UTF-8 heap string ("" when none, NULL only when out of memory).
 * InternalGetWindowText reads the stored caption without sending WM_GETTEXT, so a
 * hung application cannot block us. */
char *win_window_title(HWND h);

/* The executable's file name for a process id ("notepad.exe") as UTF-8 heap string;
 * "" when the process cannot be opened (another user's or a protected process). */
char *win_process_name(DWORD pid);
/* The same, the whole path ("C:\\Windows\\notepad.exe"). */
char *win_process_path(DWORD pid);

/* True when another process's visible window lies over part of fr (h's frame) above h
 * in the Z order. Windows of h's own process (its menus, drop-downs, dialogs) do not
 * count: they are part of what the user sees of it. */
bool win_window_covered(HWND h, RECT fr);

/* True for windows DWM hides although they are "visible" (UWP apps on other virtual
 * desktops, suspended store apps). */
bool win_window_cloaked(HWND h);

/* True for windows list_windows shows: visible, not cloaked, not a tool window, with
 * a title. */
bool win_window_listable(HWND h);

/* True when h belongs to winagent itself: its own windows, or the console (or the
 * terminal window hosting that console) it runs in. */
bool win_window_is_ours(HWND h);

/* ---- backend slots ---- */

wa_err win_list_windows(struct wa_window_list *out);
wa_err win_window_info(uint64_t hwnd, struct wa_window *out);
wa_err win_default_window(uint64_t *hwnd);
wa_err win_foreground_window(uint64_t *hwnd);
wa_err win_window_at(int x, int y, uint64_t *hwnd);
/* Every visible top-level window, topmost first (untitled pop-ups, menus and tool
 * windows too): what an image may show. */
wa_err win_list_visible_windows(struct wa_window_list *out);
wa_err win_monitors(struct wa_monitor *out, size_t max, size_t *count);

/* ---- shared with win_window_ctl.c and win_launch.c ---- */

/* A growing array of window handles. */
struct hwnd_vec {
    HWND *v;
    size_t n, cap;
    bool oom;
};

/* The desktop, the taskbar and their kin: never a target for actions. */
bool win_window_is_shell(HWND h);

/* Every top-level window, topmost first (EnumWindows goes in Z order). */
wa_err win_window_top_level(struct hwnd_vec *out);

/* Whether vec holds h. */
bool win_window_vec_has(const struct hwnd_vec *vec, HWND h);

/* IsHungAppWindow: its thread stopped answering a while ago. */
bool win_window_hung(HWND h);

/* "0x1234 "Untitled - Notepad" (notepad.exe)" for details. */
void win_window_describe(HWND h, char *buf, size_t size);

#endif
