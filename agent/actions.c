/* The desktop actions and the alias table that absorbs models' misspellings. */
#include "agent/actions.h"

#include <stdio.h>
#include <string.h>

#include "base/str.h"

static const struct {
    const char *name;
    unsigned flags;
} actions[] = {
#define X_ROW(e, name, flags) {name, flags},
    DESKTOP_ACTION_MAP(X_ROW)
#undef X_ROW
};

/* Aliases, written in the normalised form (lower case, '_' separators). */
static const struct {
    const char *alias;
    enum desktop_action action;
} aliases[] = {
    {"left_click", DA_CLICK},
    {"leftclick", DA_CLICK},
    {"mouse_click", DA_CLICK},
    {"tap", DA_CLICK},
    {"click_element", DA_CLICK},
    {"doubleclick", DA_DOUBLE_CLICK},
    {"dblclick", DA_DOUBLE_CLICK},
    {"double", DA_DOUBLE_CLICK},
    {"left_double_click", DA_DOUBLE_CLICK},
    {"rightclick", DA_RIGHT_CLICK},
    {"context_click", DA_RIGHT_CLICK},
    {"middleclick", DA_MIDDLE_CLICK},
    {"move", DA_MOUSE_MOVE},
    {"hover", DA_MOUSE_MOVE},
    {"mouse_over", DA_MOUSE_MOVE},
    {"move_mouse", DA_MOUSE_MOVE},
    {"mousemove", DA_MOUSE_MOVE},
    {"left_click_drag", DA_DRAG},
    {"drag_and_drop", DA_DRAG},
    {"mouse_drag", DA_DRAG},
    {"scroll_wheel", DA_SCROLL},
    {"wheel", DA_SCROLL},
    {"type_text", DA_TYPE},
    {"typetext", DA_TYPE},
    {"input_text", DA_TYPE},
    {"input", DA_TYPE},
    {"write", DA_TYPE},
    {"text", DA_TYPE},
    {"enter_text", DA_TYPE},
    {"press", DA_KEY},
    {"hotkey", DA_KEY},
    {"keypress", DA_KEY},
    {"key_press", DA_KEY},
    {"press_key", DA_KEY},
    {"keys", DA_KEY},
    {"send_keys", DA_KEY},
    {"key_combo", DA_KEY},
    {"shortcut", DA_KEY},
    {"keyboard", DA_KEY},
    {"take_screenshot", DA_SCREENSHOT},
    {"capture", DA_SCREENSHOT},
    {"screen_shot", DA_SCREENSHOT},
    {"full_screenshot", DA_SCREENSHOT},
    {"observe", DA_WINDOW_SCREENSHOT},
    {"screenshot_window", DA_WINDOW_SCREENSHOT},
    {"window_screen_shot", DA_WINDOW_SCREENSHOT},
    {"get_tree", DA_WINDOW_SCREENSHOT},
    {"accessibility_tree", DA_WINDOW_SCREENSHOT},
    {"click_button", DA_INVOKE},
    {"press_button", DA_INVOKE},
    {"check", DA_TOGGLE},
    {"uncheck", DA_TOGGLE},
    {"select_item", DA_SELECT},
    {"choose", DA_SELECT},
    {"setvalue", DA_SET_VALUE},
    {"fill", DA_SET_VALUE},
    {"set_text", DA_SET_VALUE},
    {"sleep", DA_WAIT},
    {"pause", DA_WAIT},
    {"delay", DA_WAIT},
    {"windows", DA_LIST_WINDOWS},
    {"get_windows", DA_LIST_WINDOWS},
    {"listwindows", DA_LIST_WINDOWS},
    {"focus", DA_FOCUS_WINDOW},
    {"activate", DA_FOCUS_WINDOW},
    {"activate_window", DA_FOCUS_WINDOW},
    {"switch_window", DA_FOCUS_WINDOW},
    {"switch_to_window", DA_FOCUS_WINDOW},
    {"resize_window", DA_MOVE_WINDOW},
    {"resize", DA_MOVE_WINDOW},
    {"minimize", DA_SET_WINDOW_STATE},
    {"maximize", DA_SET_WINDOW_STATE},
    {"restore", DA_SET_WINDOW_STATE},
    {"window_state", DA_SET_WINDOW_STATE},
    {"close", DA_CLOSE_WINDOW},
    {"open", DA_LAUNCH},
    {"open_app", DA_LAUNCH},
    {"start", DA_LAUNCH},
    {"launch_app", DA_LAUNCH},
    {"run", DA_LAUNCH},
    {"start_app", DA_LAUNCH},
    {"open_application", DA_LAUNCH},
};

static void normalise(const char *in, char *out, size_t cap)
{
    size_t j = 0;
    for (; *in == ' '; in++)
        ;
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

wa_err desktop_action_parse(const char *name, enum desktop_action *out)
{
    if (!name || !*name)
        return wa_fail(WA_E_INVALID_ARGS, "missing \"action\"; valid actions: %s",
                       desktop_action_list());
    char n[48];
    normalise(name, n, sizeof n);
    for (int i = 0; i < DA__COUNT; i++)
        if (strcmp(actions[i].name, n) == 0) {
            *out = (enum desktop_action)i;
            return WA_E_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, n) == 0) {
            *out = aliases[i].action;
            return WA_E_OK;
        }
    return wa_fail(WA_E_INVALID_ARGS, "unknown action \"%s\"; valid actions: %s", name,
                   desktop_action_list());
}

const char *desktop_action_name(enum desktop_action a)
{
    return (unsigned)a < DA__COUNT ? actions[a].name : "unknown";
}

unsigned desktop_action_flags(enum desktop_action a)
{
    return (unsigned)a < DA__COUNT ? actions[a].flags : 0;
}

bool desktop_action_acts(enum desktop_action a)
{
    return (desktop_action_flags(a) & (ACT_INPUT | ACT_WINDOWS)) != 0;
}

const char *desktop_action_list(void)
{
    static char list[512];
    if (!list[0]) {
        size_t len = 0;
        for (int i = 0; i < DA__COUNT && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                    actions[i].name);
    }
    return list;
}
