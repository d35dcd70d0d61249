/* agent-rdp's automation commands on the one core. */
#include "agent/front/rdp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/request/wire.h"
#include "base/version.h"
#include "base/os.h"
#include "base/str.h"

#define WAIT_POLL_MS    250
#define DEFAULT_DEPTH   10
#define DEFAULT_WAIT_MS 30000
#define SCROLL_TO_MAX   25 /* notches scrolled looking for a child */

/* What a ref of the latest snapshot stands for: an element of a window's tree (id, a
 * ref of that window's `state`), or the desktop itself (id 0). */
struct ref_target {
    uint64_t hwnd;
    int id;
};

struct rdp {
    struct session *ses;
    struct ref_target *refs;
    size_t n_refs, cap_refs;
    unsigned snapshots;
};

wa_err rdp_new(struct session *ses, struct rdp **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return wa_fail(WA_E_NOMEM, "out of memory");
    (*out)->ses = ses;
    return WA_E_OK;
}

void rdp_free(struct rdp *r)
{
    if (!r)
        return;
    free(r->refs);
    free(r);
}

/* ---- one command's outcome ---- */

struct out {
    wa_err err;
    char message[700];
    cJSON *data;
    bool by_ref; /* the element was named by a ref of the latest snapshot */
};

static wa_err failed(struct out *o, wa_err e, const char *fmt, ...) WA_PRINTF(3, 4);

static wa_err failed(struct out *o, wa_err e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->message, sizeof o->message, fmt, ap);
    va_end(ap);
    o->err = e;
    return e;
}

/* agent-rdp's error code for ours; the window of a ref being gone makes the ref stale. */
static const char *rdp_code(wa_err e, bool by_ref)
{
    switch (e) {
    case WA_E_WINDOW_NOT_FOUND:
        return by_ref ? "stale_ref" : "element_not_found";
    case WA_E_ELEMENT_NOT_FOUND:
        return "element_not_found";
    case WA_E_STALE_REF:
        return "stale_ref";
    case WA_E_TIMEOUT:
        return "timeout";
    default:
        return "command_failed";
    }
}

/* Performs q; a failure is copied into o. The request is cleaned up; r is the
 * caller's. */
static wa_err perform(struct rdp *p, struct op_request *q, struct op_result *r, struct out *o)
{
    core_perform(p->ses, q, r);
    op_request_cleanup(q);
    if (r->err)
        failed(o, r->err, "%s", r->message[0] ? r->message : wa_err_message(r->err));
    return r->err;
}

static const char *str_arg(const cJSON *params, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool bool_arg(const cJSON *params, const char *name, bool def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, name);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

static double num_arg(const cJSON *params, const char *name, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, name);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static cJSON *bounds_json(struct wa_rect b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "x", b.left);
    cJSON_AddNumberToObject(o, "y", b.top);
    cJSON_AddNumberToObject(o, "width", wa_rect_width(b));
    cJSON_AddNumberToObject(o, "height", wa_rect_height(b));
    return o;
}

/* ---- selectors ---- */

/* The core's selector for an agent-rdp one: role:Type[name] -> Type:name, role:Type ->
 * Type:*; the others are the same. */
static void core_selector(const char *sel, char *out, size_t cap)
{
    if (strncmp(sel, "role:", 5) == 0) {
        const char *type = sel + 5, *br = strchr(type, '[');
        size_t n = strlen(type);
        if (br && n > 0 && type[n - 1] == ']')
            snprintf(out, cap, "%.*s:%.*s", (int)(br - type), type, (int)(type + n - 1 - br - 1),
                     br + 1);
        else
            snprintf(out, cap, "%s:*", type);
        return;
    }
    snprintf(out, cap, "%s", sel);
}

/* The top-level windows, topmost first (restricted ones are not listed by the core). */
static wa_err windows_now(struct rdp *p, struct op_result *r, struct out *o)
{
    struct op_request q;
    op_request_init(&q, op_def(OP_LIST_WINDOWS));
    op_result_init(r);
    return perform(p, &q, r, o);
}

