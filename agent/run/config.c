/* The run's configuration from the command line and the one settings resolution. */
#include "agent/run/config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/args.h"
#include "base/str.h"

void config_cleanup(struct agent_config *c)
{
    free(c->prompt);
    free(c->replay);
    settings_cleanup(&c->settings);
    memset(c, 0, sizeof *c);
}

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
    if ((e = settings_int(s, SET_MAX_STEPS, 1, 10000, 30, &c->max_steps)) ||
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

wa_err config_load(int argc, char **argv, struct agent_config *c)
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
    /* a grounding model reads screenshots only: its observations are images */
    if (c->protocol.grammar == LLM_TEXT_UITARS && c->mode == OBS_AUTO)
        c->mode = OBS_PIXEL;
    return WA_E_OK;
}
