/* Which window a request means, picked in one place: selectors (titles, processes,
 * handles by number) matched through the gate, the call's window and frame, and the
 * gate's word on the window picked, kept for the rest of the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/call/target.h"

#include "agent/core/call/refs.h"
#include "base/str.h"

/* 2: exact title or process name; 1: a fragment of either; 0: no match. */
static int match_rank(const struct wa_window *w, const char *sel)
{
    const char *title = w->title ? w->title : "";
    const char *proc = w->process ? w->process : "";
    char stem[260];
    snprintf(stem, sizeof stem, "%s", proc);
    size_t n = strlen(stem);
    if (n > 4 && str_ieq(stem + n - 4, ".exe"))
        stem[n - 4] = '\0';
    if (str_ieq(title, sel) || str_ieq(proc, sel) || str_ieq(stem, sel))
        return 2;
    if (str_icontains(title, sel) || str_icontains(proc, sel))
        return 1;
    return 0;
}

/* Picks the window a selector names: a number is a handle when a top-level window
 * has it, else a title fragment; exact titles (or process names) before fragments;
 * among equals the highest in Z order. *matched counts every window that matched. The
 * gate is asked once of each candidate: windows it refuses do not exist for the
 * selector, WA_E_WINDOW_NOT_FOUND with the message of a window that is not there when
 * no other matches. */
static wa_err select_window(const struct wa_backend *be, const struct gate *g,
                            const struct window_ref *w, struct wa_window *out, int *matched)
{
    memset(out, 0, sizeof *out);
    *matched = 0;
    if (!w || !w->given || !w->text || !*w->text)
        return wa_fail(WA_E_INVALID_ARGS, "no window given");
    /* A handle names a target only when it is a program's top-level window: never the
     * desktop window (whose tree is every window's), a message-only window or a control
     * inside a window. */
    if (w->number && w->handle) {
        wa_err e = backend_window_info(be, w->handle, out);
        if (e == WA_E_OK && out->top_level && gate_allows(g, out)) {
            *matched = 1;
            return e;
        }
        if (e == WA_E_OK && out->top_level) { /* a window the gate refuses: as if none */
            wa_window_cleanup(out);
            e = WA_E_WINDOW_NOT_FOUND;
        } else if (e == WA_E_OK) {
            wa_window_cleanup(out);
            return wa_fail(WA_E_DENIED,
                           "0x%llx is not a program's top-level window (the desktop, a "
                           "message-only window or a control inside a window): name a window "
                           "of the list",
                           (unsigned long long)w->handle);
        }
        if (e != WA_E_WINDOW_NOT_FOUND)
            return e;
        wa_err_clear(); /* not a window's handle: the number may be part of a title */
    }
    struct wa_window_list l;
    wa_err e = backend_list_windows(be, &l);
    if (e)
        return e;
    const struct wa_window *best = NULL;
    int best_rank = 0;
    for (size_t i = 0; i < l.count; i++) {
        /* What the gate refuses matches nothing: a selector cannot tell a restricted
         * window's title, letter by letter, from a missing one. */
        int rank = match_rank(&l.items[i], w->text);
        if (rank > 0 && !gate_allows(g, &l.items[i]))
            rank = 0;
        if (rank > 0)
            (*matched)++;
        if (rank > best_rank) { /* the list is in Z order: the topmost wins among equals */
            best = &l.items[i];
            best_rank = rank;
        }
    }
    if (best)
        e = wa_window_copy(best, out);
    else if (w->number)
        e = wa_fail(WA_E_WINDOW_NOT_FOUND,
                    "no window has the handle %s (0x%llx), and none has it in its title: the "
                    "window was closed or the handle is stale; list the windows again",
                    w->text, (unsigned long long)w->handle);
    else
        e = wa_fail(WA_E_WINDOW_NOT_FOUND, "no window matches \"%s\" (title or process name)",
                    w->text);
    wa_window_list_cleanup(&l);
    return e;
}

/* Whether the request names an element by id (a ref of the last state). */
static bool uses_ref(const struct op_request *q)
{
    static const enum op_arg element_args[] = {ARG_ELEMENT, ARG_TO_ELEMENT, ARG_VISIBLE,
                                               ARG_ENABLED, ARG_GONE,       ARG_SCOPE};
    for (size_t i = 0; i < sizeof element_args / sizeof element_args[0]; i++) {
        const struct elem_ref *e = op_request_element(q, element_args[i]);
        if (e && e->kind == EREF_ID)
            return true;
    }
    return false;
}

void target_use(struct call *k, uint64_t hwnd, struct wa_rect frame)
{
    struct session *s = k->s;
    if (s->target != hwnd || !s->have_frame) {
        tree_cleanup(&s->tree);
        s->have_tree = false;
        s->have_tree_pixels = false;
        s->frame = frame;
        s->have_frame = !wa_rect_empty(frame);
        s->target = hwnd;
    }
}

/* Whether the gate allowed w earlier in this call: the same window of the same process
 * (a handle another process has taken since is another window). */
static bool allowed_before(const struct call *k, const struct wa_window *w)
{
    return w->hwnd && k->target.allowed == w->hwnd && k->target.allowed_pid == w->pid;
}

static void remember_allowed(struct call *k, const struct wa_window *w)
{
    k->target.allowed = w->hwnd;
    k->target.allowed_pid = w->pid;
}