/* Finds sel across every top-level window (the first match, topmost window first). */
static wa_err find_on_desktop(struct rdp *p, const char *sel, struct ref_target *t,
                              unsigned *states, struct out *o)
{
    char csel[512];
    core_selector(sel, csel, sizeof csel);
    struct op_result wl;
    if (windows_now(p, &wl, o)) {
        op_result_cleanup(&wl);
        return o->err;
    }
    wa_err e = WA_E_ELEMENT_NOT_FOUND;
    for (size_t i = 0; i < wl.windows.count && e; i++) {
        struct op_request q;
        struct op_result r;
        op_request_init(&q, op_def(OP_FIND));
        op_result_init(&r);
        op_request_set_number(&q, ARG_WINDOW, (double)wl.windows.items[i].hwnd);
        op_request_set_text(&q, ARG_SELECTOR, csel);
        core_perform(p->ses, &q, &r);
        if (!r.err && r.n_elements > 0) {
            t->hwnd = wl.windows.items[i].hwnd;
            t->id = r.elements[0].id;
            if (states)
                *states = r.elements[0].states;
            e = WA_E_OK;
        }
        op_result_cleanup(&r);
        op_request_cleanup(&q);
    }
    op_result_cleanup(&wl);
    if (e)
        failed(o, e, "Element not found: %s", sel);
    return e;
}

/* The element a selector names: a ref of the latest snapshot, or a search. */
static wa_err resolve(struct rdp *p, const char *sel, struct ref_target *t, struct out *o)
{
    if (!sel || !*sel)
        return failed(o, WA_E_INVALID_ARGS, "a selector is needed");
    if (sel[0] != '@')
        return find_on_desktop(p, sel, t, NULL, o);
    const char *num = sel + 1 + (sel[1] == 'e');
    char *end;
    long n = strtol(num, &end, 10);
    if (!*num || *end || n < 1)
        return failed(o, WA_E_INVALID_ARGS, "'%s' is no ref (refs look like @e12 or @12)", sel);
    if ((size_t)n > p->n_refs)
        return failed(o, WA_E_STALE_REF, "%s is not in the current snapshot (take a snapshot)",
                      sel);
    *t = p->refs[n - 1];
    o->by_ref = true;
    if (!t->id)
        return failed(o, WA_E_INVALID_ARGS, "%s is the desktop, not an element", sel);
    return WA_E_OK;
}

/* A request of op aimed at target t. */
static void aim(struct op_request *q, enum op_id op, const struct ref_target *t)
{
    op_request_init(q, op_def(op));
    op_request_set_number(q, ARG_WINDOW, (double)t->hwnd);
    op_request_set_number(q, ARG_ELEMENT, t->id);
}

/* Resolves params' selector and performs op on it (text and item when given); *at
 * (may be NULL) gets the element. */
static wa_err element_op_at(struct rdp *p, const cJSON *params, enum op_id op, const char *text,
                            const char *item, struct ref_target *at, struct out *o)
{
    struct ref_target t;
    if (resolve(p, str_arg(params, "selector"), &t, o))
        return o->err;
    if (at)
        *at = t;
    struct op_request q;
    struct op_result r;
    aim(&q, op, &t);
    op_result_init(&r);
    wa_err e = text ? op_request_set_text(&q, ARG_TEXT, text) : WA_E_OK;
    if (!e && item)
        e = op_request_set_text(&q, ARG_ITEM, item);
    if (e) {
        op_request_cleanup(&q);
        return failed(o, e, "%s", wa_err_detail());
    }
    if (!perform(p, &q, &r, o)) {
        o->data = cJSON_CreateObject();
        cJSON_AddStringToObject(o->data, "action", op_def(op)->name);
        if (r.has_verified)
            cJSON_AddBoolToObject(o->data, "verified", r.verified);
    }
    op_result_cleanup(&r);
    return o->err;
}

static wa_err element_op(struct rdp *p, const cJSON *params, enum op_id op, const char *text,
                         const char *item, struct out *o)
{
    return element_op_at(p, params, op, text, item, NULL, o);
}

/* The element's properties, fresh (inspect). */
static wa_err inspect(struct rdp *p, const struct ref_target *t, struct op_result *r, struct out *o)
{
    struct op_request q;
    aim(&q, OP_INSPECT, t);
    op_result_init(r);
    return perform(p, &q, r, o);
}

