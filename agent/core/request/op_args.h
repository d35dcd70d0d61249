/* The table of operation arguments: every argument with its field in the typed request,
 * its type, its name in each front end, its limits and its help. The enum of
 * arguments, the setters that fill a request, the audit's and the trace's view of a
 * request and every schema (the model's, MCP's) come from this one table: adding an
 * argument is one row here and one field of struct op_request. */
#ifndef WINAGENT_AGENT_CORE_REQUEST_OP_ARGS_H
#define WINAGENT_AGENT_CORE_REQUEST_OP_ARGS_H

enum arg_type {
    ARG_T_INT,     /* integer; numeric strings and floats are accepted and rounded */
    ARG_T_NUM,     /* number */
    ARG_T_STR,     /* text */
    ARG_T_BOOL,    /* true/false ("true", 1 accepted) */
    ARG_T_ENUM,    /* one word of arg_def.choices; stored as its index */
    ARG_T_ELEMENT, /* an element: an id/ref (3, "e3", "@e3", "[3]") or a selector */
    ARG_T_WINDOW,  /* a window: title or process fragment, 0x handle, decimal or integer */
};

enum arg_unit {
    UNIT_NONE,
    UNIT_NORM,  /* 0-999 over the frame of the latest observation */
    UNIT_PIXEL, /* screen pixels (virtual screen, physical) */
    UNIT_SECONDS,
    UNIT_MS,
    UNIT_NOTCHES, /* wheel notches, 120 each */
};

/* What happens to a number outside [min, max]: refused with invalid_args, or clamped
 * with a note in the result. */
enum arg_range { RANGE_REJECT, RANGE_CLAMP };

/* How front ends differ on an argument, said here rather than in their code. */
enum {
    ARGF_MODEL_ID = 1u << 0,    /* the model names it by its tree id: an integer to the model,
                                 * an id, ref or selector (string or integer) elsewhere */
    ARGF_MODEL_TEXT = 1u << 1,  /* the model gives it as text (a handle too): one type for
                                 * providers whose schemas take a single type */
    ARGF_WRITES_FILE = 1u << 2, /* names a file winagent writes: the command line's alone
                                 * (session_opts.files_allowed); writing it is acting */
};

#define ELEMENT_HELP                                                                               \
    "An element: a ref from the latest state or tree (3, e3, @e3) or a selector "                  \
    "(#AutomationId, .ClassName, ~wild*card name, Type:Name, or an exact name)."

/* ROW(ID, field, type, name, model name, aliases, choices, min, max, range, flags, help,
 * model help):
 *   field      the member of struct op_request that holds it
 *   type       ARG_T_<type>; an ENUM's field holds the index of its word in choices
 *   name       the CLI's, MCP's and serve's name ("ref", "x2")
 *   model      the model's name where it differs ("element", "to_x"), or NULL
 *   aliases    further accepted names, comma-separated, or NULL
 *   min, max   numeric limits (both 0: none), RANGE_<range> past them
 *   help       one line; points' units come from the operation
 *   model help the model's words where they differ, or NULL */
