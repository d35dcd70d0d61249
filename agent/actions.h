/* The `desktop` tool's actions (SPEC §3): canonical names, the misspellings models
 * send, and what each action needs. */
#ifndef WINAGENT_AGENT_ACTIONS_H
#define WINAGENT_AGENT_ACTIONS_H

#include <stdbool.h>

#include "base/error.h"

/* X(ENUM, "name", flags) */
#define DESKTOP_ACTION_MAP(X)                                                                      \
    X(SCREENSHOT, "screenshot", ACT_OBSERVES)                                                      \
    X(WINDOW_SCREENSHOT, "window_screenshot", ACT_OBSERVES)                                        \
    X(CLICK, "click", ACT_INPUT | ACT_POINT | ACT_ELEMENT)                                         \
    X(DOUBLE_CLICK, "double_click", ACT_INPUT | ACT_POINT | ACT_ELEMENT)                           \
    X(RIGHT_CLICK, "right_click", ACT_INPUT | ACT_POINT | ACT_ELEMENT)                             \
    X(MIDDLE_CLICK, "middle_click", ACT_INPUT | ACT_POINT | ACT_ELEMENT)                           \
    X(MOUSE_MOVE, "mouse_move", ACT_INPUT | ACT_POINT | ACT_ELEMENT)                               \
    X(DRAG, "drag", ACT_INPUT | ACT_POINT)                                                         \
    X(SCROLL, "scroll", ACT_INPUT | ACT_POINT | ACT_ELEMENT)                                       \
    X(TYPE, "type", ACT_INPUT | ACT_ELEMENT)                                                       \
    X(KEY, "key", ACT_INPUT)                                                                       \
    X(INVOKE, "invoke", ACT_INPUT | ACT_ELEMENT)                                                   \
    X(TOGGLE, "toggle", ACT_INPUT | ACT_ELEMENT)                                                   \
    X(EXPAND, "expand", ACT_INPUT | ACT_ELEMENT)                                                   \
    X(COLLAPSE, "collapse", ACT_INPUT | ACT_ELEMENT)                                               \
    X(SELECT, "select", ACT_INPUT | ACT_ELEMENT)                                                   \
    X(SET_VALUE, "set_value", ACT_INPUT | ACT_ELEMENT)                                             \
    X(WAIT, "wait", 0)                                                                             \
    X(LIST_WINDOWS, "list_windows", 0)                                                             \
    X(FOCUS_WINDOW, "focus_window", ACT_WINDOWS)                                                   \
    X(MOVE_WINDOW, "move_window", ACT_WINDOWS)                                                     \
    X(SET_WINDOW_STATE, "set_window_state", ACT_WINDOWS)                                           \
    X(CLOSE_WINDOW, "close_window", ACT_WINDOWS)                                                   \
    X(LAUNCH, "launch", ACT_WINDOWS)

enum {
    ACT_OBSERVES = 1 << 0, /* returns an observation itself */
    ACT_INPUT = 1 << 1,    /* sends input to the target window (acting) */
    ACT_POINT = 1 << 2,    /* takes 0-999 x,y */
    ACT_ELEMENT = 1 << 3,  /* takes an element id from the latest tree */
    ACT_WINDOWS = 1 << 4,  /* changes windows (acting) */
};

enum desktop_action {
#define X_ENUM(e, name, flags) DA_##e,
    DESKTOP_ACTION_MAP(X_ENUM)
#undef X_ENUM
        DA__COUNT
};

/* Maps a model's action name to an action: canonical names, then aliases
 * ("left_click", "press", "hotkey", "type_text", "keypress", ...), case and
 * separators ignored. WA_E_INVALID_ARGS lists the valid names. */
wa_err desktop_action_parse(const char *name, enum desktop_action *out);
const char *desktop_action_name(enum desktop_action a);
unsigned desktop_action_flags(enum desktop_action a);
/* "screenshot, window_screenshot, click, ..." */
const char *desktop_action_list(void);
/* True for actions after which the model gets a fresh observation. */
bool desktop_action_acts(enum desktop_action a);

#endif