/* The element sel names, its properties read fresh; r is the caller's to clean up
 * only when this succeeded. */
static wa_err resolve_inspect(struct rdp *p, const char *sel, struct ref_target *t,
                              struct op_result *r, struct out *o)
{
    if (resolve(p, sel, t, o))
        return o->err;
    if (inspect(p, t, r, o))
        op_result_cleanup(r);
    return o->err;
}

/* ---- snapshot ---- */

static bool add_ref(struct rdp *p, uint64_t hwnd, int id)
{
    if (p->n_refs == p->cap_refs) {
        size_t cap = p->cap_refs ? p->cap_refs * 2 : 256;
        struct ref_target *grown = wa_reallocarray(p->refs, cap, sizeof *grown);
        if (!grown)
            return false;
        p->refs = grown;
        p->cap_refs = cap;
    }
    p->refs[p->n_refs++] = (struct ref_target){hwnd, id};
    return true;
}

static cJSON *element_node(struct rdp *p, bool refs, const char *role, const char *name,
                           const char *aid, const char *cls, struct wa_rect bounds, unsigned states,
                           const char *value, unsigned patterns)
{
    cJSON *n = cJSON_CreateObject();
    if (refs) /* a number, as agent-rdp's agent writes it; selectors say @e3 or @3 */
        cJSON_AddNumberToObject(n, "ref", (double)p->n_refs);
    cJSON_AddStringToObject(n, "role", role ? role : "");
    cJSON_AddStringToObject(n, "name", name ? name : "");
    if (aid)
        cJSON_AddStringToObject(n, "automation_id", aid);
    else
        cJSON_AddNullToObject(n, "automation_id");
    if (cls)
        cJSON_AddStringToObject(n, "class_name", cls);
    else
        cJSON_AddNullToObject(n, "class_name");
    cJSON_AddItemToObject(n, "bounds", bounds_json(bounds));
    cJSON_AddItemToObject(n, "states", wire_states(states));
    if (value)
        cJSON_AddStringToObject(n, "value", value);
    else
        cJSON_AddNullToObject(n, "value");
    cJSON_AddItemToObject(n, "patterns", wire_patterns(patterns));
    cJSON_AddArrayToObject(n, "children");
    return n;
}

/* Adds one window's tree (its `state`) under parent; its root is the window. */
static void add_window(struct rdp *p, bool refs, uint64_t hwnd, const char *title, int depth,
                       cJSON *parent, cJSON **root, struct out *o)
{
    struct op_request q;
    struct op_result r;
    op_request_init(&q, op_def(OP_STATE));
    op_result_init(&r);
    if (hwnd)
        op_request_set_number(&q, ARG_WINDOW, (double)hwnd);
    else if (title)
        op_request_set_text(&q, ARG_WINDOW, title);
    op_request_set_number(&q, ARG_DEPTH, depth);
    if (perform(p, &q, &r, o) == WA_E_OK) {
        cJSON **nodes = calloc(r.n_elements + 1, sizeof *nodes);
        for (size_t i = 0; nodes && i < r.n_elements; i++) {
            const struct op_elem *e = &r.elements[i];
            if (!add_ref(p, e->hwnd && !r.hwnd ? e->hwnd : r.hwnd, e->id))
                break;
            cJSON *n = element_node(p, refs, e->type, e->name, e->automation_id, e->class_name,
                                    e->bounds, e->states, e->value, e->patterns);
            nodes[i] = n;
            cJSON *under = NULL;
            bool dropped_parent = false;
            for (size_t k = 0; k < i && e->parent; k++)
                if (r.elements[k].id == e->parent) {
                    under = nodes[k];
                    dropped_parent = !under;
                }
            if (under)
                cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(under, "children"), n);
            else if (parent && !dropped_parent)
                cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(parent, "children"), n);
            else if (!*root && !dropped_parent)
                *root = n;
            else { /* a second root, or under one: freed here, once, and never a parent */
                cJSON_Delete(n);
                nodes[i] = NULL;
            }
        }
        free(nodes);
    }
    op_result_cleanup(&r);
}

