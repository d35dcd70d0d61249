/* The desktop tool's dispatcher: one call in, a JSON result (and an observation) out. */
#include "agent/desktop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"
#include "base/str.h"

#define MAX_WAIT_S        30
#define MAX_KEY_CHORDS    16
#define LAUNCH_TIMEOUT_MS 10000

void desktop_opts_default(struct desktop_opts *o)
{
    memset(o, 0, sizeof *o);
    o->observe.mode = OBS_AUTO;
    o->observe.max_edge = 1280;
    o->observe.tree_budget_ms = 3000;
    o->settle_ms = 300;
}

void desktop_session_init(struct desktop_session *s, const struct wa_backend *be,
                          const struct desktop_opts *o)
{
    memset(s, 0, sizeof *s);
    s->be = be;
    if (o)
        s->opts = *o;
    else
        desktop_opts_default(&s->opts);
    tree_init(&s->tree);
}

void desktop_session_cleanup(struct desktop_session *s)
{
    tree_cleanup(&s->tree);
    s->have_tree = false;
}

void desktop_result_init(struct desktop_result *r)
{
    memset(r, 0, sizeof *r);
    observation_init(&r->obs);
}

void desktop_result_cleanup(struct desktop_result *r)
{
    cJSON_Delete(r->json);
    observation_cleanup(&r->obs);
    image_cleanup(&r->annotate);
    desktop_result_init(r);
}

/* ---- argument helpers: models send numbers as strings, floats, or arrays ---- */

static const cJSON *arg(const cJSON *args, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* First of several names that is present. */
static const cJSON *arg_any(const cJSON *args, const char *const *names)
{
    for (; *names; names++) {
        const cJSON *v = arg(args, *names);
        if (v)
            return v;
    }
    return NULL;
}

/* An integer from a number or a numeric string; floats are rounded. */
static wa_err json_int(const cJSON *v, const char *what, int *out)
{
    double d;
    if (cJSON_IsNumber(v))
        d = v->valuedouble;
    else if (cJSON_IsString(v)) {
        char *end;
        d = strtod(v->valuestring, &end);
        while (*end == ' ')
            end++;
        if (end == v->valuestring || *end)
            return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be a number, not \"%s\"", what,
                           v->valuestring);
    } else
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be a number", what);
    if (!isfinite(d) || d > 1e9 || d < -1e9)
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" is out of range", what);
    *out = (int)lround(d);
    return WA_E_OK;
}

static wa_err arg_int(const cJSON *args, const char *name, int *out)
{
    const cJSON *v = arg(args, name);
    if (!v)
        return wa_fail(WA_E_INVALID_ARGS, "missing \"%s\"", name);
    return json_int(v, name, out);
}

