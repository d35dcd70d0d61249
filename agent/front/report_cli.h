/* `winagent report DIR|LOGDIR` (docs/contract.md §2). */
#ifndef WINAGENT_AGENT_RUN_REPORT_CLI_H
#define WINAGENT_AGENT_RUN_REPORT_CLI_H

/* argv[0] is "report". Rebuilds DIR/report.html or writes LOGDIR/index.html and
 * prints the path written; returns the exit code (1 for a usage error). */
int cmd_report(int argc, char **argv);

#endif
