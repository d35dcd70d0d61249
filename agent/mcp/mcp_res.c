/* The MCP server's resources (the windows, a window's tree and screenshot), argument
 * completion, and prompts. */
#include "agent/mcp/mcp_res.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/request/op_schema.h"
#include "agent/core/request/wire.h"
#include "agent/front/cli.h"
#include "agent/mcp/mcp_req.h"
#include "automation/image/base64.h"
#include "automation/image/image.h"
#include "base/args.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"
#include "base/version.h"

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
    if (mcp_req_since(version, "2025-06-18"))
        cJSON_AddStringToObject(o, "title", title);
    cJSON_AddStringToObject(o, "description", description);
    cJSON_AddStringToObject(o, "mimeType", mime);
    return o;
}

void mcp_res_list(struct req *rq, struct reply *rep)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(res, "resources");
    cJSON_AddItemToArray(list, resource_json("uri", URI_WINDOWS, "windows", "Top-level windows",
                                             "The desktop's top-level windows: handle, title, "
                                             "class, process, rectangle, state.",
                                             "application/json", rq->s->version));
    rep->result = res;
}

void mcp_res_templates_list(struct req *rq, struct reply *rep)
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

void mcp_res_read(struct req *rq, const cJSON *params, struct reply *rep)
{
    const char *uri = mcp_req_str_param(params, "uri");
    if (!uri) {
        mcp_req_error(rep, RPC_INVALID_PARAMS, "resources/read needs a uri");
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
        mcp_req_perform(rq, &q, &r, NULL);
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

void mcp_res_complete(struct req *rq, const cJSON *params, struct reply *rep)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(params, "ref");
    const cJSON *arg = cJSON_GetObjectItemCaseSensitive(params, "argument");
    const char *type = mcp_req_str_param(ref, "type"), *name = mcp_req_str_param(arg, "name");
    const char *value = mcp_req_str_param(arg, "value");
    if (!type || !name || !value) {
        mcp_req_error(rep, RPC_INVALID_PARAMS,
                      "completion/complete needs ref.type, argument.name "
                      "and argument.value");
        return;
    }
    cJSON *res = cJSON_CreateObject();
    cJSON *c = cJSON_AddObjectToObject(res, "completion");
    cJSON *values = cJSON_AddArrayToObject(c, "values");
    const char *uri = mcp_req_str_param(ref, "uri");
    if (strcmp(type, "ref/resource") == 0 && uri &&
        strncmp(uri, URI_WINDOW, strlen(URI_WINDOW)) == 0 && strcmp(name, "window") == 0) {
        struct op_request q;
        struct op_result r;
        op_request_init(&q, op_def(OP_LIST_WINDOWS));
        op_result_init(&r);
        mcp_req_perform(rq, &q, &r, NULL);
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

void mcp_res_prompts_list(struct req *rq, struct reply *rep)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "prompts"), p);
    cJSON_AddStringToObject(p, "name", "desktop-task");
    if (mcp_req_since(rq->s->version, "2025-06-18"))
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

void mcp_res_prompts_get(const cJSON *params, struct reply *rep)
{
    const char *name = mcp_req_str_param(params, "name");
    const char *task =
        mcp_req_str_param(cJSON_GetObjectItemCaseSensitive(params, "arguments"), "task");
    if (!name || strcmp(name, "desktop-task") != 0) {
        mcp_req_error(rep, RPC_INVALID_PARAMS, "Unknown prompt: %.200s (there is desktop-task)",
                      name ? name : "(none)");
        return;
    }
    if (!task || !*task) {
        mcp_req_error(rep, RPC_INVALID_PARAMS, "desktop-task needs the argument \"task\"");
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
