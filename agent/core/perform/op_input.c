/* Mouse and keyboard operations: clicks, moves, drags, the wheel, typing, keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/perform/operations.h"
#include "agent/core/call/elements.h"
#include "agent/core/call/guard.h"
#include "agent/core/call/look.h"
#include "agent/core/call/send.h"
#include "agent/core/call/verify.h"
#include "agent/core/call/target.h"
#include "automation/image/annotate.h"

#define MAX_KEY_CHORDS 16

/* Where an operation aims: screen pixels and their 0-999 form. */
struct aim {
    int px, py;
    int nx, ny;
    bool have;
    bool element; /* the point is element index's centre */
    size_t index;
};

/* An element's centre, x/y in the operation's unit, or nothing (need: an error). */
static wa_err aim_at(struct call *k, enum op_arg el, enum op_arg xa, enum op_arg ya, bool need,
                     struct aim *out)
{
    const struct op_request *q = k->q;
    memset(out, 0, sizeof *out);
    const struct elem_ref *ref = op_request_element(q, el);
    struct wa_rect frame;
    wa_err e;
    if (ref && ref->kind != EREF_NONE) {
        size_t i;
        if ((e = element_resolve(k, el, &i)))
            return e;
        struct wa_rect b = k->s->tree.nodes[i].bounds;
        if (wa_rect_empty(b))
            return wa_fail(WA_E_ACTION_FAILED, "element [%d] has no location on screen",
                           ref->kind == EREF_ID ? ref->id : (int)i + 1);
        wa_rect_center(b, &out->px, &out->py);
        out->element = true;
        out->index = i;
        if ((e = target_frame(k, &frame)))
            return e;
    } else if (op_request_has(q, xa) || op_request_has(q, ya)) {
        if (!op_request_has(q, xa) || !op_request_has(q, ya))
            return wa_fail(WA_E_INVALID_ARGS, "give both \"%s\" and \"%s\"",
                           arg_name(xa, k->s->o.model_names), arg_name(ya, k->s->o.model_names));
        int x = xa == ARG_X ? q->x : q->to_x, y = ya == ARG_Y ? q->y : q->to_y;
        if ((e = target_frame(k, &frame)))
            return e;
        if (op_arg_unit(q->op, xa) == UNIT_PIXEL) {
            out->px = x;
            out->py = y;
        } else if ((e = norm_point_to_pixel(frame, x, y, &out->px, &out->py))) {
            return e;
        }
    } else {
        return need ? wa_fail(WA_E_INVALID_ARGS, "%s needs \"%s\" and \"%s\" (%s) or \"%s\"",
                              k->name, arg_name(xa, k->s->o.model_names),
                              arg_name(ya, k->s->o.model_names),
                              op_arg_unit(q->op, xa) == UNIT_PIXEL ? "screen pixels" : "0-999",
                              arg_name(el, k->s->o.model_names))
                    : WA_E_OK;
    }
    out->nx = pixel_to_norm(out->px, frame.left, wa_rect_width(frame));
    out->ny = pixel_to_norm(out->py, frame.top, wa_rect_height(frame));
    out->have = true;
    return WA_E_OK;
}

/* Where the pointer is, as an aim (an operation at a pixel given without one). */
static wa_err aim_pointer(struct call *k, struct aim *out)
{
    memset(out, 0, sizeof *out);
    struct wa_rect frame;
    wa_err e = backend_cursor_position(k->be, &out->px, &out->py);
    if (!e)
        e = target_frame(k, &frame);
    if (e)
        return e;
    out->nx = pixel_to_norm(out->px, frame.left, wa_rect_width(frame));
    out->ny = pixel_to_norm(out->py, frame.top, wa_rect_height(frame));
    out->have = true;
    return WA_E_OK;
}

/* An aim at x,y, or where the pointer is when the request gives no point. */
static wa_err aim_or_pointer(struct call *k, struct aim *out)
{
    wa_err e = aim_at(k, ARG_ELEMENT, ARG_X, ARG_Y, false, out);
    return e || out->have ? e : aim_pointer(k, out);
}

/* The keys an operation holds down during its input ("hold": ctrl, shift+alt...); none
 * when not asked. */
static wa_err held_keys(struct call *k, struct wa_key_combo *held)
{
    held->count = 0;
    if (!k->q->hold || !*k->q->hold)
        return WA_E_OK;
    if (k->send.background)
        return wa_fail(WA_E_BACKGROUND_UNAVAILABLE,
                       "%s has no background route: keys held during it are the real keyboard's",
                       k->name);
    return keys_parse_combo(k->q->hold, held);
}

/* Presses the held keys, once the gate has allowed the window under (px, py) too, so
 * that nothing goes down for an input that will be refused. */
