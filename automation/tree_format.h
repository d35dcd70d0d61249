/* The tree as the model reads it, and whether it is worth reading (tree_format.c). */
#ifndef WINAGENT_AUTOMATION_TREE_FORMAT_H
#define WINAGENT_AUTOMATION_TREE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "automation/tree.h"
#include "base/dynbuf.h"
#include "base/wa_err.h"

struct tree_format_opts {
    bool verbose; /* add bounds=[l,t][r,b] in pixels */
    /* Optional filters for the CLI's `state` (all off for the model's view). */
    bool interactive_only;
    bool compact;  /* drop unnamed, valueless, childless structural nodes */
    int max_depth; /* -1: no limit */
    int scope;     /* node index to print below (and including); -1: the whole tree */
};

/* Appends the docs/contract.md §5 text: the header line, then one line per node with 1-based ids
 * in depth-first order, and the truncation warning. Element centres are in 0-999 of
 * t->frame. When filters hide nodes, ids still count every node, so an id always
 * names the same node of the tree. */
wa_err tree_format(const struct wa_tree *t, const struct tree_format_opts *opts,
                   struct dynbuf *out);

/* Whether tree_format with opts o prints node i. */
bool tree_format_shows(const struct wa_tree *t, const struct tree_format_opts *o, size_t i);

/* A collection's words on its line: " 3000 items, 2970-2999 shown" (indexes of the
 * items in view), " 2000 items, 31 shown" (how many show, where items have no index),
 * " 0 items". */
wa_err tree_collection_words(const struct wa_collection *c, struct dynbuf *out);

/* Quotes a name, value or title as §5 wants: "..." with \" \\ \n escapes. Past 80
 * characters it is cut with an ellipsis and its whole length follows:
 * "first 80 characters…" (2345 chars). What the model reads stays small. */
wa_err tree_quote(const char *s, struct dynbuf *out);

/* The usefulness rules of §5: an open menu whose items cannot be read makes the tree
 * not useful ("an open menu's items cannot be read"); >= 3 elements; if >= 3
 * interactive elements then at least one of them named; at least one element named.
 * reason gets e.g.
 * "28 interactive elements but none has Name" or "37 elements (28 interactive) with
 * names". */
bool tree_is_useful(const struct wa_tree *t, char *reason, size_t reason_size);

/* Button, MenuItem, CheckBox, RadioButton, TabItem, ListItem, TreeItem, ComboBox. */
bool tree_type_is_interactive(const char *type);

/* The node a 1-based id names, or NULL. */
const struct wa_node *tree_node_by_id(const struct wa_tree *t, int id);

#endif
