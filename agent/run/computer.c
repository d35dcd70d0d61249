/* Computer-use actions of the three protocols mapped onto the core's operations: one
 * table of action names per protocol into one set of kinds, then one emitter per kind. */
#include "agent/run/computer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynbuf.h"
#include "base/str.h"

enum kind {
    K_CLICK,
    K_DOUBLE,
    K_TRIPLE,
    K_RIGHT,
    K_MIDDLE,
    K_MOVE,
    K_DRAG,
    K_SCROLL,
    K_TYPE,
    K_TYPE_AT, /* Gemini type_text_at: click, clear, type, Enter */
    K_KEY,
    K_WAIT,
    K_SCREENSHOT,
    K_NAVIGATE,
    K_FIXED_KEY,   /* a key combination of the table's own (go_back: alt+left) */
    K_UNSUPPORTED, /* known, but winagent cannot do it: the table says what instead */
};

struct action_row {
    const char *name;
    enum kind kind;
    const char *extra; /* K_FIXED_KEY: the keys; K_UNSUPPORTED: what to do instead */
};

#define NO_HOLD "pressing and holding is not supported here; use drag_and_drop or a click"

static const struct action_row gemini_actions[] = {
    /* the first action set (gemini-2.5-computer-use-preview-10-2025 and kin) */
    {"click_at", K_CLICK, NULL},
    {"hover_at", K_MOVE, NULL},
    {"type_text_at", K_TYPE_AT, NULL},
    {"scroll_document", K_SCROLL, NULL},
    {"scroll_at", K_SCROLL, NULL},
    {"wait_5_seconds", K_WAIT, NULL},
    {"go_back", K_FIXED_KEY, "alt+left"},
    {"go_forward", K_FIXED_KEY, "alt+right"},
    {"navigate", K_NAVIGATE, NULL},
    {"key_combination", K_KEY, NULL},
    {"drag_and_drop", K_DRAG, NULL},
    {"open_web_browser", K_UNSUPPORTED, "this is a Windows desktop, not a browser; use launch"},
    {"search", K_UNSUPPORTED, "this is a Windows desktop, not a browser; use navigate with a URL"},
    /* the newer set (gemini-3.5-flash) */
    {"click", K_CLICK, NULL},
    {"double_click", K_DOUBLE, NULL},
    {"triple_click", K_TRIPLE, NULL},
    {"middle_click", K_MIDDLE, NULL},
    {"right_click", K_RIGHT, NULL},
    {"move", K_MOVE, NULL},
    {"type", K_TYPE, NULL},
    {"scroll", K_SCROLL, NULL},
    {"wait", K_WAIT, NULL},
    {"press_key", K_KEY, NULL},
    {"hotkey", K_KEY, NULL},
    {"take_screenshot", K_SCREENSHOT, NULL},
    {"mouse_down", K_UNSUPPORTED, NO_HOLD},
    {"mouse_up", K_UNSUPPORTED, NO_HOLD},
    {"key_down", K_UNSUPPORTED, "use hotkey with the whole combination"},
    {"key_up", K_UNSUPPORTED, "use hotkey with the whole combination"},
    {NULL, K_UNSUPPORTED, NULL},
};

static const struct action_row openai_actions[] = {
    {"click", K_CLICK, NULL}, /* button picks right and middle ("wheel") */
    {"double_click", K_DOUBLE, NULL},   {"drag", K_DRAG, NULL},
    {"keypress", K_KEY, NULL},          {"move", K_MOVE, NULL},
    {"scroll", K_SCROLL, NULL},         {"type", K_TYPE, NULL},
    {"screenshot", K_SCREENSHOT, NULL}, {"wait", K_WAIT, NULL},
    {NULL, K_UNSUPPORTED, NULL},
};

