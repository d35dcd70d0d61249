/* `winagent doctor`: the backend's facts about the machine and the model's settings,
 * each judged ok, warning or problem with what to do, printed as lines or as JSON. */
#include "agent/front/doctor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/request/exit.h"
#include "agent/core/host.h"
#include "agent/core/config/settings.h"
#include "automation/backend.h"
#include "base/args.h"
#include "base/term_text.h"
#include "base/version.h"
#include "llm/llm.h"
#include "llm/protocol.h"

#define MAX_CHECKS   48
#define MAX_MONITORS 16
#define TEXT_CAP     400

enum verdict { V_OK, V_WARNING, V_PROBLEM };
static const char *const verdict_names[] = {"ok", "warning", "problem"};

struct check {
    const char *section;
    enum verdict verdict;
    char text[TEXT_CAP];
    const char *advice; /* what to do; NULL when nothing */
};

struct doctor {
    struct check checks[MAX_CHECKS];
    size_t n;
    struct wa_system_info sys;
    struct wa_monitor monitors[MAX_MONITORS];
    size_t n_monitors;
};

static void WA_PRINTF(5, 6) add(struct doctor *d, const char *section, enum verdict v,
                                const char *advice, const char *fmt, ...)
{
    if (d->n >= MAX_CHECKS)
        return;
    struct check *c = &d->checks[d->n++];
    c->section = section;
    c->verdict = v;
    c->advice = advice;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->text, sizeof c->text, fmt, ap);
    va_end(ap);
}

/* ---- the machine ---- */

static void judge_windows(struct doctor *d, const struct wa_system_info *s)
{
    char version[64] = "", name[120];
    snprintf(name, sizeof name, "%s%s%s", s->os_name[0] ? s->os_name : "Windows",
             s->os_release[0] ? " " : "", s->os_release);
    if (s->os_major >= 0)
        snprintf(version, sizeof version, "%d.%d.%d", s->os_major, s->os_minor, s->os_build);
    if (s->os_major >= 0 && s->os_revision >= 0)
        snprintf(version + strlen(version), sizeof version - strlen(version), ".%d",
                 s->os_revision);
    if (s->wine[0])
        add(d, "windows", V_OK, NULL, "Wine %s, answering as %s %s", s->wine,
            s->os_name[0] ? s->os_name : "Windows", version[0] ? version : "(version unknown)");
    else if (s->os_major < 0)
        add(d, "windows", V_WARNING, "run winagent on Windows 10 or 11",
            "the Windows version cannot be read");
    else if (s->os_major < 10)
        add(d, "windows", V_WARNING,
            "winagent is made and tested for Windows 10 and 11: parts of it may fail here",
            "%s (%s)", name, version);
    else
        add(d, "windows", V_OK, NULL, "%s (%s)", name, version);
}

static void judge_session(struct doctor *d, const struct wa_system_info *s)
{
    if (s->session == 0)
        add(d, "session", V_PROBLEM,
            "run winagent in the signed-in user's session: not as a service, nor from a "
            "scheduled task set to run whether the user is logged on or not",
            "session 0, the services' session: it has no desktop a person sees, so "
            "screenshots, windows and input there reach nothing");
    else if (s->session < 0)
        add(d, "session", V_WARNING, NULL, "the session cannot be read");
    else if (s->remote == 1)
        add(d, "session", V_WARNING,
            "keep the Remote Desktop window open and not minimised while winagent works, or "
            "run it in the console session",
            "session %ld, a remote desktop session: when its window is minimised or "
            "disconnected the desktop stops drawing and input fails",
            s->session);
    else
        add(d, "session", V_OK, NULL, "session %ld%s", s->session,
            s->console_session == s->session ? " (the console's)" : "");
    if (strcmp(s->input_desktop, "Winlogon") == 0)
        add(d, "session", V_WARNING,
            "answer the prompt or unlock the screen: until then winagent's input is refused "
            "(secure_desktop_active)",
            "the secure desktop has the input now (a UAC prompt, or the lock screen)");
    else if (s->input_desktop[0])
        add(d, "session", V_OK, NULL, "the input desktop is %s", s->input_desktop);
}

