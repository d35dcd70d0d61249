/* `winagent batch TASKS.jsonl [--resume] [run options]`: unattended tasks, one per line
 * ({"id", "prompt", "check"?, "setup"?, "max_steps"?, "timeout_s"?}), each run by the
 * loop into its own folder inside LOGDIR/batch-<yyyymmdd-hhmmss>-<name>/, which also
 * holds results.jsonl, batch.json (where the batch stood) and index.html. A task passes
 * when its run ends with a final answer and its check (a shell command, the same shell
 * as the powershell tool) exits 0. Exit code 0 when every task passed, 5 when one did
 * not, 1 on a usage error, 130 when interrupted. */
#ifndef WINAGENT_AGENT_RUN_BATCH_H
#define WINAGENT_AGENT_RUN_BATCH_H

#include <stddef.h>

#include "base/error.h"

int cmd_batch(int argc, char **argv);

/* Parses the text of a tasks file (modified in place) as `winagent batch` does, then
 * results (a results.jsonl text; NULL for none) against its tasks as --resume does; the
 * number of tasks read in *n_tasks. The error names the first bad line. Nothing runs:
 * for tests and the fuzz target. */
wa_err batch_check_tasks(char *text, const char *results, size_t *n_tasks);

#endif
