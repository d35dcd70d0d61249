/* The one path every operation takes: gate, rate limit, serialisation, the operation,
 * what it returns after acting, and the audit line. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/perform.h"
#include "base/str.h"

#define INPUT_LOCK_WAIT_MS 15000 /* another winagent's input, at most, before giving up */

/* ---- the core ---- */

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
    struct gate_config gc = {
        .restricted_extra = cfg->restricted,
        .restricted_only = cfg->restricted_only,
        .max_actions_per_s = cfg->max_actions_per_s,
        .audit_path = cfg->audit_path,
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
    if (!e && !c->state_dir)
        e = wa_fail(WA_E_NOMEM, "out of memory");
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
    free(c);
}

const struct wa_backend *core_backend(const struct core *c)
{
    return c->be;
}

bool core_dry_run(const struct core *c)
{
    return c->cfg.dry_run;
}

enum shell_permission core_shell(const struct core *c)
{
    return c->cfg.shell;
}

wa_err core_config_from_settings(const struct settings *s, bool loop, struct core_config *out)
{
    memset(out, 0, sizeof *out);
    out->dry_run = settings_on(s, SET_DRY_RUN);
    out->restricted = settings_get(s, SET_RESTRICTED);
    out->audit_path = settings_get(s, SET_AUDIT_LOG);
    out->state_dir = settings_get(s, SET_STATE_DIR);
    wa_err e = settings_num(s, SET_MAX_ACTIONS, 0.01, 10000, 10, &out->max_actions_per_s);
    if (e)
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

/* ---- sessions ---- */

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
    tree_cleanup(&s->tree);
    os_mutex_free(s->lock);
    free(s);
}

wa_err session_pin_window(struct session *s, const struct window_ref *w)
{
    struct wa_window win;
    int matched;
    wa_err e = window_select(s->core->be, w, &win, &matched);
    if (e)
        return e;
    s->pinned = win.hwnd;
    s->frame = win.rect;
    s->have_frame = !wa_rect_empty(win.rect);
    s->target = win.hwnd;
    tree_cleanup(&s->tree);
    s->have_tree = false;
    wa_window_cleanup(&win);
    return WA_E_OK;
}

uint64_t session_pinned_window(const struct session *s)
{
    return s->pinned;
}

struct core *session_core(const struct session *s)
{
    return s->core;
}

const struct wa_tree *session_tree(const struct session *s)
{
    return s->have_tree ? &s->tree : NULL;
}

uint64_t session_target(const struct session *s)
{
    return s->target;
}

/* ---- shared by the operations ---- */

static bool window_exists_quietly(struct call *k, uint64_t hwnd)
{
    struct wa_window w;
    if (backend_window_info(k->be, hwnd, &w) != WA_E_OK) {
        wa_err_clear();
        return false;
    }
    wa_window_cleanup(&w);
    return true;
}

void call_summary(struct call *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->r->summary, sizeof k->r->summary, fmt, ap);
    va_end(ap);
}

/* Blacks out, in img of frame, every window the gate refuses that lies above `below`
 * in Z order (all of them when below is 0): a password manager over the window, or
 * anywhere on a monitor, never reaches an image. */
static wa_err blackout(struct call *k, struct wa_image *img, struct wa_rect frame, uint64_t below)
{
    struct wa_window_list l;
    wa_err e = backend_list_windows(k->be, &l);
    if (e)
        return wa_fail(e, "cannot tell which windows are on screen, so no image: %s",
                       wa_err_detail());
    for (size_t i = 0; i < l.count; i++) {
        const struct wa_window *w = &l.items[i];
        if (below && w->hwnd == below)
            break;
        if (w->state == WA_WINDOW_MINIMIZED || gate_check_window(k->c->gate, w, "") == WA_E_OK)
            continue;
        struct wa_rect r = wa_rect_intersect(w->rect, frame);
        if (!wa_rect_empty(r))
            image_fill_rect(img, r.left - frame.left, r.top - frame.top, r.right - frame.left,
                            r.bottom - frame.top, 0x000000);
    }
    wa_window_list_cleanup(&l);
    wa_err_clear();
    return WA_E_OK;
}

