/* The tree view reader of long collections (win_coll.h puts it to use). */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_TREE_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_TREE_H

#include "automation/win/msaa/win_msaa_cc.h"

extern const struct win_cc_reader win_cc_tree_view_reader;

/* What every item of a collection carries to be found again: coll_item, its index
 * (lists), and a tree item's runtime id ("tv:<tree>:<item>", its HTREEITEM: the same
 * item while it lives). */
void win_cc_item_identity(HWND h, enum msaa_item_class k, uint64_t id,
                          struct tree_element_info *out);
/* A collection's item as its reader starts it: a ListItem (its MSAA child id the index
 * plus one) or a TreeItem, selectable, with its identity; the reader fills in the rest. */
void win_cc_item_new(HWND h, enum msaa_item_class k, uint64_t id, struct tree_element_info *out);
/* The tree item of tree view h a runtime id of win_cc_item_identity names, or 0. */
uint64_t win_cc_tree_item(HWND h, const char *runtime_id);

#endif
