/* The table of operations and arguments behind agent/core/request/ops.h. */
#include "agent/core/request/ops.h"

#include <stdio.h>
#include <string.h>

#include "base/str.h"

/* Arguments every acting command of the CLI, MCP and serve takes, and the shapes of
 * the element and point operations. */
/* clang-format off */
#define ACT_COMMON {ARG_WINDOW, OPA_CLI}, {ARG_SCREENSHOT, OPA_CLI}, {ARG_RETURN_STATE, OPA_CLI}, \
                   {ARG_DELIVERY, OPA_CLI}
#define ON_ELEMENT {ARG_ELEMENT, OPA_REQ | OPA_POS}, ACT_COMMON
#define AT_POINT   {ARG_ELEMENT, OPA_POS | OPA_REQ_CLI}, {ARG_X, OPA_MODEL}, {ARG_Y, OPA_MODEL}, \
                   ACT_COMMON
#define AT_PIXEL   {ARG_X, OPA_REQ | OPA_POS}, {ARG_Y, OPA_REQ | OPA_POS}
/* clang-format on */

static const struct op_def ops[OP__COUNT] = {
    [OP_LIST_WINDOWS] = {.id = OP_LIST_WINDOWS,
                         .name = "list_windows",
                         .model = "list_windows",
                         .cli = "windows",
                         .title = "List windows",
                         .rdp = "window",
                         .flags = OPF_OBSERVES,
                         .help = "List the top-level windows: handle, title, class, process, "
                                 "rectangle, state.",
                         .args = {{ARG_NONE, 0}}},
    [OP_SCREENSHOT] = {.id = OP_SCREENSHOT,
                       .name = "screenshot",
                       .model = "screenshot",
                       .cli = "screenshot",
                       .title = "Screenshot",
                       .flags = OPF_OBSERVES | OPF_IMAGE | OPF_PIXELS,
                       .help =
                           "An image of a monitor (default: the target window's), of a window, or "
                           "of a region of the screen (x,y to x2,y2), with the scale and origin "
                           "that map image pixels to screen pixels.",
                       .args = {{ARG_PATH, OPA_POS | OPA_CLI},
                                {ARG_WINDOW, OPA_CLI},
                                {ARG_MONITOR, 0},
                                {ARG_MAX_EDGE, OPA_CLI},
                                {ARG_X, OPA_CLI},
                                {ARG_Y, OPA_CLI},
                                {ARG_TO_X, OPA_CLI},
                                {ARG_TO_Y, OPA_CLI}}},
    [OP_OBSERVE] = {.id = OP_OBSERVE,
                    .name = "observe",
                    .model = "window_screenshot",
                    .cli = NULL,
                    .title = "Observe window",
                    .flags = OPF_OBSERVES,
                    .help = "Observe the target window: its accessibility tree when useful (auto), "
                            "else an image.",
                    .args = {{ARG_WINDOW, 0}, {ARG_MODE, 0}}},
    [OP_TREE] = {.id = OP_TREE,
                 .name = "tree",
                 .model = NULL,
                 .cli = "tree",
                 .title = "Accessibility tree",
                 .flags = OPF_OBSERVES,
                 .help = "The window's accessibility tree exactly as the model sees it, with the "
                         "usefulness verdict and its source.",
                 .args = {{ARG_WINDOW, 0}, {ARG_VERBOSE, 0}}},
    [OP_STATE] = {.id = OP_STATE,
                  .name = "state",
                  .model = NULL,
                  .cli = "state",
                  .title = "Window elements",
                  .rdp = "snapshot",
                  .flags = OPF_OBSERVES,
                  .help = "The window's elements as a numbered tree; the numbers are refs for the "
                          "other commands until the next state.",
                  .args = {{ARG_WINDOW, 0},
                           {ARG_INTERACTIVE, 0},
                           {ARG_COMPACT, 0},
                           {ARG_DEPTH, 0},
                           {ARG_SCOPE, 0},
                           {ARG_VERBOSE, 0},
                           {ARG_SCREENSHOT, 0},
                           {ARG_ANNOTATED, 0}}},
    [OP_CLICK] = {.id = OP_CLICK,
                  .name = "click",
                  .model = "click",
                  .cli = "click",
                  .title = "Click",
                  .rdp = "click",
                  .flags = OPF_INPUT | OPF_BACKGROUND,
                  .help = "Click an element, or a point of the latest observation.",
                  .args = {AT_POINT}},
    [OP_DOUBLE_CLICK] = {.id = OP_DOUBLE_CLICK,
                         .name = "double_click",
                         .model = "double_click",
                         .cli = "dblclick",
                         .title = "Double-click",
                         .rdp = "double_click",
                         .flags = OPF_INPUT | OPF_BACKGROUND,
                         .help = "Double-click an element or a point.",
                         .args = {AT_POINT}},
    [OP_RIGHT_CLICK] = {.id = OP_RIGHT_CLICK,
                        .name = "right_click",
                        .model = "right_click",
                        .cli = "rightclick",
                        .title = "Right-click",
                        .rdp = "right_click",
                        .flags = OPF_INPUT | OPF_BACKGROUND,
                        .help = "Right-click an element or a point.",
                        .args = {AT_POINT}},
    [OP_MIDDLE_CLICK] = {.id = OP_MIDDLE_CLICK,
                         .name = "middle_click",
                         .model = "middle_click",
                         .cli = "middleclick",
                         .title = "Middle-click",
                         .flags = OPF_INPUT | OPF_BACKGROUND,
                         .help = "Middle-click an element or a point.",
                         .args = {AT_POINT}},
    [OP_CLICK_AT] = {.id = OP_CLICK_AT,
                     .name = "click_at",
                     .model = NULL,
                     .cli = "click-at",
                     .title = "Click at screen pixels",
                     .flags = OPF_INPUT | OPF_PIXELS | OPF_BACKGROUND,
                     .help = "Click at a screen pixel (without one: where the pointer is), with "
                             "keys held if asked.",
                     .args = {{ARG_X, OPA_POS},
                              {ARG_Y, OPA_POS},
                              {ARG_BUTTON, 0},
                              {ARG_CLICKS, 0},
                              {ARG_HOLD, 0},
                              ACT_COMMON}},
    [OP_MOUSE_MOVE] = {.id = OP_MOUSE_MOVE,
                       .name = "mouse_move",
                       .model = "mouse_move",
                       .cli = "hover",
                       .title = "Move the mouse",
                       .flags = OPF_INPUT,
                       .help = "Move the mouse onto an element or a point.",
                       .args = {AT_POINT}},
    [OP_MOVE_AT] = {.id = OP_MOVE_AT,
                    .name = "move_at",
                    .model = NULL,
                    .cli = "hover-at",
                    .title = "Move the mouse to screen pixels",
                    .flags = OPF_INPUT | OPF_PIXELS,
                    .help = "Move the mouse to a screen pixel, with keys held if asked.",
                    .args = {AT_PIXEL, {ARG_HOLD, 0}, ACT_COMMON}},
    [OP_DRAG] = {.id = OP_DRAG,
                 .name = "drag",
                 .model = "drag",
                 .cli = "drag",
                 .title = "Drag",
                 .flags = OPF_INPUT,
                 .help = "Press on an element or point, move, and release on a point (0-999 of the "
                         "window's frame) or on another element.",
                 .args = {{ARG_ELEMENT, OPA_POS | OPA_REQ_CLI},
                          {ARG_X, OPA_MODEL},
                          {ARG_Y, OPA_MODEL},
                          {ARG_TO_X, OPA_POS},
                          {ARG_TO_Y, OPA_POS},
                          {ARG_TO_ELEMENT, 0},
                          {ARG_BUTTON, 0},
                          {ARG_DURATION, 0},
                          ACT_COMMON}},
    [OP_DRAG_AT] = {.id = OP_DRAG_AT,
                    .name = "drag_at",
                    .model = NULL,
                    .cli = "drag-at",
                    .title = "Drag between screen pixels",
                    .flags = OPF_INPUT | OPF_PIXELS,
                    .help = "Drag from one screen pixel to another, with keys held if asked.",
                    .args = {AT_PIXEL,
                             {ARG_TO_X, OPA_REQ | OPA_POS},
                             {ARG_TO_Y, OPA_REQ | OPA_POS},
                             {ARG_BUTTON, 0},
                             {ARG_DURATION, 0},
                             {ARG_HOLD, 0},
                             ACT_COMMON}},
    [OP_MOUSE_DOWN] = {.id = OP_MOUSE_DOWN,
                       .name = "mouse_down",
                       .model = NULL,
                       .cli = "mouse-down",
                       .title = "Press a mouse button",
                       .flags = OPF_INPUT | OPF_PIXELS,
                       .help = "Press a mouse button at a screen pixel (without one: where the "
                               "pointer is) and keep it down until mouse-up; the session releases "
                               "it when it ends.",
                       .args = {{ARG_X, OPA_POS}, {ARG_Y, OPA_POS}, {ARG_BUTTON, 0}, ACT_COMMON}},
    [OP_MOUSE_UP] = {.id = OP_MOUSE_UP,
                     .name = "mouse_up",
                     .model = NULL,
                     .cli = "mouse-up",
                     .title = "Release a mouse button",
                     .flags = OPF_INPUT | OPF_PIXELS,
                     .help = "Release a mouse button pressed by mouse-down, at a screen pixel "
                             "(without one: where the pointer is).",
                     .args = {{ARG_X, OPA_POS}, {ARG_Y, OPA_POS}, {ARG_BUTTON, 0}, ACT_COMMON}},
    [OP_SCROLL] = {.id = OP_SCROLL,
                   .name = "scroll",
                   .model = "scroll",
                   .cli = "scroll",
                   .title = "Scroll",
                   .rdp = "scroll",
                   .flags = OPF_INPUT | OPF_BACKGROUND,
                   .help = "Turn the mouse wheel over an element, a point, or the middle of the "
                           "window.",
                   .args = {{ARG_ELEMENT, OPA_POS},
                            {ARG_DIRECTION, OPA_REQ | OPA_POS},
                            {ARG_AMOUNT, OPA_POS},
                            {ARG_X, OPA_MODEL},
                            {ARG_Y, OPA_MODEL},
                            ACT_COMMON}},
    [OP_SCROLL_AT] =
        {.id = OP_SCROLL_AT,
         .name = "scroll_at",
         .model = NULL,
         .cli = "scroll-at",
         .title = "Scroll at screen pixels",
         .flags = OPF_INPUT | OPF_PIXELS | OPF_BACKGROUND,
         .help = "Turn the mouse wheel over a screen pixel (without one: where the pointer is), "
                 "with keys held if asked.",
         .args = {{ARG_X, OPA_POS},
                  {ARG_Y, OPA_POS},
                  {ARG_DIRECTION, OPA_REQ | OPA_POS},
                  {ARG_AMOUNT, OPA_POS},
                  {ARG_HOLD, 0},
                  ACT_COMMON}},
    [OP_TYPE] = {.id = OP_TYPE,
                 .name = "type",
                 .model = "type",
                 .cli = "type",
                 .title = "Type text",
                 .flags = OPF_INPUT | OPF_BACKGROUND,
                 .help = "Type text into the focused control (or into the element, focused first).",
                 .args = {{ARG_TEXT, OPA_REQ | OPA_POS}, {ARG_ELEMENT, 0}, ACT_COMMON}},
    [OP_SET_VALUE] =
        {.id = OP_SET_VALUE,
         .name = "set_value",
         .model = "set_value",
         .cli = "fill",
         .title = "Fill text field",
         .rdp = "fill",
         .flags = OPF_INPUT | OPF_BACKGROUND,
         .help = "Replace an element's text (Value pattern, else focus, select all and "
                 "type).",
         .args = {{ARG_ELEMENT, OPA_REQ | OPA_POS}, {ARG_TEXT, OPA_REQ | OPA_POS}, ACT_COMMON}},
    [OP_CLEAR] = {.id = OP_CLEAR,
                  .name = "clear",
                  .model = NULL,
                  .cli = "clear",
                  .title = "Clear text field",
                  .rdp = "clear",
                  .flags = OPF_INPUT | OPF_BACKGROUND,
                  .help = "Empty an element's text.",
                  .args = {ON_ELEMENT}},
    [OP_KEY] = {.id = OP_KEY,
                .name = "key",
                .model = "key",
                .cli = "keys",
                .title = "Press keys",
                .flags = OPF_INPUT | OPF_DESTRUCTIVE,
                .help = "Press a key combination or a sequence of them.",
                .args = {{ARG_KEYS, OPA_REQ | OPA_POS}, ACT_COMMON}},
    [OP_KEY_DOWN] = {.id = OP_KEY_DOWN,
                     .name = "key_down",
                     .model = NULL,
                     .cli = "key-down",
                     .title = "Hold keys down",
                     .flags = OPF_INPUT | OPF_DESTRUCTIVE,
                     .help =
                         "Press keys (one combination, such as shift or ctrl+alt) and keep them "
                         "down until key-up; the session releases them when it ends.",
                     .args = {{ARG_KEYS, OPA_REQ | OPA_POS}, ACT_COMMON}},
    [OP_KEY_UP] = {.id = OP_KEY_UP,
                   .name = "key_up",
                   .model = NULL,
                   .cli = "key-up",
                   .title = "Release keys",
                   .flags = OPF_INPUT,
                   .help = "Release keys that key-down pressed.",
                   .args = {{ARG_KEYS, OPA_REQ | OPA_POS}, ACT_COMMON}},
    [OP_INVOKE] = {.id = OP_INVOKE,
                   .name = "invoke",
                   .model = "invoke",
                   .cli = "invoke",
                   .title = "Invoke element",
                   .rdp = "invoke",
                   .flags = OPF_INPUT | OPF_BACKGROUND,
                   .help = "Invoke an element (buttons, menu items); a click where it has no such "
                           "action.",
                   .args = {ON_ELEMENT}},
    [OP_TOGGLE] = {.id = OP_TOGGLE,
                   .name = "toggle",
                   .model = "toggle",
                   .cli = "toggle",
                   .title = "Toggle check box",
                   .rdp = "toggle",
                   .flags = OPF_INPUT | OPF_BACKGROUND,
                   .help = "Toggle a check box.",
                   .args = {ON_ELEMENT}},
    [OP_EXPAND] = {.id = OP_EXPAND,
                   .name = "expand",
                   .model = "expand",
                   .cli = "expand",
                   .title = "Expand element",
                   .rdp = "expand",
                   .flags = OPF_INPUT | OPF_BACKGROUND,
                   .help = "Expand a combo box, menu or tree item.",
                   .args = {ON_ELEMENT}},
    [OP_COLLAPSE] = {.id = OP_COLLAPSE,
                     .name = "collapse",
                     .model = "collapse",
                     .cli = "collapse",
                     .title = "Collapse element",
                     .rdp = "collapse",
                     .flags = OPF_INPUT | OPF_BACKGROUND,
                     .help = "Collapse an element.",
                     .args = {ON_ELEMENT}},
    [OP_SELECT] = {.id = OP_SELECT,
                   .name = "select",
                   .model = "select",
                   .cli = "select",
                   .title = "Select item",
                   .rdp = "select",
                   .flags = OPF_INPUT | OPF_BACKGROUND,
                   .help = "Select a list, combo or tab item; with an item name, choose that item "
                           "of the combo box or list.",
                   .args = {{ARG_ELEMENT, OPA_REQ | OPA_POS}, {ARG_ITEM, OPA_POS}, ACT_COMMON}},
    [OP_SCROLL_INTO_VIEW] = {.id = OP_SCROLL_INTO_VIEW,
                             .name = "scroll_into_view",
                             .model = "scroll_into_view",
                             .cli = "scroll-into-view",
                             .title = "Scroll into view",
                             .flags = OPF_INPUT | OPF_BACKGROUND,
                             .help = "Scroll an element into view: an item of a long list or "
                                     "tree (one find reached, or one listed beside the view).",
                             .args = {ON_ELEMENT}},
    [OP_FOCUS_ELEMENT] = {.id = OP_FOCUS_ELEMENT,
                          .name = "focus_element",
                          .model = NULL,
                          .cli = "focus-element",
                          .title = "Focus element",
                          .rdp = "focus",
                          .flags = OPF_INPUT,
                          .help = "Put the keyboard focus on an element.",
                          .args = {ON_ELEMENT}},
    [OP_GET] = {.id = OP_GET,
                .name = "get",
                .model = NULL,
                .cli = "get",
                .title = "Read element",
                .rdp = "get",
                .flags = OPF_OBSERVES,
                .help = "Read an element's text, value, name, rectangle or states.",
                .args = {{ARG_WHAT, OPA_REQ | OPA_POS},
                         {ARG_ELEMENT, OPA_REQ | OPA_POS},
                         {ARG_WINDOW, 0}}},
    [OP_INSPECT] = {.id = OP_INSPECT,
                    .name = "inspect",
                    .model = NULL,
                    .cli = "inspect",
                    .title = "Inspect element",
                    .flags = OPF_OBSERVES,
                    .help = "Every property of an element: type, name, value, states, patterns, "
                            "bounds, window handle, AutomationId, class.",
                    .args = {{ARG_ELEMENT, OPA_REQ | OPA_POS}, {ARG_WINDOW, 0}}},
    [OP_FIND] = {.id = OP_FIND,
                 .name = "find",
                 .model = "find",
                 .cli = "find",
                 .title = "Find elements",
                 .flags = OPF_OBSERVES,
                 .help = "Find elements by selector, the items of long lists and trees beyond "
                         "those shown included; the refs it prints are valid refs, and acting on "
                         "an item scrolls it into view first.",
                 .args = {{ARG_SELECTOR, OPA_REQ | OPA_POS}, {ARG_ALL, 0}, {ARG_WINDOW, 0}}},
    [OP_WAIT] = {.id = OP_WAIT,
                 .name = "wait",
                 .model = "wait",
                 .cli = "wait",
                 .title = "Wait",
                 .rdp = "wait_for",
                 .flags = 0,
                 .help = "Wait some seconds, or until an element is visible, enabled or gone.",
                 .args = {{ARG_SECONDS, OPA_POS},
                          {ARG_VISIBLE, OPA_CLI},
                          {ARG_ENABLED, OPA_CLI},
                          {ARG_GONE, OPA_CLI},
                          {ARG_TIMEOUT, OPA_CLI},
                          {ARG_WINDOW, OPA_CLI}}},
    [OP_POINTER] = {.id = OP_POINTER,
                    .name = "pointer",
                    .model = NULL,
                    .cli = "pointer",
                    .title = "Pointer position",
                    .flags = OPF_OBSERVES | OPF_PIXELS,
                    .help = "Where the mouse pointer is, in screen pixels.",
                    .args = {{ARG_NONE, 0}}},
    [OP_FOCUS_WINDOW] = {.id = OP_FOCUS_WINDOW,
                         .name = "focus_window",
                         .model = "focus_window",
                         .cli = "focus",
                         .title = "Focus window",
                         .flags = OPF_WINDOWS,
                         .help =
                             "Bring a window to the front and verify it is the foreground window.",
                         .args = {{ARG_WINDOW, OPA_REQ | OPA_POS},
                                  {ARG_SCREENSHOT, OPA_CLI},
                                  {ARG_RETURN_STATE, OPA_CLI}}},
    [OP_MOVE_WINDOW] = {.id = OP_MOVE_WINDOW,
                        .name = "move_window",
                        .model = "move_window",
                        .cli = "move",
                        .title = "Move window",
                        .flags = OPF_WINDOWS | OPF_PIXELS,
                        .help = "Move and resize a window.",
                        .args = {{ARG_WINDOW, OPA_REQ | OPA_POS},
                                 {ARG_X, OPA_REQ | OPA_POS},
                                 {ARG_Y, OPA_REQ | OPA_POS},
                                 {ARG_WIDTH, OPA_REQ | OPA_POS},
                                 {ARG_HEIGHT, OPA_REQ | OPA_POS},
                                 {ARG_SCREENSHOT, OPA_CLI},
                                 {ARG_RETURN_STATE, OPA_CLI}}},
    [OP_SET_WINDOW_STATE] = {.id = OP_SET_WINDOW_STATE,
                             .name = "set_window_state",
                             .model = "set_window_state",
                             .cli = "window-state",
                             .title = "Minimize, maximize or restore",
                             .flags = OPF_WINDOWS,
                             .help = "Minimize, maximize or restore a window.",
                             .args = {{ARG_STATE, OPA_REQ | OPA_POS},
                                      {ARG_WINDOW, OPA_POS},
                                      {ARG_SCREENSHOT, OPA_CLI},
                                      {ARG_RETURN_STATE, OPA_CLI}}},
    [OP_CLOSE_WINDOW] = {.id = OP_CLOSE_WINDOW,
                         .name = "close_window",
                         .model = "close_window",
                         .cli = "close",
                         .title = "Close window",
                         .flags = OPF_WINDOWS | OPF_DESTRUCTIVE,
                         .help = "Close a window (the application may ask to save first).",
                         .args = {{ARG_WINDOW, OPA_POS},
                                  {ARG_SCREENSHOT, OPA_CLI},
                                  {ARG_RETURN_STATE, OPA_CLI}}},
    [OP_SELECT_MENU] = {.id = OP_SELECT_MENU,
                        .name = "select_menu",
                        .model = "select_menu",
                        .cli = "menu",
                        .title = "Choose a menu item",
                        .flags = OPF_INPUT,
                        .help = "Open each menu of a path from the menu bar down and choose its "
                                "last item (\"File > Save as...\"); element_not_found lists the "
                                "items there are.",
                        .args = {{ARG_MENU_PATH, OPA_REQ | OPA_POS}, ACT_COMMON}},
    [OP_LAUNCH] = {.id = OP_LAUNCH,
                   .name = "launch",
                   .model = "launch",
                   .cli = "launch",
                   .title = "Launch program",
                   .flags = OPF_LAUNCH,
                   .help = "Start a program by name or path and return its window; a command line "
                           "with arguments, a script or an interpreter needs the shell permission.",
                   .args = {{ARG_COMMAND, OPA_REQ | OPA_POS},
                            {ARG_SCREENSHOT, OPA_CLI},
                            {ARG_RETURN_STATE, OPA_CLI}}},
    [OP_SHELL] = {.id = OP_SHELL,
                  .name = "shell",
                  .model = "powershell",
                  .cli = "powershell",
                  .title = "Run PowerShell",
                  .rdp = "run",
                  .flags = OPF_SHELL | OPF_DESTRUCTIVE | OPF_OWN_TOOL,
                  .help = "Run a PowerShell command and get its exit code, stdout and stderr (long "
                          "output keeps its start and end); needs the shell permission.",
                  .args = {{ARG_COMMAND, OPA_REQ | OPA_POS}, {ARG_TIMEOUT_S, 0}}},
    [OP_ASK_USER] = {.id = OP_ASK_USER,
                     .name = "ask_user",
                     .model = "ask_user",
                     .cli = "ask-user",
                     .title = "Ask the person",
                     .flags = OPF_PERSON | OPF_OWN_TOOL,
                     .help = "Ask the person at the desk a question and get their answer (the "
                             "console; an MCP client's elicitation); when nobody is there, it "
                             "says so at once: then decide on your own.",
                     .args = {{ARG_QUESTION, OPA_REQ | OPA_POS}}},
};

