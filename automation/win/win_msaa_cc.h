/* Items of the common controls (tree view, list view, tab control, toolbar) for the
 * HWND tree:
 * read and changed with the controls' own messages through a buffer allocated in the
 * target process, as Windows' MSAA proxies do, since nobody copies these messages'
 * pointers across processes. */
#ifndef WINAGENT_WIN_MSAA_CC_H
#define WINAGENT_WIN_MSAA_CC_H

#include <windows.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/backend.h"
#include "automation/msaa_roles.h"
#include "automation/tree.h"
#include "automation/win/win_tree_job.h"

/* Per walk: a buffer in each target process, freed by win_cc_free (or left behind
 * when a message using it timed out: the target may still write to it). Every
 * message goes through the gate. */
struct win_cc;
struct win_cc *win_cc_new(struct win_gate *gate);
void win_cc_free(struct win_cc *cc);

/* Up to max items under `parent` of control h (k: TREEVIEW, LISTVIEW, TAB or
 * TOOLBAR): tree items (HTREEITEM values; parent 0 for the top level, and children
 * only of expanded items), or list view, tab and toolbar button indexes (parent
 * ignored; no separators or hidden buttons). The count. */
size_t win_cc_items(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t parent,
                    uint64_t *out, size_t max);

/* One item: TreeItem / ListItem / TabItem / Button (toolbar buttons, named by their
 * text or tooltip) with its text as name, bounds (screen
 * pixels; offscreen when scrolled out of view), selected, expanded or collapsed
 * (tree items with children) and the patterns the actions below support. */
wa_err win_cc_item_info(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item,
                        struct tree_element_info *out);

/* select (TVM_SELECTITEM, LVM_SETITEMSTATE, TCM_SETCURFOCUS: the control notifies
 * its parent itself), expand and collapse (TVM_EXPAND). WA_E_UNSUPPORTED otherwise,
 * toolbar buttons included: a click on them is what their owners expect. *via names
 * the message. */
wa_err win_cc_action(HWND h, enum msaa_item_class k, uint64_t item, enum wa_element_action a,
                     const char **via);

#endif
