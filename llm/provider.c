/* Pieces every provider shares: the wire request, URL joining, finding tool results, the
 * JSON helpers of requests and the checks at a reply's end. */
#include "llm/provider.h"
#include "llm/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynbuf.h"

void provider_wire_cleanup(struct llm_wire *w)
{
    free(w->url);
    for (size_t i = 0; i < w->n_headers; i++)
        free(w->headers[i]);
    free(w->body);
    memset(w, 0, sizeof *w);
}

wa_err provider_wire_add_header(struct llm_wire *w, const char *fmt, ...)
{
    if (w->n_headers == LLM_WIRE_MAX_HEADERS)
        return wa_fail(WA_E_INVALID_ARGS, "too many request headers");
    struct dynbuf b;
    dynbuf_init(&b, 64 * 1024);
    va_list ap;
    va_start(ap, fmt);
    wa_err e = dynbuf_vaddf(&b, fmt, ap);
    va_end(ap);
    if (e) {
        dynbuf_cleanup(&b);
        return e;
    }
    if (!(w->headers[w->n_headers] = dynbuf_take(&b)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    w->n_headers++;
    return WA_E_OK;
}

const struct llm_provider_ops *provider_ops_for(enum llm_provider_kind k)
{
    switch (k) {
    case LLM_PROVIDER_GOOGLE:
        return &llm_gemini_ops;
    case LLM_PROVIDER_OPENAI_RESPONSES:
        return &llm_responses_ops;
    case LLM_PROVIDER_ANTHROPIC:
        return &llm_anthropic_ops;
    case LLM_PROVIDER_OPENAI:
        break;
    }
    return &llm_openai_ops;
}

/* Azure OpenAI resources (host under .azure.com) take their key in "api-key". */
static bool llm_is_azure(const char *url)
{
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t n = strcspn(host, "/:?");
    static const char suffix[] = ".azure.com";
    size_t k = sizeof suffix - 1;
    return n >= k && memcmp(host + n - k, suffix, k) == 0;
}

char *provider_url_join(const char *base, const char *path, const char *extra_query)
{
    const char *q = strchr(base, '?');
    size_t blen = q ? (size_t)(q - base) : strlen(base);
    while (blen && base[blen - 1] == '/')
        blen--;
    size_t plen = strlen(path);
    struct dynbuf b;
    dynbuf_init(&b, 64 * 1024);
    wa_err e = dynbuf_add(&b, base, blen);
    if (!e && !(blen >= plen && memcmp(base + blen - plen, path, plen) == 0))
        e = dynbuf_adds(&b, path);
    if (!e && q && q[1])
        e = dynbuf_adds(&b, q);
    if (!e && extra_query && extra_query[0])
        e = dynbuf_addf(&b, "%c%s", q && q[1] ? '&' : '?', extra_query);
    if (e) {
        dynbuf_cleanup(&b);
        return NULL;
    }
    return dynbuf_take(&b);
}

const struct llm_message *provider_find_result(const struct llm_conversation *conv, size_t i,
                                               const char *call_id)
{
    for (size_t j = i + 1; j < conv->n_messages && conv->messages[j].role == LLM_ROLE_TOOL; j++) {
        const struct llm_message *m = &conv->messages[j];
        if (m->tool_call_id && call_id && strcmp(m->tool_call_id, call_id) == 0)
            return m;
    }
    return NULL;
}

bool provider_text_round_results(const struct llm_conversation *conv, size_t i, char **text,
                                 struct llm_image **images, size_t *n_images, size_t *last)
{
    *text = NULL;
    *images = NULL;
    *n_images = 0;
    size_t end = i + 1, n_img = 0;
    while (end < conv->n_messages && conv->messages[end].role == LLM_ROLE_TOOL)
        n_img += conv->messages[end++].n_images;
    *last = end - 1;
    if (end == i + 1)
        return true;
    struct dynbuf b;
    dynbuf_init(&b, 64u << 20);
    wa_err e = WA_E_OK;
    for (size_t j = i + 1; !e && j < end; j++) {
        const struct llm_message *r = &conv->messages[j];
        e = dynbuf_addf(&b, "%sResult of %s (%s):\n%s", j > i + 1 ? "\n\n" : "",
                        r->tool_name && r->tool_name[0] ? r->tool_name : "tool",
                        r->tool_call_id ? r->tool_call_id : "?", r->text ? r->text : "");
    }
    if (!e && n_img && !(*images = calloc(n_img, sizeof **images)))
        e = WA_E_NOMEM;
    for (size_t j = i + 1; !e && j < end; j++)
        for (size_t k = 0; k < conv->messages[j].n_images; k++)
            (*images)[(*n_images)++] = conv->messages[j].images[k];
    if (!e && !(*text = dynbuf_take(&b)))
        e = WA_E_NOMEM;
    dynbuf_cleanup(&b);
    if (e) {
        free(*images);
        *images = NULL;
        *n_images = 0;
        return false;
    }
    return true;
}

bool provider_goes_verbatim(const struct llm_message *m, const char *wire)
{
    return m->verbatim && m->verbatim_wire && strcmp(m->verbatim_wire, wire) == 0;
}

bool provider_add_verbatim(cJSON *list, const struct llm_message *m)
{
    cJSON *blocks = cJSON_Parse(m->verbatim);
    if (!blocks)
        return false;
    cJSON *b;
    while ((b = cJSON_DetachItemFromArray(blocks, 0)) != NULL)
        if (!provider_add(list, NULL, b)) {
            cJSON_Delete(blocks);
            return false;
        }
    cJSON_Delete(blocks);
    return true;
}

char *provider_orphan_result_text(const struct llm_message *m)
{
    const char *name = m->tool_name ? m->tool_name : "tool";
    const char *text = m->text ? m->text : "";
    size_t n = strlen(name) + strlen(text) + 16;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "Result of %s: %s", name, text);
    return out;
}

long provider_json_long(const cJSON *v, long lo, long hi, long def)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)lo && v->valuedouble <= (double)hi))
        return def; /* NaN fails both comparisons */
    return (long)v->valuedouble;
}

