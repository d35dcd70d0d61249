/* Mouse and keyboard input for the Windows backend, through SendInput. */
#include <windows.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/desktop/win_input.h"
#include "automation/win/desktop/win_idle.h"
#include "automation/win/desktop/win_person.h"
#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_window.h"
#include "base/os.h"

/* Unicode typing goes out in batches of this many UTF-16 code units with a pause
 * between, so applications that do work per character (autocomplete, syntax
 * colouring) keep up instead of dropping keys. */
#define TYPE_BATCH_UNITS 16
#define TYPE_PAUSE_MS    8
/* Time a chord's keys stay down: applications reading GetAsyncKeyState while they
 * handle the key must still see the modifiers down. */
#define CHORD_HOLD_MS 10

/* SendInput, with the time of winagent's own input noted: what the person does is told
 * apart from it (win_person.h). */
static UINT inject(UINT n, INPUT *in, int size)
{
    UINT sent = SendInput(n, in, size);
    win_person_injected();
    return sent;
}

static wa_err input_blocked(UINT sent, UINT wanted)
{
    char msg[300];
    return wa_fail(WA_E_ACTION_FAILED,
                   "SendInput inserted %u of %u input events (%s): input "
                   "is blocked (a locked screen, a secure desktop such as a UAC prompt, or a "
                   "program calling BlockInput)",
                   sent, wanted, win_error_text(GetLastError(), msg, sizeof msg));
}

/* ---- mouse ---- */

static RECT virtual_screen(void)
{
    int x = GetSystemMetrics(SM_XVIRTUALSCREEN), y = GetSystemMetrics(SM_YVIRTUALSCREEN);
    return (RECT){x, y, x + GetSystemMetrics(SM_CXVIRTUALSCREEN),
                  y + GetSystemMetrics(SM_CYVIRTUALSCREEN)};
}

static LONG absolute_coord(long offset, long size)
{
    long long n = ((long long)offset * 65536 + size - 1) / size;
    return (LONG)(n > 65535 ? 65535 : n);
}

static bool pointer_at(int x, int y, int wait_ms)
{
    int64_t deadline = os_now_ms() + wait_ms;
    for (;;) {
        POINT p;
        if (GetCursorPos(&p) && p.x == x && p.y == y)
            return true;
        if (os_now_ms() >= deadline)
            return false;
        Sleep(2);
    }
}

/* SetCursorPos, then a real mouse move (WM_MOUSEMOVE, and raw input for applications
 * that track motion that way) in 0-65535 over the virtual desktop. The system maps n
 * back to floor(n * width / 65536), so ceil(x * 65536 / width) lands exactly on x
 * (measured under Wine: rounding x * 65535 / (width - 1) misses by a pixel on ~5 %
 * of the columns). */
static bool move_cursor(RECT vs, int x, int y)
{
    POINT from;
    if (GetCursorPos(&from))
        win_person_pointer_moved(from.x, from.y, x, y);
    SetCursorPos(x, y);
    INPUT in = {.type = INPUT_MOUSE};
    in.mi.dx = absolute_coord(x - vs.left, vs.right - vs.left);
    in.mi.dy = absolute_coord(y - vs.top, vs.bottom - vs.top);
    in.mi.dwFlags = MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK;
    return inject(1, &in, sizeof in) == 1;
}

/* Wine (8, X11) sets Ctrl, Shift, Alt and Win to the X server's state when it moves the
 * X pointer, so a modifier SendInput holds (a ctrl+click, a shift+drag) is let go by
 * every move: measured under Wine, GetAsyncKeyState(VK_CONTROL) reads 0 right after a
 * move and a list box takes the click as a plain one. The modifiers down before a move
 * go down again after it. */
static const WORD modifier_keys[] = {VK_CONTROL, VK_SHIFT, VK_MENU, VK_LWIN, VK_RWIN};

static void key_event(INPUT *in, WORD vk, bool up);

