/* The MCP server: JSON-RPC 2.0 messages mapped onto the desktop core's operations, with
 * logging, progress, cancellation, resources, completion and prompts. Transport-free:
 * stdio is mcp_stdio.c, Streamable HTTP mcp_http.c. */
#include "agent/front/mcp.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/args.h"
#include "agent/front/cli.h"
#include "agent/core/op_schema.h"
#include "agent/core/wire.h"
#include "base/version.h"
#include "automation/image.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term.h"

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

/* Newest first: the answer to a client that asks for a version we do not know. */
static const char *const protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                "2024-11-05"};

bool mcp_version_known(const char *v)
{
    for (size_t i = 0; i < sizeof protocol_versions / sizeof *protocol_versions; i++)
        if (strcmp(v, protocol_versions[i]) == 0)
            return true;
    return false;
}

/* Whether the negotiated version is at least v (dates compare as text). */
static bool since(const char *version, const char *v)
{
    return !version || strcmp(version, v) >= 0;
}

/* RFC 5424 severities, as MCP names them, least severe first. */
static const char *const log_levels[] = {"debug", "info",     "notice", "warning",
                                         "error", "critical", "alert",  "emergency"};
enum { LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING, LOG_ERROR };

static const char instructions[] =
    "winagent drives this Windows desktop. Call `windows` to see the top-level windows and "
    "`state` (with `window`) to get a window's elements as a numbered tree; the numbers are "
    "refs for click, fill, invoke, toggle, select and the others until the next state. "
    "Acting tools focus their window, act, verify and return window_state and a screenshot; "
    "`screenshot` returns the scale and origin that map image pixels to screen pixels "
    "(screen = origin + image / scale) for the *-at tools. Resources: winagent://windows and "
    "winagent://window/{window}/tree or /screenshot.";

struct inflight {
    bool used;
    cJSON *id;
    volatile bool cancel;
};

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
};

void mcp_server_set_sink(struct mcp_server *s, const struct mcp_sink *sink)
{
    os_mutex_lock(s->state);
    if (sink)
        s->sink = *sink;
    else
        memset(&s->sink, 0, sizeof s->sink);
    os_mutex_unlock(s->state);
}

const char *mcp_server_version(const struct mcp_server *s)
{
    return s->version;
}

void mcp_server_set_image_limits(struct mcp_server *s, long max_bytes, int max_px)
{
    s->image_max_bytes = max_bytes;
    s->image_max_px = max_px;
}

wa_err mcp_server_new(struct core *c, struct mcp_server **out)
{
    struct mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return wa_fail(WA_E_NOMEM, "out of memory");
    s->core = c;
    s->level = LOG_WARNING;
    s->image_max_bytes = MCP_IMAGE_MAX_BYTES;
    s->image_max_px = MCP_IMAGE_MAX_PX;
    s->serve = os_mutex_new();
    s->state = os_mutex_new();
    struct session_opts so;
    session_opts_default(&so);
    so.front = "mcp";
    so.refs = true;
    so.after = AFTER_IMAGE;
    so.settle_ms = 150;
    wa_err e =
        s->serve && s->state ? session_new(c, &so, &s->ses) : wa_fail(WA_E_NOMEM, "out of memory");
    if (e) {
        mcp_server_free(s);
        s = NULL;
    }
    *out = s;
    return e;
}

void mcp_server_free(struct mcp_server *s)
{
    if (!s)
        return;
    session_free(s->ses);
    for (int i = 0; i < MAX_INFLIGHT; i++)
        cJSON_Delete(s->inflight[i].id);
    os_mutex_free(s->serve);
    os_mutex_free(s->state);
    free(s);
}

/* ---- messages the server sends ---- */

static void send_message(struct mcp_server *s, const struct mcp_sink *sink, cJSON *msg)
{
    struct mcp_sink to = {0};
    if (sink && sink->send) {
        to = *sink;
    } else {
        os_mutex_lock(s->state);
        to = s->sink;
        os_mutex_unlock(s->state);
    }
    char *text = to.send ? cJSON_PrintUnformatted(msg) : NULL;
    if (text)
        to.send(to.ctx, text, strlen(text));
    free(text);
    cJSON_Delete(msg);
}

static cJSON *notification(const char *method, cJSON **params)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", method);
    *params = cJSON_AddObjectToObject(n, "params");
    return n;
}

/* A log notification at level, when the client asked for that level or below. */
static void mcp_log(struct mcp_server *s, const struct mcp_sink *sink, int level, const char *fmt,
                    ...) WA_PRINTF(4, 5);

