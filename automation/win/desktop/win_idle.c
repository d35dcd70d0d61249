/* When a window's thread has handled the input sent to it: message round trips to the
 * thread until it answers with nothing left to paint.
 *
 * Input that SendInput returned from is already in the target thread's input queue. A
 * message sent to one of its windows (WM_NULL, which every window procedure ignores) is
 * answered when the thread next asks for a message: between two messages it handles,
 * or inside a loop of its own (a menu, a modal dialog). Sent messages are taken before
 * queued input, so the first answer can come before the input was looked at; the next
 * round trips wait for the thread to have taken it. A heuristic, not a proof: the
 * caller still compares frames. Painting comes last (WM_PAINT is made when nothing else
 * is queued): while the window or one of its controls has a region left to paint, the
 * thread gets another round trip to paint it. */
#include <windows.h>

#include "automation/win/desktop/win_idle.h"
#include "automation/win/desktop/win_window.h"

/* The first round trip may pass the queued input (see above); one more for a thread
 * that takes its input in a nested loop (a menu's). */
#define ROUND_TRIPS_MIN 3
#define ROUND_TRIPS_MAX 40 /* a window that repaints for ever is still answered */

static BOOL CALLBACK child_needs_paint(HWND h, LPARAM lp)
{
    if (IsWindowVisible(h) && GetUpdateRect(h, NULL, FALSE)) {
        *(bool *)lp = true;
        return FALSE;
    }
    return TRUE;
}

/* Whether h or one of its visible controls has a region still to paint. */
static bool needs_paint(HWND h)
{
    if (GetUpdateRect(h, NULL, FALSE))
        return true;
    bool any = false;
    EnumChildWindows(h, child_needs_paint, (LPARAM)&any);
    return any;
}

wa_err win_input_handled(uint64_t hwnd, int timeout_ms)
{
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    DWORD t0 = GetTickCount();
    for (int i = 0; i < ROUND_TRIPS_MAX; i++) {
        DWORD spent = GetTickCount() - t0;
        if ((int)spent >= timeout_ms)
            break;
        DWORD_PTR answer = 0;
        /* ABORTIFHUNG: a thread that stopped taking messages (5 s without) fails at once */
        if (!SendMessageTimeoutW(h, WM_NULL, 0, 0, SMTO_NORMAL | SMTO_ABORTIFHUNG,
                                 (UINT)(timeout_ms - (int)spent), &answer)) {
            DWORD err = GetLastError();
            if (!IsWindow(h))
                return wa_fail(WA_E_WINDOW_NOT_FOUND, "window 0x%llx went away",
                               (unsigned long long)hwnd);
            return wa_fail(WA_E_TIMEOUT, "window 0x%llx did not answer (error %lu)",
                           (unsigned long long)hwnd, (unsigned long)err);
        }
        if (i + 1 >= ROUND_TRIPS_MIN && !needs_paint(h))
            return WA_E_OK;
    }
    return wa_fail(WA_E_TIMEOUT, "window 0x%llx was still painting after %d round trips",
                   (unsigned long long)hwnd, ROUND_TRIPS_MAX);
}
