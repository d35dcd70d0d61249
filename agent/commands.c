/* The table of winagent's subcommands, the lookup the entry dispatches by, and the usage
 * text made from it and from the settings table. */
#include "agent/commands.h"

#include <stdbool.h>
#include <string.h>

#include "agent/core/config/settings.h"
#include "agent/core/request/exit.h"
#include "agent/core/request/ops.h"
#include "agent/front/cli.h"
#include "agent/front/doctor.h"
#include "agent/front/models_cli.h"
#include "agent/front/report_cli.h"
#include "agent/front/run_cli.h"
#include "agent/front/serve.h"
#include "agent/mcp/mcp_stdio.h"
#include "base/version.h"

#define WIDTH       88 /* columns of the usage text */
#define WHAT_COL    39 /* where a command's description starts */
#define HELP_COL    26 /* where an option's help starts */
#define SYNOPSIS_AT 11 /* where a synopsis starts: after "  winagent " */

static int commands_help(int argc, char **argv);
static int commands_version(int argc, char **argv);

static const struct command commands[] = {
    {.takes = COMMAND_REST,
     .run = cmd_run,
     .forms = {{"[options] \"<prompt>\"", "run the autonomous loop; final answer on stdout"},
               {"--replay DIR/trace.jsonl", "re-run a recorded run's tool calls (no model)"}}},
    {.takes = COMMAND_OPS,
     .run = cli_main,
     .forms = {{NULL, "the desktop as commands (winagent COMMAND --help: one command)"}}},
    {.name = "act",
     .run = cmd_act,
     .forms = {{"act '<desktop tool JSON>' [--window SEL] [-o FILE.png]", "one tool call"}}},
    {.name = "config",
     .run = cmd_config,
     .forms = {{"config", "every setting and where it came from"}}},
    {.name = "models",
     .run = cmd_models,
     .forms = {{"models [--model NAME] [--markdown|--json]",
                "what each model family takes, and what a model resolves to"}}},
    {.name = "doctor",
     .run = cmd_doctor,
     .forms = {{"doctor [--json]",
                "the machine's health for an agent: session, integrity, DPI, monitors, UAC, "
                "UI Automation, the model server; a verdict per line"}}},
    {.name = "help", .run = cmd_help, .forms = {{"help", "the manual for agents (SKILL.md)"}}},
    {.name = "mcp",
     .run = cmd_mcp,
     .forms = {{"mcp [--http [ADDR:]PORT [--allow-remote] [--allow-host NAMES] [--no-auth]]",
                "MCP over stdio, or Streamable HTTP at /mcp"}}},
    {.name = "serve",
     .run = cmd_serve,
     .forms = {{"serve (--port N | --ipc-dir DIR)",
                "the commands over TCP, or agent-rdp's folder protocol"}}},
    {.name = "report",
     .run = cmd_report,
     .forms = {{"report DIR|LOGDIR", "(re)build a run's report.html, or the index of runs"},
               {"report BATCHDIR... [--out DIR] [--junit FILE]",
                "a batch's index, or its shards merged into one results.jsonl, index and "
                "JUnit file"}}},
    {.name = "batch",
     .run = cmd_batch,
     .forms = {{"batch TASKS.jsonl [--resume] [--shard I/N] [--attempts N] [--junit FILE]\n"
                "      [--batch-budget-tokens N] [--batch-budget-seconds N] [run options]",
                "unattended tasks with checks (batch --help)"}}},
    {.name = "--help", .alias = "-h", .run = commands_help, .forms = {{"--help", "this text"}}},
    {.name = "--version",
     .run = commands_version,
     .forms = {{"--version", "the version and the system it was built for"}}},
};

#define COMMANDS_COUNT (sizeof commands / sizeof commands[0])

const struct command *command_at(size_t i)
{
    return i < COMMANDS_COUNT ? &commands[i] : NULL;
}

const struct command *commands_find(const char *word)
{
    const struct command *rest = NULL;
    for (size_t i = 0; i < COMMANDS_COUNT; i++) {
        const struct command *c = &commands[i];
        if (c->takes == COMMAND_REST)
            rest = c;
        else if (c->takes == COMMAND_OPS
                     ? cli_is_command(word)
                     : strcmp(word, c->name) == 0 || (c->alias && strcmp(word, c->alias) == 0))
            return c;
    }
    return rest;
}

static int commands_help(int argc, char **argv)
{
    (void)argc, (void)argv;
    commands_print_usage(stdout);
    return EXIT_OK;
}

static int commands_version(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("winagent %s (%s)\n", WINAGENT_VERSION, WINAGENT_TARGET);
    return EXIT_OK;
}

/* ---- the usage text ---- */

/* The column the text of b's last line ends at. */
static size_t column(const struct dynbuf *b)
{
    const char *s = dynbuf_str(b), *nl = strrchr(s, '\n');
    return b->len - (nl ? (size_t)(nl + 1 - s) : 0);
}

static wa_err pad(struct dynbuf *b, size_t to)
{
    wa_err e = WA_E_OK;
    for (size_t at = column(b); !e && at < to; at++)
        e = dynbuf_addc(b, ' ');
    return e;
}

/* Appends text's words, separated by one space, starting where b's last line ends and
 * going on to new lines indented to col so that no line passes WIDTH (a word longer
 * than a line stands alone). Ends without a newline. */
static wa_err wrap(struct dynbuf *b, const char *text, size_t col)
{
    wa_err e = WA_E_OK;
    bool first = true;
    for (const char *p = text; !e && *p;) {
        p += strspn(p, " ");
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        if (!first && column(b) + 1 + n > WIDTH) {
            e = dynbuf_addc(b, '\n');
            if (!e)
                e = pad(b, col);
        } else if (!first)
            e = dynbuf_addc(b, ' ');
        if (!e)
            e = dynbuf_add(b, p, n);
        first = false;
        p += n;
    }
    return e;
}