static void mcp_log(struct mcp_server *s, const struct mcp_sink *sink, int level, const char *fmt,
                    ...)
{
    os_mutex_lock(s->state);
    bool wanted = s->version && level >= s->level;
    os_mutex_unlock(s->state);
    if (!wanted)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cJSON *params;
    cJSON *n = notification("notifications/message", &params);
    cJSON_AddStringToObject(params, "level", log_levels[level]);
    cJSON_AddStringToObject(params, "logger", "winagent");
    cJSON_AddStringToObject(params, "data", text);
    send_message(s, sink, n);
}

/* Progress of one request, for its progressToken. */
struct progress {
    struct mcp_server *s;
    const struct mcp_sink *sink;
    const cJSON *token;
    double last;
};

static void send_progress(struct progress *p, double done, double total, const char *message)
{
    if (!p->token || (p->last >= 0 && done <= p->last))
        return; /* progress only ever goes up */
    p->last = done;
    cJSON *params;
    cJSON *n = notification("notifications/progress", &params);
    cJSON_AddItemToObject(params, "progressToken", cJSON_Duplicate(p->token, true));
    cJSON_AddNumberToObject(params, "progress", done);
    if (total > 0)
        cJSON_AddNumberToObject(params, "total", total);
    if (message && *message && since(p->s->version, "2025-03-26"))
        cJSON_AddStringToObject(params, "message", message);
    send_message(p->s, p->sink, n);
}

static void on_progress(void *ctx, double done, double total, const char *message)
{
    send_progress(ctx, done, total, message);
}

/* ---- requests in flight: cancellation ---- */

static struct inflight *inflight_add(struct mcp_server *s, const cJSON *id)
{
    struct inflight *f = NULL;
    os_mutex_lock(s->state);
    for (int i = 0; i < MAX_INFLIGHT && !f; i++)
        if (!s->inflight[i].used) {
            f = &s->inflight[i];
            f->used = true;
            f->cancel = false;
            f->id = cJSON_Duplicate(id, true);
        }
    os_mutex_unlock(s->state);
    return f; /* NULL: too many at once; that request just cannot be cancelled */
}

static void inflight_remove(struct mcp_server *s, struct inflight *f)
{
    if (!f)
        return;
    os_mutex_lock(s->state);
    cJSON_Delete(f->id);
    f->id = NULL;
    f->used = false;
    os_mutex_unlock(s->state);
}

static void cancel_request(struct mcp_server *s, const cJSON *params)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "requestId");
    if (!id)
        return;
    os_mutex_lock(s->state);
    for (int i = 0; i < MAX_INFLIGHT; i++)
        if (s->inflight[i].used && cJSON_Compare(s->inflight[i].id, id, true))
            s->inflight[i].cancel = true;
    os_mutex_unlock(s->state);
}

/* ---- tools/list ---- */

/* Whether a tool's point is the data it returns (observations, the shell, launch):
 * those declare an outputSchema and return structuredContent. */
static bool returns_data(const struct op_def *op)
{
    return !op_acts(op) || (op->flags & (OPF_SHELL | OPF_LAUNCH));
}

/* The one result shape (agent/core/wire.h) as a JSON schema. */
static cJSON *output_schema(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "object");
    cJSON *p = cJSON_AddObjectToObject(o, "properties");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "success"), "type", "boolean");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "op"), "type", "string");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "data"), "type", "object");
    cJSON *notes = cJSON_AddObjectToObject(p, "notes");
    cJSON_AddStringToObject(notes, "type", "array");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(notes, "items"), "type", "string");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "window_state"), "type", "object");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "dry_run"), "type", "boolean");
    cJSON *err = cJSON_AddObjectToObject(p, "error");
    cJSON_AddStringToObject(err, "type", "object");
    cJSON *ep = cJSON_AddObjectToObject(err, "properties");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(ep, "code"), "type", "string");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(ep, "message"), "type", "string");
    cJSON *req = cJSON_AddArrayToObject(o, "required");
    cJSON_AddItemToArray(req, cJSON_CreateString("success"));
    cJSON_AddItemToArray(req, cJSON_CreateString("op"));
    return o;
}

