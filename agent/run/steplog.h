/* A run's log folder (docs/contract.md §6): LOGDIR/<yyyymmdd-hhmmss>-<slug>/ with agent.log,
 * trace.jsonl and the step files. Every text written passes through a scrubber that
 * replaces the API key, so a key that slipped into a message never reaches disk. */
#ifndef WINAGENT_AGENT_RUN_STEPLOG_H
#define WINAGENT_AGENT_RUN_STEPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/wa_err.h"

struct report;

struct steplog {
    char *dir;    /* the run's folder */
    FILE *log;    /* agent.log */
    FILE *trace;  /* trace.jsonl */
    char *secret; /* scrubbed from everything written; NULL when none */
    bool echo;    /* progress lines also to stderr */
    /* report.html, rewritten with every trace line (agent/report/report.h) */
    struct report *report;
};

/* Creates the folder under log_dir, named from the local time and a slug of title.
 * secret may be NULL. */
wa_err steplog_open(struct steplog *l, const char *log_dir, const char *title, const char *secret);
void steplog_close(struct steplog *l);

/* A progress line: agent.log and stderr. */
void steplog_progress(struct steplog *l, const char *fmt, ...) WA_PRINTF(2, 3);
/* A diagnostic line: agent.log only. */
void steplog_note(struct steplog *l, const char *fmt, ...) WA_PRINTF(2, 3);
/* Writes text to f (stdout: the final answer) with the secret replaced. */
void steplog_print(struct steplog *l, FILE *f, const char *text);
/* One trace.jsonl line (the object is not consumed); report.html is rewritten with it. */
void steplog_trace(struct steplog *l, const cJSON *obj);
/* Writes a step file; returns its name relative to the folder (heap), NULL on error.
 * name is e.g. "step-03-click+annotate.png"; an existing name gets "-2", "-3"... A name
 * that is no plain file name (letters, digits and "-_+.", no leading dot) is refused. */
char *steplog_save(struct steplog *l, const char *name, const void *data, size_t len);

/* "open-notepad-type-hello" from a prompt: ASCII letters and digits, at most 40. */
void steplog_slug(const char *title, char *out, size_t cap);

#endif
