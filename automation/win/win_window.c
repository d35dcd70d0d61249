/* Top-level windows on Windows: listing, the target window, focus, move, state,
 * close, launch and monitors. */
#include "automation/win/win_window.h"

#include <dwmapi.h>
#include <objbase.h>
#include <shellapi.h>
#include <shlwapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/win/win_utf8.h"
#include "base/os.h"
#include "base/str.h"

/* How long window operations wait for another process to carry them out. */
#define STATE_WAIT_MS   2000
#define CLOSE_WAIT_MS   2000
#define FOCUS_ATTEMPTS  3
#define FOCUS_SETTLE_MS 250

/* ---- small helpers ---- */

const char *win_error_text(DWORD err, char *buf, size_t size)
{
    wchar_t w[256];
    DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, err,
                             0, w, sizeof w / sizeof w[0], NULL);
    while (n > 0 &&
           (w[n - 1] == L'\r' || w[n - 1] == L'\n' || w[n - 1] == L' ' || w[n - 1] == L'.'))
        n--;
    char *u = n > 0 ? win_wide_to_utf8_n(w, (int)n) : NULL;
    snprintf(buf, size, "error %lu%s%s", (unsigned long)err, u ? ": " : "", u ? u : "");
    free(u);
    return buf;
}

wa_err win_window_check(uint64_t handle, HWND *out)
{
    HWND h = win_hwnd(handle);
    *out = NULL;
    if (!handle || !IsWindow(h))
        return wa_fail(WA_E_WINDOW_NOT_FOUND,
                       "no window 0x%llx (it was closed, or the handle "
                       "is stale: list the windows again)",
                       (unsigned long long)handle);
    *out = h;
    return WA_E_OK;
}

bool win_window_frame(HWND h, RECT *out)
{
    RECT r;
    if (FAILED(DwmGetWindowAttribute(h, DWMWA_EXTENDED_FRAME_BOUNDS, &r, sizeof r)) ||
        r.right <= r.left || r.bottom <= r.top) {
        if (!GetWindowRect(h, &r))
            return false;
    }
    /* A maximised window's borders hang over the monitor's edges; what shows is the
     * work area. DWM reports that on Windows 10; GetWindowRect (Wine, or no DWM) does
     * not. */
    if (IsZoomed(h)) {
        MONITORINFO mi = {.cbSize = sizeof mi};
        RECT clipped;
        if (GetMonitorInfoW(MonitorFromWindow(h, MONITOR_DEFAULTTONEAREST), &mi) &&
            IntersectRect(&clipped, &r, &mi.rcWork))
            r = clipped;
    }
    *out = r;
    return true;
}

char *win_window_title(HWND h)
{
    wchar_t buf[512];
    int n = InternalGetWindowText(h, buf, sizeof buf / sizeof buf[0]);
    if (n < (int)(sizeof buf / sizeof buf[0]) - 1)
        return win_wide_to_utf8_n(buf, n > 0 ? n : 0);
    /* A caption that filled the buffer: read it again with room to spare. */
    int cap = 32768;
    wchar_t *big = malloc((size_t)cap * sizeof *big);
    if (!big)
        return NULL;
    n = InternalGetWindowText(h, big, cap);
    char *s = win_wide_to_utf8_n(big, n > 0 ? n : 0);
    free(big);
    return s;
}

char *win_window_class(HWND h)
{
    wchar_t buf[257];
    int n = GetClassNameW(h, buf, sizeof buf / sizeof buf[0]);
    return win_wide_to_utf8_n(buf, n > 0 ? n : 0);
}

char *win_process_path(DWORD pid)
{
    HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (!p)
        return win_wide_to_utf8_n(L"", 0);
    wchar_t path[1024];
    DWORD n = sizeof path / sizeof path[0];
    BOOL ok = QueryFullProcessImageNameW(p, 0, path, &n);
    CloseHandle(p);
    return win_wide_to_utf8_n(path, ok ? (int)n : 0);
}

char *win_process_name(DWORD pid)
{
    char *path = win_process_path(pid);
    if (!path)
        return NULL;
    const char *base = str_path_base(path);
    memmove(path, base, strlen(base) + 1);
    return path;
}

