/* The MCP server: JSON-RPC 2.0 messages mapped onto the command layer's commands. */
#include "agent/front/mcp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/front/args.h"
#include "agent/front/cli.h"
#include "agent/front/wire.h"
#include "agent/version.h"
#include "automation/image.h"
#include "base/os.h"
#include "base/str.h"

#define LINE_MAX_BYTES  (64u << 20) /* a client message (a line) */
#define REPLY_MAX_BYTES (96u << 20) /* a reply: base64 of a capped PNG plus JSON */

/* JSON-RPC error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
};

/* Newest first: the answer to a client that asks for a version we do not know. */
static const char *const protocol_versions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

static const char instructions[] =
    "winagent drives this Windows desktop. Call `windows` to see the top-level windows and "
    "`state` (with `window`) to get a window's elements as a numbered tree; the numbers are "
    "refs for click, fill, invoke, toggle, select and the others until the next state. "
    "Acting tools focus their window, act, verify and return window_state and a screenshot; "
    "`screenshot` returns the scale and origin that map image pixels to screen pixels "
    "(screen = origin + image / scale) for the *-at tools.";

struct mcp_server {
    struct core *core;
    struct session *ses;
    const char *version;  /* negotiated protocol version, NULL before initialize */
    struct mcp_sink sink; /* for messages that belong to no request */
};

void mcp_server_set_sink(struct mcp_server *s, const struct mcp_sink *sink)
{
    if (sink)
        s->sink = *sink;
    else
        memset(&s->sink, 0, sizeof s->sink);
}

const char *mcp_server_version(const struct mcp_server *s)
{
    return s->version;
}

wa_err mcp_server_new(struct core *c, struct mcp_server **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return wa_fail(WA_E_NOMEM, "out of memory");
    (*out)->core = c;
    struct session_opts so;
    session_opts_default(&so);
    so.front = "mcp";
    so.refs = true;
    so.after = AFTER_IMAGE;
    so.settle_ms = 150;
    wa_err e = session_new(c, &so, &(*out)->ses);
    if (e) {
        free(*out);
        *out = NULL;
    }
    return e;
}

void mcp_server_free(struct mcp_server *s)
{
    if (!s)
        return;
    session_free(s->ses);
    free(s);
}

/* ---- tools/list ---- */

static const char *json_type(const struct arg_def *d)
{
    switch (d->type) {
    case ARG_T_INT:
        return "integer";
    case ARG_T_NUM:
        return "number";
    case ARG_T_BOOL:
        return "boolean";
    default:
        return "string";
    }
}

static void add_property(cJSON *props, const struct op_def *op, enum op_arg a)
{
    const struct arg_def *d = arg_def(a);
    cJSON *p = cJSON_AddObjectToObject(props, d->name);
    if (d->type == ARG_T_WINDOW || d->type == ARG_T_ELEMENT) { /* 3 or "e3"; a handle or a title */
        cJSON *types = cJSON_AddArrayToObject(p, "type");
        cJSON_AddItemToArray(types, cJSON_CreateString("string"));
        cJSON_AddItemToArray(types, cJSON_CreateString("integer"));
    } else {
        cJSON_AddStringToObject(p, "type", json_type(d));
    }
    cJSON_AddStringToObject(p, "description", op_arg_help(op, a));
    if (d->choices) {
        cJSON *arr = cJSON_AddArrayToObject(p, "enum");
        char word[64];
        for (const char *c = d->choices; c && *c;) {
            const char *end = strchr(c, ',');
            size_t n = end ? (size_t)(end - c) : strlen(c);
            snprintf(word, sizeof word, "%.*s", (int)n, c);
            cJSON_AddItemToArray(arr, cJSON_CreateString(word));
            c = end ? end + 1 : NULL;
        }
    }
    if ((d->type == ARG_T_INT || d->type == ARG_T_NUM) && (d->min != 0 || d->max != 0) &&
        d->range == RANGE_REJECT) {
        cJSON_AddNumberToObject(p, "minimum", d->min);
        cJSON_AddNumberToObject(p, "maximum", d->max);
    }
}

