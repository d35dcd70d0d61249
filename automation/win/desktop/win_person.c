/* The person at the desk on Windows. Low-level mouse and keyboard hooks, on a thread of
 * their own with its own message loop, see every input event of the session with the
 * flag Windows sets on injected ones (SendInput: winagent's and any other program's):
 * what comes without it is the person's. The same thread sees the stop gesture: the
 * pointer held in the primary monitor's top-left corner (its origin is the virtual
 * screen's 0,0) for half a second, or ctrl+alt+pause, which it swallows.
 *
 * Measured under Wine 8 (X11 on Xvfb, the person played by xdotool): X input arrives
 * not injected and SendInput injected, as on Windows; but moving the pointer
 * (SetCursorPos, a SendInput move) makes Wine's X11 driver report the X pointer's
 * motion back, not injected, within half a second, at the point moved to or at the one
 * it left; and a window appearing under a still pointer reports a move to where it
 * already is. No key event comes back (Wine resets a held modifier without one). So a
 * move counts as the person's only when it goes somewhere: more than 2 pixels from
 * where the pointer was and from every point winagent moved it from or to in the last
 * second. Buttons, the wheel and keys without the flag are the person's. Wine also
 * counts a window appearing as input in GetLastInputInfo, so that is asked only on
 * Windows, and only for input before this process's watch began, against the time of
 * winagent's own last input, which every winagent process of the session keeps in one
 * shared section. X input reaches Wine only over its windows (its virtual desktop is
 * one). */
#include <windows.h>

#include "automation/win/desktop/win_person.h"
#include "automation/win/desktop/win_window.h"

#define ECHO_MS            1000 /* Wine reports a pointer move winagent made back within this */
#define NEAR_PX            2    /* a reported point this close to another is the same point */
#define OWN_POINTS         8    /* points winagent moved the pointer from or to, kept for ECHO_MS */
#define CORNER_PX          2    /* the corner: x and y below this */
#define CORNER_HOLD_MS     500
#define CORNER_POLL_MS     50
#define OWN_INPUT_SLACK_MS 100 /* GetLastInputInfo after winagent's own input by less: its own */

static struct {
    SRWLOCK lock; /* own[] (the sending thread writes, the hook thread reads) */
    struct {
        POINT p;
        ULONGLONG at;
    } own[OWN_POINTS];
    int next_own;
    POINT to;                  /* where winagent moved the pointer last */
    volatile LONG64 person_ms; /* GetTickCount64 of the person's last input, 0: none seen */
    volatile LONG keyboard;    /* it was a key */
    volatile LONG64 started;   /* GetTickCount64 when the hooks began, 0: not watching */
    void (*on_stop)(void *ctx);
    void *ctx;
    volatile LONG stopped;
    /* The hook thread's own: where the pointer was, since when the person holds it in
     * the corner (0: not there), their modifiers, and a chord key whose release is
     * swallowed too. */
    POINT last;
    ULONGLONG corner_since;
    bool ctrl, alt, swallow_up;
    HANDLE ready; /* the hook thread says whether its hooks are in */
    LONG hooked;
} watch = {.lock = SRWLOCK_INIT};

/* ---- winagent's own input ---- */

/* The time of winagent's last own input (GetTickCount), shared by the winagent processes
 * of this session; NULL when the section cannot be had. */
static volatile LONG *own_input_tick(void)
{
    static volatile LONG *tick;
    static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    BOOL pending;
    if (InitOnceBeginInitialize(&once, 0, &pending, NULL) && pending) {
        HANDLE m = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, sizeof(LONG),
                                      L"Local\\winagent-own-input");
        tick = m ? MapViewOfFile(m, FILE_MAP_ALL_ACCESS, 0, 0, sizeof(LONG)) : NULL;
        InitOnceComplete(&once, 0, NULL); /* the mapping stays for the process's life */
    }
    return tick;
}

void win_person_injected(void)
{
    volatile LONG *t = own_input_tick();
    if (t)
        InterlockedExchange(t, (LONG)GetTickCount());
}

static void remember_own(int x, int y, ULONGLONG now)
{
    watch.own[watch.next_own].p = (POINT){x, y};
    watch.own[watch.next_own].at = now;
    watch.next_own = (watch.next_own + 1) % OWN_POINTS;
}

