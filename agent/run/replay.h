/* Replay: re-runs a recorded run's tool calls from its trace.jsonl without a model. */
#ifndef WINAGENT_AGENT_RUN_REPLAY_H
#define WINAGENT_AGENT_RUN_REPLAY_H

#include "agent/run/config.h"

/* Re-executes cfg->replay's calls in order through the core and its gate, each checked
 * first: an element action is re-aimed at the element with the recorded identity (type,
 * name, AutomationId) in a fresh tree; input at a point or to the foreground must reach
 * the window that received it when recorded (title, class, process); a window
 * operation needs its window. At the first call that does not fit, the replay stops
 * ("diverged") naming the step and what differed. Writes a complete log folder of its
 * own (agent.log, trace.jsonl, observations, report.html). With cfg->dry_run the plan
 * is printed and nothing acts. Exit code: 0 all replayed, 4 diverged or a call failed,
 * 1 an unreadable trace, 130 interrupted. */
int replay_run(const struct agent_config *cfg);

/* Reads a trace's text (modified in place) as replay_run does, line by line and every
 * call into its request, performing nothing and writing no log: the number of calls, or
 * -1 at a line that is not JSON. For the fuzz target. */
int replay_parse_trace(char *text);

#endif