static cJSON *tool_json(const struct op_def *op, const char *version)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", op->cli);
    if (since(version, "2025-06-18"))
        cJSON_AddStringToObject(t, "title", op->title);
    struct dynbuf d;
    dynbuf_init(&d, 4096);
    dynbuf_adds(&d, op->help);
    if (op->flags & OPF_INPUT)
        dynbuf_adds(&d, " The window is brought to the front first; the window that receives "
                        "the input is checked at the moment of sending.");
    if (op_acts(op))
        dynbuf_adds(&d, " Returns window_state and, unless screenshot is false, a screenshot "
                        "of the window after acting.");
    cJSON_AddStringToObject(t, "description", dynbuf_str(&d));
    dynbuf_cleanup(&d);

    cJSON_AddItemToObject(t, "inputSchema", op_schema_input(op, SCHEMA_CLI));

    if (since(version, "2025-06-18") && returns_data(op))
        cJSON_AddItemToObject(t, "outputSchema", output_schema());
    if (!since(version, "2025-03-26"))
        return t; /* annotations came with 2025-03-26 */
    cJSON *ann = cJSON_AddObjectToObject(t, "annotations");
    cJSON_AddStringToObject(ann, "title", op->title);
    cJSON_AddBoolToObject(ann, "readOnlyHint", !op_acts(op));
    cJSON_AddBoolToObject(ann, "destructiveHint", (op->flags & OPF_DESTRUCTIVE) != 0);
    if (!op_acts(op))
        cJSON_AddBoolToObject(ann, "idempotentHint", true);
    /* Only the shell and launching reach beyond this desktop. */
    cJSON_AddBoolToObject(ann, "openWorldHint", (op->flags & (OPF_SHELL | OPF_LAUNCH)) != 0);
    return t;
}

/* The MCP tools: every operation with a CLI name; the shell only when allowed. */
static bool offered(const struct core *c, const struct op_def *op)
{
    return op && op->cli && (!(op->flags & OPF_SHELL) || core_shell(c) != SHELL_DENIED);
}

static cJSON *tools_list(const struct core *c, const char *version)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(res, "tools");
    for (int i = 0; i < OP__COUNT; i++)
        if (offered(c, op_def((enum op_id)i)))
            cJSON_AddItemToArray(tools, tool_json(op_def((enum op_id)i), version));
    return res;
}

cJSON *mcp_tools_list(const struct core *c)
{
    return tools_list(c, protocol_versions[0]);
}

/* ---- tools/call ---- */

static void add_text(cJSON *content, const char *text)
{
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text);
    cJSON_AddItemToArray(content, item);
}

/* The tools/call result: a text item with the result JSON (trees are moved out into
 * text items of their own, unescaped, for the model to read) and the image, if any. */
static cJSON *call_result(const struct op_result *r, const char *version)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(res, "content");
    struct wire_opts wo = {.names = WIRE_CLI};
    cJSON *j = wire_result(r, &wo);
    cJSON *data = cJSON_GetObjectItemCaseSensitive(j, "data");
    cJSON *trees[2] = {NULL, NULL};
    if (cJSON_IsObject(data)) {
        trees[0] = cJSON_DetachItemFromObjectCaseSensitive(data, "tree");
        trees[1] = cJSON_DetachItemFromObjectCaseSensitive(data, "state");
        if (trees[0]) /* the tree text says it all: no second copy as JSON */
            cJSON_DeleteItemFromObjectCaseSensitive(data, "elements");
    }
    struct dynbuf b64;
    dynbuf_init(&b64, MCP_REPLY_MAX_BYTES);
    bool image =
        r->has_image && r->png.len > 0 && base64_encode(r->png.data, r->png.len, &b64) == WA_E_OK;
    char *text = cJSON_PrintUnformatted(j);
    add_text(content, text ? text : "{}");
    free(text);
    for (int i = 0; i < 2; i++)
        if (cJSON_IsString(trees[i]))
            add_text(content, trees[i]->valuestring);
    if (image) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "type", "image");
        cJSON_AddStringToObject(item, "data", dynbuf_str(&b64));
        cJSON_AddStringToObject(item, "mimeType", "image/png");
        cJSON_AddItemToArray(content, item);
    }
    dynbuf_cleanup(&b64);
    if (r->op && returns_data(r->op) && since(version, "2025-06-18")) {
        for (int i = 0; i < 2; i++) /* the tree texts, back where the schema has them */
            if (cJSON_IsObject(data) && cJSON_IsString(trees[i]))
                cJSON_AddItemToObject(data, i ? "state" : "tree", cJSON_Duplicate(trees[i], 1));
        cJSON_AddItemToObject(res, "structuredContent", j);
        j = NULL;
    }
    for (int i = 0; i < 2; i++)
        cJSON_Delete(trees[i]);
    cJSON_Delete(j);
    cJSON_AddBoolToObject(res, "isError", r->err != WA_E_OK);
    return res;
}

/* ---- images that fit the client ---- */

/* Scales the result's PNG down until its base64 and its longest edge are within the
 * server's limits; the result's scale follows, and a note says so. */
