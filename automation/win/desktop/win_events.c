/* WinEvents heard out of context: a thread with a hook and a message loop, and a table
 * of the windows something was said of, with when. */
#include "automation/win/desktop/win_events.h"

#include <string.h>

#define SLOTS 4096 /* windows told apart; more since a stamp and every window counts */

static struct {
    INIT_ONCE once;
    bool hearing;
    CRITICAL_SECTION lock;
    volatile LONG64 seq; /* events heard */
    uint64_t lost;       /* the seq when the table last ran full */
    struct slot {
        HWND h;
        uint64_t seq;
    } slots[SLOTS];
    size_t used;
} ev = {.once = INIT_ONCE_STATIC_INIT};

static size_t slot_of(HWND h)
{
    uintptr_t k = (uintptr_t)h;
    k ^= k >> 16;
    return (size_t)(k * 0x9E3779B1u) % SLOTS;
}

/* Notes that something was said of h now. A full table forgets every window, and
 * every stamp before that moment sees a change everywhere. */
static void heard(HWND h)
{
    uint64_t now = (uint64_t)InterlockedIncrement64(&ev.seq);
    EnterCriticalSection(&ev.lock);
    if (ev.used >= SLOTS * 3 / 4) {
        memset(ev.slots, 0, sizeof ev.slots);
        ev.used = 0;
        ev.lost = now;
    }
    size_t i = slot_of(h);
    while (ev.slots[i].h && ev.slots[i].h != h)
        i = (i + 1) % SLOTS;
    ev.used += !ev.slots[i].h;
    ev.slots[i] = (struct slot){h, now};
    LeaveCriticalSection(&ev.lock);
}

static void CALLBACK on_event(HWINEVENTHOOK hook, DWORD event, HWND h, LONG obj, LONG child,
                              DWORD thread, DWORD ms)
{
    (void)hook;
    (void)child;
    (void)thread;
    (void)ms;
    /* the focus is read on every walk; the caret and the cursor change nothing listed */
    if (!h || event == EVENT_OBJECT_FOCUS || obj == OBJID_CARET || obj == OBJID_CURSOR)
        return;
    heard(h);
}

static DWORD WINAPI listen_thread(void *arg)
{
    HANDLE ready = arg;
    HWINEVENTHOOK hook = SetWinEventHook(EVENT_OBJECT_CREATE, EVENT_OBJECT_END, NULL, on_event, 0,
                                         0, WINEVENT_OUTOFCONTEXT | WINEVENT_SKIPOWNPROCESS);
    ev.hearing = hook != NULL;
    SetEvent(ready);
    MSG m;
    while (hook && GetMessageW(&m, NULL, 0, 0) > 0)
        DispatchMessageW(&m);
    return 0;
}

static BOOL CALLBACK start(PINIT_ONCE once, void *param, void **ctx)
{
    (void)once;
    (void)param;
    (void)ctx;
    InitializeCriticalSection(&ev.lock);
    HANDLE ready = CreateEventW(NULL, TRUE, FALSE, NULL);
    HANDLE t = ready ? CreateThread(NULL, 0, listen_thread, ready, 0, NULL) : NULL;
    if (t) {
        WaitForSingleObject(ready, 2000);
        CloseHandle(t); /* it runs as long as the process */
    }
    if (ready)
        CloseHandle(ready);
    return TRUE;
}

bool win_events_listen(void)
{
    InitOnceExecuteOnce(&ev.once, start, NULL, NULL);
    return ev.hearing;
}

uint64_t win_events_now(void)
{
    return (uint64_t)InterlockedCompareExchange64(&ev.seq, 0, 0);
}

bool win_events_since(HWND h, uint64_t stamp)
{
    if (!win_events_listen())
        return true;
    EnterCriticalSection(&ev.lock);
    bool said = ev.lost > stamp;
    size_t i = slot_of(h);
    while (!said && ev.slots[i].h) {
        if (ev.slots[i].h == h) {
            said = ev.slots[i].seq > stamp;
            break;
        }
        i = (i + 1) % SLOTS;
    }
    LeaveCriticalSection(&ev.lock);
    return said;
}