static const char *arg_str(const cJSON *args, const char *name)
{
    const cJSON *v = arg(args, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An element id: 3, "3", "e3", "@e3", "[3]". 0 when absent. */
static wa_err arg_element(const cJSON *args, int *id)
{
    static const char *const names[] = {"element", "element_id", "ref", "id", "index", NULL};
    const cJSON *v = arg_any(args, names);
    *id = 0;
    if (!v)
        return WA_E_OK;
    if (cJSON_IsString(v)) {
        const char *p = v->valuestring;
        while (*p == '@' || *p == '[' || *p == 'e' || *p == 'E' || *p == '#' || *p == ' ')
            p++;
        char *end;
        long n = strtol(p, &end, 10);
        if (end == p || (*end && *end != ']'))
            return wa_fail(WA_E_INVALID_ARGS,
                           "\"element\" must be an id from the tree like 3, "
                           "not \"%s\"",
                           v->valuestring);
        *id = (int)n;
    } else {
        wa_err e = json_int(v, "element", id);
        if (e)
            return e;
    }
    if (*id <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "element ids start at 1");
    return WA_E_OK;
}

/* x/y from "x","y" or "coordinate":[x,y]; *have false when neither is present. */
static wa_err arg_point(const cJSON *args, const char *xn, const char *yn, bool *have, int *x,
                        int *y)
{
    *have = false;
    const cJSON *c = arg(args, "coordinate");
    if (!c)
        c = arg(args, "coordinates");
    if (strcmp(xn, "x") == 0 && c && cJSON_IsArray(c) && cJSON_GetArraySize(c) == 2) {
        wa_err e = json_int(cJSON_GetArrayItem(c, 0), "coordinate[0]", x);
        if (!e)
            e = json_int(cJSON_GetArrayItem(c, 1), "coordinate[1]", y);
        *have = !e;
        return e;
    }
    if (!arg(args, xn) && !arg(args, yn))
        return WA_E_OK;
    wa_err e = arg_int(args, xn, x);
    if (!e)
        e = arg_int(args, yn, y);
    *have = !e;
    return e;
}

/* ---- session helpers ---- */

cJSON *desktop_window_json(const struct wa_window *w)
{
    cJSON *o = cJSON_CreateObject();
    char hwnd[24];
    snprintf(hwnd, sizeof hwnd, "0x%llx", (unsigned long long)w->hwnd);
    cJSON_AddStringToObject(o, "hwnd", hwnd);
    cJSON_AddStringToObject(o, "title", w->title ? w->title : "");
    cJSON_AddStringToObject(o, "class", w->class_name ? w->class_name : "");
    cJSON_AddNumberToObject(o, "pid", (double)w->pid);
    cJSON_AddStringToObject(o, "process", w->process ? w->process : "");
    int r[4] = {w->rect.left, w->rect.top, w->rect.right, w->rect.bottom};
    cJSON_AddItemToObject(o, "rect", cJSON_CreateIntArray(r, 4));
    cJSON_AddStringToObject(o, "state",
                            w->state == WA_WINDOW_MINIMIZED   ? "minimized"
                            : w->state == WA_WINDOW_MAXIMIZED ? "maximized"
                                                              : "normal");
    cJSON_AddBoolToObject(o, "foreground", w->foreground);
    return o;
}

cJSON *desktop_window_state(const struct wa_backend *be, uint64_t hwnd)
{
    struct wa_window w;
    if (!hwnd || backend_window_info(be, hwnd, &w) != WA_E_OK)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    char h[24];
    snprintf(h, sizeof h, "0x%llx", (unsigned long long)hwnd);
    cJSON_AddStringToObject(o, "hwnd", h);
    cJSON_AddStringToObject(o, "title", w.title ? w.title : "");
    cJSON_AddBoolToObject(o, "is_foreground", w.foreground);
    int r[4] = {w.rect.left, w.rect.top, w.rect.right, w.rect.bottom};
    cJSON_AddItemToObject(o, "rect", cJSON_CreateIntArray(r, 4));
    wa_window_cleanup(&w);
    return o;
}

wa_err desktop_session_use_window(struct desktop_session *s, uint64_t hwnd)
{
    struct wa_window w;
    wa_err e = backend_window_info(s->be, hwnd, &w);
    if (e)
        return e;
    s->frame = w.rect;
    s->have_frame = true;
    if (s->target != hwnd) {
        tree_cleanup(&s->tree);
        s->have_tree = false;
    }
    s->target = hwnd;
    wa_window_cleanup(&w);
    return WA_E_OK;
}

/* The window calls act on: --window, else the latest observation's, else the
 * foreground window that is not our console. */
static wa_err current_window(struct desktop_session *s, uint64_t *hwnd)
{
    *hwnd = s->opts.pinned_window ? s->opts.pinned_window : s->target;
    if (*hwnd)
        return WA_E_OK;
    return backend_target_window(s->be, hwnd);
}

/* Frame for 0-999 coordinates; without an observation, the current window's rect. */
static wa_err current_frame(struct desktop_session *s, struct wa_rect *frame)
{
    if (!s->have_frame) {
        uint64_t hwnd;
        wa_err e = current_window(s, &hwnd);
        if (!e)
            e = desktop_session_use_window(s, hwnd);
        if (e)
            return e;
    }
    *frame = s->frame;
    return WA_E_OK;
}

/* Input goes to the target window: bring it to the front when something else (the
 * console winagent runs in, most often) has taken the foreground. */
static wa_err ensure_foreground(struct desktop_session *s)
{
    uint64_t hwnd;
    wa_err e = current_window(s, &hwnd);
    if (e)
        return e;
    struct wa_window w;
    e = backend_window_info(s->be, hwnd, &w);
    if (e == WA_E_WINDOW_NOT_FOUND)
        return wa_fail(e, "the target window 0x%llx is gone; observe again",
                       (unsigned long long)hwnd);
    if (e)
        return e;
    bool fg = w.foreground;
    wa_window_cleanup(&w);
    return fg ? WA_E_OK : backend_focus_window(s->be, hwnd);
}

/* Lazily walks the current window's tree when an element id is used before any tree
 * observation (as in `winagent act`): ids are then those `winagent tree` shows. */
static wa_err ensure_tree(struct desktop_session *s)
{
    if (s->have_tree)
        return WA_E_OK;
    uint64_t hwnd;
    wa_err e = current_window(s, &hwnd);
    if (e)
        return e;
    struct wa_tree_opts to = {.budget_ms = s->opts.observe.tree_budget_ms, .keep_handles = true};
    tree_cleanup(&s->tree);
    e = backend_get_tree(s->be, hwnd, &to, &s->tree);
    if (e)
        return e;
    s->have_tree = true;
    if (!s->have_frame) {
        s->frame = s->tree.frame;
        s->have_frame = true;
        s->target = hwnd;
    }
    return WA_E_OK;
}

static wa_err element_node(struct desktop_session *s, int id, const struct wa_node **out)
{
    wa_err e = ensure_tree(s);
    if (e)
        return e;
    *out = tree_node_by_id(&s->tree, id);
    if (!*out)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND,
                       "no element [%d] in the latest tree (it has %zu elements; ids change "
                       "with every observation)",
                       id, s->tree.count);
    return WA_E_OK;
}

/* The screen pixel an action aims at: an element's centre, or x,y in 0-999 of the
 * frame. norm_x/norm_y get the 0-999 form (for logs and annotation). */
struct target_point {
    int px, py;
    int nx, ny;
    int element; /* 0 when given as coordinates */
};

static wa_err resolve_point(struct desktop_session *s, const cJSON *args, bool need,
                            struct target_point *tp, bool *have)
{
    memset(tp, 0, sizeof *tp);
    *have = false;
    wa_err e = arg_element(args, &tp->element);
    if (e)
        return e;
    struct wa_rect frame;
    if (tp->element) {
        const struct wa_node *n;
        if ((e = element_node(s, tp->element, &n)))
            return e;
        struct wa_rect b = n->bounds;
        if (wa_rect_empty(b))
            return wa_fail(WA_E_ACTION_FAILED, "element [%d] has no location on screen",
                           tp->element);
        wa_rect_center(b, &tp->px, &tp->py);
        frame = s->have_frame ? s->frame : s->tree.frame;
        tp->nx = pixel_to_norm(tp->px, frame.left, wa_rect_width(frame));
        tp->ny = pixel_to_norm(tp->py, frame.top, wa_rect_height(frame));
        *have = true;
        return WA_E_OK;
    }
    bool got;
    if ((e = arg_point(args, "x", "y", &got, &tp->nx, &tp->ny)))
        return e;
    if (!got)
        return need ? wa_fail(WA_E_INVALID_ARGS, "give \"x\" and \"y\" (0-999) or \"element\"")
                    : WA_E_OK;
    if ((e = current_frame(s, &frame)))
        return e;
    if ((e = norm_point_to_pixel(frame, tp->nx, tp->ny, &tp->px, &tp->py)))
        return e;
    *have = true;
    return WA_E_OK;
}

/* The debug image: the frame as it is now, with a crosshair where the action aims. */
static void make_annotation(struct desktop_session *s, const struct target_point *tp,
                            struct desktop_result *r)
{
    if (!s->opts.annotate)
        return;
    struct wa_rect frame;
    if (current_frame(s, &frame) != WA_E_OK)
        return;
    image_cleanup(&r->annotate);
    if (backend_capture_screen(s->be, frame, &r->annotate) != WA_E_OK)
        return;
    char label[32];
    snprintf(label, sizeof label, "(%d,%d)", tp->nx, tp->ny);
    image_annotate_point(&r->annotate, tp->px - frame.left, tp->py - frame.top, label);
    r->has_annotate = true;
}

static void add_point(cJSON *j, const struct target_point *tp)
{
    if (tp->element)
        cJSON_AddNumberToObject(j, "element", tp->element);
    int n[2] = {tp->nx, tp->ny}, p[2] = {tp->px, tp->py};
    cJSON_AddItemToObject(j, "point", cJSON_CreateIntArray(n, 2));
    cJSON_AddItemToObject(j, "pixel", cJSON_CreateIntArray(p, 2));
}

static wa_err find_window_arg(struct desktop_session *s, const cJSON *args, bool required,
                              uint64_t *hwnd)
{
    static const char *const names[] = {"window", "title", "hwnd", "name", NULL};
    const cJSON *v = arg_any(args, names);
    *hwnd = 0;
    if (!v) {
        if (required && !s->opts.pinned_window)
            return wa_fail(WA_E_INVALID_ARGS, "missing \"window\" (a title, a process name "
                                              "or a 0x handle)");
        return current_window(s, hwnd);
    }
    char buf[32];
    const char *sel = cJSON_IsString(v) ? v->valuestring : NULL;
    if (cJSON_IsNumber(v)) {
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v->valuedouble);
        sel = buf;
    }
    if (!sel)
        return wa_fail(WA_E_INVALID_ARGS, "\"window\" must be a title, process name or handle");
    struct wa_window w;
    wa_err e = backend_find_window(s->be, sel, &w);
    if (e)
        return e;
    *hwnd = w.hwnd;
    wa_window_cleanup(&w);
    return WA_E_OK;
}

