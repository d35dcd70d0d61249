/* winagent's subcommands as one table: the word that picks each, the function that runs
 * it and its usage lines. The entry's dispatch (agent/main.c) and `winagent --help` are
 * both made from it, the help's options from the settings table
 * (agent/core/config/settings.h). */
#ifndef WINAGENT_AGENT_COMMANDS_H
#define WINAGENT_AGENT_COMMANDS_H

#include <stdio.h>

#include "base/dynbuf.h"
#include "base/wa_err.h"

/* How a row is picked by the command line's first word. */
enum command_takes {
    COMMAND_NAME, /* its name or its alias */
    COMMAND_OPS,  /* the command name of an operation (cli_is_command): the desktop commands */
    COMMAND_REST, /* anything else: the run (options and a prompt, or --replay) */
};

/* One usage line: "winagent " synopsis, then what it does. A '\n' in synopsis continues
 * it on the next line, under the command's name. */
struct command_form {
    const char *synopsis, *what;
};

#define COMMAND_FORMS 3

struct command {
    enum command_takes takes;
    const char *name, *alias; /* COMMAND_NAME only; alias may be NULL */
    /* Runs it and returns the exit code. argv[0] is the command's word; the run, which
     * has none, gets the whole command line (argv[0] the program). */
    int (*run)(int argc, char **argv);
    /* Its usage lines, ending at the first without a `what`. A NULL synopsis (the
     * COMMAND_OPS row's) is the operation table's command names. */
    struct command_form forms[COMMAND_FORMS];
};

/* The i-th row, in the order of the usage; NULL past the last. */
const struct command *command_at(size_t i);
/* The row that takes word (argv[1]): never NULL, the run's when no other takes it. */
const struct command *commands_find(const char *word);

/* The usage text (`winagent --help`): the commands, the run options and the desktop
 * commands' options from the settings table, wrapped to 88 columns; appended to b. */
wa_err commands_usage(struct dynbuf *b);
/* The usage text on f (nothing when out of memory). */
void commands_print_usage(FILE *f);

#endif
