/* Worker threads for tree walks and element actions (COM in the multithreaded
 * apartment, a deadline, a gate through which an abandoned walk hands over its
 * partial tree), and the COM helpers the tree modules share. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_TREE_JOB_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_TREE_JOB_H

#include <windows.h>
#include <stdbool.h>

#include "base/wa_err.h"

/* Releases a COM interface pointer (C, COBJMACROS-style vtables) and NULLs it. */
#define WIN_RELEASE(p)                                                                             \
    do {                                                                                           \
        if (p) {                                                                                   \
            (p)->lpVtbl->Release(p);                                                               \
            (p) = NULL;                                                                            \
        }                                                                                          \
    } while (0)

/* wa_fail(e) with the HRESULT in hex in the detail: "what: HRESULT 0x80004001". */
wa_err win_hr_fail(wa_err e, HRESULT hr, const char *what);

/* The gate of a job. The worker holds it while it runs its own code and leaves it
 * around every call into the target application that may block (cross-process COM,
 * SendMessage): the job's owner can then take the worker's state away when the
 * deadline passes. A NULL gate is allowed (no job: both calls do nothing). */
struct win_gate;
void win_gate_leave(struct win_gate *g);
/* Takes the gate back. When the job was abandoned meanwhile this never returns: the
 * thread ends there, leaking what its callers held (the price of a hung target).
 * So between leave and enter, code touches only its own locals. */
void win_gate_enter(struct win_gate *g);

/* A job: fn(arg, gate) on a worker thread with COM initialised for the MTA (a waiting
 * worker kept from an earlier job, else a new one). The worker starts holding the gate.
 * fn's result and detail line are handed back. */
typedef wa_err (*win_job_fn)(void *arg, struct win_gate *gate);
struct win_job;

/* Starts fn. arg belongs to the job from here on: free_arg (may be NULL) runs when
 * both the caller (win_job_release) and the worker are done with it, on either
 * thread. On failure free_arg has already run. */
wa_err win_job_start(win_job_fn fn, void *arg, void (*free_arg)(void *), struct win_job **out);

/* Waits up to timeout_ms. WA_E_OK when fn returned: *result is its return and its
 * detail line is now this thread's. WA_E_TIMEOUT otherwise; the job is abandoned and
 * *captured says whether the worker was caught at the gate (inside a call into the
 * target): then it will end without touching arg again, and arg is the caller's to
 * read and pick apart until win_job_release. */
wa_err win_job_wait(struct win_job *j, int timeout_ms, wa_err *result, bool *captured);

/* win_job_start and win_job_wait in one, for a caller that gives the worker up at the
 * deadline (it never reads a captured worker's state). WA_E_OK when fn returned within
 * timeout_ms (*result is its return); else win_job_start's error, *out NULL (free_arg
 * has run), or win_job_wait's WA_E_TIMEOUT. The caller releases *out. */
wa_err win_job_run(win_job_fn fn, void *arg, void (*free_arg)(void *), int timeout_ms,
                   wa_err *result, struct win_job **out);

/* Drops the caller's reference (NULL is fine). */
void win_job_release(struct win_job *j);

/* A task: fn(arg) on a worker like a job's, for work beside a job (a list's texts read
 * while the walk goes on), with no deadline: the caller waits for win_job_done(*out)
 * and then releases it. On failure nothing was started and fn will not run. */
wa_err win_task_start(void (*fn)(void *arg), void *arg, struct win_job **out);

/* An event set once the job's or task's function has returned (manual reset; the job
 * owns it: valid until win_job_release). */
HANDLE win_job_done(struct win_job *j);

/* Before the process exits: waits up to timeout_ms for workers still finishing (a
 * worker releases its COM objects, cross-process calls, after its result is in).
 * Workers stuck in a hung target are not waited for beyond the timeout. */
void win_job_drain(int timeout_ms);

#endif
