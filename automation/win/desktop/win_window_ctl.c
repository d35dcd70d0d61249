/* Top-level windows changed: focus (with the attempts Windows' foreground rules
 * need), move, minimize, maximize, restore and close, each waiting for its effect. */
#include "automation/win/desktop/win_window_ctl.h"

#include <dwmapi.h>
#include <objbase.h>
#include <shellapi.h>
#include <shlwapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_person.h"
#include "automation/win/desktop/win_window.h"
#include "base/os.h"
#include "base/str.h"

/* How long window operations wait for another process to carry them out. */
#define STATE_WAIT_MS   2000
#define CLOSE_WAIT_MS   2000
#define FOCUS_ATTEMPTS  3
#define FOCUS_SETTLE_MS 250

/* ---- focus ---- */

/* A window in the foreground can still lie under another program's window: one shown
 * without being activated (Wine 8 shows a program that starts while another has the
 * foreground that way: a bench run found testapp in the foreground and notepad over
 * its buttons, so every click went to notepad). Focusing it brings it to the top. */
static void raise_if_covered(HWND h)
{
    RECT fr;
    if (win_window_hung(h) || !win_window_frame(h, &fr) || !win_window_covered(h, fr))
        return;
    SetWindowPos(h, HWND_TOP, 0, 0, 0, 0, SWP_NOMOVE | SWP_NOSIZE | SWP_NOACTIVATE);
}

static bool is_focused(HWND h)
{
    HWND fg = GetForegroundWindow();
    /* A dialog owned by h in the foreground counts: h is where the user is. */
    return fg && (fg == h || GetAncestor(fg, GA_ROOTOWNER) == h);
}

static bool wait_focused(HWND h, int ms)
{
    int64_t deadline = os_now_ms() + ms;
    while (!is_focused(h)) {
        if (os_now_ms() >= deadline)
            return false;
        Sleep(10);
    }
    return true;
}

/* The "Alt tap": Windows lets a process take the foreground when it made the last
 * input event. An unassigned key (0xE8) between Alt down and up keeps the tap from
 * opening the menu bar of whichever window receives the Alt release. */
static void alt_tap(void)
{
    if (GetAsyncKeyState(VK_MENU) & 0x8000)
        return; /* the user holds Alt: leave it alone */
    INPUT in[4];
    memset(in, 0, sizeof in);
    const WORD vks[4] = {VK_MENU, 0xE8, 0xE8, VK_MENU};
    for (int i = 0; i < 4; i++) {
        in[i].type = INPUT_KEYBOARD;
        in[i].ki.wVk = vks[i];
        in[i].ki.dwFlags = i >= 2 ? KEYEVENTF_KEYUP : 0;
    }
    SendInput(4, in, sizeof in[0]);
    win_person_injected(); /* not the person's: winagent's own */
}

/* Windows with no focused control after activation (a bare top-level window) get the
 * keyboard focus themselves; a window that restored focus to one of its controls is
 * left alone (SetFocus on the frame would take it from the control). */
static void focus_if_none(HWND h)
{
    DWORD tid = GetWindowThreadProcessId(h, NULL);
    GUITHREADINFO gti = {.cbSize = sizeof gti};
    if (win_window_hung(h) || !GetGUIThreadInfo(tid, &gti) || gti.hwndFocus)
        return;
    DWORD me = GetCurrentThreadId();
    bool attached = tid != me && AttachThreadInput(me, tid, TRUE);
    SetFocus(h);
    if (attached)
        AttachThreadInput(me, tid, FALSE);
}

static void focus_attempt(HWND h, int attempt)
{
    HWND fg = GetForegroundWindow();
    DWORD me = GetCurrentThreadId();
    DWORD fg_tid = fg ? GetWindowThreadProcessId(fg, NULL) : 0;
    AllowSetForegroundWindow(ASFW_ANY);
    /* Sharing the foreground thread's input state lets SetForegroundWindow through
     * the foreground lock. Never with a hung thread: we would share its stall. */
    bool attached =
        fg_tid && fg_tid != me && !win_window_hung(fg) && AttachThreadInput(me, fg_tid, TRUE);
    if (attempt > 0)
        alt_tap();
    SetForegroundWindow(h);
    if (!win_window_hung(h))
        BringWindowToTop(h);
    if (attached)
        AttachThreadInput(me, fg_tid, FALSE);
}