static wa_err capture_window(void *ctx, uint64_t hwnd, struct wa_image *out, struct wa_rect *frame)
{
    struct call *k = ctx;
    wa_err e = WA_E_OK;
    if (k->walk_window == hwnd && k->walk_image.px) { /* taken while walking */
        *out = k->walk_image;
        *frame = k->walk_frame;
        k->walk_image = (struct wa_image){0};
    } else {
        e = backend_capture_window(k->be, hwnd, out, frame);
    }
    if (!e && (e = blackout(k, out, *frame, hwnd)))
        image_cleanup(out);
    return e;
}

static wa_err capture_screen(void *ctx, struct wa_rect r, struct wa_image *out)
{
    struct call *k = ctx;
    wa_err e = backend_capture_screen(k->be, r, out);
    if (!e && (e = blackout(k, out, r, 0)))
        image_cleanup(out);
    return e;
}

wa_err call_capture(struct call *k, uint64_t hwnd, struct wa_rect rect, struct wa_image *out,
                    struct wa_rect *frame)
{
    *frame = rect;
    return hwnd ? capture_window(k, hwnd, out, frame) : capture_screen(k, rect, out);
}

/* The hash of the image k->pixels_now points at (the look before's is cached). */
static uint64_t pixels_now_hash(struct call *k)
{
    return k->pixels_now == &k->before.image ? call_before_hash(k) : call_image_hash(k->pixels_now);
}

/* A capture on a thread of its own, beside a tree walk: freed by whichever side is
 * done with it last (the caller gives up on a capture stuck in a hung window). */
struct side_capture {
    const struct wa_backend *be;
    uint64_t hwnd;
    struct wa_image img;
    struct wa_rect frame;
    wa_err e;
    struct os_event *done;
    atomic_int refs;
};

#define SIDE_CAPTURE_WAIT_MS 1000 /* beyond the walk; a capture takes 2-30 ms */

static void side_capture_unref(struct side_capture *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        image_cleanup(&c->img);
        os_event_free(c->done);
        free(c);
    }
}

static void side_capture_run(void *arg)
{
    struct side_capture *c = arg;
    c->e = backend_capture_window(c->be, c->hwnd, &c->img, &c->frame);
    os_event_set(c->done);
    side_capture_unref(c);
}

static struct side_capture *side_capture_start(struct call *k, uint64_t hwnd)
{
    struct side_capture *c = calloc(1, sizeof *c);
    if (!c || !(c->done = os_event_new())) {
        free(c);
        return NULL;
    }
    c->be = k->be;
    c->hwnd = hwnd;
    atomic_init(&c->refs, 2);
    if (os_thread_start(side_capture_run, c) != WA_E_OK) {
        os_event_free(c->done);
        free(c);
        return NULL;
    }
    return c;
}

/* The side capture's image, moved into *img; false when it failed or is late. */
static bool side_capture_finish(struct side_capture *c, struct wa_image *img, struct wa_rect *frame)
{
    if (!c)
        return false;
    bool ok = os_event_wait(c->done, SIDE_CAPTURE_WAIT_MS) && c->e == WA_E_OK;
    if (ok) {
        *img = c->img;
        *frame = c->frame;
        c->img = (struct wa_image){0};
    }
    side_capture_unref(c);
    return ok;
}

