/* `winagent mcp --http [ADDR:]PORT`: the MCP server over Streamable HTTP at /mcp, on
 * civetweb. POST carries client messages (a JSON reply, or an SSE stream when the
 * request asked for progress), GET opens the session's own SSE stream, DELETE ends the
 * session. Every request is checked in this order: Host and Origin against DNS
 * rebinding (403), the bearer token (401), the session (400 without, 404 unknown), the
 * MCP-Protocol-Version header (400). */
#ifndef WINAGENT_AGENT_FRONT_MCP_HTTP_H
#define WINAGENT_AGENT_FRONT_MCP_HTTP_H

#include <stdbool.h>

#include "agent/core/core.h"

struct mcp_http_opts {
    const char *listen; /* "PORT" (loopback) or "ADDR:PORT"; port 0 picks a free one */
    bool no_auth;       /* only on a loopback address */
    bool allow_remote;  /* an address off loopback is taken only with this (clear text) */
    const char *token;  /* NULL: one is made and printed on stderr */
    long image_max_bytes;
    int image_max_px;
};

/* Serves until interrupted (Ctrl+C); returns the exit code. */
int mcp_http_serve(struct core *c, const struct mcp_http_opts *o);

#endif
