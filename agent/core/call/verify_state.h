/* What verify.c learns of one call's effect: whether and how it settled, and the
 * programs it started (verify.h). call.h embeds it as call.verify. */
#ifndef WINAGENT_AGENT_CORE_CALL_VERIFY_STATE_H
#define WINAGENT_AGENT_CORE_CALL_VERIFY_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "automation/backend.h"

struct verify_state {
    bool settled;       /* the operation waited for its own effect (text read back) */
    bool unchanged;     /* the settle saw no change at all (pixels, foreground) */
    bool silent;        /* the settle got no answer from the window's thread (busy, hung,
                         * or gone): what became of its program is asked (verify.h) */
    bool may_open_menu; /* the input can open a menu: the settle waits longer for one */
    /* The programs the call's program started while it acted (verify_started). */
    struct wa_started started[4];
    size_t n_started;
};

#endif
