/* results.jsonl of a batch (docs/contract.md §6): one line per attempt at a task, read back, and
 * what its lines say of each task (how it ended, whether its first attempt passed) and
 * of them all (the tally, pass@1 and pass@N). Written by batch, read by its --resume,
 * by the index and the JUnit file, and merged by `winagent report BATCHDIR...`.
 *
 * A task's lines are taken in file order. A line whose attempt is 1 begins the task
 * anew (a task run again from its first attempt, as --resume does with one that
 * errored, replaces what came before); a task passed when an attempt of its latest
 * round passed, else it ended as its latest line says. */
#ifndef WINAGENT_AGENT_REPORT_RESULTS_H
#define WINAGENT_AGENT_REPORT_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/wa_err.h"

/* The field names of a line. */
#define RESULT_ID         "id"
#define RESULT_OUTCOME    "outcome"
#define RESULT_ATTEMPTS   "attempts"  /* the attempts made at the task so far, this one included */
#define RESULT_EXIT_CODE  "exit_code" /* null: no run ended (setup failed, never started) */
#define RESULT_STEPS      "steps"
#define RESULT_TOKENS     "tokens"
#define RESULT_TIME_S     "time_s"
#define RESULT_RUN_FOLDER "run_folder" /* relative to the folder of results.jsonl; "" for none */
#define RESULT_REASON     "reason"     /* what decided the outcome, when anything needs saying */
#define RESULT_BATCH      "batch"      /* merged: the batch folder, relative to the merged one */

/* X(ID, name): how a task ended, one word each (docs/contract.md §6). */
#define OUTCOME_MAP(X)                                                                             \
    X(PASS, "pass")       /* the run finished and its check exited 0 */                            \
    X(FAIL, "fail")       /* the check failed, or the run gave no final answer */                  \
    X(ERROR, "error")     /* setup, the model service or the run itself failed */                  \
    X(TIMEOUT, "timeout") /* the task's wall time ran out */                                       \
    X(BUDGET, "budget")   /* its token or time budget, or the batch's, was spent */                \
    X(NEEDS_CONFIRMATION, "needs_confirmation") /* an action needed a person's yes */              \
    X(STOPPED, "stopped") /* the person stopped it (the stop gesture, their input) */              \
    X(DRY_RUN, "dry_run") /* --dry-run: nothing was done, nothing judged */

enum outcome {
    OUT_NONE,
#define X_ENUM(id, name) OUT_##id,
    OUTCOME_MAP(X_ENUM)
#undef X_ENUM
        OUT__COUNT
};

/* "pass", ...; "" for OUT_NONE. */
const char *outcome_name(enum outcome o);
/* OUT_NONE for a word that is none of them. */
enum outcome outcome_by_name(const char *s);
/* The outcome of a run's exit code (exit.h) before any check: a run that finished is
 * OUT_PASS until its check says otherwise. Interruptions are the caller's to tell. */
enum outcome outcome_of_exit(int code);

/* One line, typed; json is the line itself (owned). */
struct result_line {
    cJSON *json;
    const char *id, *run_folder, *reason; /* into json; run_folder "" and reason NULL when absent */
    enum outcome outcome;
    int attempt;   /* 1 when the line gives none (written before attempts were counted) */
    int exit_code; /* -1 for none */
    int steps;
    long long tokens;
    double time_s;
};

struct results {
    struct result_line *lines;
    size_t n;
};

void results_init(struct results *r);
void results_cleanup(struct results *r);
/* Adds the lines of a results.jsonl text; a line that is not one whole record with an id
 * and a known outcome (the torn last line of a batch killed while writing it) is
 * skipped. WA_E_NOMEM only. */
wa_err results_parse(struct results *r, const char *text);
/* Adds a copy of one record; WA_E_USAGE when it is none. */
wa_err results_add(struct results *r, const cJSON *line);
/* DIR/results.jsonl into r: WA_E_NOT_FOUND when there is none. *unended (may be NULL)
 * is set when its last line has no line end. */
wa_err results_load(struct results *r, const char *dir, bool *unended);

/* A task as its lines tell it (the lines point into the results). */
struct task_state {
    const char *id;
    const struct result_line *first;  /* the first attempt of its latest round */
    const struct result_line *last;   /* its latest line */
    const struct result_line *passed; /* the attempt of that round that passed, or NULL */
    enum outcome outcome;             /* pass when one passed, else the latest line's */
    long long tokens;                 /* every attempt of the round */
    double time_s;
};

/* The state of the task id; false when no line names it. */
bool results_task(const struct results *r, const char *id, struct task_state *out);
/* Every task of r in the order of its first line: *out (free() it) and *n. */
wa_err results_tasks(const struct results *r, struct task_state **out, size_t *n);

struct tally {
    int tasks;
    int outcome[OUT__COUNT]; /* tasks by how they ended */
    int pass_first;          /* tasks whose first attempt passed: pass@1 */
    int attempts;            /* the most attempts a task had: the N of pass@N */
    long long tokens;        /* every attempt's */
    double time_s;
};

void tally_add(struct tally *t, const struct task_state *s);
/* The attempts a batch allowed (its --attempts), from DIR/batch.json; 0 when it says none.
 * The N of pass@N is that, or the most attempts a task had when that is more. */
int results_attempts_allowed(const char *dir);
/* "pass 4 fail 1 error 0 timeout 0", then each other outcome that some task had. */
void tally_line(const struct tally *t, char *out, size_t cap);
/* "pass@1 4/7" and, when a task had more than one attempt, ", pass@3 5/7". */
void tally_pass_at(const struct tally *t, char *out, size_t cap);

#endif
