/* The MCP server's state and what handling one request takes (mcp_req.c). */
#ifndef WINAGENT_AGENT_MCP_MCP_REQ_H
#define WINAGENT_AGENT_MCP_MCP_REQ_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/mcp/mcp_sink.h"
#include "base/wa_err.h"
#include "base/os.h"

#define MAX_INFLIGHT 32 /* requests of one server waiting or running */

/* JSON-RPC error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    RPC_RESOURCE_NOT_FOUND = -32002,
};
enum { LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING, LOG_ERROR };

/* A request waiting or running, which a notifications/cancelled may name. */
struct inflight {
    bool used;
    cJSON *id;
    volatile bool cancel;
};

/* One MCP server (mcp.h). */
struct mcp_server {
    struct core *core;
    struct session *ses;
    struct os_mutex *serve; /* one request at a time */
    struct os_mutex *state; /* what follows */
    const char *version;    /* negotiated protocol version, NULL before initialize */
    struct mcp_sink sink;   /* for messages that belong to no request */
    int level;              /* log notifications at or above it are sent */
    struct inflight inflight[MAX_INFLIGHT];
    long image_max_bytes; /* base64 of an image sent to the client */
    int image_max_px;     /* its longest edge */
    /* Asking the client's user (mcp_ask.c): whether the client declared elicitation, the
     * sink of the request being served (its questions go there), and the one question
     * out: its number, the client's response once it came, and the event that says so. */
    bool elicit;
    const struct mcp_sink *call_sink;
    long asked;
    cJSON *answer;
    struct os_event *answered;
};

/* Progress of one request, for its progressToken. */
struct mcp_progress {
    struct mcp_server *s;
    const struct mcp_sink *sink;
    const cJSON *token;
    double last;
};

/* What a request is answered with. */
struct reply {
    cJSON *result; /* exactly one of result and error is set for a request */
    int code;
    char message[600];
    bool none; /* no response at all (a cancelled request) */
};

/* What handling one request needs besides its params. */
struct req {
    struct mcp_server *s;
    const struct mcp_sink *sink;
    struct inflight *flight;
};

/* Whether the negotiated version is at least v (dates compare as text). */
bool mcp_req_since(const char *version, const char *v);

/* RFC 5424 severities, as MCP names them, least severe first (LOG_* index them). */
extern const char *const mcp_req_log_levels[8];

/* A log notification at level, when the client asked for that level or below. */
void mcp_req_log(struct mcp_server *s, const struct mcp_sink *sink, int level, const char *fmt, ...)
    WA_PRINTF(4, 5);

/* Sends msg (taken) through sink, else the server's own sink. */
void mcp_req_send(struct mcp_server *s, const struct mcp_sink *sink, cJSON *msg);

/* A progress notification for p's token (none without one); progress only goes up. */
void mcp_req_send_progress(struct mcp_progress *p, double done, double total, const char *message);

/* Makes rep a JSON-RPC error. */
void mcp_req_error(struct reply *rep, int code, const char *fmt, ...) WA_PRINTF(3, 4);

/* A string member of params, or NULL. */
const char *mcp_req_str_param(const cJSON *params, const char *name);

/* Performs q (its cancel flag and progress wired to the request) into r. */
void mcp_req_perform(struct req *rq, struct op_request *q, struct op_result *r,
                     struct mcp_progress *pg);

#endif