static void fit_image(const struct mcp_server *s, struct op_result *r)
{
    if (!r->has_image || r->png.len < 24)
        return;
    const unsigned char *p = (const unsigned char *)r->png.data;
    int w = (int)((unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19]);
    int h = (int)((unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23]);
    size_t b64 = 4 * ((r->png.len + 2) / 3);
    int edge = w > h ? w : h;
    if (edge <= 0 || (edge <= s->image_max_px && b64 <= (size_t)s->image_max_bytes))
        return;
    struct wa_image full = {0};
    if (png_decode(r->png.data, r->png.len, &full) != WA_E_OK)
        return;
    int target = edge > s->image_max_px ? s->image_max_px : edge;
    for (int tries = 0; tries < 12 && target >= 16; tries++) {
        struct wa_image small = {0};
        struct dynbuf png;
        dynbuf_init(&png, MCP_REPLY_MAX_BYTES);
        bool ok = image_downscale(&full, target, &small) == WA_E_OK &&
                  png_encode(&small, &png) == WA_E_OK;
        size_t size = 4 * ((png.len + 2) / 3);
        if (ok && size <= (size_t)s->image_max_bytes) {
            double f = (double)small.width / w;
            dynbuf_cleanup(&r->png);
            r->png = png; /* moved */
            r->img_w = small.width;
            r->img_h = small.height;
            r->scale = r->scale > 0 ? r->scale * f : f;
            op_result_note(r,
                           "the image was scaled to %dx%d (%.3f of %dx%d) to fit the client's "
                           "limits (%ld bytes of base64, %d px); screen = origin + image / scale",
                           small.width, small.height, f, w, h, s->image_max_bytes, s->image_max_px);
            image_cleanup(&small);
            image_cleanup(&full);
            return;
        }
        dynbuf_cleanup(&png);
        image_cleanup(&small);
        /* too many bytes: shrink by the square root of the excess, and a little more */
        double by = ok && size > 0 ? (double)s->image_max_bytes / (double)size : 0.25;
        int next = (int)(target * sqrt(by) * 0.9);
        target = next < target ? next : target - 1;
    }
    image_cleanup(&full);
    r->has_image = false; /* nothing small enough: better none than one the client refuses */
    dynbuf_cleanup(&r->png);
    op_result_note(r, "the image did not fit the client's limits and was left out");
}

/* ---- JSON-RPC ---- */

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

static void rpc_error(struct reply *rep, int code, const char *fmt, ...) WA_PRINTF(3, 4);

static void rpc_error(struct reply *rep, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rep->code = code;
    vsnprintf(rep->message, sizeof rep->message, fmt, ap);
    va_end(ap);
}

static const char *str_param(const cJSON *params, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void do_initialize(struct req *rq, const cJSON *params, struct reply *rep)
{
    struct mcp_server *s = rq->s;
    const char *asked = str_param(params, "protocolVersion");
    const char *chosen = protocol_versions[0];
    for (size_t i = 0; asked && i < sizeof protocol_versions / sizeof *protocol_versions; i++)
        if (strcmp(asked, protocol_versions[i]) == 0)
            chosen = protocol_versions[i];
    os_mutex_lock(s->state);
    s->version = chosen;
    os_mutex_unlock(s->state);
    const char *cname = str_param(cJSON_GetObjectItemCaseSensitive(params, "clientInfo"), "name");
    term_line(stderr, "winagent mcp: %s asked for %s, speaking %s", cname ? cname : "a client",
              asked ? asked : "(no version)", chosen);

    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "protocolVersion", chosen);
    cJSON *caps = cJSON_AddObjectToObject(res, "capabilities");
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"), "listChanged", false);
    cJSON_AddObjectToObject(caps, "logging");
    cJSON *rc = cJSON_AddObjectToObject(caps, "resources");
    cJSON_AddBoolToObject(rc, "subscribe", false);
    cJSON_AddBoolToObject(rc, "listChanged", false);
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "prompts"), "listChanged", false);
    if (since(chosen, "2025-03-26"))
        cJSON_AddObjectToObject(caps, "completions");
    cJSON *server = cJSON_AddObjectToObject(res, "serverInfo");
    cJSON_AddStringToObject(server, "name", "winagent");
    if (since(chosen, "2025-06-18"))
        cJSON_AddStringToObject(server, "title", "winagent Windows desktop");
    cJSON_AddStringToObject(server, "version", WINAGENT_VERSION);
    cJSON_AddStringToObject(res, "instructions", instructions);
    rep->result = res;
}