bool win_window_cloaked(HWND h)
{
    DWORD cloaked = 0;
    return SUCCEEDED(DwmGetWindowAttribute(h, DWMWA_CLOAKED, &cloaked, sizeof cloaked)) &&
           cloaked != 0;
}

bool win_window_listable(HWND h)
{
    if (!IsWindowVisible(h) || win_window_cloaked(h))
        return false;
    LONG_PTR ex = GetWindowLongPtrW(h, GWL_EXSTYLE);
    if ((ex & WS_EX_TOOLWINDOW) && !(ex & WS_EX_APPWINDOW))
        return false;
    RECT r;
    if (!win_window_frame(h, &r) || r.right <= r.left || r.bottom <= r.top)
        return false;
    wchar_t t[2];
    return InternalGetWindowText(h, t, 2) > 0;
}

bool win_window_is_ours(HWND h)
{
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    if (pid == GetCurrentProcessId())
        return true;
    /* The console we run in belongs to conhost (or, under Windows Terminal, is a hidden
     * pseudo-console window owned by the terminal's window): match both. */
    HWND con = GetConsoleWindow();
    if (!con)
        return false;
    return h == con || h == GetAncestor(con, GA_ROOTOWNER) || h == GetWindow(con, GW_OWNER);
}

/* The desktop, the taskbar and their kin: never a target for actions. */
static bool is_shell_window(HWND h)
{
    if (h == GetShellWindow() || h == GetDesktopWindow())
        return true;
    wchar_t cls[64];
    if (!GetClassNameW(h, cls, sizeof cls / sizeof cls[0]))
        return false;
    return wcscmp(cls, L"Shell_TrayWnd") == 0 || wcscmp(cls, L"Shell_SecondaryTrayWnd") == 0 ||
           wcscmp(cls, L"Progman") == 0 || wcscmp(cls, L"WorkerW") == 0;
}

/* A growing array of window handles. */
struct hwnd_vec {
    HWND *v;
    size_t n, cap;
    bool oom;
};

static BOOL CALLBACK collect_window(HWND h, LPARAM lp)
{
    struct hwnd_vec *vec = (struct hwnd_vec *)lp;
    if (vec->n == vec->cap) {
        size_t cap = vec->cap ? vec->cap * 2 : 128;
        HWND *v = wa_reallocarray(vec->v, cap, sizeof *v);
        if (!v) {
            vec->oom = true;
            return FALSE;
        }
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n++] = h;
    return TRUE;
}

/* Every top-level window, topmost first (EnumWindows goes in Z order). */
static wa_err top_level_windows(struct hwnd_vec *out)
{
    memset(out, 0, sizeof *out);
    EnumWindows(collect_window, (LPARAM)out);
    if (out->oom) {
        free(out->v);
        memset(out, 0, sizeof *out);
        return wa_fail(WA_E_NOMEM, "out of memory listing windows");
    }
    return WA_E_OK;
}

static bool vec_has(const struct hwnd_vec *vec, HWND h)
{
    for (size_t i = 0; i < vec->n; i++)
        if (vec->v[i] == h)
            return true;
    return false;
}

static struct wa_rect to_wa_rect(RECT r)
{
    return (struct wa_rect){r.left, r.top, r.right, r.bottom};
}

static bool hung(HWND h)
{
    return IsHungAppWindow(h) != 0;
}

/* "0x1234 "Untitled - Notepad" (notepad.exe)" for details. */
static void describe(HWND h, char *buf, size_t size)
{
    if (!h) {
        snprintf(buf, size, "none");
        return;
    }
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    char *title = win_window_title(h), *proc = win_process_name(pid);
    snprintf(buf, size, "0x%llx \"%s\" (%s)", (unsigned long long)win_handle(h), title ? title : "",
             proc && *proc ? proc : "?");
    free(title);
    free(proc);
}

/* A Store app's frame belongs to ApplicationFrameHost; the app itself is the process of
 * the child window it hosts (its CoreWindow). Minimised, the app is suspended and its
 * CoreWindow leaves the frame for a top-level window of its own, with the frame's title:
 * then the one such window is the app. 0 when the app cannot be told (the frame is then
 * unidentified, and refused). */
struct hosted {
    DWORD frame_pid, pid;
    HWND frame;
    int found;
};