/* ---- the actions ---- */

struct call {
    struct desktop_session *s;
    const cJSON *args;
    struct desktop_result *r;
    cJSON *j;        /* r->json, being filled */
    const char *raw; /* the action name as the model wrote it */
    bool dry;
    uint64_t acted_on; /* window whose state the result reports */
};

static void summary(struct call *c, const char *fmt, ...) WA_PRINTF(2, 3);
static void summary(struct call *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->r->summary, sizeof c->r->summary, fmt, ap);
    va_end(ap);
}

static wa_err do_click(struct call *c, enum wa_button btn, int count)
{
    struct target_point tp;
    bool have;
    wa_err e = resolve_point(c->s, c->args, true, &tp, &have);
    if (e)
        return e;
    summary(c, "%s (%d,%d)", desktop_action_name(c->r->action), tp.nx, tp.ny);
    add_point(c->j, &tp);
    make_annotation(c->s, &tp, c->r);
    if (c->dry)
        return WA_E_OK;
    if ((e = ensure_foreground(c->s)))
        return e;
    return backend_click(c->s->be, tp.px, tp.py, btn, count);
}

static wa_err do_mouse_move(struct call *c)
{
    struct target_point tp;
    bool have;
    wa_err e = resolve_point(c->s, c->args, true, &tp, &have);
    if (e)
        return e;
    summary(c, "mouse_move (%d,%d)", tp.nx, tp.ny);
    add_point(c->j, &tp);
    make_annotation(c->s, &tp, c->r);
    return c->dry ? WA_E_OK : backend_mouse_move(c->s->be, tp.px, tp.py);
}

