/* Act, then know: how the core waits for the input to arrive (text read back; otherwise
 * captures that stop changing), what became of the target, and what it reports as
 * changed against the look before (look.h). */
#ifndef WINAGENT_AGENT_CORE_CALL_VERIFY_H
#define WINAGENT_AGENT_CORE_CALL_VERIFY_H

#include <stdbool.h>

#include "agent/core/call/call.h"

/* Waits until the action's effect is seen: the window's thread handled the input and
 * a capture after the change shows none more (where the backend cannot tell: captures
 * that stop changing for a while), or captures that never change for SETTLE_QUIET_MS;
 * within SETTLE_MAX_MS. */
void verify_settle(struct call *k);
/* What became of the call's program after its input: WA_E_TARGET_GONE when the process
 * ended with an exception's exit code (it crashed), WA_E_TARGET_HUNG when its window has
 * answered nothing for 5 s since the input (12 s while a debugger holds it: Wine's
 * crash debugger ends a crashed program in that time); WA_E_OK when it answers, exited
 * normally, or only closed the window. Waits while none of these is known, within
 * those limits. */
wa_err verify_target_fate(struct call *k);
/* The value read back before typing (NULL when it cannot be read): index is the
 * element's, or NULL for the control with the keyboard focus. */
char *verify_read_before(struct call *k, const size_t *index);
/* Reads the value back until it holds text (whole: equals it; else one more
 * occurrence of it than before), or it has not changed for VERIFY_MAX_MS (a program
 * still taking long text is waited for, up to a minute): r->verified, or
 * WA_E_NOT_VERIFIED with what was read. A control that exposes no value is noted,
 * not an error. */
wa_err verify_text(struct call *k, const size_t *index, const char *before, const char *text,
                   bool whole);
/* With an allow-list, waits (within STARTED_WAIT_MS in all) for the programs the call's
 * program started since the look before to show their first windows, so that the change
 * report names them: a help viewer F1 started, a program a menu ran. */
void verify_started(struct call *k);
/* What an action on an element must leave in its states to have happened. */
enum verify_want {
    VERIFY_CHECK_CHANGED, /* toggle: its check box shows another state than before */
    VERIFY_SELECTED,      /* select: selected (a radio button: checked) */
    VERIFY_EXPANDED,      /* expand */
    VERIFY_COLLAPSED,     /* collapse */
};
/* Reads node index's states back from the application (backend_element_states) until
 * they show what `want` asks, against `before` (its states when it was found), or
 * VERIFY_MAX_MS pass: r->verified with the state words read in r->read_back, or
 * WA_E_NOT_VERIFIED saying what was read. An element that shows no such state (no
 * check box, not selectable or expandable by what its source says), or whose states
 * cannot be read again, is noted, not an error. */
wa_err verify_states(struct call *k, size_t index, unsigned before, enum verify_want want);
/* Reads window hwnd's state back after set_window_state until it is `want`, or
 * VERIFY_MAX_MS pass: WA_E_NOT_VERIFIED saying which state it stayed in. */
wa_err verify_window_state(struct call *k, uint64_t hwnd, enum wa_window_state want);
/* r->changes from the look before and the session's tree and windows now. A window of a
 * program outside the allow-list that opened or came to the front is named (its
 * program, never its title) and becomes the session's intruder (call.h). */
void verify_report_changes(struct call *k);

#endif
