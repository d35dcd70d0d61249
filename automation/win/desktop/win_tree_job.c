/* Worker threads with a deadline and a gate, for tree walks and element actions. */
#include "automation/win/desktop/win_tree_job.h"

#include <objbase.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct win_gate {
    CRITICAL_SECTION lock;
    volatile LONG abandoned;
};

struct win_job {
    struct win_gate gate;
    volatile LONG refs; /* the caller's and the worker's */
    HANDLE done;        /* manual reset; set once fn has returned */
    bool finished;      /* written under the gate */
    win_job_fn fn;
    void *arg;
    void (*free_arg)(void *);
    wa_err result;
    char detail[512];
};

wa_err win_hr_fail(wa_err e, HRESULT hr, const char *what)
{
    return wa_fail(e, "%s: HRESULT 0x%08lx", what, (unsigned long)hr);
}

static void job_unref(struct win_job *j)
{
    if (InterlockedDecrement(&j->refs) != 0)
        return;
    if (j->free_arg)
        j->free_arg(j->arg);
    DeleteCriticalSection(&j->gate.lock);
    CloseHandle(j->done);
    free(j);
}

void win_gate_leave(struct win_gate *g)
{
    if (g)
        LeaveCriticalSection(&g->lock);
}

void win_gate_enter(struct win_gate *g)
{
    if (!g)
        return;
    EnterCriticalSection(&g->lock);
    if (!g->abandoned)
        return;
    /* The owner gave up on this job and may have taken its state: end the thread
     * here, before any caller touches that state again. */
    LeaveCriticalSection(&g->lock);
    job_unref(CONTAINING_RECORD(g, struct win_job, gate));
    ExitThread(0);
}

/* Element handles outlive the worker that made them (an action runs on another
 * worker, cleanup on the caller's thread), so the process keeps the MTA alive for
 * good instead of letting it end with each worker. */
static BOOL CALLBACK keep_mta(PINIT_ONCE once, void *param, void **ctx)
{
    (void)once;
    (void)param;
    (void)ctx;
    CO_MTA_USAGE_COOKIE cookie;
    CoIncrementMTAUsage(&cookie); /* on failure each worker still has its own MTA */
    return TRUE;
}

static volatile LONG live_workers; /* jobs started and not yet done with their COM objects */

/* Workers are kept between jobs: under Wine 8 a new thread first ran 4-10 ms after
 * CreateThread, a third of a small window's walk. A worker done with its job waits up to
 * WORKER_IDLE_MS for the next one, then ends; at most MAX_IDLE_WORKERS wait at once. A
 * worker whose job was abandoned inside a call into the target ends there (see
 * win_gate_enter) and is never reused. */
#define WORKER_IDLE_MS   30000
#define MAX_IDLE_WORKERS 4

struct worker {
    HANDLE wake; /* auto reset: job is set */
    struct win_job *job;
    struct worker *next; /* in the idle list */
};

static SRWLOCK idle_lock = SRWLOCK_INIT;
static struct worker *idle_workers;
static int idle_count;

/* Puts w on the idle list; false when enough workers wait already. */
static bool list_idle(struct worker *w)
{
    AcquireSRWLockExclusive(&idle_lock);
    bool listed = idle_count < MAX_IDLE_WORKERS;
    if (listed) {
        w->next = idle_workers;
        idle_workers = w;
        idle_count++;
    }
    ReleaseSRWLockExclusive(&idle_lock);
    return listed;
}

/* Waits for the next job of w, which is on the idle list; NULL when none came in time
 * (w is then off the list). */
static struct win_job *wait_for_job(struct worker *w)
{
    if (WaitForSingleObject(w->wake, WORKER_IDLE_MS) == WAIT_OBJECT_0)
        return w->job;
    AcquireSRWLockExclusive(&idle_lock);
    bool still_listed = false;
    for (struct worker **p = &idle_workers; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            idle_count--;
            still_listed = true;
            break;
        }
    ReleaseSRWLockExclusive(&idle_lock);
    if (still_listed)
        return NULL;
    /* Taken off the list by a caller at the last moment: its job is on the way. */
    WaitForSingleObject(w->wake, INFINITE);
    return w->job;
}

static DWORD WINAPI worker_thread(void *p)
{
    struct worker *w = p;
    HRESULT hr = CoInitializeEx(NULL, COINIT_MULTITHREADED);
    for (struct win_job *j = w->job; j;) {
        EnterCriticalSection(&j->gate.lock);
        if (!j->gate.abandoned) {
            wa_err_clear();
            j->result = j->fn(j->arg, &j->gate);
            snprintf(j->detail, sizeof j->detail, "%s", wa_err_detail());
            j->finished = true;
        }
        LeaveCriticalSection(&j->gate.lock);
        /* Listed before the job's owner hears it is done, so that a job started right
         * after comes here (and waits the moment this one takes to finish below). Not
         * after a job its owner gave up on (a slow or hung target): the owner may have
         * let go of it already, and then job_unref frees its arg here, releasing that
         * target's objects, which can block; a later job must not wait behind that. */
        bool listed = !InterlockedCompareExchange(&j->gate.abandoned, 0, 0) && list_idle(w);
        SetEvent(j->done);
        job_unref(j); /* may free arg, releasing COM objects: before CoUninitialize */
        InterlockedDecrement(&live_workers);
        j = listed ? wait_for_job(w) : NULL;
    }
    CloseHandle(w->wake);
    free(w);
    if (SUCCEEDED(hr))
        CoUninitialize();
    return 0;
}

