/* winagent's entry point: picks the subcommand and hands over to its module. */
#include <stdio.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/loop.h"
#include "agent/main.h"
#include "agent/mcp.h"
#include "agent/run/report_cli.h"
#include "agent/serve.h"
#include "agent/version.h"

static const char usage_text[] =
    "usage:\n"
    "  winagent [options] \"<prompt>\"        run the autonomous loop; final answer on stdout\n"
    "  winagent windows [--json]            list top-level windows\n"
    "  winagent tree [--window SEL] [--json] [--verbose]\n"
    "  winagent screenshot [--window SEL] [--max-edge N] -o FILE.png\n"
    "  winagent act '<desktop tool JSON>' [--window SEL]\n"
    "  winagent mcp [--allow-shell] [--dry-run] [--audit-log FILE]   MCP server on stdio\n"
    "  winagent serve (--port N | --ipc-dir DIR) [--allow-shell] [--dry-run] [--audit-log FILE]\n"
    "  winagent --replay DIR/trace.jsonl\n"
    "  winagent report DIR|LOGDIR            (re)build a run's report.html, or the index of runs\n"
    "  winagent --help | --version\n";

/* Runs the command argv names; returns the exit code. */
static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return 1;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("winagent %s (%s)\n", WINAGENT_VERSION, WINAGENT_TARGET);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } commands[] = {
        {"windows", cmd_windows}, {"tree", cmd_tree}, {"screenshot", cmd_screenshot},
        {"act", cmd_act},         {"mcp", cmd_mcp},   {"serve", cmd_serve},
        {"report", cmd_report},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    if (cli_ctl_is_command(argv[1]))
        return cmd_ctl(argc - 1, argv + 1);
    /* Anything else is the run: options and one prompt, or --replay. A lone word that
     * is not a known command is most likely a mistyped command, not a task. */
    if (argc == 2 && argv[1][0] != '-' && !strchr(argv[1], ' ')) {
        fprintf(stderr, "winagent: unknown command '%s' (quote a task with spaces in it)\n",
                argv[1]);
        fputs(usage_text, stderr);
        return 1;
    }
    return cmd_run(argc, argv);
}

int winagent_main(int argc, char **argv)
{
    int code = run_command(argc, argv);
    cli_shutdown(); /* lets backend workers finish before the process exits */
    return code;
}

#ifndef _WIN32
/* On Windows the entry is wmain in automation/win/win_entry.c (UTF-16 -> UTF-8). */
int main(int argc, char **argv)
{
    return winagent_main(argc, argv);
}
#endif
