/* Inside the core: the state of a core and a session, the view of one request being
 * performed, and the pieces the operations share. Only agent/core/ includes this. */
#ifndef WINAGENT_AGENT_CORE_PERFORM_H
#define WINAGENT_AGENT_CORE_PERFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/core/core.h"
#include "agent/core/gate.h"
#include "base/os.h"

struct core {
    struct core_config cfg; /* strings below are owned copies */
    const struct wa_backend *be;
    struct gate *gate;
    char *state_dir;
    struct os_mutex *input; /* acting operations of this process, one at a time */
};

struct session {
    struct core *core;
    struct session_opts o;
    struct os_mutex *lock;
    uint64_t pinned;      /* --window */
    struct wa_rect frame; /* frame of the latest observation: what 0-999 spans */
    bool have_frame;
    uint64_t target;     /* window of the latest observation; 0 for a monitor */
    struct wa_tree tree; /* tree of the latest observation, handles kept */
    bool have_tree;
};

/* One request being performed. */
struct call {
    struct session *s;
    struct core *c;
    const struct wa_backend *be;
    const struct op_request *q;
    struct op_result *r;
    bool dry;
    /* The window that received the last input the call sent, for the audit. */
    uint64_t receiver;
    char receiver_process[260];
    const char *name; /* the operation's name in the caller's front end */
    bool fresh;       /* the session's tree was walked during this call */
};

/* ---- windows (windows.c) ---- */

/* Picks the window a selector names: a number is a handle when a top-level window
 * has it, else a title fragment; exact titles (or process names) before fragments;
 * among equals the highest in Z order. *matched counts every window that matched.
 * WA_E_WINDOW_NOT_FOUND when none does. */
wa_err window_select(const struct wa_backend *be, const struct window_ref *w, struct wa_window *out,
                     int *matched);
/* The window a call works on: its own "window" argument, else the session's pinned
 * window, else (refs) the window of the last state, else the latest observation's,
 * else the foreground window that is not winagent's console. Fills r->hwnd. */
wa_err call_window(struct call *k, uint64_t *hwnd);
/* The frame 0-999 coordinates span: the latest observation's, else the window's. */
wa_err call_frame(struct call *k, struct wa_rect *frame);
/* Forgets the observation when the call names another window than it showed. */
void call_use_window(struct call *k, uint64_t hwnd, struct wa_rect frame);

/* ---- elements (elements.c) ---- */

/* Resolves an element of the call's window to an index into k->s->tree (walking a
 * fresh tree where needed: refs, selectors, no tree yet). stale_ref when a ref's
 * element is gone or can no longer be told apart; ambiguous for a selector matching
 * several. Fills r->element with the element as it is before acting. */
wa_err call_element(struct call *k, enum op_arg a, size_t *index);
/* A fresh tree of hwnd into the session (handles kept); it becomes the observation. */
wa_err call_fresh_tree(struct call *k, uint64_t hwnd);
/* Saves the session's tree as the refs of its window (and as the last state). */
wa_err refs_save(struct call *k);
/* The window of the last state in the state folder, or 0. */
uint64_t refs_last_window(struct call *k);
bool selector_matches(const struct wa_node *n, const char *sel);

/* ---- input, through the gate at the moment of sending (send.c) ---- */

/* Each checks the window that will receive the input right now (for a point the
 * top-level window under it, for keys and text the foreground window, for an
 * element its window) and refuses restricted or unidentifiable ones; in a dry run
 * it stops there. The target window is brought to the front first. */
wa_err send_click(struct call *k, int px, int py, enum wa_button b, int count);
wa_err send_move(struct call *k, int px, int py);
wa_err send_drag(struct call *k, int x1, int y1, int x2, int y2, enum wa_button b, int ms);
wa_err send_wheel(struct call *k, int px, int py, int notches, bool horizontal);
wa_err send_text(struct call *k, const char *text);
wa_err send_keys(struct call *k, const struct wa_key_combo *combos, size_t n);
wa_err send_element(struct call *k, size_t index, enum wa_element_action a, const char *value,
                    const char **via);
/* For window operations: the window itself is checked. */
wa_err send_window_check(struct call *k, uint64_t hwnd);
/* For observations: a restricted or unidentifiable window is refused. */
wa_err observe_check(struct call *k, uint64_t hwnd);
/* Brings the call's window to the front when another one is there. */
wa_err send_foreground(struct call *k);

/* ---- the operations (op_*.c), one per row of the table ---- */
#define X_DECL(id) wa_err perform_##id(struct call *k);
X_DECL(list_windows)
X_DECL(screenshot)
X_DECL(observe)
X_DECL(tree)
X_DECL(state)
X_DECL(click)
X_DECL(double_click)
X_DECL(right_click)
X_DECL(middle_click)
X_DECL(click_at)
X_DECL(mouse_move)
X_DECL(drag)
X_DECL(drag_at)
X_DECL(scroll)
X_DECL(scroll_at)
X_DECL(type)
X_DECL(set_value)
X_DECL(clear)
X_DECL(key)
X_DECL(invoke)
X_DECL(toggle)
X_DECL(expand)
X_DECL(collapse)
X_DECL(select)
X_DECL(focus_element)
X_DECL(get)
X_DECL(inspect)
X_DECL(find)
X_DECL(wait)
X_DECL(focus_window)
X_DECL(move_window)
X_DECL(set_window_state)
X_DECL(close_window)
X_DECL(launch)
X_DECL(shell)
#undef X_DECL

/* Shared by the operations. */
void call_summary(struct call *k, const char *fmt, ...) WA_PRINTF(2, 3);
/* An observation of hwnd into r->obs that becomes the session's latest. */
wa_err call_observe(struct call *k, uint64_t hwnd, const struct observe_opts *o);
/* An observation of the screen rectangle r (a monitor) that becomes the latest. */
wa_err call_observe_screen(struct call *k, struct wa_rect r, const struct observe_opts *o);
/* Captures the window (or rect when hwnd is 0) with the windows the gate refuses
 * blacked out; *frame is what the image spans. */
wa_err call_capture(struct call *k, uint64_t hwnd, struct wa_rect rect, struct wa_image *out,
                    struct wa_rect *frame);
/* A PNG of the window (or of rect when hwnd is 0) into r->png, scaled to max_edge. */
wa_err call_image(struct call *k, uint64_t hwnd, struct wa_rect rect, int max_edge);
/* The same from an image already captured. */
wa_err call_image_from(struct call *k, const struct wa_image *img, struct wa_rect frame,
                       int max_edge);
/* Puts keyboard focus on an element: the focus pattern, else a click (op_input.c). */
wa_err op_focus_element(struct call *k, size_t index, const char **via);
/* Copies the window's description into r->window. */
void call_report_window(struct call *k, uint64_t hwnd);

#endif
