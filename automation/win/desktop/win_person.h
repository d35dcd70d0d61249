/* The person at the desk on Windows: the backend's watch_person and person_idle slots,
 * and what the rest of the backend tells it of winagent's own input. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_PERSON_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_PERSON_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"

/* The backend's slots (backend.h gives their contract). */
wa_err win_person_watch(void (*on_stop)(void *ctx), void *ctx);
wa_err win_person_idle(int64_t *idle_ms, bool *keyboard);

/* winagent sent input just now (after every SendInput). */
void win_person_injected(void);
/* winagent moves the pointer from (fx, fy) to (tx, ty) (before SetCursorPos): Wine
 * reports such a move back as if it were the person's, at either point. */
void win_person_pointer_moved(int fx, int fy, int tx, int ty);

#endif