static void judge_integrity(struct doctor *d, const struct wa_system_info *s)
{
    const char *elevated = s->elevated == 1   ? ", elevated"
                           : s->elevated == 0 ? ", not elevated"
                                              : "";
    if (s->integrity < 0)
        add(d, "integrity", V_WARNING, NULL, "the integrity level cannot be read");
    else if (s->integrity < 0x2000)
        add(d, "integrity", V_PROBLEM,
            "start winagent as the user, not from a sandbox or a low-integrity process",
            "low integrity (0x%lx): Windows drops its input to the user's programs", s->integrity);
    else if (s->integrity < 0x3000)
        add(d, "integrity", V_OK, NULL, "medium integrity%s", elevated);
    else if (s->integrity < 0x4000)
        add(d, "integrity", V_WARNING,
            "run winagent as a normal user unless the task drives programs run as administrator",
            "high integrity%s: the programs it starts and its shell commands run as "
            "administrator too",
            elevated);
    else
        add(d, "integrity", V_PROBLEM,
            "run winagent as the signed-in user, not as SYSTEM or a service account",
            "system integrity: winagent runs as SYSTEM");
    if (s->uiaccess == 1)
        add(d, "uiaccess", V_OK, NULL,
            "UIAccess: its input reaches windows of higher integrity too");
    else if (s->uiaccess == 0)
        add(d, "uiaccess", V_OK,
            "to drive programs run as administrator, run winagent elevated for that task",
            "no UIAccess: windows of programs run as administrator ignore its input "
            "(elevated_target)");
    else
        add(d, "uiaccess", V_WARNING, NULL, "UIAccess cannot be read");
}

static void judge_dpi(struct doctor *d, const struct wa_system_info *s)
{
    static const char *const names[] = {"unknown", "unaware", "system aware", "per-monitor aware",
                                        "per-monitor aware (v2)"};
    const char *name = names[s->dpi_awareness];
    if (s->dpi_awareness >= WA_DPI_PER_MONITOR)
        add(d, "dpi", V_OK, NULL, "%s: every point is a physical pixel", name);
    else if (s->dpi_awareness == WA_DPI_UNKNOWN)
        add(d, "dpi", V_WARNING, NULL, "the DPI awareness cannot be read");
    else
        add(d, "dpi", V_PROBLEM,
            "clear the compatibility override (winagent.exe > Properties > Compatibility > "
            "Change high DPI settings) so that the manifest's per-monitor awareness holds",
            "%s: points on a monitor scaled otherwise than the primary miss their target", name);
}

static void judge_monitors(struct doctor *d)
{
    if (d->n_monitors == 0) {
        add(d, "monitors", V_PROBLEM,
            "attach a display, or keep the remote session connected: winagent sees and acts "
            "on monitors",
            "no monitor");
        return;
    }
    int scales[MAX_MONITORS];
    size_t n_scales = 0;
    char list[120] = "";
    for (size_t i = 0; i < d->n_monitors; i++) {
        const struct wa_monitor *m = &d->monitors[i];
        int pct = (m->dpi * 100 + 48) / 96;
        add(d, "monitors", V_OK, NULL,
            "monitor %zu%s: [%d,%d][%d,%d], work area [%d,%d][%d,%d], scale %d %% (%d dpi)", i + 1,
            m->primary ? " (primary)" : "", m->rect.left, m->rect.top, m->rect.right,
            m->rect.bottom, m->work.left, m->work.top, m->work.right, m->work.bottom, pct, m->dpi);
        bool seen = false;
        for (size_t j = 0; j < n_scales; j++)
            seen = seen || scales[j] == pct;
        if (!seen) {
            scales[n_scales++] = pct;
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%d %%", len ? ", " : "", pct);
        }
    }
    if (n_scales > 1)
        add(d, "monitors", V_WARNING,
            "keep the task's windows on one monitor, or give every monitor the same scale",
            "monitors at different scales (%s): winagent works in physical pixels, but "
            "programs that are not per-monitor aware are stretched on some of them and may "
            "report their elements' bounds there wrongly",
            list);
}