static BOOL CALLBACK find_hosted(HWND child, LPARAM arg)
{
    struct hosted *h = (struct hosted *)arg;
    DWORD pid = 0;
    GetWindowThreadProcessId(child, &pid);
    if (pid && pid != h->frame_pid) {
        h->pid = pid;
        return FALSE;
    }
    return TRUE;
}

static BOOL CALLBACK find_detached(HWND top, LPARAM arg)
{
    struct hosted *h = (struct hosted *)arg;
    wchar_t cls[64], title[256], frame_title[256];
    DWORD pid = 0;
    GetWindowThreadProcessId(top, &pid);
    if (!pid || pid == h->frame_pid || !GetClassNameW(top, cls, 64) ||
        wcscmp(cls, L"Windows.UI.Core.CoreWindow") != 0)
        return TRUE;
    int n = InternalGetWindowText(top, title, 256);
    if (n > 0 && InternalGetWindowText(h->frame, frame_title, 256) == n &&
        wcscmp(title, frame_title) == 0) {
        h->pid = pid;
        h->found++;
    }
    return TRUE;
}

static DWORD hosted_process(HWND frame, DWORD frame_pid, const char *process, bool *unknown)
{
    *unknown = false;
    if (!process || _stricmp(process, "ApplicationFrameHost.exe") != 0)
        return 0;
    struct hosted h = {frame_pid, 0, frame, 0};
    EnumChildWindows(frame, find_hosted, (LPARAM)&h);
    if (h.pid)
        return h.pid;
    EnumWindows(find_detached, (LPARAM)&h);
    *unknown = h.found != 1;
    return h.found == 1 ? h.pid : 0;
}

static wa_err fill_info(HWND h, struct wa_window *w)
{
    memset(w, 0, sizeof *w);
    w->hwnd = win_handle(h);
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    w->pid = pid;
    w->title = win_window_title(h);
    w->class_name = win_window_class(h);
    w->process_path = win_process_path(pid);
    w->process = win_process_name(pid);
    bool unknown;
    DWORD app = hosted_process(h, pid, w->process, &unknown);
    if (app || unknown) { /* the gate and the lists know a Store app by its own process */
        free(w->process);
        free(w->process_path);
        w->process_path = app ? win_process_path(app) : str_dup("");
        w->process = app ? win_process_name(app) : str_dup("");
        w->pid = app;
    }
    if (!w->title || !w->class_name || !w->process || !w->process_path) {
        wa_window_cleanup(w);
        return wa_fail(WA_E_NOMEM, "out of memory reading window 0x%llx",
                       (unsigned long long)w->hwnd);
    }
    RECT r;
    if (win_window_frame(h, &r))
        w->rect = to_wa_rect(r);
    w->state = IsIconic(h)   ? WA_WINDOW_MINIMIZED
               : IsZoomed(h) ? WA_WINDOW_MAXIMIZED
                             : WA_WINDOW_NORMAL;
    w->foreground = GetForegroundWindow() == h;
    w->visible = IsWindowVisible(h) != 0;
    HWND owner = GetAncestor(h, GA_ROOTOWNER);
    w->owner = owner && owner != h ? win_handle(owner) : 0;
    /* Message-only windows have HWND_MESSAGE's window for parent, not the desktop. */
    HWND desktop = GetDesktopWindow();
    w->top_level = h != desktop && GetAncestor(h, GA_PARENT) == desktop;
    return WA_E_OK;
}

/* ---- listing and information ---- */

/* The windows of list (listable: visible, titled, no tool windows; or all visible). */
static wa_err list_top_level(struct wa_window_list *out, bool listable_only)
{
    memset(out, 0, sizeof *out);
    struct hwnd_vec all;
    wa_err e = top_level_windows(&all);
    if (e)
        return e;
    out->items = calloc(all.n ? all.n : 1, sizeof *out->items);
    if (!out->items) {
        e = wa_fail(WA_E_NOMEM, "out of memory listing windows");
        goto out;
    }
    for (size_t i = 0; i < all.n; i++) {
        if (listable_only ? !win_window_listable(all.v[i])
                          : !IsWindowVisible(all.v[i]) || win_window_cloaked(all.v[i]))
            continue;
        e = fill_info(all.v[i], &out->items[out->count]);
        if (e) {
            wa_window_list_cleanup(out);
            goto out;
        }
        out->count++;
    }
out:
    free(all.v);
    return e;
}

