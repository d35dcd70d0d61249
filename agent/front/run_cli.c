/* The command lines of the run and of the batch: `winagent [options] "<prompt>"`,
 * `winagent --replay DIR/trace.jsonl` and `winagent batch TASKS.jsonl [...]`, parsed
 * into the run's configuration and the batch's options, then handed to agent/run. */
#include "agent/front/run_cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/request/exit.h"
#include "agent/batch/batch.h"
#include "agent/run/config.h"
#include "agent/run/loop.h"
#include "agent/run/replay.h"
#include "base/args.h"
#include "base/str.h"

#define SHARDS_MAX   1000
#define ATTEMPTS_MAX 100

static wa_err read_settings(struct agent_config *c)
{
    const struct settings *s = &c->settings;
    wa_err e = WA_E_OK;
    int tokens;
    const char *provider = settings_get(s, SET_PROVIDER);
    if (llm_provider_from_name(provider, &c->provider) != WA_E_OK)
        return wa_fail(WA_E_CONFIG,
                       "LLM_PROVIDER must be openai-compatible, openai-responses, google or "
                       "anthropic, not '%s' (from %s)",
                       provider, setting_source_name(s, SET_PROVIDER));
    const char *proto = settings_get(s, SET_TOOL_PROTOCOL);
    if (llm_tool_protocol_from_name(proto, &c->tool_protocol) != WA_E_OK)
        return wa_fail(
            WA_E_CONFIG,
            "tool protocol must be auto, functions, computer or text, not '%s' (from %s)", proto,
            setting_source_name(s, SET_TOOL_PROTOCOL));
    const char *coords = settings_get(s, SET_COORDS);
    if (llm_coords_choice_from_name(coords, &c->coords) != WA_E_OK)
        return wa_fail(WA_E_CONFIG, "coords must be auto, pixels or 1000, not '%s' (from %s)",
                       coords, setting_source_name(s, SET_COORDS));
    c->base_url = settings_get(s, SET_BASE_URL);
    c->model = settings_get(s, SET_MODEL);
    c->api_key = settings_get(s, SET_API_KEY);
    c->log_dir = settings_get(s, SET_LOG_DIR);
    c->dry_run = settings_on(s, SET_DRY_RUN);
    c->stream = settings_on(s, SET_STREAM);
    if ((e = settings_switch(s, SET_STORE, &c->store)))
        return e;
    const char *mode = settings_get(s, SET_MODE);
    if (obs_mode_parse(mode, &c->mode) != WA_E_OK)
        return wa_fail(WA_E_CONFIG, "mode must be auto, a11y or pixel, not '%s' (from %s)", mode,
                       setting_source_name(s, SET_MODE));
    c->max_edge_set = s->source[SET_MAX_EDGE] != SRC_DEFAULT;
    if ((e = config_history_parse(settings_get(s, SET_HISTORY), &c->history))) {
        char why[200];
        snprintf(why, sizeof why, "%s", wa_err_detail());
        return wa_fail(WA_E_CONFIG, "%s (from %s)", why, setting_source_name(s, SET_HISTORY));
    }
    if ((e = settings_int(s, SET_MAX_STEPS, 1, 10000, 30, &c->max_steps)) ||
        (e = settings_int(s, SET_MAX_OUTPUT_TOKENS, 1, 1000000, 0, &c->max_output_tokens)) ||
        (e = settings_int(s, SET_MAX_EDGE, 64, 8192, 1280, &c->max_edge)) ||
        (e = settings_int(s, SET_HISTORY_IMAGES, 0, 100, 3, &c->history_images)) ||
        (e = settings_int(s, SET_LLM_RETRIES, 0, 20, -1, &c->llm_retries)) ||
        (e = settings_int(s, SET_LLM_MAX_WAIT_MS, 1, 3600000, 0, &c->llm_max_wait_ms)) ||
        (e = settings_int(s, SET_LLM_TIMEOUT_S, 1, 3600, 0, &c->llm_timeout_s)) ||
        (e = settings_int(s, SET_BUDGET_TOKENS, 1, INT_MAX, 0, &tokens)) ||
        (e = settings_num(s, SET_BUDGET_SECONDS, 1, 31536000, 0, &c->budget.seconds)))
        return e;
    c->budget.tokens = tokens;
    return WA_E_OK;
}