static const struct action_row anthropic_actions[] = {
    {"left_click", K_CLICK, NULL},
    {"right_click", K_RIGHT, NULL},
    {"middle_click", K_MIDDLE, NULL},
    {"double_click", K_DOUBLE, NULL},
    {"triple_click", K_TRIPLE, NULL},
    {"mouse_move", K_MOVE, NULL},
    {"left_click_drag", K_DRAG, NULL},
    {"type", K_TYPE, NULL},
    {"key", K_KEY, NULL},
    {"scroll", K_SCROLL, NULL},
    {"wait", K_WAIT, NULL},
    {"screenshot", K_SCREENSHOT, NULL},
    {"left_mouse_down", K_UNSUPPORTED, NO_HOLD},
    {"left_mouse_up", K_UNSUPPORTED, NO_HOLD},
    {"hold_key", K_UNSUPPORTED, "use key with the whole combination"},
    {"zoom", K_UNSUPPORTED, "take a screenshot instead"},
    {"cursor_position", K_UNSUPPORTED, "the pointer is where your last action put it"},
    {NULL, K_UNSUPPORTED, NULL},
};

const char *const computer_gemini_browser_only[] = {
    "open_web_browser", "search", "navigate", "go_back", "go_forward", NULL,
};

bool computer_gemini_desktop(const char *model)
{
    static const char *const browser_only[] = {"gemini-2.5-computer-use", "gemini-3-flash",
                                               "gemini-3.1-pro", NULL};
    if (!model)
        return false;
    if (strncmp(model, "models/", 7) == 0)
        model += 7;
    for (const char *const *m = browser_only; *m; m++)
        if (strncmp(model, *m, strlen(*m)) == 0)
            return false;
    return true;
}

static const struct action_row *rows_of(enum computer_proto p)
{
    return p == COMPUTER_GEMINI   ? gemini_actions
           : p == COMPUTER_OPENAI ? openai_actions
                                  : anthropic_actions;
}

static wa_err unknown_action(enum computer_proto p, const char *name)
{
    struct dynbuf b;
    dynbuf_init(&b, 4096);
    for (const struct action_row *r = rows_of(p); r->name; r++)
        if (r->kind != K_UNSUPPORTED)
            dynbuf_addf(&b, "%s%s", b.len ? ", " : "", r->name);
    wa_err e = wa_fail(WA_E_INVALID_ARGS, "unknown computer action \"%.60s\"; the actions are %s",
                       name, dynbuf_str(&b));
    dynbuf_cleanup(&b);
    return e;
}

/* ---- reading the arguments ---- */

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An integer argument (numbers, and numeric strings as models send them); false when
 * absent or not a number. Range-checked before conversion. */
static bool get_int(const cJSON *o, const char *key, int *out)
{
    const cJSON *v = get(o, key);
    double d;
    char *end = NULL;
    if (cJSON_IsNumber(v))
        d = v->valuedouble;
    else if (cJSON_IsString(v) && v->valuestring[0] && (d = strtod(v->valuestring, &end), !*end))
        ;
    else
        return false;
    if (!(d > -1e7 && d < 1e7))
        return false;
    *out = (int)lround(d);
    return true;
}

static bool get_bool(const cJSON *o, const char *key, bool def)
{
    const cJSON *v = get(o, key);
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v);
    if (cJSON_IsString(v))
        return str_ieq(v->valuestring, "true");
    return def;
}

/* A point the model named, converted: norm (Gemini) keeps 0-999 of the frame, else a
 * screen pixel. */
struct point {
    bool norm;
    int x, y;
};

static wa_err point_from(const struct computer_view *v, bool norm, int x, int y, const char *what,
                         struct point *out)
{
    out->norm = norm;
    if (norm) {
        if (x < 0 || x > 999 || y < 0 || y > 999)
            return wa_fail(WA_E_INVALID_ARGS, "%s (%d,%d) is outside 0-999", what, x, y);
        out->x = x;
        out->y = y;
        return WA_E_OK;
    }
    return computer_pixel_to_screen(v, x, y, &out->x, &out->y);
}

/* The point of keys xk, yk (Gemini, OpenAI) or of the array key ak (Anthropic's
 * "coordinate": [x, y]). found false: no point given (not an error here). */