static void judge_uac(struct doctor *d, const struct wa_system_info *s)
{
    int lua = s->uac_enabled, behaviour = s->consent_prompt_admin,
        secure = s->prompt_on_secure_desktop;
    char values[160];
    char b[16] = "not set";
    if (behaviour >= 0)
        snprintf(b, sizeof b, "%d", behaviour);
    snprintf(values, sizeof values,
             "EnableLUA %s, ConsentPromptBehaviorAdmin %s, PromptOnSecureDesktop %s",
             lua < 0 ? "not set"
             : lua   ? "1"
                     : "0",
             b,
             secure < 0 ? "not set"
             : secure   ? "1"
                        : "0");
    if (s->wine[0]) {
        add(d, "uac", V_OK, NULL, "Wine shows no UAC prompts (%s)", values);
        return;
    }
    if (lua < 0)
        lua = 1; /* Windows' defaults where the policy is not set */
    if (behaviour < 0)
        behaviour = 5;
    if (secure < 0)
        secure = 1;
    if (lua == 0)
        add(d, "uac", V_WARNING,
            "turn UAC back on (EnableLUA 1): without it every program runs with the user's "
            "full rights",
            "UAC is off (%s)", values);
    else if (behaviour == 0)
        add(d, "uac", V_WARNING,
            "set ConsentPromptBehaviorAdmin to 5 (the default) so that elevation asks first",
            "administrators are elevated without a prompt (%s): a program winagent starts "
            "as administrator runs elevated unasked",
            values);
    else if (behaviour <= 2 || secure)
        add(d, "uac", V_WARNING,
            "a person answers each UAC prompt (winagent's input is refused, secure_desktop_active, "
            "while "
            "one is up); run the task's programs without elevation where you can. Turning the "
            "secure desktop off would let any program answer prompts: not advised",
            "UAC prompts appear on the secure desktop, where no program can see or answer "
            "them (%s)",
            values);
    else
        add(d, "uac", V_OK, NULL,
            "UAC prompts appear on the user's desktop (%s); winagent's gate refuses them as "
            "it refuses every credential prompt",
            values);
}

static void judge_uia(struct doctor *d, const struct wa_system_info *s)
{
    if (s->uia == 1)
        add(d, "ui_automation", V_OK, NULL, "reachable: %s", s->uia_detail);
    else
        add(d, "ui_automation", V_WARNING,
            "trees then come from MSAA and the controls' own messages, which show less of "
            "WPF, UWP and browser windows; on Windows, repair the system files (sfc /scannow)",
            "not reachable: %s", s->uia_detail[0] ? s->uia_detail : "unknown");
}

static void judge_machine(struct doctor *d)
{
    const struct wa_backend *b = host_backend();
    if (!b) {
        add(d, "backend", V_PROBLEM, "see the message above", "the desktop backend cannot start");
        return;
    }
    wa_err e = backend_system_info(b, &d->sys);
    if (e)
        add(d, "backend", V_WARNING, NULL, "the %s backend cannot describe the machine: %s",
            b->name, wa_err_detail());
    wa_err_clear();
    judge_windows(d, &d->sys);
    judge_session(d, &d->sys);
    judge_integrity(d, &d->sys);
    judge_dpi(d, &d->sys);
    if (backend_monitors(b, d->monitors, MAX_MONITORS, &d->n_monitors))
        d->n_monitors = 0;
    wa_err_clear();
    judge_monitors(d);
    judge_uac(d, &d->sys);
    judge_uia(d, &d->sys);
}

/* ---- the model ---- */

static const char *server_advice(wa_err e, long status)
{
    if (e == WA_E_HTTP && (status == 401 || status == 403))
        return "check LLM_API_KEY: the server refused it";
    if (e == WA_E_HTTP && status == 404)
        return "check LLM_BASE_URL and LLM_MODEL: the server knows no such model or path";
    if (e == WA_E_NETWORK || e == WA_E_TIMEOUT)
        return "check LLM_BASE_URL, that the server runs and that a proxy (HTTPS_PROXY) lets "
               "winagent through";
    return "see the server's message; `winagent config` shows every setting and its source";
}

