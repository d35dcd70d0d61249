/* What target.c keeps for one call: whether the request names its window, and the note
 * of a selector that matched several (target.h). call.h embeds it as call.target. */
#ifndef WINAGENT_AGENT_CORE_TARGET_STATE_H
#define WINAGENT_AGENT_CORE_TARGET_STATE_H

#include <stdbool.h>

struct target_state {
    bool names_window; /* the request names its window (target_named, asked before
                        * the look before made one the session's) */
    int noted_match;   /* the note that a selector matched several windows is made */
};

#endif