static wa_err read_point(enum computer_proto p, const cJSON *args, const char *xk, const char *yk,
                         const struct computer_view *v, struct point *out, bool *found)
{
    int x, y;
    *found = false;
    if (p == COMPUTER_ANTHROPIC) {
        const cJSON *c = get(args, xk);
        if (!c)
            return WA_E_OK;
        const cJSON *cx = cJSON_GetArrayItem(c, 0), *cy = cJSON_GetArrayItem(c, 1);
        if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 2 || !cJSON_IsNumber(cx) ||
            !cJSON_IsNumber(cy) || fabs(cx->valuedouble) > 1e7 || fabs(cy->valuedouble) > 1e7)
            return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be [x, y] in pixels of the screenshot",
                           xk);
        x = (int)lround(cx->valuedouble);
        y = (int)lround(cy->valuedouble);
    } else {
        bool hx = get(args, xk) != NULL, hy = get(args, yk) != NULL;
        if (!hx && !hy)
            return WA_E_OK;
        if (!get_int(args, xk, &x) || !get_int(args, yk, &y))
            return wa_fail(WA_E_INVALID_ARGS, "give \"%s\" and \"%s\" as integers (%s)", xk, yk,
                           p == COMPUTER_GEMINI ? "0-999" : "pixels of the screenshot");
    }
    *found = true;
    return point_from(v, p == COMPUTER_GEMINI, x, y, xk, out);
}

static wa_err need_point(enum computer_proto p, const cJSON *args, const char *xk, const char *yk,
                         const struct computer_view *v, struct point *out)
{
    bool found;
    wa_err e = read_point(p, args, xk, yk, v, out, &found);
    if (!e && !found)
        e = p == COMPUTER_ANTHROPIC
                ? wa_fail(WA_E_INVALID_ARGS, "this action needs \"%s\": [x, y]", xk)
                : wa_fail(WA_E_INVALID_ARGS, "this action needs \"%s\" and \"%s\"", xk, yk);
    return e;
}

wa_err computer_pixel_to_screen(const struct computer_view *v, int x, int y, int *sx, int *sy)
{
    int fw = wa_rect_width(v->frame), fh = wa_rect_height(v->frame);
    if (v->width <= 0 || v->height <= 0 || fw <= 0 || fh <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "no screenshot has been sent yet: take one first");
    if (x < 0 || y < 0 || x >= v->width || y >= v->height)
        return wa_fail(WA_E_INVALID_ARGS,
                       "(%d,%d) is outside the %dx%d screenshot (pixels from its top-left)", x, y,
                       v->width, v->height);
    /* the screen pixel under the middle of image pixel x: exact when not downscaled */
    *sx = v->frame.left + (int)floor((x + 0.5) * fw / v->width);
    *sy = v->frame.top + (int)floor((y + 0.5) * fh / v->height);
    return WA_E_OK;
}

/* ---- emitting requests ---- */

static wa_err add_step(struct computer_plan *p, enum op_id id, struct op_request **out)
{
    if (p->n == COMPUTER_MAX_STEPS)
        return wa_fail(WA_E_INVALID_ARGS, "too many actions in one call: at most %d steps",
                       COMPUTER_MAX_STEPS);
    *out = &p->steps[p->n++];
    op_request_init(*out, op_def(id));
    return WA_E_OK;
}

/* x, y (or to_x, to_y) of a point on an operation measured in 0-999 of the frame. */
static wa_err set_norm(struct op_request *q, const struct computer_view *v, const struct point *pt,
                       enum op_arg xa, enum op_arg ya)
{
    int x = pt->x, y = pt->y;
    if (!pt->norm) {
        x = pixel_to_norm(pt->x, v->frame.left, wa_rect_width(v->frame));
        y = pixel_to_norm(pt->y, v->frame.top, wa_rect_height(v->frame));
    }
    wa_err e = op_request_set_number(q, xa, x);
    return e ? e : op_request_set_number(q, ya, y);
}

static wa_err set_pixels(struct op_request *q, const struct point *pt, enum op_arg xa,
                         enum op_arg ya)
{
    wa_err e = op_request_set_number(q, xa, pt->x);
    return e ? e : op_request_set_number(q, ya, pt->y);
}

/* A click of button at a point: pixel points use the screen-pixel operation (exact);
 * 0-999 points the model's own. */
