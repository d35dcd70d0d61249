/* Elements a request names: ids of the latest tree, refs of `state` found again by
 * identity, and selectors. */
#ifndef WINAGENT_AGENT_CORE_CALL_ELEMENTS_H
#define WINAGENT_AGENT_CORE_CALL_ELEMENTS_H

#include <stdbool.h>

#include "agent/core/call/call.h"

/* Resolves an element of the call's window to an index into k->s->tree (walking a
 * fresh tree where needed: refs, selectors, no tree yet). stale_ref when a ref's
 * element is gone or can no longer be told apart; ambiguous for a selector matching
 * several. Fills r->element with the element as it is before acting. */
wa_err element_resolve(struct call *k, enum op_arg a, size_t *index);
/* Whether node n matches a selector: #AutomationId, .ClassName, ~wild*card name,
 * Type:Name (Type:* any name) or an exact name. */
bool selector_matches(const struct wa_node *n, const char *sel);
/* What of a long collection's items a selector can name, as a search of the items
 * beyond what was listed: ~pattern, Type:Name and exact names name items; false for
 * #AutomationId and .ClassName (items of the HWND tree have neither). */
bool selector_item_query(const char *sel, struct wa_item_query *q);

#endif
