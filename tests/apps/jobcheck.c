/* Checks the tree and action workers (automation/win/desktop/win_tree_job.c) under Wine, for
 * tests/wine/test_jobs.py: a worker is kept and reused between jobs, jobs at once get
 * workers of their own, a worker whose job was given up on is never reused, and a task
 * beside a job runs on a kept worker too. Prints one line per check, "ok: ..." or
 * "FAIL: ...", and exits 1 on a failure. */
#include <windows.h>
#include <stdio.h>

#include "automation/win/desktop/win_tree_job.h"

static int failures;

static void check(bool ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    fflush(stdout);
    if (!ok)
        failures++;
}

struct probe {
    DWORD thread;   /* the worker that ran the job */
    HANDLE self;    /* that worker, held open so that its id is not reused */
    HANDLE started; /* NULL, or an event set once the job runs inside its gate */
    HANDLE release; /* NULL, or an event the job waits for outside its gate */
    int busy_ms;    /* how long the job works inside its gate */
};

static wa_err note_thread(void *arg, struct win_gate *gate)
{
    struct probe *p = arg;
    p->thread = GetCurrentThreadId();
    p->self = OpenThread(SYNCHRONIZE, FALSE, p->thread);
    if (p->started)
        SetEvent(p->started);
    Sleep((DWORD)p->busy_ms);
    if (p->release) {
        win_gate_leave(gate); /* as around a call into the target */
        WaitForSingleObject(p->release, INFINITE);
        win_gate_enter(gate); /* ends the thread when the job was abandoned */
    }
    return WA_E_OK;
}

static void task_note_thread(void *arg)
{
    ((struct probe *)arg)->thread = GetCurrentThreadId();
}

/* Runs one job to the end; the thread it ran on, 0 on failure. */
static DWORD run_one(void)
{
    struct probe p = {0};
    struct win_job *j = NULL;
    wa_err result = WA_E_IO;
    bool captured = false;
    if (win_job_start(note_thread, &p, NULL, &j) != WA_E_OK)
        return 0;
    wa_err e = win_job_wait(j, 5000, &result, &captured);
    win_job_release(j);
    if (p.self)
        CloseHandle(p.self); /* the worker is kept (or has ended): its id is not needed */
    return e == WA_E_OK && result == WA_E_OK ? p.thread : 0;
}

int main(void)
{
    DWORD first = run_one(), second = run_one(), third = run_one();
    check(first != 0 && second != 0 && third != 0, "jobs run and return their result");
    check(first == second && second == third, "one worker is kept and runs job after job");

    /* Two jobs at once: the second cannot wait for the first's worker. */
    struct probe held = {.release = CreateEventW(NULL, TRUE, FALSE, NULL)}, other = {0};
    struct win_job *a = NULL, *b = NULL;
    wa_err ra = WA_E_IO, rb = WA_E_IO;
    bool captured = false;
    check(win_job_start(note_thread, &held, NULL, &a) == WA_E_OK &&
              win_job_start(note_thread, &other, NULL, &b) == WA_E_OK,
          "two jobs start at once");
    check(win_job_wait(b, 5000, &rb, &captured) == WA_E_OK && rb == WA_E_OK,
          "the second finishes while the first is held");
    SetEvent(held.release);
    check(win_job_wait(a, 5000, &ra, &captured) == WA_E_OK && ra == WA_E_OK,
          "the first finishes when let go");
    check(held.thread != 0 && other.thread != 0 && held.thread != other.thread,
          "jobs at once run on workers of their own");
    win_job_release(a);
    win_job_release(b);

    /* A job abandoned while outside its gate: its worker ends, the next job gets
     * another. */
    DWORD before = run_one();
    struct probe stuck = {.started = CreateEventW(NULL, TRUE, FALSE, NULL),
                          .release = CreateEventW(NULL, TRUE, FALSE, NULL)};
    struct win_job *s = NULL;
    wa_err rs = WA_E_OK;
    captured = false;
    check(win_job_start(note_thread, &stuck, NULL, &s) == WA_E_OK &&
              WaitForSingleObject(stuck.started, 5000) == WAIT_OBJECT_0,
          "a job to abandon starts");
    /* It leaves its gate right after starting, to wait: the wait catches it there. */
    check(win_job_wait(s, 0, &rs, &captured) == WA_E_TIMEOUT && captured,
          "the abandoned job is caught outside its gate");
    SetEvent(stuck.release); /* its worker takes the gate back and ends there */
    win_job_release(s);
    check(stuck.self && WaitForSingleObject(stuck.self, 5000) == WAIT_OBJECT_0,
          "the abandoned job's worker ends");
    DWORD after = run_one();
    check(after != 0 && after != stuck.thread, "the abandoned job's worker is not reused");
    check(before != 0, "a worker ran the job before");

    /* A job given up on while inside its gate (busy in its own code) ends on its own
     * later; its worker is not reused either: its owner may have let go of it, and the
     * worker then frees what the job held, which for a hung target can block. */
    /* It is busy far longer than the wait tries to catch it, even on a loaded machine. */
    struct probe slow = {.started = CreateEventW(NULL, TRUE, FALSE, NULL), .busy_ms = 3000};
    struct win_job *g = NULL;
    wa_err rg = WA_E_OK;
    captured = true;
    check(win_job_start(note_thread, &slow, NULL, &g) == WA_E_OK &&
              WaitForSingleObject(slow.started, 5000) == WAIT_OBJECT_0 &&
              win_job_wait(g, 0, &rg, &captured) == WA_E_TIMEOUT && !captured,
          "a job busy inside its gate is given up on, not caught");
    win_job_release(g);
    check(slow.self && WaitForSingleObject(slow.self, 10000) == WAIT_OBJECT_0,
          "the worker of a job given up on ends when the job is done");
    DWORD next = run_one();
    check(slow.thread != 0 && next != 0 && next != slow.thread,
          "the worker of a job given up on is not reused");

    /* A task: its function runs with its argument on a kept worker, and its event is
     * set when it has returned. */
    DWORD worker = run_one();
    struct probe seen = {0};
    struct win_job *t = NULL;
    check(win_task_start(task_note_thread, &seen, &t) == WA_E_OK &&
              WaitForSingleObject(win_job_done(t), 5000) == WAIT_OBJECT_0,
          "a task runs and its event is set");
    check(seen.thread != 0 && seen.thread == worker, "the task ran on the kept worker");
    win_job_release(t);

    win_job_drain(1000);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