/* Parses the run's command line (argv[0] is the program) and fills c. On a usage or
 * configuration error returns WA_E_USAGE / WA_E_CONFIG with the detail saying what
 * to fix. c must be cleaned up either way. */
static wa_err load_config(int argc, char **argv, struct agent_config *c)
{
    memset(c, 0, sizeof *c);
    struct args a;
    args_init(&a, argc, argv, 1);
    const char *f_replay = args_value(&a, "replay", NULL);
    wa_err e = settings_load(&c->settings, &a, SG_RUN);
    if (e || (e = args_check_unknown(&a)))
        return e;
    int npos = args_positional_count(&a);
    if (f_replay) {
        if (npos > 0)
            return wa_fail(WA_E_USAGE, "--replay takes no prompt");
        c->replay = str_dup(f_replay);
    } else if (npos != 1) {
        return wa_fail(WA_E_USAGE, npos == 0 ? "no task given: winagent [options] \"<prompt>\""
                                             : "give the task as one argument (quote it)");
    } else {
        c->prompt = str_dup(args_positional(&a, 0));
        if (!c->prompt || !*c->prompt)
            return wa_fail(WA_E_USAGE, "the task is empty");
    }
    if ((e = read_settings(c)) || c->replay)
        return e;
    const char *where = "(a flag, the environment or .env)";
    if (!c->model)
        return wa_fail(WA_E_CONFIG, "LLM_MODEL is not set: use --model or set LLM_MODEL %s", where);
    if (c->provider == LLM_PROVIDER_OPENAI && !c->base_url)
        return wa_fail(WA_E_CONFIG,
                       "LLM_BASE_URL is not set: the openai-compatible provider needs the "
                       "server's base URL, e.g. https://api.openai.com/v1 (--base-url or "
                       "LLM_BASE_URL %s)",
                       where);
    if ((e = llm_protocol_choose(c->provider, c->model, c->tool_protocol, c->coords, &c->protocol)))
        return e;
    const char *why;
    c->history = config_history_settle(c, &why);
    /* a grounding model reads screenshots only: its observations are images */
    if (c->protocol.grammar == LLM_TEXT_UITARS && c->mode == OBS_AUTO)
        c->mode = OBS_PIXEL;
    return WA_E_OK;
}

int cmd_run(int argc, char **argv)
{
    struct agent_config cfg;
    wa_err e = load_config(argc, argv, &cfg);
    int code;
    if (e)
        code = exit_fail(e);
    else if (cfg.replay)
        code = replay_run(&cfg);
    else
        code = agent_run(&cfg, NULL);
    config_cleanup(&cfg);
    return code;
}

static const char batch_usage[] =
    "usage: winagent batch TASKS.jsonl [--resume] [--shard I/N] [--attempts N] [--junit FILE]\n"
    "                      [--batch-budget-tokens N] [--batch-budget-seconds N] [run options]\n"
    "  one task per line: {\"id\", \"prompt\", \"check\"?, \"setup\"?, \"max_steps\"?, "
    "\"timeout_s\"?,\n"
    "                      \"budget_tokens\"?, \"budget_seconds\"?}\n"
    "  --resume      continue the latest batch of that file (and shard): tasks that passed,\n"
    "                or failed every attempt, are kept; the others run again\n"
    "  --shard I/N   run only the I-th of N parts of the tasks (1-based), chosen by a hash\n"
    "                of each task's id: every task is in exactly one part, always the same\n"
    "  --attempts N  run a task that did not pass again, its setup first, up to N times\n"
    "                (default 1); results.jsonl has every attempt, the tally pass@1 and\n"
    "                pass@N\n"
    "  --junit FILE  also write the results as JUnit XML, for CI systems\n"
    "  --batch-budget-tokens N, --batch-budget-seconds N\n"
    "                what the whole batch may spend; a task's run gets at most what is left,\n"
    "                and tasks left when it is spent are not run (outcome budget).\n"
    "                --budget-tokens and --budget-seconds (run options) limit each run\n"
    "  merge the folders of several shards: winagent report BATCHDIR... [--out DIR]\n";