static wa_err emit_click(struct computer_plan *p, const struct computer_view *v,
                         const struct point *pt, const char *button)
{
    struct op_request *q = NULL;
    wa_err e;
    if (!pt->norm) {
        if ((e = add_step(p, OP_CLICK_AT, &q)) || (e = set_pixels(q, pt, ARG_X, ARG_Y)))
            return e;
        return op_request_set_text(q, ARG_BUTTON, button);
    }
    enum op_id id = strcmp(button, "right") == 0    ? OP_RIGHT_CLICK
                    : strcmp(button, "middle") == 0 ? OP_MIDDLE_CLICK
                                                    : OP_CLICK;
    if ((e = add_step(p, id, &q)))
        return e;
    return set_norm(q, v, pt, ARG_X, ARG_Y);
}

static wa_err emit_at(struct computer_plan *p, const struct computer_view *v, enum op_id id,
                      const struct point *pt)
{
    struct op_request *q = NULL;
    wa_err e = add_step(p, id, &q);
    return e ? e : set_norm(q, v, pt, ARG_X, ARG_Y);
}

static wa_err emit_text(struct computer_plan *p, enum op_id id, enum op_arg a, const char *text)
{
    struct op_request *q = NULL;
    wa_err e = add_step(p, id, &q);
    return e ? e : op_request_set_text(q, a, text);
}

static wa_err emit_drag(struct computer_plan *p, const struct computer_view *v,
                        const struct point *from, const struct point *to)
{
    struct op_request *q = NULL;
    wa_err e;
    if (!from->norm) {
        if ((e = add_step(p, OP_DRAG_AT, &q)) || (e = set_pixels(q, from, ARG_X, ARG_Y)))
            return e;
        return set_pixels(q, to, ARG_TO_X, ARG_TO_Y);
    }
    if ((e = add_step(p, OP_DRAG, &q)) || (e = set_norm(q, v, from, ARG_X, ARG_Y)))
        return e;
    return set_norm(q, v, to, ARG_TO_X, ARG_TO_Y);
}

/* notches: wheel notches, clamped to the operation's 1-100. at NULL: the middle of
 * the window. */
static wa_err emit_scroll(struct computer_plan *p, const struct computer_view *v,
                          const struct point *at, const char *direction, int notches)
{
    struct op_request *q = NULL;
    wa_err e;
    if (at && !at->norm)
        e = add_step(p, OP_SCROLL_AT, &q);
    else
        e = add_step(p, OP_SCROLL, &q);
    if (e || (e = op_request_set_text(q, ARG_DIRECTION, direction)))
        return e;
    if ((e = op_request_set_number(q, ARG_AMOUNT, notches < 1 ? 1 : notches > 100 ? 100 : notches)))
        return e;
    if (!at)
        return WA_E_OK;
    return at->norm ? set_norm(q, v, at, ARG_X, ARG_Y) : set_pixels(q, at, ARG_X, ARG_Y);
}

static wa_err emit_wait(struct computer_plan *p, double seconds)
{
    struct op_request *q = NULL;
    wa_err e = add_step(p, OP_WAIT, &q);
    return e ? e
             : op_request_set_number(q, ARG_SECONDS,
                                     seconds < 0    ? 0
                                     : seconds > 30 ? 30
                                                    : seconds);
}

/* Keys as one combination "a+b+c": Gemini's "Control+C" as it is, a list joined. */
static wa_err keys_text(const cJSON *v, char *out, size_t cap)
{
    out[0] = '\0';
    if (cJSON_IsString(v) && v->valuestring[0]) {
        snprintf(out, cap, "%s", v->valuestring);
        return WA_E_OK;
    }
    const cJSON *k, *list = cJSON_IsArray(v) ? v : NULL;
    size_t len = 0;
    cJSON_ArrayForEach(k, list)
    {
        if (!cJSON_IsString(k) || !k->valuestring[0])
            return wa_fail(WA_E_INVALID_ARGS, "keys must be names of keys");
        int n = snprintf(out + len, cap - len, "%s%s", len ? "+" : "", k->valuestring);
        if (n < 0 || (size_t)n >= cap - len)
            return wa_fail(WA_E_INVALID_ARGS, "too many keys");
        len += (size_t)n;
    }
    return out[0] ? WA_E_OK : wa_fail(WA_E_INVALID_ARGS, "no keys given");
}