wa_err win_list_windows(struct wa_window_list *out)
{
    return list_top_level(out, true);
}

wa_err win_list_visible_windows(struct wa_window_list *out)
{
    return list_top_level(out, false);
}

wa_err win_window_info(uint64_t hwnd, struct wa_window *out)
{
    memset(out, 0, sizeof *out);
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    return e ? e : fill_info(h, out);
}

/* The handle of the first top-level window in Z order that pick(window, ctx) takes, in
 * *hwnd (0 when none does). */
static wa_err first_top_level(bool (*pick)(HWND h, const void *ctx), const void *ctx,
                              uint64_t *hwnd)
{
    *hwnd = 0;
    struct hwnd_vec all;
    wa_err e = top_level_windows(&all);
    if (e)
        return e;
    for (size_t i = 0; i < all.n && !*hwnd; i++)
        if (pick(all.v[i], ctx))
            *hwnd = win_handle(all.v[i]);
    free(all.v);
    return WA_E_OK;
}

/* A window actions may go to when none is named. */
static bool targetable(HWND h)
{
    return h && IsWindowVisible(h) && !win_window_cloaked(h) && !win_window_is_ours(h) &&
           !is_shell_window(h);
}

/* first_top_level's pick of a target below the foreground: one the window list shows. */
static bool listed_target(HWND h, const void *ctx)
{
    (void)ctx;
    return win_window_listable(h) && targetable(h);
}

wa_err win_target_window(uint64_t *hwnd)
{
    *hwnd = 0;
    HWND fg = GetForegroundWindow();
    if (targetable(fg)) {
        *hwnd = win_handle(fg);
        return WA_E_OK;
    }
    /* The foreground is our console (the user just typed the command there) or
     * nothing: take the next window down the Z order. */
    wa_err e = first_top_level(listed_target, NULL, hwnd);
    if (e)
        return e;
    if (!*hwnd)
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "no window to act on: nothing but winagent's "
                                              "console and the desktop is open");
    return WA_E_OK;
}

wa_err win_foreground_window(uint64_t *hwnd)
{
    HWND fg = GetForegroundWindow();
    *hwnd = fg ? win_handle(fg) : 0;
    return WA_E_OK;
}

/* A top-level window that takes clicks at the point *at (a POINT): visible, not
 * cloaked, not one that lets the mouse through (layered and transparent). */
static bool takes_point(HWND h, const void *at)
{
    const POINT p = *(const POINT *)at;
    if (!IsWindowVisible(h) || IsIconic(h) || win_window_cloaked(h))
        return false;
    LONG_PTR ex = GetWindowLongPtrW(h, GWL_EXSTYLE);
    if ((ex & WS_EX_TRANSPARENT) && (ex & WS_EX_LAYERED))
        return false;
    RECT r;
    return GetWindowRect(h, &r) && PtInRect(&r, p);
}

wa_err win_window_at(int x, int y, uint64_t *hwnd)
{
    POINT p = {x, y};
    *hwnd = 0;
    /* WindowFromPoint skips disabled windows (an owner while its modal dialog is up):
     * the top-level window is the one in Z order whose rectangle holds the point. */
    HWND h = WindowFromPoint(p);
    HWND root = h ? GetAncestor(h, GA_ROOT) : NULL;
    if (root) {
        *hwnd = win_handle(root);
        return WA_E_OK;
    }
    wa_err e = first_top_level(takes_point, &p, hwnd);
    if (e)
        return e;
    if (!*hwnd) { /* the desktop itself is under every point of the screen */
        HWND d = GetShellWindow();
        *hwnd = win_handle(d ? d : GetDesktopWindow());
    }
    return WA_E_OK;
}

/* ---- focus ---- */

bool win_window_covered(HWND h, RECT fr)
{
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    for (HWND a = GetWindow(h, GW_HWNDPREV); a; a = GetWindow(a, GW_HWNDPREV)) {
        if (!IsWindowVisible(a) || IsIconic(a) || win_window_cloaked(a))
            continue;
        DWORD apid = 0;
        GetWindowThreadProcessId(a, &apid);
        if (apid == pid)
            continue;
        RECT ar, overlap;
        if (win_window_frame(a, &ar) && IntersectRect(&overlap, &ar, &fr))
            return true;
    }
    return false;
}

