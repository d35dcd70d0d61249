/* Computer-use actions of the three protocols mapped onto the core's operations: one
 * table of action names per protocol into one set of kinds, then one emitter per kind.
 * Every point is brought to a screen pixel here, over the run's one display, and
 * performed by the operations that take screen pixels. */
#include "agent/run/computer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynbuf.h"
#include "base/str.h"
#include "llm/models.h"

/* Wheel notches for a distance in pixels: a notch scrolls three lines, about 50 pixels
 * of the usual list or document at 100 %. */
#define PIXELS_PER_NOTCH 50
/* The longest wait (and key hold) one call may ask: Anthropic's computer tools take 300
 * seconds; the core waits 30 at a time (OP_WAIT), so a longer one is several. */
#define LONGEST_WAIT_S  300
#define WAIT_PIECE_S    30
#define CHORDS_PER_STEP 16 /* the key sequence one OP_KEY takes */
#define MOST_REPEATS    100

enum kind {
    K_CLICK,
    K_DOUBLE,
    K_TRIPLE,
    K_RIGHT,
    K_MIDDLE,
    K_MOVE,
    K_DRAG,
    K_MOUSE_DOWN,
    K_MOUSE_UP,
    K_SCROLL,
    K_TYPE,
    K_TYPE_AT, /* Gemini type_text_at: click, clear, type, Enter */
    K_KEY,
    K_KEY_DOWN,
    K_KEY_UP,
    K_HOLD_KEY, /* Anthropic hold_key: keys down for a duration */
    K_WAIT,
    K_SCREENSHOT,
    K_ZOOM,
    K_CURSOR,
    K_NAVIGATE,
    K_FIXED_KEY,   /* a key combination of the table's own (go_back: alt+left) */
    K_UNSUPPORTED, /* known, but winagent cannot do it: the table says what instead */
};

struct action_row {
    const char *name;
    enum kind kind;
    const char *extra; /* K_FIXED_KEY: the keys; K_UNSUPPORTED: what to do instead */
};

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
    {"mouse_down", K_MOUSE_DOWN, NULL},
    {"mouse_up", K_MOUSE_UP, NULL},
    {"move", K_MOVE, NULL},
    {"type", K_TYPE, NULL},
    {"scroll", K_SCROLL, NULL},
    {"wait", K_WAIT, NULL},
    {"press_key", K_KEY, NULL},
    {"key_down", K_KEY_DOWN, NULL},
    {"key_up", K_KEY_UP, NULL},
    {"hotkey", K_KEY, NULL},
    {"take_screenshot", K_SCREENSHOT, NULL},
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
    {"left_mouse_down", K_MOUSE_DOWN, NULL},
    {"left_mouse_up", K_MOUSE_UP, NULL},
    {"type", K_TYPE, NULL},
    {"key", K_KEY, NULL},
    {"hold_key", K_HOLD_KEY, NULL},
    {"scroll", K_SCROLL, NULL},
    {"wait", K_WAIT, NULL},
    {"screenshot", K_SCREENSHOT, NULL},
    {"zoom", K_ZOOM, NULL},
    {"cursor_position", K_CURSOR, NULL},
    {NULL, K_UNSUPPORTED, NULL},
};

const char *const computer_gemini_browser_only[] = {
    "open_web_browser", "search", "navigate", "go_back", "go_forward", NULL,
};

bool computer_gemini_desktop(const char *model)
{
    const struct model_family *f = model_family(model);
    return !(f->computer && strcmp(f->computer, "browser") == 0);
}

void computer_image_limits(const struct model_family *f, int max_edge, int images, int *edge,
                           long *pixels, int *short_edge)
{
    *edge = max_edge > 0 ? max_edge : f->image_edge > 0 ? f->image_edge : 1280;
    if (f->image_edge > 0 && *edge > f->image_edge)
        *edge = f->image_edge;
    if (f->many_images > 0 && images > f->many_images && *edge > f->many_edge)
        *edge = f->many_edge;
    *pixels = f->image_pixels;
    *short_edge = f->image_short_edge;
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

/* A number argument (numbers, and numeric strings as models send them); false when
 * absent or not a number. Range-checked. */
static bool get_num(const cJSON *o, const char *key, double *out)
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
    *out = d;
    return true;
}