void win_person_pointer_moved(int fx, int fy, int tx, int ty)
{
    ULONGLONG now = GetTickCount64();
    AcquireSRWLockExclusive(&watch.lock);
    remember_own(fx, fy, now);
    remember_own(tx, ty, now);
    watch.to = (POINT){tx, ty};
    ReleaseSRWLockExclusive(&watch.lock);
}

static bool same_point(POINT a, POINT b)
{
    return labs(a.x - b.x) <= NEAR_PX && labs(a.y - b.y) <= NEAR_PX;
}

/* Whether p is a point winagent moved the pointer from or to lately; *back: one it left,
 * not where it went last. */
static bool own_point(POINT p, ULONGLONG now, bool *back)
{
    bool own = false;
    AcquireSRWLockShared(&watch.lock);
    for (int i = 0; i < OWN_POINTS && !own; i++)
        own = watch.own[i].at && now - watch.own[i].at <= ECHO_MS && same_point(watch.own[i].p, p);
    *back = own && !same_point(p, watch.to);
    ReleaseSRWLockShared(&watch.lock);
    return own;
}

/* ---- the hooks ---- */

static void person_input(bool keyboard)
{
    InterlockedExchange64(&watch.person_ms, (LONG64)GetTickCount64());
    InterlockedExchange(&watch.keyboard, keyboard);
}

static void stop_gesture(void)
{
    if (InterlockedExchange(&watch.stopped, 1) == 0 && watch.on_stop)
        watch.on_stop(watch.ctx);
}

static bool in_corner(POINT p)
{
    return p.x >= 0 && p.y >= 0 && p.x < CORNER_PX && p.y < CORNER_PX;
}

static LRESULT CALLBACK mouse_hook(int code, WPARAM wp, LPARAM lp)
{
    if (code == HC_ACTION) {
        const MSLLHOOKSTRUCT *m = (const MSLLHOOKSTRUCT *)lp;
        bool injected = (m->flags & (LLMHF_INJECTED | LLMHF_LOWER_IL_INJECTED)) != 0;
        ULONGLONG now = GetTickCount64();
        bool back = false;
        bool moved = !same_point(m->pt, watch.last) && !own_point(m->pt, now, &back);
        /* Under Wine an echo that would put the pointer back where winagent took it from
         * is dropped: with the hooks in, Wine reports it late (100 ms and more, after
         * win_input.c's second move), and the next click would land there. A person who
         * puts it back there within the second is taken for one: a hand that pushes on
         * moves again. */
        if (!injected && wp == WM_MOUSEMOVE && back && win_under_wine())
            return 1;
        if (!injected && (wp != WM_MOUSEMOVE || moved))
            person_input(false);
        /* The corner counts from the person's move into it, even to a point winagent
         * left lately (where an echo would be): an echo does not stay there, as the
         * pointer must for the gesture (check_corner). Any move out starts it over. */
        if (!in_corner(m->pt))
            watch.corner_since = 0;
        else if (!injected && !watch.corner_since)
            watch.corner_since = now;
        watch.last = m->pt;
    }
    return CallNextHookEx(NULL, code, wp, lp);
}

static LRESULT CALLBACK key_hook(int code, WPARAM wp, LPARAM lp)
{
    if (code == HC_ACTION) {
        const KBDLLHOOKSTRUCT *k = (const KBDLLHOOKSTRUCT *)lp;
        bool up = (k->flags & LLKHF_UP) != 0;
        if (!(k->flags & (LLKHF_INJECTED | LLKHF_LOWER_IL_INJECTED))) {
            person_input(true);
            switch (k->vkCode) {
            case VK_CONTROL:
            case VK_LCONTROL:
            case VK_RCONTROL:
                watch.ctrl = !up;
                break;
            case VK_MENU:
            case VK_LMENU:
            case VK_RMENU:
                watch.alt = !up;
                break;
            case VK_PAUSE:
            case VK_CANCEL: /* Pause with ctrl down is Break (Wine: down Break, up Pause) */
                if (!up && watch.ctrl && watch.alt) {
                    watch.swallow_up = true;
                    stop_gesture();
                    return 1; /* no program gets the chord's key */
                }
                if (up && watch.swallow_up) {
                    watch.swallow_up = false;
                    return 1;
                }
                break;
            default:
                break;
            }
        }
    }
    (void)wp;
    return CallNextHookEx(NULL, code, wp, lp);
}

