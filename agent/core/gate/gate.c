/* The gate's policy: restricted processes, the allow-list, fail-closed refusals, rate
 * limit, audit. */
#include "agent/core/gate/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/gate/launch.h"
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

/* A list of program entries: exe names, wildcards or (the allow-list) whole paths. */
struct entries {
    char **items;
    size_t n;
};

struct gate {
    struct entries restricted;
    struct entries apps; /* the allow-list; empty: none */
    bool (*installed)(void *ctx, const char *path);
    void *installed_ctx;
    char *apps_text;
    double rate;   /* acting requests per second */
    double tokens; /* token bucket: capacity max(1, rate), refilled at rate per second */
    int64_t refilled_ms;
    FILE *audit;
    struct os_mutex *lock; /* the bucket and the audit file */
};

static wa_err add_entries(struct entries *l, const char *list)
{
    const char *p = list;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *s = p;
        p = end ? end + 1 : NULL;
        while (n > 0 && (*s == ' ' || *s == '\t' || *s == '"'))
            s++, n--;
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '"'))
            n--;
        if (n == 0)
            continue;
        char **grown = wa_reallocarray(l->items, l->n + 1, sizeof *grown);
        if (!grown)
            return wa_fail(WA_E_NOMEM, "out of memory");
        l->items = grown;
        if (!(l->items[l->n] = str_ndup(s, n)))
            return wa_fail(WA_E_NOMEM, "out of memory");
        for (char *c = l->items[l->n]; *c; c++)
            if (*c == '/')
                *c = '\\'; /* one separator, for comparing paths */
        l->n++;
    }
    return WA_E_OK;
}

static void free_entries(struct entries *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
}

static bool is_path(const char *entry)
{
    return strchr(entry, '\\') != NULL;
}

/* How a name entry matches a program. */
enum by_name {
    NAME_ANYWHERE, /* any program of that name (the restricted list, the user's shell) */
    NAME_INSTALLED /* only an installed one (the allow-list) */
};

/* The entry of l that a program matches: by its file name (with or without ".exe")
 * for a name entry, as how says; by its whole path (either separator) for a path entry.
 * NULL when none. */
static const char *match_entry(const struct gate *g, const struct entries *l, const char *name,
                               const char *path, enum by_name how)
{
    char base[260] = "", stem[260] = "", whole[1024] = "";
    const char *from = name && *name ? name : path;
    if (from && *from)
        snprintf(base, sizeof base, "%s", str_path_base(from));
    size_t n = strlen(base);
    if (n > 4 && str_ieq(base + n - 4, ".exe"))
        snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), base);
    if (path && *path && strlen(path) < sizeof whole) {
        snprintf(whole, sizeof whole, "%s", path);
        for (char *c = whole; *c; c++)
            if (*c == '/')
                *c = '\\';
    }
    int installed = -1; /* asked once, when a name matches */
    for (size_t i = 0; i < l->n; i++) {
        const char *pat = l->items[i];
        if (is_path(pat)) {
            if (*whole && str_wildcard(pat, whole))
                return pat;
            continue;
        }
        if (!(*base && str_wildcard(pat, base)) && !(*stem && str_wildcard(pat, stem)))
            continue;
        if (how == NAME_ANYWHERE)
            return pat;
        if (installed < 0)
            installed = *whole && g->installed && g->installed(g->installed_ctx, path);
        if (installed)
            return pat;
    }
    return NULL;
}