static wa_err do_snapshot(struct rdp *p, const cJSON *params, struct out *o)
{
    bool refs = bool_arg(params, "include_refs", true);
    const char *scope = str_arg(params, "scope");
    const char *window = str_arg(params, "window");
    double max_depth = num_arg(params, "max_depth", DEFAULT_DEPTH);
    if (!(max_depth >= 0 && max_depth < 65)) /* checked before it becomes an int */
        return failed(o, WA_E_INVALID_ARGS, "max_depth must be 0-64");
    int depth = (int)max_depth;
    bool desktop = scope ? strcmp(scope, "desktop") == 0 : !window;
    if (scope && !desktop && strcmp(scope, "window") != 0)
        return failed(o, WA_E_INVALID_ARGS, "scope is desktop or window, not '%s'", scope);
    p->n_refs = 0;
    cJSON *root = NULL;
    if (desktop) {
        add_ref(p, 0, 0); /* e1 is the desktop */
        root = element_node(p, refs, "Desktop", "Desktop", NULL, NULL, (struct wa_rect){0}, 0, NULL,
                            0);
        struct op_result wl;
        if (depth > 0 && windows_now(p, &wl, o) == WA_E_OK) { /* the windows are level 1 */
            for (size_t i = 0; i < wl.windows.count; i++) {
                struct out skip = {0}; /* a window refused or gone is left out */
                add_window(p, refs, wl.windows.items[i].hwnd, NULL, depth - 1, root, &root, &skip);
            }
            op_result_cleanup(&wl);
        }
    } else {
        add_window(p, refs, 0, window, depth, NULL, &root, o);
    }
    if (o->err) {
        cJSON_Delete(root);
        p->n_refs = 0;
        return o->err;
    }
    p->snapshots++;
    char id[32];
    snprintf(id, sizeof id, "s%u", p->snapshots);
    o->data = cJSON_CreateObject();
    cJSON_AddStringToObject(o->data, "snapshot_id", id);
    cJSON_AddNumberToObject(o->data, "ref_count", refs ? (double)p->n_refs : 0);
    cJSON_AddItemToObject(o->data, "root", root ? root : cJSON_CreateNull());
    return WA_E_OK;
}

/* ---- the other commands ---- */

static wa_err do_get(struct rdp *p, const cJSON *params, struct out *o)
{
    struct ref_target t;
    const char *prop = str_arg(params, "property");
    if (prop && strcmp(prop, "name") && strcmp(prop, "value") && strcmp(prop, "states") &&
        strcmp(prop, "bounds") && strcmp(prop, "all"))
        return failed(o, WA_E_INVALID_ARGS, "property is name, value, states, bounds or all");
    struct op_result r;
    if (resolve_inspect(p, str_arg(params, "selector"), &t, &r, o))
        return o->err;
    const struct op_elem *e = &r.element;
    bool all = !prop || strcmp(prop, "all") == 0;
    o->data = cJSON_CreateObject();
    if (all || strcmp(prop, "name") == 0)
        cJSON_AddStringToObject(o->data, "name", e->name ? e->name : "");
    if ((all || strcmp(prop, "value") == 0) && e->value)
        cJSON_AddStringToObject(o->data, "value", e->value);
    else if (all || strcmp(prop, "value") == 0)
        cJSON_AddNullToObject(o->data, "value");
    if (all || strcmp(prop, "states") == 0)
        cJSON_AddItemToObject(o->data, "states", wire_states(e->states));
    if (all || strcmp(prop, "bounds") == 0)
        cJSON_AddItemToObject(o->data, "bounds", bounds_json(e->bounds));
    if (all)
        cJSON_AddStringToObject(o->data, "role", e->type ? e->type : "");
    op_result_cleanup(&r);
    return WA_E_OK;
}

static wa_err do_click(struct rdp *p, const cJSON *params, struct out *o)
{
    const char *button = str_arg(params, "button");
    bool dbl = bool_arg(params, "double", false);
    enum op_id op = OP_CLICK;
    if (button && strcmp(button, "right") == 0)
        op = OP_RIGHT_CLICK;
    else if (button && strcmp(button, "middle") == 0)
        op = OP_MIDDLE_CLICK;
    else if (button && strcmp(button, "left") != 0)
        return failed(o, WA_E_INVALID_ARGS, "button is left, right or middle");
    if (dbl && op != OP_CLICK)
        return failed(o, WA_E_INVALID_ARGS, "a double click is a left click");
    return element_op(p, params, dbl ? OP_DOUBLE_CLICK : op, NULL, NULL, o);
}