static wa_err do_drag(struct call *c)
{
    struct target_point from, to;
    bool have;
    wa_err e = resolve_point(c->s, c->args, true, &from, &have);
    if (e)
        return e;
    bool got;
    int tx, ty;
    if (!(e = arg_point(c->args, "to_x", "to_y", &got, &tx, &ty)) && !got)
        e = arg_point(c->args, "x2", "y2", &got, &tx, &ty);
    if (!e && !got)
        e = wa_fail(WA_E_INVALID_ARGS, "drag needs \"to_x\" and \"to_y\" (0-999)");
    struct wa_rect frame = {0, 0, 0, 0};
    if (!e)
        e = current_frame(c->s, &frame);
    if (!e)
        e = norm_point_to_pixel(frame, tx, ty, &to.px, &to.py);
    if (e)
        return e;
    to.nx = tx;
    to.ny = ty;
    to.element = 0;
    summary(c, "drag (%d,%d)->(%d,%d)", from.nx, from.ny, tx, ty);
    add_point(c->j, &from);
    int p[2] = {to.px, to.py}, n[2] = {tx, ty};
    cJSON_AddItemToObject(c->j, "to_point", cJSON_CreateIntArray(n, 2));
    cJSON_AddItemToObject(c->j, "to_pixel", cJSON_CreateIntArray(p, 2));
    make_annotation(c->s, &from, c->r);
    if (c->r->has_annotate) {
        char label[32];
        struct wa_rect f = c->s->frame;
        snprintf(label, sizeof label, "(%d,%d)", tx, ty);
        image_annotate_point(&c->r->annotate, to.px - f.left, to.py - f.top, label);
    }
    if (c->dry)
        return WA_E_OK;
    if ((e = ensure_foreground(c->s)))
        return e;
    return backend_drag(c->s->be, from.px, from.py, to.px, to.py);
}

static wa_err do_scroll(struct call *c)
{
    const char *dir = arg_str(c->args, "direction");
    if (!dir)
        dir = "down";
    bool horizontal = str_ieq(dir, "left") || str_ieq(dir, "right");
    if (!horizontal && !str_ieq(dir, "up") && !str_ieq(dir, "down"))
        return wa_fail(WA_E_INVALID_ARGS, "direction must be up, down, left or right, not \"%s\"",
                       dir);
    int amount = 3;
    static const char *const amount_names[] = {"amount", "clicks", "notches", "times", NULL};
    const cJSON *a = arg_any(c->args, amount_names);
    wa_err e = a ? json_int(a, "amount", &amount) : WA_E_OK;
    if (e)
        return e;
    if (amount <= 0 || amount > 100)
        return wa_fail(WA_E_INVALID_ARGS, "amount must be 1-100 notches");
    struct target_point tp;
    bool have;
    if ((e = resolve_point(c->s, c->args, false, &tp, &have)))
        return e;
    if (!have) { /* the middle of the frame, so the wheel reaches the target window */
        struct wa_rect f;
        if ((e = current_frame(c->s, &f)))
            return e;
        wa_rect_center(f, &tp.px, &tp.py);
        tp.nx = tp.ny = 500;
    }
    int notches = (str_ieq(dir, "up") || str_ieq(dir, "right")) ? amount : -amount;
    summary(c, "scroll %s %d at (%d,%d)", dir, amount, tp.nx, tp.ny);
    cJSON_AddStringToObject(c->j, "direction", dir);
    cJSON_AddNumberToObject(c->j, "amount", amount);
    add_point(c->j, &tp);
    make_annotation(c->s, &tp, c->r);
    if (c->dry)
        return WA_E_OK;
    if ((e = ensure_foreground(c->s)))
        return e;
    return backend_scroll(c->s->be, true, tp.px, tp.py, notches, horizontal);
}

/* Puts keyboard focus on an element: the focus pattern, else a click at its centre. */
static wa_err focus_element(struct call *c, int id, const char **via)
{
    const struct wa_node *n;
    wa_err e = element_node(c->s, id, &n);
    if (e)
        return e;
    e = backend_element_action(c->s->be, &c->s->tree, (size_t)(id - 1), WA_ACT_FOCUS, NULL, via);
    if (e == WA_E_OK)
        return e;
    int x, y;
    wa_rect_center(n->bounds, &x, &y);
    *via = "click";
    return backend_click(c->s->be, x, y, WA_BUTTON_LEFT, 1);
}