wa_err win_focus_window(uint64_t hwnd)
{
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    if (IsIconic(h)) {
        ShowWindowAsync(h, SW_RESTORE);
        int64_t deadline = os_now_ms() + STATE_WAIT_MS;
        while (IsIconic(h) && os_now_ms() < deadline)
            Sleep(10);
    }
    /* A window disabled by its modal dialog: activate the dialog, as a click on the
     * window would. is_focused(h) accepts it, being owned by h. */
    HWND to = h;
    if (!IsWindowEnabled(h)) {
        HWND popup = GetLastActivePopup(h);
        if (popup && popup != h && IsWindowVisible(popup) && IsWindowEnabled(popup))
            to = popup;
    }
    for (int attempt = 0; attempt < FOCUS_ATTEMPTS; attempt++) {
        if (is_focused(h)) {
            raise_if_covered(h);
            focus_if_none(to);
            return WA_E_OK;
        }
        if (!IsWindow(h))
            return wa_fail(WA_E_WINDOW_NOT_FOUND, "window 0x%llx closed while being focused",
                           (unsigned long long)hwnd);
        focus_attempt(to, attempt);
        if (wait_focused(h, FOCUS_SETTLE_MS)) {
            raise_if_covered(h);
            focus_if_none(to);
            return WA_E_OK;
        }
    }
    char want[300], have[300];
    win_window_describe(h, want, sizeof want);
    win_window_describe(GetForegroundWindow(), have, sizeof have);
    return wa_fail(WA_E_FOCUS_FAILED,
                   "%s is not in the foreground after %d attempts%s; the "
                   "foreground window is %s",
                   want, FOCUS_ATTEMPTS,
                   win_window_hung(h) ? " (it is not responding)"
                   : IsIconic(h)      ? " (it stays minimised)"
                                      : "",
                   have);
}

/* ---- move, state, close ---- */

static bool rect_eq(RECT a, struct wa_rect b)
{
    return a.left == b.left && a.top == b.top && a.right == b.right && a.bottom == b.bottom;
}

static enum wa_window_state state_of(HWND h)
{
    return IsIconic(h) ? WA_WINDOW_MINIMIZED : IsZoomed(h) ? WA_WINDOW_MAXIMIZED : WA_WINDOW_NORMAL;
}

static const char *state_name(enum wa_window_state s)
{
    return s == WA_WINDOW_MINIMIZED   ? "minimised"
           : s == WA_WINDOW_MAXIMIZED ? "maximised"
                                      : "normal";
}

/* Shows h with cmd without waiting on its thread (ShowWindowAsync: a hung window cannot
 * block us) and polls until it is in state s and stays there for a moment: on the way
 * from minimised back to maximised a window passes through "normal" (seen under
 * Wine). */
static bool show_and_wait(HWND h, int cmd, enum wa_window_state s)
{
    ShowWindowAsync(h, cmd);
    int64_t deadline = os_now_ms() + STATE_WAIT_MS, reached = 0;
    for (;;) {
        int64_t now = os_now_ms();
        if (state_of(h) != s)
            reached = 0;
        else if (!reached)
            reached = now;
        else if (now - reached >= 60)
            return true;
        if (now >= deadline || !IsWindow(h))
            return false;
        Sleep(10);
    }
}

/* To "normal": a window minimised from maximised comes back maximised on SW_RESTORE
 * (WPF_RESTORETOMAXIMIZED), so that takes a second restore. */
static bool restore_to_normal(HWND h)
{
    WINDOWPLACEMENT wp = {.length = sizeof wp};
    if (IsIconic(h) && GetWindowPlacement(h, &wp) && (wp.flags & WPF_RESTORETOMAXIMIZED) &&
        !show_and_wait(h, SW_RESTORE, WA_WINDOW_MAXIMIZED))
        return false;
    if (show_and_wait(h, SW_RESTORE, WA_WINDOW_NORMAL))
        return true;
    /* The placement did not say so, but it came back maximised: restore once more. */
    return state_of(h) == WA_WINDOW_MAXIMIZED && show_and_wait(h, SW_RESTORE, WA_WINDOW_NORMAL);
}

