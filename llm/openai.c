/* The OpenAI-compatible provider (Chat Completions).
 * Renders requests, parses whole and streamed replies, and absorbs the differences
 * between servers (Ollama, vLLM, LM Studio, OpenRouter, Azure). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/provider.h"
#include "llm/retry.h"
#include "llm/text.h"

/* ---- request ---- */

/* Building a request only fails for want of memory: helpers return false then. */
static bool add_item(cJSON *parent, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item))
        return true;
    cJSON_Delete(item);
    return false;
}

static cJSON *text_part(const char *text)
{
    cJSON *p = cJSON_CreateObject();
    if (p && (!cJSON_AddStringToObject(p, "type", "text") ||
              !cJSON_AddStringToObject(p, "text", text))) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

static cJSON *image_part(const struct llm_image *im)
{
    const char *mime = im->mime ? im->mime : "image/png";
    const char *data = im->base64 ? im->base64 : "";
    size_t n = strlen(mime) + strlen(data) + 16;
    char *url = malloc(n);
    cJSON *p = cJSON_CreateObject(), *iu = cJSON_CreateObject();
    bool ok = url && p && iu;
    if (ok) {
        snprintf(url, n, "data:%s;base64,%s", mime, data);
        ok = cJSON_AddStringToObject(p, "type", "image_url") &&
             cJSON_AddStringToObject(iu, "url", url) && add_item(p, "image_url", iu);
        iu = NULL;
    }
    free(url);
    cJSON_Delete(iu);
    if (!ok) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

/* {"role":"user","content": "text" | [parts]} */
static bool add_user(cJSON *messages, const char *text, const struct llm_image *images,
                     size_t n_images)
{
    cJSON *m = cJSON_CreateObject();
    if (!add_item(messages, NULL, m) || !cJSON_AddStringToObject(m, "role", "user"))
        return false;
    if (!n_images)
        return cJSON_AddStringToObject(m, "content", text ? text : "") != NULL;
    cJSON *parts = cJSON_CreateArray();
    if (!add_item(m, "content", parts))
        return false;
    if (text && text[0] && !add_item(parts, NULL, text_part(text)))
        return false;
    for (size_t i = 0; i < n_images; i++)
        if (!add_item(parts, NULL, image_part(&images[i])))
            return false;
    return true;
}

static bool add_tool_message(cJSON *messages, const char *call_id, const char *text)
{
    cJSON *m = cJSON_CreateObject();
    return add_item(messages, NULL, m) && cJSON_AddStringToObject(m, "role", "tool") &&
           cJSON_AddStringToObject(m, "tool_call_id", call_id) &&
           cJSON_AddStringToObject(m, "content", text ? text : "");
}

static bool add_assistant(cJSON *messages, const struct llm_message *msg)
{
    cJSON *m = cJSON_CreateObject();
    if (!add_item(messages, NULL, m) || !cJSON_AddStringToObject(m, "role", "assistant"))
        return false;
    /* With tool calls and no text, content is left out: servers disagree on null and "". */
    if ((msg->text && msg->text[0]) || !msg->n_calls)
        if (!cJSON_AddStringToObject(m, "content", msg->text ? msg->text : ""))
            return false;
    if (!msg->n_calls)
        return true;
    cJSON *calls = cJSON_CreateArray();
    if (!add_item(m, "tool_calls", calls))
        return false;
    for (size_t i = 0; i < msg->n_calls; i++) {
        const struct llm_tool_call *tc = &msg->calls[i];
        cJSON *c = cJSON_CreateObject(), *fn = cJSON_CreateObject();
        if (!add_item(calls, NULL, c) || !add_item(c, "function", fn) ||
            !cJSON_AddStringToObject(c, "id", tc->id ? tc->id : "") ||
            !cJSON_AddStringToObject(c, "type", "function") ||
            !cJSON_AddStringToObject(fn, "name", tc->name ? tc->name : "") ||
            !cJSON_AddStringToObject(fn, "arguments", tc->arguments ? tc->arguments : "{}"))
            return false;
    }
    return true;
}

/* An assistant turn with tool calls, then a tool message for every call (a stand-in
 * when the result is missing, which the API would reject), then one user message
 * with the results' images: tool messages cannot carry images. Returns the index of
 * the last message consumed. */
static bool add_tool_round(cJSON *messages, const struct llm_conversation *conv, size_t i,
                           size_t *last)
{
    const struct llm_message *msg = &conv->messages[i];
    if (!add_assistant(messages, msg))
        return false;
    size_t end = i + 1;
    while (end < conv->n_messages && conv->messages[end].role == LLM_ROLE_TOOL)
        end++;
    *last = end - 1;
    size_t n_images = 0;
    for (size_t k = 0; k < msg->n_calls; k++) {
        const struct llm_tool_call *tc = &msg->calls[k];
        const struct llm_message *r = llm_find_result(conv, i, tc->id);
        if (!add_tool_message(messages, tc->id ? tc->id : "",
                              r ? r->text : "(no result: the call was not executed)"))
            return false;
        n_images += r ? r->n_images : 0;
    }
    /* Results that answer none of these calls: keep their text, as user text. */
    for (size_t j = i + 1; j < end; j++) {
        const struct llm_message *r = &conv->messages[j];
        bool matched = false;
        for (size_t k = 0; k < msg->n_calls && !matched; k++)
            matched = msg->calls[k].id && r->tool_call_id &&
                      strcmp(msg->calls[k].id, r->tool_call_id) == 0;
        if (matched)
            continue;
        char head[200];
        snprintf(head, sizeof head, "Result of %s (%s):\n", r->tool_name ? r->tool_name : "tool",
                 r->tool_call_id ? r->tool_call_id : "?");
        size_t n = strlen(head) + (r->text ? strlen(r->text) : 0) + 1;
        char *text = malloc(n);
        if (!text)
            return false;
        snprintf(text, n, "%s%s", head, r->text ? r->text : "");
        bool ok = add_user(messages, text, r->images, r->n_images);
        free(text);
        if (!ok)
            return false;
    }
    if (!n_images)
        return true;
    struct llm_image *all = calloc(n_images, sizeof *all);
    char label[512];
    size_t used =
        (size_t)snprintf(label, sizeof label, "Observation image%s for", n_images > 1 ? "s" : "");
    size_t n = 0;
    if (!all)
        return false;
    for (size_t k = 0; k < msg->n_calls; k++) {
        const struct llm_message *r = llm_find_result(conv, i, msg->calls[k].id);
        if (!r || !r->n_images)
            continue;
        for (size_t m = 0; m < r->n_images; m++)
            all[n++] = r->images[m]; /* shallow: only read while rendering */
        if (used < sizeof label)
            used += (size_t)snprintf(label + used, sizeof label - used, "%s %s",
                                     n > r->n_images ? "," : "", r->tool_call_id);
    }
    bool ok = add_user(messages, label, all, n);
    free(all);
    return ok;
}

/* An assistant turn whose calls were written as text: that text, then its results as
 * one user message (the server knows no tool messages). */
static bool add_text_round(cJSON *messages, const struct llm_conversation *conv, size_t i,
                           size_t *last)
{
    struct llm_message said = conv->messages[i];
    said.n_calls = 0; /* shallow: only the text is rendered */
    char *text;
    struct llm_image *images;
    size_t n_images;
    if (!add_assistant(messages, &said) ||
        !llm_text_round_results(conv, i, &text, &images, &n_images, last))
        return false;
    bool ok = !text || add_user(messages, text, images, n_images);
    free(text);
    free(images);
    return ok;
}

static bool add_tools(cJSON *root, const struct llm_tool *tools, size_t n_tools, wa_err *err)
{
    cJSON *list = cJSON_CreateArray();
    if (!add_item(root, "tools", list))
        return false;
    for (size_t i = 0; i < n_tools; i++) {
        if (tools[i].computer) { /* Chat Completions has no computer tool */
            *err = wa_fail(WA_E_INVALID_ARGS,
                           "Chat Completions has no computer tool: use the functions or text "
                           "tool protocol, or the openai-responses provider");
            return false;
        }
        cJSON *t = cJSON_CreateObject(), *fn = cJSON_CreateObject();
        if (!add_item(list, NULL, t) || !add_item(t, "function", fn) ||
            !cJSON_AddStringToObject(t, "type", "function") ||
            !cJSON_AddStringToObject(fn, "name", tools[i].name) ||
            (tools[i].description &&
             !cJSON_AddStringToObject(fn, "description", tools[i].description)))
            return false;
        cJSON *params = NULL;
        if (tools[i].parameters) {
            params = cJSON_IsObject(tools[i].parameters)
                         ? cJSON_Duplicate(tools[i].parameters, true)
                         : NULL;
        } else if ((params = cJSON_CreateObject())) {
            cJSON_AddStringToObject(params, "type", "object");
            cJSON_AddObjectToObject(params, "properties");
        }
        if (!params) {
            *err = wa_fail(WA_E_INVALID_ARGS, "tool %s: parameters are not a JSON object",
                           tools[i].name);
            return false;
        }
        if (!add_item(fn, "parameters", params))
            return false;
    }
    return true;
}

static wa_err openai_build(const struct llm_settings *s, const struct llm_conversation *conv,
                           const struct llm_tool *tools, size_t n_tools, struct llm_wire *out)
{
    wa_err err = WA_E_OK;
    cJSON *root = cJSON_CreateObject(), *messages = cJSON_CreateArray();
    bool ok = add_item(root, "messages", messages) && /* messages is freed either way */
              cJSON_AddStringToObject(root, "model", s->model);
    if (ok && conv->system) {
        cJSON *m = cJSON_CreateObject();
        ok = add_item(messages, NULL, m) && cJSON_AddStringToObject(m, "role", "system") &&
             cJSON_AddStringToObject(m, "content", conv->system);
    }
    for (size_t i = 0; ok && i < conv->n_messages; i++) {
        const struct llm_message *m = &conv->messages[i];
        switch (m->role) {
        case LLM_ROLE_USER:
            ok = add_user(messages, m->text, m->images, m->n_images);
            break;
        case LLM_ROLE_ASSISTANT:
            if (m->calls_as_text)
                ok = add_text_round(messages, conv, i, &i);
            else if (m->n_calls)
                ok = add_tool_round(messages, conv, i, &i);
            else
                ok = add_assistant(messages, m);
            break;
        case LLM_ROLE_TOOL: { /* a result with no tool call before it: plain user text */
            char *text = llm_orphan_result_text(m);
            ok = text && add_user(messages, text, m->images, m->n_images);
            free(text);
            break;
        }
        }
    }
    if (ok && n_tools)
        ok = add_tools(root, tools, n_tools, &err);
    if (ok && n_tools && s->tool_choice)
        ok = cJSON_AddStringToObject(root, "tool_choice", s->tool_choice) != NULL;
    if (ok)
        ok = cJSON_AddBoolToObject(root, "stream", s->stream) != NULL;
    if (ok && s->stream) {
        cJSON *so = cJSON_CreateObject();
        ok = add_item(root, "stream_options", so) && cJSON_AddTrueToObject(so, "include_usage");
    }
    if (ok && s->max_tokens > 0)
        ok = cJSON_AddNumberToObject(root, "max_tokens", s->max_tokens) != NULL;
    if (ok && s->temperature >= 0)
        ok = cJSON_AddNumberToObject(root, "temperature", s->temperature) != NULL;
    if (ok) {
        out->body = cJSON_PrintUnformatted(root);
        ok = out->body != NULL;
        out->body_len = ok ? strlen(out->body) : 0;
    }
    cJSON_Delete(root);
    if (!ok)
        return err ? err : wa_fail(WA_E_NOMEM, "out of memory building the request");

    if (!(out->url = llm_url_join(s->base_url, "/chat/completions", NULL)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = llm_wire_add_header(out, "Content-Type: application/json");
    if (!e)
        e = llm_wire_add_header(out, "Accept: %s",
                                s->stream ? "text/event-stream" : "application/json");
    if (!e && s->api_key && s->api_key[0]) {
        if (llm_is_azure(s->base_url))
            e = llm_wire_add_header(out, "api-key: %s", s->api_key);
        else
            e = llm_wire_add_header(out, "Authorization: Bearer %s", s->api_key);
    }
    return e;
}

/* ---- replies ---- */

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* An error object in a 2xx body or mid-stream ({"error":{...}}): the server's message,
 * retried when its code says the failure is transient (or names no status). */
static wa_err error_object(struct reply_asm *a, const cJSON *root, bool mid_stream)
{
    const cJSON *err = get(root, "error");
    const cJSON *code = cJSON_IsObject(err) ? get(err, "code") : NULL;
    const cJSON *type = cJSON_IsObject(err) ? get(err, "type") : NULL;
    char msg[320];
    retry_error_message_json(root, msg, sizeof msg);
    long status = llm_json_long(code, 0, 999, -1); /* 1e300 is no status */
    if (status >= 0) {
        a->error_status = status;
        a->retryable = retry_status_transient(a->error_status);
    } else {
        /* "server_error" and friends: upstream trouble that another attempt may avoid;
         * a request the server calls invalid will stay invalid. */
        a->retryable = !(cJSON_IsString(type) && strstr(type->valuestring, "invalid_request"));
    }
    return wa_fail(WA_E_HTTP, "server error%s: %s", mid_stream ? " mid-stream" : "",
                   msg[0] ? msg : "(no message)");
}

/* content may be a string, null, or (some servers) an array of text parts. */
static wa_err add_content(struct reply_asm *a, const cJSON *content, bool reasoning)
{
    if (cJSON_IsString(content))
        return asm_add_text(a, content->valuestring, strlen(content->valuestring), reasoning);
    const cJSON *part, *list = cJSON_IsArray(content) ? content : NULL;
    cJSON_ArrayForEach(part, list)
    {
        const cJSON *t = get(part, "text");
        if (cJSON_IsString(t)) {
            wa_err e = asm_add_text(a, t->valuestring, strlen(t->valuestring), reasoning);
            if (e)
                return e;
        }
    }
    return WA_E_OK;
}

/* reasoning_content (DeepSeek, vLLM) or reasoning (OpenRouter, Ollama); one of them. */
static wa_err add_reasoning(struct reply_asm *a, const cJSON *obj)
{
    const cJSON *r = get(obj, "reasoning_content");
    if (!cJSON_IsString(r) || !r->valuestring[0])
        r = get(obj, "reasoning");
    return cJSON_IsString(r) ? add_content(a, r, true) : WA_E_OK;
}

/* Arguments: a JSON string as the API says, or an object as some servers send. */
static wa_err set_arguments(struct reply_asm *a, struct asm_call *c, const cJSON *args, bool append)
{
    if (cJSON_IsString(args))
        return asm_call_add_args(a, c, args->valuestring, strlen(args->valuestring));
    if (!args || cJSON_IsNull(args))
        return WA_E_OK;
    char *text = cJSON_PrintUnformatted(args);
    if (!text)
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (!append)
        dynbuf_reset(&c->args);
    wa_err e = asm_call_add_args(a, c, text, strlen(text));
    cJSON_free(text);
    return e;
}

static wa_err parse_usage(struct reply_asm *a, const cJSON *root)
{
    const cJSON *u = get(root, "usage");
    if (!cJSON_IsObject(u))
        return WA_E_OK;
    const cJSON *p = get(u, "prompt_tokens"), *c = get(u, "completion_tokens");
    const cJSON *t = get(u, "total_tokens");
    a->usage.prompt_tokens = llm_json_long(p, 0, LLM_TOKENS_MAX, 0);
    a->usage.completion_tokens = llm_json_long(c, 0, LLM_TOKENS_MAX, 0);
    a->usage.total_tokens = llm_json_long(t, 0, LLM_TOKENS_MAX, 0);
    return WA_E_OK;
}

static wa_err parse_message(struct reply_asm *a, const cJSON *msg)
{
    wa_err e = add_reasoning(a, msg);
    if (!e)
        e = add_content(a, get(msg, "content"), false);
    const cJSON *refusal = get(msg, "refusal");
    if (!e && !a->text.len && cJSON_IsString(refusal))
        e = add_content(a, refusal, false);
    const cJSON *tc;
    cJSON_ArrayForEach(tc, get(msg, "tool_calls"))
    {
        struct asm_call *c;
        const cJSON *fn = get(tc, "function");
        if (!e)
            e = asm_new_call(a, &c);
        if (!e)
            e = llm_set_json_str(&c->id, get(tc, "id"));
        if (!e)
            e = llm_set_json_str(&c->name, get(fn, "name"));
        if (!e)
            e = set_arguments(a, c, get(fn, "arguments"), false);
    }
    return e;
}

static wa_err openai_parse_body(struct reply_asm *a, const char *body, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root)
        return llm_not_json("the reply", body, len);
    wa_err e = WA_E_OK;
    const cJSON *choice = cJSON_GetArrayItem(get(root, "choices"), 0);
    if (get(root, "error") && !choice) {
        e = error_object(a, root, false);
        goto out;
    }
    if (!cJSON_IsObject(choice)) {
        e = wa_fail(WA_E_PARSE, "the reply has no choices");
        goto out;
    }
    e = parse_message(a, get(choice, "message"));
    if (!e)
        e = llm_set_json_str(&a->finish_reason, get(choice, "finish_reason"));
    if (!e)
        e = parse_usage(a, root);
    a->done = true;
out:
    cJSON_Delete(root);
    return e;
}

/* Whether a call's arguments so far are a whole JSON value (a later name then starts a
 * new call on servers that send whole calls without distinct indexes). */
static bool args_complete(const struct asm_call *c)
{
    if (!c->args.len)
        return false;
    cJSON *v = cJSON_ParseWithLength(c->args.data, c->args.len);
    bool whole = v != NULL;
    cJSON_Delete(v);
    return whole;
}

/* One entry of delta.tool_calls: assembled by index; a missing index is made up. */
static wa_err tool_delta(struct reply_asm *a, const cJSON *tc)
{
    const cJSON *idx = get(tc, "index"), *fn = get(tc, "function");
    const cJSON *id = get(tc, "id"), *name = get(fn, "name"), *args = get(fn, "arguments");
    const char *new_id = cJSON_IsString(id) && id->valuestring[0] ? id->valuestring : NULL;
    bool has_name = cJSON_IsString(name) && name->valuestring[0];
    struct asm_call *c = NULL;
    /* an index outside 0 to a million is no index (and no integer to convert) */
    long index = llm_json_long(idx, 0, 1000000, -1);
    bool has_index = index >= 0;
    if (has_index) {
        for (size_t i = a->n_calls; i-- > 0 && !c;)
            if (a->calls[i].index == index)
                c = &a->calls[i];
    } else if (a->n_calls) {
        c = &a->calls[a->n_calls - 1];
    }
    if (c && new_id && c->id && strcmp(c->id, new_id) != 0)
        c = NULL; /* another call under a reused (or absent) index */
    if (c && has_name && c->name && args_complete(c))
        c = NULL; /* a new call's head after a finished call, without index or id */
    wa_err e = WA_E_OK;
    if (!c) {
        if ((e = asm_new_call(a, &c)))
            return e;
        if (index < 0)
            for (size_t i = 0; i + 1 < a->n_calls; i++)
                index = a->calls[i].index > index ? a->calls[i].index : index;
        c->index = has_index ? index : index + 1;
    }
    if (new_id && !c->id)
        e = llm_set_str(&c->id, new_id);
    if (!e && has_name && !c->name)
        e = llm_set_str(&c->name, name->valuestring);
    if (!e)
        e = set_arguments(a, c, args, false);
    return e;
}

static wa_err openai_parse_event(struct reply_asm *a, const char *data, size_t len)
{
    if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
        a->done = true;
        return WA_E_OK;
    }
    cJSON *root = cJSON_ParseWithLength(data, len);
    if (!root)
        return llm_not_json("a stream event", data, len);
    wa_err e = WA_E_OK;
    if (get(root, "error")) {
        e = error_object(a, root, true);
        goto out;
    }
    const cJSON *choice = cJSON_GetArrayItem(get(root, "choices"), 0);
    const cJSON *delta = get(choice, "delta");
    if (!delta)
        delta = get(choice, "message"); /* a few servers stream whole messages */
    if (delta) {
        e = add_reasoning(a, delta);
        if (!e)
            e = add_content(a, get(delta, "content"), false);
        if (!e) /* a refusal is the model's answer in words */
            e = add_content(a, get(delta, "refusal"), false);
        const cJSON *tc;
        cJSON_ArrayForEach(tc, get(delta, "tool_calls"))
        {
            if (!e)
                e = tool_delta(a, tc);
        }
    }
    if (!e)
        e = llm_set_json_str(&a->finish_reason, get(choice, "finish_reason"));
    if (!e)
        e = parse_usage(a, root);
out:
    cJSON_Delete(root);
    return e;
}

static wa_err openai_finish(struct reply_asm *a, bool streamed)
{
    if (streamed && !a->done && !a->finish_reason) {
        a->retryable = true;
        return wa_fail(WA_E_NETWORK, "the stream ended before the reply was complete");
    }
    if (asm_has_content(a))
        return WA_E_OK;
    const char *f = a->finish_reason ? a->finish_reason : "";
    if (strcmp(f, "length") == 0)
        return wa_fail(WA_E_PARSE, "reply cut at max tokens before any text or tool call");
    if (strcmp(f, "content_filter") == 0)
        return wa_fail(WA_E_BLOCKED, "reply withheld by the server's content filter");
    return WA_E_OK;
}

const struct llm_provider_ops llm_openai_ops = {
    .name = "openai-compatible",
    .build = openai_build,
    .parse_body = openai_parse_body,
    .parse_event = openai_parse_event,
    .finish = openai_finish,
};
