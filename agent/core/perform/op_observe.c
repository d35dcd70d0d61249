/* Operations that look: windows, screenshots, observations, trees and refs, reading
 * and finding elements, waiting for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/perform/operations.h"
#include "agent/core/call/elements.h"
#include "agent/core/call/guard.h"
#include "agent/core/call/look.h"
#include "agent/core/call/refs.h"
#include "agent/core/call/target.h"
#include "automation/image/annotate.h"
#include "automation/tree_format.h"
#include "base/str.h"

#define WAIT_POLL_MS  250
#define TREE_TEXT_MAX (16u << 20)

wa_err perform_list_windows(struct call *k)
{
    struct op_result *r = k->r;
    wa_err e = backend_list_windows(k->be, &r->windows);
    if (e)
        return e;
    /* Windows the gate refuses are left out of the list. */
    size_t kept = 0, hidden = 0;
    for (size_t i = 0; i < r->windows.count; i++) {
        if (gate_check_window(k->c->gate, &r->windows.items[i], "") == WA_E_OK)
            r->windows.items[kept++] = r->windows.items[i];
        else {
            wa_window_cleanup(&r->windows.items[i]);
            hidden++;
        }
    }
    wa_err_clear();
    r->windows.count = kept;
    r->has_windows = true;
    if (hidden && !gate_has_apps(k->c->gate)) /* with an allow-list, the rest do not exist */
        op_result_note(r, "%zu window%s of restricted or unidentified processes left out", hidden,
                       hidden == 1 ? "" : "s");
    call_summary(k, "%s: %zu", k->name, kept);
    return WA_E_OK;
}

/* The monitor a screenshot shows: the one asked for, else the target window's, else the
 * primary. */
static wa_err pick_monitor(struct call *k, struct wa_rect *out, int *index)
{
    struct wa_monitor mons[16];
    size_t n;
    wa_err e = backend_monitors(k->be, mons, 16, &n);
    if (e)
        return e;
    if (n == 0)
        return wa_fail(WA_E_ACTION_FAILED, "no monitors");
    int pick = -1;
    if (k->q->monitor >= 0) {
        if ((size_t)k->q->monitor >= n)
            return wa_fail(WA_E_INVALID_ARGS, "monitor must be 0-%zu", n - 1);
        pick = k->q->monitor;
    }
    uint64_t hwnd;
    struct wa_window w;
    if (pick < 0 && target_window(k, &hwnd) == WA_E_OK &&
        backend_window_info(k->be, hwnd, &w) == WA_E_OK) {
        int cx, cy;
        wa_rect_center(w.rect, &cx, &cy);
        for (size_t i = 0; i < n && pick < 0; i++)
            if (cx >= mons[i].rect.left && cx < mons[i].rect.right && cy >= mons[i].rect.top &&
                cy < mons[i].rect.bottom)
                pick = (int)i;
        wa_window_cleanup(&w);
    }
    for (size_t i = 0; i < n && pick < 0; i++)
        if (mons[i].primary)
            pick = (int)i;
    if (pick < 0)
        pick = 0;
    k->r->hwnd = 0;
    *out = mons[pick].rect;
    *index = pick;
    return WA_E_OK;
}

/* The region x,y to x2,y2 (screen pixels, the far corner outside it), clipped to the
 * virtual screen. */
static wa_err region_rect(struct call *k, struct wa_rect *out)
{
    const struct op_request *q = k->q;
    static const enum op_arg corners[] = {ARG_X, ARG_Y, ARG_TO_X, ARG_TO_Y};
    for (size_t i = 0; i < sizeof corners / sizeof *corners; i++)
        if (!op_request_has(q, corners[i]))
            return wa_fail(WA_E_INVALID_ARGS, "a region needs x, y, x2 and y2 (screen pixels)");
    struct wa_rect screen;
    wa_err e = backend_virtual_screen(k->be, &screen);
    if (e)
        return e;
    *out = wa_rect_intersect((struct wa_rect){q->x, q->y, q->to_x, q->to_y}, screen);
    if (q->to_x <= q->x || q->to_y <= q->y || wa_rect_empty(*out))
        return wa_fail(WA_E_INVALID_ARGS,
                       "the region [%d,%d][%d,%d] is empty or off the screen [%d,%d][%d,%d]", q->x,
                       q->y, q->to_x, q->to_y, screen.left, screen.top, screen.right,
                       screen.bottom);
    return WA_E_OK;
}