/* ---- one action ---- */

/* Notches for Gemini's magnitude: 0-999 of the frame's extent along the scroll (800 when
 * absent, as the reference client), one notch for about 50 pixels (three lines). */
static int gemini_notches(const cJSON *args, const struct computer_view *v, bool vertical)
{
    int magnitude = 800;
    get_int(args, "magnitude", &magnitude);
    int extent = vertical ? wa_rect_height(v->frame) : wa_rect_width(v->frame);
    double px = (magnitude < 0 ? 0 : magnitude > 999 ? 999 : magnitude) * extent / 999.0;
    return (int)lround(px / 50.0);
}

static wa_err plan_scroll(enum computer_proto p, const cJSON *args, const struct computer_view *v,
                          struct computer_plan *out)
{
    struct point at;
    bool found;
    const char *xk = p == COMPUTER_ANTHROPIC ? "coordinate" : "x";
    wa_err e = read_point(p, args, xk, "y", v, &at, &found);
    if (e)
        return e;
    if (p == COMPUTER_OPENAI) { /* scroll_x, scroll_y: pixels, signed */
        int sx = 0, sy = 0;
        get_int(args, "scroll_x", &sx);
        get_int(args, "scroll_y", &sy);
        if (!sx && !sy)
            return wa_fail(WA_E_INVALID_ARGS, "scroll needs scroll_x or scroll_y (pixels)");
        if (sy && (e = emit_scroll(out, v, found ? &at : NULL, sy > 0 ? "down" : "up",
                                   (abs(sy) + 49) / 50)))
            return e;
        if (sx)
            e = emit_scroll(out, v, found ? &at : NULL, sx > 0 ? "right" : "left",
                            (abs(sx) + 49) / 50);
        return e;
    }
    const char *dir = get_str(args, p == COMPUTER_ANTHROPIC ? "scroll_direction" : "direction");
    if (!dir || !(str_ieq(dir, "up") || str_ieq(dir, "down") || str_ieq(dir, "left") ||
                  str_ieq(dir, "right")))
        return wa_fail(WA_E_INVALID_ARGS, "scroll needs \"%s\": up, down, left or right",
                       p == COMPUTER_ANTHROPIC ? "scroll_direction" : "direction");
    char lower[8];
    snprintf(lower, sizeof lower, "%c%s", dir[0] | 0x20, dir + 1);
    for (char *c = lower; *c; c++)
        *c = (char)(*c | 0x20);
    int notches = 3;
    if (p == COMPUTER_ANTHROPIC)
        get_int(args, "scroll_amount", &notches); /* wheel clicks */
    else
        notches = gemini_notches(args, v, lower[0] == 'u' || lower[0] == 'd');
    return emit_scroll(out, v, found ? &at : NULL, lower, notches);
}

static wa_err plan_type_at(const cJSON *args, const struct computer_view *v,
                           struct computer_plan *out)
{
    struct point at;
    const char *text = get_str(args, "text");
    wa_err e = need_point(COMPUTER_GEMINI, args, "x", "y", v, &at);
    if (e)
        return e;
    if (!text)
        return wa_fail(WA_E_INVALID_ARGS, "type_text_at needs \"text\"");
    if ((e = emit_click(out, v, &at, "left")))
        return e;
    /* defaults of the reference client: clear first, no Enter */
    if (get_bool(args, "clear_before_typing", true) &&
        (e = emit_text(out, OP_KEY, ARG_KEYS, "ctrl+a delete")))
        return e;
    if (text[0] && (e = emit_text(out, OP_TYPE, ARG_TEXT, text)))
        return e;
    if (get_bool(args, "press_enter", false))
        e = emit_text(out, OP_KEY, ARG_KEYS, "enter");
    return e;
}

