/* Window operations, launching programs and the shell. */
#include <stdio.h>
#include <string.h>

#include "agent/core/gate/launch.h"
#include "agent/core/perform/operations.h"
#include "agent/core/call/guard.h"
#include "agent/core/call/target.h"
#include "agent/core/call/verify.h"
#include "base/str.h"
#include "base/term_text.h"

#define LAUNCH_TIMEOUT_MS 10000
#define SHELL_CAP_BYTES   (16u << 10) /* each of stdout and stderr, head and tail kept */

/* The window a window operation works on; a missing one is an error when required. */
static wa_err op_window(struct call *k, bool required, uint64_t *hwnd)
{
    if (required && !k->q->window.given && !k->s->pinned)
        return wa_fail(WA_E_INVALID_ARGS,
                       "%s needs \"window\" (a title, a process name or a "
                       "handle)",
                       k->name);
    wa_err e = target_window(k, hwnd);
    if (!e)
        e = guard_receiver(k, *hwnd, "");
    if (!e)
        target_report(k, *hwnd);
    if (!e)
        call_summary(k, "%s \"%.60s\"", k->name, k->r->has_window ? k->r->window.title : "");
    return e;
}

/* A backend's word on a success (a size it limited, a window that asked to save). */
static void backend_note(struct call *k)
{
    if (*wa_err_detail())
        op_result_note(k->r, "%s", wa_err_detail());
    wa_err_clear();
}

wa_err perform_focus_window(struct call *k)
{
    uint64_t hwnd;
    wa_err e = op_window(k, true, &hwnd);
    if (e || k->dry)
        return e;
    if ((e = backend_focus_window(k->be, hwnd)))
        return e;
    target_use(k, hwnd, k->r->window.rect); /* the next actions go there */
    return WA_E_OK;
}

wa_err perform_move_window(struct call *k)
{
    const struct op_request *q = k->q;
    uint64_t hwnd;
    wa_err e = op_window(k, true, &hwnd);
    if (e || k->dry)
        return e;
    struct wa_rect r = {q->x, q->y, q->x + q->width, q->y + q->height};
    wa_err_clear();
    e = backend_move_window(k->be, hwnd, r);
    if (!e)
        backend_note(k);
    return e;
}

wa_err perform_set_window_state(struct call *k)
{
    uint64_t hwnd;
    wa_err e = op_window(k, false, &hwnd);
    if (e || k->dry)
        return e;
    wa_err_clear();
    e = backend_set_window_state(k->be, hwnd, k->q->state);
    if (!e)
        backend_note(k);
    return e ? e : verify_window_state(k, hwnd, k->q->state); /* ok only once it is so */
}

wa_err perform_close_window(struct call *k)
{
    uint64_t hwnd;
    wa_err e = op_window(k, false, &hwnd);
    if (e || k->dry)
        return e;
    wa_err_clear();
    if ((e = backend_close_window(k->be, hwnd)))
        return e;
    backend_note(k); /* e.g. still open: a save prompt came up */
    struct wa_window w;
    bool still = backend_window_info(k->be, hwnd, &w) == WA_E_OK;
    if (still)
        wa_window_cleanup(&w);
    k->r->has_closed = true;
    k->r->closed = !still;
    if (!still && k->s->target == hwnd) {
        k->s->target = 0;
        k->s->have_frame = false;
    }
    return WA_E_OK;
}

/* The shell permission for a command: refused, confirmed, or given. */
static wa_err shell_permission(struct call *k, const char *what, const char *command)
{
    switch (k->c->cfg.shell) {
    case SHELL_ALLOWED:
        return WA_E_OK;
    case SHELL_ASK: {
        if (k->dry)
            return WA_E_OK;
        /* What is shown is what runs: control and bidi characters escaped, and the end
         * of a command never hidden (one too long to show whole is refused). */
        char shown[4096];
        if (!term_escape(command, shown, sizeof shown))
            return wa_fail(WA_E_DENIED,
                           "the command (%zu bytes) is too long to be shown whole for "
                           "confirmation; it was not run",
                           strlen(command));
        if (k->c->cfg.confirm && k->c->cfg.confirm(k->c->cfg.confirm_ctx, what, shown))
            return WA_E_OK;
        return wa_fail(WA_E_DENIED, "the user declined to run it");
    }
    default:
        return wa_fail(WA_E_SHELL_DISABLED,
                       "%s needs the shell permission, which is off (--shell on|confirm for a "
                       "run; --allow-shell for act, the CLI, mcp and serve)",
                       what);
    }
}

