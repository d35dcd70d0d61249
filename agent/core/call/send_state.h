/* What send.c keeps for one call: how its input is delivered and by which route it is
 * about to go (send.h). call.h embeds it as call.send. */
#ifndef WINAGENT_AGENT_CORE_CALL_SEND_STATE_H
#define WINAGENT_AGENT_CORE_CALL_SEND_STATE_H

#include <stdbool.h>
#include <stdint.h>

struct send_state {
    /* Background delivery (background, or auto's first try): nothing is focused, the
     * cursor stays, no SendInput; input goes by patterns and posted messages to the
     * call's window only (send.h). */
    bool background;
    uint64_t text_control; /* background typing: the element's own window (0: the window's
                            * focused control) */
    /* The keys about to be sent may take the focus out of its control (send.c). */
    bool keys_away;
    bool via_pattern;    /* the input about to be sent is an accessibility pattern call,
                          * which reaches elevated windows where SendInput does not */
    bool pattern_action; /* it acted through an accessibility pattern, which can change
                          * an element's state where no pixel shows it */
};

#endif