static wa_err plan_drag(enum computer_proto p, const cJSON *args, const struct computer_view *v,
                        struct computer_plan *out)
{
    struct point from, to;
    wa_err e;
    if (p == COMPUTER_GEMINI) {
        if ((e = need_point(p, args, "x", "y", v, &from)) ||
            (e = need_point(p, args, "destination_x", "destination_y", v, &to)))
            return e;
    } else if (p == COMPUTER_ANTHROPIC) {
        if ((e = need_point(p, args, "start_coordinate", NULL, v, &from)) ||
            (e = need_point(p, args, "coordinate", NULL, v, &to)))
            return e;
    } else { /* path: [{x, y}, ...]: pressed on the first, released on the last */
        const cJSON *path = get(args, "path");
        int n = cJSON_IsArray(path) ? cJSON_GetArraySize(path) : 0;
        if (n < 2)
            return wa_fail(WA_E_INVALID_ARGS, "drag needs a \"path\" of at least two points");
        if ((e = need_point(p, cJSON_GetArrayItem(path, 0), "x", "y", v, &from)) ||
            (e = need_point(p, cJSON_GetArrayItem(path, n - 1), "x", "y", v, &to)))
            return e;
    }
    return emit_drag(out, v, &from, &to);
}

static wa_err plan_one(enum computer_proto p, const char *name, const cJSON *args,
                       const struct computer_view *v, struct computer_plan *out)
{
    const struct action_row *row = NULL;
    for (const struct action_row *r = rows_of(p); r->name && !row; r++)
        if (strcmp(r->name, name) == 0)
            row = r;
    if (!row)
        return unknown_action(p, name);
    const char *xk = p == COMPUTER_ANTHROPIC ? "coordinate" : "x";
    struct point at;
    wa_err e = WA_E_OK;
    char keys[256];
    switch (row->kind) {
    case K_CLICK: {
        const char *button = "left";
        if (p == COMPUTER_OPENAI) {
            const char *b = get_str(args, "button");
            if (b && (strcmp(b, "back") == 0 || strcmp(b, "forward") == 0))
                return emit_text(out, OP_KEY, ARG_KEYS, b[0] == 'b' ? "alt+left" : "alt+right");
            button = b && strcmp(b, "right") == 0   ? "right"
                     : b && strcmp(b, "wheel") == 0 ? "middle"
                                                    : "left";
            if (cJSON_GetArraySize(get(args, "keys")) > 0)
                return wa_fail(WA_E_INVALID_ARGS,
                               "clicking with keys held is not supported here; click, or "
                               "use keypress");
        }
        if ((e = need_point(p, args, xk, "y", v, &at)))
            return e;
        return emit_click(out, v, &at, button);
    }
    case K_RIGHT:
    case K_MIDDLE:
        if ((e = need_point(p, args, xk, "y", v, &at)))
            return e;
        return emit_click(out, v, &at, row->kind == K_RIGHT ? "right" : "middle");
    case K_DOUBLE:
    case K_TRIPLE: /* a double click and a click within the double-click time */
        if ((e = need_point(p, args, xk, "y", v, &at)) ||
            (e = emit_at(out, v, OP_DOUBLE_CLICK, &at)))
            return e;
        return row->kind == K_TRIPLE ? emit_click(out, v, &at, "left") : WA_E_OK;
    case K_MOVE:
        if ((e = need_point(p, args, xk, "y", v, &at)))
            return e;
        return emit_at(out, v, OP_MOUSE_MOVE, &at);
    case K_DRAG:
        return plan_drag(p, args, v, out);
    case K_SCROLL:
        return plan_scroll(p, args, v, out);
    case K_TYPE_AT:
        return plan_type_at(args, v, out);
    case K_TYPE: {
        const char *text = get_str(args, "text");
        if (!text)
            return wa_fail(WA_E_INVALID_ARGS, "%s needs \"text\"", name);
        if (text[0] && (e = emit_text(out, OP_TYPE, ARG_TEXT, text)))
            return e;
        if (get_bool(args, "press_enter", false))
            e = emit_text(out, OP_KEY, ARG_KEYS, "enter");
        return e;
    }
    case K_KEY: {
        const char *field = p == COMPUTER_ANTHROPIC                                  ? "text"
                            : p == COMPUTER_GEMINI && strcmp(name, "press_key") == 0 ? "key"
                                                                                     : "keys";
        if ((e = keys_text(get(args, field), keys, sizeof keys)))
            return wa_fail(WA_E_INVALID_ARGS, "%s needs \"%s\": %s", name, field, wa_err_detail());
        return emit_text(out, OP_KEY, ARG_KEYS, keys);
    }
    case K_FIXED_KEY:
        return emit_text(out, OP_KEY, ARG_KEYS, row->extra);
    case K_WAIT: {
        int seconds = strcmp(name, "wait_5_seconds") == 0 ? 5 : 2;
        get_int(args, p == COMPUTER_ANTHROPIC ? "duration" : "seconds", &seconds);
        return emit_wait(out, seconds);
    }
    case K_SCREENSHOT:
        return WA_E_OK; /* the answer carries a fresh screenshot whatever the action */
    case K_NAVIGATE: {
        const char *url = get_str(args, "url");
        if (!url || !url[0])
            return wa_fail(WA_E_INVALID_ARGS, "navigate needs \"url\"");
        return emit_text(out, OP_LAUNCH, ARG_COMMAND, url); /* the default browser opens it */
    }
    case K_UNSUPPORTED:
        break;
    }
    return wa_fail(WA_E_INVALID_ARGS, "%s is not supported by winagent: %s", name, row->extra);
}

