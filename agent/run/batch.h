/* `winagent batch TASKS.jsonl [--resume] [run options]`: unattended tasks, one per line
 * ({"id", "prompt", "check"?, "setup"?, "max_steps"?, "timeout_s"?}), each run by the
 * loop into its own folder inside LOGDIR/batch-<yyyymmdd-hhmmss>-<name>/, which also
 * holds results.jsonl, batch.json (where the batch stood) and index.html. A task passes
 * when its run ends with a final answer and its check (a shell command, the same shell
 * as the powershell tool) exits 0. Exit code 0 when every task passed, 5 when one did
 * not, 1 on a usage error, 130 when interrupted. */
#ifndef WINAGENT_AGENT_RUN_BATCH_H
#define WINAGENT_AGENT_RUN_BATCH_H

int cmd_batch(int argc, char **argv);

#endif