/* Hands j to a waiting worker, else to a new one. */
static wa_err give_to_worker(struct win_job *j)
{
    AcquireSRWLockExclusive(&idle_lock);
    struct worker *w = idle_workers;
    if (w) {
        idle_workers = w->next;
        idle_count--;
    }
    ReleaseSRWLockExclusive(&idle_lock);
    if (w) {
        w->job = j;
        SetEvent(w->wake);
        return WA_E_OK;
    }
    w = calloc(1, sizeof *w);
    if (w)
        w->wake = CreateEventW(NULL, FALSE, FALSE, NULL);
    HANDLE t = w && w->wake ? (w->job = j, CreateThread(NULL, 0, worker_thread, w, 0, NULL)) : NULL;
    if (!t) {
        DWORD err = GetLastError();
        if (w && w->wake)
            CloseHandle(w->wake);
        free(w);
        return wa_fail(WA_E_IO, "cannot start a worker thread: error %lu", (unsigned long)err);
    }
    CloseHandle(t);
    return WA_E_OK;
}

void win_job_drain(int timeout_ms)
{
    for (int waited = 0; InterlockedCompareExchange(&live_workers, 0, 0) > 0 && waited < timeout_ms;
         waited += 5)
        Sleep(5);
}

wa_err win_job_start(win_job_fn fn, void *arg, void (*free_arg)(void *), struct win_job **out)
{
    static INIT_ONCE mta_once = INIT_ONCE_STATIC_INIT;
    *out = NULL;
    InitOnceExecuteOnce(&mta_once, keep_mta, NULL, NULL);
    struct win_job *j = calloc(1, sizeof *j);
    if (!j) {
        if (free_arg)
            free_arg(arg);
        return wa_fail(WA_E_NOMEM, "out of memory starting a worker");
    }
    j->done = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!j->done) {
        DWORD err = GetLastError();
        free(j);
        if (free_arg)
            free_arg(arg);
        return wa_fail(WA_E_IO, "CreateEvent failed: error %lu", (unsigned long)err);
    }
    InitializeCriticalSection(&j->gate.lock);
    j->refs = 2;
    j->fn = fn;
    j->arg = arg;
    j->free_arg = free_arg;
    InterlockedIncrement(&live_workers);
    wa_err e = give_to_worker(j);
    if (e) {
        InterlockedDecrement(&live_workers);
        j->refs = 1;
        job_unref(j);
        return e;
    }
    *out = j;
    return WA_E_OK;
}

static wa_err job_result(struct win_job *j, wa_err *result)
{
    *result = j->result;
    if (j->result != WA_E_OK)
        wa_fail(j->result, "%s", j->detail);
    return WA_E_OK;
}

wa_err win_job_wait(struct win_job *j, int timeout_ms, wa_err *result, bool *captured)
{
    *captured = false;
    *result = WA_E_TIMEOUT;
    if (WaitForSingleObject(j->done, timeout_ms < 0 ? 0 : (DWORD)timeout_ms) == WAIT_OBJECT_0)
        return job_result(j, result);
    InterlockedExchange(&j->gate.abandoned, 1);
    /* The worker leaves the gate only around calls into the target; catching it
     * there takes moments. A worker stuck elsewhere keeps its state. */
    for (int i = 0; i < 40; i++) {
        if (TryEnterCriticalSection(&j->gate.lock)) {
            bool finished = j->finished;
            LeaveCriticalSection(&j->gate.lock);
            if (finished)
                return job_result(j, result);
            *captured = true;
            return wa_fail(WA_E_TIMEOUT, "the target did not answer within %d ms", timeout_ms);
        }
        Sleep(5);
    }
    return wa_fail(WA_E_TIMEOUT, "the target did not answer within %d ms", timeout_ms);
}

wa_err win_job_run(win_job_fn fn, void *arg, void (*free_arg)(void *), int timeout_ms,
                   wa_err *result, struct win_job **out)
{
    *result = WA_E_OK;
    wa_err e = win_job_start(fn, arg, free_arg, out);
    if (e)
        return e;
    bool captured = false;
    return win_job_wait(*out, timeout_ms, result, &captured);
}

void win_job_release(struct win_job *j)
{
    if (j)
        job_unref(j);
}

HANDLE win_job_done(struct win_job *j)
{
    return j->done;
}

struct worker_task {
    void (*fn)(void *arg);
    void *arg;
};

static wa_err run_task(void *arg, struct win_gate *gate)
{
    (void)gate; /* nobody abandons a task: its gate is held throughout */
    struct worker_task *t = arg;
    t->fn(t->arg);
    return WA_E_OK;
}

wa_err win_task_start(void (*fn)(void *arg), void *arg, struct win_job **out)
{
    *out = NULL;
    struct worker_task *t = malloc(sizeof *t);
    if (!t)
        return wa_fail(WA_E_NOMEM, "out of memory starting a task");
    t->fn = fn;
    t->arg = arg;
    return win_job_start(run_task, t, free, out);
}
