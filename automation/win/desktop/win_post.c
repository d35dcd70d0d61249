/* Background input on Windows: button and wheel messages posted to the child window
 * under a point, and WM_CHAR to a control's own window. Nothing
 * here moves the cursor, activates a window or calls SendInput: the user's mouse,
 * foreground window and focus stay as they are. */
#include <windows.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/desktop/win_post.h"
#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_window.h"

#define POST_TEXT_MAX 65536 /* UTF-16 units of one call */

/* The deepest visible child of top under screen point pt (top itself when none);
 * RealChildWindowFromPoint looks through group boxes, as a click does. */
static HWND deepest_child(HWND top, POINT pt)
{
    HWND cur = top;
    for (int depth = 0; depth < 32; depth++) {
        POINT cp = pt;
        ScreenToClient(cur, &cp);
        HWND c = RealChildWindowFromPoint(cur, cp);
        if (!c || c == cur || !IsWindowVisible(c))
            break;
        cur = c;
    }
    return cur;
}

static void button_messages(enum wa_button b, UINT *down, UINT *up, UINT *dbl, WPARAM *mk)
{
    switch (b) {
    case WA_BUTTON_RIGHT:
        *down = WM_RBUTTONDOWN, *up = WM_RBUTTONUP, *dbl = WM_RBUTTONDBLCLK, *mk = MK_RBUTTON;
        break;
    case WA_BUTTON_MIDDLE:
        *down = WM_MBUTTONDOWN, *up = WM_MBUTTONUP, *dbl = WM_MBUTTONDBLCLK, *mk = MK_MBUTTON;
        break;
    default:
        *down = WM_LBUTTONDOWN, *up = WM_LBUTTONUP, *dbl = WM_LBUTTONDBLCLK, *mk = MK_LBUTTON;
        break;
    }
}

/* The child of top-level window top that a message at screen point (x, y) is for:
 * the deepest one under it, inside top's client area. */
static wa_err child_at(uint64_t top, int x, int y, const char *what, HWND *out)
{
    HWND h;
    wa_err e = win_window_check(top, &h);
    if (e)
        return e;
    RECT wr, cr;
    POINT pt = {x, y};
    if (!GetWindowRect(h, &wr) || !PtInRect(&wr, pt))
        return wa_fail(WA_E_ACTION_FAILED, "(%d,%d) is outside the window", x, y);
    POINT cp = pt;
    ScreenToClient(h, &cp);
    if (!GetClientRect(h, &cr) || !PtInRect(&cr, cp))
        return wa_fail(WA_E_ACTION_FAILED,
                       "(%d,%d) is on the window's frame (title bar, border): no message "
                       "there acts as %s",
                       x, y, what);
    *out = deepest_child(h, pt);
    return WA_E_OK;
}

static wa_err post_failed(void)
{
    char why[96];
    return wa_fail(WA_E_ACTION_FAILED, "PostMessage failed: %s",
                   win_error_text(GetLastError(), why, sizeof why));
}

wa_err win_post_click(uint64_t top, int x, int y, enum wa_button b, int count, uint64_t *child)
{
    *child = 0;
    HWND c;
    wa_err e = child_at(top, x, y, "a click", &c);
    if (e)
        return e;
    POINT p = {x, y};
    ScreenToClient(c, &p);
    LPARAM at = MAKELPARAM((WORD)(short)p.x, (WORD)(short)p.y);
    UINT down, up, dbl;
    WPARAM mk;
    button_messages(b, &down, &up, &dbl, &mk);
    bool dblclks = (GetClassLongPtrW(c, GCL_STYLE) & CS_DBLCLKS) != 0;
    bool ok = PostMessageW(c, WM_MOUSEMOVE, 0, at);
    for (int i = 0; ok && i < count; i++) {
        ok = PostMessageW(c, i > 0 && dblclks ? dbl : down, mk, at) && PostMessageW(c, up, 0, at);
    }
    if (!ok)
        return post_failed();
    *child = win_handle(c);
    return WA_E_OK;
}

