/* winagent's entry point: picks the subcommand and hands over to its front end. */
#include <stdio.h>
#include <string.h>

#include "agent/front/cli.h"
#include "agent/front/doctor.h"
#include "agent/mcp/mcp_stdio.h"
#include "agent/front/models_cli.h"
#include "agent/front/run_cli.h"
#include "agent/front/serve.h"
#include "base/entry.h"
#include "agent/front/report_cli.h"
#include "base/version.h"

static const char usage_text[] =
    "usage:\n"
    "  winagent [options] \"<prompt>\"        run the autonomous loop; final answer on stdout\n"
    "  winagent --replay DIR/trace.jsonl    re-run a recorded run's tool calls without a model\n"
    "  winagent windows | tree | state | screenshot | click | fill | ...   the desktop as\n"
    "                                       commands (winagent COMMAND --help: one command)\n"
    "  winagent act '<desktop tool JSON>' [--window SEL] [-o FILE.png]   one tool call\n"
    "  winagent config                      every setting and where it came from\n"
    "  winagent models [--model NAME] [--markdown|--json]   what each model family takes,\n"
    "                                       and what a model resolves to\n"
    "  winagent doctor [--json]             the machine's health for an agent: session,\n"
    "                                       integrity, DPI, monitors, UAC, UI Automation,\n"
    "                                       the model server; a verdict per line\n"
    "  winagent help                        the manual for agents (SKILL.md)\n"
    "  winagent mcp [--http [ADDR:]PORT [--allow-remote] [--no-auth]]   MCP over stdio, or\n"
    "                                       Streamable HTTP at /mcp\n"
    "  winagent serve (--port N | --ipc-dir DIR)   the commands over TCP, or agent-rdp's\n"
    "                                       folder protocol\n"
    "      mcp and serve also take --allow-shell --dry-run --audit-log FILE --apps LIST\n"
    "  winagent report DIR|LOGDIR           (re)build a run's report.html, or the index of runs\n"
    "  winagent report BATCHDIR... [--out DIR] [--junit FILE]   a batch's index, or its shards\n"
    "                                       merged into one results.jsonl, index and JUnit file\n"
    "  winagent batch TASKS.jsonl [--resume] [--shard I/N] [--attempts N] [--junit FILE]\n"
    "                 [--batch-budget-tokens N] [--batch-budget-seconds N] [run options]\n"
    "                                       unattended tasks with checks (batch --help)\n"
    "  winagent --help | --version\n"
    "run options (docs/usage.md; each also an environment variable, see winagent config):\n"
    "  --provider openai-compatible|openai-responses|google|anthropic\n"
    "  --base-url URL --model NAME --tool-protocol auto|functions|computer|text\n"
    "  --coords auto|pixels|1000 --max-steps N --mode auto|a11y|pixel --max-edge PX\n"
    "  --history-images N --history auto|trim|append|server|drop-thinking\n"
    "  --max-output-tokens N --log-dir DIR --shell on|off|confirm --apps LIST --env-file FILE\n"
    "  --dry-run --no-stream --store --audit-log FILE\n"
    "  --budget-tokens N --budget-seconds N   what the run may spend: it stops (exit code 6)\n"
    "      before the model call that would pass it\n"
    "  --delivery foreground|background|auto   how input reaches windows (also for the\n"
    "      desktop commands, mcp and serve): background acts through patterns and window\n"
    "      messages, leaving the cursor, the foreground and the focus to the user\n"
    "  --takeover pause|stop|off --idle-seconds N   while a person uses the mouse or keyboard,\n"
    "      a run waits until they have been idle N s (pause) or ends (stop); the desktop\n"
    "      commands, mcp and serve refuse with user_active. The pointer held in the top-left\n"
    "      corner for half a second, or ctrl+alt+pause, stops winagent (exit code 8)\n"
    "  --unattended   nobody at the console: ask_user and confirmations get no answer\n";

/* Runs the command argv names; returns the exit code. */
static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("winagent %s (%s)\n", WINAGENT_VERSION, WINAGENT_TARGET);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "mcp") == 0)
        return cmd_mcp(argc - 1, argv + 1);
    if (strcmp(argv[1], "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(argv[1], "batch") == 0)
        return cmd_batch(argc - 1, argv + 1);
    if (strcmp(argv[1], "doctor") == 0)
        return cmd_doctor(argc - 1, argv + 1);
    if (strcmp(argv[1], "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (strcmp(argv[1], "models") == 0)
        return cmd_models(argc - 1, argv + 1);
    if (cli_is_command(argv[1]))
        return cli_main(argc - 1, argv + 1);
    /* Anything else is the run: options and one prompt, or --replay. A lone word that
     * is not a known command is most likely a mistyped command, not a task. */
    if (argc == 2 && argv[1][0] != '-' && !strchr(argv[1], ' ')) {
        fprintf(stderr, "winagent: unknown command '%s' (quote a task with spaces in it)\n",
                argv[1]);
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    return cmd_run(argc, argv);
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
