/* The MCP server: JSON-RPC 2.0 messages mapped onto the desktop core's operations, with
 * logging, progress, cancellation, resources, completion and prompts. Transport-free:
 * stdio is mcp_stdio.c, Streamable HTTP mcp_http.c. What a request takes is mcp_req.c;
 * resources, completion and prompts are mcp_res.c. */
#include "agent/mcp/mcp.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/base64.h"
#include "base/args.h"
#include "agent/front/cli.h"
#include "agent/mcp/mcp_ask.h"
#include "agent/mcp/mcp_req.h"
#include "agent/mcp/mcp_res.h"
#include "agent/core/request/op_schema.h"
#include "agent/core/request/wire.h"
#include "base/version.h"
#include "automation/image/image.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

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

static const char instructions[] =
    "winagent drives this Windows desktop. Call `windows` to see the top-level windows and "
    "`state` (with `window`) to get a window's elements as a numbered tree; the numbers are "
    "refs for click, fill, invoke, toggle, select and the others until the next state. "
    "Acting tools focus their window, act, verify and return window_state and a screenshot; "
    "`screenshot` returns the scale and origin that map image pixels to screen pixels "
    "(screen = origin + image / scale) for the *-at tools. Resources: winagent://windows and "
    "winagent://window/{window}/tree or /screenshot.";