static void do_set_level(struct req *rq, const cJSON *params, struct reply *rep)
{
    const char *level = str_param(params, "level");
    for (int i = 0; level && i < (int)(sizeof log_levels / sizeof *log_levels); i++)
        if (strcmp(level, log_levels[i]) == 0) {
            os_mutex_lock(rq->s->state);
            rq->s->level = i;
            os_mutex_unlock(rq->s->state);
            rep->result = cJSON_CreateObject();
            return;
        }
    rpc_error(rep, RPC_INVALID_PARAMS,
              "logging/setLevel needs a level: debug, info, notice, warning, error, critical, "
              "alert or emergency");
}

/* Performs q (its cancel flag and progress wired to the request) into r. */
static void perform(struct req *rq, struct op_request *q, struct op_result *r, struct progress *pg)
{
    if (rq->flight)
        q->cancel = &rq->flight->cancel;
    if (pg && pg->token) {
        q->progress = on_progress;
        q->progress_ctx = pg;
    }
    core_perform(rq->s->ses, q, r);
    fit_image(rq->s, r);
}

static void do_tools_call(struct req *rq, const cJSON *params, struct reply *rep)
{
    struct mcp_server *s = rq->s;
    const char *name = str_param(params, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    if (!name) {
        rpc_error(rep, RPC_INVALID_PARAMS, "tools/call needs a tool name");
        return;
    }
    /* An unknown tool is a protocol error (MCP 2025-06-18, tools: error handling). */
    const struct op_def *op = op_by_cli(name);
    if (!offered(s->core, op)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "Unknown tool: %s", name);
        return;
    }
    if (args && !cJSON_IsNull(args) && !cJSON_IsObject(args)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "arguments of %s must be an object", name);
        return;
    }
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    struct progress pg = {s, rq->sink,
                          cJSON_IsString(token) || cJSON_IsNumber(token) ? token : NULL, -1};
    send_progress(&pg, 0, 0, "started");
    struct op_request q;
    struct op_result r;
    op_result_init(&r);
    int64_t t0 = os_now_ms();
    wa_err e = wire_request(cJSON_IsObject(args) ? args : NULL, WIRE_CLI, op, &q);
    if (!e) {
        perform(rq, &q, &r, &pg);
    } else {
        r.op = op;
        op_result_set_error(&r, e);
    }
    double secs = (double)(os_now_ms() - t0) / 1000.0;
    term_line(stderr, "winagent mcp: %s -> %s%s%s (%.0f ms)", name, wa_err_code(r.err),
              r.err ? ": " : "", r.err ? r.message : "", secs * 1000.0);
    if (r.err == WA_E_CANCELLED && rq->flight && rq->flight->cancel) {
        rep->none = true; /* the client cancelled it: no response is due */
    } else {
        send_progress(&pg, secs > pg.last ? secs : pg.last + 0.001, 0, "done");
        int level = r.err == WA_E_DENIED || r.err == WA_E_SHELL_DISABLED ? LOG_WARNING
                    : r.err                                              ? LOG_ERROR
                                                                         : LOG_INFO;
        mcp_log(s, rq->sink, level, "%s: %s%s%s", name, r.err ? wa_err_code(r.err) : "ok",
                r.err ? ": " : "", r.err ? r.message : (r.summary[0] ? r.summary : ""));
        rep->result = call_result(&r, s->version);
    }
    op_result_cleanup(&r);
    op_request_cleanup(&q);
}

/* ---- resources ---- */

#define URI_WINDOWS "winagent://windows"
#define URI_WINDOW  "winagent://window/"

static cJSON *resource_json(const char *uri_key, const char *uri, const char *name,
                            const char *title, const char *description, const char *mime,
                            const char *version)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, uri_key, uri);
    cJSON_AddStringToObject(o, "name", name);
    if (since(version, "2025-06-18"))
        cJSON_AddStringToObject(o, "title", title);
    cJSON_AddStringToObject(o, "description", description);
    cJSON_AddStringToObject(o, "mimeType", mime);
    return o;
}

static void do_resources_list(struct req *rq, struct reply *rep)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(res, "resources");
    cJSON_AddItemToArray(list, resource_json("uri", URI_WINDOWS, "windows", "Top-level windows",
                                             "The desktop's top-level windows: handle, title, "
                                             "class, process, rectangle, state.",
                                             "application/json", rq->s->version));
    rep->result = res;
}

static void do_templates_list(struct req *rq, struct reply *rep)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(res, "resourceTemplates");
    cJSON_AddItemToArray(list, resource_json("uriTemplate", URI_WINDOW "{window}/tree",
                                             "window-tree", "A window's accessibility tree",
                                             "The numbered element tree of a window (title or "
                                             "process fragment, or handle), as `tree` prints it.",
                                             "text/plain", rq->s->version));
    cJSON_AddItemToArray(list, resource_json("uriTemplate", URI_WINDOW "{window}/screenshot",
                                             "window-screenshot", "A window's screenshot",
                                             "A PNG of the window, fitted to the client's limits.",
                                             "image/png", rq->s->version));
    rep->result = res;
}