static wa_err do_type(struct call *c)
{
    const char *text = arg_str(c->args, "text");
    if (!text)
        text = arg_str(c->args, "value");
    if (!text)
        return wa_fail(WA_E_INVALID_ARGS, "type needs \"text\"");
    int id;
    wa_err e = arg_element(c->args, &id);
    if (e)
        return e;
    size_t chars = 0; /* characters, not UTF-8 bytes */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        chars += (*p & 0xC0) != 0x80;
    summary(c, "type %zu chars%s", chars, id ? " into element" : "");
    cJSON_AddNumberToObject(c->j, "chars", (double)chars);
    if (id)
        cJSON_AddNumberToObject(c->j, "element", id);
    if (c->dry)
        return id ? element_node(c->s, id, &(const struct wa_node *){NULL}) : WA_E_OK;
    if ((e = ensure_foreground(c->s)))
        return e;
    if (id) {
        const char *via = NULL;
        if ((e = focus_element(c, id, &via)))
            return e;
        cJSON_AddStringToObject(c->j, "focus_via", via);
    }
    return backend_type_text(c->s->be, text);
}

static wa_err do_key(struct call *c)
{
    static const char *const names[] = {"keys", "key", "combo", "text", "value", NULL};
    const cJSON *v = arg_any(c->args, names);
    char joined[256] = "";
    const char *keys = NULL;
    if (cJSON_IsString(v))
        keys = v->valuestring;
    else if (cJSON_IsArray(v)) { /* ["ctrl", "s"] */
        size_t len = 0;
        const cJSON *k;
        cJSON_ArrayForEach(k, v)
        {
            if (!cJSON_IsString(k))
                return wa_fail(WA_E_INVALID_ARGS, "\"keys\" array must hold key names");
            len += (size_t)snprintf(joined + len, len < sizeof joined ? sizeof joined - len : 0,
                                    "%s%s", len ? "+" : "", k->valuestring);
        }
        if (len >= sizeof joined)
            return wa_fail(WA_E_INVALID_ARGS, "too many keys");
        keys = joined;
    }
    if (!keys)
        return wa_fail(WA_E_INVALID_ARGS, "key needs \"keys\", e.g. \"ctrl+s\"");
    struct wa_key_combo combos[MAX_KEY_CHORDS];
    size_t n;
    wa_err e = keys_parse_sequence(keys, combos, MAX_KEY_CHORDS, &n);
    if (e)
        return e;
    summary(c, "key %s", keys);
    cJSON_AddStringToObject(c->j, "keys", keys);
    if (c->dry)
        return WA_E_OK;
    if ((e = ensure_foreground(c->s)))
        return e;
    for (size_t i = 0; !e && i < n; i++) {
        e = backend_press_keys(c->s->be, &combos[i]);
        if (!e && i + 1 < n)
            os_sleep_ms(30);
    }
    return e;
}

static wa_err do_pattern(struct call *c, enum wa_element_action a)
{
    int id;
    wa_err e = arg_element(c->args, &id);
    if (e)
        return e;
    if (!id)
        return wa_fail(WA_E_INVALID_ARGS, "%s needs \"element\" (an id from the tree)",
                       desktop_action_name(c->r->action));
    const char *value = NULL;
    if (a == WA_ACT_SET_VALUE) {
        value = arg_str(c->args, "value");
        if (!value)
            value = arg_str(c->args, "text");
        if (!value)
            return wa_fail(WA_E_INVALID_ARGS, "set_value needs \"value\"");
    }
    const struct wa_node *n;
    if ((e = element_node(c->s, id, &n)))
        return e;
    summary(c, "%s [%d] %s \"%.60s\"", desktop_action_name(c->r->action), id, n->type, n->name);
    cJSON_AddNumberToObject(c->j, "element", id);
    cJSON_AddStringToObject(c->j, "type", n->type);
    cJSON_AddStringToObject(c->j, "name", n->name);
    if (c->dry)
        return WA_E_OK;
    if ((e = ensure_foreground(c->s)))
        return e;
    const char *via = NULL;
    e = backend_element_action(c->s->be, &c->s->tree, (size_t)(id - 1), a, value, &via);
    /* No pattern path, or the one tried failed: do what a person would, click it (or
     * click and type). A timeout means the application is not answering: more input
     * would only queue up, so that error is reported as it is. */
    if (e == WA_E_UNSUPPORTED || (e == WA_E_ACTION_FAILED && a != WA_ACT_SET_VALUE)) {
        if (wa_rect_empty(n->bounds))
            return e;
        int x, y;
        wa_rect_center(n->bounds, &x, &y);
        e = backend_click(c->s->be, x, y, WA_BUTTON_LEFT, 1);
        via = "click";
        if (!e && a == WA_ACT_SET_VALUE) {
            struct wa_key_combo all;
            keys_parse_combo("ctrl+a", &all);
            e = backend_press_keys(c->s->be, &all);
            if (!e)
                e = *value ? backend_type_text(c->s->be, value)
                           : (keys_parse_combo("delete", &all), backend_press_keys(c->s->be, &all));
            via = "click+select-all+type";
        }
    }
    if (via)
        cJSON_AddStringToObject(c->j, "via", via);
    return e;
}

