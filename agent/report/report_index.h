/* index.html of a folder of runs (docs/contract.md §6): one row per run folder (time, task,
 * outcome, steps, duration, tokens) linking to the run's report.html. Of a batch folder
 * (one holding results.jsonl, merged ones too): the tally (each outcome, pass@1 and
 * pass@N, tokens), then one row per line of results.jsonl (task, prompt, outcome,
 * attempt, reason, exit code, steps, duration, tokens) linking to its run's report, and
 * a row for each run folder no line names (a run the batch stopped during). */
#ifndef WINAGENT_AGENT_REPORT_REPORT_INDEX_H
#define WINAGENT_AGENT_REPORT_REPORT_INDEX_H

#include <stdbool.h>

#include "base/wa_err.h"

/* Writes dir/index.html: of a batch folder, as above; else with one row per run folder
 * in it (a folder holding a trace.jsonl), newest first. Builds the report.html of runs
 * that have none. *rows is the number of rows of results, or of runs. WA_E_USAGE when
 * dir is no batch folder and none of its folders is a run. */
wa_err report_index(const char *dir, int *rows);
/* Whether dir is a batch folder: it holds results.jsonl. */
bool report_is_batch(const char *dir);

#endif
