/* winagent's platform-independent entry: argv is UTF-8 on every platform. */
#ifndef WINAGENT_AGENT_MAIN_H
#define WINAGENT_AGENT_MAIN_H

/* Runs the command line; returns the process exit code (SPEC §2). */
int winagent_main(int argc, char **argv);

#endif
