/* The autonomous loop: one task in, model steps with tool calls, a final answer out,
 * and every step logged (SPEC §2, §3, §6). */
#ifndef WINAGENT_AGENT_RUN_LOOP_H
#define WINAGENT_AGENT_RUN_LOOP_H

#include "agent/run/config.h"

/* Runs the task of cfg; prints the final answer on stdout. Returns the exit code. */
int agent_run(const struct agent_config *cfg);

/* `winagent [options] "<prompt>"` and `winagent --replay ...`: loads the
 * configuration, then runs. */
int cmd_run(int argc, char **argv);

#endif
