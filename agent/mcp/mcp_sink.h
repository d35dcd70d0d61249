/* What an MCP server and its transports share (mcp.h): where the server's own
 * messages go, and how large a message and a reply may be. */
#ifndef WINAGENT_AGENT_MCP_MCP_SINK_H
#define WINAGENT_AGENT_MCP_MCP_SINK_H

#include <stddef.h>

/* Where the server's own messages go (progress and log notifications): one JSON-RPC
 * message, without a newline, per call of send. Called from the thread that handles the
 * message, or for log notifications from any thread; send must not call back into the
 * server. */
struct mcp_sink {
    void (*send)(void *ctx, const char *json, size_t len);
    void *ctx;
};

/* The largest client message and reply, in bytes, for the transports' buffers: a reply
 * is the base64 of a capped PNG with its JSON. */
#define MCP_MESSAGE_MAX_BYTES (64u << 20)
#define MCP_REPLY_MAX_BYTES   (96u << 20)

#endif