static wa_err hold_down(struct call *k, const struct wa_key_combo *held, int px, int py)
{
    if (!held->count)
        return WA_E_OK;
    wa_err e = guard_receiver_at(k, px, py);
    return e ? e : send_hold_keys(k, held, true, false);
}

/* Lets the held keys go whatever the input did; e stays the result. */
static wa_err hold_up(struct call *k, const struct wa_key_combo *held, wa_err e)
{
    if (held->count)
        send_release_keys(k, held);
    return e;
}

static void report_point(struct call *k, const struct aim *a)
{
    struct op_result *r = k->r;
    r->has_point = true;
    r->nx = a->nx;
    r->ny = a->ny;
    r->px = a->px;
    r->py = a->py;
}

static void annotate_image(struct call *k, const struct aim *a, const struct aim *to);

/* The debug image: the frame as it is now, with a crosshair where the action aims. */
static void annotate(struct call *k, const struct aim *a, const struct aim *to)
{
    if (!k->s->o.annotate)
        return;
    double t0 = os_clock_ms();
    annotate_image(k, a, to);
    k->r->annotate_ms += (os_clock_ms() - t0);
}

static void annotate_image(struct call *k, const struct aim *a, const struct aim *to)
{
    struct wa_rect frame;
    if (target_frame(k, &frame) != WA_E_OK)
        return;
    struct op_result *r = k->r;
    image_cleanup(&r->annotate);
    struct wa_rect got;
    const struct before_look *b = &k->look.before;
    /* The look before captured the window a moment ago: the same frame, used again. */
    bool again = b->have_image && b->frame.left == frame.left && b->frame.top == frame.top &&
                 b->frame.right == frame.right && b->frame.bottom == frame.bottom;
    if (again ? look_capture_copy(k, b->window, &b->image, frame, &r->annotate) != WA_E_OK
              : look_capture(k, 0, frame, &r->annotate, &got) != WA_E_OK)
        return;
    if (k->s->marked && k->s->have_tree) /* the same marks the model was shown */
        observe_draw_marks(&k->s->tree, &r->annotate, frame);
    char label[32];
    snprintf(label, sizeof label, "(%d,%d)", a->nx, a->ny);
    annotate_point(&r->annotate, a->px - frame.left, a->py - frame.top, label);
    if (to) {
        snprintf(label, sizeof label, "(%d,%d)", to->nx, to->ny);
        annotate_point(&r->annotate, to->px - frame.left, to->py - frame.top, label);
    }
    r->has_annotate = true;
}

/* The pattern a left click on a node means, for background delivery. */
static enum wa_element_action click_action(const struct wa_node *n)
{
    static const char *const selected[] = {"RadioButton", "ListItem", "TabItem", "TreeItem",
                                           "DataItem"};
    if (strcmp(n->type, "CheckBox") == 0)
        return WA_ACT_TOGGLE;
    for (size_t i = 0; i < sizeof selected / sizeof selected[0]; i++)
        if (strcmp(n->type, selected[i]) == 0)
            return WA_ACT_SELECT;
    return WA_ACT_INVOKE;
}

/* Background: a left click on an element is what the control offers for it (a
 * pattern, a default action, a control message); where it offers nothing, the click
 * is posted to the window under its centre. */
static wa_err background_click(struct call *k, const struct aim *a, enum wa_button b, int count)
{
    if (a->element && b == WA_BUTTON_LEFT && count == 1) {
        const char *via = NULL;
        const struct wa_node *n = &k->s->tree.nodes[a->index];
        wa_err e = send_element(k, a->index, click_action(n), NULL, &via);
        if (e != WA_E_UNSUPPORTED && e != WA_E_ACTION_FAILED) {
            k->r->via = via;
            return e;
        }
        wa_err_clear();
    }
    static const char *const posted[] = {"message:WM_LBUTTONDOWN", "message:WM_RBUTTONDOWN",
                                         "message:WM_MBUTTONDOWN"};
    k->r->via = posted[b];
    return send_click(k, a->px, a->py, b, count);
}

static wa_err click(struct call *k, enum wa_button b, int count)
{
    struct aim a;
    struct wa_key_combo held;
    wa_err e = k->q->op->id == OP_CLICK_AT ? aim_or_pointer(k, &a)
                                           : aim_at(k, ARG_ELEMENT, ARG_X, ARG_Y, true, &a);
    if (!e)
        e = held_keys(k, &held);
    if (e)
        return e;
    if (k->r->has_element && (k->r->element.states & WA_ST_DISABLED))
        op_result_note(k->r, "%s \"%.80s\" is disabled: the click may do nothing",
                       k->r->element.type, k->r->element.name);
    call_summary(k, "%s (%d,%d)", k->name, a.nx, a.ny);
    /* a right click opens context menus; a left one menu bar items */
    k->verify.may_open_menu = b == WA_BUTTON_RIGHT || (k->r->has_element && k->r->element.type &&
                                                       strncmp(k->r->element.type, "Menu", 4) == 0);
    report_point(k, &a);
    annotate(k, &a, NULL);
    if (k->send.background)
        return background_click(k, &a, b, count);
    if ((e = hold_down(k, &held, a.px, a.py)))
        return e;
    return hold_up(k, &held, send_click(k, a.px, a.py, b, count));
}

