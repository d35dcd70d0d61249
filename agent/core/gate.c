/* The gate's policy: restricted processes, fail-closed refusals, rate limit, audit. */
#include "agent/core/gate.h"

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

#define RATE_WAIT_MAX_MS 1000 /* how long a request waits for a slot before it is refused */

struct gate {
    char **restricted;
    size_t n_restricted;
    double rate;   /* acting requests per second */
    double tokens; /* token bucket: capacity max(1, rate), refilled at rate per second */
    int64_t refilled_ms;
    FILE *audit;
    struct os_mutex *lock; /* the bucket and the audit file */
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
        char **grown = wa_reallocarray(g->restricted, g->n_restricted + 1, sizeof *grown);
        if (!grown)
            return wa_fail(WA_E_NOMEM, "out of memory");
        g->restricted = grown;
        if (!(g->restricted[g->n_restricted] = str_ndup(s, n)))
            return wa_fail(WA_E_NOMEM, "out of memory");
        g->n_restricted++;
    }
    return WA_E_OK;
}

wa_err gate_new(const struct gate_config *c, struct gate **out)
{
    *out = NULL;
    struct gate *g = calloc(1, sizeof *g);
    if (!g || !(g->lock = os_mutex_new())) {
        free(g);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    wa_err e = add_entries(g, c && c->restricted_only ? c->restricted_only : default_restricted);
    if (!e && c)
        e = add_entries(g, c->restricted_extra);
    if (e)
        goto fail;
    g->rate = c && c->max_actions_per_s > 0 ? c->max_actions_per_s : 10;
    g->tokens = g->rate < 1 ? 1 : g->rate;
    g->refilled_ms = os_now_ms();
    if (c && c->audit_path && *c->audit_path && !(g->audit = os_fopen(c->audit_path, "ab"))) {
        e = wa_fail(WA_E_IO, "cannot open the audit log %s", c->audit_path);
        goto fail;
    }
    *out = g;
    return WA_E_OK;
fail:
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
    os_mutex_free(g->lock);
    free(g);
}

const char *gate_restricted(const struct gate *g, const char *process)
{
    if (!g || !process || !*process)
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

wa_err gate_check_window(const struct gate *g, const struct wa_window *w, const char *what)
{
    if (!w->process || !*w->process)
        return wa_fail(WA_E_DENIED,
                       "%s refused: the process of window 0x%llx cannot be identified, and "
                       "such windows are refused",
                       what, (unsigned long long)w->hwnd);
    if (gate_restricted(g, w->process))
        return wa_fail(WA_E_DENIED, "%s refused: window 0x%llx belongs to %s, a restricted process",
                       what, (unsigned long long)w->hwnd, w->process);
    return WA_E_OK;
}

/* Consoles and terminals by their window class or their process. */
static const char *const shell_classes[] = {
    "ConsoleWindowClass",
    "CASCADIA_HOSTING_WINDOW_CLASS",
    "PseudoConsoleWindow",
    "WineConsoleClass",
    "mintty",
    "PuTTY",
};
static const char *const shell_processes[] = {
    "cmd.exe",
    "powershell.exe",
    "pwsh.exe",
    "powershell_ise.exe",
    "conhost.exe",
    "openconsole.exe",
    "windowsterminal.exe",
    "wt.exe",
    "wsl.exe",
    "bash.exe",
    "wineconsole.exe",
    "mintty.exe",
};

bool gate_shell_window(const struct wa_window *w)
{
    for (size_t i = 0; i < sizeof shell_classes / sizeof *shell_classes; i++)
        if (w->class_name && str_ieq(w->class_name, shell_classes[i]))
            return true;
    const char *proc = w->process ? w->process : "";
    const char *base = strrchr(proc, '\\');
    base = base ? base + 1 : proc;
    for (size_t i = 0; i < sizeof shell_processes / sizeof *shell_processes; i++)
        if (str_ieq(base, shell_processes[i]))
            return true;
    /* The Run dialog (win+r): explorer's dialog box titled "Run". */
    return w->class_name && strcmp(w->class_name, "#32770") == 0 && str_ieq(base, "explorer.exe") &&
           w->title && str_ieq(w->title, "Run");
}

bool gate_allows(const struct gate *g, const struct wa_window *w)
{
    return w->process && *w->process && !gate_restricted(g, w->process);
}

bool gate_mask_window(const struct gate *g, struct wa_window *w)
{
    if (gate_allows(g, w)) /* no error set: the caller's detail stays what it was */
        return false;
    free(w->title);
    free(w->class_name);
    w->title = str_dup(GATE_RESTRICTED_TITLE);
    w->class_name = NULL;
    return true;
}

wa_err gate_take_slot(struct gate *g)
{
    if (!g)
        return WA_E_OK;
    os_mutex_lock(g->lock);
    double cap = g->rate < 1 ? 1 : g->rate;
    int64_t now = os_now_ms();
    g->tokens += (double)(now - g->refilled_ms) * g->rate / 1000.0;
    if (g->tokens > cap)
        g->tokens = cap;
    g->refilled_ms = now;
    wa_err e = WA_E_OK;
    if (g->tokens < 1) {
        double wait_ms = (1 - g->tokens) * 1000.0 / g->rate;
        if (wait_ms > RATE_WAIT_MAX_MS) {
            e = wa_fail(WA_E_DENIED, "rate limit of %g actions per second exceeded", g->rate);
            goto out;
        }
        /* The slot is reserved before sleeping, so a concurrent request waits for the
         * one after it. */
        g->tokens -= 1;
        os_mutex_unlock(g->lock);
        e = os_sleep_ms((int)wait_ms + 1);
        return e;
    }
    g->tokens -= 1;
out:
    os_mutex_unlock(g->lock);
    return e;
}

void gate_audit(struct gate *g, const struct gate_audit_line *l)
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
    cJSON_AddStringToObject(o, "front", l->front ? l->front : "");
    cJSON_AddStringToObject(o, "command", l->command ? l->command : "");
    cJSON_AddStringToObject(o, "op", l->op ? l->op : "");
    cJSON_AddItemToObject(o, "params",
                          l->params ? cJSON_Duplicate(l->params, true) : cJSON_CreateObject());
    if (l->window) {
        snprintf(win, sizeof win, "0x%llx", (unsigned long long)l->window);
        cJSON_AddStringToObject(o, "window", win);
        cJSON_AddStringToObject(o, "process", l->process ? l->process : "");
    } else {
        cJSON_AddNullToObject(o, "window");
    }
    cJSON_AddBoolToObject(o, "dry_run", l->dry_run);
    cJSON_AddStringToObject(o, "outcome", wa_err_code(l->outcome));
    if (l->outcome == WA_E_OK)
        cJSON_AddNullToObject(o, "error");
    else
        cJSON_AddStringToObject(o, "error",
                                l->error && *l->error ? l->error : wa_err_message(l->outcome));
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line)
        return;
    size_t n = strlen(line);
    line[n] = '\n'; /* replaces the terminator: one write per line */
    os_mutex_lock(g->lock);
    fwrite(line, 1, n + 1, g->audit);
    fflush(g->audit);
    os_mutex_unlock(g->lock);
    free(line);
}