/* A program that started a window of a restricted process (or of one that cannot be
 * identified) is said to have started and been refused: no title, image or tree of it. */
static wa_err launched_window_check(struct call *k, uint64_t hwnd, const char *command)
{
    struct wa_window w;
    if (backend_window_info(k->be, hwnd, &w) != WA_E_OK) {
        wa_err_clear();
        return WA_E_OK; /* gone already: nothing to show either way */
    }
    wa_err e = target_check(k, &w);
    wa_window_cleanup(&w);
    if (!e)
        return WA_E_OK;
    return wa_fail(WA_E_DENIED,
                   "\"%.80s\" started, and its window is refused: it belongs to a restricted "
                   "process (or one outside --apps), so nothing of it is shown or acted on",
                   command);
}

wa_err perform_launch(struct call *k)
{
    struct launch_plan plan;
    const char *command = k->q->command ? k->q->command : "";
    call_summary(k, "%s %.80s", k->name, command);
    wa_err e = launch_plan_make(k->be, command, &plan);
    if (e)
        return e;
    /* With an allow-list, only its programs start (a command line's program too). */
    const char *file = plan.file ? plan.file : plan.program;
    if (!gate_app_listed(k->c->gate, str_path_base(file), plan.file)) {
        if (gate_app_named(k->c->gate, str_path_base(file)))
            e = wa_fail(WA_E_DENIED,
                        "%s refused: --apps names %.60s by its name, which names only an "
                        "installed program, and %.120s is not installed (%.150s); name its "
                        "whole path in --apps to use it",
                        k->name, str_path_base(file), plan.file ? plan.file : file,
                        plan.far_reason[0] ? plan.far_reason : "its place is unknown");
        else
            e = wa_fail(WA_E_DENIED,
                        "%s refused: %.120s is none of the programs winagent may use "
                        "(--apps %.200s)",
                        k->name, str_path_base(file), gate_apps_text(k->c->gate));
        goto out;
    }
    /* On a share or not installed, it needs the shell permission too, unless
     * the allow-list names that very file. */
    if (plan.far && !plan.needs_shell && !gate_app_path_listed(k->c->gate, plan.file)) {
        plan.needs_shell = true;
        snprintf(plan.reason, sizeof plan.reason, "%s", plan.far_reason);
    }
    if (plan.needs_shell) {
        char what[600];
        snprintf(what, sizeof what, "launching \"%.80s\" (%s)", command, plan.reason);
        if ((e = shell_permission(k, what, command)))
            goto out;
        k->r->shell_used = true;
    }
    if (k->dry)
        goto out;
    uint64_t hwnd = 0;
    if ((e = backend_launch(k->be, plan.kind, plan.command, LAUNCH_TIMEOUT_MS, &hwnd)))
        goto out;
    if (hwnd && (e = launched_window_check(k, hwnd, command)))
        goto out;
    if (hwnd) {
        target_report(k, hwnd);
        k->r->hwnd = hwnd;
        if (k->r->has_window)
            target_use(k, hwnd, k->r->window.rect);
    } else {
        op_result_note(k->r, "started; no window of it appeared yet");
    }
out:
    launch_plan_cleanup(&plan);
    return e;
}

wa_err perform_shell(struct call *k)
{
    const char *command = k->q->command ? k->q->command : "";
    call_summary(k, "%s %.60s", k->name, command);
    wa_err e = shell_permission(k, "a shell command", command);
    if (!e && gate_has_apps(k->c->gate)) {
        /* The shell is a program too: with an allow-list, it runs only when listed. */
        char shell[260];
        const char *prog = k->c->shell_program ? k->c->shell_program : "powershell.exe";
        if (*prog == '"')
            snprintf(shell, sizeof shell, "%.*s", (int)strcspn(prog + 1, "\""), prog + 1);
        else
            snprintf(shell, sizeof shell, "%.*s", (int)strcspn(prog, " \t"), prog);
        if (!gate_shell_listed(k->c->gate, shell))
            e = wa_fail(WA_E_DENIED,
                        "%s refused: the shell (%s) is none of the programs winagent may use "
                        "(--apps %.200s)",
                        k->name, str_path_base(shell), gate_apps_text(k->c->gate));
    }
    if (e || k->dry)
        return e;
    if ((e = backend_run_shell(k->be, k->c->shell_program, command, k->q->timeout_s * 1000,
                               SHELL_CAP_BYTES, &k->r->shell)))
        return e;
    k->r->has_shell = true;
    return WA_E_OK;
}
