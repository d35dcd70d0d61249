/* A run's report.html (docs/contract.md §6): the trace of one run as a self-contained page,
 * rewritten atomically after every trace line so that a run stopped at any point still
 * has a whole page, and its rebuild from trace.jsonl.
 *
 * The page is built from the same cJSON objects the loop writes to trace.jsonl. A
 * line holding a "summary" object ends the page; every other line is one step
 * element (<section class="step">). Fields the page does not know are shown as they
 * are, so the trace can grow without the report losing anything. Images are linked
 * by their file names beside the page; tree observations are read from their
 * +a11y.txt files and shown inline. No page loads anything from the network. */
#ifndef WINAGENT_AGENT_REPORT_REPORT_H
#define WINAGENT_AGENT_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/wa_err.h"

struct report;

/* Starts the report of the run folder dir and writes a first page with no steps yet.
 * secret (may be NULL) is replaced by "[redacted]" in every text the page shows. */
wa_err report_open(const char *dir, const char *secret, struct report **out);
/* Adds one trace line (not consumed) and rewrites dir/report.html. */
wa_err report_add(struct report *r, const cJSON *line);
void report_free(struct report *r);

/* Writes dir/report.html from dir/trace.jsonl; the same page the run wrote. */
wa_err report_rebuild(const char *dir);
/* Calls fn with each line of dir/trace.jsonl that parses as an object; *unreadable
 * counts those that do not (a run killed mid-write leaves a partial last line). */
wa_err report_read_trace(const char *dir, void (*fn)(void *ctx, const cJSON *line), void *ctx,
                         int *unreadable);
/* The outcome of a run in words from its summary object ("no summary" for NULL);
 * *failed when the exit code is not 0. */
const char *report_outcome(const cJSON *summary, bool *failed);
/* "20261123-225137-slug" -> "2026-11-23 22:51:37"; false when the name has no time. */
bool report_run_time(const char *folder, char *out, size_t cap);

#endif
