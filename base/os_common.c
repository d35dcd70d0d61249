/* The parts of base/os.h that are the same on every platform. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"

static atomic_int interrupt_reason; /* 0 none, else OS_INTERRUPT_* */

void os_interrupt_mark(int reason)
{
    int expected = 0;
    atomic_compare_exchange_strong(&interrupt_reason, &expected, reason);
}

bool os_interrupt_unmark(int reason)
{
    int expected = reason;
    return atomic_compare_exchange_strong(&interrupt_reason, &expected, 0);
}

bool os_interrupted(void)
{
    return atomic_load(&interrupt_reason) != 0;
}

const char *os_interrupt_reason(void)
{
    switch (atomic_load(&interrupt_reason)) {
    case OS_INTERRUPT_CTRL_C:
        return "ctrl-c";
    case OS_INTERRUPT_STDIN:
        return "stdin closed";
    case OS_INTERRUPT_REQUESTED:
        return "requested";
    case OS_INTERRUPT_STOP_GESTURE:
        return "stop gesture";
    case OS_INTERRUPT_TAKEN_OVER:
        return "the person took over";
    default:
        return NULL;
    }
}

bool os_interrupted_by_person(void)
{
    int r = atomic_load(&interrupt_reason);
    return r == OS_INTERRUPT_STOP_GESTURE || r == OS_INTERRUPT_TAKEN_OVER;
}

void os_dir_list_cleanup(struct os_dir_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->count = 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void os_dir_list_sort(struct os_dir_list *l)
{
    if (l->count > 1)
        qsort(l->names, l->count, sizeof *l->names, compare_names);
}

void os_path_native(char *path)
{
#ifdef _WIN32
    for (char *p = path; p && *p; p++)
        if (*p == '/')
            *p = '\\';
#else
    (void)path;
#endif
}

/* The shared state of one os_run_pieces call, on the heap: the helper may start after
 * the caller has returned, and whichever of the two lets go of it last frees it. An
 * os_run_beside call is one piece, the helper's alone, that runs beside(beside_arg). */
struct pieces {
    atomic_int next;     /* the next piece to take */
    atomic_int finished; /* pieces done */
    atomic_int refs;
    int n;
    void (*fn)(void *ctx, int i);
    void *ctx;
    void (*beside)(void *arg);
    void *beside_arg;
};

static void pieces_work(struct pieces *p)
{
    for (;;) {
        int i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return;
        p->fn(p->ctx, i);
        atomic_fetch_add_explicit(&p->finished, 1, memory_order_release);
    }
}

static void pieces_release(struct pieces *p)
{
    if (atomic_fetch_sub(&p->refs, 1) == 1)
        free(p);
}

/* The helper of os_run_pieces: one thread started at the first call and kept, woken for
 * each call it takes. Measured under Wine 8: a new thread first ran 4-5 ms after
 * CreateThread, longer than the pieces it was made for (a downscale to 1280x720 is ~1 ms),
 * so the caller did them all alone. State: 0 not started, 1 starting, 2 waiting for
 * work, 3 on a call's pieces, 4 no thread to be had. */
enum { HELPER_NONE, HELPER_STARTING, HELPER_IDLE, HELPER_BUSY, HELPER_UNAVAILABLE };

static struct {
    atomic_int state;
    struct os_event *wake;
    struct pieces *_Atomic job; /* the call it is woken for */
} helper;

static void helper_thread(void *arg)
{
    (void)arg;
    for (;;) {
        os_event_wait(helper.wake, -1);
        struct pieces *p = atomic_exchange(&helper.job, NULL);
        if (!p)
            continue;
        pieces_work(p);
        pieces_release(p);
        atomic_store(&helper.state, HELPER_IDLE);
    }
}

/* Hands p to the helper (starting it on the first call); false when it is on another
 * call, still starting, or cannot be had. */
static bool helper_take(struct pieces *p)
{
    int expected = HELPER_NONE;
    if (atomic_compare_exchange_strong(&helper.state, &expected, HELPER_STARTING)) {
        helper.wake = os_event_new();
        bool up = helper.wake && os_thread_start(helper_thread, NULL) == WA_E_OK;
        atomic_store(&helper.state, up ? HELPER_IDLE : HELPER_UNAVAILABLE);
    }
    expected = HELPER_IDLE;
    if (!atomic_compare_exchange_strong(&helper.state, &expected, HELPER_BUSY))
        return false;
    atomic_store(&helper.job, p);
    os_event_set(helper.wake);
    return true;
}

static void run_beside(void *ctx, int i)
{
    (void)i;
    struct pieces *p = ctx;
    p->beside(p->beside_arg);
}

wa_err os_run_beside(void (*fn)(void *), void *arg)
{
    struct pieces *p = malloc(sizeof *p);
    if (p) {
        atomic_init(&p->next, 0);
        atomic_init(&p->finished, 0);
        atomic_init(&p->refs, 1); /* the helper's: nobody waits for it */
        p->n = 1;
        p->fn = run_beside;
        p->ctx = p;
        p->beside = fn;
        p->beside_arg = arg;
        if (helper_take(p))
            return WA_E_OK;
        free(p);
    }
    return os_thread_start(fn, arg);
}

void os_run_pieces(int n, void (*fn)(void *ctx, int i), void *ctx)
{
    struct pieces *p = n > 1 ? malloc(sizeof *p) : NULL;
    if (!p) {
        for (int i = 0; i < n; i++)
            fn(ctx, i);
        return;
    }
    atomic_init(&p->next, 0);
    atomic_init(&p->finished, 0);
    atomic_init(&p->refs, 2);
    p->n = n;
    p->fn = fn;
    p->ctx = ctx;
    if (!helper_take(p))
        atomic_store(&p->refs, 1);
    pieces_work(p);
    /* Short: the helper is at most one piece from the end. os_sleep_ms(0) yields. */
    while (atomic_load_explicit(&p->finished, memory_order_acquire) < n)
        os_sleep_ms(0);
    pieces_release(p);
}
