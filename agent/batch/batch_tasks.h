/* A batch's tasks, read from its tasks file, and where each stands (batch_tasks.c). */
#ifndef WINAGENT_AGENT_BATCH_BATCH_TASKS_H
#define WINAGENT_AGENT_BATCH_BATCH_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/run/budget.h"
#include "agent/run/config.h"
#include "agent/report/results.h"
#include "base/wa_err.h"

struct core;
struct session;

/* One line of the tasks file. */
struct batch_task {
    char *id, *prompt, *check, *setup;
    char *apps;    /* its allow-list (within the batch's), or NULL */
    int max_steps; /* 0: the batch's */
    double timeout_s;
    struct budget budget; /* its line's; 0: the run setting's */
};

/* What the command line asks of a batch beside the run options. */
struct batch_opts {
    bool resume;
    int shard_i, shard_n; /* the I-th of N parts (1-based); 0/0: every task */
    int attempts;         /* tries of a task that did not pass */
    const char *junit;    /* JUnit XML to write, or NULL */
    struct budget whole;  /* what the whole batch may spend */
};

/* A batch being run (or checked): its tasks, folder, results and budget. */
struct batch {
    struct agent_config *cfg;
    struct batch_opts opt;
    struct batch_task *tasks; /* the tasks of this shard */
    size_t n;
    size_t in_file;     /* tasks in the file, every shard's */
    char *dir;          /* LOGDIR/batch-... */
    char suite[96];     /* the JUnit suite: the file's name, and the shard */
    struct results res; /* every line of results.jsonl, read and written */
    int *next_attempt;  /* per task: the attempt it starts at; 0 when it is done (resume) */
    struct core *core;  /* setup and check commands */
    struct session *ses;
    int64_t started_ms;     /* this batch's start: the time of its budget */
    long long spent_tokens; /* by this batch's runs: the tokens of its budget */
};

/* Frees n tasks and the array. */
void batch_tasks_free(struct batch_task *t, size_t n);

/* The tasks of a tasks file's text (modified in place) into b; file names it in errors. */
wa_err batch_tasks_parse(char *text, const char *file, struct batch *b);

/* The tasks of the file named, into b. */
wa_err batch_tasks_load(const char *file, struct batch *b);

/* Keeps the tasks of shard i of n, in their order; the others are freed. */
void batch_tasks_select_shard(struct batch *b, int i, int n);

/* Where each task starts, from the results read: a task that passed, or failed with every
 * attempt made, is done (0); one that failed with attempts left goes on with the next;
 * every other (errored, timed out, never judged) starts again from its first attempt. */
wa_err batch_tasks_place(struct batch *b);

/* The tally of this batch's tasks (those of the file and shard) from its results. */
void batch_tasks_tally(const struct batch *b, struct tally *t);

/* batch.json: the tasks file and where the batch stood. */
void batch_tasks_write_state(const struct batch *b, const char *file, const char *state,
                             const char *at);

/* The JUnit file of --junit, from every result so far. */
void batch_tasks_write_junit(const struct batch *b);

/* The shard (1..n) of the task id among n: the same for an id on every machine. */
int batch_shard_of(const char *id, int n);

#endif