/* The screen rectangle a screenshot without a window shows: the region asked for, the
 * monitor asked for, else the session's one display (fixed by the first such
 * screenshot when the session keeps one), else the target window's monitor. */
static wa_err screen_rect(struct call *k, struct wa_rect *out, char *what, size_t cap)
{
    const struct op_request *q = k->q;
    struct session *s = k->s;
    int index = 0;
    wa_err e;
    if (op_request_has(q, ARG_X) || op_request_has(q, ARG_Y) || op_request_has(q, ARG_TO_X) ||
        op_request_has(q, ARG_TO_Y)) {
        if ((e = region_rect(k, out)))
            return e;
        snprintf(what, cap, "region [%d,%d][%d,%d]", out->left, out->top, out->right, out->bottom);
        return WA_E_OK;
    }
    if (q->monitor < 0 && s->have_display) {
        *out = s->display;
        snprintf(what, cap, "display");
        return WA_E_OK;
    }
    if ((e = pick_monitor(k, out, &index)))
        return e;
    if (q->monitor < 0 && s->o.one_display) {
        s->display = *out;
        s->have_display = true;
    }
    snprintf(what, cap, "monitor %d", index);
    return WA_E_OK;
}

wa_err perform_screenshot(struct call *k)
{
    const struct op_request *q = k->q;
    struct op_result *r = k->r;
    wa_err e;
    if (q->window.given && (op_request_has(q, ARG_X) || op_request_has(q, ARG_TO_X)))
        return wa_fail(WA_E_INVALID_ARGS, "a region is of the screen: give it without a window");
    if (q->window.given) {
        uint64_t hwnd;
        if ((e = target_window(k, &hwnd)) || (e = guard_observe(k, hwnd)))
            return e;
        int edge = q->max_edge > 0 ? q->max_edge : k->s->o.observe.max_edge;
        if ((e = look_image(k, hwnd, (struct wa_rect){0, 0, 0, 0}, edge)))
            return e;
        call_summary(k, "%s window 0x%llx", k->name, (unsigned long long)hwnd);
    } else {
        struct wa_rect mon;
        char what[80];
        if ((e = screen_rect(k, &mon, what, sizeof what)))
            return e;
        struct observe_opts o = k->s->o.observe;
        if (q->max_edge > 0)
            o.max_edge = q->max_edge;
        if ((e = look_observe_screen(k, mon, &o)))
            return e;
        /* the same PNG as the image result too, for the front ends that show images */
        dynbuf_reset(&r->png);
        if ((e = dynbuf_add(&r->png, r->obs.png.data, r->obs.png.len)))
            return e;
        r->has_image = true;
        r->img_w = r->obs.width;
        r->img_h = r->obs.height;
        r->scale = wa_rect_width(mon) > 0 ? (double)r->obs.width / wa_rect_width(mon) : 1.0;
        r->origin_x = mon.left;
        r->origin_y = mon.top;
        r->frame = mon;
        call_summary(k, "%s %s", k->name, what);
    }
    if (q->path && k->dry) {
        op_result_note(r, "dry run: %zu bytes of PNG not written to %s", r->png.len, q->path);
    } else if (q->path) {
        if ((e = os_write_file(q->path, r->png.data, r->png.len)))
            return e;
        r->saved_path = str_dup(q->path);
    }
    return WA_E_OK;
}

wa_err perform_observe(struct call *k)
{
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    if (e)
        return e;
    struct observe_opts o = k->s->o.observe;
    if (op_request_has(k->q, ARG_MODE))
        o.mode = k->q->mode;
    if ((e = look_observe(k, hwnd, &o)))
        return e;
    call_summary(k, "%s -> %s", k->name, k->r->obs.kind == OBS_TREE ? "tree" : "image");
    return WA_E_OK;
}

