/* The one vocabulary of desktop operations: every operation with its name in each
 * front end, its arguments (type, unit, limits, default, help) and what it does to the
 * desktop. The model's tool schema, the MCP tool list, the CLI's parser and help, the
 * serve command names and SKILL.md's command list all come from this table (or are
 * checked against it by tests). Adding an operation is one row here and one function
 * in the core. */
#ifndef WINAGENT_AGENT_CORE_REQUEST_OPS_H
#define WINAGENT_AGENT_CORE_REQUEST_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/core/request/op_args.h"
#include "base/wa_err.h"

/* ---- operations ---- */

/* X(ID, name): every operation, with its canonical name, which is also the name of the
 * core's function that performs it (perform_<name>, declared in core/operations.h). */
#define OP_MAP(X)                                                                                  \
    X(SCREENSHOT, screenshot)                                                                      \
    X(OBSERVE, observe)                                                                            \
    X(TREE, tree)                                                                                  \
    X(STATE, state)                                                                                \
    X(CLICK, click)                                                                                \
    X(DOUBLE_CLICK, double_click)                                                                  \
    X(RIGHT_CLICK, right_click)                                                                    \
    X(MIDDLE_CLICK, middle_click)                                                                  \
    X(CLICK_AT, click_at)                                                                          \
    X(MOUSE_MOVE, mouse_move)                                                                      \
    X(MOVE_AT, move_at)                                                                            \
    X(DRAG, drag)                                                                                  \
    X(DRAG_AT, drag_at)                                                                            \
    X(MOUSE_DOWN, mouse_down)                                                                      \
    X(MOUSE_UP, mouse_up)                                                                          \
    X(SCROLL, scroll)                                                                              \
    X(SCROLL_AT, scroll_at)                                                                        \
    X(TYPE, type)                                                                                  \
    X(SET_VALUE, set_value)                                                                        \
    X(CLEAR, clear)                                                                                \
    X(KEY, key)                                                                                    \
    X(KEY_DOWN, key_down)                                                                          \
    X(KEY_UP, key_up)                                                                              \
    X(INVOKE, invoke)                                                                              \
    X(TOGGLE, toggle)                                                                              \
    X(EXPAND, expand)                                                                              \
    X(COLLAPSE, collapse)                                                                          \
    X(SELECT, select)                                                                              \
    X(SCROLL_INTO_VIEW, scroll_into_view)                                                          \
    X(FOCUS_ELEMENT, focus_element)                                                                \
    X(GET, get)                                                                                    \
    X(INSPECT, inspect)                                                                            \
    X(FIND, find)                                                                                  \
    X(WAIT, wait)                                                                                  \
    X(POINTER, pointer)                                                                            \
    X(LIST_WINDOWS, list_windows)                                                                  \
    X(FOCUS_WINDOW, focus_window)                                                                  \
    X(MOVE_WINDOW, move_window)                                                                    \
    X(SET_WINDOW_STATE, set_window_state)                                                          \
    X(CLOSE_WINDOW, close_window)                                                                  \
    X(SELECT_MENU, select_menu)                                                                    \
    X(LAUNCH, launch)                                                                              \
    X(SHELL, shell)                                                                                \
    X(ASK_USER, ask_user)

enum op_id {
#define X_ENUM(id, fn) OP_##id,
    OP_MAP(X_ENUM)
#undef X_ENUM
        OP__COUNT
};

/* What an operation does. */
enum {
    OPF_OBSERVES = 1u << 0,    /* reads the desktop (gate: restricted windows refused) */
    OPF_INPUT = 1u << 1,       /* sends mouse or keyboard input or acts on an element */
    OPF_WINDOWS = 1u << 2,     /* changes windows (focus, move, state, close) */
    OPF_LAUNCH = 1u << 3,      /* starts a program */
    OPF_SHELL = 1u << 4,       /* runs a shell command */
    OPF_PIXELS = 1u << 5,      /* its points are screen pixels (else 0-999 of the frame) */
    OPF_DESTRUCTIVE = 1u << 6, /* may lose data (close, keys, the shell) */
    OPF_IMAGE = 1u << 7,       /* returns an image itself */
    /* has a background route (delivery background): accessibility patterns and window
     * messages, never the real cursor, the foreground or SendInput. An input operation
     * without it answers WA_E_BACKGROUND_UNAVAILABLE in background delivery. */
    OPF_BACKGROUND = 1u << 8,
    /* the model has it as a tool of its own (powershell, ask_user), not as an action of
     * the desktop tool */
    OPF_OWN_TOOL = 1u << 9,
    OPF_PERSON = 1u << 10, /* asks the person at the desk (session_opts.person) */
    OPF_ACTS = OPF_INPUT | OPF_WINDOWS | OPF_LAUNCH | OPF_SHELL,
};

/* How input reaches a window (--delivery, and an input operation's "delivery"); the
 * order is that of ARG_DELIVERY's choices. */
enum delivery {
    DELIVERY_FOREGROUND, /* the target brought to the front, the real mouse and keyboard */
    DELIVERY_BACKGROUND, /* patterns and window messages only; the user's desktop untouched */
    DELIVERY_AUTO,       /* background where there is a route, else foreground (said so) */
};

/* How an operation takes an argument. */
enum {
    OPA_REQ = 1u << 0,     /* required */
    OPA_POS = 1u << 1,     /* the CLI takes it positionally, in the listed order */
    OPA_MODEL = 1u << 2,   /* offered to the model only */
    OPA_CLI = 1u << 3,     /* offered to the CLI, MCP and serve only */
    OPA_REQ_CLI = 1u << 4, /* required of the CLI, MCP and serve (the model has x,y instead) */
};

/* Whether argument use u is required of a front end (model: the model's names). */
static inline bool op_arg_required(unsigned flags, bool model)
{
    return (flags & OPA_REQ) || (!model && (flags & OPA_REQ_CLI));
}

#define OP_MAX_ARGS 14

struct op_arg_use {
    enum op_arg arg;
    unsigned flags;
};

struct op_def {
    enum op_id id;
    const char *name;  /* canonical, for logs and the audit */
    const char *model; /* the model's desktop action (OPF_OWN_TOOL: its tool), or NULL */
    const char *cli;   /* the CLI command, MCP tool and serve command, or NULL */
    const char *title; /* MCP tool title */
    const char *rdp;   /* agent-rdp's command of the same meaning (serve --ipc-dir), or NULL */
    unsigned flags;
    const char *help;                    /* one line */
    struct op_arg_use args[OP_MAX_ARGS]; /* ends at the first ARG_NONE */
};

const struct op_def *op_def(enum op_id id);

/* Lookups by front-end name; NULL when unknown. */
const struct op_def *op_by_cli(const char *name);
/* The model's action names, canonical names and the misspellings models send
 * ("left_click", "press", "hotkey", ...), case and separators ignored.
 * WA_E_INVALID_ARGS listing the valid names. */
wa_err op_by_model(const char *name, const struct op_def **out);

/* "screenshot, window_screenshot, click, ..." (the model's action names). */
const char *op_model_action_list(void);

/* The use of argument a by op, or NULL when op does not take it. */
const struct op_arg_use *op_arg_use(const struct op_def *op, enum op_arg a);
/* The unit of argument a in op (points: pixels or 0-999 by OPF_PIXELS). */
enum arg_unit op_arg_unit(const struct op_def *op, enum op_arg a);
static inline bool op_acts(const struct op_def *op)
{
    return (op->flags & OPF_ACTS) != 0;
}

#endif
