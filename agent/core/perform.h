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
    bool marked; /* the latest observation was an image with numbered marks */
    /* A hash of the window's pixels when its tree was walked: while they are the same
     * (and nothing else moved), the tree still holds. */
    bool have_tree_pixels;
    uint64_t tree_pixels;
};

/* What the core looked at before an acting operation, to wait for its effect and to
 * say what it changed. */
struct before_look {
    bool have;
    uint64_t window; /* the operation's window */
    uint64_t fg;     /* the foreground window */
    bool have_windows;
    struct wa_window_list windows;
    bool have_image;
    struct wa_image image; /* the window as it looked */
    bool hashed;
    uint64_t image_hash; /* of image, once asked for (before_image_hash) */
    bool have_after_image;
    struct wa_image after_image; /* ... and once the action settled */
    bool have_tree;
    struct wa_tree tree; /* its tree (taken from the session when the after look comes) */
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
    struct before_look before;
    bool settled;        /* the operation waited for its own effect (text read back) */
    int noted_match;     /* the note that a selector matched several windows is made */
    int64_t progress_at; /* when the front end was last told of progress */
    bool unchanged;      /* the settle saw no change at all (pixels, foreground) */
    const struct wa_image *pixels_now; /* the window as it looks now, when known */
    /* The window captured while its tree was walked, for the observation to use
     * (taken by the capture hook) when the tree is rejected. */
    struct wa_image walk_image;
    struct wa_rect walk_frame;
    uint64_t walk_window;
    bool pattern_action; /* it acted through an accessibility pattern, which can change
                          * an element's state where no pixel shows it */
};

/* A hash of an image's pixels (FNV-1a over every pixel). */
uint64_t call_image_hash(const struct wa_image *img);
/* The hash of the look before's image, computed once per call. */
uint64_t call_before_hash(struct call *k);

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

/* ---- act, then know (verify.c) ---- */

/* Before an acting operation: the foreground window, the window list, a capture of the
 * operation's window, and its tree (walked now where the session has none of it). */
void look_before(struct call *k);
void look_cleanup(struct before_look *b);
/* Waits until the action's effect is seen: captures of the window that stop changing
 * (or that never change for SETTLE_QUIET_MS), within SETTLE_MAX_MS. */
void call_settle(struct call *k);
/* The value read back before typing (NULL when it cannot be read): index is the
 * element's, or NULL for the control with the keyboard focus. */
char *call_read_before(struct call *k, const size_t *index);
/* Reads the value back until it holds text (whole: equals it; else one more
 * occurrence of it than before) or VERIFY_MAX_MS pass: r->verified, or
 * WA_E_NOT_VERIFIED with what was read. A control that exposes no value is noted,
 * not an error. */
wa_err call_verify_text(struct call *k, const size_t *index, const char *before, const char *text,
                        bool whole);
/* The window to look at after acting: the target, or the dialog of it in front (the
 * loop: whatever is in front). */
uint64_t call_after_window(struct call *k);
/* Moves the session's tree into the look before (the after look replaces it). */
void call_keep_tree_before(struct call *k);
/* r->changes from the look before and the session's tree and windows now. */
void call_report_changes(struct call *k);
/* Whether w is target or a window target owns (its dialogs and pop-ups). */
bool call_in_family(struct call *k, uint64_t target, uint64_t w);

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
