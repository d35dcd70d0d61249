/* What guard.c remembers within one call: its last judgement of a receiver as a route
 * to a shell (guard.h). call.h embeds it as call.guard. */
#ifndef WINAGENT_AGENT_CORE_CALL_GUARD_STATE_H
#define WINAGENT_AGENT_CORE_CALL_GUARD_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/core/gate/gate.h"

/* The last receiver judged as a route to a shell (the shell off), and the verdict:
 * typing checks its receiver every few characters, and reading its program's file
 * each time would cost more than the typing. */
struct guard_state {
    uint64_t route_window, route_control;
    const char *route; /* NULL: none */
    bool route_judged;
    enum gate_input route_input;
};

#endif
