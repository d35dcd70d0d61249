/* MSAA roles, states and standard window classes as control types and state bits. */
#include "automation/msaa_roles.h"

#include <stdlib.h>
#include <string.h>

#include "automation/tree.h"
#include "base/str.h"

/* Indexed by role (1..MSAA_ROLE_LAST); the names UIA's MSAA proxy gives them. */
static const char *const role_names[MSAA_ROLE_LAST + 1] = {
    [0x01] = "TitleBar",    [0x02] = "MenuBar",     [0x03] = "ScrollBar", [0x04] = "Thumb",
    [0x05] = "Custom",      [0x06] = "Custom",      [0x07] = "Custom",    [0x08] = "Pane",
    [0x09] = "Window",      [0x0a] = "Pane",        [0x0b] = "Menu",      [0x0c] = "MenuItem",
    [0x0d] = "ToolTip",     [0x0e] = "Window",      [0x0f] = "Document",  [0x10] = "Pane",
    [0x11] = "Image",       [0x12] = "Window",      [0x13] = "Custom",    [0x14] = "Group",
    [0x15] = "Separator",   [0x16] = "ToolBar",     [0x17] = "StatusBar", [0x18] = "Table",
    [0x19] = "HeaderItem",  [0x1a] = "HeaderItem",  [0x1b] = "Custom",    [0x1c] = "DataItem",
    [0x1d] = "DataItem",    [0x1e] = "Hyperlink",   [0x1f] = "ToolTip",   [0x20] = "Custom",
    [0x21] = "List",        [0x22] = "ListItem",    [0x23] = "Tree",      [0x24] = "TreeItem",
    [0x25] = "TabItem",     [0x26] = "Pane",        [0x27] = "Thumb",     [0x28] = "Image",
    [0x29] = "Text",        [0x2a] = "Edit",        [0x2b] = "Button",    [0x2c] = "CheckBox",
    [0x2d] = "RadioButton", [0x2e] = "ComboBox",    [0x2f] = "ComboBox",  [0x30] = "ProgressBar",
    [0x31] = "Slider",      [0x32] = "Edit",        [0x33] = "Slider",    [0x34] = "Spinner",
    [0x35] = "Image",       [0x36] = "Image",       [0x37] = "Text",      [0x38] = "Button",
    [0x39] = "MenuItem",    [0x3a] = "Button",      [0x3b] = "Custom",    [0x3c] = "Tab",
    [0x3d] = "Button",      [0x3e] = "SplitButton", [0x3f] = "Edit",      [0x40] = "Button",
};

const char *msaa_role_type_name(long role, unsigned long state)
{
    if (role < 1 || role > MSAA_ROLE_LAST)
        return NULL;
    if (role == MSAA_ROLE_TEXT && (state & MSAA_STATE_READONLY))
        return "Text";
    return role_names[role];
}

bool msaa_role_is_generic(long role)
{
    return role == MSAA_ROLE_CLIENT || role == MSAA_ROLE_WINDOW || role == MSAA_ROLE_PANE;
}

unsigned msaa_state_to_wa(unsigned long state)
{
    unsigned s = 0;
    if (state & MSAA_STATE_UNAVAILABLE)
        s |= WA_ST_DISABLED;
    if (state & MSAA_STATE_FOCUSED)
        s |= WA_ST_FOCUSED;
    if (state & MSAA_STATE_MIXED)
        s |= WA_ST_MIXED;
    else if (state & MSAA_STATE_CHECKED)
        s |= WA_ST_CHECKED;
    if (state & MSAA_STATE_EXPANDED)
        s |= WA_ST_EXPANDED;
    if (state & MSAA_STATE_COLLAPSED)
        s |= WA_ST_COLLAPSED;
    if (state & MSAA_STATE_SELECTED)
        s |= WA_ST_SELECTED;
    if (state & (MSAA_STATE_INVISIBLE | MSAA_STATE_OFFSCREEN))
        s |= WA_ST_OFFSCREEN;
    if (state & MSAA_STATE_FOCUSABLE)
        s |= WA_ST_FOCUSABLE;
    return s;
}

unsigned msaa_check_states(long role, unsigned long state)
{
    if (role != MSAA_ROLE_CHECKBUTTON)
        return 0;
    return state & MSAA_STATE_MIXED     ? WA_ST_MIXED
           : state & MSAA_STATE_CHECKED ? WA_ST_CHECKED
                                        : WA_ST_UNCHECKED;
}

unsigned msaa_state_image_check(unsigned index)
{
    static const unsigned states[] = {0,           WA_ST_UNCHECKED, WA_ST_CHECKED,
                                      WA_ST_MIXED, WA_ST_UNCHECKED, WA_ST_CHECKED,
                                      WA_ST_MIXED};
    return index < sizeof states / sizeof states[0] ? states[index] : 0;
}