static wa_err do_check(struct rdp *p, const cJSON *params, struct out *o)
{
    struct ref_target t;
    struct op_result r;
    if (resolve_inspect(p, str_arg(params, "selector"), &t, &r, o))
        return o->err;
    bool want = !bool_arg(params, "uncheck", false);
    bool is = (r.element.states & WA_ST_CHECKED) != 0;
    op_result_cleanup(&r);
    if (is != want) {
        struct op_request q;
        aim(&q, OP_TOGGLE, &t);
        op_result_init(&r);
        perform(p, &q, &r, o);
        op_result_cleanup(&r);
        if (o->err)
            return o->err;
    }
    o->data = cJSON_CreateObject();
    cJSON_AddBoolToObject(o->data, "checked", want);
    cJSON_AddBoolToObject(o->data, "changed", is != want);
    return WA_E_OK;
}

static wa_err scroll_once(struct rdp *p, const struct ref_target *t, const char *dir, double amount,
                          struct out *o)
{
    struct op_request q;
    struct op_result r;
    aim(&q, OP_SCROLL, t);
    op_result_init(&r);
    wa_err e = op_request_set_text(&q, ARG_DIRECTION, dir);
    if (!e)
        e = op_request_set_number(&q, ARG_AMOUNT, amount);
    if (e) {
        op_request_cleanup(&q);
        return failed(o, e, "%s", wa_err_detail());
    }
    perform(p, &q, &r, o);
    op_result_cleanup(&r);
    return o->err;
}

static wa_err do_scroll(struct rdp *p, const cJSON *params, struct out *o)
{
    struct ref_target t;
    if (resolve(p, str_arg(params, "selector"), &t, o))
        return o->err;
    const char *dir = str_arg(params, "direction");
    dir = dir ? dir : "down";
    /* whole notches, as agent-rdp counts them; the request rejects what is out of range
     * (never converted to an int here: 1e300 would be undefined) */
    double amount = trunc(num_arg(params, "amount", 3));
    const char *child = str_arg(params, "to_child");
    o->data = cJSON_CreateObject();
    if (!child) {
        if (!scroll_once(p, &t, dir, amount, o))
            cJSON_AddNumberToObject(o->data, "scrolled", amount);
        return o->err;
    }
    /* Scroll a notch at a time until the child is on screen. */
    char csel[512];
    core_selector(child, csel, sizeof csel);
    for (int n = 0; n <= SCROLL_TO_MAX; n++) {
        struct op_request q;
        struct op_result r;
        op_request_init(&q, op_def(OP_FIND));
        op_result_init(&r);
        op_request_set_number(&q, ARG_WINDOW, (double)t.hwnd);
        op_request_set_text(&q, ARG_SELECTOR, csel);
        core_perform(p->ses, &q, &r);
        bool seen = !r.err && r.n_elements > 0 && !(r.elements[0].states & WA_ST_OFFSCREEN);
        op_result_cleanup(&r);
        op_request_cleanup(&q);
        if (seen) {
            cJSON_AddNumberToObject(o->data, "scrolled", n);
            return WA_E_OK;
        }
        if (n < SCROLL_TO_MAX && scroll_once(p, &t, dir, 1, o))
            return o->err;
    }
    return failed(o, WA_E_ELEMENT_NOT_FOUND, "%s did not come into view after %d notches", child,
                  SCROLL_TO_MAX);
}

static cJSON *window_json(const struct wa_window *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "title", w->title ? w->title : "");
    cJSON_AddStringToObject(o, "process_name", w->process ? w->process : "");
    cJSON_AddNumberToObject(o, "process_id", w->pid);
    cJSON_AddItemToObject(o, "bounds", bounds_json(w->rect));
    cJSON_AddBoolToObject(o, "minimized", w->state == WA_WINDOW_MINIMIZED);
    cJSON_AddBoolToObject(o, "maximized", w->state == WA_WINDOW_MAXIMIZED);
    return o;
}