/* A window in the foreground can still lie under another program's window: one shown
 * without being activated (Wine 8 shows a program that starts while another has the
 * foreground that way: a bench run found testapp in the foreground and notepad over
 * its buttons, so every click went to notepad). Focusing it brings it to the top. */
static void raise_if_covered(HWND h)
{
    RECT fr;
    if (hung(h) || !win_window_frame(h, &fr) || !win_window_covered(h, fr))
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
}

/* Windows with no focused control after activation (a bare top-level window) get the
 * keyboard focus themselves; a window that restored focus to one of its controls is
 * left alone (SetFocus on the frame would take it from the control). */
static void focus_if_none(HWND h)
{
    DWORD tid = GetWindowThreadProcessId(h, NULL);
    GUITHREADINFO gti = {.cbSize = sizeof gti};
    if (hung(h) || !GetGUIThreadInfo(tid, &gti) || gti.hwndFocus)
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
    bool attached = fg_tid && fg_tid != me && !hung(fg) && AttachThreadInput(me, fg_tid, TRUE);
    if (attempt > 0)
        alt_tap();
    SetForegroundWindow(h);
    if (!hung(h))
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
    describe(h, want, sizeof want);
    describe(GetForegroundWindow(), have, sizeof have);
    return wa_fail(WA_E_FOCUS_FAILED,
                   "%s is not in the foreground after %d attempts%s; the "
                   "foreground window is %s",
                   want, FOCUS_ATTEMPTS,
                   hung(h)       ? " (it is not responding)"
                   : IsIconic(h) ? " (it stays minimised)"
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
                       hung(h) ? " (it is not responding)" : "");
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
                       hung(h) ? " (it is not responding)" : "");
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
    return wa_fail(WA_E_ACTION_FAILED, "window 0x%llx is still %s, not %s, after %d ms%s",
                   (unsigned long long)hwnd, state_name(state_of(h)), state_name(s), STATE_WAIT_MS,
                   hung(h) ? " (it is not responding)" : "");
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
            describe(GetForegroundWindow(), fg, sizeof fg);
            return wa_fail(WA_E_OK,
                           "the window is still open after %d ms%s; the foreground "
                           "window is %s (a prompt such as \"save changes?\" may be waiting)",
                           CLOSE_WAIT_MS,
                           hung(h)               ? " (it is not responding)"
                           : !IsWindowVisible(h) ? " but hidden"
                                                 : "",
                           fg);
        }
        Sleep(20);
    }
    return wa_fail(WA_E_OK, "closed");
}

/* ---- launch ---- */

/* Splits a command line into its program (quotes removed) and the rest. */
static void split_command(const wchar_t *cmd, wchar_t **prog, const wchar_t **rest)
{
    while (*cmd == L' ' || *cmd == L'\t')
        cmd++;
    const wchar_t *start = cmd, *end;
    if (*cmd == L'"') {
        start = ++cmd;
        while (*cmd && *cmd != L'"')
            cmd++;
        end = cmd;
        if (*cmd)
            cmd++;
    } else {
        while (*cmd && *cmd != L' ' && *cmd != L'\t')
            cmd++;
        end = cmd;
    }
    while (*cmd == L' ' || *cmd == L'\t')
        cmd++;
    *rest = cmd;
    size_t n = (size_t)(end - start);
    *prog = malloc((n + 1) * sizeof **prog);
    if (*prog) {
        memcpy(*prog, start, n * sizeof **prog);
        (*prog)[n] = L'\0';
    }
}

/* CreateProcessW of a path or command line; an existing file path with spaces is
 * quoted first. Returns the process handle (NULL on failure, *err set). */
