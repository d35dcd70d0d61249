/* Check boxes drawn in tree and list view items (TVS_CHECKBOXES, LVS_EX_CHECKBOXES, a
 * program's own state image list): where a click turns one over, and the keyboard's
 * route to it, both through the control's own messages. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_CHECK_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_CHECK_H

#include <windows.h>
#include <stdint.h>

#include "automation/msaa_roles.h"
#include "automation/win/msaa/win_msaa_cc.h"

/* The screen pixel where a click lands on item's check box (its state image): the
 * control's own hit test (TVM_HITTEST, LVM_HITTEST) asked along the item's row, left of
 * its label, for TVHT_ONITEMSTATEICON / LVHT_ONITEMSTATEICON; the middle of what
 * answers so. k: MSAA_ITEMS_TREEVIEW (item an HTREEITEM) or MSAA_ITEMS_LISTVIEW (an
 * index). WA_E_UNSUPPORTED when no part of the row answers as the box. */
wa_err win_cc_check_point(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item,
                          POINT *screen);

/* Turns item's box over as the keyboard does, in messages only: the item selected (and
 * focused) with the control's own message, then Space posted to the control as a key
 * press (WM_KEYDOWN, WM_KEYUP: the program's message loop makes the character of it, as
 * for a key typed). *via names the route. */
wa_err win_cc_check_keys(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item,
                         const char **via);

#endif