/* winuser.h / commctrl.h style bits the class mapping reads. */
#define STYLE_BS_TYPEMASK 0x0000000FUL
#define STYLE_BS_PUSHLIKE 0x00001000UL
#define STYLE_SS_TYPEMASK 0x0000001FUL
#define STYLE_SS_ICON     0x03UL
#define STYLE_SS_BITMAP   0x0EUL
#define STYLE_SS_ENHMETA  0x0FUL

static const char *button_type(unsigned long style)
{
    switch (style & STYLE_BS_TYPEMASK) {
    case 0x2: /* BS_CHECKBOX */
    case 0x3: /* BS_AUTOCHECKBOX */
    case 0x5: /* BS_3STATE */
    case 0x6: /* BS_AUTO3STATE */
        return style & STYLE_BS_PUSHLIKE ? "Button" : "CheckBox";
    case 0x4: /* BS_RADIOBUTTON */
    case 0x9: /* BS_AUTORADIOBUTTON */
        return style & STYLE_BS_PUSHLIKE ? "Button" : "RadioButton";
    case 0x7: /* BS_GROUPBOX */
        return "Group";
    case 0xC: /* BS_SPLITBUTTON */
    case 0xD: /* BS_DEFSPLITBUTTON */
        return "SplitButton";
    default: /* push, default push, user, push box, owner-drawn, command links */
        return "Button";
    }
}

static const char *static_type(unsigned long style)
{
    unsigned long t = style & STYLE_SS_TYPEMASK;
    return t == STYLE_SS_ICON || t == STYLE_SS_BITMAP || t == STYLE_SS_ENHMETA ? "Image" : "Text";
}

static const struct {
    const char *cls, *type;
} class_types[] = {
    {"Edit", "Edit"},
    {"RichEdit", "Edit"},
    {"RichEdit20A", "Edit"},
    {"RichEdit20W", "Edit"},
    {"RICHEDIT50W", "Edit"},
    {"RichEditD2DPT", "Edit"},
    {"ListBox", "List"},
    {"ComboLBox", "List"},
    {"ComboBox", "ComboBox"},
    {"ComboBoxEx32", "ComboBox"},
    {"ScrollBar", "ScrollBar"},
    {"SysTreeView32", "Tree"},
    {"SysListView32", "List"},
    {"SysHeader32", "Header"},
    {"SysTabControl32", "Tab"},
    {"msctls_statusbar32", "StatusBar"},
    {"ToolbarWindow32", "ToolBar"},
    {"msctls_progress32", "ProgressBar"},
    {"msctls_trackbar32", "Slider"},
    {"msctls_updown32", "Spinner"},
    {"SysLink", "Hyperlink"},
    {"tooltips_class32", "ToolTip"},
    {"SysMonthCal32", "Calendar"},
    {"#32768", "Menu"},
    {"#32770", "Pane"},
    {"MDIClient", "Pane"},
};

const char *msaa_class_type_name(const char *class_name, unsigned long style)
{
    if (!class_name)
        return NULL;
    if (str_ieq(class_name, "Button"))
        return button_type(style);
    if (str_ieq(class_name, "Static"))
        return static_type(style);
    for (size_t i = 0; i < sizeof class_types / sizeof class_types[0]; i++)
        if (str_ieq(class_name, class_types[i].cls))
            return class_types[i].type;
    return NULL;
}

bool msaa_class_text_is_value(const char *class_name)
{
    const char *t = msaa_class_type_name(class_name, 0);
    return t && strcmp(t, "Edit") == 0;
}

enum msaa_item_class msaa_class_items(const char *class_name)
{
    if (str_ieq(class_name, "ListBox"))
        return MSAA_ITEMS_LISTBOX;
    if (str_ieq(class_name, "ComboBox"))
        return MSAA_ITEMS_COMBOBOX;
    if (str_ieq(class_name, "SysTreeView32"))
        return MSAA_ITEMS_TREEVIEW;
    if (str_ieq(class_name, "SysListView32"))
        return MSAA_ITEMS_LISTVIEW;
    if (str_ieq(class_name, "SysTabControl32"))
        return MSAA_ITEMS_TAB;
    if (str_ieq(class_name, "ToolbarWindow32"))
        return MSAA_ITEMS_TOOLBAR;
    if (str_ieq(class_name, "msctls_statusbar32"))
        return MSAA_ITEMS_STATUSBAR;
    return MSAA_ITEMS_NONE;
}

char *msaa_text_to_name(const char *text)
{
    if (!text)
        return NULL;
    size_t n = strcspn(text, "\t");
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] != '&') {
            out[len++] = text[i];
        } else if (i + 1 < n && text[i + 1] == '&') {
            out[len++] = '&';
            i++;
        } /* else a single '&' only marks the next character as the mnemonic */
    }
    out[len] = '\0';
    size_t start = 0;
    while (out[start] == ' ')
        start++;
    while (len > start && (out[len - 1] == ' ' || out[len - 1] == '\r' || out[len - 1] == '\n'))
        out[--len] = '\0';
    if (start)
        memmove(out, out + start, len - start + 1);
    return out;
}