/* Percent-decodes a URI part into out; false when malformed. */
static bool uri_decode(const char *in, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o + 1 >= cap)
            return false;
        if (in[i] == '%') {
            unsigned v;
            if (i + 2 >= n || !isxdigit((unsigned char)in[i + 1]) ||
                !isxdigit((unsigned char)in[i + 2]) || sscanf(in + i + 1, "%2x", &v) != 1 || v == 0)
                return false;
            out[o++] = (char)v;
            i += 2;
        } else {
            out[o++] = in[i];
        }
    }
    out[o] = '\0';
    return o > 0;
}

static void do_resources_read(struct req *rq, const cJSON *params, struct reply *rep)
{
    const char *uri = str_param(params, "uri");
    if (!uri) {
        rpc_error(rep, RPC_INVALID_PARAMS, "resources/read needs a uri");
        return;
    }
    enum op_id id;
    char window[512] = "";
    if (strcmp(uri, URI_WINDOWS) == 0) {
        id = OP_LIST_WINDOWS;
    } else {
        const char *rest =
            strncmp(uri, URI_WINDOW, strlen(URI_WINDOW)) == 0 ? uri + strlen(URI_WINDOW) : NULL;
        const char *slash = rest ? strrchr(rest, '/') : NULL;
        if (!slash || !uri_decode(rest, (size_t)(slash - rest), window, sizeof window) ||
            (strcmp(slash, "/tree") != 0 && strcmp(slash, "/screenshot") != 0)) {
            rep->code = RPC_RESOURCE_NOT_FOUND;
            snprintf(rep->message, sizeof rep->message, "Resource not found: %.400s", uri);
            return;
        }
        id = strcmp(slash, "/tree") == 0 ? OP_TREE : OP_SCREENSHOT;
    }
    struct op_request q;
    struct op_result r;
    op_request_init(&q, op_def(id));
    op_result_init(&r);
    wa_err e = *window ? op_request_set_text(&q, ARG_WINDOW, window) : WA_E_OK;
    if (!e)
        perform(rq, &q, &r, NULL);
    else
        snprintf(r.message, sizeof r.message, "%s", wa_err_detail());
    e = e ? e : r.err;
    if (e) {
        rep->code = e == WA_E_WINDOW_NOT_FOUND ? RPC_RESOURCE_NOT_FOUND : RPC_INTERNAL_ERROR;
        snprintf(rep->message, sizeof rep->message, "%s: %s: %.400s", uri, wa_err_code(e),
                 r.message);
    } else {
        cJSON *res = cJSON_CreateObject();
        cJSON *item = cJSON_CreateObject();
        cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "contents"), item);
        cJSON_AddStringToObject(item, "uri", uri);
        if (id == OP_SCREENSHOT) {
            struct dynbuf b64;
            dynbuf_init(&b64, MCP_REPLY_MAX_BYTES);
            base64_encode(r.png.data, r.png.len, &b64);
            cJSON_AddStringToObject(item, "mimeType", "image/png");
            cJSON_AddStringToObject(item, "blob", dynbuf_str(&b64));
            dynbuf_cleanup(&b64);
        } else if (id == OP_TREE) {
            cJSON_AddStringToObject(item, "mimeType", "text/plain");
            cJSON_AddStringToObject(item, "text", r.text ? r.text : "");
        } else {
            struct wire_opts wo = {.names = WIRE_CLI};
            cJSON *j = wire_result(&r, &wo);
            char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "data"));
            cJSON_AddStringToObject(item, "mimeType", "application/json");
            cJSON_AddStringToObject(item, "text", text ? text : "{}");
            free(text);
            cJSON_Delete(j);
        }
        rep->result = res;
    }
    op_result_cleanup(&r);
    op_request_cleanup(&q);
}

