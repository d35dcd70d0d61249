/* MSAA roles and states, and the standard Win32 window classes, mapped to the tree's
 * control type names and state bits. Portable (no windows.h): the numeric values are
 * oleacc.h's and winuser.h's, and automation/win/msaa/win_msaa.c checks them against the
 * real headers at compile time. */
#ifndef WINAGENT_AUTOMATION_MSAA_ROLES_H
#define WINAGENT_AUTOMATION_MSAA_ROLES_H

#include <stdbool.h>

/* ROLE_SYSTEM_* values this module names (oleacc.h). */
#define MSAA_ROLE_TITLEBAR    0x01
#define MSAA_ROLE_MENUBAR     0x02
#define MSAA_ROLE_WINDOW      0x09
#define MSAA_ROLE_CLIENT      0x0a
#define MSAA_ROLE_MENUPOPUP   0x0b
#define MSAA_ROLE_MENUITEM    0x0c
#define MSAA_ROLE_PANE        0x10
#define MSAA_ROLE_LIST        0x21
#define MSAA_ROLE_LISTITEM    0x22
#define MSAA_ROLE_OUTLINEITEM 0x24
#define MSAA_ROLE_PAGETAB     0x25
#define MSAA_ROLE_STATICTEXT  0x29
#define MSAA_ROLE_TEXT        0x2a
#define MSAA_ROLE_PUSHBUTTON  0x2b
#define MSAA_ROLE_CHECKBUTTON 0x2c
#define MSAA_ROLE_COMBOBOX    0x2e
#define MSAA_ROLE_LAST        0x40 /* ROLE_SYSTEM_OUTLINEBUTTON */

/* STATE_SYSTEM_* bits this module reads (oleacc.h). */
#define MSAA_STATE_UNAVAILABLE 0x00000001UL
#define MSAA_STATE_SELECTED    0x00000002UL
#define MSAA_STATE_FOCUSED     0x00000004UL
#define MSAA_STATE_CHECKED     0x00000010UL
#define MSAA_STATE_MIXED       0x00000020UL /* a three-state check box's third state */
#define MSAA_STATE_READONLY    0x00000040UL
#define MSAA_STATE_EXPANDED    0x00000200UL
#define MSAA_STATE_COLLAPSED   0x00000400UL
#define MSAA_STATE_INVISIBLE   0x00008000UL
#define MSAA_STATE_OFFSCREEN   0x00010000UL
#define MSAA_STATE_FOCUSABLE   0x00100000UL
#define MSAA_STATE_PROTECTED   0x20000000UL /* a password field: never read its value */

/* The control type name for an MSAA role, as UIA's MSAA proxy names it: PUSHBUTTON
 * -> "Button", MENUITEM -> "MenuItem", TEXT -> "Edit" (or "Text" when the state has
 * READONLY), CLIENT -> "Pane", WINDOW -> "Window", ... NULL for unknown roles. */
const char *msaa_role_type_name(long role, unsigned long state);

/* Roles that say nothing about the control (CLIENT, WINDOW, PANE): a window's class
 * name is a better guide to its type than these. */
bool msaa_role_is_generic(long role);

/* enum wa_state bits for an MSAA state: UNAVAILABLE -> disabled, FOCUSED, CHECKED,
 * MIXED, EXPANDED, COLLAPSED, SELECTED, INVISIBLE or OFFSCREEN -> offscreen,
 * FOCUSABLE. */
unsigned msaa_state_to_wa(unsigned long state);

/* The state of a check box of role `role` (CHECKBUTTON): exactly one of checked,
 * unchecked and mixed; 0 for any other role (whose CHECKED, if set, msaa_state_to_wa
 * already gives). */
unsigned msaa_check_states(long role, unsigned long state);

/* The check box a tree or list view item's state image shows (its index, the state
 * bits 12-15: TVIS_STATEIMAGEMASK, LVIS_STATEIMAGEMASK): 0 none; 1 unchecked and 2
 * checked, as TVS_CHECKBOXES and LVS_EX_CHECKBOXES define them; 3 mixed (partly
 * checked, TVS_EX_PARTIALCHECKBOXES); 4 to 6 the same three drawn read-only, as
 * installers' own state image lists draw them (NSIS's components). Larger: 0. */
unsigned msaa_state_image_check(unsigned index);

/* The control type of a standard Win32 control from its window class (ASCII
 * case-insensitive) and style (GWL_STYLE): "Button" (push, default, owner-drawn and
 * push-like buttons), "CheckBox" (BS_CHECKBOX, BS_AUTOCHECKBOX, BS_3STATE,
 * BS_AUTO3STATE), "RadioButton", "Group" (BS_GROUPBOX), "SplitButton", "Edit"
 * (Edit and the RichEdit classes), "Text" or "Image" (Static), "List" (ListBox,
 * SysListView32), "ComboBox", "Tree", "Tab", "StatusBar", "ToolBar", "ProgressBar",
 * "Slider", "Spinner", "ScrollBar", "Header", "Hyperlink", "ToolTip", "Menu"
 * (#32768), "Pane" (#32770 dialogs, MDIClient). NULL for classes it does not know. */
const char *msaa_class_type_name(const char *class_name, unsigned long style);

/* Window classes whose window text is their content (the value), not their name:
 * Edit and the RichEdit classes. */
bool msaa_class_text_is_value(const char *class_name);

/* Classes whose items winagent reads with the control's own messages (LB_GETTEXT,
 * CB_GETLBTEXT; TVM_, LVM_, TCM_, TB_ and SB_ through a buffer in the target process) rather
 * than through MSAA children, which Wine does not provide for them. */
enum msaa_item_class {
    MSAA_ITEMS_NONE,
    MSAA_ITEMS_LISTBOX,   /* ListBox */
    MSAA_ITEMS_COMBOBOX,  /* ComboBox */
    MSAA_ITEMS_TREEVIEW,  /* SysTreeView32 */
    MSAA_ITEMS_LISTVIEW,  /* SysListView32 */
    MSAA_ITEMS_TAB,       /* SysTabControl32 */
    MSAA_ITEMS_TOOLBAR,   /* ToolbarWindow32 */
    MSAA_ITEMS_STATUSBAR, /* msctls_statusbar32: its parts */
};
enum msaa_item_class msaa_class_items(const char *class_name);

/* A control's text as its accessible name, as the control draws it: '&' mnemonic
 * markers removed ("&File" -> "File"), "&&" shown as one '&', everything from a tab on dropped
 * ("Open\tCtrl+O" -> "Open"), surrounding blanks trimmed. Heap string; NULL for NULL
 * or out of memory. */
char *msaa_text_to_name(const char *text);

#endif
