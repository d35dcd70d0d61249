/* Replay: re-runs a recorded run's tool calls from its trace.jsonl without a model. */
#ifndef WINAGENT_AGENT_RUN_REPLAY_H
#define WINAGENT_AGENT_RUN_REPLAY_H

#include "agent/run/config.h"

/* Re-executes cfg->replay's calls in order: elements are found again by type and
 * name in a fresh tree, coordinates are reused. With cfg->dry_run only the plan is
 * printed. Stops at the first failure. Writes a new log folder. Returns the exit
 * code (0 all replayed, 4 a call failed, 1 an unreadable trace). */
int replay_run(const struct agent_config *cfg);

#endif