static cJSON *tool_json(const struct op_def *op)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", op->cli);
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

    cJSON *schema = cJSON_AddObjectToObject(t, "inputSchema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(schema, "properties");
    cJSON *required = cJSON_CreateArray();
    for (int i = 0; i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++) {
        const struct op_arg_use *u = &op->args[i];
        if (u->flags & OPA_MODEL)
            continue;
        add_property(props, op, u->arg);
        if (op_arg_required(u->flags, false))
            cJSON_AddItemToArray(required, cJSON_CreateString(arg_def(u->arg)->name));
    }
    if (cJSON_GetArraySize(required) > 0)
        cJSON_AddItemToObject(schema, "required", required);
    else
        cJSON_Delete(required);

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

cJSON *mcp_tools_list(const struct core *c)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(res, "tools");
    for (int i = 0; i < OP__COUNT; i++)
        if (offered(c, op_def((enum op_id)i)))
            cJSON_AddItemToArray(tools, tool_json(op_def((enum op_id)i)));
    return res;
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
static cJSON *call_result(const struct op_result *r)
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
    dynbuf_init(&b64, REPLY_MAX_BYTES);
    bool image =
        r->has_image && r->png.len > 0 && base64_encode(r->png.data, r->png.len, &b64) == WA_E_OK;
    char *text = cJSON_PrintUnformatted(j);
    add_text(content, text ? text : "{}");
    free(text);
    for (int i = 0; i < 2; i++) {
        if (cJSON_IsString(trees[i]))
            add_text(content, trees[i]->valuestring);
        cJSON_Delete(trees[i]);
    }
    if (image) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "type", "image");
        cJSON_AddStringToObject(item, "data", dynbuf_str(&b64));
        cJSON_AddStringToObject(item, "mimeType", "image/png");
        cJSON_AddItemToArray(content, item);
    }
    dynbuf_cleanup(&b64);
    cJSON_Delete(j);
    cJSON_AddBoolToObject(res, "isError", r->err != WA_E_OK);
    return res;
}

/* ---- JSON-RPC ---- */

struct reply {
    cJSON *result; /* exactly one of result and error is set for a request */
    int code;
    char message[600];
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

static void do_initialize(struct mcp_server *s, const cJSON *params, struct reply *rep)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    const char *chosen = protocol_versions[0];
    for (size_t i = 0;
         cJSON_IsString(v) && i < sizeof protocol_versions / sizeof *protocol_versions; i++)
        if (strcmp(v->valuestring, protocol_versions[i]) == 0)
            chosen = protocol_versions[i];
    s->version = chosen;
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "clientInfo");
    const cJSON *cname = cJSON_GetObjectItemCaseSensitive(info, "name");
    fprintf(stderr, "winagent mcp: %s asked for %s, speaking %s\n",
            cJSON_IsString(cname) ? cname->valuestring : "a client",
            cJSON_IsString(v) ? v->valuestring : "(no version)", chosen);

    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "protocolVersion", chosen);
    cJSON *caps = cJSON_AddObjectToObject(res, "capabilities");
    cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
    cJSON_AddBoolToObject(tools, "listChanged", false);
    cJSON *server = cJSON_AddObjectToObject(res, "serverInfo");
    cJSON_AddStringToObject(server, "name", "winagent");
    cJSON_AddStringToObject(server, "title", "winagent Windows desktop");
    cJSON_AddStringToObject(server, "version", WINAGENT_VERSION);
    cJSON_AddStringToObject(res, "instructions", instructions);
    rep->result = res;
}

static void do_tools_call(struct mcp_server *s, const cJSON *params, struct reply *rep)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    if (!cJSON_IsString(name)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "tools/call needs a tool name");
        return;
    }
    /* An unknown tool is a protocol error (MCP 2025-06-18, tools: error handling). */
    const struct op_def *op = op_by_cli(name->valuestring);
    if (!offered(s->core, op)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "Unknown tool: %s", name->valuestring);
        return;
    }
    if (args && !cJSON_IsNull(args) && !cJSON_IsObject(args)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "arguments of %s must be an object", name->valuestring);
        return;
    }
    struct op_request q;
    struct op_result r;
    op_result_init(&r);
    int64_t t0 = os_now_ms();
    wa_err e = wire_request(cJSON_IsObject(args) ? args : NULL, WIRE_CLI, op, &q);
    if (!e) {
        core_perform(s->ses, &q, &r);
    } else {
        r.op = op;
        r.err = e;
        snprintf(r.message, sizeof r.message, "%s",
                 *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    }
    fprintf(stderr, "winagent mcp: %s -> %s%s%s (%lld ms)\n", name->valuestring, wa_err_code(r.err),
            r.err ? ": " : "", r.err ? r.message : "", (long long)(os_now_ms() - t0));
    rep->result = call_result(&r);
    op_result_cleanup(&r);
    op_request_cleanup(&q);
}

/* Serves one request (method with an id); fills rep. */
static void dispatch(struct mcp_server *s, const char *method, const cJSON *params,
                     struct reply *rep)
{
    if (params && !cJSON_IsObject(params) && !cJSON_IsNull(params)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "params of %s must be an object", method);
        return;
    }
    if (strcmp(method, "initialize") == 0)
        do_initialize(s, params, rep);
    else if (strcmp(method, "ping") == 0)
        rep->result = cJSON_CreateObject();
    else if (strcmp(method, "tools/list") == 0)
        rep->result = mcp_tools_list(s->core); /* everything fits one page: no cursor */
    else if (strcmp(method, "tools/call") == 0)
        do_tools_call(s, params, rep);
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
static cJSON *handle_message(struct mcp_server *s, const cJSON *msg)
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
    if (!id) /* notifications (initialized, cancelled, ...) get no reply */
        return NULL;
    struct reply rep = {0};
    dispatch(s, method->valuestring, cJSON_GetObjectItemCaseSensitive(msg, "params"), &rep);
    return response(id, &rep);
}

