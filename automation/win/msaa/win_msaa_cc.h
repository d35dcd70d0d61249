/* Items of the common controls (tree view, list view, tab control, toolbar) for the
 * HWND tree:
 * read and changed with the controls' own messages through a buffer allocated in the
 * target process, as Windows' MSAA proxies do, since nobody copies these messages'
 * pointers across processes. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_CC_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_CC_H

#include <windows.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/backend.h"
#include "automation/msaa_roles.h"
#include "automation/tree.h"
#include "automation/win/desktop/win_tree_job.h"

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

/* ---- long collections: the readers (win_coll.h puts them to use) ---- */

/* What a collection control says of its items now. Items are named by ids: list
 * indexes, or a tree view's HTREEITEM values. */
struct win_cc_view {
    int count;      /* items it holds */
    int top;        /* indexed items: the first in view (-1: not indexed) */
    int per_page;   /* items that fit in view */
    uint64_t first; /* tree views: the first item in view (0: none) */
    uint64_t last;  /* tree views: the last item a scroll to the end shows (0: none) */
    bool rows;      /* list views: rows one under the other, one height apart (report) */
    bool has_caret; /* the item with the keyboard focus (caret) is known */
    uint64_t caret;
    bool has_selected; /* a selected item (the first) is known */
    uint64_t selected;
};

/* An item to list: its id, and the id of the item holding it (tree views; 0 for the
 * top level and for lists). */
struct win_cc_item {
    uint64_t id, parent;
};

/* Which items a search of a collection wants (backend.h's query, as the reader takes
 * it). */
struct wa_item_query;

/* A reader of one kind of collection control, through cc (its gate and buffers in the
 * target process). NULL slots: the kind cannot do that. */
struct win_cc_reader {
    enum msaa_item_class kind;
    /* The view now; false when the control did not answer. */
    bool (*view)(struct win_cc *cc, HWND h, struct win_cc_view *out);
    /* The items to list, in display order, at most max: every item of a collection of
     * at most `all` items; else those in view with `margin` more above and below, the
     * caret, and (tree views) the items holding any of them. */
    size_t (*listed)(struct win_cc *cc, HWND h, const struct win_cc_view *v, int all, int margin,
                     struct win_cc_item *out, size_t max);
    /* What n items are, read together (a few round trips for all of them, not a few
     * each): infos[i] for items[i], with coll_item and item_index set; v: the view as
     * view() just said it, or NULL. NULL: the source reads each item its own way. */
    void (*read)(struct win_cc *cc, HWND h, const struct win_cc_view *v,
                 const struct win_cc_item *items, size_t n, struct tree_element_info *infos);
    /* Items q names, from the control's own data (every item, listed or not), in
     * display order, at most max; their count. */
    size_t (*find)(struct win_cc *cc, HWND h, const struct wa_item_query *q, uint64_t *out,
                   size_t max);
    /* Scrolls item id into view (tree views open the items holding it). */
    wa_err (*show)(struct win_cc *cc, HWND h, uint64_t id);
};

#endif
