/* The items of list and combo boxes and the long collections of the MSAA tree source. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_ITEMS_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_ITEMS_H

#include "automation/win/msaa/win_msaa_el.h"

struct win_cc *win_msaa_items_cc(struct win_msaa_ctx *c);

/* An item's text: LB_GETTEXT / CB_GETLBTEXT, which Windows and Wine copy across
 * processes only for lists that hold strings (owner-drawn ones hold pointers). */
char *win_msaa_items_text(struct win_gate *g, struct list_facts *f, int i);

/* Starts reading the facts of the list and combo boxes among l's windows on a thread
 * while the walk goes on through the other windows. */
void win_msaa_items_read_lists_ahead(struct win_msaa_ctx *c, struct el_list *l);

/* Waits for the threads reading ahead; stop: tells them to stop first. */
void win_msaa_items_join_ahead(struct win_msaa_ctx *c, bool stop);

/* The facts of list or combo box h: read ahead, or read now. */
struct list_facts *win_msaa_items_facts(struct win_msaa_ctx *c, HWND h, bool combo);

/* An item's place on the screen, from where its list shows its rows (win_msaa_items_facts);
 * offscreen when scrolled out of view, more than half hidden below the last row, or in
 * a drop-down list that is closed. */
void win_msaa_items_place(struct win_msaa_ctx *c, struct list_facts *f, int i,
                          struct tree_element_info *out);

/* The id a collection names an item by: its index, or its HTREEITEM. */
uint64_t win_msaa_items_id(const struct el_desc *d);

struct win_coll *win_msaa_items_coll_found(struct win_msaa_ctx *c, HWND h);

/* A collection control's summary on its node. */
void win_msaa_items_coll_summary(struct win_msaa_ctx *c, struct el_desc *d,
                                 struct tree_element_info *out);

/* The items of a long collection listed under parent (0: its top level); false when
 * the collection does not list its items itself (they are walked as before). */
bool win_msaa_items_add_coll(struct win_msaa_ctx *c, struct el_list *l, HWND h,
                             enum msaa_item_class k, uint64_t parent);

/* A tree item's children: those its collection lists, else its open branch. */
void win_msaa_items_add_tree_children(struct win_msaa_ctx *c, struct el_list *l, struct el_desc *d);

/* Items of a common control: the top level, or a tree item's children. */
void win_msaa_items_add_cc(struct win_msaa_ctx *c, struct el_list *l, HWND h,
                           enum msaa_item_class k, uint64_t parent);

const struct win_coll_listing *win_msaa_items_last_listing(const struct win_msaa_reuse *r, HWND h);

#endif