static wa_err do_wait(struct call *c)
{
    static const char *const names[] = {"seconds", "duration", "time", "secs", NULL};
    const cJSON *v = arg_any(c->args, names);
    double secs = 1.0;
    if (v) {
        if (cJSON_IsNumber(v))
            secs = v->valuedouble;
        else if (cJSON_IsString(v))
            secs = strtod(v->valuestring, NULL);
        else
            return wa_fail(WA_E_INVALID_ARGS, "\"seconds\" must be a number");
    } else if ((v = arg(c->args, "ms")) && cJSON_IsNumber(v)) {
        secs = v->valuedouble / 1000.0;
    }
    if (!(secs >= 0) || secs > MAX_WAIT_S)
        return wa_fail(WA_E_INVALID_ARGS, "wait takes 0-%d seconds", MAX_WAIT_S);
    summary(c, "wait %.1fs", secs);
    cJSON_AddNumberToObject(c->j, "seconds", secs);
    return os_sleep_ms((int)(secs * 1000.0));
}

static wa_err do_list_windows(struct call *c)
{
    struct wa_window_list l;
    wa_err e = backend_list_windows(c->s->be, &l);
    if (e)
        return e;
    cJSON *arr = cJSON_AddArrayToObject(c->j, "windows");
    for (size_t i = 0; i < l.count; i++)
        cJSON_AddItemToArray(arr, desktop_window_json(&l.items[i]));
    summary(c, "list_windows: %zu", l.count);
    wa_window_list_cleanup(&l);
    return WA_E_OK;
}

/* A backend may explain a success (a window that did not close, a size it limited):
 * that detail goes to the model as a note. */
static void add_note(struct call *c, wa_err e)
{
    if (!e && *wa_err_detail())
        cJSON_AddStringToObject(c->j, "note", wa_err_detail());
}

static wa_err do_window_op(struct call *c)
{
    enum desktop_action a = c->r->action;
    uint64_t hwnd;
    bool required = a != DA_CLOSE_WINDOW && a != DA_SET_WINDOW_STATE;
    wa_err e = find_window_arg(c->s, c->args, required, &hwnd);
    if (e)
        return e;
    struct wa_window w;
    if ((e = backend_window_info(c->s->be, hwnd, &w)))
        return e;
    summary(c, "%s \"%.60s\"", desktop_action_name(a), w.title);
    cJSON_AddItemToObject(c->j, "window", desktop_window_json(&w));
    wa_window_cleanup(&w);
    c->acted_on = hwnd;
    switch (a) {
    case DA_FOCUS_WINDOW:
        if (!c->dry && !(e = backend_focus_window(c->s->be, hwnd)))
            c->s->target = hwnd;
        return e;
    case DA_MOVE_WINDOW: {
        int x, y, wd, ht;
        if ((e = arg_int(c->args, "x", &x)) || (e = arg_int(c->args, "y", &y)) ||
            (e = arg_int(c->args, "width", &wd)) || (e = arg_int(c->args, "height", &ht)))
            return e;
        struct wa_rect r = {x, y, x + wd, y + ht};
        if (c->dry)
            return WA_E_OK;
        wa_err_clear();
        e = backend_move_window(c->s->be, hwnd, r);
        add_note(c, e); /* e.g. an application that limits its size */
        return e;
    }
    case DA_SET_WINDOW_STATE: {
        const char *st = arg_str(c->args, "state");
        if (!st) /* "minimize" / "maximize" / "restore" used as the action itself */
            st = c->raw;
        enum wa_window_state ws;
        if (str_icontains(st, "min"))
            ws = WA_WINDOW_MINIMIZED;
        else if (str_icontains(st, "max"))
            ws = WA_WINDOW_MAXIMIZED;
        else if (str_icontains(st, "restore") || str_icontains(st, "normal"))
            ws = WA_WINDOW_NORMAL;
        else
            return wa_fail(WA_E_INVALID_ARGS, "state must be minimize, maximize or restore");
        return c->dry ? WA_E_OK : backend_set_window_state(c->s->be, hwnd, ws);
    }
    case DA_CLOSE_WINDOW:
        if (c->dry)
            return WA_E_OK;
        wa_err_clear();
        e = backend_close_window(c->s->be, hwnd);
        add_note(c, e); /* e.g. still open: a save prompt came up */
        if (!e && c->s->target == hwnd)
            c->s->target = 0;
        return e;
    default:
        return wa_fail(WA_E_INVALID_ARGS, "not a window action");
    }
}

static wa_err do_launch(struct call *c)
{
    static const char *const names[] = {"command", "app", "program", "path", "name", NULL};
    const cJSON *v = arg_any(c->args, names);
    if (!cJSON_IsString(v) || !*v->valuestring)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs \"command\" (a program name or path)");
    summary(c, "launch %.80s", v->valuestring);
    cJSON_AddStringToObject(c->j, "command", v->valuestring);
    if (c->dry)
        return WA_E_OK;
    uint64_t hwnd;
    wa_err e = backend_launch(c->s->be, v->valuestring, LAUNCH_TIMEOUT_MS, &hwnd);
    if (e)
        return e;
    struct wa_window w;
    if (hwnd && backend_window_info(c->s->be, hwnd, &w) == WA_E_OK) {
        cJSON_AddItemToObject(c->j, "window", desktop_window_json(&w));
        wa_window_cleanup(&w);
        c->s->target = hwnd;
        c->acted_on = hwnd;
    } else {
        cJSON_AddStringToObject(c->j, "note", "started; no window of it appeared yet");
    }
    return WA_E_OK;
}