static HANDLE start_process(const wchar_t *cmd, DWORD *pid, DWORD *err)
{
    size_t n = wcslen(cmd);
    wchar_t *line = malloc((n + 3) * sizeof *line); /* CreateProcessW may write to it */
    if (!line) {
        *err = ERROR_NOT_ENOUGH_MEMORY;
        return NULL;
    }
    DWORD attr = GetFileAttributesW(cmd);
    if (attr != INVALID_FILE_ATTRIBUTES && !(attr & FILE_ATTRIBUTE_DIRECTORY) && cmd[0] != L'"' &&
        wcschr(cmd, L' '))
        swprintf(line, n + 3, L"\"%ls\"", cmd);
    else
        wcscpy(line, cmd);
    STARTUPINFOW si = {
        .cb = sizeof si, .dwFlags = STARTF_USESHOWWINDOW, .wShowWindow = SW_SHOWNORMAL};
    PROCESS_INFORMATION pi;
    /* A console program gets a console of its own, not ours. */
    BOOL ok = CreateProcessW(NULL, line, NULL, NULL, FALSE,
                             CREATE_NEW_CONSOLE | CREATE_UNICODE_ENVIRONMENT, NULL, NULL, &si, &pi);
    *err = ok ? 0 : GetLastError();
    free(line);
    if (!ok)
        return NULL;
    CloseHandle(pi.hThread);
    *pid = pi.dwProcessId;
    return pi.hProcess;
}

/* ShellExecuteExW by name: App Paths registrations ("winword"), documents, URLs. */
static HANDLE shell_execute(const wchar_t *cmd, DWORD *pid, DWORD *err, bool *started)
{
    wchar_t *prog;
    const wchar_t *rest;
    split_command(cmd, &prog, &rest);
    *started = false;
    if (!prog) {
        *err = ERROR_NOT_ENOUGH_MEMORY;
        return NULL;
    }
    /* Shell extensions may use COM; initialise it on this thread if nobody has. */
    HRESULT co = CoInitializeEx(NULL, COINIT_APARTMENTTHREADED | COINIT_DISABLE_OLE1DDE);
    SHELLEXECUTEINFOW sei = {.cbSize = sizeof sei,
                             .fMask =
                                 SEE_MASK_NOCLOSEPROCESS | SEE_MASK_FLAG_NO_UI | SEE_MASK_NOASYNC,
                             .lpFile = prog,
                             .lpParameters = *rest ? rest : NULL,
                             .nShow = SW_SHOWNORMAL};
    BOOL ok = ShellExecuteExW(&sei);
    *err = ok ? 0 : GetLastError();
    if (SUCCEEDED(co))
        CoUninitialize();
    free(prog);
    if (!ok)
        return NULL;
    *started = true;
    *pid = sei.hProcess ? GetProcessId(sei.hProcess) : 0;
    return sei.hProcess; /* NULL when the shell handed over to a running program */
}

/* A window a launch may have produced. */
static bool launch_candidate(HWND h)
{
    if (!IsWindowVisible(h) || win_window_cloaked(h) || win_window_is_ours(h) || is_shell_window(h))
        return false;
    LONG_PTR ex = GetWindowLongPtrW(h, GWL_EXSTYLE);
    if ((ex & WS_EX_TOOLWINDOW) && !(ex & WS_EX_APPWINDOW))
        return false;
    RECT r;
    return win_window_frame(h, &r) && r.right > r.left && r.bottom > r.top;
}

/* One look for the launched program's window: one of its process first; else, once
 * the process is gone or had a second to show one (launchers that hand over to
 * another process, console programs whose window belongs to conhost), a titled window
 * that was not there before the launch. */
static HWND find_launched(DWORD pid, HANDLE proc, const struct hwnd_vec *before, int64_t elapsed_ms)
{
    struct hwnd_vec now;
    if (top_level_windows(&now))
        return NULL;
    HWND own = NULL, fresh = NULL;
    for (size_t i = 0; i < now.n && !own; i++) {
        HWND h = now.v[i];
        if (!launch_candidate(h))
            continue;
        DWORD wpid = 0;
        GetWindowThreadProcessId(h, &wpid);
        if (pid && wpid == pid)
            own = h;
        else if (!fresh && !vec_has(before, h) && win_window_listable(h))
            fresh = h;
    }
    free(now.v);
    if (own)
        return own;
    bool gone = !proc || WaitForSingleObject(proc, 0) == WAIT_OBJECT_0;
    return gone || elapsed_ms >= 1000 ? fresh : NULL;
}

