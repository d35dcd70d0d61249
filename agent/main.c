/* winagent's entry point: picks the subcommand and hands over to its front end. */
#include <stdio.h>
#include <string.h>

#include "agent/commands.h"
#include "agent/core/host.h"
#include "agent/core/request/exit.h"
#include "base/entry.h"

/* Runs the command argv names (agent/commands.c's table); returns the exit code. */
static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        commands_print_usage(stderr);
        return EXIT_USAGE;
    }
    const struct command *c = commands_find(argv[1]);
    if (c->takes != COMMAND_REST)
        return c->run(argc - 1, argv + 1);
    /* Anything else is the run: options and one prompt, or --replay. A lone word that
     * is not a known command is most likely a mistyped command, not a task. */
    if (argc == 2 && argv[1][0] != '-' && !strchr(argv[1], ' ')) {
        fprintf(stderr, "winagent: unknown command '%s' (quote a task with spaces in it)\n",
                argv[1]);
        commands_print_usage(stderr);
        return EXIT_USAGE;
    }
    return c->run(argc, argv);
}

int winagent_main(int argc, char **argv)
{
    int code = run_command(argc, argv);
    /* What the command said goes out now: into a pipe it sits in the C runtime's
     * buffer until the exit, after the backend's shutdown (which waits for workers). */
    fflush(stdout);
    fflush(stderr);
    host_shutdown(); /* lets backend workers finish before the process exits */
    return code;
}

#ifndef _WIN32
/* On Windows the entry is wmain in agent/main_win.c (UTF-16 -> UTF-8). */
int main(int argc, char **argv)
{
    return winagent_main(argc, argv);
}
#endif