#define OP_ARG_MAP(ROW)                                                                            \
    ROW(NONE, have, STR, "", NULL, NULL, NULL, 0, 0, REJECT, 0, "", NULL)                          \
    ROW(ELEMENT, element, ELEMENT, "ref", "element", "element_id,id,index", NULL, 0, 0, REJECT,    \
        ARGF_MODEL_ID, ELEMENT_HELP, "An element id from the latest tree (instead of x,y).")       \
    ROW(TO_ELEMENT, to_element, ELEMENT, "to", "to_element", "to_ref", NULL, 0, 0, REJECT,         \
        ARGF_MODEL_ID, "The element to release on (instead of a point).",                          \
        "drag: an element id from the latest tree to release on (instead of to_x,to_y).")          \
    ROW(WINDOW, window, WINDOW, "window", NULL, "hwnd,title", NULL, 0, 0, REJECT, ARGF_MODEL_TEXT, \
        "A window: a title or process-name fragment, or a handle (0x1a2b, decimal "                \
        "or a JSON integer).",                                                                     \
        NULL)                                                                                      \
    ROW(X, x, INT, "x", NULL, "x1", NULL, 0, 0, REJECT, 0, "x", NULL)                              \
    ROW(Y, y, INT, "y", NULL, "y1", NULL, 0, 0, REJECT, 0, "y", NULL)                              \
    ROW(TO_X, to_x, INT, "x2", "to_x", NULL, NULL, 0, 0, REJECT, 0, "x to release at", NULL)       \
    ROW(TO_Y, to_y, INT, "y2", "to_y", NULL, NULL, 0, 0, REJECT, 0, "y to release at", NULL)       \
    ROW(BUTTON, button, ENUM, "button", NULL, NULL, "left,right,middle", 0, 0, REJECT, 0,          \
        "The mouse button (default left).", NULL)                                                  \
    ROW(DURATION, duration_ms, INT, "duration_ms", NULL, "duration", NULL, 0, 10000, CLAMP, 0,     \
        "How long the move from press to release takes, in milliseconds "                          \
        "(default 150, at most 10000).",                                                           \
        NULL)                                                                                      \
    ROW(CLICKS, clicks, INT, "clicks", NULL, "count", NULL, 1, 3, REJECT, 0,                       \
        "How many clicks: 2 is a double click, 3 a triple click (default 1).", NULL)               \
    ROW(HOLD, hold, STR, "hold", NULL, "modifiers", NULL, 0, 0, REJECT, 0,                         \
        "Keys held down during the action and released after it: ctrl, shift, alt, win, or "       \
        "a combination (ctrl+shift).",                                                             \
        NULL)                                                                                      \
    ROW(DIRECTION, direction, ENUM, "direction", NULL, NULL, "up,down,left,right", 0, 0, REJECT,   \
        0, "Scroll direction.", NULL)                                                              \
    ROW(AMOUNT, amount, INT, "amount", NULL, "clicks,notches,times", NULL, 1, 100, REJECT, 0,      \
        "Wheel notches, 1-100 (default 3).", NULL)                                                 \
    ROW(TEXT, text, STR, "text", NULL, "value,string", NULL, 0, 0, REJECT, 0, "The text.",         \
        "type: the text to type; set_value: the new value.")                                       \
    ROW(ITEM, item, STR, "item", NULL, "value,option", NULL, 0, 0, REJECT, 0,                      \
        "The name of the item to choose in a combo box or list (without it, the "                  \
        "element itself is selected).",                                                            \
        NULL)                                                                                      \
    ROW(KEYS, keys, STR, "keys", NULL, "key,combo,text,value", NULL, 0, 0, REJECT, 0,              \
        "A key combination (ctrl+s, alt+f4, enter, esc, shift+tab, win+r) or a "                   \
        "sequence ('ctrl+a delete').",                                                             \
        NULL)                                                                                      \
    ROW(SECONDS, seconds, NUM, "seconds", NULL, "secs,time,duration", NULL, 0, 30, REJECT, 0,      \
        "Seconds to wait, at most 30.", NULL)                                                      \
    ROW(VISIBLE, visible, ELEMENT, "visible", NULL, NULL, NULL, 0, 0, REJECT, 0,                   \
        "Wait until this element is there and on screen.", NULL)                                   \
    ROW(ENABLED, enabled, ELEMENT, "enabled", NULL, NULL, NULL, 0, 0, REJECT, 0,                   \
        "Wait until this element is there and enabled.", NULL)                                     \
    ROW(GONE, gone, ELEMENT, "gone", NULL, NULL, NULL, 0, 0, REJECT, 0,                            \
        "Wait until this element is gone.", NULL)                                                  \
    ROW(TIMEOUT, timeout, NUM, "timeout", NULL, "timeout_seconds", NULL, 0, 300, CLAMP, 0,         \
        "Seconds before a condition gives up (default 10, at most 300).", NULL)                    \
    ROW(WHAT, what, ENUM, "what", NULL, "property", "text,value,name,rect,bounds,states,all", 0,   \
        0, REJECT, 0, "What to read.", NULL)                                                       \
    ROW(SELECTOR, selector, STR, "selector", NULL, "query", NULL, 0, 0, REJECT, 0,                 \
        "#AutomationId, .ClassName, ~wild*card, Type:Name or an exact name.", NULL)                \
    ROW(ALL, all, BOOL, "all", NULL, NULL, NULL, 0, 0, REJECT, 0,                                  \
        "List every match (default: the first).", NULL)                                            \
    ROW(MODE, mode, ENUM, "mode", NULL, NULL, "auto,a11y,pixel", 0, 0, REJECT, 0,                  \
        "auto (the tree when useful, else an image), a11y (the tree) or pixel (an "                \
        "image).",                                                                                 \
        NULL)                                                                                      \
    ROW(MONITOR, monitor, INT, "monitor", NULL, NULL, NULL, 0, 15, REJECT, 0,                      \
        "Monitor index, from 0 (default: the target window's monitor).", NULL)                     \
    ROW(MAX_EDGE, max_edge, INT, "max_edge", NULL, NULL, NULL, 64, 8192, CLAMP, 0,                 \
        "Longest edge of the image in pixels (default 1280).", NULL)                               \
    ROW(PATH, path, STR, "path", NULL, "output,file", NULL, 0, 0, REJECT, ARGF_WRITES_FILE,        \
        "File to save the PNG to.", NULL)                                                          \
    ROW(INTERACTIVE, interactive, BOOL, "interactive", NULL, NULL, NULL, 0, 0, REJECT, 0,          \
        "Only interactive elements (focusable or with an action).", NULL)                          \
    ROW(COMPACT, compact, BOOL, "compact", NULL, NULL, NULL, 0, 0, REJECT, 0,                      \
        "Drop unnamed, empty structural elements.", NULL)                                          \
    ROW(DEPTH, depth, INT, "depth", NULL, NULL, NULL, 0, 64, REJECT, 0,                            \
        "Deepest level to show (the window is 0).", NULL)                                          \
    ROW(SCOPE, scope, ELEMENT, "scope", NULL, NULL, NULL, 0, 0, REJECT, 0,                         \
        "Show only the subtree of this element.", NULL)                                            \
    ROW(VERBOSE, verbose, BOOL, "verbose", NULL, NULL, NULL, 0, 0, REJECT, 0,                      \
        "Add pixel bounds to every element.", NULL)                                                \
    ROW(ANNOTATED, annotated, BOOL, "annotated", NULL, NULL, NULL, 0, 0, REJECT, 0,                \
        "Return an image with each ref's number drawn on its box.", NULL)                          \
    ROW(WIDTH, width, INT, "width", NULL, NULL, NULL, 1, 100000, REJECT, 0, "Width in pixels.",    \
        NULL)                                                                                      \
    ROW(HEIGHT, height, INT, "height", NULL, NULL, NULL, 1, 100000, REJECT, 0,                     \
        "Height in pixels.", NULL)                                                                 \
    ROW(STATE, state, ENUM, "state", NULL, NULL, "restore,minimize,maximize", 0, 0, REJECT, 0,     \
        "The new state.", NULL)                                                                    \
    ROW(COMMAND, command, STR, "command", NULL, "cmd,program,app,path", NULL, 0, 0, REJECT, 0,     \
        "The command.", NULL)                                                                      \
    ROW(QUESTION, question, STR, "question", NULL, "text,prompt,message", NULL, 0, 0, REJECT, 0,   \
        "The question for the person, in a sentence or two.", NULL)                                \
    ROW(MENU_PATH, menu_path, STR, "path", NULL, "menu,items", NULL, 0, 0, REJECT, 0,              \
        "The menu items from the menu bar down, separated by '>': \"File > Save as...\".", NULL)   \
    ROW(TIMEOUT_S, timeout_s, INT, "timeout_s", NULL, "timeout", NULL, 1, 600, CLAMP, 0,           \
        "Seconds before the command is stopped (default 60, at most 600).", NULL)                  \
    ROW(SCREENSHOT, screenshot, BOOL, "screenshot", NULL, NULL, NULL, 0, 0, REJECT, 0,             \
        "Return a screenshot of the window too.", NULL)                                            \
    ROW(RETURN_STATE, return_state, BOOL, "return_state", NULL, NULL, NULL, 0, 0, REJECT, 0,       \
        "Also return the window's fresh state (refs renewed).", NULL)                              \
    ROW(DELIVERY, delivery, ENUM, "delivery", NULL, NULL, "foreground,background,auto", 0, 0,      \
        REJECT, 0,                                                                                 \
        "How the input reaches the window: foreground (brought to the front, the real mouse "      \
        "and keyboard), background (accessibility patterns and window messages: the cursor, "      \
        "the foreground window and the user's focus stay as they are; background_unavailable "     \
        "where the control offers no such route) or auto (background, else foreground). "          \
        "Default: the --delivery setting.",                                                        \
        NULL)

enum op_arg {
#define X_ENUM(id, ...) ARG_##id,
    OP_ARG_MAP(X_ENUM)
#undef X_ENUM
        ARG__COUNT
};

struct arg_def {
    const char *name;
    const char *model;
    const char *aliases;
    enum arg_type type;
    const char *choices;
    double min, max;
    enum arg_range range;
    unsigned flags;
    const char *help;
    const char *model_help;
    unsigned long field; /* offset of its member in struct op_request */
};

#endif
