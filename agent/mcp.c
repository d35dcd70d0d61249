/* The MCP server: JSON-RPC 2.0 messages mapped onto the command layer's commands. */
#include "agent/mcp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/args.h"
#include "agent/cli.h"
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
    struct ctl *c;
    const char *version; /* negotiated protocol version, NULL before initialize */
};

wa_err mcp_server_new(struct ctl *c, struct mcp_server **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return wa_fail(WA_E_NOMEM, "out of memory");
    (*out)->c = c;
    return WA_E_OK;
}

void mcp_server_free(struct mcp_server *s)
{
    free(s);
}

/* ---- tools/list ---- */

static const struct {
    const char *name, *title;
} titles[] = {
    {"windows", "List windows"},
    {"state", "Window elements (accessibility tree)"},
    {"screenshot", "Screenshot"},
    {"click", "Click element"},
    {"dblclick", "Double-click element"},
    {"rightclick", "Right-click element"},
    {"click-at", "Click at screen pixels"},
    {"fill", "Fill text field"},
    {"type", "Type text"},
    {"keys", "Press keys"},
    {"invoke", "Invoke element"},
    {"toggle", "Toggle check box"},
    {"expand", "Expand element"},
    {"collapse", "Collapse element"},
    {"select", "Select item"},
    {"scroll", "Scroll"},
    {"drag", "Drag element"},
    {"drag-at", "Drag between screen pixels"},
    {"get", "Read element"},
    {"wait", "Wait"},
    {"focus", "Focus window"},
    {"launch", "Launch program"},
    {"close", "Close window"},
    {"find", "Find elements"},
    {"powershell", "Run PowerShell"},
};

static const char *tool_title(const char *name)
{
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (strcmp(titles[i].name, name) == 0)
            return titles[i].title;
    return name;
}

static void add_property(cJSON *props, const char *name, const char *type, const char *desc)
{
    if (cJSON_GetObjectItemCaseSensitive(props, name))
        return;
    cJSON *p = cJSON_AddObjectToObject(props, name);
    cJSON_AddStringToObject(p, "type", type);
    cJSON_AddStringToObject(p, "description", desc);
    if (strcmp(name, "direction") == 0) {
        const char *dirs[] = {"up", "down", "left", "right"};
        cJSON_AddItemToObject(p, "enum", cJSON_CreateStringArray(dirs, 4));
    }
}

static cJSON *tool_json(const struct ctl_command *cmd)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", cmd->name);
    cJSON_AddStringToObject(t, "title", tool_title(cmd->name));
    struct dynbuf d;
    dynbuf_init(&d, 4096);
    dynbuf_adds(&d, cmd->description);
    if (cmd->takes_window)
        dynbuf_adds(&d, " The window is focused and verified before acting (retried up to 3 "
                        "times).");
    if (cmd->mutating)
        dynbuf_adds(&d, " Returns window_state and, unless screenshot is false, a screenshot "
                        "taken screenshot_delay_ms after acting.");
    cJSON_AddStringToObject(t, "description", dynbuf_str(&d));
    dynbuf_cleanup(&d);

    cJSON *schema = cJSON_AddObjectToObject(t, "inputSchema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(schema, "properties");
    cJSON *required = cJSON_CreateArray();
    for (size_t i = 0; i < cmd->n_params; i++) {
        const struct ctl_param *p = &cmd->params[i];
        add_property(props, p->name, p->type, p->description);
        if (p->required)
            cJSON_AddItemToArray(required, cJSON_CreateString(p->name));
    }
    if (cmd->takes_window)
        add_property(props, "window", "string",
                     "Target window: a title or process-name fragment, or a 0x handle.");
    if (cmd->mutating) {
        add_property(props, "screenshot", "boolean",
                     "Return a screenshot of the window after acting (default true).");
        add_property(props, "screenshot_delay_ms", "integer",
                     "Pause before that screenshot, in milliseconds (default 150).");
        add_property(props, "return_state", "boolean",
                     "Also return the window's fresh state (refs renewed).");
    }
    if (cJSON_GetArraySize(required) > 0)
        cJSON_AddItemToObject(schema, "required", required);
    else
        cJSON_Delete(required);

    cJSON *ann = cJSON_AddObjectToObject(t, "annotations");
    cJSON_AddStringToObject(ann, "title", tool_title(cmd->name));
    cJSON_AddBoolToObject(ann, "readOnlyHint", !cmd->mutating);
    cJSON_AddBoolToObject(ann, "destructiveHint", cmd->destructive);
    if (!cmd->mutating)
        cJSON_AddBoolToObject(ann, "idempotentHint", true);
    /* Only the shell reaches beyond this desktop. */
    cJSON_AddBoolToObject(ann, "openWorldHint", strcmp(cmd->name, "powershell") == 0);
    return t;
}

cJSON *mcp_tools_list(const struct ctl *c)
{
    size_t n;
    const struct ctl_command *cmds = ctl_commands(c, &n);
    cJSON *res = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(res, "tools");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(tools, tool_json(&cmds[i]));
    return res;
}

/* ---- tools/call ---- */

/* Width and height from a PNG's IHDR; false when png is not a PNG. */
static bool png_size(const struct dynbuf *png, unsigned *w, unsigned *h)
{
    const unsigned char *p = (const unsigned char *)png->data;
    if (png->len < 24 || memcmp(p, "\x89PNG\r\n\x1a\n", 8) != 0)
        return false;
    *w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
    *h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
    return true;
}

