/* The person at the fake desk: a scripted person who uses the mouse or keyboard, and
 * makes the stop gesture, once winagent has sent so many inputs or so long after the
 * scene was loaded (fake_backend.h: "person", "stop_gesture"). */
#ifndef WINAGENT_FAKE_PERSON_H
#define WINAGENT_FAKE_PERSON_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"

/* The wa_backend slots watch_person and person_idle (backend.h gives their contract). */
wa_err fake_person_watch(void (*on_stop)(void *ctx), void *ctx);
wa_err fake_person_idle(int64_t *idle_ms, bool *keyboard);

#endif