/* completion/complete: window titles for the {window} of the templates. */
static void do_complete(struct req *rq, const cJSON *params, struct reply *rep)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(params, "ref");
    const cJSON *arg = cJSON_GetObjectItemCaseSensitive(params, "argument");
    const char *type = str_param(ref, "type"), *name = str_param(arg, "name");
    const char *value = str_param(arg, "value");
    if (!type || !name || !value) {
        rpc_error(rep, RPC_INVALID_PARAMS,
                  "completion/complete needs ref.type, argument.name "
                  "and argument.value");
        return;
    }
    cJSON *res = cJSON_CreateObject();
    cJSON *c = cJSON_AddObjectToObject(res, "completion");
    cJSON *values = cJSON_AddArrayToObject(c, "values");
    const char *uri = str_param(ref, "uri");
    if (strcmp(type, "ref/resource") == 0 && uri &&
        strncmp(uri, URI_WINDOW, strlen(URI_WINDOW)) == 0 && strcmp(name, "window") == 0) {
        struct op_request q;
        struct op_result r;
        op_request_init(&q, op_def(OP_LIST_WINDOWS));
        op_result_init(&r);
        perform(rq, &q, &r, NULL);
        for (size_t i = 0; !r.err && i < r.windows.count && cJSON_GetArraySize(values) < 100; i++) {
            const char *t = r.windows.items[i].title;
            if (t && *t && str_icontains(t, value))
                cJSON_AddItemToArray(values, cJSON_CreateString(t));
        }
        op_result_cleanup(&r);
        op_request_cleanup(&q);
    }
    cJSON_AddNumberToObject(c, "total", cJSON_GetArraySize(values));
    cJSON_AddBoolToObject(c, "hasMore", false);
    rep->result = res;
}

/* ---- prompts ---- */

static void do_prompts_list(struct req *rq, struct reply *rep)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "prompts"), p);
    cJSON_AddStringToObject(p, "name", "desktop-task");
    if (since(rq->s->version, "2025-06-18"))
        cJSON_AddStringToObject(p, "title", "Do a task on the Windows desktop");
    cJSON_AddStringToObject(p, "description",
                            "Carry out a task on this Windows desktop with winagent's tools, "
                            "checking each step.");
    cJSON *a = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "arguments"), a);
    cJSON_AddStringToObject(a, "name", "task");
    cJSON_AddStringToObject(a, "description", "What to do, in one sentence.");
    cJSON_AddBoolToObject(a, "required", true);
    rep->result = res;
}

static void do_prompts_get(const cJSON *params, struct reply *rep)
{
    const char *name = str_param(params, "name");
    const char *task = str_param(cJSON_GetObjectItemCaseSensitive(params, "arguments"), "task");
    if (!name || strcmp(name, "desktop-task") != 0) {
        rpc_error(rep, RPC_INVALID_PARAMS, "Unknown prompt: %.200s (there is desktop-task)",
                  name ? name : "(none)");
        return;
    }
    if (!task || !*task) {
        rpc_error(rep, RPC_INVALID_PARAMS, "desktop-task needs the argument \"task\"");
        return;
    }
    struct dynbuf text;
    dynbuf_init(&text, 1u << 20);
    dynbuf_addf(&text,
                "Do this on the Windows desktop: %s\n\n"
                "Work in small checked steps with the winagent tools: call `windows` to find "
                "the window, `state` with that window to get its numbered elements, then act "
                "on an element by its number (click, fill, select, toggle, invoke, keys) with "
                "the same `window`. Read each result: it says what changed and includes a "
                "screenshot; call `state` again when the window changed. Use the *-at tools "
                "with screenshot coordinates only when an element has no number. Stop and say "
                "so when something is refused or cannot be found; say when the task is done.",
                task);
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "description", "A desktop task for winagent");
    cJSON *m = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "messages"), m);
    cJSON_AddStringToObject(m, "role", "user");
    cJSON *content = cJSON_AddObjectToObject(m, "content");
    cJSON_AddStringToObject(content, "type", "text");
    cJSON_AddStringToObject(content, "text", dynbuf_str(&text));
    dynbuf_cleanup(&text);
    rep->result = res;
}

/* Serves one request (method with an id); fills rep. */
static void dispatch(struct req *rq, const char *method, const cJSON *params, struct reply *rep)
{
    if (params && !cJSON_IsObject(params) && !cJSON_IsNull(params)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "params of %s must be an object", method);
        return;
    }
    if (strcmp(method, "initialize") == 0)
        do_initialize(rq, params, rep);
    else if (strcmp(method, "ping") == 0)
        rep->result = cJSON_CreateObject();
    else if (strcmp(method, "tools/list") == 0)
        rep->result = tools_list(rq->s->core, rq->s->version); /* one page: no cursor */
    else if (strcmp(method, "tools/call") == 0)
        do_tools_call(rq, params, rep);
    else if (strcmp(method, "logging/setLevel") == 0)
        do_set_level(rq, params, rep);
    else if (strcmp(method, "resources/list") == 0)
        do_resources_list(rq, rep);
    else if (strcmp(method, "resources/templates/list") == 0)
        do_templates_list(rq, rep);
    else if (strcmp(method, "resources/read") == 0)
        do_resources_read(rq, params, rep);
    else if (strcmp(method, "completion/complete") == 0)
        do_complete(rq, params, rep);
    else if (strcmp(method, "prompts/list") == 0)
        do_prompts_list(rq, rep);
    else if (strcmp(method, "prompts/get") == 0)
        do_prompts_get(params, rep);
    else
        rpc_error(rep, RPC_METHOD_NOT_FOUND, "Method not found: %s", method);
}

