/* `winagent mcp`: the desktop core as a Model Context Protocol server, newline-delimited
 * JSON-RPC 2.0 over stdin/stdout (protocol messages only on stdout, logs on stderr). */
#ifndef WINAGENT_AGENT_FRONT_MCP_H
#define WINAGENT_AGENT_FRONT_MCP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "base/dynbuf.h"

/* `winagent mcp [--allow-shell] [--dry-run] [--audit-log FILE]`; 0 when stdin ends. */
int cmd_mcp(int argc, char **argv);

/* The transport-free server: one per connection (a session of its own) on a core. */
struct mcp_server;

wa_err mcp_server_new(struct core *c, struct mcp_server **out);
void mcp_server_free(struct mcp_server *s);

/* Handles one line from the client (a message or a batch) and appends the reply, one
 * JSON text without the newline, to out; nothing for notifications and responses.
 * Requests are served in order, one at a time. Fails only when out of memory or when
 * the reply exceeds out's cap. */
wa_err mcp_handle_line(struct mcp_server *s, const char *line, size_t len, struct dynbuf *out);

/* The result of tools/list: {"tools":[{name, title, description, inputSchema,
 * annotations}]} (a new object), generated from the operation table. */
cJSON *mcp_tools_list(const struct core *c);

#endif
