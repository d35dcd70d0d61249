/* Run configuration from flags, the environment and .env. */
#include "agent/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/args.h"
#include "agent/dotenv.h"
#include "base/os.h"
#include "base/str.h"

const char *shell_policy_name(enum shell_policy p)
{
    return p == SHELL_OFF ? "off" : p == SHELL_CONFIRM ? "confirm" : "on";
}

void config_cleanup(struct agent_config *c)
{
    free(c->prompt);
    free(c->replay);
    free(c->base_url);
    free(c->model);
    if (c->api_key) /* do not leave the key in freed memory */
        memset(c->api_key, 0, strlen(c->api_key));
    free(c->api_key);
    free(c->log_dir);
    free(c->env_file);
    memset(c, 0, sizeof *c);
}

/* .env beside the exe wins over one in the working folder. */
static wa_err load_dotenv(struct dotenv *d)
{
    char *dir = os_exe_dir();
    const char *candidates[2] = {NULL, ".env"};
    char beside[4096];
    if (dir) {
        snprintf(beside, sizeof beside, "%s/.env", dir);
        candidates[0] = beside;
    }
    wa_err e = WA_E_OK;
    for (int i = 0; i < 2; i++) {
        if (!candidates[i] || !os_path_exists(candidates[i]))
            continue;
        e = dotenv_load(d, candidates[i]);
        break;
    }
    free(dir);
    return e;
}

/* flag > environment > .env; a heap copy or NULL. Empty values count as unset. */
static char *setting(const char *flag, const char *env, const struct dotenv *d)
{
    if (flag && *flag)
        return str_dup(flag);
    char *v = env ? os_getenv(env) : NULL;
    if (v && *v)
        return v;
    free(v);
    const char *f = env ? dotenv_get(d, env) : NULL;
    return f && *f ? str_dup(f) : NULL;
}

static wa_err to_int(const char *s, const char *what, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return wa_fail(WA_E_CONFIG, "%s must be a whole number from %d to %d, not '%s'", what, lo,
                       hi, s);
    *out = (int)v;
    return WA_E_OK;
}

static wa_err int_setting(const char *flag, const char *env, const struct dotenv *d,
                          const char *what, int lo, int hi, int *out)
{
    char *v = setting(flag, env, d);
    wa_err e = v ? to_int(v, what, lo, hi, out) : WA_E_OK;
    free(v);
    return e;
}

wa_err config_load(int argc, char **argv, struct agent_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_steps = 30;
    c->max_edge = 1280;
    c->history_images = 3;
    c->stream = true;
    c->llm_retries = -1;

    struct args a;
    args_init(&a, argc, argv, 1);
    const char *f_provider = args_value(&a, "provider", NULL);
    const char *f_base = args_value(&a, "base-url", NULL);
    const char *f_model = args_value(&a, "model", NULL);
    const char *f_steps = args_value(&a, "max-steps", NULL);
    const char *f_mode = args_value(&a, "mode", NULL);
    const char *f_edge = args_value(&a, "max-edge", NULL);
    const char *f_hist = args_value(&a, "history-images", NULL);
    const char *f_logdir = args_value(&a, "log-dir", NULL);
    const char *f_shell = args_value(&a, "shell", NULL);
    const char *f_replay = args_value(&a, "replay", NULL);
    c->dry_run = args_flag(&a, "dry-run", NULL);
    c->stream = !args_flag(&a, "no-stream", NULL);
    if (args_value(&a, "api-key", NULL) && !a.err)
        return wa_fail(WA_E_USAGE, "keys are never taken on the command line: set LLM_API_KEY "
                                   "in the environment or in .env");
    wa_err e = args_check_unknown(&a);
    if (e)
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

    struct dotenv d;
    dotenv_init(&d);
    if ((e = load_dotenv(&d))) {
        dotenv_cleanup(&d);
        return e;
    }
    c->env_file = str_dup(d.path);

    char *v = setting(f_provider, "LLM_PROVIDER", &d);
    if (v && (e = llm_provider_from_name(v, &c->provider)))
        e = wa_fail(WA_E_CONFIG, "LLM_PROVIDER must be openai-compatible or google, not '%s'", v);
    free(v);
    c->base_url = setting(f_base, "LLM_BASE_URL", &d);
    c->model = setting(f_model, "LLM_MODEL", &d);
    c->api_key = setting(NULL, "LLM_API_KEY", &d);
    if (!e)
        e = int_setting(f_steps, "WINAGENT_MAX_STEPS", &d, "max steps", 1, 10000, &c->max_steps);
    if (!e && (v = setting(f_mode, "WINAGENT_MODE", &d))) {
        e = obs_mode_parse(v, &c->mode);
        if (e)
            e = wa_fail(WA_E_CONFIG, "mode must be auto, a11y or pixel, not '%s'", v);
        free(v);
    }
    if (!e)
        e = int_setting(NULL, "WINAGENT_LLM_RETRIES", &d, "WINAGENT_LLM_RETRIES", 0, 20,
                        &c->llm_retries);
    if (!e)
        e = int_setting(NULL, "WINAGENT_LLM_MAX_WAIT_MS", &d, "WINAGENT_LLM_MAX_WAIT_MS", 1,
                        3600000, &c->llm_max_wait_ms);
    if (!e)
        e = int_setting(NULL, "WINAGENT_LLM_TIMEOUT_S", &d, "WINAGENT_LLM_TIMEOUT_S", 1, 3600,
                        &c->llm_timeout_s);
    if (!e && f_edge)
        e = to_int(f_edge, "--max-edge", 64, 8192, &c->max_edge);
    if (!e && f_hist)
        e = to_int(f_hist, "--history-images", 0, 100, &c->history_images);
    if (!e) {
        c->log_dir = setting(f_logdir, "WINAGENT_LOG_DIR", &d);
        if (!c->log_dir)
            c->log_dir = str_dup("logs");
    }
    if (!e && (v = setting(f_shell, "WINAGENT_SHELL_POLICY", &d))) {
        if (str_ieq(v, "on"))
            c->shell = SHELL_ON;
        else if (str_ieq(v, "off"))
            c->shell = SHELL_OFF;
        else if (str_ieq(v, "confirm"))
            c->shell = SHELL_CONFIRM;
        else
            e = wa_fail(WA_E_CONFIG, "shell policy must be on, off or confirm, not '%s'", v);
        free(v);
    }
    /* WINAGENT_SHELL lives in the environment for the backend; take it from .env too. */
    if (!e && dotenv_get(&d, "WINAGENT_SHELL")) {
        char *cur = os_getenv("WINAGENT_SHELL");
        if (!cur)
            os_setenv("WINAGENT_SHELL", dotenv_get(&d, "WINAGENT_SHELL"));
        free(cur);
    }
    dotenv_cleanup(&d);
    if (e || c->replay)
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
    return WA_E_OK;
}