static void add_text(cJSON *content, const char *text)
{
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text);
    cJSON_AddItemToArray(content, item);
}

/* The tools/call result: a text item with the result JSON (trees are moved out into
 * text items of their own, unescaped, for the model to read) and the image, if any. */
static cJSON *call_result(const struct ctl_result *r)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(res, "content");
    cJSON *j = ctl_result_json(r);
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
    unsigned w = 0, h = 0;
    bool image = r->png.len > 0 && png_size(&r->png, &w, &h) &&
                 base64_encode(r->png.data, r->png.len, &b64) == WA_E_OK;
    if (image && !cJSON_GetObjectItemCaseSensitive(data, "image")) {
        /* how image pixels map to the screen, where the command did not say */
        cJSON *meta = cJSON_AddObjectToObject(j, "image");
        cJSON_AddNumberToObject(meta, "width", w);
        cJSON_AddNumberToObject(meta, "height", h);
        cJSON_AddNumberToObject(meta, "scale", r->scale);
        int origin[2] = {r->origin_x, r->origin_y};
        cJSON_AddItemToObject(meta, "origin", cJSON_CreateIntArray(origin, 2));
        cJSON_AddStringToObject(meta, "mapping", "screen = origin + image_pixel / scale");
    }
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
    cJSON_AddBoolToObject(res, "isError", !r->success);
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
    if (!ctl_find_command(s->c, name->valuestring)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "Unknown tool: %s", name->valuestring);
        return;
    }
    if (args && !cJSON_IsNull(args) && !cJSON_IsObject(args)) {
        rpc_error(rep, RPC_INVALID_PARAMS, "arguments of %s must be an object", name->valuestring);
        return;
    }
    struct ctl_result r;
    ctl_result_init(&r);
    int64_t t0 = os_now_ms();
    ctl_run(s->c, name->valuestring, cJSON_IsObject(args) ? args : NULL, &r);
    fprintf(stderr, "winagent mcp: %s -> %s%s%s (%lld ms)\n", name->valuestring, wa_err_code(r.err),
            r.success ? "" : ": ", r.success ? "" : r.message, (long long)(os_now_ms() - t0));
    rep->result = call_result(&r);
    ctl_result_cleanup(&r);
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
        rep->result = mcp_tools_list(s->c); /* everything fits one page: no cursor */
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

wa_err mcp_handle_line(struct mcp_server *s, const char *line, size_t len, struct dynbuf *out)
{
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (len == 0)
        return WA_E_OK;
    cJSON *msg = cJSON_ParseWithLength(line, len);
    cJSON *reply = NULL;
    if (!msg) {
        reply = error_response(NULL, RPC_PARSE_ERROR, "Parse error");
    } else if (cJSON_IsArray(msg)) { /* a batch (protocol 2024-11-05) */
        if (cJSON_GetArraySize(msg) == 0) {
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
    char chunk[65536];
    bool too_large = false;
    dynbuf_reset(line);
    for (;;) {
        if (!fgets(chunk, sizeof chunk, in)) {
            if (line->len > 0 || too_large)
                return too_large ? WA_E_TOO_LARGE : WA_E_OK;
            return WA_E_IO;
        }
        size_t n = strlen(chunk);
        bool end = n > 0 && chunk[n - 1] == '\n';
        if (!too_large && dynbuf_add(line, chunk, end ? n - 1 : n) != WA_E_OK) {
            too_large = true;
            dynbuf_reset(line);
        }
        if (end)
            return too_large ? WA_E_TOO_LARGE : WA_E_OK;
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
    struct ctl_opts o = {0};
    o.allow_shell = args_flag(&a, "allow-shell", NULL);
    o.dry_run = args_flag(&a, "dry-run", NULL);
    o.gate.audit_path = args_value(&a, "audit-log", NULL);
    o.screenshot_by_default = true;
    wa_err e = a.err ? a.err : args_check_unknown(&a);
    if (!e && args_positional_count(&a) > 0)
        e = wa_fail(WA_E_USAGE, "mcp takes no arguments (got '%s')", args_positional(&a, 0));
    if (e) {
        cli_fail(e);
        fputs(mcp_usage, stderr);
        return EXIT_USAGE;
    }

    FILE *out;
    if ((e = os_protocol_stdio(&out)))
        return cli_fail(e);
    os_interrupt_install(false); /* stdin is the protocol: no watcher may read it */
    const struct wa_backend *b = cli_backend();
    if (!b)
        return EXIT_USAGE;
    struct ctl *c = NULL;
    struct mcp_server *s = NULL;
    if ((e = ctl_new(b, &o, &c)) || (e = mcp_server_new(c, &s))) {
        ctl_free(c);
        return cli_fail(e);
    }
    fprintf(stderr, "winagent mcp %s: ready on stdio%s%s\n", WINAGENT_VERSION,
            o.allow_shell ? ", powershell on" : "", o.dry_run ? ", dry run" : "");

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
        } else if (mcp_handle_line(s, line.data, line.len, &reply) != WA_E_OK) {
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
    ctl_free(c);
    fclose(out);
    return rc;
}
