/* Worker threads with a deadline and a gate, for tree walks and element actions. */
#include "automation/win/win_tree_job.h"

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

static volatile LONG live_workers; /* started and not yet past CoUninitialize */

static DWORD WINAPI job_thread(void *p)
{
    struct win_job *j = p;
    HRESULT hr = CoInitializeEx(NULL, COINIT_MULTITHREADED);
    EnterCriticalSection(&j->gate.lock);
    if (!j->gate.abandoned) {
        wa_err_clear();
        j->result = j->fn(j->arg, &j->gate);
        snprintf(j->detail, sizeof j->detail, "%s", wa_err_detail());
        j->finished = true;
    }
    LeaveCriticalSection(&j->gate.lock);
    SetEvent(j->done);
    job_unref(j); /* may free arg, releasing COM objects: before CoUninitialize */
    if (SUCCEEDED(hr))
        CoUninitialize();
    InterlockedDecrement(&live_workers);
    return 0;
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
    HANDLE t = CreateThread(NULL, 0, job_thread, j, 0, NULL);
    if (!t) {
        DWORD err = GetLastError();
        InterlockedDecrement(&live_workers);
        j->refs = 1;
        job_unref(j);
        return wa_fail(WA_E_IO, "CreateThread failed: error %lu", (unsigned long)err);
    }
    CloseHandle(t);
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

void win_job_release(struct win_job *j)
{
    if (j)
        job_unref(j);
}
