/* Which window a request means: selectors (titles, processes, handles by number), the
 * call's window and the frame its 0-999 coordinates span. */
#ifndef WINAGENT_AGENT_CORE_CALL_TARGET_H
#define WINAGENT_AGENT_CORE_CALL_TARGET_H

#include <stdbool.h>

#include "agent/core/call/call.h"

/* Picks the window a selector names: a number is a handle when a top-level window
 * has it, else a title fragment; exact titles (or process names) before fragments;
 * among equals the highest in Z order. *matched counts every window that matched.
 * Windows the gate refuses do not exist for it: WA_E_WINDOW_NOT_FOUND, with the message
 * of a window that is not there, when no other matches. */
wa_err target_select(const struct wa_backend *be, const struct gate *g, const struct window_ref *w,
                     struct wa_window *out, int *matched);
/* The window a call works on: its own "window" argument, else the session's pinned
 * window, else (refs) the window of the last state, else the latest observation's,
 * else the foreground window that is not winagent's console. Fills r->hwnd. */
wa_err target_window(struct call *k, uint64_t *hwnd);
/* Whether the call names its window (--window, a pinned window, a ref, the window of the
 * last observation) rather than taking the one in front. */
bool target_named(struct call *k);
/* The frame 0-999 coordinates span: the latest observation's, else the window's. */
wa_err target_frame(struct call *k, struct wa_rect *frame);
/* Forgets the observation when the call names another window than it showed. */
void target_use(struct call *k, uint64_t hwnd, struct wa_rect frame);
/* Copies the window's description into r->window. */
void target_report(struct call *k, uint64_t hwnd);
/* Whether w is target or a window target owns (its dialogs and pop-ups). */
bool target_in_family(struct call *k, uint64_t target, uint64_t w);
/* Whether hwnd is a window (quietly: no error is left behind). */
bool target_alive(struct call *k, uint64_t hwnd);

#endif