/* The session's tree as the result's text, with its verdict. */
static wa_err tree_result(struct call *k, const struct tree_format_opts *fo)
{
    struct op_result *r = k->r;
    const struct wa_tree *t = &k->s->tree;
    struct dynbuf text;
    dynbuf_init(&text, TREE_TEXT_MAX);
    wa_err e = tree_format(t, fo, &text);
    if (!e) {
        free(r->text);
        r->text = dynbuf_take(&text);
        r->has_text = r->text != NULL;
    }
    dynbuf_cleanup(&text);
    char reason[160];
    r->useful = tree_is_useful(t, reason, sizeof reason);
    snprintf(r->verdict, sizeof r->verdict, "tree %s (%s)", r->useful ? "useful" : "not useful",
             reason);
    r->source = t->source;
    r->truncated = t->truncated;
    r->timed_out = t->timed_out;
    r->walk_ms = t->walk_ms;
    r->taken = t->taken;
    r->frame = t->frame;
    target_report(k, t->hwnd);
    return e;
}

/* The elements of the session's tree into r->elements (all, or those `keep` marks). */
static wa_err list_elements(struct call *k, const bool *keep)
{
    const struct wa_tree *t = &k->s->tree;
    struct op_result *r = k->r;
    r->elements = calloc(t->count ? t->count : 1, sizeof *r->elements);
    if (!r->elements)
        return wa_fail(WA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < t->count; i++) {
        if (keep && !keep[i])
            continue;
        wa_err e = op_elem_from_node(t, i, &r->elements[r->n_elements]);
        if (e)
            return e;
        r->n_elements++;
    }
    return WA_E_OK;
}

/* The elements the text of fo shows, so the list and the text agree. */
static wa_err list_shown(struct call *k, const struct tree_format_opts *fo)
{
    const struct wa_tree *t = &k->s->tree;
    bool *keep = calloc(t->count ? t->count : 1, sizeof *keep);
    if (!keep)
        return wa_fail(WA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < t->count; i++)
        keep[i] = tree_format_shows(t, fo, i);
    wa_err e = list_elements(k, keep);
    free(keep);
    return e;
}

wa_err perform_tree(struct call *k)
{
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    if (!e)
        e = look_fresh_tree(k, hwnd);
    if (e)
        return e;
    struct tree_format_opts fo = {.verbose = k->q->verbose, .max_depth = -1, .scope = -1};
    call_summary(k, "%s: %zu nodes from %s", k->name, k->s->tree.count, k->s->tree.source);
    e = tree_result(k, &fo);
    return e ? e : list_elements(k, NULL);
}

/* The window's image with each element's id drawn on its box. */
static wa_err annotated_image(struct call *k, uint64_t hwnd, const struct tree_format_opts *fo)
{
    struct wa_image img = {0};
    struct wa_rect frame;
    wa_err e = look_capture(k, hwnd, (struct wa_rect){0, 0, 0, 0}, &img, &frame);
    if (e)
        return e;
    const struct wa_tree *t = &k->s->tree;
    for (size_t i = 1; i < t->count; i++) { /* not the window itself */
        const struct wa_node *n = &t->nodes[i];
        if (wa_rect_empty(n->bounds) || (n->states & WA_ST_OFFSCREEN) ||
            (fo->interactive_only && !tree_type_is_interactive(n->type) &&
             !(n->states & WA_ST_FOCUSABLE)))
            continue;
        char label[24];
        snprintf(label, sizeof label, "%zu", i + 1);
        annotate_box(&img, n->bounds.left - frame.left, n->bounds.top - frame.top,
                     n->bounds.right - frame.left, n->bounds.bottom - frame.top, label);
    }
    e = look_image_from(k, &img, frame, 0);
    image_cleanup(&img);
    return e;
}

wa_err perform_state(struct call *k)
{
    const struct op_request *q = k->q;
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    struct tree_format_opts fo = {
        .verbose = q->verbose,
        .interactive_only = q->interactive,
        .compact = q->compact,
        .max_depth = q->depth,
        .scope = -1,
    };
    if (!e && q->scope.kind != EREF_NONE) {
        /* the scope is found in the previous state's refs, then the refs are renewed */
        size_t i;
        if ((e = element_resolve(k, ARG_SCOPE, &i)))
            return e;
        fo.scope = (int)i;
        op_elem_cleanup(&k->r->element);
        k->r->has_element = false;
    } else if (!e) {
        e = look_fresh_tree(k, hwnd);
    }
    if (!e && k->s->o.refs)
        e = refs_save(k);
    if (!e)
        e = tree_result(k, &fo);
    if (!e)
        e = list_shown(k, &fo);
    if (!e && (q->screenshot || q->annotated))
        e = q->annotated ? annotated_image(k, hwnd, &fo)
                         : look_image(k, hwnd, (struct wa_rect){0, 0, 0, 0}, 0);
    call_summary(k, "%s: %zu elements", k->name, k->s->tree.count);
    return e;
}

