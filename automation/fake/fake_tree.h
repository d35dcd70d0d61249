/* The fake desktop's accessibility tree and element actions. */
#ifndef WINAGENT_FAKE_TREE_H
#define WINAGENT_FAKE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/backend.h"

/* The wa_backend slots of the tree and element actions (automation/backend.h gives
 * their contract). */
wa_err fake_tree_get_tree(uint64_t hwnd, const struct wa_tree_opts *o, struct wa_tree *out);

wa_err fake_tree_element_action(struct wa_tree *t, size_t index, enum wa_element_action a,
                                const char *value, const char **via);

/* Rows of a collection node that q wants, by their generated names: added to t. */
wa_err fake_tree_find_items(struct wa_tree *t, size_t index, const struct wa_item_query *q,
                            size_t max, size_t *added);

/* A node's states as the scene says them now; its "check_box" rectangle's centre. */
wa_err fake_tree_element_states(struct wa_tree *t, size_t index, unsigned *states);
wa_err fake_tree_check_box_point(struct wa_tree *t, size_t index, int *x, int *y);

wa_err fake_tree_element_value(struct wa_tree *t, size_t index, char **value);

wa_err fake_tree_focused_value(uint64_t top, uint64_t *hwnd, char **value);

#endif
