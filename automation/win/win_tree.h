/* The Windows backend's accessibility slots: a window's tree (UI Automation, else the
 * HWND tree with MSAA) and pattern actions on its nodes. */
#ifndef WINAGENT_WIN_TREE_H
#define WINAGENT_WIN_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "automation/backend.h"

/* Walks the window's tree on a worker thread and waits at most o->budget_ms plus a
 * grace second: a hung target never hangs the caller. UI Automation is used when it
 * is there and gives the root with children, else MSAA (o->prefer_msaa skips UIA).
 * Fills frame (the window's visible frame), hwnd, title, process, source and walk_ms.
 * When the deadline passes with the worker caught inside a call into the target,
 * the partial tree is returned (timed_out set, no element handles: the worker may
 * still be using them); with nothing to hand over, WA_E_TIMEOUT. Handles are kept
 * when o->keep_handles, for win_element_action; release them with tree_cleanup from
 * a thread that is not in a single-threaded COM apartment. */
wa_err win_get_tree(uint64_t hwnd, const struct wa_tree_opts *o, struct wa_tree *out);

/* Acts on node `index` (0-based) of a tree win_get_tree made: UI Automation patterns
 * when the node has a UIA element; else MSAA (accDoDefaultAction, accSelect,
 * put_accValue); else window messages (BM_CLICK, LB_SETCURSEL and CB_SETCURSEL with
 * their change notifications, CB_SHOWDROPDOWN, WM_SETTEXT). Runs on a worker thread
 * and gives up after 5 s. *via is a static string naming the path ("uia:Invoke",
 * "msaa:accDoDefaultAction", "message:BM_CLICK", ...). WA_E_UNSUPPORTED when no path
 * applies: the caller may click the element's centre instead. value (set_value) is
 * UTF-8. */
wa_err win_element_action(struct wa_tree *t, size_t index, enum wa_element_action a,
                          const char *value, const char **via);
/* The element's current value, read back (Value pattern, accValue, WM_GETTEXT), and
 * the value of the control with the keyboard focus; see backend.h. */
wa_err win_element_value(struct wa_tree *t, size_t index, char **value);
wa_err win_focused_value(uint64_t top, uint64_t *hwnd, char **value);
/* The element's states read again (backend.h element_states), and where a click turns
 * an item's check box over (check_box_point: tree and list view items), each on a
 * worker within 2 s. */
wa_err win_element_states(struct wa_tree *t, size_t index, unsigned *states);
wa_err win_check_box_point(struct wa_tree *t, size_t index, int *x, int *y);

/* Items of collection node `index` of an "msaa" tree that q wants, appended to t
 * (backend.h find_items); searched on a worker within FIND_MS. */
wa_err win_find_items(struct wa_tree *t, size_t index, const struct wa_item_query *q, size_t max,
                      size_t *added);

/* The open popup menus of hwnd's thread (backend.h open_menus). */
wa_err win_open_menus(uint64_t hwnd, uint64_t *out, size_t max, size_t *count);

#endif