/* One short real request: the same client, provider and wire as a run's. */
static void ask_server(struct doctor *d, enum llm_provider_kind provider, const struct settings *s)
{
    struct llm_config lc = {
        .provider = provider,
        .base_url = settings_get(s, SET_BASE_URL),
        .model = settings_get(s, SET_MODEL),
        .api_key = settings_get(s, SET_API_KEY),
        .stream = false,
        .connect_timeout_s = 10,
        .timeout_s = 60,
        .max_retries = -1,
        .temperature = -1,
    };
    struct llm_client *client = NULL;
    struct llm_conversation conv;
    struct llm_reply reply = {0};
    llm_conversation_init(&conv);
    wa_err e = llm_client_new(&lc, &client);
    if (!e)
        e = llm_conversation_add_user(&conv, "Reply with the single word: ok", NULL, 0);
    if (!e)
        e = llm_complete(client, &conv, NULL, 0, &reply);
    if (e) {
        char status[32] = "no answer";
        if (reply.http_status)
            snprintf(status, sizeof status, "answered HTTP %ld", reply.http_status);
        add(d, "model_server", e == WA_E_RATE_LIMITED || e == WA_E_QUOTA ? V_WARNING : V_PROBLEM,
            server_advice(e, reply.http_status), "%s: %s: %s", status, wa_err_code(e),
            wa_err_detail());
    } else {
        char said[48];
        term_escape(reply.text ? reply.text : "", said, sizeof said);
        add(d, "model_server", V_OK, NULL, "answered in %.1f s (HTTP %ld): \"%s\"",
            reply.elapsed_ms / 1000.0, reply.http_status, said);
    }
    wa_err_clear();
    llm_reply_cleanup(&reply);
    llm_conversation_cleanup(&conv);
    llm_client_free(client);
}

static void judge_model(struct doctor *d, const struct settings *s)
{
    enum llm_provider_kind provider = LLM_PROVIDER_OPENAI;
    const char *model = settings_get(s, SET_MODEL), *base = settings_get(s, SET_BASE_URL);
    bool key = settings_get(s, SET_API_KEY) != NULL;
    char key_text[200];
    if (key)
        snprintf(key_text, sizeof key_text, "key set (%s)", setting_source_name(s, SET_API_KEY));
    else
        snprintf(key_text, sizeof key_text, "no key");
    if (llm_provider_from_name(settings_get(s, SET_PROVIDER), &provider)) {
        add(d, "model", V_PROBLEM,
            "set LLM_PROVIDER to openai-compatible, openai-responses, "
            "google or anthropic",
            "%s", wa_err_detail());
        wa_err_clear();
        return;
    }
    const char *missing = !model ? "no model (LLM_MODEL)"
                          : provider == LLM_PROVIDER_OPENAI && !base
                              ? "no server (LLM_BASE_URL, required for openai-compatible)"
                              : NULL;
    char line[TEXT_CAP];
    snprintf(line, sizeof line, "provider %s, model %s, server %s, %s", llm_provider_name(provider),
             model ? model : "(unset)", base ? base : "(the provider's default)", key_text);
    if (missing) {
        add(d, "model", V_PROBLEM,
            "set LLM_MODEL and LLM_BASE_URL (environment, .env beside the exe, or --model and "
            "--base-url); `winagent config` shows where each setting comes from",
            "%s: %s", missing, line);
        add(d, "model_server", V_PROBLEM, "complete the model's settings first",
            "not asked: the model's settings are incomplete");
        return;
    }
    add(d, "model", key ? V_OK : V_WARNING,
        key ? NULL : "set LLM_API_KEY for a hosted service (a local server needs none)", "%s",
        line);
    ask_server(d, provider, s);
}

/* ---- output ---- */