static unsigned modifiers_down(void)
{
    unsigned down = 0;
    for (unsigned i = 0; i < sizeof modifier_keys / sizeof *modifier_keys; i++)
        if (GetAsyncKeyState(modifier_keys[i]) & 0x8000)
            down |= 1u << i;
    return down;
}

/* The program under the pointer takes the X event that lets the modifiers go when it
 * next reads its queue, which may be after a first look here (measured: a ctrl+click
 * pressed Ctrl again, then lost it once more before the button went down). So the
 * modifiers are looked at until they have held for MODIFIERS_STEADY_MS, pressed again
 * each time they were let go, for at most MODIFIERS_SETTLE_MS. */
#define MODIFIERS_STEADY_MS 40
#define MODIFIERS_SETTLE_MS 250
#define MODIFIERS_LOOK_MS   10

static void keep_modifiers_down(unsigned before)
{
    int64_t t0 = os_now_ms(), steady = t0;
    for (;;) {
        unsigned lost = before & ~modifiers_down();
        int64_t now = os_now_ms();
        if (lost)
            steady = now;
        for (unsigned i = 0; i < sizeof modifier_keys / sizeof *modifier_keys; i++)
            if (lost & (1u << i)) {
                INPUT in;
                key_event(&in, modifier_keys[i], false);
                inject(1, &in, sizeof in);
            }
        if (now - steady >= MODIFIERS_STEADY_MS || now - t0 >= MODIFIERS_SETTLE_MS)
            return;
        Sleep(MODIFIERS_LOOK_MS);
    }
}

static wa_err move_pointer(int x, int y);

wa_err win_mouse_move(int x, int y)
{
    unsigned held = win_under_wine() ? modifiers_down() : 0;
    wa_err e = move_pointer(x, y);
    if (held)
        keep_modifiers_down(held);
    return e;
}

/* Where this process last moved the pointer: the press and release that follow carry it
 * (win_mouse_button). */
static struct {
    bool have;
    int x, y;
} g_aim;

static wa_err move_pointer(int x, int y)
{
    RECT vs = virtual_screen();
    if (x < vs.left || x >= vs.right || y < vs.top || y >= vs.bottom)
        return wa_fail(WA_E_INVALID_ARGS, "point (%d,%d) is off the screen [%ld,%ld][%ld,%ld]", x,
                       y, vs.left, vs.top, vs.right, vs.bottom);
    g_aim.have = true;
    g_aim.x = x;
    g_aim.y = y;
    /* Already there (a second click at one place, a double click): no move, and no wait
     * for X below. */
    POINT at;
    if (GetCursorPos(&at) && at.x == x && at.y == y)
        return WA_E_OK;
    if (!move_cursor(vs, x, y))
        return input_blocked(0, 1);
    /* Wine (8, X11) moves the X pointer a little after its own pointer, and an X event
     * in between puts Wine's pointer back where it was (2-15 ms later, measured), so
     * the next click lands at the old spot, visibly so from the next process. A
     * second move once X has caught up sticks (30 of 30 trials; 0 ms apart is not
     * enough). */
    if (win_under_wine()) {
        Sleep(15);
        move_cursor(vs, x, y);
    }
    if (pointer_at(x, y, 50))
        return WA_E_OK;
    SetCursorPos(x, y);
    if (pointer_at(x, y, 50))
        return WA_E_OK;
    POINT p = {0, 0};
    GetCursorPos(&p);
    return wa_fail(WA_E_ACTION_FAILED,
                   "the pointer stopped at (%ld,%ld), not (%d,%d) (a program "
                   "may confine it with ClipCursor)",
                   p.x, p.y, x, y);
}