wa_err win_post_wheel(uint64_t top, int x, int y, int notches, bool horizontal, uint64_t *child)
{
    *child = 0;
    HWND c;
    wa_err e = child_at(top, x, y, "the wheel", &c);
    if (e)
        return e;
    /* Wheel messages carry the point in screen coordinates; a notch at a time, as a
     * wheel sends them (some controls act on the sign alone). */
    LPARAM at = MAKELPARAM((WORD)(short)x, (WORD)(short)y);
    short delta = (short)(notches > 0 ? WHEEL_DELTA : -WHEEL_DELTA);
    UINT msg = horizontal ? WM_MOUSEHWHEEL : WM_MOUSEWHEEL;
    for (int i = 0; i < abs(notches); i++)
        if (!PostMessageW(c, msg, MAKEWPARAM(0, (WORD)delta), at))
            return post_failed();
    *child = win_handle(c);
    return WA_E_OK;
}

/* One child of top that takes typed text: a visible, enabled, writable edit. */
struct edit_search {
    HWND found;
    int count;
};

static BOOL CALLBACK count_edits(HWND h, LPARAM lp)
{
    struct edit_search *s = (struct edit_search *)lp;
    wchar_t cls[64];
    int n = GetClassNameW(h, cls, 64);
    bool edit = n > 0 && (_wcsicmp(cls, L"Edit") == 0 || _wcsnicmp(cls, L"RichEdit", 8) == 0 ||
                          _wcsicmp(cls, L"Scintilla") == 0);
    if (edit && IsWindowVisible(h) && IsWindowEnabled(h) &&
        !(GetWindowLongW(h, GWL_STYLE) & ES_READONLY)) {
        s->found = h;
        s->count++;
    }
    return TRUE;
}

HWND win_typing_target(HWND top)
{
    GUITHREADINFO gi = {.cbSize = sizeof gi};
    if (GetGUIThreadInfo(GetWindowThreadProcessId(top, NULL), &gi) && gi.hwndFocus &&
        (gi.hwndFocus == top || IsChild(top, gi.hwndFocus)))
        return gi.hwndFocus;
    /* A thread that is not in front keeps no focus on Windows: where the window has
     * one place to type, that is where typing would go once it is in front. */
    struct edit_search s = {0};
    EnumChildWindows(top, count_edits, (LPARAM)&s);
    return s.count == 1 ? s.found : NULL;
}

wa_err win_post_text(uint64_t hwnd, const char *utf8, uint64_t *control)
{
    *control = 0;
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    if (!GetParent(h) || GetAncestor(h, GA_ROOT) == h) {
        HWND f = win_typing_target(h);
        if (!f)
            return wa_fail(WA_E_ELEMENT_NOT_FOUND,
                           "no control of the window has the keyboard focus, and it has more "
                           "than one edit (or none) to type into");
        h = f;
    }
    wchar_t *w = win_utf8_to_wide(utf8);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    size_t n = wcslen(w);
    if (n > POST_TEXT_MAX) {
        free(w);
        return wa_fail(WA_E_INVALID_ARGS, "%zu characters; at most %d in one call", n,
                       POST_TEXT_MAX);
    }
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        wchar_t ch = w[i];
        if (ch == L'\r' && w[i + 1] == L'\n')
            continue; /* "\r\n" is one Enter */
        if (ch == L'\n')
            ch = L'\r'; /* what the Enter key makes */
        ok = PostMessageW(h, WM_CHAR, (WPARAM)ch, 1);
    }
    free(w);
    if (!ok) {
        char why[96];
        return wa_fail(WA_E_ACTION_FAILED, "PostMessage(WM_CHAR) failed: %s",
                       win_error_text(GetLastError(), why, sizeof why));
    }
    *control = win_handle(h);
    return WA_E_OK;
}