static cJSON *system_json(const struct doctor *d)
{
    static const char *const dpi[] = {"unknown", "unaware", "system", "per_monitor",
                                      "per_monitor_v2"};
    const struct wa_system_info *s = &d->sys;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "product", s->os_name);
    cJSON_AddStringToObject(o, "release", s->os_release);
    cJSON *v = cJSON_AddArrayToObject(o, "version");
    int parts[] = {s->os_major, s->os_minor, s->os_build, s->os_revision};
    for (int i = 0; i < 4; i++)
        cJSON_AddItemToArray(v, cJSON_CreateNumber(parts[i]));
    cJSON_AddStringToObject(o, "wine", s->wine);
    cJSON_AddNumberToObject(o, "session", (double)s->session);
    cJSON_AddNumberToObject(o, "console_session", (double)s->console_session);
    cJSON_AddNumberToObject(o, "remote", s->remote);
    cJSON_AddStringToObject(o, "input_desktop", s->input_desktop);
    cJSON_AddNumberToObject(o, "integrity", (double)s->integrity);
    cJSON_AddNumberToObject(o, "elevated", s->elevated);
    cJSON_AddNumberToObject(o, "uiaccess", s->uiaccess);
    cJSON_AddStringToObject(o, "dpi_awareness", dpi[s->dpi_awareness]);
    cJSON *uac = cJSON_AddObjectToObject(o, "uac");
    cJSON_AddNumberToObject(uac, "EnableLUA", s->uac_enabled);
    cJSON_AddNumberToObject(uac, "ConsentPromptBehaviorAdmin", s->consent_prompt_admin);
    cJSON_AddNumberToObject(uac, "PromptOnSecureDesktop", s->prompt_on_secure_desktop);
    cJSON_AddNumberToObject(o, "uia", s->uia);
    cJSON_AddStringToObject(o, "uia_detail", s->uia_detail);
    cJSON *mons = cJSON_AddArrayToObject(o, "monitors");
    for (size_t i = 0; i < d->n_monitors; i++) {
        const struct wa_monitor *m = &d->monitors[i];
        cJSON *j = cJSON_CreateObject();
        int r[] = {m->rect.left, m->rect.top, m->rect.right, m->rect.bottom};
        int w[] = {m->work.left, m->work.top, m->work.right, m->work.bottom};
        cJSON_AddItemToObject(j, "rect", cJSON_CreateIntArray(r, 4));
        cJSON_AddItemToObject(j, "work", cJSON_CreateIntArray(w, 4));
        cJSON_AddBoolToObject(j, "primary", m->primary);
        cJSON_AddNumberToObject(j, "dpi", m->dpi);
        cJSON_AddNumberToObject(j, "scale_percent", (m->dpi * 100 + 48) / 96);
        cJSON_AddItemToArray(mons, j);
    }
    return o;
}

static void print_json(const struct doctor *d, const size_t count[3])
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "winagent", WINAGENT_VERSION);
    cJSON *checks = cJSON_AddArrayToObject(o, "checks");
    for (size_t i = 0; i < d->n; i++) {
        const struct check *c = &d->checks[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "section", c->section);
        cJSON_AddStringToObject(j, "verdict", verdict_names[c->verdict]);
        cJSON_AddStringToObject(j, "text", c->text);
        if (c->advice)
            cJSON_AddStringToObject(j, "advice", c->advice);
        cJSON_AddItemToArray(checks, j);
    }
    cJSON_AddItemToObject(o, "system", system_json(d));
    cJSON *sum = cJSON_AddObjectToObject(o, "summary");
    for (int v = 0; v < 3; v++)
        cJSON_AddNumberToObject(sum, verdict_names[v], (double)count[v]);
    char *text = cJSON_PrintUnformatted(o);
    if (text)
        term_json(stdout, text);
    free(text);
    cJSON_Delete(o);
}

static void print_text(const struct doctor *d, const size_t count[3])
{
    term_line(stdout, "winagent %s (%s) doctor", WINAGENT_VERSION, WINAGENT_TARGET);
    for (size_t i = 0; i < d->n; i++) {
        const struct check *c = &d->checks[i];
        term_line(stdout, "%-8s %-14s %s", verdict_names[c->verdict], c->section, c->text);
        if (c->advice && c->verdict != V_OK)
            term_line(stdout, "%-23s -> %s", "", c->advice);
    }
    term_line(stdout, "%zu ok, %zu warning%s, %zu problem%s", count[V_OK], count[V_WARNING],
              count[V_WARNING] == 1 ? "" : "s", count[V_PROBLEM], count[V_PROBLEM] == 1 ? "" : "s");
}

int cmd_doctor(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    struct settings s;
    wa_err e = settings_load(&s, &a, SG_RUN);
    bool json = !e && args_flag(&a, "json", NULL);
    if (!e)
        e = args_check_unknown(&a);
    if (!e && args_positional(&a, 0))
        e = wa_fail(WA_E_USAGE, "doctor takes no arguments (usage: winagent doctor [--json])");
    if (e) {
        settings_cleanup(&s);
        return exit_fail(e);
    }
    struct doctor *d = calloc(1, sizeof *d);
    if (!d) {
        settings_cleanup(&s);
        return exit_fail(wa_fail(WA_E_NOMEM, "out of memory"));
    }
    wa_system_info_init(&d->sys);
    judge_machine(d);
    judge_model(d, &s);
    settings_cleanup(&s);
    size_t count[3] = {0, 0, 0};
    for (size_t i = 0; i < d->n; i++)
        count[d->checks[i].verdict]++;
    if (json)
        print_json(d, count);
    else
        print_text(d, count);
    int code = count[V_PROBLEM] ? EXIT_USAGE : EXIT_OK;
    free(d);
    return code;
}