/* Misspellings models send, in the normalised form (lower case, '_' separators). */
static const struct {
    const char *alias;
    enum op_id op;
} model_aliases[] = {
    {"left_click", OP_CLICK},
    {"leftclick", OP_CLICK},
    {"mouse_click", OP_CLICK},
    {"tap", OP_CLICK},
    {"click_element", OP_CLICK},
    {"doubleclick", OP_DOUBLE_CLICK},
    {"dblclick", OP_DOUBLE_CLICK},
    {"double", OP_DOUBLE_CLICK},
    {"left_double_click", OP_DOUBLE_CLICK},
    {"rightclick", OP_RIGHT_CLICK},
    {"context_click", OP_RIGHT_CLICK},
    {"middleclick", OP_MIDDLE_CLICK},
    {"move", OP_MOUSE_MOVE},
    {"hover", OP_MOUSE_MOVE},
    {"mouse_over", OP_MOUSE_MOVE},
    {"move_mouse", OP_MOUSE_MOVE},
    {"mousemove", OP_MOUSE_MOVE},
    {"left_click_drag", OP_DRAG},
    {"drag_and_drop", OP_DRAG},
    {"mouse_drag", OP_DRAG},
    {"scroll_wheel", OP_SCROLL},
    {"wheel", OP_SCROLL},
    {"type_text", OP_TYPE},
    {"typetext", OP_TYPE},
    {"input_text", OP_TYPE},
    {"input", OP_TYPE},
    {"write", OP_TYPE},
    {"text", OP_TYPE},
    {"enter_text", OP_TYPE},
    {"press", OP_KEY},
    {"hotkey", OP_KEY},
    {"keypress", OP_KEY},
    {"key_press", OP_KEY},
    {"press_key", OP_KEY},
    {"keys", OP_KEY},
    {"send_keys", OP_KEY},
    {"key_combo", OP_KEY},
    {"shortcut", OP_KEY},
    {"keyboard", OP_KEY},
    {"take_screenshot", OP_SCREENSHOT},
    {"capture", OP_SCREENSHOT},
    {"screen_shot", OP_SCREENSHOT},
    {"full_screenshot", OP_SCREENSHOT},
    {"observe", OP_OBSERVE},
    {"screenshot_window", OP_OBSERVE},
    {"window_screen_shot", OP_OBSERVE},
    {"get_tree", OP_OBSERVE},
    {"accessibility_tree", OP_OBSERVE},
    {"click_button", OP_INVOKE},
    {"press_button", OP_INVOKE},
    {"check", OP_TOGGLE},
    {"uncheck", OP_TOGGLE},
    {"select_item", OP_SELECT},
    {"choose", OP_SELECT},
    {"setvalue", OP_SET_VALUE},
    {"fill", OP_SET_VALUE},
    {"set_text", OP_SET_VALUE},
    {"sleep", OP_WAIT},
    {"pause", OP_WAIT},
    {"delay", OP_WAIT},
    {"windows", OP_LIST_WINDOWS},
    {"get_windows", OP_LIST_WINDOWS},
    {"listwindows", OP_LIST_WINDOWS},
    {"focus", OP_FOCUS_WINDOW},
    {"activate", OP_FOCUS_WINDOW},
    {"activate_window", OP_FOCUS_WINDOW},
    {"switch_window", OP_FOCUS_WINDOW},
    {"switch_to_window", OP_FOCUS_WINDOW},
    {"resize_window", OP_MOVE_WINDOW},
    {"resize", OP_MOVE_WINDOW},
    {"minimize", OP_SET_WINDOW_STATE},
    {"maximize", OP_SET_WINDOW_STATE},
    {"restore", OP_SET_WINDOW_STATE},
    {"window_state", OP_SET_WINDOW_STATE},
    {"close", OP_CLOSE_WINDOW},
    {"open", OP_LAUNCH},
    {"open_app", OP_LAUNCH},
    {"start", OP_LAUNCH},
    {"launch_app", OP_LAUNCH},
    {"run", OP_LAUNCH},
    {"start_app", OP_LAUNCH},
    {"open_application", OP_LAUNCH},
    {"menu", OP_SELECT_MENU},
    {"choose_menu", OP_SELECT_MENU},
    {"click_menu", OP_SELECT_MENU},
    {"menu_select", OP_SELECT_MENU},
};

