/* One resolution of every setting: flag > environment > .env > default. */
#include "agent/core/config/settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/config/dotenv.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

static const struct {
    const char *name, *flag;
    unsigned groups;
    const char *env, *def;
    unsigned kind;
    const char *help;
} table[SET__COUNT] = {
#define X_ROW(id, name, flag, groups, env, def, kind, help)                                        \
    {name, flag, groups, env, def, kind, help},
    SETTING_MAP(X_ROW)
#undef X_ROW
};

/* The .env to read: the one the user named (--env-file, else WINAGENT_ENV_FILE), else
 * the one beside the exe, else the working folder's. *trusted: every setting may come
 * from it (not so for the working folder's: whoever handed over the folder wrote it). */
static wa_err load_dotenv(struct dotenv *d, struct args *a, bool *trusted)
{
    const char *flag = a ? args_value(a, "env-file", NULL) : NULL;
    char *named = flag ? str_dup(flag) : os_getenv("WINAGENT_ENV_FILE");
    *trusted = true;
    if (named && *named) {
        wa_err e = dotenv_load(d, named);
        if (e == WA_E_IO)
            e = wa_fail(WA_E_CONFIG, "cannot read the .env file %s named by %s", named,
                        flag ? "--env-file" : "WINAGENT_ENV_FILE");
        free(named);
        return e;
    }
    free(named);
    char *dir = os_exe_dir();
    char beside[4096];
    const char *candidates[2] = {NULL, ".env"};
    if (dir) {
        snprintf(beside, sizeof beside, "%s/.env", dir);
        candidates[0] = beside;
    }
    wa_err e = WA_E_OK;
    for (int i = 0; i < 2; i++) {
        if (!candidates[i] || !os_path_exists(candidates[i]))
            continue;
        e = dotenv_load(d, candidates[i]);
        *trusted = i == 0;
        break;
    }
    free(dir);
    return e;
}

static bool is_key_variable(const char *name)
{
    size_t n = strlen(name);
    return (n >= 7 && str_ieq(name + n - 7, "API_KEY")) || str_ieq(name, "WINAGENT_MCP_TOKEN");
}

/* Programs winagent starts inherit its environment: the keys leave it here. */
static void scrub_environment(void)
{
    struct os_dir_list names;
    if (os_env_names(&names) != WA_E_OK)
        return;
    for (size_t i = 0; i < names.count; i++)
        if (is_key_variable(names.names[i]))
            os_setenv(names.names[i], NULL);
    os_dir_list_cleanup(&names);
    for (int i = 0; i < SET__COUNT; i++)
        if ((table[i].kind & SK_SECRET) && table[i].env)
            os_setenv(table[i].env, NULL);
}

static wa_err take_flags(struct settings *s, struct args *a, unsigned groups)
{
    for (int i = 0; i < SET__COUNT; i++) {
        if (!table[i].flag || !(table[i].groups & groups))
            continue;
        const char *v = NULL;
        if (table[i].kind & SK_SWITCH)
            v = args_flag(a, table[i].flag, NULL) ? "on" : NULL;
        else if (table[i].kind & SK_NEGATE)
            v = args_flag(a, table[i].flag, NULL) ? "off" : NULL;
        else
            v = args_value(a, table[i].flag, NULL);
        if (v && *v) {
            if (!(s->value[i] = str_dup(v)))
                return wa_fail(WA_E_NOMEM, "out of memory");
            s->source[i] = SRC_FLAG;
        }
    }
    return a->err;
}

wa_err settings_load(struct settings *s, struct args *a, unsigned groups)
{
    memset(s, 0, sizeof *s);
    if (a && (args_value(a, "api-key", NULL) || args_value(a, "key", NULL)))
        return wa_fail(WA_E_USAGE, "keys are never taken on the command line: set LLM_API_KEY "
                                   "in the environment or in .env");
    wa_err e = a ? take_flags(s, a, groups) : WA_E_OK;
    if (e)
        return e;
    struct dotenv d;
    dotenv_init(&d);
    bool trusted;
    if ((e = load_dotenv(&d, a, &trusted))) {
        dotenv_cleanup(&d);
        return e;
    }
    s->dotenv_path = d.path ? str_dup(d.path) : NULL;
    for (int i = 0; !e && i < SET__COUNT; i++) {
        if (s->value[i] || !table[i].env)
            continue;
        char *v = os_getenv(table[i].env);
        if (v && *v) {
            s->value[i] = v;
            s->source[i] = SRC_ENV;
            continue;
        }
        free(v);
        const char *f = dotenv_get(&d, table[i].env);
        if (f && *f && !trusted && (table[i].kind & SK_TRUSTED)) {
            size_t n = strlen(s->ignored);
            snprintf(s->ignored + n, sizeof s->ignored - n, "%s%s", n ? ", " : "", table[i].env);
        } else if (f && *f) {
            if (!(s->value[i] = str_dup(f)))
                e = wa_fail(WA_E_NOMEM, "out of memory");
            s->source[i] = SRC_DOTENV;
        }
    }
    for (int i = 0; !e && i < SET__COUNT; i++)
        if (!s->value[i] && table[i].def && !(s->value[i] = str_dup(table[i].def)))
            e = wa_fail(WA_E_NOMEM, "out of memory");
    if (!e && s->ignored[0])
        term_line(stderr,
                  "winagent: %s sets %s: not taken, since it lies in the working folder and "
                  "these decide what runs or where the key goes; name it with --env-file to "
                  "use them",
                  d.path ? d.path : ".env", s->ignored);
    dotenv_cleanup(&d);
    scrub_environment();
    return e;
}