static bool get_int(const cJSON *o, const char *key, int *out)
{
    double d;
    if (!get_num(o, key, &d))
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

/* ---- points ---- */

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

bool computer_screen_to_pixel(const struct computer_view *v, int sx, int sy, int *x, int *y)
{
    int fw = wa_rect_width(v->frame), fh = wa_rect_height(v->frame);
    if (fw <= 0 || fh <= 0 || sx < v->frame.left || sy < v->frame.top || sx >= v->frame.right ||
        sy >= v->frame.bottom)
        return false;
    *x = (int)((int64_t)(sx - v->frame.left) * v->width / fw);
    *y = (int)((int64_t)(sy - v->frame.top) * v->height / fh);
    return true;
}

/* Gemini's 0-999 grid over the display to the screen pixel in the middle of the cell
 * (the reference client's x / 1000 * width, centred). */
static wa_err grid_to_screen(const struct computer_view *v, int x, int y, const char *what, int *sx,
                             int *sy)
{
    int fw = wa_rect_width(v->frame), fh = wa_rect_height(v->frame);
    if (fw <= 0 || fh <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "no screenshot has been sent yet: take one first");
    if (x < 0 || x > 999 || y < 0 || y > 999)
        return wa_fail(WA_E_INVALID_ARGS, "%s (%d,%d) is outside 0-999", what, x, y);
    *sx = v->frame.left + (int)(((int64_t)x * 2 + 1) * fw / 2000);
    *sy = v->frame.top + (int)(((int64_t)y * 2 + 1) * fh / 2000);
    return WA_E_OK;
}

/* A point, in screen pixels. */
struct point {
    int x, y;
};

/* The point of keys xk, yk (Gemini, OpenAI) or of the array key xk (Anthropic's
 * "coordinate": [x, y]). found false: no point given (not an error here). */
static wa_err read_point(enum computer_proto p, const cJSON *args, const char *xk, const char *yk,
                         const struct computer_view *v, struct point *out, bool *found)
{
    int x, y;
    *found = false;
    if (p == COMPUTER_ANTHROPIC) {
        const cJSON *c = get(args, xk);
        if (!c || cJSON_IsNull(c))
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
    return p == COMPUTER_GEMINI ? grid_to_screen(v, x, y, xk, &out->x, &out->y)
                                : computer_pixel_to_screen(v, x, y, &out->x, &out->y);
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

/* ---- keys ---- */

/* Keys as one combination "a+b+c": Gemini's "Control+C" as it is, a list joined. An
 * empty list is none (*out ""). */
static wa_err keys_text(const cJSON *v, char *out, size_t cap)
{
    out[0] = '\0';
    if (cJSON_IsString(v)) {
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
    return WA_E_OK;
}

/* The keys a call names (a key it must have): a string or a list of names. */
static wa_err need_keys(const cJSON *args, const char *field, const char *name, char *out,
                        size_t cap)
{
    wa_err e = keys_text(get(args, field), out, cap);
    if (!e && !out[0])
        e = wa_fail(WA_E_INVALID_ARGS, "no keys given");
    return e ? wa_fail(WA_E_INVALID_ARGS, "%s needs \"%s\": %s", name, field, wa_err_detail())
             : WA_E_OK;
}

/* The modifier keys held during a pointer action: OpenAI's "keys" list, Anthropic's
 * "text" ("shift", "ctrl+shift"; the reference client's "key" too); "" when none. */
static wa_err held_keys(enum computer_proto p, const cJSON *args, char *out, size_t cap)
{
    out[0] = '\0';
    if (p == COMPUTER_OPENAI)
        return keys_text(get(args, "keys"), out, cap);
    if (p == COMPUTER_ANTHROPIC) {
        const char *t = get_str(args, "text");
        if (!t)
            t = get_str(args, "key");
        snprintf(out, cap, "%s", t ? t : "");
    }
    return WA_E_OK;
}

/* ---- emitting requests ---- */

static wa_err add_step(struct computer_plan *p, enum op_id id, struct op_request **out)
{
    if (p->n == COMPUTER_MAX_STEPS)
        return wa_fail(WA_E_INVALID_ARGS, "too many actions in one call: at most %d steps",
                       COMPUTER_MAX_STEPS);
    p->release[p->n] = false;
    *out = &p->steps[p->n++];
    op_request_init(*out, op_def(id));
    return WA_E_OK;
}

/* A step at a point (NULL: none, where the pointer is) with keys held ("" or NULL:
 * none). */
static wa_err add_at(struct computer_plan *p, enum op_id id, const struct point *at,
                     const char *hold, struct op_request **out)
{
    wa_err e = add_step(p, id, out);
    if (!e && at && !(e = op_request_set_number(*out, ARG_X, at->x)))
        e = op_request_set_number(*out, ARG_Y, at->y);
    if (!e && hold && *hold)
        e = op_request_set_text(*out, ARG_HOLD, hold);
    return e;
}

static wa_err emit_click(struct computer_plan *p, const struct point *at, const char *button,
                         int clicks, const char *hold)
{
    struct op_request *q = NULL;
    wa_err e = add_at(p, OP_CLICK_AT, at, hold, &q);
    if (!e)
        e = op_request_set_text(q, ARG_BUTTON, button);
    return e || clicks == 1 ? e : op_request_set_number(q, ARG_CLICKS, clicks);
}

static wa_err emit_text(struct computer_plan *p, enum op_id id, enum op_arg a, const char *text)
{
    struct op_request *q = NULL;
    wa_err e = add_step(p, id, &q);
    return e ? e : op_request_set_text(q, a, text);
}

static wa_err emit_drag(struct computer_plan *p, const struct point *from, const struct point *to,
                        const char *hold)
{
    struct op_request *q = NULL;
    wa_err e = add_at(p, OP_DRAG_AT, from, hold, &q);
    if (!e)
        e = op_request_set_number(q, ARG_TO_X, to->x);
    return e ? e : op_request_set_number(q, ARG_TO_Y, to->y);
}

/* notches: wheel notches, clamped to the operation's 1-100. at NULL: where the pointer
 * is (mid: the middle of the window in front instead). */
static wa_err emit_scroll(struct computer_plan *p, const struct point *at, bool mid,
                          const char *direction, int notches, const char *hold)
{
    struct op_request *q = NULL;
    wa_err e = add_at(p, at || !mid ? OP_SCROLL_AT : OP_SCROLL, at, hold, &q);
    if (!e)
        e = op_request_set_text(q, ARG_DIRECTION, direction);
    return e ? e
             : op_request_set_number(q, ARG_AMOUNT,
                                     notches < 1     ? 1
                                     : notches > 100 ? 100
                                                     : notches);
}

/* A wait of `seconds`, at most `most`: one OP_WAIT per 30 seconds. */
static wa_err emit_wait(struct computer_plan *p, double seconds, double most)
{
    if (!(seconds >= 0 && seconds <= most))
        return wa_fail(WA_E_INVALID_ARGS, "%g seconds: at most %g are waited", seconds, most);
    do {
        double piece = seconds > WAIT_PIECE_S ? WAIT_PIECE_S : seconds;
        struct op_request *q = NULL;
        wa_err e = add_step(p, OP_WAIT, &q);
        if (!e)
            e = op_request_set_number(q, ARG_SECONDS, piece);
        if (e)
            return e;
        seconds -= piece;
    } while (seconds > 0);
    return WA_E_OK;
}

/* The keys `times` times over (Anthropic's key repeat, 1-100): OP_KEY steps of at most
 * 16 chords each. */
static wa_err emit_keys_repeated(struct computer_plan *p, const char *keys, int times)
{
    size_t chords = 0;
    for (const char *c = keys; *c;) { /* the sequence's chords, separated by spaces */
        while (*c == ' ')
            c++;
        if (*c)
            chords++;
        while (*c && *c != ' ')
            c++;
    }
    if (!chords)
        return wa_fail(WA_E_INVALID_ARGS, "no keys given");
    size_t per_step = CHORDS_PER_STEP / chords;
    if (!per_step)
        return wa_fail(WA_E_INVALID_ARGS, "at most %d keys in a sequence", CHORDS_PER_STEP);
    while (times > 0) {
        struct dynbuf b;
        dynbuf_init(&b, 64 * 1024);
        int n = times < (int)per_step ? times : (int)per_step;
        for (int i = 0; i < n; i++)
            dynbuf_addf(&b, "%s%s", i ? " " : "", keys);
        wa_err e = emit_text(p, OP_KEY, ARG_KEYS, dynbuf_str(&b));
        dynbuf_cleanup(&b);
        if (e)
            return e;
        times -= n;
    }
    return WA_E_OK;
}

/* ---- one action ---- */

/* Wheel notches for a distance in pixels, rounded, at least one. */
static int notches_for(double pixels)
{
    long n = lround(fabs(pixels) / PIXELS_PER_NOTCH);
    return n < 1 ? 1 : n > 100 ? 100 : (int)n;
}

/* The pixels Gemini asks to scroll: the 3.5 scroll's magnitude_in_pixels (300 when
 * absent); the first set's magnitude, 0-999 of the display's extent along the scroll
 * (800 when absent, as the reference client). */
static double gemini_scroll_pixels(const char *name, const cJSON *args,
                                   const struct computer_view *v, bool vertical)
{
    double px = 300, magnitude = 800;
    if (strcmp(name, "scroll") == 0 &&
        (get_num(args, "magnitude_in_pixels", &px) || !get_num(args, "magnitude", &magnitude)))
        return px;
    get_num(args, "magnitude", &magnitude);
    int extent = vertical ? wa_rect_height(v->frame) : wa_rect_width(v->frame);
    return (magnitude < 0 ? 0 : magnitude > 999 ? 999 : magnitude) * extent / 1000.0;
}

static wa_err plan_scroll(enum computer_proto p, const char *name, const cJSON *args,
                          const struct computer_view *v, struct computer_plan *out)
{
    struct point at;
    bool found;
    char hold[128];
    const char *xk = p == COMPUTER_ANTHROPIC ? "coordinate" : "x";
    wa_err e = read_point(p, args, xk, "y", v, &at, &found);
    if (!e)
        e = held_keys(p, args, hold, sizeof hold);
    if (e)
        return e;
    /* Gemini's scroll_document: the window in front; Anthropic's without a point: where
     * the pointer is */
    bool mid = p == COMPUTER_GEMINI;
    if (p == COMPUTER_OPENAI) { /* scroll_x, scroll_y: pixels, signed */
        int sx = 0, sy = 0;
        get_int(args, "scroll_x", &sx);
        get_int(args, "scroll_y", &sy);
        if (!sx && !sy)
            return wa_fail(WA_E_INVALID_ARGS, "scroll needs scroll_x or scroll_y (pixels)");
        if (sy && (e = emit_scroll(out, found ? &at : NULL, mid, sy > 0 ? "down" : "up",
                                   notches_for(sy), hold)))
            return e;
        if (sx)
            e = emit_scroll(out, found ? &at : NULL, mid, sx > 0 ? "right" : "left",
                            notches_for(sx), hold);
        return e;
    }
    const char *dir = get_str(args, p == COMPUTER_ANTHROPIC ? "scroll_direction" : "direction");
    if (!dir || !(str_ieq(dir, "up") || str_ieq(dir, "down") || str_ieq(dir, "left") ||
                  str_ieq(dir, "right")))
        return wa_fail(WA_E_INVALID_ARGS, "scroll needs \"%s\": up, down, left or right",
                       p == COMPUTER_ANTHROPIC ? "scroll_direction" : "direction");
    char lower[8];
    snprintf(lower, sizeof lower, "%s", dir);
    for (char *c = lower; *c; c++)
        *c = (char)(*c | 0x20);
    int notches = 3;
    if (p == COMPUTER_ANTHROPIC)
        get_int(args, "scroll_amount", &notches); /* wheel clicks */
    else
        notches =
            notches_for(gemini_scroll_pixels(name, args, v, lower[0] == 'u' || lower[0] == 'd'));
    return emit_scroll(out, found ? &at : NULL, mid, lower, notches, hold);
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
    if ((e = emit_click(out, &at, "left", 1, NULL)))
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
    char hold[128];
    wa_err e = held_keys(p, args, hold, sizeof hold);
    if (e)
        return e;
    if (p == COMPUTER_ANTHROPIC) {
        hold[0] = '\0'; /* text is not a modifier here */
        if ((e = need_point(p, args, "start_coordinate", NULL, v, &from)) ||
            (e = need_point(p, args, "coordinate", NULL, v, &to)))
            return e;
    } else if (p == COMPUTER_GEMINI && (get(args, "start_x") || get(args, "end_x"))) {
        /* the 3.5 set's names */
        if ((e = need_point(p, args, "start_x", "start_y", v, &from)) ||
            (e = need_point(p, args, "end_x", "end_y", v, &to)))
            return e;
    } else if (p == COMPUTER_GEMINI) {
        if ((e = need_point(p, args, "x", "y", v, &from)) ||
            (e = need_point(p, args, "destination_x", "destination_y", v, &to)))
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
    return emit_drag(out, &from, &to, hold);
}

/* Anthropic's zoom: the region [x1, y1, x2, y2] of the screenshot as an image of its
 * own, at the screen's full resolution where the display holds it, else scaled down to
 * the display's size. */
static wa_err plan_zoom(const cJSON *args, const struct computer_view *v, struct computer_plan *out)
{
    const cJSON *r = get(args, "region");
    double c[4];
    for (int i = 0; i < 4; i++) {
        const cJSON *n = cJSON_GetArrayItem(r, i);
        if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 4 || !cJSON_IsNumber(n))
            return wa_fail(WA_E_INVALID_ARGS,
                           "zoom needs \"region\": [x1, y1, x2, y2] in pixels of the screenshot");
        c[i] = n->valuedouble;
    }
    if (c[0] < 0 || c[1] < 0 || c[2] > v->width || c[3] > v->height || c[2] <= c[0] || c[3] <= c[1])
        return wa_fail(WA_E_INVALID_ARGS,
                       "the region [%g, %g, %g, %g] is not a rectangle inside the %dx%d screenshot",
                       c[0], c[1], c[2], c[3], v->width, v->height);
    int fw = wa_rect_width(v->frame), fh = wa_rect_height(v->frame);
    struct wa_rect s = {v->frame.left + (int)floor(c[0] * fw / v->width),
                        v->frame.top + (int)floor(c[1] * fh / v->height),
                        v->frame.left + (int)ceil(c[2] * fw / v->width),
                        v->frame.top + (int)ceil(c[3] * fh / v->height)};
    int rw = wa_rect_width(s), rh = wa_rect_height(s);
    double scale = fmin(1.0, fmin((double)v->width / rw, (double)v->height / rh));
    struct op_request *q = NULL;
    wa_err e = add_step(out, OP_SCREENSHOT, &q);
    static const enum op_arg corners[] = {ARG_X, ARG_Y, ARG_TO_X, ARG_TO_Y};
    const int values[] = {s.left, s.top, s.right, s.bottom};
    for (int i = 0; !e && i < 4; i++)
        e = op_request_set_number(q, corners[i], values[i]);
    int edge = (int)floor((rw > rh ? rw : rh) * scale + 1e-6);
    return e ? e : op_request_set_number(q, ARG_MAX_EDGE, edge < 64 ? 64 : edge);
}

/* Mouse button down or up, at a point or where the pointer is. */
static wa_err plan_button(enum computer_proto p, const cJSON *args, const struct computer_view *v,
                          bool down, struct computer_plan *out)
{
    struct point at;
    bool found;
    struct op_request *q = NULL;
    wa_err e =
        read_point(p, args, p == COMPUTER_ANTHROPIC ? "coordinate" : "x", "y", v, &at, &found);
    return e ? e : add_at(out, down ? OP_MOUSE_DOWN : OP_MOUSE_UP, found ? &at : NULL, NULL, &q);
}

/* Anthropic's hold_key: the keys down for `duration` seconds (at most 300), then up (up
 * even when the wait was cut short). */
static wa_err plan_hold_key(const cJSON *args, struct computer_plan *out)
{
    char keys[256];
    double seconds = 1;
    wa_err e = need_keys(args, "text", "hold_key", keys, sizeof keys);
    if (!e && !get_num(args, "duration", &seconds))
        e = wa_fail(WA_E_INVALID_ARGS, "hold_key needs \"duration\" in seconds");
    if (!e && !(seconds >= 0 && seconds <= LONGEST_WAIT_S))
        e = wa_fail(WA_E_INVALID_ARGS, "hold_key holds keys 0-%d seconds, not %g", LONGEST_WAIT_S,
                    seconds);
    if (!e)
        e = emit_text(out, OP_KEY_DOWN, ARG_KEYS, keys);
    if (!e)
        e = emit_wait(out, seconds, LONGEST_WAIT_S);
    if (!e && !(e = emit_text(out, OP_KEY_UP, ARG_KEYS, keys)))
        out->release[out->n - 1] = true;
    return e;
}

/* The wait's seconds: Anthropic's duration (at most 300), the others' seconds (at most
 * 30); 5 for wait_5_seconds, else 1 when not given (Gemini 3.5's default, and the
 * reference clients' wait). */
static wa_err plan_wait(enum computer_proto p, const char *name, const cJSON *args,
                        struct computer_plan *out)
{
    double seconds = strcmp(name, "wait_5_seconds") == 0 ? 5 : 1;
    get_num(args, p == COMPUTER_ANTHROPIC ? "duration" : "seconds", &seconds);
    return emit_wait(out, seconds, p == COMPUTER_ANTHROPIC ? LONGEST_WAIT_S : WAIT_PIECE_S);
}

/* The point a pointer action needs, with the keys held during it. */
static wa_err point_and_keys(enum computer_proto p, const cJSON *args,
                             const struct computer_view *v, bool optional, struct point *at,
                             bool *found, char *hold, size_t cap)
{
    const char *xk = p == COMPUTER_ANTHROPIC ? "coordinate" : "x";
    wa_err e =
        optional ? read_point(p, args, xk, "y", v, at, found) : need_point(p, args, xk, "y", v, at);
    if (!optional)
        *found = true;
    return e ? e : held_keys(p, args, hold, cap);
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
    struct point at;
    bool found;
    wa_err e = WA_E_OK;
    char keys[256], hold[128];
    /* Anthropic clicks without a coordinate click where the pointer is */
    bool optional = p == COMPUTER_ANTHROPIC;
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
        }
        if ((e = point_and_keys(p, args, v, optional, &at, &found, hold, sizeof hold)))
            return e;
        return emit_click(out, found ? &at : NULL, button, 1, hold);
    }
    case K_RIGHT:
    case K_MIDDLE:
    case K_DOUBLE:
    case K_TRIPLE:
        if ((e = point_and_keys(p, args, v, optional, &at, &found, hold, sizeof hold)))
            return e;
        return emit_click(out, found ? &at : NULL,
                          row->kind == K_RIGHT    ? "right"
                          : row->kind == K_MIDDLE ? "middle"
                                                  : "left",
                          row->kind == K_DOUBLE   ? 2
                          : row->kind == K_TRIPLE ? 3
                                                  : 1,
                          hold);
    case K_MOVE: {
        struct op_request *q = NULL;
        if ((e = point_and_keys(p, args, v, false, &at, &found, hold, sizeof hold)))
            return e;
        return add_at(out, OP_MOVE_AT, &at, hold, &q);
    }
    case K_DRAG:
        return plan_drag(p, args, v, out);
    case K_MOUSE_DOWN:
    case K_MOUSE_UP:
        return plan_button(p, args, v, row->kind == K_MOUSE_DOWN, out);
    case K_SCROLL:
        return plan_scroll(p, name, args, v, out);
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
    case K_KEY:
    case K_KEY_DOWN:
    case K_KEY_UP: {
        /* Anthropic: text; Gemini: press_key, key_down and key_up take key; the rest keys */
        const char *field = p == COMPUTER_ANTHROPIC ? "text"
                            : p == COMPUTER_GEMINI && strcmp(name, "hotkey") != 0 &&
                                    strcmp(name, "key_combination") != 0 && !get(args, "keys")
                                ? "key"
                                : "keys";
        if ((e = need_keys(args, field, name, keys, sizeof keys)))
            return e;
        const cJSON *rep = get(args, "repeat");
        if (p == COMPUTER_ANTHROPIC && row->kind == K_KEY && rep && !cJSON_IsNull(rep)) {
            int times;
            if (!get_int(args, "repeat", &times) || times < 1 || times > MOST_REPEATS)
                return wa_fail(WA_E_INVALID_ARGS, "key's \"repeat\" is a count, 1-%d",
                               MOST_REPEATS);
            return emit_keys_repeated(out, keys, times);
        }
        return emit_text(out,
                         row->kind == K_KEY_DOWN ? OP_KEY_DOWN
                         : row->kind == K_KEY_UP ? OP_KEY_UP
                                                 : OP_KEY,
                         ARG_KEYS, keys);
    }
    case K_HOLD_KEY:
        return plan_hold_key(args, out);
    case K_FIXED_KEY:
        return emit_text(out, OP_KEY, ARG_KEYS, row->extra);
    case K_WAIT:
        return plan_wait(p, name, args, out);
    case K_SCREENSHOT:
        return WA_E_OK; /* the answer carries a fresh screenshot whatever the action */
    case K_ZOOM:
        return plan_zoom(args, v, out);
    case K_CURSOR: {
        struct op_request *q = NULL;
        return add_step(out, OP_POINTER, &q);
    }
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
    if (p == COMPUTER_ANTHROPIC) { /* a toolset member's name is its action */
        const char *action = get_str(args, "action");
        if (!action && name && strcmp(name, "computer") != 0)
            action = name;
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

const char *computer_action_name(enum computer_proto p, const char *name, const cJSON *args)
{
    if (p == COMPUTER_GEMINI || (p == COMPUTER_ANTHROPIC && name && strcmp(name, "computer") != 0))
        return name ? name : "";
    const cJSON *a = get(args, "action");
    if (cJSON_IsString(a))
        return a->valuestring;
    if (!cJSON_IsObject(a))
        a = cJSON_GetArrayItem(get(args, "actions"), 0);
    const char *type = get_str(a, "type");
    return type ? type : name ? name : "computer";
}

enum computer_safety computer_safety_check(enum computer_proto p, const cJSON *args, char *why,
                                           size_t cap)
{
    why[0] = '\0';
    if (p == COMPUTER_GEMINI) {
        const cJSON *sd = get(args, "safety_decision");
        const char *decision = get_str(sd, "decision");
        if (!decision ||
            (strcmp(decision, "require_confirmation") != 0 && strcmp(decision, "blocked") != 0))
            return COMPUTER_SAFE;
        const char *ex = get_str(sd, "explanation");
        bool blocked = strcmp(decision, "blocked") == 0;
        snprintf(why, cap, "%s",
                 ex        ? ex
                 : blocked ? "the service's safety check blocked it"
                           : "the model asks for confirmation");
        return blocked ? COMPUTER_BLOCKED : COMPUTER_CONFIRM;
    }
    if (p != COMPUTER_OPENAI)
        return COMPUTER_SAFE;
    const cJSON *checks = get(args, "pending_safety_checks"), *c;
    if (cJSON_GetArraySize(checks) <= 0)
        return COMPUTER_SAFE;
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
    return COMPUTER_CONFIRM;
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
