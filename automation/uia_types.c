/* UI Automation control type names and the raw-property-to-element-info mapping. */
#include "automation/uia_types.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"

/* Indexed by id - UIA_TYPE_ID_FIRST; the names are UIA's ControlType programmatic
 * names without the "ControlType." prefix. */
static const char *const type_names[UIA_TYPE_ID_LAST - UIA_TYPE_ID_FIRST + 1] = {
    "Button",      "Calendar",    "CheckBox",  "ComboBox",     "Edit",     "Hyperlink",
    "Image",       "ListItem",    "List",      "Menu",         "MenuBar",  "MenuItem",
    "ProgressBar", "RadioButton", "ScrollBar", "Slider",       "Spinner",  "StatusBar",
    "Tab",         "TabItem",     "Text",      "ToolBar",      "ToolTip",  "Tree",
    "TreeItem",    "Custom",      "Group",     "Thumb",        "DataGrid", "DataItem",
    "Document",    "SplitButton", "Window",    "Pane",         "Header",   "HeaderItem",
    "Table",       "TitleBar",    "Separator", "SemanticZoom", "AppBar",
};

const char *uia_control_type_name(int id)
{
    if (id < UIA_TYPE_ID_FIRST || id > UIA_TYPE_ID_LAST)
        return NULL;
    return type_names[id - UIA_TYPE_ID_FIRST];
}

char *uia_format_runtime_id(const int *parts, size_t n)
{
    if (!parts || n == 0)
        return NULL;
    size_t cap = n * 12 + 1; /* "-2147483648." per part at most */
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, i ? ".%d" : "%d", parts[i]);
    return s;
}

/* Rounds a UIA rectangle (doubles) to pixels; empty when unusable. Elements scrolled
 * out of view report an empty or infinite rectangle. */
static struct wa_rect rect_from_uia(const struct uia_raw_element *r)
{
    struct wa_rect out = {0, 0, 0, 0};
    if (!r->has_rect || !isfinite(r->left) || !isfinite(r->top) || !isfinite(r->width) ||
        !isfinite(r->height) || r->width <= 0 || r->height <= 0)
        return out;
    double right = r->left + r->width, bottom = r->top + r->height;
    if (fabs(r->left) > 1e9 || fabs(r->top) > 1e9 || fabs(right) > 1e9 || fabs(bottom) > 1e9)
        return out;
    out.left = (int)lround(r->left);
    out.top = (int)lround(r->top);
    out.right = (int)lround(right);
    out.bottom = (int)lround(bottom);
    if (wa_rect_empty(out))
        memset(&out, 0, sizeof out);
    return out;
}

static unsigned states_from_uia(const struct uia_raw_element *r)
{
    unsigned s = 0;
    if (!r->is_enabled)
        s |= WA_ST_DISABLED;
    if (r->has_keyboard_focus)
        s |= WA_ST_FOCUSED;
    if (r->is_keyboard_focusable)
        s |= WA_ST_FOCUSABLE;
    if (r->is_offscreen)
        s |= WA_ST_OFFSCREEN;
    if (r->patterns & WA_PAT_TOGGLE) /* a check box, or an item or button drawn as one */
        s |= r->toggle_state == UIA_TOGGLE_ON              ? WA_ST_CHECKED
             : r->toggle_state == UIA_TOGGLE_INDETERMINATE ? WA_ST_MIXED
                                                           : WA_ST_UNCHECKED;
    if (r->patterns & WA_PAT_EXPAND) {
        if (r->expand_state == UIA_EXPAND_EXPANDED || r->expand_state == UIA_EXPAND_PARTIALLY)
            s |= WA_ST_EXPANDED;
        else if (r->expand_state == UIA_EXPAND_COLLAPSED)
            s |= WA_ST_COLLAPSED;
    }
    if ((r->patterns & WA_PAT_SELECT) && r->is_selected)
        s |= WA_ST_SELECTED;
    return s;
}

wa_err uia_element_to_info(const struct uia_raw_element *raw, struct tree_element_info *out)
{
    memset(out, 0, sizeof *out);
    const char *type = uia_control_type_name(raw->control_type);
    out->type = str_dup(type ? type : "Custom");
    out->name = str_dup(raw->name);
    out->automation_id = str_dup(raw->automation_id);
    out->class_name = str_dup(raw->class_name);
    if ((raw->patterns & WA_PAT_VALUE) && !raw->is_password)
        out->value = str_dup(raw->value ? raw->value : "");
    out->runtime_id = uia_format_runtime_id(raw->runtime_id, raw->runtime_id_len);
    out->bounds = rect_from_uia(raw);
    out->states = states_from_uia(raw);
    out->patterns = raw->patterns;
    if (raw->default_action && *raw->default_action)
        out->patterns |= WA_PAT_DEFAULT_ACTION;
    out->hwnd = raw->hwnd;
    out->child_id = 0;
    bool accel = raw->accelerator && *raw->accelerator;
    out->accelerator = accel ? str_dup(raw->accelerator) : NULL;
    if (!out->type || (raw->name && !out->name) || (raw->automation_id && !out->automation_id) ||
        (accel && !out->accelerator) || (raw->class_name && !out->class_name) ||
        ((raw->patterns & WA_PAT_VALUE) && !raw->is_password && !out->value) ||
        (raw->runtime_id && raw->runtime_id_len && !out->runtime_id)) {
        free(out->type);
        free(out->name);
        free(out->automation_id);
        free(out->class_name);
        free(out->value);
        free(out->runtime_id);
        free(out->accelerator);
        memset(out, 0, sizeof *out);
        return wa_fail(WA_E_NOMEM, "out of memory describing a UI Automation element");
    }
    return WA_E_OK;
}