void settings_cleanup(struct settings *s)
{
    for (int i = 0; i < SET__COUNT; i++) {
        if (s->value[i] && (table[i].kind & SK_SECRET))
            memset(s->value[i], 0, strlen(s->value[i])); /* no key left in freed memory */
        free(s->value[i]);
    }
    free(s->dotenv_path);
    memset(s, 0, sizeof *s);
}

const char *settings_get(const struct settings *s, enum setting_id id)
{
    return s->value[id];
}

bool settings_on(const struct settings *s, enum setting_id id)
{
    const char *v = s->value[id];
    return v && (str_ieq(v, "on") || str_ieq(v, "true") || str_ieq(v, "yes") || !strcmp(v, "1"));
}

wa_err settings_switch(const struct settings *s, enum setting_id id, bool *out)
{
    const char *v = s->value[id];
    *out = settings_on(s, id);
    if (!v || *out || str_ieq(v, "off") || str_ieq(v, "false") || str_ieq(v, "no") ||
        !strcmp(v, "0"))
        return WA_E_OK;
    return wa_fail(WA_E_CONFIG, "%s must be on or off, not '%s' (from %s)",
                   table[id].env ? table[id].env : table[id].name, v, setting_source_name(s, id));
}

const char *setting_source_name(const struct settings *s, enum setting_id id)
{
    static _Thread_local char buf[600];
    switch (s->source[id]) {
    case SRC_FLAG:
        snprintf(buf, sizeof buf, "flag --%s", table[id].flag);
        return buf;
    case SRC_ENV:
        snprintf(buf, sizeof buf, "environment %s", table[id].env);
        return buf;
    case SRC_DOTENV:
        snprintf(buf, sizeof buf, "%s (%s)", s->dotenv_path ? s->dotenv_path : ".env",
                 table[id].env);
        return buf;
    default:
        return s->value[id] ? "default" : "unset";
    }
}

wa_err settings_num(const struct settings *s, enum setting_id id, double lo, double hi, double def,
                    double *out)
{
    const char *v = s->value[id];
    *out = def;
    if (!v)
        return WA_E_OK;
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi))
        return wa_fail(WA_E_CONFIG, "%s must be a number from %g to %g, not '%s' (from %s)",
                       table[id].env ? table[id].env : table[id].name, lo, hi, v,
                       setting_source_name(s, id));
    *out = d;
    return WA_E_OK;
}

wa_err settings_int(const struct settings *s, enum setting_id id, int lo, int hi, int def, int *out)
{
    const char *v = s->value[id];
    *out = def;
    if (!v)
        return WA_E_OK;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < lo || n > hi) {
        const char *what = table[id].flag && s->source[id] == SRC_FLAG ? table[id].flag
                           : table[id].env                             ? table[id].env
                                                                       : table[id].name;
        return wa_fail(WA_E_CONFIG, "%s must be a whole number from %d to %d, not '%s' (from %s)",
                       what, lo, hi, v, setting_source_name(s, id));
    }
    *out = (int)n;
    return WA_E_OK;
}

void setting_display(const struct settings *s, enum setting_id id, char *out, size_t cap)
{
    const char *v = s->value[id];
    if (!v)
        snprintf(out, cap, "(unset)");
    else if (table[id].kind & SK_SECRET) {
        size_t n = strlen(v);
        /* A short prefix tells keys apart; the rest stays hidden. */
        snprintf(out, cap, "%.*s...(%zu chars)", n >= 12 ? 4 : 0, v, n);
    } else
        snprintf(out, cap, "%s", v);
}

void settings_print(const struct settings *s, void (*line)(void *ctx, const char *text), void *ctx)
{
    char value[300], text[1200];
    for (int i = 0; i < SET__COUNT; i++) {
        setting_display(s, (enum setting_id)i, value, sizeof value);
        snprintf(text, sizeof text, "%-18s = %-28s (%s)  %s", table[i].name, value,
                 setting_source_name(s, (enum setting_id)i), table[i].help);
        line(ctx, text);
    }
}