wa_err perform_click(struct call *k)
{
    return click(k, WA_BUTTON_LEFT, 1);
}

wa_err perform_double_click(struct call *k)
{
    return click(k, WA_BUTTON_LEFT, 2);
}

wa_err perform_right_click(struct call *k)
{
    return click(k, WA_BUTTON_RIGHT, 1);
}

wa_err perform_middle_click(struct call *k)
{
    return click(k, WA_BUTTON_MIDDLE, 1);
}

wa_err perform_click_at(struct call *k)
{
    return click(k, k->q->button, k->q->clicks);
}

static wa_err move(struct call *k)
{
    struct aim a;
    struct wa_key_combo held;
    wa_err e = aim_at(k, ARG_ELEMENT, ARG_X, ARG_Y, true, &a);
    if (!e)
        e = held_keys(k, &held);
    if (e)
        return e;
    call_summary(k, "%s (%d,%d)", k->name, a.nx, a.ny);
    report_point(k, &a);
    annotate(k, &a, NULL);
    if ((e = hold_down(k, &held, a.px, a.py)))
        return e;
    return hold_up(k, &held, send_move(k, a.px, a.py));
}

wa_err perform_mouse_move(struct call *k)
{
    return move(k);
}

wa_err perform_move_at(struct call *k)
{
    return move(k);
}

/* A button pressed and left down, or released: at x,y or where the pointer is. */
static wa_err button(struct call *k, bool down)
{
    struct aim a;
    bool given = op_request_has(k->q, ARG_X) || op_request_has(k->q, ARG_Y);
    wa_err e = aim_or_pointer(k, &a);
    if (e)
        return e;
    static const char *const names[] = {"left", "right", "middle"};
    call_summary(k, "%s %s (%d,%d)", k->name, names[k->q->button], a.nx, a.ny);
    report_point(k, &a);
    annotate(k, &a, NULL);
    return send_button(k, given, a.px, a.py, k->q->button, down);
}

wa_err perform_mouse_down(struct call *k)
{
    return button(k, true);
}

wa_err perform_mouse_up(struct call *k)
{
    return button(k, false);
}

static wa_err drag(struct call *k)
{
    struct aim from, to;
    struct wa_key_combo held;
    wa_err e = aim_at(k, ARG_ELEMENT, ARG_X, ARG_Y, true, &from);
    if (!e)
        e = aim_at(k, ARG_TO_ELEMENT, ARG_TO_X, ARG_TO_Y, true, &to);
    if (!e)
        e = held_keys(k, &held);
    if (e)
        return e;
    struct op_result *r = k->r;
    call_summary(k, "%s (%d,%d)->(%d,%d)", k->name, from.nx, from.ny, to.nx, to.ny);
    report_point(k, &from);
    r->has_to = true;
    r->to_nx = to.nx;
    r->to_ny = to.ny;
    r->to_px = to.px;
    r->to_py = to.py;
    annotate(k, &from, &to);
    if ((e = hold_down(k, &held, from.px, from.py)))
        return e;
    return hold_up(k, &held,
                   send_drag(k, from.px, from.py, to.px, to.py, k->q->button, k->q->duration_ms));
}

wa_err perform_drag(struct call *k)
{
    return drag(k);
}

wa_err perform_drag_at(struct call *k)
{
    return drag(k);
}

/* The rectangle of the window the call goes to (a session with one display frames the
 * screen, not the window in front). */
static wa_err window_rect(struct call *k, struct wa_rect *out)
{
    uint64_t hwnd;
    struct wa_window w;
    wa_err e = target_window(k, &hwnd);
    if (!e)
        e = backend_window_info(k->be, hwnd, &w);
    if (e)
        return e;
    *out = w.rect;
    wa_window_cleanup(&w);
    return WA_E_OK;
}