static void add_state_words(char *out, size_t cap, unsigned states)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < WA_ST__COUNT; i++)
        if (states & (1u << i))
            len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", len ? " " : "",
                                    wa_state_words[i]);
}

wa_err perform_get(struct call *k)
{
    size_t i;
    wa_err e = element_resolve(k, ARG_ELEMENT, &i);
    if (e)
        return e;
    struct op_result *r = k->r;
    const struct wa_node *n = &k->s->tree.nodes[i];
    const char *text = NULL;
    char states[160];
    switch (k->q->what) {
    case GET_TEXT:
        text = n->value && !*n->name ? n->value : n->name;
        break;
    case GET_VALUE:
        text = n->value; /* NULL: the element has no value */
        break;
    case GET_NAME:
        text = n->name;
        break;
    case GET_STATES:
        add_state_words(states, sizeof states, n->states);
        text = states;
        break;
    case GET_RECT:
    case GET_BOUNDS:
    case GET_ALL:
        break;
    }
    if (text && !(r->text = str_dup(text)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    r->has_text = text != NULL;
    call_summary(k, "%s [%d]", k->name, r->element.id);
    return WA_E_OK;
}

wa_err perform_inspect(struct call *k)
{
    size_t i;
    wa_err e = element_resolve(k, ARG_ELEMENT, &i);
    if (!e)
        call_summary(k, "%s [%d] %s \"%.60s\"", k->name, k->r->element.id, k->r->element.type,
                     k->r->element.name);
    return e;
}

static bool cancelled(const struct call *k)
{
    return k->q->cancel && *k->q->cancel;
}

/* How many items of one collection a search beyond what was listed adds, at most. */
#define FIND_ITEMS_MAX 100

/* Searches the long collections of the session's tree beyond what they list, for what
 * sel names, adding what they hold of it as nodes (their ids follow the last); *found
 * counts those the selector matches, until `want`. */
static void find_in_collections(struct call *k, const char *sel, size_t want, size_t *found)
{
    struct wa_item_query q;
    struct wa_tree *t = &k->s->tree;
    if (!selector_item_query(sel, &q))
        return;
    size_t walked = t->count;
    for (size_t i = 0; i < walked && *found < want && !cancelled(k); i++) {
        if (!t->nodes[i].coll.is)
            continue;
        size_t before = t->count, added = 0, left = want - *found;
        wa_err e = backend_find_items(k->be, t, i, &q,
                                      left < FIND_ITEMS_MAX ? left : FIND_ITEMS_MAX, &added);
        if (e && e != WA_E_UNSUPPORTED)
            op_result_note(k->r, "[%zu] %s \"%.60s\" was not searched: %s", i + 1, t->nodes[i].type,
                           t->nodes[i].name, wa_err_detail());
        wa_err_clear();
        for (size_t j = before; j < t->count; j++)
            *found += selector_matches(&t->nodes[j], sel);
    }
}

wa_err perform_find(struct call *k)
{
    const char *sel = k->q->selector;
    struct session *s = k->s;
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    /* The model's ids are those of its latest observation: a search adds to that tree
     * and leaves the ids it knows as they are. Refs clients search a fresh walk. */
    bool live = !e && !s->o.refs && s->have_tree && s->tree.hwnd == hwnd;
    if (!e && live)
        e = guard_observe(k, hwnd);
    else if (!e)
        e = look_fresh_tree(k, hwnd);
    if (!e && cancelled(k))
        e = wa_fail(WA_E_CANCELLED, "cancelled by the client");
    if (e)
        return e;
    struct wa_tree *t = &s->tree;
    size_t want = k->q->all ? (size_t)-1 : 1, found = 0;
    for (size_t i = 0; i < t->count && found < want; i++)
        found += selector_matches(&t->nodes[i], sel);
    if (found < want)
        find_in_collections(k, sel, want, &found);
    if (s->o.refs && (e = refs_save(k))) /* the refs find prints are valid refs */
        return e;
    bool *keep = calloc(t->count ? t->count : 1, sizeof *keep);
    if (!keep)
        return wa_fail(WA_E_NOMEM, "out of memory");
    found = 0;
    for (size_t i = 0; i < t->count && found < want; i++)
        if (selector_matches(&t->nodes[i], sel)) {
            keep[i] = true;
            found++;
        }
    e = found ? list_elements(k, keep)
              : wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element matches '%s'", sel);
    free(keep);
    call_summary(k, "%s '%.60s': %zu", k->name, sel, found);
    return e;
}

wa_err perform_pointer(struct call *k)
{
    struct op_result *r = k->r;
    wa_err e = backend_cursor_position(k->be, &r->px, &r->py);
    if (e)
        return e;
    struct wa_rect frame = k->s->have_frame ? k->s->frame : (struct wa_rect){0, 0, 0, 0};
    if (wa_rect_empty(frame) && (e = backend_virtual_screen(k->be, &frame)))
        return e;
    r->nx = pixel_to_norm(r->px, frame.left, wa_rect_width(frame));
    r->ny = pixel_to_norm(r->py, frame.top, wa_rect_height(frame));
    r->has_point = true;
    call_summary(k, "%s at (%d,%d)", k->name, r->px, r->py);
    return WA_E_OK;
}

/* Sleeps in slices, so a cancelled request stops within one; tells the front end how
 * far the wait that began at t0 (total seconds, 0 unknown) has come, once a second
 * (*told_at: when it was last told, 0 never). */
static wa_err pause_ms(struct call *k, int ms, int64_t t0, double total, const char *what,
                       int64_t *told_at)
{
    int64_t end = os_now_ms() + ms;
    for (;;) {
        if (cancelled(k))
            return wa_fail(WA_E_CANCELLED, "cancelled by the client");
        int64_t now = os_now_ms();
        if (k->q->progress && now - *told_at >= 1000) {
            *told_at = now;
            k->q->progress(k->q->progress_ctx, (double)(now - t0) / 1000.0, total, what);
        }
        int64_t left = end - now;
        if (left <= 0)
            return WA_E_OK;
        wa_err e = os_sleep_ms(left > 100 ? 100 : (int)left);
        if (e)
            return e;
    }
}

wa_err perform_wait(struct call *k)
{
    const struct op_request *q = k->q;
    struct op_result *r = k->r;
    static const enum op_arg conds[] = {ARG_VISIBLE, ARG_ENABLED, ARG_GONE};
    enum op_arg cond = ARG_NONE;
    for (size_t i = 0; i < 3; i++)
        if (op_request_element(q, conds[i])->kind != EREF_NONE)
            cond = conds[i];
    int64_t t0 = os_now_ms(), told_at = 0;
    if (cond == ARG_NONE) {
        call_summary(k, "%s %.1fs", k->name, q->seconds);
        wa_err e = pause_ms(k, (int)(q->seconds * 1000.0), t0, q->seconds, "waiting", &told_at);
        r->waited_s = (double)(os_now_ms() - t0) / 1000.0;
        return e;
    }
    const char *word = arg_def(cond)->name;
    call_summary(k, "%s until %s", k->name, word);
    int64_t end = t0 + (int64_t)(q->timeout * 1000.0);
    for (;;) {
        size_t i;
        k->look.fresh = false; /* a fresh tree every poll */
        k->s->have_tree = false;
        k->s->have_tree_pixels = false;
        wa_err e = element_resolve(k, cond, &i);
        bool gone = e == WA_E_STALE_REF || e == WA_E_ELEMENT_NOT_FOUND;
        bool holds;
        if (cond == ARG_GONE)
            holds = gone || e == WA_E_WINDOW_NOT_FOUND;
        else if (e)
            holds = false;
        else if (cond == ARG_VISIBLE)
            holds = !(k->s->tree.nodes[i].states & WA_ST_OFFSCREEN) &&
                    !wa_rect_empty(k->s->tree.nodes[i].bounds);
        else
            holds = !(k->s->tree.nodes[i].states & WA_ST_DISABLED);
        if (e && !gone && !holds)
            return e;
        if (holds) {
            wa_err_clear();
            r->condition = word;
            r->waited_s = (double)(os_now_ms() - t0) / 1000.0;
            return WA_E_OK;
        }
        if (os_now_ms() >= end)
            return wa_fail(WA_E_TIMEOUT, "the element did not become %s within %.1f s", word,
                           q->timeout);
        if ((e = pause_ms(k, WAIT_POLL_MS, t0, q->timeout, word, &told_at)))
            return e;
    }
}
