/* The desktop core as a Model Context Protocol server, free of any transport: messages
 * in, replies and notifications out. Its transports sit above it: stdio (mcp_stdio.h)
 * and Streamable HTTP (mcp_http.h). */
#ifndef WINAGENT_AGENT_MCP_MCP_H
#define WINAGENT_AGENT_MCP_MCP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/mcp/mcp_sink.h"
#include "base/dynbuf.h"

/* The transport-free server: one per connection (a session of its own) on a core. */
struct mcp_server;

wa_err mcp_server_new(struct core *c, struct mcp_server **out);
void mcp_server_free(struct mcp_server *s);

/* Handles one message from the client (a message or a batch) and appends the reply, one
 * JSON text without a newline, to out; nothing for notifications and responses. Messages
 * the server sends while handling it go to sink (NULL: to the server's own sink, see
 * mcp_server_set_sink). Requests of one server are served one at a time, except
 * `notifications/cancelled`, which may come in on another thread while a call runs and
 * stops it. Fails only when out of memory or when the reply exceeds out's cap. */
wa_err mcp_handle_message(struct mcp_server *s, const char *msg, size_t len, struct dynbuf *out,
                          const struct mcp_sink *sink);

/* The JSON-RPC error reply to a message too large to be read (its id unknown). */
void mcp_reply_too_large(struct dynbuf *out);

/* The sink for messages that belong to no request (log notifications); none by default. */
void mcp_server_set_sink(struct mcp_server *s, const struct mcp_sink *sink);

/* Images sent to the client are scaled down to fit these (settings
 * WINAGENT_MCP_IMAGE_MAX_BYTES and WINAGENT_MCP_IMAGE_MAX_PX); the result says so. */
#define MCP_IMAGE_MAX_BYTES (1 << 20) /* of base64 */
#define MCP_IMAGE_MAX_PX    2000      /* the longest edge */
void mcp_server_set_image_limits(struct mcp_server *s, long max_bytes, int max_px);

/* Whether v is a protocol version this server speaks. */
bool mcp_version_known(const char *v);

/* The result of tools/list: {"tools":[{name, title, description, inputSchema,
 * annotations}]} (a new object), generated from the operation table. */
cJSON *mcp_tools_list(const struct core *c);

#endif
