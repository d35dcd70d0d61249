/* The gate at the level of one call: whether the call may look at a window, and which
 * window receives its input at the moment of sending (refused when restricted, outside
 * the allow-list or unidentifiable; with the shell off, when it is a route to a shell;
 * in a replay, when it is not the window the recording names). */
#ifndef WINAGENT_AGENT_CORE_CALL_GUARD_H
#define WINAGENT_AGENT_CORE_CALL_GUARD_H

#include "agent/core/call/call.h"

/* For observations: a restricted or unidentifiable window is refused. */
wa_err guard_observe(struct call *k, uint64_t hwnd);
/* The window hwnd will receive the call's input (or be changed by it): refused when
 * the gate says so, else recorded as the receiver (for the result and the audit).
 * where says where it was found, for the message when there is none ("at (3,4)"). */
wa_err guard_receiver(struct call *k, uint64_t hwnd, const char *where);
/* The same for the top-level window under a screen pixel. */
wa_err guard_receiver_at(struct call *k, int px, int py);
/* An element of the session's tree acted on or read: the window of its own, else the
 * nearest window above it (a control of another process can sit inside a window), is
 * checked too; with the shell off, an element of an address bar is refused. */
wa_err guard_element(struct call *k, size_t index);
/* The same for the foreground window (keys and text), with the control that has its
 * keyboard focus. */
wa_err guard_receiver_keyboard(struct call *k);
/* A paste: refused while the clipboard holds what a program the gate refuses put there
 * (with an allow-list, a program it cannot tell too). */
wa_err guard_paste(struct call *k);

#endif
