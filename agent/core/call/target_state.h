/* What target.c keeps for one call: the window the request's selector picked, the
 * window the gate last allowed, and whether the request names its window (target.h).
 * call.h embeds it as call.target. */
#ifndef WINAGENT_AGENT_CORE_CALL_TARGET_STATE_H
#define WINAGENT_AGENT_CORE_CALL_TARGET_STATE_H

#include <stdbool.h>
#include <stdint.h>

struct target_state {
    bool names_window; /* the request names its window (target_named, asked before
                        * the look before made one the session's) */
    int noted_match;   /* the note that a selector matched several windows is made */
    /* The window the request's "window" selector picked (0: none yet), its process, and
     * how many windows matched: the selector is matched once per call. */
    uint64_t picked;
    unsigned long picked_pid;
    int matched;
    /* The window the gate last allowed in this call, and its process: asked no more. */
    uint64_t allowed;
    unsigned long allowed_pid;
};

#endif
