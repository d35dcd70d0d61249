/* The security gate: restricted processes, a rate limit, dry-run and the audit log. */
#include "agent/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"
#include "base/str.h"

/* Credential and security prompts, the logon and UAC machinery, password managers.
 * Entries are exe names or wildcards ('*', '?'), matched case-insensitively; an entry
 * without ".exe" also matches the name without it. */
static const char default_restricted[] =
    "consent.exe,credentialuibroker.exe,credui.exe,credwiz.exe,lsass.exe,winlogon.exe,"
    "logonui.exe,lockapp.exe,useraccountcontrolsettings.exe,sechealthui.exe,"
    "securityhealthhost.exe,securityhealthsystray.exe,"
    "keepass.exe,keepassxc.exe,1password.exe,bitwarden.exe,lastpass.exe,dashlane.exe,"
    "enpass.exe,roboform.exe,nordpass.exe,keeperpasswordmanager.exe,pwsafe.exe,"
    "passwordsafe.exe,proton pass.exe";

#define RATE_WAIT_MAX_MS 1000 /* how long a call waits for a slot before it is refused */

struct gate {
    char **restricted; /* lower-case entries */
    size_t n_restricted;
    double rate;   /* actions per second */
    double tokens; /* token bucket: capacity max(1, rate), refilled at rate per second */
    int64_t refilled_ms;
    FILE *audit;
    bool dry_run;
    /* The process of the window gate_check saw last, for the audit line that follows
     * (the window may be gone by then: close). */
    uint64_t seen_hwnd;
    char *seen_process;
};

static wa_err add_entries(struct gate *g, const char *list)
{
    const char *p = list;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *s = p;
        p = end ? end + 1 : NULL;
        while (n > 0 && (*s == ' ' || *s == '\t'))
            s++, n--;
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (n == 0)
            continue;
        char **grown = realloc(g->restricted, (g->n_restricted + 1) * sizeof *grown);
        if (!grown)
            return wa_fail(WA_E_NOMEM, "out of memory");
        g->restricted = grown;
        if (!(g->restricted[g->n_restricted] = str_ndup(s, n)))
            return wa_fail(WA_E_NOMEM, "out of memory");
        g->n_restricted++;
    }
    return WA_E_OK;
}

static double env_rate(void)
{
    char *v = os_getenv("WINAGENT_MAX_ACTIONS_PER_S");
    double r = 0;
    if (v) {
        char *end;
        r = strtod(v, &end);
        if (end == v || *end || !(r > 0)) {
            fprintf(stderr,
                    "winagent: ignoring WINAGENT_MAX_ACTIONS_PER_S=%s (not a positive "
                    "number)\n",
                    v);
            r = 0;
        }
        free(v);
    }
    return r;
}

wa_err gate_new(const struct gate_opts *o, struct gate **out)
{
    *out = NULL;
    struct gate *g = calloc(1, sizeof *g);
    if (!g)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e;
    char *env_list = NULL, *env_audit = NULL;
    if (o && o->restricted) {
        e = add_entries(g, o->restricted);
    } else {
        e = add_entries(g, default_restricted);
        if (!e && (env_list = os_getenv("WINAGENT_RESTRICTED")))
            e = add_entries(g, env_list);
    }
    if (e)
        goto fail;

    g->rate = o && o->max_actions_per_s > 0 ? o->max_actions_per_s : env_rate();
    if (!(g->rate > 0))
        g->rate = 10;
    g->tokens = g->rate < 1 ? 1 : g->rate;
    g->refilled_ms = os_now_ms();
    g->dry_run = o && o->dry_run;

    const char *audit = o ? o->audit_path : NULL;
    if (!audit)
        audit = env_audit = os_getenv("WINAGENT_AUDIT_LOG");
    if (audit && *audit && !(g->audit = os_fopen(audit, "ab"))) {
        e = wa_fail(WA_E_IO, "cannot open the audit log %s", audit);
        goto fail;
    }
    free(env_list);
    free(env_audit);
    *out = g;
    return WA_E_OK;
fail:
    free(env_list);
    free(env_audit);
    gate_free(g);
    return e;
}

void gate_free(struct gate *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n_restricted; i++)
        free(g->restricted[i]);
    free(g->restricted);
    if (g->audit)
        fclose(g->audit);
    free(g->seen_process);
    free(g);
}

/* The entry of the restricted list that process matches, or NULL. */
static const char *restricted_entry(const struct gate *g, const char *process)
{
    if (!process || !*process)
        return NULL;
    const char *base = process;
    for (const char *p = process; *p; p++)
        if (*p == '\\' || *p == '/')
            base = p + 1;
    size_t n = strlen(base);
    char stem[260] = "";
    if (n > 4 && n - 4 < sizeof stem && str_ieq(base + n - 4, ".exe")) {
        memcpy(stem, base, n - 4);
        stem[n - 4] = '\0';
    }
    for (size_t i = 0; i < g->n_restricted; i++) {
        const char *pat = g->restricted[i];
        if (str_wildcard(pat, base) || (*stem && str_wildcard(pat, stem)))
            return pat;
    }
    return NULL;
}