wa_err call_observe(struct call *k, uint64_t hwnd, const struct observe_opts *o)
{
    struct session *s = k->s;
    wa_err e = observe_check(k, hwnd);
    if (e)
        return e;
    struct wa_tree tree;
    struct observe_capture cap = {capture_window, capture_screen, k};
    observation_cleanup(&k->r->obs);
    /* The pixels as the walk found them, so that a later look can tell the tree still
     * holds: the settle's last capture after an action, else one taken while the tree
     * is walked, which is also the image if the tree is rejected. */
    uint64_t pixels = 0;
    bool have_pixels = false;
    struct side_capture *side = NULL;
    if (k->pixels_now) {
        pixels = pixels_now_hash(k);
        have_pixels = true;
    } else if (o->mode != OBS_PIXEL) {
        side = side_capture_start(k, hwnd);
    }
    struct wa_tree_opts to = {.budget_ms = o->tree_budget_ms, .keep_handles = true};
    double t0 = os_clock_ms();
    wa_err walked = o->mode == OBS_PIXEL ? WA_E_OK : backend_get_tree(k->be, hwnd, &to, &tree);
    double tree_ms = (os_clock_ms() - t0);
    if (side_capture_finish(side, &k->walk_image, &k->walk_frame)) {
        k->walk_window = hwnd;
        pixels = call_image_hash(&k->walk_image);
        have_pixels = true;
    }
    if (o->mode == OBS_PIXEL)
        e = observe_window(k->be, hwnd, o, &cap, &k->r->obs, &tree);
    else
        e = observe_window_tree(k->be, hwnd, o, &cap, walked, &k->r->obs, &tree);
    k->r->obs.tree_ms = tree_ms;
    image_cleanup(&k->walk_image);
    k->walk_window = 0;
    if (e)
        return e;
    s->frame = k->r->obs.frame;
    s->have_frame = !wa_rect_empty(s->frame);
    s->target = hwnd;
    s->marked = k->r->obs.marked;
    tree_cleanup(&s->tree);
    s->tree = tree;
    s->have_tree = tree.count > 0;
    s->have_tree_pixels = have_pixels && s->have_tree;
    s->tree_pixels = pixels;
    return WA_E_OK;
}

wa_err call_observe_screen(struct call *k, struct wa_rect r, const struct observe_opts *o)
{
    struct session *s = k->s;
    struct observe_capture cap = {capture_window, capture_screen, k};
    observation_cleanup(&k->r->obs);
    wa_err e = observe_screen(k->be, r, o, &cap, &k->r->obs);
    if (e)
        return e;
    s->frame = r;
    s->have_frame = true;
    s->target = 0;
    s->marked = false;
    tree_cleanup(&s->tree);
    s->have_tree = false;
    s->have_tree_pixels = false;
    return WA_E_OK;
}

wa_err call_image(struct call *k, uint64_t hwnd, struct wa_rect rect, int max_edge)
{
    struct wa_image img = {0};
    struct wa_rect frame;
    wa_err e = call_capture(k, hwnd, rect, &img, &frame);
    if (e)
        return e;
    e = call_image_from(k, &img, frame, max_edge);
    image_cleanup(&img);
    return e;
}

wa_err call_image_from(struct call *k, const struct wa_image *img, struct wa_rect frame,
                       int max_edge)
{
    struct observation obs;
    observation_init(&obs);
    wa_err e = observation_set_image(&obs, img, max_edge > 0 ? max_edge : 1280);
    if (!e) {
        struct op_result *r = k->r;
        dynbuf_reset(&r->png);
        e = dynbuf_add(&r->png, obs.png.data, obs.png.len);
        r->has_image = !e;
        r->img_w = obs.width;
        r->img_h = obs.height;
        r->scale = img->width > 0 ? (double)obs.width / img->width : 1.0;
        r->origin_x = frame.left;
        r->origin_y = frame.top;
        r->frame = frame;
    }
    observation_cleanup(&obs);
    return e;
}

/* ---- the audit line ---- */

static cJSON *element_json(const struct elem_ref *e)
{
    if (e->kind == EREF_ID)
        return cJSON_CreateNumber(e->id);
    return cJSON_CreateString(e->selector ? e->selector : "");
}

