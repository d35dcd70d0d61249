/* The command lines of the run (`winagent [options] "<prompt>"`, `--replay`) and of
 * `winagent batch`: parsed here, run by agent/run (loop.h, replay.h, batch.h). */
#ifndef WINAGENT_AGENT_FRONT_RUN_CLI_H
#define WINAGENT_AGENT_FRONT_RUN_CLI_H

/* `winagent [options] "<prompt>"` or `winagent --replay DIR/trace.jsonl` (argv[0] the
 * program): the loop, or the replay; returns the exit code. */
int cmd_run(int argc, char **argv);
/* `winagent batch TASKS.jsonl [batch options] [run options]` (argv[0] "batch"); returns
 * the exit code. */
int cmd_batch(int argc, char **argv);

#endif
