/* What the platform says of changes to windows: WinEvents heard out of context on a
 * thread of our own, so that a walk can take the parts of the last one that nothing
 * was said of (and that cheap checks find the same). Wine 8 says almost nothing (see
 * docs/observation.md): there the cheap checks carry it. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_EVENTS_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_EVENTS_H

#include <windows.h>
#include <stdbool.h>
#include <stdint.h>

/* Starts hearing, once (later calls do nothing); false when the platform hears nothing
 * (no hook could be set). */
bool win_events_listen(void);
/* A stamp of now: what is heard after it is newer. */
uint64_t win_events_now(void);
/* Whether a change to window h (its object or the elements inside it: a name, value,
 * state, place, children) was heard since stamp, or events were lost since (too many
 * windows to tell apart). True when nothing is heard at all: no word is no proof. */
bool win_events_since(HWND h, uint64_t stamp);

#endif