static cJSON *response(const cJSON *id, struct reply *rep)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "jsonrpc", "2.0");
    cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    if (rep->result) {
        cJSON_AddItemToObject(o, "result", rep->result);
        rep->result = NULL;
    } else {
        cJSON *err = cJSON_AddObjectToObject(o, "error");
        cJSON_AddNumberToObject(err, "code", rep->code);
        cJSON_AddStringToObject(err, "message", rep->message);
    }
    return o;
}

static cJSON *error_response(const cJSON *id, int code, const char *message)
{
    struct reply rep = {0};
    rpc_error(&rep, code, "%s", message);
    return response(id, &rep);
}

/* One message: the response object, or NULL when none is due. */
static cJSON *handle_message(struct mcp_server *s, const cJSON *msg, const struct mcp_sink *sink)
{
    if (!cJSON_IsObject(msg))
        return error_response(NULL, RPC_INVALID_REQUEST, "Invalid Request: not an object");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    if (!method && (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
                    cJSON_GetObjectItemCaseSensitive(msg, "error")))
        return NULL; /* a response from the client: we never ask it anything */
    if (id && !cJSON_IsString(id) && !cJSON_IsNumber(id) && !cJSON_IsNull(id))
        return error_response(NULL, RPC_INVALID_REQUEST, "Invalid Request: bad id");
    if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0 || !cJSON_IsString(method))
        return error_response(id, RPC_INVALID_REQUEST,
                              "Invalid Request: needs \"jsonrpc\":\"2.0\" and a method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (!id) { /* notifications get no reply; a cancellation acts at once */
        if (strcmp(method->valuestring, "notifications/cancelled") == 0)
            cancel_request(s, params);
        return NULL;
    }
    struct req rq = {s, sink, inflight_add(s, id)};
    struct reply rep = {0};
    os_mutex_lock(s->serve); /* one at a time; a cancellation does not wait for this */
    if (rq.flight && rq.flight->cancel)
        rep.none = true; /* cancelled while it waited its turn */
    else
        dispatch(&rq, method->valuestring, params, &rep);
    os_mutex_unlock(s->serve);
    inflight_remove(s, rq.flight);
    if (rep.none) {
        cJSON_Delete(rep.result);
        return NULL;
    }
    return response(id, &rep);
}

wa_err mcp_handle_message(struct mcp_server *s, const char *line, size_t len, struct dynbuf *out,
                          const struct mcp_sink *sink)
{
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (len == 0)
        return WA_E_OK;
    cJSON *msg = cJSON_ParseWithLength(line, len);
    cJSON *reply = NULL;
    if (!msg || memchr(line, '\0', len)) { /* a NUL would end the text early: never valid */
        reply = error_response(NULL, RPC_PARSE_ERROR,
                               msg ? "Parse error: a NUL byte in the message" : "Parse error");
    } else if (cJSON_IsArray(msg)) { /* a batch: protocols 2024-11-05 and 2025-03-26 only */
        if (!s->version || strcmp(s->version, "2025-06-18") >= 0) {
            char why[160];
            snprintf(why, sizeof why, "Invalid Request: batches are not part of protocol %s",
                     s->version ? s->version : "negotiation (initialize comes alone)");
            reply = error_response(NULL, RPC_INVALID_REQUEST, why);
        } else if (cJSON_GetArraySize(msg) == 0) {
            reply = error_response(NULL, RPC_INVALID_REQUEST, "Invalid Request: empty batch");
        } else {
            reply = cJSON_CreateArray();
            const cJSON *m;
            cJSON_ArrayForEach(m, msg)
            {
                cJSON *r = handle_message(s, m, sink);
                if (r)
                    cJSON_AddItemToArray(reply, r);
            }
            if (cJSON_GetArraySize(reply) == 0) {
                cJSON_Delete(reply);
                reply = NULL;
            }
        }
    } else {
        reply = handle_message(s, msg, sink);
    }
    cJSON_Delete(msg);
    if (!reply)
        return WA_E_OK;
    char *text = cJSON_PrintUnformatted(reply);
    cJSON_Delete(reply);
    if (!text)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = dynbuf_adds(out, text);
    free(text);
    return e;
}

void mcp_reply_too_large(struct dynbuf *out)
{
    cJSON *r = error_response(NULL, RPC_INVALID_REQUEST, "Invalid Request: message too large");
    char *text = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    if (text)
        dynbuf_adds(out, text);
    free(text);
}
