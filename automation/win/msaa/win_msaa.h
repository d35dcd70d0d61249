/* The HWND tree with MSAA (IAccessible) objects as a tree source, the source that
 * carries the tree under Wine, and the MSAA side of element actions. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_H

#include <windows.h>
#include <stdbool.h>

#include "automation/backend.h"
#include "automation/msaa_roles.h"
#include "automation/tree.h"
#include "automation/win/desktop/win_tree_job.h"

/* Ops over a struct win_msaa_ctx. Elements: the window, its menu bar (with the menu
 * items from MSAA's OBJID_MENU object, else the menu functions; marked
 * items_unreadable when neither reads them), its visible child windows in Z order, the items
 * of list and combo boxes (read with LB_/CB_ messages), of tree views (the expanded
 * part), list views and tab controls (win_msaa_cc.h), and the MSAA children of
 * each client object that have no window of their own. Every call that can block on
 * the target goes through the context's gate; windows whose thread does not answer
 * a ping are described from what needs no message (class, style, rectangle, stored
 * text). */
extern const struct tree_source_ops win_msaa_source;

struct win_msaa_ctx;

/* A context for walking the tree of top-level window root; gate may be NULL. */
wa_err win_msaa_open(HWND root, struct win_gate *gate, struct win_msaa_ctx **out);

/* A context for walking the open popup menus of root's thread (win_menu_popups): the
 * root element is a placeholder (a Pane) whose children are the popups, each a Menu
 * with its bounds, named by the item that opened it where that can be read, and its
 * items from its client object (a popup menu object: the program's own, or Windows'
 * oleacc) or else from the menu functions; with neither it is marked
 * items_unreadable. */
wa_err win_msaa_open_popups(HWND root, const HWND *popups, size_t n, struct win_gate *gate,
                            struct win_msaa_ctx **out);
/* A context for walking root's menu bar alone, on a thread of its own beside the walk
 * of the window (win_msaa_menubar_apart): the root element is the MenuBar, its
 * children the items, read as a walk of the window would read them. responsive: what
 * the window's walk found of root's thread (win_msaa_root_responsive), not asked
 * again. */
wa_err win_msaa_open_menubar(HWND root, struct win_gate *gate, bool responsive,
                             struct win_msaa_ctx **out);
/* Whether root's thread answers (asked once per walk, within a short timeout): asked
 * before the bar's walk starts calling into that thread, so the question does not wait
 * behind those calls. */
bool win_msaa_root_responsive(struct win_msaa_ctx *c);
/* The walk of the window lists its menu bar without items: they are walked apart. */
void win_msaa_menubar_apart(struct win_msaa_ctx *c);
/* The walk of c goes by p, a capture of its window taken beside it (win_capture.h; p
 * outlives c's walk): it waits for p before it reads anything with a fingerprint. */
struct win_pixels;
void win_msaa_beside(struct win_msaa_ctx *c, struct win_pixels *p);
/* How many elements c's walk took from the last walk instead of reading them. */
size_t win_msaa_taken(const struct win_msaa_ctx *c);
void win_msaa_close(struct win_msaa_ctx *c);

/* wa_tree.release_handle of "msaa" trees; and another reference to a handle, for an
 * action running on another thread. */
void win_msaa_release_handle(void *handle);
void *win_msaa_ref_handle(void *handle);

/* What an element handle stands for, for the window-message path of actions. */
struct win_msaa_target {
    HWND hwnd;                  /* the window; for an item, its list or combo box */
    enum msaa_item_class items; /* MSAA_ITEMS_NONE unless the element is an item */
    int item;                   /* list and combo box items: the index */
    uint64_t item_id;           /* tree view items: HTREEITEM; list view and tab: index */
    bool is_window;             /* a window element (not an item or an MSAA child) */
};
void win_msaa_describe(void *handle, struct win_msaa_target *out);

/* The MSAA path of an action: accDoDefaultAction (invoke, toggle, and expand or
 * collapse when the state says it would change), accSelect (select, focus),
 * put_accValue (set_value). *via names it. WA_E_UNSUPPORTED when the element has no
 * MSAA object that does it, so the caller can try window messages. */
wa_err win_msaa_action(void *handle, enum wa_element_action a, const char *value, const char **via);

/* Items of collection control h (a list view, tree view, list box or combo box inside
 * top-level window root) that q wants, from the control's own data, whether a walk
 * listed them or not: up to max element handles (released with
 * win_msaa_release_handle) into handles, and what each is into infos; *n how many.
 * WA_E_UNSUPPORTED when h is no collection that can be searched. */
wa_err win_msaa_find_items(HWND root, HWND h, const struct wa_item_query *q, struct win_gate *gate,
                           void **handles, struct tree_element_info *infos, size_t max, size_t *n);
/* What the element is now (its bounds and states after it scrolled), read afresh. */
wa_err win_msaa_element_info(void *handle, struct tree_element_info *out);

/* The element's current accValue (UTF-8, heap). WA_E_DENIED for a protected
 * (password) object, WA_E_UNSUPPORTED when it has none. */
wa_err win_msaa_value(void *handle, char **out);
/* The accName of a window's client object (UI Automation's last name fallback), as a
 * UTF-8 heap string; NULL when there is none or the window does not answer. */
char *win_msaa_window_name(HWND h, struct win_gate *gate);

/* The text of a window as a name: the stored caption of top-level windows, WM_GETTEXT
 * (with a timeout, through the gate) for controls, '&' markers removed. NULL when
 * empty, when the window's text is its value (edits, combo and list boxes) or when
 * it does not answer. */
char *win_msaa_text_name(HWND h, struct win_gate *gate);

#endif