wa_err mcp_handle_message(struct mcp_server *s, const char *line, size_t len, struct dynbuf *out,
                          const struct mcp_sink *sink)
{
    (void)sink; /* nothing is sent while a message is handled yet */
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
                cJSON *r = handle_message(s, m);
                if (r)
                    cJSON_AddItemToArray(reply, r);
            }
            if (cJSON_GetArraySize(reply) == 0) {
                cJSON_Delete(reply);
                reply = NULL;
            }
        }
    } else {
        reply = handle_message(s, msg);
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

/* ---- stdio ---- */

/* Reads one line (without its newline) into line. WA_E_OK with a line;
 * WA_E_TOO_LARGE when it exceeded the cap (the rest of it is skipped);
 * WA_E_IO at end of input (a last line without a newline is still returned first). */
static wa_err read_line(FILE *in, struct dynbuf *line)
{
    char chunk[4096];
    bool too_large = false, any = false;
    dynbuf_reset(line);
    for (;;) {
        /* Byte by byte from stdio's buffer: a NUL in a line stays in it (and makes it a
         * parse error) instead of cutting it short. */
        size_t n = 0;
        int c = EOF;
        while (n < sizeof chunk && (c = getc(in)) != EOF && c != '\n')
            chunk[n++] = (char)c;
        any = any || n > 0 || c == '\n';
        if (!too_large && n && dynbuf_add(line, chunk, n) != WA_E_OK) {
            too_large = true;
            dynbuf_reset(line);
        }
        if (c == '\n' || (c == EOF && any))
            return too_large ? WA_E_TOO_LARGE : WA_E_OK;
        if (c == EOF)
            return WA_E_IO;
    }
}

static bool write_line(FILE *out, struct dynbuf *reply)
{
    if (reply->len == 0)
        return true;
    bool ok = fwrite(reply->data, 1, reply->len, out) == reply->len && fputc('\n', out) != EOF &&
              fflush(out) == 0;
    dynbuf_reset(reply);
    return ok;
}

static const char mcp_usage[] =
    "usage: winagent mcp [--allow-shell] [--dry-run] [--audit-log FILE]\n"
    "  MCP over stdio: newline-delimited JSON-RPC 2.0 on stdin/stdout.\n";

int cmd_mcp(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    if (args_flag(&a, "help", "h")) {
        fputs(mcp_usage, stdout);
        return EXIT_OK;
    }
    struct settings set;
    wa_err e = settings_load(&set, &a, SG_DESK);
    if (!e)
        e = args_check_unknown(&a);
    if (!e && args_positional_count(&a) > 0)
        e = wa_fail(WA_E_USAGE, "mcp takes no arguments (got '%s')", args_positional(&a, 0));
    if (e) {
        settings_cleanup(&set);
        cli_fail(e);
        fputs(mcp_usage, stderr);
        return EXIT_USAGE;
    }

    FILE *out;
    if ((e = os_protocol_stdio(&out))) {
        settings_cleanup(&set);
        return cli_fail(e);
    }
    os_interrupt_install(false); /* stdin is the protocol: no watcher may read it */
    struct core *c = cli_core(&set, false);
    settings_cleanup(&set);
    struct mcp_server *s = NULL;
    if (!c)
        return EXIT_USAGE;
    if ((e = mcp_server_new(c, &s))) {
        core_free(c);
        return cli_fail(e);
    }
    fprintf(stderr, "winagent mcp %s: ready on stdio%s%s\n", WINAGENT_VERSION,
            core_shell(c) != SHELL_DENIED ? ", powershell on" : "",
            core_dry_run(c) ? ", dry run" : "");

    struct dynbuf line, reply;
    dynbuf_init(&line, LINE_MAX_BYTES);
    dynbuf_init(&reply, REPLY_MAX_BYTES);
    int rc = EXIT_OK;
    for (;;) {
        e = read_line(stdin, &line);
        if (e == WA_E_IO)
            break; /* end of input: the client is done */
        if (e == WA_E_TOO_LARGE) {
            cJSON *r =
                error_response(NULL, RPC_INVALID_REQUEST, "Invalid Request: message too large");
            char *text = cJSON_PrintUnformatted(r);
            cJSON_Delete(r);
            if (text)
                dynbuf_adds(&reply, text);
            free(text);
        } else if (mcp_handle_message(s, line.data, line.len, &reply, NULL) != WA_E_OK) {
            fprintf(stderr, "winagent mcp: cannot send a reply: %s\n", wa_err_detail());
            dynbuf_reset(&reply);
        }
        if (!write_line(out, &reply)) {
            fprintf(stderr, "winagent mcp: the client stopped reading\n");
            break;
        }
    }
    if (os_interrupted())
        rc = EXIT_INTERRUPTED;
    dynbuf_cleanup(&line);
    dynbuf_cleanup(&reply);
    mcp_server_free(s);
    core_free(c);
    fclose(out);
    return rc;
}
