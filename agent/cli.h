/* Shared pieces of winagent's subcommands. */
#ifndef WINAGENT_AGENT_CLI_H
#define WINAGENT_AGENT_CLI_H

#include <stdbool.h>

#include "automation/backend.h"
#include "base/error.h"

/* Exit codes (SPEC §2). */
enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,  /* usage or configuration error (and failed CLI commands) */
    EXIT_LLM = 2,    /* LLM or network error after retries */
    EXIT_STEPS = 3,  /* step limit reached */
    EXIT_ACTION = 4, /* a desktop action failed fatally */
    EXIT_INTERRUPTED = 130,
};

/* Prints "winagent: <message>[: <detail>]" on stderr and returns EXIT_USAGE. */
int cli_fail(wa_err e);
/* The backend of this executable, initialised on first use; NULL after printing
 * the error when it cannot start. */
const struct wa_backend *cli_backend(void);

/* Shuts the backend down if cli_backend started it (lets its workers finish). */
void cli_shutdown(void);

/* Subcommands; argv[0] is the subcommand name. */
int cmd_windows(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_screenshot(int argc, char **argv);
int cmd_act(int argc, char **argv);

/* The command layer's front (agent/cli_ctl.c): state, click, fill, keys, ... and help. */
bool cli_ctl_is_command(const char *name);
int cmd_ctl(int argc, char **argv);

#endif