/* The batch's own options out of argv, into o; the rest (the file and the run options)
 * into rest/n_rest. */
static wa_err batch_options(int argc, char **argv, struct batch_opts *o, bool *help, char **rest,
                            int *n_rest)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    *help = args_flag(&a, "help", "h");
    o->resume = args_flag(&a, "resume", NULL);
    const char *shard = args_value(&a, "shard", NULL);
    o->attempts = args_int(&a, "attempts", NULL, 1);
    o->junit = args_value(&a, "junit", NULL);
    const char *tokens = args_value(&a, "batch-budget-tokens", NULL);
    const char *seconds = args_value(&a, "batch-budget-seconds", NULL);
    if (a.err)
        return a.err;
    char *end;
    if (shard) {
        long i = strtol(shard, &end, 10), n = *end == '/' ? strtol(end + 1, &end, 10) : 0;
        if (*end || n < 1 || n > SHARDS_MAX || i < 1 || i > n)
            return wa_fail(WA_E_USAGE,
                           "--shard takes I/N, the I-th of N parts counted from 1 (1 <= I <= N "
                           "<= %d), not '%s'",
                           SHARDS_MAX, shard);
        o->shard_i = (int)i;
        o->shard_n = (int)n;
    }
    if (o->attempts < 1 || o->attempts > ATTEMPTS_MAX)
        return wa_fail(WA_E_USAGE, "--attempts must be a whole number from 1 to %d", ATTEMPTS_MAX);
    if (o->junit && !*o->junit)
        return wa_fail(WA_E_USAGE, "--junit needs a file name");
    if (tokens) {
        long long v = strtoll(tokens, &end, 10);
        if (*end || v < 1 || v > 1000000000000LL)
            return wa_fail(WA_E_USAGE,
                           "--batch-budget-tokens must be a whole number of tokens, not '%s'",
                           tokens);
        o->whole.tokens = v;
    }
    if (seconds) {
        double v = strtod(seconds, &end);
        if (*end || !(v >= 1 && v <= 31536000))
            return wa_fail(WA_E_USAGE,
                           "--batch-budget-seconds must be seconds, 1-31536000, not '%s'", seconds);
        o->whole.seconds = v;
    }
    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    for (int i = 1; i < argc; i++)
        if (i >= (int)(sizeof a.used / sizeof *a.used) || !a.used[i])
            rest[(*n_rest)++] = argv[i];
    return WA_E_OK;
}

int cmd_batch(int argc, char **argv)
{
    /* argv: "batch" FILE [batch options] [run options]; the file takes the prompt's place. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return exit_fail(wa_fail(WA_E_NOMEM, "out of memory"));
    struct batch_opts o = {0};
    bool help = false;
    int n = 0;
    wa_err e = batch_options(argc, argv, &o, &help, rest, &n);
    if (help) {
        free(rest);
        fputs(batch_usage, stdout);
        return EXIT_OK;
    }
    struct agent_config cfg;
    if (!e)
        e = load_config(n, rest, &cfg);
    else
        memset(&cfg, 0, sizeof cfg);
    free(rest);
    if (e) {
        config_cleanup(&cfg);
        exit_fail(e);
        fputs(batch_usage, stderr);
        return EXIT_USAGE;
    }
    int code = batch_run(&o, &cfg);
    config_cleanup(&cfg);
    return code;
}
