/* What a run may spend (docs/contract.md §2: --budget-tokens, --budget-seconds; per task and per
 * batch too): checked before each model call, so a run stops before the call that
 * would pass its budget rather than after it. */
#ifndef WINAGENT_AGENT_RUN_BUDGET_H
#define WINAGENT_AGENT_RUN_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

struct budget {
    long long tokens; /* total tokens of the model calls; 0: no limit */
    double seconds;   /* wall time since the run began; 0: no limit */
};

/* What a run has spent, and what its latest model turn (the call and the tools it ran)
 * cost; the next turn costs at least as much, since the conversation only grows. */
struct budget_use {
    int turns; /* model turns made so far */
    long long tokens, last_tokens;
    double seconds, last_seconds;
};

/* Whether the run must stop before its next model call: what it spent has reached a
 * limit, or will pass it with one more turn like the latest. why (always set when true)
 * says what was spent of what: "budget spent: 900 tokens of 1000 (a turn takes about
 * 300)". A run with nothing spent yet makes its first call whatever its budget. */
bool budget_spent(const struct budget *b, const struct budget_use *u, char *why, size_t cap);

/* The smaller limit of a and b, where 0 means none. */
struct budget budget_min(struct budget a, struct budget b);

/* "1000 tokens, 60 s", "1000 tokens", "60 s" or "none". */
void budget_describe(const struct budget *b, char *out, size_t cap);

#endif