wa_err win_launch(const char *command, int timeout_ms, uint64_t *hwnd)
{
    *hwnd = 0;
    if (!command || !*command)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a command");
    wchar_t *cmd = win_utf8_to_wide(command);
    if (!cmd)
        return wa_fail(WA_E_NOMEM, "out of memory");
    struct hwnd_vec before;
    wa_err e = top_level_windows(&before);
    if (e) {
        free(cmd);
        return e;
    }
    /* Let whatever we start take the foreground even though we may not hold it. */
    AllowSetForegroundWindow(ASFW_ANY);
    int64_t t0 = os_now_ms();
    DWORD pid = 0, cp_err = 0, se_err = 0;
    bool started = false;
    HANDLE proc = start_process(cmd, &pid, &cp_err);
    if (proc)
        started = true;
    else
        proc = shell_execute(cmd, &pid, &se_err, &started);
    free(cmd);
    if (!started) {
        char m1[300], m2[300];
        e = wa_fail(WA_E_ACTION_FAILED, "cannot start '%s': CreateProcess %s; ShellExecuteEx %s",
                    command, win_error_text(cp_err, m1, sizeof m1),
                    win_error_text(se_err, m2, sizeof m2));
        goto out;
    }
    for (;;) {
        int64_t elapsed = os_now_ms() - t0;
        HWND h = find_launched(pid, proc, &before, elapsed);
        if (h) {
            *hwnd = win_handle(h);
            break;
        }
        if (elapsed >= timeout_ms)
            break;
        if (os_sleep_ms(50) == WA_E_INTERRUPTED) {
            e = wa_fail(WA_E_INTERRUPTED, "interrupted while waiting for '%s'", command);
            break;
        }
    }
out:
    if (proc)
        CloseHandle(proc);
    free(before.v);
    return e;
}

/* ---- what a launch would run ---- */

static char *wide_to_heap_utf8(const wchar_t *w)
{
    return w ? win_wide_to_utf8(w) : NULL;
}

/* A registered application name ("winword"): App Paths in HKCU, then HKLM. */
static bool app_path(const wchar_t *name, wchar_t *out, DWORD cap)
{
    wchar_t key[600];
    const wchar_t *dot = wcsrchr(name, L'.');
    swprintf(key, sizeof key / sizeof key[0],
             L"Software\\Microsoft\\Windows\\CurrentVersion\\App Paths\\%ls%ls", name,
             dot && _wcsicmp(dot, L".exe") == 0 ? L"" : L".exe");
    HKEY roots[2] = {HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE};
    for (int i = 0; i < 2; i++) {
        DWORD n = cap * sizeof *out;
        if (RegGetValueW(roots[i], key, NULL, RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ, NULL, out,
                         &n) == ERROR_SUCCESS)
            return true;
    }
    return false;
}

/* The program that opens a file (by its extension) or a protocol ("http"). */
static bool associated_program(const wchar_t *what, bool protocol, wchar_t *out, DWORD cap)
{
    DWORD n = cap;
    HRESULT hr = AssocQueryStringW(protocol ? ASSOCF_IS_PROTOCOL | ASSOCF_NOTRUNCATE
                                            : ASSOCF_INIT_IGNOREUNKNOWN | ASSOCF_NOTRUNCATE,
                                   ASSOCSTR_EXECUTABLE, what, NULL, out, &n);
    return SUCCEEDED(hr) && out[0];
}

static bool is_executable(const wchar_t *path)
{
    const wchar_t *dot = wcsrchr(path, L'.');
    return dot && (_wcsicmp(dot, L".exe") == 0 || _wcsicmp(dot, L".com") == 0);
}

