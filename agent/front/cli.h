/* The command line for people and agents: every operation of the table as a
 * subcommand (`winagent state`, `click 3`, `fill 4 "text"`, ...), plus `act`, `config`
 * and `help`, and what every front end's subcommand shares (the backend, the core). */
#ifndef WINAGENT_AGENT_FRONT_CLI_H
#define WINAGENT_AGENT_FRONT_CLI_H

#include <stdbool.h>

#include "agent/core/core.h"
#include "automation/backend.h"
#include "base/error.h"

/* Exit codes (SPEC §2). */
enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,  /* usage or configuration error (and failed CLI commands) */
    EXIT_LLM = 2,    /* LLM or network error after retries */
    EXIT_STEPS = 3,  /* step limit reached */
    EXIT_ACTION = 4, /* a desktop action failed fatally */
    EXIT_BATCH = 5,  /* batch: a task did not pass */
    EXIT_INTERRUPTED = 130,
};

/* Prints "winagent: <message>[: <detail>]" on stderr and returns EXIT_USAGE. */
int cli_fail(wa_err e);
/* The backend of this executable, initialised on first use; NULL after printing
 * the error when it cannot start. */
const struct wa_backend *cli_backend(void);
/* Shuts the backend down if cli_backend started it (lets its workers finish). */
void cli_shutdown(void);

/* The process's core from the resolved settings (the backend started first); prints
 * the error and returns NULL when it cannot be had. loop: the run's shell policy. */
struct core *cli_core(const struct settings *s, bool loop);

/* Whether name is a command of the table's CLI, `act`, `config` or `help`. */
bool cli_is_command(const char *name);
/* Runs one of them; argv[0] is the command. Returns the exit code. */
int cli_main(int argc, char **argv);

/* The usage line of an operation ("click [REF] [--window SEL] ..."), for help texts. */
void cli_usage(const struct op_def *op, char *out, size_t cap);

#endif