static wa_err do_window(struct rdp *p, const cJSON *params, struct out *o)
{
    const char *action = str_arg(params, "action");
    const char *sel = str_arg(params, "selector");
    if (!action || strcmp(action, "list") == 0) {
        struct op_result r;
        if (!windows_now(p, &r, o)) {
            o->data = cJSON_CreateObject();
            cJSON *arr = cJSON_AddArrayToObject(o->data, "windows");
            for (size_t i = 0; i < r.windows.count; i++)
                cJSON_AddItemToArray(arr, window_json(&r.windows.items[i]));
        }
        op_result_cleanup(&r);
        return o->err;
    }
    enum op_id op = strcmp(action, "focus") == 0   ? OP_FOCUS_WINDOW
                    : strcmp(action, "close") == 0 ? OP_CLOSE_WINDOW
                                                   : OP_SET_WINDOW_STATE;
    if (op == OP_SET_WINDOW_STATE && strcmp(action, "maximize") && strcmp(action, "minimize") &&
        strcmp(action, "restore"))
        return failed(o, WA_E_INVALID_ARGS,
                      "window action is list, focus, maximize, minimize, restore or close");
    if (!sel || !*sel)
        return failed(o, WA_E_INVALID_ARGS, "window %s needs a selector (a title)", action);
    struct op_request q;
    struct op_result r;
    op_request_init(&q, op_def(op));
    op_result_init(&r);
    op_request_set_text(&q, ARG_WINDOW, sel);
    if (op == OP_SET_WINDOW_STATE)
        op_request_set_text(&q, ARG_STATE, action);
    if (!perform(p, &q, &r, o)) {
        o->data = cJSON_CreateObject();
        cJSON_AddStringToObject(o->data, "action", action);
        if (r.window.title)
            cJSON_AddStringToObject(o->data, "title", r.window.title);
    }
    op_result_cleanup(&r);
    return o->err;
}

/* `run`: the shell (waiting for it) or a launch; both need the shell permission. */
static wa_err do_run(struct rdp *p, const cJSON *params, struct out *o)
{
    const char *command = str_arg(params, "command");
    if (!command || !*command)
        return failed(o, WA_E_INVALID_ARGS, "run needs a command");
    struct dynbuf line;
    dynbuf_init(&line, 64u << 10);
    dynbuf_adds(&line, command);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "args"), *a;
    if (cJSON_IsString(args) && *args->valuestring) {
        dynbuf_adds(&line, " ");
        dynbuf_adds(&line, args->valuestring);
    }
    const cJSON *list = cJSON_IsArray(args) ? args : NULL;
    cJSON_ArrayForEach(a, list)
    {
        if (!cJSON_IsString(a))
            continue;
        bool quote = strpbrk(a->valuestring, " \t") != NULL || !*a->valuestring;
        dynbuf_addf(&line, quote ? " \"%s\"" : " %s", a->valuestring);
    }
    bool wait = bool_arg(params, "wait", true);
    struct op_request q;
    struct op_result r;
    op_request_init(&q, op_def(wait ? OP_SHELL : OP_LAUNCH));
    op_result_init(&r);
    op_request_set_text(&q, ARG_COMMAND, dynbuf_str(&line));
    dynbuf_cleanup(&line);
    if (!perform(p, &q, &r, o)) {
        o->data = cJSON_CreateObject();
        if (wait) {
            cJSON_AddNumberToObject(o->data, "exit_code", r.shell.exit_code);
            cJSON_AddStringToObject(o->data, "stdout", r.shell.out ? r.shell.out : "");
            cJSON_AddStringToObject(o->data, "stderr", r.shell.err ? r.shell.err : "");
            cJSON_AddNullToObject(o->data, "pid");
        } else {
            cJSON_AddNullToObject(o->data, "exit_code");
            cJSON_AddStringToObject(o->data, "stdout", "");
            cJSON_AddStringToObject(o->data, "stderr", "");
            if (r.window.pid)
                cJSON_AddNumberToObject(o->data, "pid", r.window.pid);
            else
                cJSON_AddNullToObject(o->data, "pid");
        }
    }
    op_result_cleanup(&r);
    return o->err;
}

