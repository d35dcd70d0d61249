/* The core's function for each operation of the table (ops.h), declared from the table
 * itself: wa_err perform_<name>(struct call *k), defined in the op_*.c files; core.c
 * dispatches to them. Each reads its typed request (k->q) and fills its result
 * (k->r); the gate, rate limit, dry run and audit are core_perform's, around it. */
#ifndef WINAGENT_AGENT_CORE_PERFORM_OPERATIONS_H
#define WINAGENT_AGENT_CORE_PERFORM_OPERATIONS_H

#include "agent/core/call/call.h"

#define X_DECL(id, fn) wa_err perform_##fn(struct call *k);
OP_MAP(X_DECL)
#undef X_DECL

#endif
