/* The program's platform-independent entry, below every layer so that a platform's own
 * entry point (wmain in agent/main_win.c) can call it: argv is UTF-8 on every platform.
 * The program defines it (agent/main.c). */
#ifndef WINAGENT_BASE_ENTRY_H
#define WINAGENT_BASE_ENTRY_H

/* Runs the command line; returns the process exit code (docs/contract.md §2). */
int winagent_main(int argc, char **argv);

#endif