wa_err gate_new(const struct gate_config *c, struct gate **out)
{
    *out = NULL;
    struct gate *g = calloc(1, sizeof *g);
    if (!g || !(g->lock = os_mutex_new())) {
        free(g);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    wa_err e = add_entries(&g->restricted,
                           c && c->restricted_only ? c->restricted_only : default_restricted);
    if (!e && c)
        e = add_entries(&g->restricted, c->restricted_extra);
    if (!e && c)
        e = add_entries(&g->apps, c->apps);
    if (c) {
        g->installed = c->installed;
        g->installed_ctx = c->installed_ctx;
    }
    if (!e && !(g->apps_text = str_dup(g->apps.n ? c->apps : "")))
        e = wa_fail(WA_E_NOMEM, "out of memory");
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
    free_entries(&g->restricted);
    free_entries(&g->apps);
    free(g->apps_text);
    if (g->audit)
        fclose(g->audit);
    os_mutex_free(g->lock);
    free(g);
}

/* The entry of the restricted list that process (an exe name or path) matches, or NULL. */
static const char *gate_restricted(const struct gate *g, const char *process)
{
    if (!g || !process || !*process)
        return NULL;
    return match_entry(g, &g->restricted, str_path_base(process), NULL, NAME_ANYWHERE);
}

bool gate_has_apps(const struct gate *g)
{
    return g && g->apps.n > 0;
}

bool gate_app_listed(const struct gate *g, const char *name, const char *path)
{
    return !gate_has_apps(g) || match_entry(g, &g->apps, name, path, NAME_INSTALLED) != NULL;
}

bool gate_app_named(const struct gate *g, const char *name)
{
    const char *hit = gate_has_apps(g) && name && *name
                          ? match_entry(g, &g->apps, name, NULL, NAME_ANYWHERE)
                          : NULL;
    return hit && !is_path(hit);
}

bool gate_shell_listed(const struct gate *g, const char *program)
{
    return !gate_has_apps(g) ||
           match_entry(g, &g->apps, str_path_base(program), program, NAME_ANYWHERE) != NULL;
}

bool gate_app_path_listed(const struct gate *g, const char *path)
{
    if (!gate_has_apps(g) || !path || !*path)
        return false;
    const char *hit = match_entry(g, &g->apps, NULL, path, NAME_INSTALLED);
    return hit && is_path(hit);
}

const char *gate_apps_text(const struct gate *g)
{
    return g && g->apps_text ? g->apps_text : "";
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
    if (!gate_app_listed(g, w->process, w->process_path))
        return wa_fail(WA_E_DENIED,
                       "%s refused: window 0x%llx belongs to none of the programs winagent may "
                       "use (--apps %.200s)",
                       what, (unsigned long long)w->hwnd, gate_apps_text(g));
    return WA_E_OK;
}

/* Consoles and terminals by their window class (their programs are launch's list). */
static const char *const terminal_classes[] = {
    "ConsoleWindowClass",
    "CASCADIA_HOSTING_WINDOW_CLASS",
    "PseudoConsoleWindow",
    "WineConsoleClass",
    "VirtualConsoleClass",
    "mintty",
    "PuTTY",
};

/* The shell's own launchers: the Start menu and search take a typed name and start it. */
static const char *const launcher_processes[] = {
    "startmenuexperiencehost.exe", "searchhost.exe", "searchapp.exe", "searchui.exe",
    "shellexperiencehost.exe",
};

/* Explorer's windows that start programs: the taskbar's buttons and the desktop's
 * icons. */
static const char *const launcher_classes[] = {
    "Shell_TrayWnd",
    "Shell_SecondaryTrayWnd",
    "Progman",
    "WorkerW",
};

static bool among(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (str_ieq(s, list[i]))
            return true;
    return false;
}

#define AMONG(s, list) among(s, list, sizeof list / sizeof *list)

const char *gate_shell_route(const struct wa_window *w, const struct wa_window_kind *kind,
                             const struct wa_program_info *file, enum gate_input input)
{
    const char *proc = str_path_base(w->process ? w->process : "");
    const char *cls = w->class_name ? w->class_name : "";
    if (AMONG(cls, terminal_classes))
        return "a console or terminal";
    if (file && file->place == WA_PLACE_NETWORK) /* never read: it cannot be told */
        return "a window of a program that runs from a network share";
    if (launch_takes_commands(proc) ||
        (file && file->original_name && launch_takes_commands(file->original_name)))
        return "a window of a shell, terminal or interpreter";
    if (file && file->executable && file->console)
        return "a window of a console program";
    if (kind && kind->run_dialog)
        return "the Run dialog";
    if (strcmp(cls, "#32770") == 0 && str_ieq(proc, "explorer.exe"))
        return "the Run dialog (a dialog of Explorer)";
    if (AMONG(proc, launcher_processes) ||
        (str_ieq(proc, "explorer.exe") && AMONG(cls, launcher_classes)))
        return "the taskbar, the desktop or the Start menu, which start programs";
    if (kind && kind->address_bar)
        return "an address bar, which runs what is typed into it";
    if (input != GATE_POINTER && str_ieq(proc, "explorer.exe") &&
        (str_ieq(cls, "CabinetWClass") || str_ieq(cls, "ExplorerWClass")) &&
        !(input == GATE_KEYS && kind && kind->item_view))
        return input == GATE_KEYS ? "an Explorer window whose focus is not in its items (its "
                                    "address bar runs what is typed into it)"
                                  : "an Explorer window, and these keys can move the focus "
                                    "to its address bar, which runs what is typed into it";
    return NULL;
}

bool gate_allows(const struct gate *g, const struct wa_window *w)
{
    return w->process && *w->process && !gate_restricted(g, w->process) &&
           gate_app_listed(g, w->process, w->process_path);
}

bool gate_outside_apps(const struct gate *g, const struct wa_window *w)
{
    return gate_has_apps(g) && w->process && *w->process && !gate_restricted(g, w->process) &&
           !gate_app_listed(g, w->process, w->process_path);
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
