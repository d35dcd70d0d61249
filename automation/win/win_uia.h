/* The UI Automation tree source (a cached subtree walk) and UIA pattern actions. */
#ifndef WINAGENT_WIN_UIA_H
#define WINAGENT_WIN_UIA_H

#include <windows.h>

#include "automation/backend.h"
#include "automation/tree.h"
#include "automation/win/desktop/win_tree_job.h"

/* Ops over a struct win_uia_ctx. The root is ElementFromHandleBuildCache with one
 * cache request for the whole subtree (every property the tree needs, so the walk
 * costs one cross-process call) within half the budget; when UIA refuses or times out
 * on that, one Element+Children request per parent within what is left of it.
 * Children come from GetCachedChildren; one that cannot be had is skipped. */
extern const struct tree_source_ops win_uia_source;

struct win_uia_ctx;

/* A context for walking root's tree within budget_ms, from a thread in the MTA; gate
 * may be NULL. WA_E_UNSUPPORTED when UI Automation is not there (Wine 8: the
 * CUIAutomation class is not registered), remembered for the process. */
wa_err win_uia_open(HWND root, struct win_gate *gate, int budget_ms, struct win_uia_ctx **out);
void win_uia_close(struct win_uia_ctx *c);

/* wa_tree.release_handle of "uia" trees; another reference, for an action thread. */
void win_uia_release_handle(void *handle);
void *win_uia_ref_handle(void *handle);

/* The element's native window handle, from the cache (NULL for virtual elements). */
HWND win_uia_hwnd(void *handle);

/* The UIA path of an action: Invoke, Toggle, ExpandCollapse, SelectionItem.Select,
 * Value.SetValue, SetFocus, then LegacyIAccessible (DoDefaultAction, Select,
 * SetValue) where the first pattern is missing. *via names what was used.
 * WA_E_UNSUPPORTED when the element has none of them. */
wa_err win_uia_action(void *handle, enum wa_element_action a, const char *value, const char **via);
/* The element's current Value (UTF-8, heap). WA_E_DENIED for a password field,
 * WA_E_UNSUPPORTED when it has no Value pattern. */
wa_err win_uia_value(void *handle, char **out);
/* The element's states now (enum wa_state bits), its properties asked again
 * (BuildUpdatedCache) rather than taken from the walk's cache. */
wa_err win_uia_states(void *handle, unsigned *states);

#endif