static wa_err do_wait_for(struct rdp *p, const cJSON *params, struct out *o)
{
    const char *sel = str_arg(params, "selector");
    const char *state = str_arg(params, "state");
    state = state ? state : "visible";
    bool gone = strcmp(state, "gone") == 0, enabled = strcmp(state, "enabled") == 0;
    if (!gone && !enabled && strcmp(state, "visible") != 0)
        return failed(o, WA_E_INVALID_ARGS, "state is visible, enabled or gone");
    if (!sel || !*sel)
        return failed(o, WA_E_INVALID_ARGS, "wait_for needs a selector");
    double timeout = num_arg(params, "timeout_ms", DEFAULT_WAIT_MS);
    if (timeout < 0 || timeout > 600000)
        return failed(o, WA_E_INVALID_ARGS, "timeout_ms must be 0-600000");
    int64_t t0 = os_now_ms();
    for (;;) {
        struct out probe = {0};
        struct ref_target t;
        unsigned states = 0;
        bool found;
        if (sel[0] == '@') {
            struct op_result r;
            found = !resolve_inspect(p, sel, &t, &r, &probe);
            if (found) {
                states = r.element.states;
                op_result_cleanup(&r);
            }
        } else {
            found = !find_on_desktop(p, sel, &t, &states, &probe);
        }
        if (probe.err == WA_E_INVALID_ARGS)
            return failed(o, probe.err, "%s", probe.message);
        bool holds = gone      ? !found
                     : enabled ? found && !(states & WA_ST_DISABLED)
                               : found && !(states & WA_ST_OFFSCREEN);
        int64_t waited = os_now_ms() - t0;
        if (holds) {
            o->data = cJSON_CreateObject();
            cJSON_AddStringToObject(o->data, "state", state);
            cJSON_AddNumberToObject(o->data, "waited_ms", (double)waited);
            return WA_E_OK;
        }
        if (waited >= (int64_t)timeout)
            return failed(o, WA_E_TIMEOUT, "%s did not become %s within %.0f ms", sel, state,
                          timeout);
        if (os_sleep_ms(WAIT_POLL_MS))
            return failed(o, WA_E_INTERRUPTED, "interrupted");
    }
}

static wa_err do_context_menu(struct rdp *p, const cJSON *params, struct out *o)
{
    struct ref_target t;
    if (element_op_at(p, params, OP_FOCUS_ELEMENT, NULL, NULL, &t, o))
        return o->err;
    cJSON_Delete(o->data);
    o->data = NULL;
    struct op_request q;
    struct op_result r;
    op_request_init(&q, op_def(OP_KEY));
    op_result_init(&r);
    op_request_set_number(&q, ARG_WINDOW, (double)t.hwnd);
    op_request_set_text(&q, ARG_KEYS, "shift+f10");
    if (!perform(p, &q, &r, o)) {
        o->data = cJSON_CreateObject();
        cJSON_AddStringToObject(o->data, "action", "context_menu");
    }
    op_result_cleanup(&r);
    return o->err;
}

static wa_err do_status(struct rdp *p, struct out *o)
{
    (void)p;
    o->data = cJSON_CreateObject();
    cJSON_AddBoolToObject(o->data, "agent_running", true);
    cJSON_AddNumberToObject(o->data, "agent_pid", (double)os_pid());
    cJSON *caps = cJSON_AddArrayToObject(o->data, "capabilities");
    for (const char *const *c = rdp_commands(); *c; c++)
        cJSON_AddItemToArray(caps, cJSON_CreateString(*c));
    cJSON_AddStringToObject(o->data, "version", WINAGENT_VERSION);
    return WA_E_OK;
}

static wa_err do_fill(struct rdp *p, const cJSON *params, struct out *o)
{
    const char *text = str_arg(params, "text");
    return text ? element_op(p, params, OP_SET_VALUE, text, NULL, o)
                : failed(o, WA_E_INVALID_ARGS, "fill needs text");
}

static wa_err do_select(struct rdp *p, const cJSON *params, struct out *o)
{
    return element_op(p, params, OP_SELECT, NULL, str_arg(params, "item"), o);
}

static wa_err do_status_command(struct rdp *p, const cJSON *params, struct out *o)
{
    (void)params;
    return do_status(p, o);
}

typedef wa_err (*rdp_handler)(struct rdp *p, const cJSON *params, struct out *o);