/* The corner held for half a second: the pointer is still there, and the person put it
 * there. */
static void check_corner(void)
{
    POINT p;
    if (watch.corner_since && GetTickCount64() - watch.corner_since >= CORNER_HOLD_MS &&
        GetCursorPos(&p) && in_corner(p))
        stop_gesture();
}

static DWORD WINAPI hook_thread(LPVOID arg)
{
    (void)arg;
    GetCursorPos(&watch.last);
    /* Every input event of the session waits for this thread's answer: it must not wait
     * for a turn on a busy machine. */
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL);
    HINSTANCE self = GetModuleHandleW(NULL);
    HHOOK mouse = SetWindowsHookExW(WH_MOUSE_LL, mouse_hook, self, 0);
    HHOOK keys = mouse ? SetWindowsHookExW(WH_KEYBOARD_LL, key_hook, self, 0) : NULL;
    UINT_PTR timer = keys ? SetTimer(NULL, 0, CORNER_POLL_MS, NULL) : 0;
    watch.hooked = timer != 0;
    if (watch.hooked)
        InterlockedExchange64(&watch.started, (LONG64)GetTickCount64());
    SetEvent(watch.ready);
    MSG msg;
    while (watch.hooked && GetMessageW(&msg, NULL, 0, 0) > 0) {
        if (msg.message == WM_TIMER && msg.hwnd == NULL && msg.wParam == timer)
            check_corner();
        DispatchMessageW(&msg);
    }
    if (keys)
        UnhookWindowsHookEx(keys);
    if (mouse)
        UnhookWindowsHookEx(mouse);
    return 0;
}

wa_err win_person_watch(void (*on_stop)(void *ctx), void *ctx)
{
    if (watch.ready)
        return watch.hooked ? WA_E_OK : wa_fail(WA_E_UNSUPPORTED, "the input hooks are not in");
    watch.on_stop = on_stop;
    watch.ctx = ctx;
    own_input_tick();
    watch.ready = CreateEventW(NULL, TRUE, FALSE, NULL);
    HANDLE t = watch.ready ? CreateThread(NULL, 0, hook_thread, NULL, 0, NULL) : NULL;
    char msg[300];
    if (!t)
        return wa_fail(WA_E_UNSUPPORTED, "cannot start the thread that watches input (%s)",
                       win_error_text(GetLastError(), msg, sizeof msg));
    CloseHandle(t);
    WaitForSingleObject(watch.ready, 5000);
    return watch.hooked ? WA_E_OK
                        : wa_fail(WA_E_UNSUPPORTED, "the low-level input hooks cannot be set");
}

wa_err win_person_idle(int64_t *idle_ms, bool *keyboard)
{
    ULONGLONG now = GetTickCount64();
    LONG64 seen = InterlockedCompareExchange64(&watch.person_ms, 0, 0);
    LONG64 started = InterlockedCompareExchange64(&watch.started, 0, 0);
    *idle_ms = seen ? (int64_t)(now - (ULONGLONG)seen) : INT64_MAX;
    *keyboard = seen && watch.keyboard;
    LASTINPUTINFO li = {.cbSize = sizeof li};
    volatile LONG *own = own_input_tick();
    if (win_under_wine() || !GetLastInputInfo(&li))
        return WA_E_OK;
    /* Input before the hooks began, not within a moment of winagent's own: a person's
     * (or another program's) that this process could not see. */
    DWORD tick = GetTickCount();
    DWORD ago = tick - li.dwTime;
    DWORD own_ago = own && *own ? tick - (DWORD)*own : MAXDWORD;
    bool before = !started || (ULONGLONG)ago > now - (ULONGLONG)started;
    if (before && (own_ago == MAXDWORD || ago + OWN_INPUT_SLACK_MS < own_ago) &&
        (int64_t)ago < *idle_ms) {
        *idle_ms = ago;
        *keyboard = false;
    }
    return WA_E_OK;
}
