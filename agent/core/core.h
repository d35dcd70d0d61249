/* The desktop core: one function performs every operation for every front end (the
 * loop's tool calls, `act`, replay, the CLI, MCP, serve). The security gate, the rate
 * limit, dry run, the audit log and the serialisation of input live inside it, so no
 * front end can go around them.
 *
 * A core is one per process (the backend, the gate, the shell permission); a session
 * is one per client: it holds what the client last observed (the frame its 0-999
 * coordinates span, the tree its element ids index). */
#ifndef WINAGENT_AGENT_CORE_CORE_H
#define WINAGENT_AGENT_CORE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/core/config/core_config.h"
#include "agent/core/request/request.h"

struct core;

wa_err core_new(const struct core_config *c, struct core **out);
void core_free(struct core *c);
bool core_dry_run(const struct core *c);
/* The folder of this user's state between processes (WINAGENT_STATE_DIR, else one in
 * the user's temporary folder): refs of `state`, the ipc token's file. */
const char *core_state_dir(const struct core *c);
/* Starts watching the person at the desk now (servers: their takeover and the stop gesture
 * count from the start); otherwise it starts with the first acting operation. */
void core_watch_person(struct core *c);
enum shell_permission core_shell(const struct core *c);

struct session;

wa_err session_new(struct core *c, const struct session_opts *o, struct session **out);
void session_free(struct session *s);
/* --window: every call of the session targets this window. */
wa_err session_pin_window(struct session *s, const struct window_ref *w);
struct core *session_core(const struct session *s);
/* The tree of the latest observation (element ids index it), or NULL. */
const struct wa_tree *session_tree(const struct session *s);

/* Performs one request. The result is always filled: r->err is the return value, and
 * r->message its detail. Thread-safe across sessions; calls on one session are
 * serialised. Acting operations pass the rate limit, are serialised with every other
 * input on the desktop (in this process and others), and are audited. */
wa_err core_perform(struct session *s, const struct op_request *q, struct op_result *r);

#endif