/* The operations whose agent-rdp command (the table's rdp column) takes parameters of
 * its own shape; the others are element commands ({"ref"} or {"selector"}). */
static const struct {
    enum op_id op;
    rdp_handler fn;
} shaped[] = {
    {OP_STATE, do_snapshot},      {OP_GET, do_get},       {OP_CLICK, do_click},
    {OP_SET_VALUE, do_fill},      {OP_SELECT, do_select}, {OP_SCROLL, do_scroll},
    {OP_LIST_WINDOWS, do_window}, {OP_SHELL, do_run},     {OP_WAIT, do_wait_for},
};

/* agent-rdp's commands that are no single operation of the table. */
static const struct {
    const char *name;
    rdp_handler fn;
} own_commands[] = {
    {"check", do_check},
    {"context_menu", do_context_menu},
    {"status", do_status_command},
};

#define OWN_COMMANDS (sizeof own_commands / sizeof own_commands[0])

const char *const *rdp_commands(void)
{
    static const char *names[OP__COUNT + OWN_COMMANDS + 1];
    if (!names[0]) {
        size_t n = 0;
        for (int i = 0; i < OP__COUNT; i++)
            if (op_def((enum op_id)i)->rdp)
                names[n++] = op_def((enum op_id)i)->rdp;
        for (size_t i = 0; i < OWN_COMMANDS; i++)
            names[n++] = own_commands[i].name;
    }
    return names;
}

/* The operation and handler of command c; false when agent-rdp has no such command. */
static bool command_of(const char *c, const struct op_def **op, rdp_handler *fn)
{
    *op = NULL;
    *fn = NULL;
    for (size_t i = 0; i < OWN_COMMANDS; i++)
        if (strcmp(c, own_commands[i].name) == 0) {
            *fn = own_commands[i].fn;
            return true;
        }
    for (int i = 0; i < OP__COUNT; i++)
        if (op_def((enum op_id)i)->rdp && strcmp(c, op_def((enum op_id)i)->rdp) == 0)
            *op = op_def((enum op_id)i);
    for (size_t i = 0; *op && i < sizeof shaped / sizeof shaped[0]; i++)
        if (shaped[i].op == (*op)->id)
            *fn = shaped[i].fn;
    return *op != NULL;
}

bool rdp_is_command(const char *command)
{
    const struct op_def *op;
    rdp_handler fn;
    return command && command_of(command, &op, &fn);
}

static void dispatch(struct rdp *p, const char *c, const cJSON *params, struct out *o)
{
    const struct op_def *op;
    rdp_handler fn;
    if (!command_of(c, &op, &fn))
        return;
    if (fn)
        fn(p, params, o);
    else
        element_op(p, params, op->id, NULL, NULL, o);
}

cJSON *rdp_handle(struct rdp *p, const char *command, const cJSON *params)
{
    struct out o = {0};
    cJSON *res = cJSON_CreateObject();
    if (!rdp_is_command(command)) {
        cJSON_AddBoolToObject(res, "success", false);
        cJSON_AddNullToObject(res, "data");
        cJSON *err = cJSON_AddObjectToObject(res, "error");
        cJSON_AddStringToObject(err, "code", "unknown");
        cJSON_AddStringToObject(err, "message", "unknown command");
        return res;
    }
    dispatch(p, command, cJSON_IsObject(params) ? params : NULL, &o);
    cJSON_AddBoolToObject(res, "success", o.err == WA_E_OK);
    if (o.err) {
        cJSON_Delete(o.data);
        cJSON_AddNullToObject(res, "data");
        cJSON *err = cJSON_AddObjectToObject(res, "error");
        cJSON_AddStringToObject(err, "code", rdp_code(o.err, o.by_ref));
        /* agent-rdp's codes are coarse: winagent's own (denied, shell_disabled, ...)
         * leads the message */
        char msg[800];
        snprintf(msg, sizeof msg, "%s: %s", wa_err_code(o.err), o.message);
        cJSON_AddStringToObject(err, "message", msg);
    } else {
        cJSON_AddItemToObject(res, "data", o.data ? o.data : cJSON_CreateObject());
        cJSON_AddNullToObject(res, "error");
    }
    return res;
}