wa_err win_mouse_button(enum wa_button b, bool down)
{
    /* SendInput's buttons are physical: with swapped buttons, the physical right button
     * is the logical left one. */
    if (GetSystemMetrics(SM_SWAPBUTTON) && b != WA_BUTTON_MIDDLE)
        b = b == WA_BUTTON_LEFT ? WA_BUTTON_RIGHT : WA_BUTTON_LEFT;
    static const DWORD flags[3][2] = {
        [WA_BUTTON_LEFT] = {MOUSEEVENTF_LEFTUP, MOUSEEVENTF_LEFTDOWN},
        [WA_BUTTON_RIGHT] = {MOUSEEVENTF_RIGHTUP, MOUSEEVENTF_RIGHTDOWN},
        [WA_BUTTON_MIDDLE] = {MOUSEEVENTF_MIDDLEUP, MOUSEEVENTF_MIDDLEDOWN},
    };
    if ((unsigned)b > WA_BUTTON_MIDDLE)
        return wa_fail(WA_E_INVALID_ARGS, "unknown mouse button %d", (int)b);
    INPUT in = {.type = INPUT_MOUSE};
    in.mi.dwFlags = flags[b][down];
    /* The button at the point aimed at, in the same event: under Wine (8, X11) the X
     * server's pointer can lag Wine's and, once it reports, put the pointer back where it
     * was between the move and the press (seen on a loaded machine: a click on one check
     * box of a tree landed on the box clicked before). */
    if (g_aim.have) {
        RECT vs = virtual_screen();
        in.mi.dx = absolute_coord(g_aim.x - vs.left, vs.right - vs.left);
        in.mi.dy = absolute_coord(g_aim.y - vs.top, vs.bottom - vs.top);
        in.mi.dwFlags |= MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK;
    }
    return inject(1, &in, sizeof in) == 1 ? WA_E_OK : input_blocked(0, 1);
}

wa_err win_mouse_wheel(int delta, bool horizontal)
{
    /* One event per notch: many applications treat each wheel message as one notch
     * whatever its delta. */
    INPUT batch[64];
    int sign = delta < 0 ? -1 : 1;
    long left = labs((long)delta);
    while (left > 0) {
        UINT n = 0;
        while (left > 0 && n < sizeof batch / sizeof batch[0]) {
            long step = left > WHEEL_DELTA ? WHEEL_DELTA : left;
            memset(&batch[n], 0, sizeof batch[n]);
            batch[n].type = INPUT_MOUSE;
            batch[n].mi.dwFlags = horizontal ? MOUSEEVENTF_HWHEEL : MOUSEEVENTF_WHEEL;
            batch[n].mi.mouseData = (DWORD)(sign * step);
            left -= step;
            n++;
        }
        UINT sent = inject(n, batch, sizeof batch[0]);
        if (sent != n)
            return input_blocked(sent, n);
    }
    return WA_E_OK;
}

/* ---- keyboard ---- */

/* Keys whose scan code carries the E0 prefix: without KEYEVENTF_EXTENDEDKEY, an arrow
 * arrives as the numeric keypad's arrow, right Ctrl as left Ctrl, and so on. */
static bool is_extended(WORD vk)
{
    switch (vk) {
    case VK_CANCEL:
    case VK_PRIOR:
    case VK_NEXT:
    case VK_END:
    case VK_HOME:
    case VK_LEFT:
    case VK_UP:
    case VK_RIGHT:
    case VK_DOWN:
    case VK_SNAPSHOT:
    case VK_INSERT:
    case VK_DELETE:
    case VK_LWIN:
    case VK_RWIN:
    case VK_APPS:
    case VK_DIVIDE:
    case VK_NUMLOCK:
    case VK_RCONTROL:
    case VK_RMENU:
        return true;
    default:
        /* Browser and media keys (0xA6-0xB7). */
        if (vk >= VK_BROWSER_BACK && vk <= VK_LAUNCH_APP2)
            return true;
        return (MapVirtualKeyW(vk, MAPVK_VK_TO_VSC_EX) & 0xFF00) == 0xE000;
    }
}