wa_err provider_set_json_str(char **dst, const cJSON *v)
{
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return WA_E_OK;
    return text_set_str(dst, v->valuestring);
}

wa_err provider_not_json(const char *what, const char *data, size_t len)
{
    char snip[160];
    text_snippet(snip, sizeof snip, data, len, 120);
    return wa_fail(WA_E_PARSE, "%s is not valid JSON: %s", what, snip);
}

const cJSON *provider_get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

bool provider_is_type(const cJSON *o, const char *type)
{
    const cJSON *t = provider_get(o, "type");
    return cJSON_IsString(t) && strcmp(t->valuestring, type) == 0;
}

bool provider_add(cJSON *parent, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item))
        return true;
    cJSON_Delete(item);
    return false;
}

char *provider_data_url(const char *mime, const char *base64)
{
    mime = mime ? mime : "image/png";
    base64 = base64 ? base64 : "";
    size_t n = strlen(mime) + strlen(base64) + 16;
    char *url = malloc(n);
    if (url)
        snprintf(url, n, "data:%s;base64,%s", mime, base64);
    return url;
}

/* A function tool's parameters as the JSON-schema object sent (a new one): a copy of
 * t->parameters, or {"type":"object","properties":{}} when it has none. NULL when out
 * of memory, or with *err set (WA_E_INVALID_ARGS) when parameters are no object. */
static cJSON *llm_tool_schema(const struct llm_tool *t, wa_err *err)
{
    if (t->parameters && !cJSON_IsObject(t->parameters)) {
        *err = wa_fail(WA_E_INVALID_ARGS, "tool %s: parameters are not a JSON object", t->name);
        return NULL;
    }
    if (t->parameters)
        return cJSON_Duplicate(t->parameters, true);
    cJSON *schema = cJSON_CreateObject();
    if (schema && (!cJSON_AddStringToObject(schema, "type", "object") ||
                   !cJSON_AddObjectToObject(schema, "properties"))) {
        cJSON_Delete(schema);
        return NULL;
    }
    return schema;
}

bool provider_add_function(cJSON *obj, const struct llm_tool *t, const char *schema_key,
                           wa_err *err)
{
    return cJSON_AddStringToObject(obj, "name", t->name) &&
           (!t->description || cJSON_AddStringToObject(obj, "description", t->description)) &&
           provider_add(obj, schema_key, llm_tool_schema(t, err));
}

bool provider_add_tools(cJSON *root, const struct llm_tool *tools, size_t n_tools,
                        const struct llm_settings *s, llm_function_fn function,
                        llm_computer_fn computer, wa_err *err)
{
    cJSON *list = cJSON_CreateArray();
    if (!provider_add(root, "tools", list))
        return false;
    for (size_t i = 0; i < n_tools; i++)
        if (!(tools[i].computer ? computer(list, tools[i].computer, s, err)
                                : function(list, &tools[i], err)))
            return false;
    return true;
}

wa_err provider_wire_set_body(struct llm_wire *out, cJSON *root, bool ok, wa_err err)
{
    if (ok) {
        out->body = cJSON_PrintUnformatted(root);
        ok = out->body != NULL;
        out->body_len = ok ? strlen(out->body) : 0;
    }
    cJSON_Delete(root);
    if (ok)
        return WA_E_OK;
    return err ? err : wa_fail(WA_E_NOMEM, "out of memory building the request");
}

wa_err provider_wire_json_headers(struct llm_wire *out, bool stream)
{
    wa_err e = provider_wire_add_header(out, "Content-Type: application/json");
    if (!e)
        e = provider_wire_add_header(out, "Accept: %s",
                                     stream ? "text/event-stream" : "application/json");
    return e;
}

wa_err provider_wire_openai_key(struct llm_wire *out, const char *base, const char *key)
{
    if (!key || !key[0])
        return WA_E_OK;
    if (llm_is_azure(base))
        return provider_wire_add_header(out, "api-key: %s", key);
    return provider_wire_add_header(out, "Authorization: Bearer %s", key);
}

wa_err provider_finish_reply(struct reply_asm *a, bool cut, const char *max_tokens,
                             const char *blocked, const char *why)
{
    if (cut) {
        a->retryable = true;
        return wa_fail(WA_E_NETWORK, "the stream ended before the reply was complete");
    }
    const char *f = a->finish_reason ? a->finish_reason : "";
    /* cut at the output cap: what came may be a sentence or a call cut short */
    a->cut_by_cap = strcmp(f, max_tokens) == 0;
    if (asm_has_content(a))
        return WA_E_OK;
    if (a->cut_by_cap)
        return wa_fail(WA_E_PARSE, "reply cut at max tokens before any text or tool call");
    if (strcmp(f, blocked) == 0)
        return wa_fail(WA_E_BLOCKED, "%s", why);
    return WA_E_OK;
}
