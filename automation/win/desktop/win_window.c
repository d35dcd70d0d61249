/* Top-level windows on Windows: listing, the target window, the checks and descriptions
 * every window operation shares, and monitors. Changing windows is win_window_ctl.c,
 * starting programs win_launch.c. */
#include "automation/win/desktop/win_window.h"

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

/* ---- small helpers ---- */

bool win_under_wine(void)
{
    static int wine = -1;
    if (wine < 0) {
        HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
        wine = ntdll && GetProcAddress(ntdll, "wine_get_version") ? 1 : 0;
    }
    return wine == 1;
}

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

/* The window class name as UTF-8 heap string ("" when unreadable). */
static char *win_window_class(HWND h)
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

/* The file name of a process's path (a heap copy). */
static char *name_of_path(const char *path)
{
    return path ? str_dup(str_path_base(path)) : NULL;
}

char *win_process_name(DWORD pid)
{
    char *path = win_process_path(pid);
    char *name = name_of_path(path);
    free(path);
    return name;
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

bool win_window_is_shell(HWND h)
{
    if (h == GetShellWindow() || h == GetDesktopWindow())
        return true;
    wchar_t cls[64];
    if (!GetClassNameW(h, cls, sizeof cls / sizeof cls[0]))
        return false;
    return wcscmp(cls, L"Shell_TrayWnd") == 0 || wcscmp(cls, L"Shell_SecondaryTrayWnd") == 0 ||
           wcscmp(cls, L"Progman") == 0 || wcscmp(cls, L"WorkerW") == 0;
}

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

wa_err win_window_top_level(struct hwnd_vec *out)
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

bool win_window_vec_has(const struct hwnd_vec *vec, HWND h)
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

bool win_window_hung(HWND h)
{
    return IsHungAppWindow(h) != 0;
}

void win_window_describe(HWND h, char *buf, size_t size)
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
    w->process_path = win_process_path(pid); /* opening the process once, not twice */
    w->process = name_of_path(w->process_path);
    bool unknown;
    DWORD app = hosted_process(h, pid, w->process, &unknown);
    if (app || unknown) { /* the gate and the lists know a Store app by its own process */
        free(w->process);
        free(w->process_path);
        w->process_path = app ? win_process_path(app) : str_dup("");
        w->process = name_of_path(w->process_path);
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
    wa_err e = win_window_top_level(&all);
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
    wa_err e = win_window_top_level(&all);
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
           !win_window_is_shell(h);
}

/* first_top_level's pick of a target below the foreground: one the window list shows. */
static bool listed_target(HWND h, const void *ctx)
{
    (void)ctx;
    return win_window_listable(h) && targetable(h);
}

wa_err win_default_window(uint64_t *hwnd)
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
