/* `winagent batch TASKS.jsonl [--resume] [--shard I/N] [--attempts N] [--junit FILE]
 * [--batch-budget-tokens N] [--batch-budget-seconds N] [run options]`: unattended tasks,
 * one per line ({"id", "prompt", "check"?, "setup"?, "max_steps"?, "timeout_s"?,
 * "budget_tokens"?, "budget_seconds"?}), each run by the loop into its own folder inside
 * LOGDIR/batch-<yyyymmdd-hhmmss>-<name>/, which also holds results.jsonl (one line per
 * attempt, agent/report/results.h), batch.json (where the batch stood) and index.html. A
 * task passes when its run ends with a final answer and its check (a shell command, the
 * same shell as the powershell tool) exits 0. --shard runs the I-th of N parts of the
 * file, chosen by a hash of each task's id; --attempts runs a task that did not pass
 * again; --junit writes the results as JUnit XML (agent/report/junit.h). Exit code 0 when
 * every task passed, 5 when one did not, 1 on a usage error, 130 when interrupted. */
#ifndef WINAGENT_AGENT_BATCH_BATCH_H
#define WINAGENT_AGENT_BATCH_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/batch/batch_tasks.h"
#include "agent/run/config.h"
#include "agent/report/results.h"
#include "base/dynbuf.h"
#include "base/wa_err.h"

/* Runs the batch of the tasks file cfg->prompt names, with cfg's run settings (the
 * command line, agent/front/run_cli.c, fills both); returns the exit code. */
int batch_run(const struct batch_opts *o, struct agent_config *cfg);

/* What batch_check_tasks is to do as `winagent batch` would. */
struct batch_check_opts {
    int shard_i, shard_n; /* --shard I/N; 0/0: every task */
    int attempts;         /* --attempts (0: 1) */
    struct dynbuf *junit; /* receives the JUnit XML of the results; NULL: none made */
};

struct batch_check {
    size_t in_file; /* tasks in the file */
    size_t tasks;   /* of them, in the shard */
    size_t done;    /* of those, what --resume would keep */
    struct tally tally;
};

/* Parses the text of a tasks file (modified in place) as `winagent batch` does, keeps
 * the shard's tasks, then reads results (a results.jsonl text; NULL for none) against
 * them as --resume does, and makes the JUnit XML of the results. The error names the
 * first bad line. Nothing runs: for tests and the fuzz target. */
wa_err batch_check_tasks(char *text, const char *results, const struct batch_check_opts *o,
                         struct batch_check *out);

#endif