void mcp_server_set_sink(struct mcp_server *s, const struct mcp_sink *sink)
{
    os_mutex_lock(s->state);
    if (sink)
        s->sink = *sink;
    else
        memset(&s->sink, 0, sizeof s->sink);
    os_mutex_unlock(s->state);
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
    s->answered = os_event_new();
    struct session_opts so;
    session_opts_default(&so);
    so.front = "mcp";
    so.refs = true;
    so.after = AFTER_IMAGE;
    so.settle_ms = 150;
    so.person = (struct person_asker){mcp_ask_person, s}; /* the client's elicitation */
    wa_err e = s->serve && s->state && s->answered ? session_new(c, &so, &s->ses)
                                                   : wa_fail(WA_E_NOMEM, "out of memory");
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
    os_event_free(s->answered);
    cJSON_Delete(s->answer);
    free(s);
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

/* The one result shape (agent/core/request/wire.h) as a JSON schema. */
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
    if (mcp_req_since(version, "2025-06-18"))
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

    if (mcp_req_since(version, "2025-06-18") && returns_data(op))
        cJSON_AddItemToObject(t, "outputSchema", output_schema());
    if (!mcp_req_since(version, "2025-03-26"))
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
    if (r->op && returns_data(r->op) && mcp_req_since(version, "2025-06-18")) {
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

static void do_initialize(struct req *rq, const cJSON *params, struct reply *rep)
{
    struct mcp_server *s = rq->s;
    const char *asked = mcp_req_str_param(params, "protocolVersion");
    const char *chosen = protocol_versions[0];
    for (size_t i = 0; asked && i < sizeof protocol_versions / sizeof *protocol_versions; i++)
        if (strcmp(asked, protocol_versions[i]) == 0)
            chosen = protocol_versions[i];
    const cJSON *client = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
    os_mutex_lock(s->state);
    s->version = chosen;
    /* elicitation came with 2025-06-18: the client asks its user for the server */
    s->elicit = mcp_req_since(chosen, "2025-06-18") &&
                cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(client, "elicitation"));
    os_mutex_unlock(s->state);
    const char *cname =
        mcp_req_str_param(cJSON_GetObjectItemCaseSensitive(params, "clientInfo"), "name");
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
    if (mcp_req_since(chosen, "2025-03-26"))
        cJSON_AddObjectToObject(caps, "completions");
    cJSON *server = cJSON_AddObjectToObject(res, "serverInfo");
    cJSON_AddStringToObject(server, "name", "winagent");
    if (mcp_req_since(chosen, "2025-06-18"))
        cJSON_AddStringToObject(server, "title", "winagent Windows desktop");
    cJSON_AddStringToObject(server, "version", WINAGENT_VERSION);
    cJSON_AddStringToObject(res, "instructions", instructions);
    rep->result = res;
}

static void do_set_level(struct req *rq, const cJSON *params, struct reply *rep)
{
    const char *level = mcp_req_str_param(params, "level");
    for (int i = 0; level && i < (int)(sizeof mcp_req_log_levels / sizeof *mcp_req_log_levels); i++)
        if (strcmp(level, mcp_req_log_levels[i]) == 0) {
            os_mutex_lock(rq->s->state);
            rq->s->level = i;
            os_mutex_unlock(rq->s->state);
            rep->result = cJSON_CreateObject();
            return;
        }
    mcp_req_error(rep, RPC_INVALID_PARAMS,
                  "logging/setLevel needs a level: debug, info, notice, warning, error, critical, "
                  "alert or emergency");
}
static void do_tools_call(struct req *rq, const cJSON *params, struct reply *rep)
{
    struct mcp_server *s = rq->s;
    const char *name = mcp_req_str_param(params, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    if (!name) {
        mcp_req_error(rep, RPC_INVALID_PARAMS, "tools/call needs a tool name");
        return;
    }
    /* An unknown tool is a protocol error (MCP 2025-06-18, tools: error handling). */
    const struct op_def *op = op_by_cli(name);
    if (!offered(s->core, op)) {
        mcp_req_error(rep, RPC_INVALID_PARAMS, "Unknown tool: %s", name);
        return;
    }
    if (args && !cJSON_IsNull(args) && !cJSON_IsObject(args)) {
        mcp_req_error(rep, RPC_INVALID_PARAMS, "arguments of %s must be an object", name);
        return;
    }
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    struct mcp_progress pg = {s, rq->sink,
                              cJSON_IsString(token) || cJSON_IsNumber(token) ? token : NULL, -1};
    mcp_req_send_progress(&pg, 0, 0, "started");
    struct op_request q;
    struct op_result r;
    op_result_init(&r);
    int64_t t0 = os_now_ms();
    wa_err e = wire_request(cJSON_IsObject(args) ? args : NULL, WIRE_CLI, op, &q);
    if (!e) {
        os_mutex_lock(s->state);
        s->call_sink = rq->sink; /* where its questions to the client's user go */
        os_mutex_unlock(s->state);
        mcp_req_perform(rq, &q, &r, &pg);
        os_mutex_lock(s->state);
        s->call_sink = NULL;
        os_mutex_unlock(s->state);
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
        mcp_req_send_progress(&pg, secs > pg.last ? secs : pg.last + 0.001, 0, "done");
        int level = r.err == WA_E_DENIED || r.err == WA_E_SHELL_DISABLED ? LOG_WARNING
                    : r.err                                              ? LOG_ERROR
                                                                         : LOG_INFO;
        mcp_req_log(s, rq->sink, level, "%s: %s%s%s", name, r.err ? wa_err_code(r.err) : "ok",
                    r.err ? ": " : "", r.err ? r.message : (r.summary[0] ? r.summary : ""));
        rep->result = call_result(&r, s->version);
    }
    op_result_cleanup(&r);
    op_request_cleanup(&q);
}

static void dispatch(struct req *rq, const char *method, const cJSON *params, struct reply *rep)
{
    if (params && !cJSON_IsObject(params) && !cJSON_IsNull(params)) {
        mcp_req_error(rep, RPC_INVALID_PARAMS, "params of %s must be an object", method);
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
        mcp_res_list(rq, rep);
    else if (strcmp(method, "resources/templates/list") == 0)
        mcp_res_templates_list(rq, rep);
    else if (strcmp(method, "resources/read") == 0)
        mcp_res_read(rq, params, rep);
    else if (strcmp(method, "completion/complete") == 0)
        mcp_res_complete(rq, params, rep);
    else if (strcmp(method, "prompts/list") == 0)
        mcp_res_prompts_list(rq, rep);
    else if (strcmp(method, "prompts/get") == 0)
        mcp_res_prompts_get(params, rep);
    else
        mcp_req_error(rep, RPC_METHOD_NOT_FOUND, "Method not found: %s", method);
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
    mcp_req_error(&rep, code, "%s", message);
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
                    cJSON_GetObjectItemCaseSensitive(msg, "error"))) {
        mcp_ask_response(s, msg); /* the answer to an elicitation, else nothing */
        return NULL;
    }
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
