/* The person at the desk, as a run meets them: whether one is at the console, the
 * question ask_user puts to them there, and the progress lines of a run that waits
 * while they use the desktop (docs/contract.md §3, "The person at the desk"). */
#ifndef WINAGENT_AGENT_RUN_DESK_H
#define WINAGENT_AGENT_RUN_DESK_H

#include <stdbool.h>

#include "agent/core/config/core_config.h"
#include "agent/core/config/settings.h"
#include "agent/run/steplog.h"

/* Whether a person can answer at the console: stdin is a terminal, the run is no
 * batch's (in_batch) and --unattended is off. */
bool desk_attended(const struct settings *s, bool in_batch);

/* A run's session options for the person: it waits for them (--takeover), says so in
 * log, and asks them at the console when attended. */
void desk_session(struct session_opts *so, bool attended, struct steplog *log);

#endif
