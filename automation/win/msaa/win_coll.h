/* Long collections of the HWND tree (list views, tree views, list boxes, combo boxes'
 * lists): a walk lists what is in view, with a few items around it and the selected
 * and focused ones, and counts the rest; a search reaches any item; acting on one
 * scrolls it into view first. Everything is read with the controls' own messages
 * through a reader per kind (win_msaa_cc.h struct win_cc_reader), a few round trips for
 * all the items listed, never a walk of every item. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_COLL_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_COLL_H

#include <windows.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/backend.h"
#include "automation/msaa_roles.h"
#include "automation/tree.h"
#include "automation/win/msaa/win_msaa_cc.h"

#define WIN_COLL_SHORT      100 /* a collection of at most this many items is listed whole, */
#define WIN_COLL_PAGES      3   /* unless it holds more than this many views' worth */
#define WIN_COLL_MARGIN     2   /* items listed beyond those in view, above and below */
#define WIN_COLL_LISTED_MAX 256 /* items listed of one collection, at most */

/* The reader of collection kind k, or NULL when k is no such kind. List boxes and combo
 * boxes read their items their own way (win_msaa.c): their reader has no `read`. */
const struct win_cc_reader *win_coll_reader(enum msaa_item_class k);

/* One collection control as one walk lists it. */
struct win_coll;
struct columns; /* win_cc_buf.h */

/* What the last walk listed of a collection: its items (with the items holding them),
 * and what each was where its row looks the same now (tree_pix.h). */
struct win_coll_listing {
    HWND h;
    int count;      /* the items it held */
    int top;        /* lists: the first item that showed (-1: none) */
    uint64_t first; /* tree views: the first row that showed (0: none) */
    struct win_cc_item *items;
    struct tree_element_info **same; /* per item, or NULL where it must be read again */
    size_t n;
    /* a list view's columns, where its header looks as it did; or NULL (read again) */
    struct columns *cols;
    /* its rows were read with columns that now are not kept: none of them is taken (a
     * row's value names its columns, which its pixels do not show) */
    bool cols_gone;
};

/* Asks control h of kind k what it holds and which items to list, and reads those
 * items where its reader reads them together; with `last` (what the last walk listed of
 * it, or NULL), while the view is where it was, an item whose row looks the same is
 * taken from it instead of read again. A tree view takes the rows `last` listed where
 * they still fill the view as it shows now (the first row in view at the top, row after
 * row without a gap, the caret among them), and only otherwise asks for its rows one by
 * one again. NULL when h is no collection, its reader is missing, or it does not
 * answer. */
struct win_coll *win_coll_open(struct win_cc *cc, HWND h, enum msaa_item_class k,
                               const struct win_coll_listing *last);
void win_coll_free(struct win_coll *c);
HWND win_coll_hwnd(const struct win_coll *c);
/* The summary its node carries (tree.h struct wa_collection). */
void win_coll_summary(const struct win_coll *c, struct wa_collection *out);
/* Whether its items are listed from what it chose: a long collection, or any list view.
 * Otherwise (a short list box, combo box or tree) the walk lists them as it always did:
 * every item, or a tree's open branches. */
bool win_coll_lists(const struct win_coll *c);
/* The listed items held by parent (0: the top level), in display order, at most max;
 * their count. */
size_t win_coll_children(const struct win_coll *c, uint64_t parent, uint64_t *out, size_t max);
/* How many of its listed items were taken from `last` instead of read. */
size_t win_coll_taken(const struct win_coll *c);
/* A copy of what was read of item id (the caller cleans it up); false when it was not
 * read here (the source reads it itself). */
bool win_coll_info(const struct win_coll *c, uint64_t id, struct tree_element_info *out);

#endif
