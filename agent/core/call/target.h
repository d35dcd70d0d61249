/* Which window a request means, picked in one place, and the gate's word on it.
 *
 * target_window picks the call's window the first time any part of the call asks for
 * it (the look before, the operation, the input it sends): the request's "window"
 * selector, else the session's pinned window (picked by target_pin when it was pinned),
 * else (refs) the window of the last state, else the latest observation's, else the
 * foreground window. A selector is matched against the window list once per call: the
 * gate is asked once of each window the selector matches (what it refuses matches
 * nothing), and later asks in the same call get the window picked, without matching
 * again, while it is there and of the same process.
 *
 * Every other question to the gate about a window of the call goes through
 * target_check (refuse it: the window of a point, of the keyboard, of an element, the
 * window brought to the front) and target_mask (describe it: results, messages), which
 * remember the window the gate last allowed in the call, the one a selector picked
 * included: the call's window is not asked of again however many parts of the call
 * look at it. The gate's policy itself is gate.h; guard.h asks it through these. */
#ifndef WINAGENT_AGENT_CORE_CALL_TARGET_H
#define WINAGENT_AGENT_CORE_CALL_TARGET_H

#include <stdbool.h>

#include "agent/core/call/call.h"

/* The window a call works on: its own "window" argument (a selector: a number is a
 * handle when a top-level window has it, else a title fragment; exact titles or process
 * names before fragments; among equals the highest in Z order; r->windows_matched
 * counts every window that matched, and a note names the one used when several did;
 * none: WA_E_WINDOW_NOT_FOUND, with the message of a window that is not there when the
 * gate refuses every match), else the session's pinned window, else (refs) the window
 * of the last state, else the latest observation's, else the foreground window that is
 * not winagent's console. Fills r->hwnd. */
wa_err target_window(struct call *k, uint64_t *hwnd);
/* Pins the session to the window selector w names (--window), picked as target_window
 * picks one: the pinned window, the frame and the target become it. */
wa_err target_pin(struct session *s, const struct window_ref *w);
/* Whether the call names its window (--window, a pinned window, a ref, the window of the
 * last observation) rather than taking the one in front. */
bool target_named(struct call *k);
/* The frame 0-999 coordinates span: the latest observation's, else the window's. */
wa_err target_frame(struct call *k, struct wa_rect *frame);
/* Forgets the observation when the call names another window than it showed. */
void target_use(struct call *k, uint64_t hwnd, struct wa_rect frame);
/* Copies the window's description into r->window, masked as target_mask masks it. */
void target_report(struct call *k, uint64_t hwnd);
/* The gate's word on w for the call: gate_check_window's refusal (the operation's name
 * in the message), asked only of a window it has not allowed earlier in the call. */
wa_err target_check(struct call *k, const struct wa_window *w);
/* Masks w in place as gate_mask_window does when the gate refuses it (true when it
 * did), asked only of a window it has not allowed earlier in the call. */
bool target_mask(struct call *k, struct wa_window *w);
/* Whether w is target or a window target owns (its dialogs and pop-ups). */
bool target_in_family(struct call *k, uint64_t target, uint64_t w);
/* Whether hwnd is a window (quietly: no error is left behind). */
bool target_alive(struct call *k, uint64_t hwnd);

#endif