/* "LEFT  RIGHT": right at col on left's last line when two spaces fit before it, else
 * on the next line; right wrapped at col; then a newline. */
static wa_err two_columns(struct dynbuf *b, size_t col, const char *right)
{
    wa_err e = WA_E_OK;
    if (column(b) + 2 > col)
        e = dynbuf_addc(b, '\n');
    if (!e)
        e = pad(b, col);
    if (!e)
        e = wrap(b, right, col);
    return e ? e : dynbuf_addc(b, '\n');
}

/* "screenshot | tree | state | ...": the operation table's command names, in its order,
 * each line ending in " |" when the list goes on (room is kept for it). */
static wa_err op_names(struct dynbuf *b)
{
    wa_err e = WA_E_OK;
    bool first = true;
    for (int i = 0; !e && i < OP__COUNT; i++) {
        const char *cli = op_def((enum op_id)i)->cli;
        if (!cli)
            continue;
        if (!first && column(b) + strlen(" | ") + strlen(cli) + strlen(" |") > WIDTH) {
            e = dynbuf_adds(b, " |\n");
            if (!e)
                e = pad(b, SYNOPSIS_AT);
        } else if (!first)
            e = dynbuf_adds(b, " | ");
        if (!e)
            e = dynbuf_adds(b, cli);
        first = false;
    }
    return e;
}

static wa_err usage_form(struct dynbuf *b, const struct command_form *f)
{
    wa_err e = dynbuf_adds(b, "  winagent ");
    if (!f->synopsis)
        e = e ? e : op_names(b);
    for (const char *p = f->synopsis; !e && p && *p;) {
        size_t n = strcspn(p, "\n");
        e = dynbuf_add(b, p, n);
        p += n;
        if (!e && *p == '\n') {
            p++;
            e = dynbuf_addc(b, '\n');
            if (!e)
                e = pad(b, SYNOPSIS_AT);
        }
    }
    return e ? e : two_columns(b, WHAT_COL, f->what);
}

/* "  --flag VALUE" and its help. */
static wa_err usage_option(struct dynbuf *b, const char *flag, const char *value, const char *help)
{
    wa_err e = dynbuf_addf(b, "  --%s%s%s", flag, value ? " " : "", value ? value : "");
    return e ? e : two_columns(b, HELP_COL, help);
}

/* Every setting with a flag whose groups are exactly `groups`, or (all) meet them. */
static wa_err usage_settings(struct dynbuf *b, unsigned groups, bool all)
{
    wa_err e = WA_E_OK;
    for (int i = 0; !e && i < SET__COUNT; i++) {
        const struct setting_def *d = setting_def((enum setting_id)i);
        if (d->flag && (all ? (d->groups & groups) != 0 : d->groups == groups))
            e = usage_option(b, d->flag, d->value, d->help);
    }
    return e;
}

/* "and the run's --dry-run --delivery ...": the run options the desktop's front ends take
 * too (their help is given among the run options). */
static wa_err usage_shared(struct dynbuf *b)
{
    struct dynbuf line;
    dynbuf_init(&line, 4096);
    wa_err e = dynbuf_adds(&line, "and the run options");
    for (int i = 0; !e && i < SET__COUNT; i++) {
        const struct setting_def *d = setting_def((enum setting_id)i);
        if (d->flag && (d->groups & SG_RUN) && (d->groups & SG_DESK))
            e = dynbuf_addf(&line, " --%s", d->flag);
    }
    if (!e)
        e = dynbuf_adds(b, "  ");
    if (!e)
        e = wrap(b, dynbuf_str(&line), 4);
    dynbuf_cleanup(&line);
    return e ? e : dynbuf_addc(b, '\n');
}

wa_err commands_usage(struct dynbuf *b)
{
    wa_err e = dynbuf_adds(b, "usage:\n");
    for (size_t i = 0; !e && i < COMMANDS_COUNT; i++)
        for (int k = 0; !e && k < COMMAND_FORMS && commands[i].forms[k].what; k++)
            e = usage_form(b, &commands[i].forms[k]);
    if (!e)
        e = dynbuf_adds(b, "run options (docs/usage.md; most also an environment variable, see "
                           "winagent config):\n");
    if (!e)
        e = usage_settings(b, SG_RUN, true);
    /* Not a setting: it names the file the settings are read from, before any of them
     * (settings_load), for every subcommand. */
    if (!e)
        e = usage_option(b, "env-file", "FILE",
                         "the .env file to read (also WINAGENT_ENV_FILE); a .env in the working "
                         "folder sets the key, the base URL, the shell and the paths only when "
                         "named here");
    if (!e)
        e = dynbuf_adds(b, "options of act, the desktop commands, mcp and serve:\n");
    if (!e)
        e = usage_settings(b, SG_DESK, false);
    if (!e)
        e = usage_shared(b);
    /* Not an option: the stop that no setting turns off. */
    if (!e)
        e = wrap(b,
                 "the pointer held in the top-left corner for half a second, or "
                 "ctrl+alt+pause, stops winagent (exit code 8)",
                 0);
    return e ? e : dynbuf_addc(b, '\n');
}

void commands_print_usage(FILE *f)
{
    struct dynbuf b;
    dynbuf_init(&b, 1 << 16);
    if (commands_usage(&b) == WA_E_OK)
        fputs(dynbuf_str(&b), f);
    dynbuf_cleanup(&b);
}
