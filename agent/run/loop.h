/* The autonomous loop: one task in, model steps with tool calls, a final answer out,
 * and every step logged (docs/contract.md §2, §3, §6). */
#ifndef WINAGENT_AGENT_RUN_LOOP_H
#define WINAGENT_AGENT_RUN_LOOP_H

#include "agent/run/config.h"

/* What a finished run leaves for its caller (batch). */
struct run_outcome {
    char dir[1024]; /* the run's folder; empty when none was made */
    int steps;
    long long total_tokens;
    double total_ms;
};

/* Runs the task of cfg; prints the final answer on stdout. Returns the exit code;
 * fills out (may be NULL). */
int agent_run(const struct agent_config *cfg, struct run_outcome *out);

#endif
