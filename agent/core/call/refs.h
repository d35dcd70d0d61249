/* Refs of `state` kept between calls and processes: the elements of a window's last
 * state saved in the state folder, found again in a fresh tree by their identity. */
#ifndef WINAGENT_AGENT_CORE_CALL_REFS_H
#define WINAGENT_AGENT_CORE_CALL_REFS_H

#include "agent/core/call/call.h"

/* Saves the session's tree as the refs of its window (and as the last state). */
wa_err refs_save(struct call *k);
/* The window of the last state in the state folder, or 0. */
uint64_t refs_last_window(struct call *k);
/* Finds ref of hwnd's last state in the session's tree: walk(k, hwnd) is called first
 * to have a fresh tree of hwnd (unless one was walked during this call). By runtime
 * id, else by path with the same type and name, else by type, name and automation id
 * (the nearest when several, if clearly nearest). WA_E_STALE_REF when the state or
 * the ref is not there, or the element is gone or ambiguous. */
wa_err refs_find(struct call *k, uint64_t hwnd, int ref, wa_err (*walk)(struct call *, uint64_t),
                 size_t *index);

#endif
