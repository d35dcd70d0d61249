/* The gate at the moment of acting or looking: the window that would receive input,
 * or be read, is checked (restricted and unidentifiable processes refused; in a
 * replay, the recorded receiver required) and recorded for the result and audit. */
#include "agent/core/call/guard.h"
#include "agent/core/call/person.h"
#include "agent/core/call/target.h"

#include <stdio.h>
#include <string.h>

#include "base/str.h"

static bool same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Replay: the receiver must be the window the recording names. */
static wa_err check_expected(struct call *k, const struct wa_window *w)
{
    const struct window_expect *x = k->q->expect;
    if (!x)
        return WA_E_OK;
    const char *proc = w->process ? w->process : "";
    if (same_text(w->title, x->title) && same_text(w->class_name, x->class_name) &&
        str_ieq(proc, x->process ? x->process : ""))
        return WA_E_OK;
    return wa_fail(WA_E_DIVERGED,
                   "%s would go to \"%.80s\" (class %.60s, %.60s), the recording sent it to "
                   "\"%.80s\" (class %.60s, %.60s); nothing was sent",
                   k->name, w->title ? w->title : "", w->class_name ? w->class_name : "", proc,
                   x->title ? x->title : "", x->class_name ? x->class_name : "",
                   x->process ? x->process : "");
}

/* Input Windows would drop is named, never sent into silence: the secure desktop, or
 * a window of a higher integrity level. */
static wa_err input_reaches(struct call *k, const struct wa_window *w)
{
    wa_err e = backend_input_reaches(k->be, w->hwnd);
    if (e == WA_E_ELEVATED_TARGET) {
        char why[300];
        snprintf(why, sizeof why, "%s", wa_err_detail());
        return wa_fail(e,
                       "%s refused: \"%.80s\" (%s) runs elevated and winagent does not: "
                       "Windows would drop the input (%s); run winagent elevated, or use an "
                       "accessibility pattern (invoke, set_value), which works across it",
                       k->name, w->title ? w->title : "", w->process ? w->process : "?", why);
    }
    if (e == WA_E_SECURE_DESKTOP)
        return wa_fail(e,
                       "%s refused: the secure desktop is up (a UAC prompt); no program's "
                       "input reaches it, and nothing was sent",
                       k->name);
    return e;
}

/* Why w (with the control the input reaches inside it, 0 when none is known) is a route
 * to a shell while the shell permission is off, or NULL: by what they are, read from the
 * backend (the Run dialog's controls, an address bar around the control, the program's
 * file). */
static const char *shell_route(struct call *k, const struct wa_window *w, uint64_t control,
                               enum gate_input input)
{
    if (k->c->cfg.shell != SHELL_DENIED)
        return NULL;
    if (k->guard.route_judged && k->guard.route_window == w->hwnd &&
        k->guard.route_control == control && k->guard.route_input == input)
        return k->guard.route;
    struct wa_window_kind kind, inner;
    struct wa_program_info file;
    bool have_file = w->process_path && *w->process_path &&
                     backend_program_info(k->be, w->process_path, &file) == WA_E_OK;
    backend_window_kind(k->be, w->hwnd, &kind);
    if (control && control != w->hwnd && backend_window_kind(k->be, control, &inner) == WA_E_OK) {
        kind.address_bar = inner.address_bar;
        kind.item_view = inner.item_view;
    }
    wa_err_clear(); /* facts that cannot be read are no refusal of their own */
    const char *why = gate_shell_route(w, &kind, have_file ? &file : NULL, input);
    if (have_file)
        wa_program_info_cleanup(&file);
    k->guard.route_judged = true;
    k->guard.route_window = w->hwnd;
    k->guard.route_control = control;
    k->guard.route_input = input;
    k->guard.route = why;
    return why;
}

/* The receiver of input, checked: the top-level window hwnd, the control inside it the
 * input reaches (0: none known), and what input it gets. */
static wa_err receiver(struct call *k, uint64_t hwnd, uint64_t control, enum gate_input input,
                       const char *where)
{
    if (!hwnd)
        return wa_fail(WA_E_DENIED, "%s refused: no window would receive it %s", k->name, where);
    struct wa_window w;
    wa_err e = backend_window_info(k->be, hwnd, &w);
    if (e == WA_E_WINDOW_NOT_FOUND)
        return wa_fail(e, "%s: window 0x%llx is gone; observe again", k->name,
                       (unsigned long long)hwnd);
    if (e)
        return e;
    k->receiver = hwnd;
    snprintf(k->receiver_process, sizeof k->receiver_process, "%s", w.process ? w.process : "");
    e = target_check(k, &w);
    const char *route = e ? NULL : shell_route(k, &w, control, input);
    if (route)
        e = wa_fail(WA_E_SHELL_DISABLED,
                    "%s refused: the window that would receive it is %s, and the shell "
                    "permission is off",
                    k->name, route);
    if (!e)
        e = check_expected(k, &w);
    if (!e && k->q->op && (k->q->op->flags & OPF_INPUT) && !k->send.via_pattern)
        e = input_reaches(k, &w);
    if (!e) /* the person at the desk, right before sending */
        e = person_check(k);
    if (e == WA_E_DENIED || e == WA_E_SHELL_DISABLED)
        target_mask(k, &w); /* the result names it as restricted only */
    wa_window_cleanup(&k->r->receiver);
    k->r->receiver = w; /* moved: the result keeps it */
    k->r->has_receiver = true;
    return e;
}

