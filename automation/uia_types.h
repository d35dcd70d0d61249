/* UI Automation's numeric ids as plain C, and the mapping of one element's raw UIA
 * property values to the tree's element info. Portable (no windows.h), so the
 * UIA source's logic is unit tested natively; automation/win/win_uia.c only reads
 * the cached properties into struct uia_raw_element. */
#ifndef WINAGENT_AUTOMATION_UIA_TYPES_H
#define WINAGENT_AUTOMATION_UIA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/tree.h"
#include "base/wa_err.h"

/* The control type ids run from UIA_ButtonControlTypeId (50000) to
 * UIA_AppBarControlTypeId (50040). */
#define UIA_TYPE_ID_FIRST 50000
#define UIA_TYPE_ID_LAST  50040

/* TogglePattern's ToggleState and ExpandCollapsePattern's ExpandCollapseState. */
enum uia_toggle_state {
    UIA_TOGGLE_OFF = 0,
    UIA_TOGGLE_ON = 1,
    UIA_TOGGLE_INDETERMINATE = 2,
};
enum uia_expand_state {
    UIA_EXPAND_COLLAPSED = 0,
    UIA_EXPAND_EXPANDED = 1,
    UIA_EXPAND_PARTIALLY = 2,
    UIA_EXPAND_LEAF = 3,
};

/* "Button" for 50000, ...; NULL for an id outside the table. */
const char *uia_control_type_name(int id);

/* One element's cached UIA properties, as win_uia.c read them. Strings are UTF-8 and
 * borrowed (NULL when the property was absent or not supported). */
struct uia_raw_element {
    int control_type; /* UIA_*ControlTypeId; 0 when unknown */
    const char *name, *automation_id, *class_name;
    uint64_t hwnd; /* NativeWindowHandle, 0 for virtual elements */
    bool has_rect; /* BoundingRectangle in physical pixels */
    double left, top, width, height;
    bool is_enabled, has_keyboard_focus, is_keyboard_focusable, is_offscreen, is_password;
    const int *runtime_id; /* RuntimeId parts; NULL/0 when absent */
    size_t runtime_id_len;
    unsigned patterns;          /* enum wa_pattern bits, from the Is*PatternAvailable properties */
    const char *value;          /* ValueValue (meaningful with WA_PAT_VALUE) */
    int toggle_state;           /* enum uia_toggle_state (with WA_PAT_TOGGLE) */
    int expand_state;           /* enum uia_expand_state (with WA_PAT_EXPAND) */
    bool is_selected;           /* SelectionItemIsSelected (with WA_PAT_SELECT) */
    const char *default_action; /* LegacyIAccessibleDefaultAction, NULL/"" when none */
    const char *accelerator;    /* AcceleratorKey ("Ctrl+S"), NULL/"" when none */
};

/* Fills *out (heap copies, as tree_walk expects) from the raw values: the type from
 * the id table ("Custom" for unknown ids), bounds rounded to whole pixels (empty for
 * a missing, empty or non-finite rectangle), the state bits (disabled, focused,
 * focusable, offscreen; checked from an On toggle state; expanded/collapsed from the
 * expand state except for leaf nodes; selected), the value only where the Value
 * pattern exists and never for password fields, the runtime id as "42.7.1", the
 * accelerator key where there is one.
 * WA_E_NOMEM, with *out cleared, when a copy fails. */
wa_err uia_element_to_info(const struct uia_raw_element *raw, struct tree_element_info *out);

/* "42.7.1" (parts joined by dots) as a heap string; NULL for no parts or no memory. */
char *uia_format_runtime_id(const int *parts, size_t n);

#endif