/* Replaces the session's view with observation o of window hwnd (tree moved in). */
static void adopt_observation(struct desktop_session *s, const struct observation *o,
                              struct wa_tree *tree)
{
    s->frame = o->frame;
    s->have_frame = !wa_rect_empty(o->frame);
    s->target = o->hwnd;
    tree_cleanup(&s->tree);
    s->tree = *tree;
    s->have_tree = tree->count > 0;
    tree_init(tree);
}

static wa_err observe_into(struct desktop_session *s, uint64_t hwnd, const struct observe_opts *o,
                           struct observation *obs)
{
    struct wa_tree tree;
    wa_err e = observe_window(s->be, hwnd, o, obs, &tree);
    if (!e)
        adopt_observation(s, obs, &tree);
    tree_cleanup(&tree);
    return e;
}

static wa_err do_window_screenshot(struct call *c)
{
    uint64_t hwnd;
    wa_err e = find_window_arg(c->s, c->args, false, &hwnd);
    if (e)
        return e;
    struct observe_opts o = c->s->opts.observe;
    const char *mode = arg_str(c->args, "mode");
    if (mode && (e = obs_mode_parse(mode, &o.mode)))
        return e;
    if ((e = observe_into(c->s, hwnd, &o, &c->r->obs)))
        return e;
    c->acted_on = hwnd;
    summary(c, "window_screenshot -> %s", c->r->obs.kind == OBS_TREE ? "tree" : "image");
    return WA_E_OK;
}

static wa_err do_screenshot(struct call *c)
{
    struct wa_monitor mons[16];
    size_t n;
    wa_err e = backend_monitors(c->s->be, mons, 16, &n);
    if (e)
        return e;
    if (n == 0)
        return wa_fail(WA_E_ACTION_FAILED, "no monitors");
    size_t pick = 0;
    const cJSON *m = arg(c->args, "monitor");
    if (m) {
        int idx;
        if ((e = json_int(m, "monitor", &idx)))
            return e;
        if (idx < 0 || (size_t)idx >= n)
            return wa_fail(WA_E_INVALID_ARGS, "monitor must be 0-%zu", n - 1);
        pick = (size_t)idx;
    } else { /* the target window's monitor, else the primary */
        uint64_t hwnd;
        struct wa_window w;
        bool found = false;
        if (current_window(c->s, &hwnd) == WA_E_OK &&
            backend_window_info(c->s->be, hwnd, &w) == WA_E_OK) {
            int cx, cy;
            wa_rect_center(w.rect, &cx, &cy);
            for (size_t i = 0; i < n && !found; i++)
                if (cx >= mons[i].rect.left && cx < mons[i].rect.right && cy >= mons[i].rect.top &&
                    cy < mons[i].rect.bottom) {
                    pick = i;
                    found = true;
                }
            wa_window_cleanup(&w);
        }
        for (size_t i = 0; i < n && !found; i++)
            if (mons[i].primary) {
                pick = i;
                found = true;
            }
    }
    if ((e = observe_screen(c->s->be, mons[pick].rect, &c->s->opts.observe, &c->r->obs)))
        return e;
    c->s->frame = mons[pick].rect;
    c->s->have_frame = true;
    summary(c, "screenshot monitor %zu", pick);
    cJSON_AddNumberToObject(c->j, "monitor", (double)pick);
    return WA_E_OK;
}

static wa_err dispatch(struct call *c)
{
    switch (c->r->action) {
    case DA_SCREENSHOT:
        return do_screenshot(c);
    case DA_WINDOW_SCREENSHOT:
        return do_window_screenshot(c);
    case DA_CLICK:
        return do_click(c, WA_BUTTON_LEFT, 1);
    case DA_DOUBLE_CLICK:
        return do_click(c, WA_BUTTON_LEFT, 2);
    case DA_RIGHT_CLICK:
        return do_click(c, WA_BUTTON_RIGHT, 1);
    case DA_MIDDLE_CLICK:
        return do_click(c, WA_BUTTON_MIDDLE, 1);
    case DA_MOUSE_MOVE:
        return do_mouse_move(c);
    case DA_DRAG:
        return do_drag(c);
    case DA_SCROLL:
        return do_scroll(c);
    case DA_TYPE:
        return do_type(c);
    case DA_KEY:
        return do_key(c);
    case DA_INVOKE:
        return do_pattern(c, WA_ACT_INVOKE);
    case DA_TOGGLE:
        return do_pattern(c, WA_ACT_TOGGLE);
    case DA_EXPAND:
        return do_pattern(c, WA_ACT_EXPAND);
    case DA_COLLAPSE:
        return do_pattern(c, WA_ACT_COLLAPSE);
    case DA_SELECT:
        return do_pattern(c, WA_ACT_SELECT);
    case DA_SET_VALUE:
        return do_pattern(c, WA_ACT_SET_VALUE);
    case DA_WAIT:
        return do_wait(c);
    case DA_LIST_WINDOWS:
        return do_list_windows(c);
    case DA_FOCUS_WINDOW:
    case DA_MOVE_WINDOW:
    case DA_SET_WINDOW_STATE:
    case DA_CLOSE_WINDOW:
        return do_window_op(c);
    case DA_LAUNCH:
        return do_launch(c);
    default:
        return wa_fail(WA_E_INVALID_ARGS, "unhandled action");
    }
}