static wa_err scroll(struct call *k)
{
    const struct op_request *q = k->q;
    struct aim a;
    struct wa_key_combo held;
    wa_err e = q->op->id == OP_SCROLL_AT ? aim_or_pointer(k, &a)
                                         : aim_at(k, ARG_ELEMENT, ARG_X, ARG_Y, false, &a);
    if (!e)
        e = held_keys(k, &held);
    if (e)
        return e;
    if (!a.have) { /* the middle of the frame, so the wheel reaches the target window */
        struct wa_rect f;
        if ((e = k->s->have_display ? window_rect(k, &f) : target_frame(k, &f)))
            return e;
        wa_rect_center(f, &a.px, &a.py);
        a.nx = a.ny = 500;
        struct wa_rect frame;
        if (k->s->have_display && !target_frame(k, &frame)) { /* 0-999 of the display */
            a.nx = pixel_to_norm(a.px, frame.left, wa_rect_width(frame));
            a.ny = pixel_to_norm(a.py, frame.top, wa_rect_height(frame));
        }
    }
    static const char *const dirs[] = {"up", "down", "left", "right"};
    bool horizontal = q->direction == DIR_LEFT || q->direction == DIR_RIGHT;
    int notches = q->direction == DIR_UP || q->direction == DIR_RIGHT ? q->amount : -q->amount;
    call_summary(k, "%s %s %d at (%d,%d)", k->name, dirs[q->direction], q->amount, a.nx, a.ny);
    report_point(k, &a);
    annotate(k, &a, NULL);
    if (k->send.background)
        k->r->via = horizontal ? "message:WM_MOUSEHWHEEL" : "message:WM_MOUSEWHEEL";
    if ((e = hold_down(k, &held, a.px, a.py)))
        return e;
    return hold_up(k, &held, send_wheel(k, a.px, a.py, notches, horizontal));
}

wa_err perform_scroll(struct call *k)
{
    return scroll(k);
}

wa_err perform_scroll_at(struct call *k)
{
    return scroll(k);
}

/* Characters, not UTF-8 bytes. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

wa_err perform_type(struct call *k)
{
    const struct op_request *q = k->q;
    const char *text = q->text ? q->text : "";
    bool element = q->element.kind != EREF_NONE;
    size_t i = 0;
    call_summary(k, "%s %zu chars%s", k->name, utf8_chars(text), element ? " into element" : "");
    if (element && k->send.background) {
        /* Nothing is focused: the characters go to the element's own window. */
        wa_err e = element_resolve(k, ARG_ELEMENT, &i);
        if (!e)
            e = guard_element(k, i);
        if (e)
            return e;
        const struct wa_node *n = &k->s->tree.nodes[i];
        if (!n->hwnd || n->hwnd == k->s->tree.hwnd)
            return wa_fail(WA_E_BACKGROUND_UNAVAILABLE,
                           "%s has no background route into %s \"%.80s\": it has no window of "
                           "its own to post characters to (fill sets its value)",
                           k->name, n->type, n->name);
        k->send.text_control = n->hwnd;
        k->r->via = "message:WM_CHAR";
    } else if (element) {
        const char *via = NULL;
        wa_err e = element_resolve(k, ARG_ELEMENT, &i);
        if (!e)
            e = send_focus(k, i, &via);
        if (e)
            return e;
        k->r->via = via;
    } else if (k->send.background) {
        k->r->via = "message:WM_CHAR";
    }
    /* What the control held, to see the text arrive in it. */
    char *before = verify_read_before(k, element ? &i : NULL);
    wa_err e = send_text(k, text);
    if (!e && !k->dry)
        e = verify_text(k, element ? &i : NULL, before, text, false);
    free(before);
    return e;
}

/* Whether a chord of the sequence can open a menu: alt with a letter or alone, F10,
 * shift+F10 and the context-menu key. */
static bool opens_menu(const struct wa_key_combo *combos, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < combos[i].count; j++) {
            unsigned short vk = combos[i].vk[j];
            if (vk == WA_VK_MENU || vk == 0x79 /* F10 */ || vk == 0x5D /* apps */)
                return true;
        }
    return false;
}

wa_err perform_key(struct call *k)
{
    struct wa_key_combo combos[MAX_KEY_CHORDS];
    size_t n;
    wa_err e = keys_parse_sequence(k->q->keys ? k->q->keys : "", combos, MAX_KEY_CHORDS, &n);
    if (e)
        return e;
    call_summary(k, "%s %.80s", k->name, k->q->keys);
    k->verify.may_open_menu = opens_menu(combos, n);
    return send_keys(k, combos, n);
}

/* One chord pressed and left down (down), or released. */
static wa_err hold(struct call *k, bool down)
{
    struct wa_key_combo c;
    wa_err e = keys_parse_combo(k->q->keys ? k->q->keys : "", &c);
    if (e)
        return e;
    call_summary(k, "%s %.80s", k->name, k->q->keys);
    k->verify.may_open_menu = down ? false : opens_menu(&c, 1); /* alt let go opens the menu bar */
    return send_hold_keys(k, &c, down, true);
}

wa_err perform_key_down(struct call *k)
{
    return hold(k, true);
}

wa_err perform_key_up(struct call *k)
{
    return hold(k, false);
}
