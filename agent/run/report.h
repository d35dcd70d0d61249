/* A run's report.html (SPEC §6): the trace of one run as a self-contained page,
 * rewritten atomically after every trace line so that a run stopped at any point still
 * has a whole page; its rebuild from trace.jsonl; and the index of a folder of runs.
 *
 * The page is built from the same cJSON objects the loop writes to trace.jsonl. A
 * line holding a "summary" object ends the page; every other line is one step
 * element (<section class="step">). Fields the page does not know are shown as they
 * are, so the trace can grow without the report losing anything. Images are linked
 * by their file names beside the page; tree observations are read from their
 * +a11y.txt files and shown inline. No page loads anything from the network. */
#ifndef WINAGENT_AGENT_RUN_REPORT_H
#define WINAGENT_AGENT_RUN_REPORT_H

#include <cjson/cJSON.h>

#include "base/error.h"

struct report;

/* Starts the report of the run folder dir and writes a first page with no steps yet.
 * secret (may be NULL) is replaced by "[redacted]" in every text the page shows. */
wa_err report_open(const char *dir, const char *secret, struct report **out);
/* Adds one trace line (not consumed) and rewrites dir/report.html. */
wa_err report_add(struct report *r, const cJSON *line);
void report_free(struct report *r);

/* Writes dir/report.html from dir/trace.jsonl; the same page the run wrote. */
wa_err report_rebuild(const char *dir);
/* Writes log_dir/index.html with one row per run folder in it (a folder holding a
 * trace.jsonl), newest first, and builds the report.html of runs that have none.
 * *runs is the number of rows. WA_E_USAGE when no folder in log_dir is a run. */
wa_err report_index(const char *log_dir, int *runs);

/* `winagent report DIR|LOGDIR`: argv[0] is "report". Returns the exit code. */
int cmd_report(int argc, char **argv);

#endif
