/* The process's exit codes (docs/contract.md §2) with the word each run's log and report give
 * them, one table for every front end and run. */
#ifndef WINAGENT_AGENT_CORE_REQUEST_EXIT_H
#define WINAGENT_AGENT_CORE_REQUEST_EXIT_H

#include "base/wa_err.h"

/* X(name, code, word) */
#define EXIT_MAP(X)                                                                                \
    X(OK, 0, "finished")                                                                           \
    X(USAGE, 1, "error")                /* usage or configuration error (and failed commands) */   \
    X(LLM, 2, "LLM error")              /* LLM or network error after retries */                   \
    X(STEPS, 3, "step limit reached")   /* the step limit was reached */                           \
    X(ACTION, 4, "desktop failure")     /* a desktop action failed fatally */                      \
    X(BATCH, 5, "task did not pass")    /* batch: a task did not pass */                           \
    X(BUDGET, 6, "budget spent")        /* the run's token or time budget was spent */             \
    X(CONFIRM, 7, "needs confirmation") /* an action needs a person's yes; nobody gave it */       \
    X(STOPPED, 8,                                                                                  \
      "stopped by the person") /* the stop gesture, or their input (--takeover stop) */            \
    X(INTERRUPTED, 130, "interrupted")

enum {
#define X_ENUM(name, code, word) EXIT_##name = code,
    EXIT_MAP(X_ENUM)
#undef X_ENUM
};

/* The word of an exit code ("finished", "step limit reached"); "error" when unknown. */
const char *exit_word(int code);

/* The code of a run that ended on an interrupt: EXIT_STOPPED when the person stopped it
 * (the stop gesture, or their input with --takeover stop), else EXIT_INTERRUPTED. */
int exit_interrupted(void);

/* Prints "winagent: <message>[: <detail>]" on stderr and returns EXIT_USAGE. */
int exit_fail(wa_err e);

#endif
