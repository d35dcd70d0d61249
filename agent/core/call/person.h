/* The person at the desk, at the moment of acting: whether they are using the mouse or
 * keyboard (the backend tells their input from injected input), the wait until they
 * have been idle (a run), the watch that lets the stop gesture end the process's runs,
 * and no more input once the person stopped winagent (docs/contract.md §3, "The person
 * at the desk"). */
#ifndef WINAGENT_AGENT_CORE_CALL_PERSON_H
#define WINAGENT_AGENT_CORE_CALL_PERSON_H

#include <stdbool.h>

#include "agent/core/call/call.h"

/* Starts the backend's watch of the person once per process: their own input, and the
 * stop gesture, which interrupts the process (OS_INTERRUPT_STOP_GESTURE). A backend that
 * cannot watch leaves takeover and the gesture off, said once on stderr. */
void person_watch(struct core *c);

/* At the moment of acting (before the look and again before every input is sent):
 * WA_E_INTERRUPTED once the person stopped winagent, for every acting call; then, for a
 * call whose input is the person's business (foreground input, window changes, launches;
 * not a dry run, not background delivery; takeover on), WA_E_USER_ACTIVE while the person
 * has used the mouse or keyboard within the idle time, naming which and when. With
 * --takeover stop, in a session that is a run (session_opts.wait_for_person), their
 * input ends the run: the process is interrupted (OS_INTERRUPT_TAKEN_OVER). */
wa_err person_check(struct call *k);

/* Waits until the person has been idle for the idle time, or the process is
 * interrupted, telling the session's paused callback when it begins and ends; the
 * result's paused_ms is how long it took. */
void person_wait(struct call *k);

#endif
