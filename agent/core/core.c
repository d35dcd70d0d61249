/* The one path every operation takes: gate, rate limit, serialisation, the operation,
 * what it returns after acting, and the audit line. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/core.h"
#include "agent/core/call/call.h"
#include "agent/core/call/look.h"
#include "agent/core/perform/operations.h"
#include "agent/core/call/person.h"
#include "agent/core/call/refs.h"
#include "agent/core/call/send.h"
#include "agent/core/call/verify.h"
#include "agent/core/call/target.h"
#include "agent/core/request/wire.h"
#include "automation/tree_format.h"
#include "base/str.h"

#define INPUT_LOCK_WAIT_MS 15000 /* another winagent's input, at most, before giving up */

/* ---- the core ---- */

/* The gate's question of a program an allow-list names by name: is it installed. */
static bool program_installed(void *ctx, const char *path)
{
    struct wa_program_info info;
    bool yes = backend_program_place(ctx, path, &info) == WA_E_OK && info.place == WA_PLACE_SYSTEM;
    wa_program_info_cleanup(&info);
    wa_err_clear();
    return yes;
}

wa_err core_new(const struct core_config *cfg, struct core **out)
{
    *out = NULL;
    struct core *c = calloc(1, sizeof *c);
    if (!c || !(c->input = os_mutex_new())) {
        free(c);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    c->cfg = *cfg;
    c->be = cfg->be;
    c->cfg.restricted = c->cfg.restricted_only = c->cfg.audit_path = c->cfg.state_dir = NULL;
    c->cfg.apps = NULL;
    c->cfg.shell_program = NULL;
    if (c->cfg.idle_ms <= 0)
        c->cfg.idle_ms = 3000;
    struct gate_config gc = {
        .restricted_extra = cfg->restricted,
        .restricted_only = cfg->restricted_only,
        .apps = cfg->apps,
        .max_actions_per_s = cfg->max_actions_per_s,
        .audit_path = cfg->audit_path,
        .installed = program_installed,
        .installed_ctx = (void *)cfg->be,
    };
    wa_err e = gate_new(&gc, &c->gate);
    if (!e && cfg->state_dir) {
        c->state_dir = str_dup(cfg->state_dir);
    } else if (!e) {
        char *tmp = os_temp_dir();
        size_t n = (tmp ? strlen(tmp) : 1) + 32;
        if ((c->state_dir = malloc(n)))
            snprintf(c->state_dir, n, "%s/winagent-state", tmp ? tmp : ".");
        free(tmp);
    }
    if (!e && cfg->shell_program && *cfg->shell_program &&
        !(c->shell_program = str_dup(cfg->shell_program)))
        e = wa_fail(WA_E_NOMEM, "out of memory");
    if (!e && !c->state_dir)
        e = wa_fail(WA_E_NOMEM, "out of memory");
    if (!e && cfg->watch_person)
        person_watch(c);
    if (e) {
        core_free(c);
        return e;
    }
    *out = c;
    return WA_E_OK;
}

void core_free(struct core *c)
{
    if (!c)
        return;
    gate_free(c->gate);
    os_mutex_free(c->input);
    free(c->state_dir);
    free(c->shell_program);
    free(c);
}

bool core_dry_run(const struct core *c)
{
    return c->cfg.dry_run;
}

const char *core_state_dir(const struct core *c)
{
    return c->state_dir;
}

void core_watch_person(struct core *c)
{
    person_watch(c);
}

enum shell_permission core_shell(const struct core *c)
{
    return c->cfg.shell;
}

/* ---- sessions ---- */

wa_err session_new(struct core *c, const struct session_opts *o, struct session **out)
{
    *out = NULL;
    struct session *s = calloc(1, sizeof *s);
    if (!s || !(s->lock = os_mutex_new())) {
        free(s);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    s->core = c;
    if (o)
        s->o = *o;
    else
        session_opts_default(&s->o);
    tree_init(&s->tree);
    *out = s;
    return WA_E_OK;
}

void session_free(struct session *s)
{
    if (!s)
        return;
    send_release_held(s); /* a session never ends with a key or button held */
    tree_cleanup(&s->tree);
    cJSON_Delete(s->refs);
    os_mutex_free(s->lock);
    free(s);
}

wa_err session_pin_window(struct session *s, const struct window_ref *w)
{
    return target_pin(s, w);
}

struct core *session_core(const struct session *s)
{
    return s->core;
}

const struct wa_tree *session_tree(const struct session *s)
{
    return s->have_tree ? &s->tree : NULL;
}

/* ---- shared by the operations ---- */

/* ---- perform ---- */

/* The core's function of each operation, from the table. */
static wa_err (*const performers[OP__COUNT])(struct call *k) = {
#define X_FN(id, fn) [OP_##id] = perform_##fn,
    OP_MAP(X_FN)
#undef X_FN
};

/* ---- delivery ---- */

/* Why an input operation has no background route. */
static const char *no_route_reason(enum op_id op)
{
    switch (op) {
    case OP_KEY:
        return "keys go to whatever has the keyboard focus of the foreground window; `type` "
               "with a ref posts text to a control, `invoke` and `fill` act without keys";
    case OP_DRAG:
    case OP_DRAG_AT:
        return "a drag needs the real mouse button held while the cursor moves";
    case OP_MOUSE_MOVE:
        return "hovering is the real cursor's position";
    case OP_FOCUS_ELEMENT:
        return "it moves the keyboard focus, which background delivery leaves alone";
    case OP_SELECT_MENU:
        return "menus open only for the window in the foreground";
    case OP_FOCUS_WINDOW:
        return "it brings a window to the front";
    default:
        return "it needs the foreground";
    }
}

/* The operation, refused before anything is sent when background delivery has no
 * route for it. */
static wa_err perform_op(struct call *k)
{
    const struct op_def *op = k->q->op;
    if (k->send.background && !(op->flags & OPF_BACKGROUND))
        return wa_fail(WA_E_BACKGROUND_UNAVAILABLE, "%s has no background route: %s", k->name,
                       no_route_reason(op->id));
    return performers[op->id](k);
}

/* Performs an input operation as delivered: background, foreground, or auto's
 * background first and, where that says background_unavailable before sending,
 * foreground from a clean result, with a note saying so. */
static wa_err perform_delivered(struct call *k, enum delivery d)
{
    struct op_result *r = k->r;
    wa_err e = perform_op(k);
    if (e == WA_E_BACKGROUND_UNAVAILABLE && d == DELIVERY_AUTO && k->send.background) {
        char why[512];
        snprintf(why, sizeof why, "%s", wa_err_detail());
        double wait_ms = r->wait_ms;
        op_result_cleanup(r);
        r->op = k->q->op;
        r->wait_ms = wait_ms;
        if (k->q->note[0])
            op_result_note(r, "%s", k->q->note);
        op_result_note(r, "background_unavailable: %s; delivered in the foreground", why);
        k->send.background = false;
        k->receiver = 0;
        k->receiver_process[0] = '\0';
        k->verify.settled = k->send.pattern_action = k->send.via_pattern = false;
        k->send.text_control = 0;
        k->target.noted_match = 0;
        wa_err_clear();
        e = perform_op(k);
    }
    r->delivery = k->send.background ? "background" : "foreground";
    return e;
}

/* The window state the result reports: the operation's window, else the session's,
 * else the one looked at after acting; 0 when none is left. */
static uint64_t report_window_state(struct call *k, uint64_t after)
{
    struct session *s = k->s;
    struct op_result *r = k->r;
    uint64_t win = r->hwnd ? r->hwnd : s->pinned ? s->pinned : s->target;
    if (!win || !target_alive(k, win))
        win = after;
    struct wa_window w;
    if (win && backend_window_info(k->be, win, &w) == WA_E_OK) {
        target_mask(k, &w); /* a credential prompt in front says no more */
        r->window_state = w;
        r->has_window_state = true;
        return win;
    }
    return 0;
}

/* --return-state: the window's fresh state, its refs renewed. */
static void return_state(struct call *k, uint64_t win)
{
    struct session *s = k->s;
    struct op_result *r = k->r;
    struct dynbuf text;
    dynbuf_init(&text, 16u << 20);
    struct tree_format_opts fo = {.max_depth = -1, .scope = -1};
    wa_err e = s->have_tree && s->tree.hwnd == win ? WA_E_OK : look_fresh_tree(k, win);
    if (!e)
        e = tree_format(&s->tree, &fo, &text);
    if (!e && s->o.refs)
        e = refs_save(k);
    if (!e) {
        free(r->text);
        r->text = dynbuf_take(&text);
        r->has_text = r->text != NULL;
    } else {
        op_result_note(r, "no state after acting: %s", wa_err_detail());
    }
    dynbuf_cleanup(&text);
}

/* A target that crashed or hung while acting: the action's error, the windows that
 * opened and closed meanwhile (a crash dialog) reported, and named in the message. */
static wa_err lost_target(struct call *k, wa_err fate)
{
    char why[512];
    snprintf(why, sizeof why, "%s", wa_err_detail());
    verify_report_changes(k); /* windows only: the lost window's tree is not walked */
    char lines[400];
    size_t n = 0;
    for (const char *p = dynbuf_str(&k->r->changes); *p && n + 3 < sizeof lines; p++) {
        if (*p != '\n') {
            lines[n++] = *p;
        } else if (p[1]) {
            lines[n++] = ';';
            lines[n++] = ' ';
        }
    }
    lines[n] = '\0';
    return wa_fail(fate, "%s%s%s", why, n ? "; " : "", lines);
}

/* After an acting call: the wait for its effect, what became of the target when it went
 * silent (target_gone, target_hung), the look after it and what changed, the window's
 * state, the image and fresh state asked for. */
static wa_err after_action(struct call *k)
{
    struct session *s = k->s;
    const struct op_request *q = k->q;
    struct op_result *r = k->r;
    bool image = op_request_has(q, ARG_SCREENSHOT) ? q->screenshot : s->o.after == AFTER_IMAGE;
    bool input = (q->op->flags & (OPF_INPUT | OPF_WINDOWS)) != 0;
    double start = os_clock_ms(), settled_before = r->settle_ms;
    if (!k->dry && !k->verify.settled && input)
        verify_settle(k);
    wa_err fate = k->verify.silent && !k->dry ? verify_target_fate(k) : WA_E_OK;
    if (fate) {
        char why[512];
        snprintf(why, sizeof why, "%s", wa_err_detail());
        report_window_state(k, look_after_window(k));
        wa_fail(fate, "%s", why);
        return lost_target(k, fate);
    }
    if (input && !k->dry)
        verify_started(k); /* programs the action started show their windows first */
    uint64_t after = look_after_window(k);
    look_after(k, after, input);
    if (input && !k->dry)
        verify_report_changes(k);
    double t0 = os_clock_ms();
    uint64_t win = report_window_state(k, after);
    double record = os_clock_ms() - t0;
    r->record_ms += record;
    if (image && win && look_image(k, win, (struct wa_rect){0, 0, 0, 0}, s->o.observe.max_edge))
        op_result_note(r, "no screenshot after acting: %s", wa_err_detail());
    if (q->return_state && win)
        return_state(k, win);
    /* The look after is the rest of this: the tree walked for the change report, the
     * hashes and window checks, the screenshot and state asked for. */
    double named = r->settle_ms - settled_before + r->obs.capture_ms + r->obs.encode_ms +
                   r->obs.tree_ms + r->diff_ms + record;
    double all = os_clock_ms() - start;
    r->after_ms = all > named ? all - named : 0;
    return WA_E_OK;
}

/* An input operation that failed the way a dying or hung target makes it fail (no
 * answer, its window or element gone): what became of the target says which. */
static wa_err lost_or(struct call *k, wa_err e)
{
    bool input = (k->q->op->flags & OPF_INPUT) != 0;
    if (k->dry || !input || !k->look.before.have ||
        (e != WA_E_TIMEOUT && e != WA_E_ACTION_FAILED && e != WA_E_WINDOW_NOT_FOUND &&
         e != WA_E_STALE_REF && e != WA_E_FOCUS_LOST && e != WA_E_FOCUS_FAILED))
        return e;
    char why[512];
    snprintf(why, sizeof why, "%s", wa_err_detail());
    wa_err fate = verify_target_fate(k);
    if (!fate) {
        wa_fail(e, "%s", why); /* the operation's own error stands */
        return e;
    }
    return lost_target(k, fate);
}

/* Audits an acting request's outcome. */
static void audit(struct call *k, wa_err e)
{
    cJSON *params = wire_request_args(k->q, WIRE_CLI, WIRE_TEXT_AS_LENGTH);
    struct gate_audit_line l = {
        .front = k->s->o.front,
        .command = k->name,
        .op = k->q->op->name,
        .params = params,
        .window = k->receiver ? k->receiver : k->r->hwnd,
        .process = k->receiver_process,
        .dry_run = k->dry,
        .outcome = e,
        .error = e ? (*wa_err_detail() ? wa_err_detail() : wa_err_message(e)) : NULL,
    };
    if (!k->receiver && k->r->hwnd) { /* a window operation: its window's process */
        struct wa_window w;
        if (backend_window_info(k->be, k->r->hwnd, &w) == WA_E_OK) {
            snprintf(k->receiver_process, sizeof k->receiver_process, "%s", w.process);
            wa_window_cleanup(&w);
        } else if (k->r->has_window) {
            snprintf(k->receiver_process, sizeof k->receiver_process, "%s", k->r->window.process);
        }
    }
    gate_audit(k->c->gate, &l);
    cJSON_Delete(params);
}

/* Takes what an operation needs before it runs: a slot of the rate limit (acting
 * operations) and the input lock (input and window operations), so that input from
 * two clients, or two processes, never interleaves. *lock is the cross-process lock. */
static wa_err take_turn(struct call *k, bool acts, bool input, intptr_t *lock)
{
    double t_wait = os_clock_ms();
    wa_err e = acts ? gate_take_slot(k->c->gate) : WA_E_OK;
    if (!e && input) {
        os_mutex_lock(k->c->input);
        if ((e = os_input_lock(INPUT_LOCK_WAIT_MS, lock)))
            os_mutex_unlock(k->c->input);
    }
    k->r->wait_ms = os_clock_ms() - t_wait;
    return e;
}

static void unlock_input(struct core *c, intptr_t lock)
{
    os_input_unlock(lock);
    os_mutex_unlock(c->input);
}

/* A call a person at the desk interrupted, in a run: it waits until they have been idle,
 * then looks again (what changed, a fresh observation) and still fails with user_active,
 * having sent nothing more, so that the model decides again from what is there now. */
static wa_err after_person(struct call *k)
{
    char why[512];
    snprintf(why, sizeof why, "%s", wa_err_detail());
    person_wait(k);
    k->verify.settled = true; /* nothing (more) was sent: no effect to wait for */
    after_action(k);
    return wa_fail(WA_E_USER_ACTIVE,
                   "%s; winagent waited %.1f s until they had been idle for %.1f s and looked "
                   "again: the observation is fresh and the changes are what is different now. "
                   "Decide again from it",
                   why, k->r->paused_ms / 1000.0, k->c->cfg.idle_ms / 1000.0);
}

/* The result's error and summary, and the audit line of an acting operation. */
static void record(struct call *k, wa_err e, bool acts)
{
    struct op_result *r = k->r;
    if (!r->summary[0])
        snprintf(r->summary, sizeof r->summary, "%s", k->name);
    op_result_set_error(r, e);
    if (acts) {
        double t0 = os_clock_ms();
        audit(k, e);
        r->record_ms += (os_clock_ms() - t0);
    }
    if (e) /* the audit may have read windows: the detail stays the operation's */
        wa_fail(e, "%s", r->message);
}

/* The argument of q that names a file to write, or ARG_NONE. */
static enum op_arg file_argument(const struct op_request *q)
{
    for (int a = ARG_NONE + 1; a < ARG__COUNT; a++)
        if ((arg_def((enum op_arg)a)->flags & ARGF_WRITES_FILE) &&
            op_request_has(q, (enum op_arg)a))
            return (enum op_arg)a;
    return ARG_NONE;
}

wa_err core_perform(struct session *s, const struct op_request *q, struct op_result *r)
{
    op_result_cleanup(r);
    wa_err_clear();
    r->op = q->op;
    if (!q->op) {
        r->err = wa_fail(WA_E_INVALID_ARGS, "no operation");
        snprintf(r->message, sizeof r->message, "%s", wa_err_detail());
        return r->err;
    }
    struct core *c = s->core;
    const struct op_def *op = q->op;
    enum op_arg file = file_argument(q);
    if (file != ARG_NONE && !s->o.files_allowed) {
        r->err = wa_fail(WA_E_INVALID_ARGS,
                         "\"%s\" writes a file, which only the command line may ask for; "
                         "%s refuses it",
                         arg_def(file)->name, s->o.front ? s->o.front : "this front end");
        snprintf(r->message, sizeof r->message, "%s", wa_err_detail());
        return r->err;
    }
    const char *name = s->o.model_names && op->model ? op->model : op->cli ? op->cli : op->name;
    if (op_request_has(q, ARG_TEXT) && send_check_text(name, q->text)) { /* text is text */
        r->err = WA_E_INVALID_ARGS;
        snprintf(r->message, sizeof r->message, "%s", wa_err_detail());
        return r->err;
    }
    bool acts = op_acts(op) || file != ARG_NONE; /* writing a file is acting */
    bool input = (op->flags & (OPF_INPUT | OPF_WINDOWS)) != 0;
    /* Delivery applies to what sends input, and to focus_window, which background never
     * does; the other window operations change windows without taking the foreground. */
    bool delivered = (op->flags & OPF_INPUT) || op->id == OP_FOCUS_WINDOW;
    enum delivery d = op_request_has(q, ARG_DELIVERY) ? q->delivery : c->cfg.delivery;
    struct call k = {
        .s = s,
        .c = c,
        .be = c->be,
        .q = q,
        .r = r,
        .dry = c->cfg.dry_run && acts,
        .name = name,
        .send.background = delivered && d != DELIVERY_FOREGROUND,
    };
    if (q->note[0])
        op_result_note(r, "%s", q->note);
    intptr_t lock = 0;
    os_mutex_lock(s->lock);
    wa_err e = take_turn(&k, acts, input, &lock);
    bool locked = !e && input;
    k.target.names_window = target_named(&k);
    if (!e && input && !k.dry)
        look_before(&k);
    if (!e && acts)
        e = person_check(&k);
    if (!e) {
        double t0 = os_clock_ms();
        e = delivered ? perform_delivered(&k, d) : performers[op->id](&k);
        /* the read back is settle; the debug image is its own phase */
        r->action_ms = (os_clock_ms() - t0) - r->settle_ms - r->annotate_ms;
    }
    r->dry_run = k.dry;
    if (e == WA_E_USER_ACTIVE && s->o.wait_for_person && !os_interrupted()) {
        if (locked) /* the person has the desktop: other clients are refused meanwhile */
            unlock_input(c, lock);
        locked = false;
        e = after_person(&k);
    } else if (!e && acts) {
        e = after_action(&k);
    } else if (e && acts) {
        e = lost_or(&k, e);
    }
    if (locked)
        unlock_input(c, lock);
    record(&k, e, acts);
    look_cleanup(c->be, &k.look.before);
    os_mutex_unlock(s->lock);
    return e;
}
