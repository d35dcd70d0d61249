/* Loop guards: patterns in a run's tool calls that mean it is stuck. The same call
 * failing again and again, the same call repeated without changing anything, two calls
 * alternating (A, B, A, B) while the window comes back to the same state each time, and
 * acting calls in a row that change nothing on screen. Each tells the model first, once
 * (or, for failures and a still screen, at every call past the mark), and if the pattern
 * goes on ends the run with exit code 4 and a reason naming the pattern
 * (docs/contract.md §2). */
#ifndef WINAGENT_AGENT_RUN_GUARDS_H
#define WINAGENT_AGENT_RUN_GUARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/core/request/request.h"

#define SAME_FAILURE_WARN 3 /* identical failing calls in a row before the model is told */
#define SAME_FAILURE_STOP 5 /* ... before the run ends */
#define SAME_CALL_STOP    8 /* identical calls in a row with no change, before the run ends */
#define UNCHANGED_WARN    3 /* acting calls in a row that changed nothing on screen: told */
#define UNCHANGED_STOP    6 /* ... the run ends, when they span 3 of the model's turns */
#define ALTERNATION_WARN  4 /* calls alternating between two, the screen cycling: told */
#define ALTERNATION_STOP  6 /* ... the run ends */
#define GUARD_HISTORY     ALTERNATION_STOP

/* One call as the guards remember it. */
struct guard_call {
    uint64_t sig;    /* its tool and arguments */
    uint64_t screen; /* what it saw: its observation, else its result */
    char what[48];   /* "click", "key", ... for the reason */
};

struct guards {
    struct guard_call last[GUARD_HISTORY]; /* oldest first */
    int n;
    int same_failures, same_calls, unchanged;
    int unchanged_from;   /* the step whose call began the streak of unchanged ones */
    uint64_t last_screen; /* of the last acting call with an observation */
    bool have_screen;
    bool told_alternation;
};

/* After one of the model's calls in step (tool name, its arguments as sent, what it was:
 * action names the call for messages, the result, and whether it acted): a note for the
 * model (static text) or NULL. When the run must end, *stop is true and reason holds
 * why, naming the pattern ("stuck (alternation): ..."). A streak of calls that changed
 * nothing ends a run only across turns: one reply's batch of pointer moves, presses and
 * releases may change nothing until its last. */
const char *guards_after_call(struct guards *g, int step, const char *name, const char *arguments,
                              const char *action, const struct op_result *res, bool acted,
                              bool *stop, char *reason, size_t cap);

#endif