wa_err target_check(struct call *k, const struct wa_window *w)
{
    if (allowed_before(k, w))
        return WA_E_OK;
    wa_err e = gate_check_window(k->c->gate, w, k->name);
    if (!e)
        remember_allowed(k, w);
    return e;
}

bool target_mask(struct call *k, struct wa_window *w)
{
    if (allowed_before(k, w))
        return false;
    if (gate_mask_window(k->c->gate, w))
        return true;
    remember_allowed(k, w);
    return false;
}

/* The window the request's selector names, picked the first time the call asks: later
 * asks get the same window, without matching again, while it is there and of the same
 * process (else it is picked again). */
static wa_err selected_window(struct call *k, uint64_t *hwnd)
{
    struct target_state *t = &k->target;
    struct wa_window w = {0};
    bool kept = false;
    if (t->picked) {
        wa_err e = backend_window_info(k->be, t->picked, &w);
        kept = e == WA_E_OK && w.pid == t->picked_pid;
        if (e == WA_E_OK && !kept)
            wa_window_cleanup(&w);
        if (!kept)
            wa_err_clear();
    }
    if (kept) {
        k->r->windows_matched = t->matched;
    } else {
        wa_err e = select_window(k->be, k->c->gate, &k->q->window, &w, &k->r->windows_matched);
        if (e)
            return e;
        t->picked = w.hwnd;
        t->picked_pid = w.pid;
        t->matched = k->r->windows_matched;
        remember_allowed(k, &w); /* picked among the windows the gate allows */
    }
    *hwnd = w.hwnd;
    if (k->r->windows_matched > 1 && !t->noted_match++)
        op_result_note(k->r, "\"%s\" matched %d windows; used the topmost: 0x%llx \"%.80s\"",
                       k->q->window.text, k->r->windows_matched, (unsigned long long)w.hwnd,
                       w.title);
    target_use(k, w.hwnd, w.rect);
    wa_window_cleanup(&w);
    return WA_E_OK;
}

wa_err target_window(struct call *k, uint64_t *hwnd)
{
    struct session *s = k->s;
    *hwnd = 0;
    wa_err e = WA_E_OK;
    if (k->q->window.given) {
        if ((e = selected_window(k, hwnd)))
            return e;
    } else if (s->pinned) {
        *hwnd = s->pinned;
    } else if (s->o.refs && uses_ref(k->q)) {
        uint64_t last = refs_last_window(k);
        if (!last)
            return wa_fail(WA_E_STALE_REF, "no state to take refs from; run state first");
        if (!target_alive(k, last))
            return wa_fail(WA_E_STALE_REF,
                           "the window of the last state (0x%llx) is gone; run state again",
                           (unsigned long long)last);
        *hwnd = last;
    } else if (s->target && target_alive(k, s->target)) {
        *hwnd = s->target;
    } else {
        e = backend_default_window(k->be, hwnd);
    }
    if (!e)
        k->r->hwnd = *hwnd;
    return e;
}

wa_err target_pin(struct session *s, const struct window_ref *w)
{
    struct wa_window win;
    int matched;
    wa_err e = select_window(s->core->be, s->core->gate, w, &win, &matched);
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

bool target_named(struct call *k)
{
    struct session *s = k->s;
    return k->q->window.given || s->pinned || (s->o.refs && uses_ref(k->q)) ||
           (s->target && target_alive(k, s->target));
}

wa_err target_frame(struct call *k, struct wa_rect *frame)
{
    struct session *s = k->s;
    /* The latest observation, window or monitor, unless the call names a window. */
    if (!k->q->window.given && !s->pinned && s->have_frame) {
        *frame = s->frame;
        return WA_E_OK;
    }
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    if (e)
        return e;
    if (s->have_frame && s->target == hwnd) {
        *frame = s->frame;
        return WA_E_OK;
    }
    struct wa_window w;
    if ((e = backend_window_info(k->be, hwnd, &w)))
        return e;
    target_use(k, hwnd, w.rect);
    *frame = w.rect;
    wa_window_cleanup(&w);
    return WA_E_OK;
}

void target_report(struct call *k, uint64_t hwnd)
{
    struct wa_window w;
    if (!hwnd || backend_window_info(k->be, hwnd, &w) != WA_E_OK)
        return;
    target_mask(k, &w);
    wa_window_cleanup(&k->r->window);
    k->r->window = w;
    k->r->has_window = true;
}

bool target_alive(struct call *k, uint64_t hwnd)
{
    struct wa_window w;
    if (!hwnd || backend_window_info(k->be, hwnd, &w) != WA_E_OK)
        return false;
    wa_window_cleanup(&w);
    return true;
}

bool target_in_family(struct call *k, uint64_t target, uint64_t w)
{
    if (!w || !target)
        return false;
    if (w == target)
        return true;
    struct wa_window info;
    if (backend_window_info(k->be, w, &info) != WA_E_OK)
        return false;
    bool owned = info.owner == target;
    wa_window_cleanup(&info);
    if (owned)
        return true;
    /* An open menu of the target's thread is the target's: bringing the target back to
     * the front would close it. */
    uint64_t menus[8];
    size_t n = 0;
    if (backend_open_menus(k->be, target, menus, 8, &n) != WA_E_OK) {
        wa_err_clear();
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (menus[i] == w)
            return true;
    return false;
}