static void key_event(INPUT *in, WORD vk, bool up)
{
    memset(in, 0, sizeof *in);
    in->type = INPUT_KEYBOARD;
    in->ki.wVk = vk;
    in->ki.wScan = (WORD)(MapVirtualKeyW(vk, MAPVK_VK_TO_VSC) & 0xFF);
    in->ki.dwFlags = (is_extended(vk) ? KEYEVENTF_EXTENDEDKEY : 0) | (up ? KEYEVENTF_KEYUP : 0);
}

/* Releases keys that went down but whose release was not inserted, last first,
 * trying a few times: a stuck Ctrl or Alt would corrupt everything typed later. */
static void release_keys(const WORD *vks, int n)
{
    for (int tries = 0; tries < 3 && n > 0; tries++) {
        INPUT ups[WA_MAX_COMBO_KEYS];
        for (int i = 0; i < n; i++)
            key_event(&ups[i], vks[n - 1 - i], true);
        UINT sent = inject((UINT)n, ups, sizeof ups[0]);
        n -= (int)sent;
        if (n > 0)
            Sleep(20);
    }
}

/* Wine (8, X11) sets Ctrl, Alt and Shift to the X server's state when a thread's
 * window is activated (KeymapNotify after FocusIn, handled when that thread next takes
 * its messages; see X11DRV_KeymapNotify). A modifier SendInput has pressed is let go
 * then, and ctrl+a types "a": seen once on a Save As dialog that had just come up, whose
 * file name then read "*.txta..." after set_value's select all and type. Before a chord
 * with modifiers, the foreground window's thread takes what it has pending. */
#define FOCUS_CATCH_UP_MS 250

static bool holds_modifier(const struct wa_key_combo *k)
{
    for (int i = 0; i < k->count; i++)
        switch (k->vk[i]) {
        case VK_CONTROL:
        case VK_LCONTROL:
        case VK_RCONTROL:
        case VK_MENU:
        case VK_LMENU:
        case VK_RMENU:
        case VK_SHIFT:
        case VK_LSHIFT:
        case VK_RSHIFT:
            return true;
        default:
            break;
        }
    return false;
}

static void let_activation_catch_up(void)
{
    HWND fg = GetForegroundWindow();
    if (!fg || !win_under_wine())
        return;
    win_input_handled((uint64_t)(uintptr_t)fg, FOCUS_CATCH_UP_MS);
    wa_err_clear(); /* a slow or hung window: the chord goes anyway, as before */
}

wa_err win_press_keys(const struct wa_key_combo *k)
{
    if (!k || k->count <= 0 || k->count > WA_MAX_COMBO_KEYS)
        return wa_fail(WA_E_INVALID_ARGS, "a key combination needs 1 to %d keys",
                       WA_MAX_COMBO_KEYS);
    int n = k->count;
    if (n > 1 && holds_modifier(k))
        let_activation_catch_up();
    WORD vks[WA_MAX_COMBO_KEYS];
    INPUT downs[WA_MAX_COMBO_KEYS], ups[WA_MAX_COMBO_KEYS];
    for (int i = 0; i < n; i++)
        vks[i] = k->vk[i];
    for (int i = 0; i < n; i++) {
        key_event(&downs[i], vks[i], false);
        key_event(&ups[i], vks[n - 1 - i], true);
    }
    UINT down_sent = inject((UINT)n, downs, sizeof downs[0]);
    if (down_sent != (UINT)n) {
        release_keys(vks, (int)down_sent);
        return input_blocked(down_sent, (UINT)n);
    }
    Sleep(CHORD_HOLD_MS);
    UINT up_sent = inject((UINT)n, ups, sizeof ups[0]);
    if (up_sent != (UINT)n) {
        /* ups[0..up_sent) released the last keys; the first n - up_sent are still down. */
        release_keys(vks, n - (int)up_sent);
        return input_blocked(up_sent, (UINT)n);
    }
    return WA_E_OK;
}