/* The request's arguments as the audit records them: typed text as its length. */
static cJSON *audit_params(const struct op_request *q)
{
    cJSON *p = cJSON_CreateObject();
    for (int a = 1; a < ARG__COUNT; a++) {
        if (!op_request_has(q, (enum op_arg)a))
            continue;
        const struct arg_def *d = arg_def((enum op_arg)a);
        const struct elem_ref *el = op_request_element(q, (enum op_arg)a);
        cJSON *v = NULL;
        if (el) {
            v = element_json(el);
        } else if (a == ARG_WINDOW) {
            v = cJSON_CreateString(q->window.text ? q->window.text : "");
        } else if (a == ARG_TEXT || a == ARG_ITEM) {
            const char *t = a == ARG_TEXT ? q->text : q->item;
            v = cJSON_CreateObject();
            cJSON_AddNumberToObject(v, "length", t ? (double)strlen(t) : 0);
        } else if (a == ARG_KEYS || a == ARG_COMMAND || a == ARG_SELECTOR || a == ARG_PATH) {
            const char *t = a == ARG_KEYS      ? q->keys
                            : a == ARG_COMMAND ? q->command
                            : a == ARG_PATH    ? q->path
                                               : q->selector;
            v = cJSON_CreateString(t ? t : "");
        } else if (d->type == ARG_T_BOOL) {
            v = cJSON_CreateBool(a == ARG_ALL           ? q->all
                                 : a == ARG_INTERACTIVE ? q->interactive
                                 : a == ARG_COMPACT     ? q->compact
                                 : a == ARG_VERBOSE     ? q->verbose
                                 : a == ARG_ANNOTATED   ? q->annotated
                                 : a == ARG_SCREENSHOT  ? q->screenshot
                                                        : q->return_state);
        } else {
            /* numbers and enums: the arguments' own values */
            double n = op_request_number(q, (enum op_arg)a);
            if (d->type == ARG_T_ENUM) {
                static const char *const dirs[] = {"up", "down", "left", "right"};
                static const char *const buttons[] = {"left", "right", "middle"};
                const char *word = a == ARG_DIRECTION ? dirs[q->direction]
                                   : a == ARG_BUTTON  ? buttons[q->button]
                                   : a == ARG_STATE
                                       ? (q->state == WA_WINDOW_MINIMIZED   ? "minimize"
                                          : q->state == WA_WINDOW_MAXIMIZED ? "maximize"
                                                                            : "restore")
                                   : a == ARG_MODE ? obs_mode_name(q->mode)
                                                   : "";
                v = cJSON_CreateString(word);
            } else {
                v = cJSON_CreateNumber(n);
            }
        }
        cJSON_AddItemToObject(p, d->name, v);
    }
    return p;
}

/* ---- perform ---- */

/* After an acting call: the wait for its effect, the look after it and what changed,
 * the observation or image, the fresh state. */
/* Whether the session's tree of window after is still the window's: the action changed
 * nothing (the settle saw the pixels and the foreground stay as they were before it),
 * and the tree was walked when the window looked exactly as it did before the action.
 * Then the look after reuses it instead of walking again. */
static bool tree_still_holds(struct call *k, uint64_t after)
{
    struct session *s = k->s;
    struct before_look *b = &k->before;
    if (k->dry || !k->unchanged || k->pattern_action || !b->have || !b->have_image ||
        after != b->window || !s->have_tree || s->tree.hwnd != after || !s->have_tree_pixels)
        return false;
    return s->tree_pixels == call_before_hash(k);
}

/* The observation after an action from the session's tree, which still holds. */
static wa_err observe_reusing_tree(struct call *k, uint64_t hwnd, const struct observe_opts *o)
{
    struct session *s = k->s;
    struct observe_capture cap = {capture_window, capture_screen, k};
    observation_cleanup(&k->r->obs);
    wa_err e = observe_window_tree(k->be, hwnd, o, &cap, WA_E_OK, &k->r->obs, &s->tree);
    if (e)
        return e;
    s->frame = k->r->obs.frame;
    s->have_frame = !wa_rect_empty(s->frame);
    s->target = hwnd;
    s->marked = k->r->obs.marked;
    k->r->obs.tree_reused = true;
    return WA_E_OK;
}

