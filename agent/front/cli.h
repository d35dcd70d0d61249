/* The command line for people and agents: every operation of the table as a
 * subcommand (`winagent state`, `click 3`, `fill 4 "text"`, ...), plus `act`, `config`
 * and `help`, and what every front end's subcommand shares (the backend, the core). */
#ifndef WINAGENT_AGENT_FRONT_CLI_H
#define WINAGENT_AGENT_FRONT_CLI_H

#include <stdbool.h>

#include "agent/core/core.h"
#include "agent/core/request/exit.h"
#include "agent/core/host.h"
#include "automation/backend.h"
#include "base/wa_err.h"

/* Whether name is a command of the table's CLI, `act`, `config` or `help`. */
bool cli_is_command(const char *name);
/* Runs one of them; argv[0] is the command. Returns the exit code. */
int cli_main(int argc, char **argv);

/* The usage line of an operation ("click [REF] [--window SEL] ..."), for help texts. */
void cli_usage(const struct op_def *op, char *out, size_t cap);

#endif
