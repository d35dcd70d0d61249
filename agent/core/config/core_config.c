/* A core's configuration from the resolved settings, and a session's default options. */
#include "agent/core/config/core_config.h"

#include <string.h>

#include "base/str.h"

/* --takeover and --idle-seconds; the default is off with background delivery, which
 * never touches the person's input. */
static wa_err takeover_from_settings(const struct settings *s, struct core_config *out)
{
    double idle;
    wa_err e = settings_num(s, SET_IDLE_SECONDS, 0.1, 3600, 3, &idle);
    if (e)
        return e;
    out->idle_ms = (int)(idle * 1000.0 + 0.5);
    const char *t = settings_get(s, SET_TAKEOVER);
    if (s->source[SET_TAKEOVER] == SRC_DEFAULT && out->delivery == DELIVERY_BACKGROUND)
        out->takeover = TAKEOVER_OFF;
    else if (!t || str_ieq(t, "pause"))
        out->takeover = TAKEOVER_PAUSE;
    else if (str_ieq(t, "stop"))
        out->takeover = TAKEOVER_STOP;
    else if (str_ieq(t, "off"))
        out->takeover = TAKEOVER_OFF;
    else
        return wa_fail(WA_E_CONFIG, "takeover must be pause, stop or off, not '%s' (from %s)", t,
                       setting_source_name(s, SET_TAKEOVER));
    return WA_E_OK;
}

wa_err core_config_from_settings(const struct settings *s, bool loop, struct core_config *out)
{
    memset(out, 0, sizeof *out);
    out->dry_run = settings_on(s, SET_DRY_RUN);
    out->restricted = settings_get(s, SET_RESTRICTED);
    out->apps = settings_get(s, SET_APPS);
    out->audit_path = settings_get(s, SET_AUDIT_LOG);
    out->state_dir = settings_get(s, SET_STATE_DIR);
    out->shell_program = settings_get(s, SET_SHELL_PROGRAM);
    wa_err e = settings_num(s, SET_MAX_ACTIONS, 0.01, 10000, 10, &out->max_actions_per_s);
    if (e)
        return e;
    const char *d = settings_get(s, SET_DELIVERY);
    if (!d || str_ieq(d, "foreground"))
        out->delivery = DELIVERY_FOREGROUND;
    else if (str_ieq(d, "background"))
        out->delivery = DELIVERY_BACKGROUND;
    else if (str_ieq(d, "auto"))
        out->delivery = DELIVERY_AUTO;
    else
        return wa_fail(WA_E_CONFIG,
                       "delivery must be foreground, background or auto, not '%s' (from %s)", d,
                       setting_source_name(s, SET_DELIVERY));
    if ((e = takeover_from_settings(s, out)))
        return e;
    if (!loop) {
        out->shell = settings_on(s, SET_ALLOW_SHELL) ? SHELL_ALLOWED : SHELL_DENIED;
        return WA_E_OK;
    }
    const char *v = settings_get(s, SET_SHELL);
    if (str_ieq(v, "on"))
        out->shell = SHELL_ALLOWED;
    else if (str_ieq(v, "off"))
        out->shell = SHELL_DENIED;
    else if (str_ieq(v, "confirm"))
        out->shell = SHELL_ASK;
    else
        return wa_fail(WA_E_CONFIG,
                       "the shell policy must be on, off or confirm, not '%s' (from %s)",
                       v ? v : "", setting_source_name(s, SET_SHELL));
    return WA_E_OK;
}

void session_opts_default(struct session_opts *o)
{
    memset(o, 0, sizeof *o);
    o->front = "api";
    o->observe.mode = OBS_AUTO;
    o->observe.max_edge = 1280;
    o->observe.tree_budget_ms = 3000;
    o->after = AFTER_NONE;
    o->settle_ms = 300;
}