static void after_action(struct call *k)
{
    struct session *s = k->s;
    const struct op_request *q = k->q;
    struct op_result *r = k->r;
    bool image = op_request_has(q, ARG_SCREENSHOT) ? q->screenshot : s->o.after == AFTER_IMAGE;
    bool observe = s->o.after == AFTER_OBSERVE;
    bool input = (q->op->flags & (OPF_INPUT | OPF_WINDOWS)) != 0;
    double start = os_clock_ms(), settled_before = r->settle_ms;
    if (!k->dry && !k->settled && input)
        call_settle(k);
    uint64_t after = call_after_window(k);
    bool reuse = tree_still_holds(k, after);
    if (input && !k->dry && !reuse)
        call_keep_tree_before(k);
    wa_err e = WA_E_OK;
    if (after == k->before.window && k->before.have_after_image)
        k->pixels_now = &k->before.after_image; /* how the window looks, settled */
    else if (after == k->before.window && k->unchanged)
        k->pixels_now = &k->before.image;
    if (after && observe && reuse && s->o.observe.mode != OBS_PIXEL)
        e = observe_reusing_tree(k, after, &s->o.observe);
    else if (after && observe)
        e = call_observe(k, after, &s->o.observe);
    else if (after && input && !k->dry && !reuse)
        e = call_fresh_tree(k, after); /* the look after, for what changed */
    if (!e && !observe && after && !reuse && s->have_tree && s->tree.hwnd == after &&
        k->pixels_now) {
        s->tree_pixels = pixels_now_hash(k); /* walked as it looks, settled */
        s->have_tree_pixels = true;
    }
    if (e)
        op_result_note(r, "no look at the window after acting: %s",
                       *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    if (input && !k->dry)
        call_report_changes(k);
    double t0 = os_clock_ms();
    uint64_t win = r->hwnd ? r->hwnd : s->pinned ? s->pinned : s->target;
    if (!win || !window_exists_quietly(k, win))
        win = after;
    struct wa_window w;
    if (win && backend_window_info(k->be, win, &w) == WA_E_OK) {
        r->window_state = w;
        r->has_window_state = true;
    } else {
        win = 0;
    }
    double record = os_clock_ms() - t0;
    r->record_ms += record;
    if (image && win && call_image(k, win, (struct wa_rect){0, 0, 0, 0}, s->o.observe.max_edge))
        op_result_note(r, "no screenshot after acting: %s", wa_err_detail());
    if (q->return_state && win) {
        struct dynbuf text;
        dynbuf_init(&text, 16u << 20);
        struct tree_format_opts fo = {.max_depth = -1, .scope = -1};
        e = s->have_tree && s->tree.hwnd == win ? WA_E_OK : call_fresh_tree(k, win);
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
    /* The look after is the rest of this: the tree walked for the change report, the
     * hashes and window checks, the screenshot and state asked for. */
    double named = r->settle_ms - settled_before + r->obs.capture_ms + r->obs.encode_ms +
                   r->obs.tree_ms + r->diff_ms + record;
    double all = os_clock_ms() - start;
    r->after_ms = all > named ? all - named : 0;
}

/* Audits an acting request's outcome. */
static void audit(struct call *k, wa_err e)
{
    cJSON *params = audit_params(k->q);
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
    struct call k = {
        .s = s,
        .c = c,
        .be = c->be,
        .q = q,
        .r = r,
        .dry = c->cfg.dry_run && op_acts(op),
        .name = s->o.model_names && op->model ? op->model
                : op->cli                     ? op->cli
                                              : op->name,
    };
    if (q->note[0])
        op_result_note(r, "%s", q->note);
    bool acts = op_acts(op);
    bool input = (op->flags & (OPF_INPUT | OPF_WINDOWS)) != 0;
    intptr_t lock = 0;
    double t_wait = os_clock_ms();
    os_mutex_lock(s->lock);
    wa_err e = acts ? gate_take_slot(c->gate) : WA_E_OK;
    if (!e && input) {
        os_mutex_lock(c->input);
        if ((e = os_input_lock(INPUT_LOCK_WAIT_MS, &lock)))
            os_mutex_unlock(c->input);
    }
    r->wait_ms = (os_clock_ms() - t_wait);
    bool locked = !e && input;
    if (!e && input && !k.dry)
        look_before(&k);
    if (!e) {
        double t0 = os_clock_ms();
        e = op->perform(&k);
        /* the read back is settle; the debug image is its own phase */
        r->action_ms = (os_clock_ms() - t0) - r->settle_ms - r->annotate_ms;
    }
    r->dry_run = k.dry;
    if (!e && acts)
        after_action(&k);
    if (locked) {
        os_input_unlock(lock);
        os_mutex_unlock(c->input);
    }
    if (!r->summary[0])
        snprintf(r->summary, sizeof r->summary, "%s", k.name);
    r->err = e;
    if (e)
        snprintf(r->message, sizeof r->message, "%s",
                 *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    if (acts) {
        double t0 = os_clock_ms();
        audit(&k, e);
        r->record_ms += (os_clock_ms() - t0);
    }
    if (e) /* the audit may have read windows: the detail stays the operation's */
        wa_fail(e, "%s", r->message);
    look_cleanup(&k.before);
    os_mutex_unlock(s->lock);
    return e;
}