const struct op_def *op_def(enum op_id id)
{
    return (unsigned)id < OP__COUNT ? &ops[id] : NULL;
}

const struct op_def *op_by_cli(const char *name)
{
    for (int i = 0; name && i < OP__COUNT; i++)
        if (ops[i].cli && strcmp(ops[i].cli, name) == 0)
            return &ops[i];
    return NULL;
}

static void normalise(const char *in, char *out, size_t cap)
{
    size_t j = 0;
    while (*in == ' ')
        in++;
    for (; *in && j + 1 < cap; in++) {
        char c = *in;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        else if (c == '-' || c == ' ' || c == '.')
            c = '_';
        out[j++] = c;
    }
    while (j > 0 && out[j - 1] == '_')
        j--;
    out[j] = '\0';
}

const char *op_model_action_list(void)
{
    static char list[600];
    if (!list[0]) {
        size_t len = 0;
        for (int i = 0; i < OP__COUNT && len < sizeof list; i++)
            if (ops[i].model && !(ops[i].flags & OPF_OWN_TOOL))
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                        ops[i].model);
    }
    return list;
}

wa_err op_by_model(const char *name, const struct op_def **out)
{
    *out = NULL;
    if (!name || !*name)
        return wa_fail(WA_E_INVALID_ARGS, "missing \"action\"; valid actions: %s",
                       op_model_action_list());
    char n[48];
    normalise(name, n, sizeof n);
    for (int i = 0; i < OP__COUNT; i++)
        if (!(ops[i].flags & OPF_OWN_TOOL) && ops[i].model && strcmp(ops[i].model, n) == 0) {
            *out = &ops[i];
            return WA_E_OK;
        }
    for (size_t i = 0; i < sizeof model_aliases / sizeof model_aliases[0]; i++)
        if (strcmp(model_aliases[i].alias, n) == 0) {
            *out = &ops[model_aliases[i].op];
            return WA_E_OK;
        }
    return wa_fail(WA_E_INVALID_ARGS, "unknown action \"%s\"; valid actions: %s", name,
                   op_model_action_list());
}

const struct op_arg_use *op_arg_use(const struct op_def *op, enum op_arg a)
{
    for (int i = 0; op && i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++)
        if (op->args[i].arg == a)
            return &op->args[i];
    return NULL;
}

enum arg_unit op_arg_unit(const struct op_def *op, enum op_arg a)
{
    switch (a) {
    case ARG_X:
    case ARG_Y:
    case ARG_TO_X:
    case ARG_TO_Y:
        return op->flags & OPF_PIXELS ? UNIT_PIXEL : UNIT_NORM;
    case ARG_WIDTH:
    case ARG_HEIGHT:
    case ARG_MAX_EDGE:
        return UNIT_PIXEL;
    case ARG_SECONDS:
    case ARG_TIMEOUT:
    case ARG_TIMEOUT_S:
        return UNIT_SECONDS;
    case ARG_DURATION:
        return UNIT_MS;
    case ARG_AMOUNT:
        return UNIT_NOTCHES;
    default:
        return UNIT_NONE;
    }
}