wa_err win_move_window(uint64_t hwnd, struct wa_rect r)
{
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    if (wa_rect_empty(r))
        return wa_fail(WA_E_INVALID_ARGS, "window size %dx%d is empty", wa_rect_width(r),
                       wa_rect_height(r));
    if (state_of(h) != WA_WINDOW_NORMAL && !restore_to_normal(h))
        return wa_fail(WA_E_ACTION_FAILED, "window 0x%llx stays %s, so it cannot be moved%s",
                       (unsigned long long)hwnd, state_name(state_of(h)),
                       win_window_hung(h) ? " (it is not responding)" : "");
    /* r is the visible frame; SetWindowPos wants the whole window, whose invisible
     * resize borders (Windows 10 and later) lie outside the frame. */
    RECT wr, fr;
    if (!GetWindowRect(h, &wr) || !win_window_frame(h, &fr))
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "window 0x%llx went away", (unsigned long long)hwnd);
    int x = r.left - (fr.left - wr.left), y = r.top - (fr.top - wr.top);
    int w = r.right + (wr.right - fr.right) - x, hgt = r.bottom + (wr.bottom - fr.bottom) - y;
    if (!SetWindowPos(h, NULL, x, y, w, hgt, SWP_NOZORDER | SWP_NOACTIVATE | SWP_ASYNCWINDOWPOS)) {
        char msg[300];
        return wa_fail(WA_E_ACTION_FAILED, "cannot move window 0x%llx (%s)",
                       (unsigned long long)hwnd, win_error_text(GetLastError(), msg, sizeof msg));
    }
    /* Wait for the exact frame; or, when the application moved it but settled elsewhere
     * (it limits its size), stop once the frame has kept still for a moment. */
    RECT now = fr, last = fr;
    int64_t deadline = os_now_ms() + STATE_WAIT_MS, still_since = 0;
    while (os_now_ms() < deadline && win_window_frame(h, &now)) {
        if (rect_eq(now, r))
            return wa_fail(WA_E_OK, "moved");
        if (!EqualRect(&now, &last)) {
            last = now;
            still_since = os_now_ms();
        } else if (still_since && os_now_ms() - still_since > 150) {
            break;
        }
        Sleep(10);
    }
    if (now.left == fr.left && now.top == fr.top && now.right == fr.right &&
        now.bottom == fr.bottom &&
        !(fr.left == r.left && fr.top == r.top && fr.right == r.right && fr.bottom == r.bottom))
        return wa_fail(WA_E_ACTION_FAILED, "window 0x%llx did not move%s", (unsigned long long)hwnd,
                       win_window_hung(h) ? " (it is not responding)" : "");
    /* It moved, but the application limited its size or position: not an error. */
    return wa_fail(WA_E_OK,
                   "the window is at [%ld,%ld][%ld,%ld]: the application limits its "
                   "size",
                   now.left, now.top, now.right, now.bottom);
}

wa_err win_set_window_state(uint64_t hwnd, enum wa_window_state s)
{
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    bool ok = s == WA_WINDOW_MINIMIZED   ? show_and_wait(h, SW_MINIMIZE, s)
              : s == WA_WINDOW_MAXIMIZED ? show_and_wait(h, SW_MAXIMIZE, s)
                                         : restore_to_normal(h);
    if (ok)
        return WA_E_OK;
    if (!IsWindow(h))
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "window 0x%llx closed", (unsigned long long)hwnd);
    return wa_fail(WA_E_NOT_VERIFIED, "window 0x%llx is still %s, not %s, after %d ms%s",
                   (unsigned long long)hwnd, state_name(state_of(h)), state_name(s), STATE_WAIT_MS,
                   win_window_hung(h) ? " (it is not responding)" : "");
}

wa_err win_close_window(uint64_t hwnd)
{
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    if (!PostMessageW(h, WM_CLOSE, 0, 0)) {
        char msg[300];
        return wa_fail(WA_E_ACTION_FAILED, "cannot post WM_CLOSE to 0x%llx (%s)",
                       (unsigned long long)hwnd, win_error_text(GetLastError(), msg, sizeof msg));
    }
    int64_t deadline = os_now_ms() + CLOSE_WAIT_MS;
    while (IsWindow(h)) {
        if (os_now_ms() >= deadline) {
            char fg[300];
            win_window_describe(GetForegroundWindow(), fg, sizeof fg);
            return wa_fail(WA_E_OK,
                           "the window is still open after %d ms%s; the foreground "
                           "window is %s (a prompt such as \"save changes?\" may be waiting)",
                           CLOSE_WAIT_MS,
                           win_window_hung(h)    ? " (it is not responding)"
                           : !IsWindowVisible(h) ? " but hidden"
                                                 : "",
                           fg);
        }
        Sleep(20);
    }
    return wa_fail(WA_E_OK, "closed");
}
