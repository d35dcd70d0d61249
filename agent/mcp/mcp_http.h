/* `winagent mcp --http [ADDR:]PORT`: the MCP server over Streamable HTTP at /mcp, on
 * civetweb. POST carries client messages (a JSON reply, or an SSE stream when the
 * request asked for progress), GET opens the session's own SSE stream, DELETE ends the
 * session. Every request is checked in this order: Host and Origin against DNS
 * rebinding (403: the names the server answers to are the loopback names, the address
 * it listens on and those given with --allow-host; bound to every address, 0.0.0.0,
 * --allow-host is required), a CORS preflight (OPTIONS) answered only for an Origin that
 * passed, the bearer token (401), POST's Content-Type (application/json, else 415) and
 * Accept (application/json and text/event-stream, else 406), GET's Accept
 * (text/event-stream), the session (400 without, 404 unknown), the
 * MCP-Protocol-Version header (400). civetweb answers no preflight itself. */
#ifndef WINAGENT_AGENT_MCP_MCP_HTTP_H
#define WINAGENT_AGENT_MCP_MCP_HTTP_H

#include <stdbool.h>

#include "agent/core/core.h"

struct mcp_http_opts {
    const char *listen; /* "PORT" (loopback) or "ADDR:PORT"; port 0 picks a free one */
    bool no_auth;       /* only on a loopback address */
    bool allow_remote;  /* an address off loopback is taken only with this (clear text) */
    /* Comma-separated host names and addresses clients reach the server by, besides the
     * loopback names and the address it listens on (required for 0.0.0.0); or NULL. */
    const char *allow_hosts;
    const char *token; /* NULL: one is made and printed on stderr */
    long image_max_bytes;
    int image_max_px;
};

/* Serves until interrupted (Ctrl+C); returns the exit code. */
int mcp_http_serve(struct core *c, const struct mcp_http_opts *o);

#endif
