/* A typed request (one operation with typed arguments) and the typed result the core
 * answers it with. Front ends translate their input into a request with the setters
 * below (which apply the table's types and limits) and render the result; no part of
 * the program passes JSON text to another. */
#ifndef WINAGENT_AGENT_CORE_REQUEST_REQUEST_H
#define WINAGENT_AGENT_CORE_REQUEST_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/core/request/observe.h"
#include "agent/core/request/ops.h"
#include "automation/backend.h"
#include "base/dynbuf.h"

/* An element as a request names it. */
struct elem_ref {
    enum { EREF_NONE, EREF_ID, EREF_SELECTOR } kind;
    int id;         /* EREF_ID: 1-based id of the latest observation (or ref of `state`) */
    char *selector; /* EREF_SELECTOR */
};

/* A window as a request names it. */
struct window_ref {
    bool given;
    bool number;     /* given as a number: a JSON integer, 0x hex or decimal digits */
    uint64_t handle; /* that number */
    char *text;      /* the selector as written ("notepad", "0x1a2b", "12345") */
};

/* A window as a recording describes it. */
struct window_expect {
    const char *title, *class_name, *process;
};

enum scroll_dir { DIR_UP, DIR_DOWN, DIR_LEFT, DIR_RIGHT };
enum get_what { GET_TEXT, GET_VALUE, GET_NAME, GET_RECT, GET_BOUNDS, GET_STATES, GET_ALL };

struct op_request {
    const struct op_def *op;
    uint64_t have; /* bit 1 << ARG_x for every argument given */
    struct elem_ref element, to_element, visible, enabled, gone, scope;
    struct window_ref window;
    int x, y, to_x, to_y, width, height, amount, clicks, monitor, max_edge, depth, duration_ms,
        timeout_s;
    double seconds, timeout;
    char *text, *item, *keys, *hold, *selector, *path, *command, *menu_path, *question;
    enum wa_button button;
    enum scroll_dir direction;
    enum get_what what;
    enum obs_mode mode;
    enum wa_window_state state; /* ARG_STATE's choices are in this enum's order */
    enum delivery delivery;     /* ARG_DELIVERY's too */
    bool all, interactive, compact, verbose, annotated, screenshot, return_state;
    /* Notes from parsing (a value clamped to its limit), passed on to the result. */
    char note[200];
    /* Replay: the window that received this input when it was recorded; input that
     * would go to another window is refused with WA_E_DIVERGED and nothing is sent. */
    const struct window_expect *expect;
    /* Set by the front end: told how a long operation (wait) is going, about once a
     * second, on the thread performing it; total 0 when unknown. */
    void (*progress)(void *ctx, double done, double total, const char *message);
    void *progress_ctx;
    /* Set by the front end (from another thread) to stop a wait or find early. */
    const volatile bool *cancel;
};

void op_request_init(struct op_request *r, const struct op_def *op);
void op_request_cleanup(struct op_request *r);

static inline bool op_request_has(const struct op_request *r, enum op_arg a)
{
    return (r->have >> a) & 1u;
}

/* The row of argument a (ARG_NONE's for an unknown one). */
const struct arg_def *arg_def(enum op_arg a);
/* The name of argument a for a front end: the model's name when model is true. */
const char *arg_name(enum op_arg a, bool model);
/* True when key names argument a in any front end (name, model name or alias). */
bool arg_matches(enum op_arg a, const char *key);
/* A one-line description of a in op, with its unit and limits ("0-999 across the
 * latest observation", "Screen x in pixels"). Static storage, per thread. */
const char *op_arg_help(const struct op_def *op, enum op_arg a);

/* Setters: check the value against the argument's type and limits (RANGE_REJECT:
 * WA_E_INVALID_ARGS naming the argument; RANGE_CLAMP: clamped, with a note) and mark
 * it given. text: any argument, from its textual form ("3", "true", "e3", "0x1a2b",
 * "up"); number: numeric, boolean (non-zero), element (an id) and window (a handle)
 * arguments; window handles given as JSON integers use op_request_set_number. */
wa_err op_request_set_text(struct op_request *r, enum op_arg a, const char *text);
wa_err op_request_set_number(struct op_request *r, enum op_arg a, double value);
wa_err op_request_set_bool(struct op_request *r, enum op_arg a, bool value);

/* The value of a numeric argument (ARG_X ... ARG_DEPTH); -1 for the others. */
double op_request_number(const struct op_request *q, enum op_arg a);

/* The element argument for a (ARG_ELEMENT, ARG_SCOPE, ...), or NULL. */
const struct elem_ref *op_request_element(const struct op_request *r, enum op_arg a);

/* Checks the operation's required arguments: WA_E_INVALID_ARGS naming the first
 * missing one in the front end's words (model: the model's names). */
wa_err op_request_check(const struct op_request *r, bool model);

/* ---- results ---- */