/* Takes one token, waiting up to RATE_WAIT_MAX_MS for it. */
static wa_err take_token(struct gate *g)
{
    double cap = g->rate < 1 ? 1 : g->rate;
    int64_t now = os_now_ms();
    g->tokens += (double)(now - g->refilled_ms) * g->rate / 1000.0;
    if (g->tokens > cap)
        g->tokens = cap;
    g->refilled_ms = now;
    if (g->tokens < 1) {
        double wait_ms = (1 - g->tokens) * 1000.0 / g->rate;
        if (wait_ms > RATE_WAIT_MAX_MS)
            return wa_fail(WA_E_DENIED, "rate limit of %g actions per second exceeded", g->rate);
        wa_err e = os_sleep_ms((int)wait_ms + 1);
        if (e)
            return e;
        now = os_now_ms();
        g->tokens += (double)(now - g->refilled_ms) * g->rate / 1000.0;
        g->refilled_ms = now;
        if (g->tokens < 1) /* a coarse clock: the slot is ours all the same */
            g->tokens = 1;
    }
    g->tokens -= 1;
    return WA_E_OK;
}

wa_err gate_check(struct gate *g, const struct wa_backend *be, const char *command, uint64_t hwnd)
{
    if (!g)
        return WA_E_OK;
    if (hwnd) {
        struct wa_window w;
        wa_err e = backend_window_info(be, hwnd, &w);
        if (e == WA_E_WINDOW_NOT_FOUND) {
            wa_window_cleanup(&w);
            return wa_fail(WA_E_WINDOW_NOT_FOUND, "window 0x%llx no longer exists",
                           (unsigned long long)hwnd);
        }
        if (e) {
            wa_window_cleanup(&w);
            return e;
        }
        g->seen_hwnd = hwnd;
        str_set(&g->seen_process, w.process ? w.process : "");
        const char *entry = restricted_entry(g, w.process);
        if (entry) {
            e = wa_fail(WA_E_DENIED,
                        "%s refused: window 0x%llx belongs to %s, a restricted process",
                        command ? command : "action", (unsigned long long)hwnd, w.process);
            wa_window_cleanup(&w);
            return e;
        }
        wa_window_cleanup(&w);
    }
    return take_token(g);
}

bool gate_dry_run(const struct gate *g)
{
    return g && g->dry_run;
}

static bool is_secret_key(const char *k)
{
    return k && (strcmp(k, "text") == 0 || strcmp(k, "value") == 0 || strcmp(k, "command") == 0 ||
                 str_icontains(k, "password") || str_icontains(k, "secret") ||
                 str_icontains(k, "token"));
}

/* A copy of v with the values of secret-looking keys replaced by {"length": N}. */
static cJSON *redacted_copy(const cJSON *v)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return cJSON_Duplicate(v, true);
    cJSON *out = cJSON_IsObject(v) ? cJSON_CreateObject() : cJSON_CreateArray();
    const cJSON *item;
    cJSON_ArrayForEach(item, v)
    {
        cJSON *copy;
        if (cJSON_IsObject(v) && is_secret_key(item->string)) {
            copy = cJSON_CreateObject();
            size_t len = cJSON_IsString(item) ? strlen(item->valuestring) : 0;
            if (cJSON_IsString(item))
                cJSON_AddNumberToObject(copy, "length", (double)len);
            else
                cJSON_AddBoolToObject(copy, "redacted", true);
        } else {
            copy = redacted_copy(item);
        }
        if (cJSON_IsObject(v))
            cJSON_AddItemToObject(out, item->string, copy);
        else
            cJSON_AddItemToArray(out, copy);
    }
    return out;
}

void gate_audit(struct gate *g, const char *command, const cJSON *params, uint64_t hwnd,
                wa_err outcome, const char *message)
{
    if (!g || !g->audit)
        return;
    struct os_tm t;
    char ts[40], win[24];
    os_utc_time(os_time_ms(), &t);
    snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.year, t.month, t.day, t.hour,
             t.min, t.sec, t.msec);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "time", ts);
    cJSON_AddNumberToObject(o, "pid", (double)os_pid());
    cJSON_AddStringToObject(o, "command", command ? command : "");
    cJSON_AddItemToObject(o, "params", params ? redacted_copy(params) : cJSON_CreateObject());
    if (hwnd) {
        snprintf(win, sizeof win, "0x%llx", (unsigned long long)hwnd);
        cJSON_AddStringToObject(o, "window", win);
        cJSON_AddStringToObject(o, "process",
                                hwnd == g->seen_hwnd && g->seen_process ? g->seen_process : "");
    } else {
        cJSON_AddNullToObject(o, "window");
    }
    cJSON_AddBoolToObject(o, "dry_run", g->dry_run);
    cJSON_AddStringToObject(o, "outcome", wa_err_code(outcome));
    if (outcome == WA_E_OK)
        cJSON_AddNullToObject(o, "error");
    else
        cJSON_AddStringToObject(o, "error",
                                message && *message ? message : wa_err_message(outcome));
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line)
        return;
    size_t n = strlen(line);
    line[n] = '\n'; /* replaces the terminator: one write per line */
    fwrite(line, 1, n + 1, g->audit);
    fflush(g->audit);
    free(line);
}
