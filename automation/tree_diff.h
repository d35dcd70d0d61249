/* What changed between two walks of the same window: elements are matched by one
 * identity key (the UI Automation runtime id where there is one, else an item's index
 * in its long collection, else the window handle with the MSAA child id, else type,
 * AutomationId, name and position among its siblings under a matched parent). Portable, so it is
 * unit-tested natively. */
#ifndef WINAGENT_AUTOMATION_TREE_DIFF_H
#define WINAGENT_AUTOMATION_TREE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "automation/tree.h"
#include "base/dynbuf.h"

struct tree_diff {
    size_t n_new;      /* elements of after with no match in before (marked is_new) */
    size_t n_vanished; /* elements of before with no match in after */
    size_t n_changed;  /* matched elements whose name, value or states changed */
    bool focus_moved;
    /* One line per change, for people and the model ("value: [3] Edit \"Name:\"
     * \"\" -> \"hi\""), at most max_lines of them and then a count of the rest. */
    struct dynbuf lines;
    /* The menus open before and still open after, one line each ("menu open: \"File\"
     * ([2] Menu, 9 items, at [4] MenuItem \"Open...\")"): not changes, but what a step
     * of keyboard menu work leaves open. */
    struct dynbuf still_open;
};

void tree_diff_init(struct tree_diff *d);
void tree_diff_cleanup(struct tree_diff *d);

/* Compares after with before (both walks of one window), sets is_new on the nodes of
 * after that are new, and describes the rest in d. */
wa_err tree_diff(const struct wa_tree *before, struct wa_tree *after, size_t max_lines,
                 struct tree_diff *d);

/* True when nothing differs. */
static inline bool tree_diff_empty(const struct tree_diff *d)
{
    return !d->n_new && !d->n_vanished && !d->n_changed && !d->focus_moved;
}

/* Marks every node of t new (a window that appeared with the action). */
void tree_mark_all_new(struct wa_tree *t);

#endif