wa_err computer_plan_call(enum computer_proto p, const char *name, const cJSON *args,
                          const struct computer_view *view, struct computer_plan *out)
{
    if (!cJSON_IsObject(args))
        return wa_fail(WA_E_INVALID_ARGS, "the arguments are not a JSON object");
    if (p == COMPUTER_GEMINI)
        return plan_one(p, name ? name : "", args, view, out);
    if (p == COMPUTER_ANTHROPIC) {
        const char *action = get_str(args, "action");
        if (!action)
            return wa_fail(WA_E_INVALID_ARGS, "the computer tool needs \"action\"");
        return plan_one(p, action, args, view, out);
    }
    /* OpenAI: one "action", or (the GA tool) a batch of "actions" run in order */
    const cJSON *one = get(args, "action"), *many = get(args, "actions"), *a;
    if (!cJSON_IsObject(one) && !cJSON_IsArray(many))
        return wa_fail(WA_E_INVALID_ARGS, "the computer_call has no action");
    const cJSON *batch = cJSON_IsObject(one) ? NULL : many;
    cJSON_ArrayForEach(a, batch)
    {
        const char *type = get_str(a, "type");
        wa_err e = type ? plan_one(p, type, a, view, out)
                        : wa_fail(WA_E_INVALID_ARGS, "an action has no \"type\"");
        if (e)
            return e;
    }
    if (!cJSON_IsObject(one))
        return WA_E_OK;
    const char *type = get_str(one, "type");
    return type ? plan_one(p, type, one, view, out)
                : wa_fail(WA_E_INVALID_ARGS, "the action has no \"type\"");
}

bool computer_needs_confirmation(enum computer_proto p, const cJSON *args, char *why, size_t cap)
{
    why[0] = '\0';
    if (p == COMPUTER_GEMINI) {
        const cJSON *sd = get(args, "safety_decision");
        const char *decision = get_str(sd, "decision");
        if (!decision || strcmp(decision, "require_confirmation") != 0)
            return false;
        const char *ex = get_str(sd, "explanation");
        snprintf(why, cap, "%s", ex ? ex : "the model asks for confirmation");
        return true;
    }
    if (p != COMPUTER_OPENAI)
        return false;
    const cJSON *checks = get(args, "pending_safety_checks"), *c;
    if (cJSON_GetArraySize(checks) <= 0)
        return false;
    size_t len = 0;
    cJSON_ArrayForEach(c, checks)
    {
        const char *msg = get_str(c, "message");
        const char *code = get_str(c, "code");
        int n = snprintf(why + len, cap - len, "%s%s", len ? "; " : "",
                         msg    ? msg
                         : code ? code
                                : "a pending safety check");
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
    return true;
}

void computer_plan_init(struct computer_plan *p)
{
    memset(p, 0, sizeof *p);
}

void computer_plan_cleanup(struct computer_plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        op_request_cleanup(&p->steps[i]);
    computer_plan_init(p);
}
