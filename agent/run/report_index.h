/* index.html of a folder of runs (SPEC §6): one row per run folder (time, task,
 * outcome, steps, duration, tokens) linking to the run's report.html. */
#ifndef WINAGENT_AGENT_RUN_REPORT_INDEX_H
#define WINAGENT_AGENT_RUN_REPORT_INDEX_H

#include "base/error.h"

/* Writes log_dir/index.html with one row per run folder in it (a folder holding a
 * trace.jsonl), newest first, and builds the report.html of runs that have none.
 * *runs is the number of rows. WA_E_USAGE when no folder in log_dir is a run. */
wa_err report_index(const char *log_dir, int *runs);

#endif