wa_err win_resolve_program(const char *name, char **path, char **runs)
{
    *path = *runs = NULL;
    wchar_t *raw = win_utf8_to_wide(name);
    if (!raw)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wchar_t w[2048], found[2048], prog[2048];
    if (!ExpandEnvironmentStringsW(raw, w, sizeof w / sizeof w[0]))
        wcsncpy(w, raw, sizeof w / sizeof w[0] - 1), w[sizeof w / sizeof w[0] - 1] = 0;
    free(raw);
    wa_err e = WA_E_OK;
    DWORD attr = GetFileAttributesW(w);
    bool have = false;
    if (attr != INVALID_FILE_ATTRIBUTES) {
        have = GetFullPathNameW(w, sizeof found / sizeof found[0], found, NULL) > 0;
    } else if (!wcschr(w, L'\\') && !wcschr(w, L'/')) {
        have = SearchPathW(NULL, w, L".exe", sizeof found / sizeof found[0], found, NULL) > 0 ||
               app_path(w, found, sizeof found / sizeof found[0]);
    }
    const wchar_t *colon = wcschr(w, L':');
    bool protocol = !have && colon && colon - w >= 2;
    if (have) {
        *path = wide_to_heap_utf8(found);
        if ((attr = GetFileAttributesW(found)) != INVALID_FILE_ATTRIBUTES &&
            (attr & FILE_ATTRIBUTE_DIRECTORY))
            *runs = str_dup("explorer.exe"); /* a folder opens in a file window */
        else if (is_executable(found))
            *runs = wide_to_heap_utf8(found);
        else {
            const wchar_t *ext = wcsrchr(found, L'.');
            *runs = wide_to_heap_utf8(
                ext && associated_program(ext, false, prog, sizeof prog / sizeof prog[0]) ? prog
                                                                                          : found);
        }
    } else if (protocol) {
        wchar_t scheme[64];
        size_t n = (size_t)(colon - w) < 63 ? (size_t)(colon - w) : 63;
        wcsncpy(scheme, w, n);
        scheme[n] = 0;
        if (associated_program(scheme, true, prog, sizeof prog / sizeof prog[0]))
            *runs = wide_to_heap_utf8(prog);
        else
            e = wa_fail(WA_E_ELEMENT_NOT_FOUND, "nothing handles '%s' links here", name);
    } else {
        e = wa_fail(WA_E_ELEMENT_NOT_FOUND,
                    "no program or file named '%s' (not a path, not on the PATH, not a "
                    "registered application)",
                    name);
    }
    if (!e && ((have && !*path) || !*runs)) {
        free(*path);
        free(*runs);
        *path = *runs = NULL;
        e = wa_fail(WA_E_NOMEM, "out of memory");
    }
    return e;
}

/* ---- monitors ---- */

typedef HRESULT(WINAPI *get_dpi_for_monitor_fn)(HMONITOR, int, UINT *, UINT *);

/* GetDpiForMonitor lives in shcore.dll (Windows 8.1+): looked up at run time so the
 * exe still starts on older systems; NULL when absent. */
static get_dpi_for_monitor_fn dpi_for_monitor(void)
{
    static get_dpi_for_monitor_fn fn;
    static bool looked;
    if (!looked) {
        HMODULE shcore = LoadLibraryW(L"shcore.dll");
        if (shcore)
            fn = (get_dpi_for_monitor_fn)(void *)GetProcAddress(shcore, "GetDpiForMonitor");
        looked = true;
    }
    return fn;
}

struct monitor_vec {
    HMONITOR v[32];
    size_t n;
};

static BOOL CALLBACK collect_monitor(HMONITOR m, HDC dc, LPRECT r, LPARAM lp)
{
    (void)dc;
    (void)r;
    struct monitor_vec *vec = (struct monitor_vec *)lp;
    if (vec->n < sizeof vec->v / sizeof vec->v[0])
        vec->v[vec->n++] = m;
    return TRUE;
}

wa_err win_monitors(struct wa_monitor *out, size_t max, size_t *count)
{
    *count = 0;
    struct monitor_vec vec = {.n = 0};
    if (!EnumDisplayMonitors(NULL, NULL, collect_monitor, (LPARAM)&vec) || vec.n == 0)
        return wa_fail(WA_E_ACTION_FAILED, "no display monitors found");
    get_dpi_for_monitor_fn get_dpi = dpi_for_monitor();
    /* The primary monitor first, so index 0 is always it; the rest in system order. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < vec.n && *count < max; i++) {
            MONITORINFO mi = {.cbSize = sizeof mi};
            if (!GetMonitorInfoW(vec.v[i], &mi))
                continue;
            bool primary = (mi.dwFlags & MONITORINFOF_PRIMARY) != 0;
            if (primary != (pass == 0))
                continue;
            UINT dx = 96, dy = 96;
            if (!get_dpi || FAILED(get_dpi(vec.v[i], 0 /* MDT_EFFECTIVE_DPI */, &dx, &dy)))
                dx = 96;
            out[*count] = (struct wa_monitor){.rect = to_wa_rect(mi.rcMonitor),
                                              .work = to_wa_rect(mi.rcWork),
                                              .primary = primary,
                                              .dpi = (int)dx};
            (*count)++;
        }
    }
    return WA_E_OK;
}