/* An element as results report it (no handles). */
struct op_elem {
    int id; /* 1-based id in its tree */
    int depth;
    int parent; /* id of the parent, 0 for the root */
    char *type, *name, *value, *automation_id, *class_name, *runtime_id;
    char *accelerator;         /* a menu item's shortcut ("Ctrl+S"), or NULL */
    bool items_unreadable;     /* a menu or menu bar whose items cannot be read here */
    struct wa_collection coll; /* a long collection's summary (tree.h) */
    bool coll_item;            /* an item of one, at item_index (-1: not indexed) */
    int item_index;
    char *path; /* child-index path from the root, "0.2.1" */
    struct wa_rect bounds;
    int cx, cy; /* its centre in 0-999 of the tree's frame (the frame's, when no bounds) */
    unsigned states, patterns;
    uint64_t hwnd;
    long child_id;
    bool is_new; /* appeared since the observation before the action */
};

void op_elem_cleanup(struct op_elem *e);
/* A copy of node i of t; WA_E_NOMEM. */
wa_err op_elem_from_node(const struct wa_tree *t, size_t i, struct op_elem *out);

struct op_result {
    const struct op_def *op;
    wa_err err;
    char message[512]; /* the error's detail (never a secret) */
    bool dry_run;      /* an acting operation that was only described */
    char **notes;      /* things a success has to say (a window that did not close, ...) */
    size_t n_notes;
    char summary[256]; /* one line for progress: "click (512,300)" */

    /* The window the operation worked on, and its state afterwards (acting ops). */
    uint64_t hwnd;
    bool has_window_state;
    struct wa_window window_state;
    /* The window that received the input, as it was at the moment of sending (for a
     * point, the top-level window under it; for keys, the foreground window). */
    bool has_receiver;
    struct wa_window receiver;
    /* A window the operation reports (focused, moved, closed, launched, picked). */
    bool has_window;
    struct wa_window window;
    int windows_matched; /* how many windows the selector matched (1 when unique) */

    /* The element acted on or read, as it was before acting. */
    bool has_element;
    struct op_elem element;
    /* Points aimed at: 0-999 of the frame and screen pixels. */
    bool has_point, has_to;
    int nx, ny, px, py, to_nx, to_ny, to_px, to_py;
    const char *via;      /* the path an element action took: "uia:Invoke", "click", ... */
    const char *delivery; /* input operations: "foreground" or "background", as sent */

    /* Operation-specific data. */
    bool has_windows;
    struct wa_window_list windows; /* list_windows */
    struct op_elem *elements;      /* state, find */
    size_t n_elements;
    char *text; /* state/tree text; get's text or value */
    bool has_text;
    char verdict[256]; /* state/tree: the usefulness verdict */
    bool useful;
    const char *source; /* state/tree: "uia", "msaa", "fake" */
    bool truncated, timed_out;
    double walk_ms;
    size_t taken;         /* of the tree's nodes, taken from the session's last tree */
    struct wa_rect frame; /* state/tree/screenshot: the frame */
    bool has_shell;
    struct wa_shell_result shell; /* the shell */
    bool has_image;               /* screenshot, state --screenshot, after-action image */
    struct dynbuf png;
    int img_w, img_h;
    double scale;           /* image pixels per screen pixel */
    int origin_x, origin_y; /* screen = origin + image / scale */
    char *saved_path;       /* where the PNG was written (path argument) */
    const char *condition;  /* wait: the condition that held */
    double waited_s;
    bool has_closed, closed; /* close */
    bool asked;              /* ask_user: text holds the answer when has_text */
    bool shell_used;         /* launch: ran as a command line (shell permission) */

    /* Text actions (type, fill, set_value, clear): whether the control holds what was
     * sent, read back from it (has_verified false: the control exposes no value). */
    bool has_verified, verified;
    char *read_back;
    /* What the action changed against the observation before it: one line per change
     * ("new: [12] Button \"OK\"", "window opened: \"Save As\" ..."), or nothing; then
     * a line for each menu that was open and still is ("menu open: ..."), which is no
     * change (nothing_changed may be true with those lines). */
    bool has_changes, nothing_changed;
    size_t n_new, n_vanished, n_changed;
    struct dynbuf changes;

    /* The observation returned: after an acting call, or of window_screenshot. */
    struct observation obs;
    /* The debug image of a coordinate action (never sent to the model). */
    bool has_annotate;
    struct wa_image annotate;
    /* Phases, milliseconds: waiting for the session, the rate limit and the input lock;
     * looking before acting; acting (sending and the action's own waits); waiting for
     * the input to arrive (or to be read back); looking after (all of it but the
     * observation's own phases: the change report's tree when no observation is
     * returned, hashes, window checks, the screenshot and state asked for); comparing;
     * recording (the window's state in the result, the audit line). The observation's
     * capture, encode and tree times are in obs. */
    double wait_ms, before_ms, action_ms, annotate_ms, settle_ms, after_ms, diff_ms, record_ms;
    /* How long the call waited for a person at the desk to be idle (user_active). */
    double paused_ms;
};

void op_result_init(struct op_result *r);
void op_result_cleanup(struct op_result *r); /* leaves it initialised */
/* Sets the result's error: e, and for an error its message, this thread's detail line
 * (wa_err_detail) or else e's own message. */
void op_result_set_error(struct op_result *r, wa_err e);
/* Adds a note (printf-style); silently dropped when out of memory. */
void op_result_note(struct op_result *r, const char *fmt, ...) WA_PRINTF(2, 3);

#endif