static void set_error(struct desktop_result *r, wa_err e)
{
    cJSON_DeleteItemFromObjectCaseSensitive(r->json, "ok");
    cJSON_AddBoolToObject(r->json, "ok", false);
    cJSON *err = cJSON_AddObjectToObject(r->json, "error");
    cJSON_AddStringToObject(err, "code", wa_err_code(e));
    cJSON_AddStringToObject(err, "message", *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
}

wa_err desktop_call(struct desktop_session *s, const cJSON *args, struct desktop_result *r)
{
    desktop_result_cleanup(r);
    r->json = cJSON_CreateObject();
    cJSON_AddBoolToObject(r->json, "ok", true);
    wa_err_clear();
    struct call c = {.s = s, .args = args, .r = r, .j = r->json, .dry = s->opts.dry_run};
    if (!cJSON_IsObject(args)) {
        r->err = wa_fail(WA_E_INVALID_ARGS, "the desktop tool takes a JSON object like "
                                            "{\"action\":\"click\",\"x\":500,\"y\":300}");
        set_error(r, r->err);
        snprintf(r->summary, sizeof r->summary, "desktop (bad arguments) -> error");
        return r->err;
    }
    c.raw = arg_str(args, "action");
    if (!c.raw)
        c.raw = arg_str(args, "type"); /* some models name it "type" */
    wa_err e = desktop_action_parse(c.raw, &r->action);
    if (e) {
        r->err = e;
        set_error(r, e);
        snprintf(r->summary, sizeof r->summary, "%.40s -> error: unknown action",
                 c.raw ? c.raw : "(no action)");
        return e;
    }
    r->action_known = true;
    cJSON_AddStringToObject(r->json, "action", desktop_action_name(r->action));
    if (c.dry && desktop_action_acts(r->action))
        cJSON_AddBoolToObject(r->json, "dry_run", true);
    int64_t t0 = os_now_ms();
    e = dispatch(&c);
    r->action_ms = (double)(os_now_ms() - t0);
    r->err = e;
    if (!r->summary[0])
        snprintf(r->summary, sizeof r->summary, "%s", desktop_action_name(r->action));
    size_t len = strlen(r->summary);
    if (e) {
        set_error(r, e);
        snprintf(r->summary + len, sizeof r->summary - len, " -> error: %s", wa_err_code(e));
        return e;
    }
    snprintf(r->summary + len, sizeof r->summary - len,
             c.dry && desktop_action_acts(r->action) ? " -> dry-run" : " -> ok");
    if (desktop_action_acts(r->action)) {
        if (s->opts.observe_after) {
            /* A fresh look at whatever is in front now, so the model can verify. */
            if (s->opts.settle_ms > 0 && !c.dry)
                os_sleep_ms(s->opts.settle_ms);
            uint64_t hwnd = s->opts.pinned_window;
            wa_err oe = hwnd ? WA_E_OK : backend_target_window(s->be, &hwnd);
            if (!oe)
                oe = observe_into(s, hwnd, &s->opts.observe, &r->obs);
            if (oe)
                cJSON_AddStringToObject(r->json, "observation_error",
                                        *wa_err_detail() ? wa_err_detail() : wa_err_message(oe));
        }
        /* The state after the action (and after the settle pause, when observing). */
        uint64_t ws = c.acted_on ? c.acted_on : s->opts.pinned_window;
        if (!ws)
            ws = s->target;
        if (!ws)
            backend_target_window(s->be, &ws);
        cJSON *state = desktop_window_state(s->be, ws);
        if (state)
            cJSON_AddItemToObject(r->json, "window_state", state);
    }
    return WA_E_OK;
}

wa_err desktop_call_text(struct desktop_session *s, const char *json, struct desktop_result *r)
{
    cJSON *args = cJSON_Parse(json ? json : "");
    if (!args) {
        desktop_result_cleanup(r);
        r->json = cJSON_CreateObject();
        r->err = wa_fail(WA_E_INVALID_ARGS, "arguments are not valid JSON: %.200s",
                         json ? json : "(none)");
        set_error(r, r->err);
        snprintf(r->summary, sizeof r->summary, "desktop (malformed arguments) -> error");
        return r->err;
    }
    wa_err e = desktop_call(s, args, r);
    cJSON_Delete(args);
    return e;
}