wa_err win_hold_keys(const struct wa_key_combo *k, bool down)
{
    if (!k || k->count <= 0 || k->count > WA_MAX_COMBO_KEYS)
        return wa_fail(WA_E_INVALID_ARGS, "a key combination needs 1 to %d keys",
                       WA_MAX_COMBO_KEYS);
    int n = k->count;
    WORD vks[WA_MAX_COMBO_KEYS];
    INPUT in[WA_MAX_COMBO_KEYS];
    for (int i = 0; i < n; i++)
        vks[i] = k->vk[i];
    if (!down) {
        release_keys(vks, n);
        return WA_E_OK; /* retried there; what cannot be released is not ours to report */
    }
    if (n > 1 || holds_modifier(k))
        let_activation_catch_up();
    for (int i = 0; i < n; i++)
        key_event(&in[i], vks[i], false);
    UINT sent = inject((UINT)n, in, sizeof in[0]);
    if (sent != (UINT)n) {
        release_keys(vks, (int)sent); /* all or nothing */
        return input_blocked(sent, (UINT)n);
    }
    return WA_E_OK;
}

wa_err win_cursor_position(int *x, int *y)
{
    POINT p;
    if (!GetCursorPos(&p)) {
        char msg[300];
        return wa_fail(WA_E_ACTION_FAILED, "GetCursorPos failed (%s)",
                       win_error_text(GetLastError(), msg, sizeof msg));
    }
    *x = (int)p.x;
    *y = (int)p.y;
    return WA_E_OK;
}

/* Appends the press and release of one UTF-16 unit, or of Enter / Tab. */
static UINT add_unit(INPUT *in, wchar_t u)
{
    if (u == L'\n' || u == L'\r' || u == L'\t') {
        WORD vk = u == L'\t' ? VK_TAB : VK_RETURN;
        key_event(&in[0], vk, false);
        key_event(&in[1], vk, true);
        return 2;
    }
    for (int i = 0; i < 2; i++) {
        memset(&in[i], 0, sizeof in[i]);
        in[i].type = INPUT_KEYBOARD;
        in[i].ki.wScan = u;
        in[i].ki.dwFlags = KEYEVENTF_UNICODE | (i ? KEYEVENTF_KEYUP : 0);
    }
    return 2;
}

wa_err win_type_text(const char *utf8)
{
    if (!utf8)
        return wa_fail(WA_E_INVALID_ARGS, "no text to type");
    wchar_t *w = win_utf8_to_wide(utf8);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = WA_E_OK;
    INPUT batch[2 * (TYPE_BATCH_UNITS + 1)];
    size_t i = 0, len = wcslen(w), typed = 0;
    while (i < len) {
        UINT n = 0;
        size_t units = 0;
        while (i < len && units < TYPE_BATCH_UNITS) {
            wchar_t u = w[i++];
            if (u == L'\r' && w[i] == L'\n')
                continue; /* "\r\n" is one Enter */
            n += add_unit(&batch[n], u);
            units++;
            /* Keep a surrogate pair in one batch: the two halves make one character. */
            if (u >= 0xD800 && u <= 0xDBFF && i < len && w[i] >= 0xDC00 && w[i] <= 0xDFFF) {
                n += add_unit(&batch[n], w[i++]);
                units++;
            }
        }
        UINT sent = inject(n, batch, sizeof batch[0]);
        if (sent != n) {
            /* An odd count left a key down (a VK_PACKET one, or Enter / Tab): release it. */
            if (sent % 2) {
                INPUT up = batch[sent];
                inject(1, &up, sizeof up);
            }
            e = input_blocked(sent, n);
            break;
        }
        typed += units;
        if (i < len && os_sleep_ms(TYPE_PAUSE_MS) == WA_E_INTERRUPTED) {
            e = wa_fail(WA_E_INTERRUPTED, "interrupted after typing %zu of %zu characters", typed,
                        len);
            break;
        }
    }
    free(w);
    return e;
}