wa_err guard_receiver(struct call *k, uint64_t hwnd, const char *where)
{
    return receiver(k, hwnd, 0, GATE_POINTER, where);
}

wa_err guard_observe(struct call *k, uint64_t hwnd)
{
    struct wa_window w;
    wa_err e = backend_window_info(k->be, hwnd, &w);
    if (e)
        return e;
    e = w.top_level ? target_check(k, &w)
                    : wa_fail(WA_E_DENIED,
                              "%s refused: 0x%llx is not a program's top-level window (the "
                              "desktop's tree is every window's)",
                              k->name, (unsigned long long)hwnd);
    wa_window_cleanup(&w);
    return e;
}

wa_err guard_receiver_at(struct call *k, int px, int py)
{
    uint64_t hwnd, control = 0;
    wa_err e = backend_window_at(k->be, px, py, &hwnd);
    if (e)
        return e;
    if (backend_control_at(k->be, px, py, &control))
        wa_err_clear();
    char where[64];
    snprintf(where, sizeof where, "at (%d,%d)", px, py);
    return receiver(k, hwnd, control, GATE_POINTER, where);
}

wa_err guard_receiver_keyboard(struct call *k)
{
    uint64_t hwnd, control = 0;
    wa_err e = backend_foreground_window(k->be, &hwnd);
    if (e)
        return e;
    if (hwnd && backend_focused_control(k->be, hwnd, &control))
        wa_err_clear();
    return receiver(k, hwnd, control, k->send.keys_away ? GATE_KEYS_AWAY : GATE_KEYS,
                    "(no window is in the foreground)");
}

wa_err guard_element(struct call *k, size_t index)
{
    const struct wa_tree *t = &k->s->tree;
    /* The element's own window, else the nearest window above it: an element without a
     * handle of its own inside another program's child window is that program's. */
    uint64_t own = 0;
    for (int i = index < t->count ? (int)index : -1; i >= 0 && !own; i = t->nodes[i].parent)
        own = t->nodes[i].hwnd;
    if (!own || own == t->hwnd)
        return WA_E_OK;
    struct wa_window w;
    wa_err e = backend_window_info(k->be, own, &w);
    if (e == WA_E_WINDOW_NOT_FOUND)
        return wa_fail(WA_E_STALE_REF, "the element's window 0x%llx is gone; observe again",
                       (unsigned long long)own);
    if (e)
        return e;
    e = target_check(k, &w);
    struct wa_window_kind kind;
    if (!e && k->c->cfg.shell == SHELL_DENIED &&
        backend_window_kind(k->be, own, &kind) == WA_E_OK && kind.address_bar)
        e = wa_fail(WA_E_SHELL_DISABLED,
                    "%s refused: the element is in an address bar, which runs what is typed "
                    "into it, and the shell permission is off",
                    k->name);
    wa_window_cleanup(&w);
    return e;
}

/* A paste reaches the receiver with what the clipboard holds: refused while its owner is
 * a program the gate refuses (a password copied from a password manager), or, with an
 * allow-list, one that cannot be told. */
wa_err guard_paste(struct call *k)
{
    uint64_t owner = 0;
    if (backend_clipboard_owner(k->be, &owner)) {
        wa_err_clear();
        owner = 0;
    }
    struct wa_window w;
    if (owner && backend_window_info(k->be, owner, &w) == WA_E_OK) {
        bool allowed = gate_allows(k->c->gate, &w);
        wa_window_cleanup(&w);
        if (allowed)
            return WA_E_OK;
        return wa_fail(WA_E_DENIED,
                       "%s refused: it would paste what a restricted program (or one outside "
                       "--apps) put on the clipboard",
                       k->name);
    }
    wa_err_clear();
    if (owner || gate_has_apps(k->c->gate))
        return wa_fail(WA_E_DENIED,
                       "%s refused: it would paste what an unknown program put on the "
                       "clipboard, and only the allowed programs' is pasted",
                       k->name);
    return WA_E_OK;
}
