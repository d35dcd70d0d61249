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
#include "llm/formats/turns.h"

/* ---- request ---- */

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
    char *url = provider_data_url(im->mime, im->base64);
    cJSON *p = cJSON_CreateObject(), *iu = cJSON_CreateObject();
    bool ok = url && p && iu;
    if (ok) {
        ok = cJSON_AddStringToObject(p, "type", "image_url") &&
             cJSON_AddStringToObject(iu, "url", url) && provider_add(p, "image_url", iu);
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
    if (!provider_add(messages, NULL, m) || !cJSON_AddStringToObject(m, "role", "user"))
        return false;
    if (!n_images)
        return cJSON_AddStringToObject(m, "content", text ? text : "") != NULL;
    cJSON *parts = cJSON_CreateArray();
    if (!provider_add(m, "content", parts))
        return false;
    if (text && text[0] && !provider_add(parts, NULL, text_part(text)))
        return false;
    for (size_t i = 0; i < n_images; i++)
        if (!provider_add(parts, NULL, image_part(&images[i])))
            return false;
    return true;
}

/* A tool message: the result's text (its images follow in add_result_images). */
static bool add_tool_message(cJSON *messages, const struct llm_tool_call *tc,
                             const struct llm_message *r)
{
    const char *text = r ? r->text : LLM_NO_RESULT;
    cJSON *m = cJSON_CreateObject();
    return provider_add(messages, NULL, m) && cJSON_AddStringToObject(m, "role", "tool") &&
           cJSON_AddStringToObject(m, "tool_call_id", tc->id ? tc->id : "") &&
           cJSON_AddStringToObject(m, "content", text ? text : "");
}

static bool add_assistant(cJSON *messages, const struct llm_message *msg, bool with_calls)
{
    size_t n_calls = with_calls ? msg->n_calls : 0;
    cJSON *m = cJSON_CreateObject();
    if (!provider_add(messages, NULL, m) || !cJSON_AddStringToObject(m, "role", "assistant"))
        return false;
    /* With tool calls and no text, content is left out: servers disagree on null and "". */
    if ((msg->text && msg->text[0]) || !n_calls)
        if (!cJSON_AddStringToObject(m, "content", msg->text ? msg->text : ""))
            return false;
    if (!n_calls)
        return true;
    cJSON *calls = cJSON_CreateArray();
    if (!provider_add(m, "tool_calls", calls))
        return false;
    for (size_t i = 0; i < n_calls; i++) {
        const struct llm_tool_call *tc = &msg->calls[i];
        cJSON *c = cJSON_CreateObject(), *fn = cJSON_CreateObject();
        if (!provider_add(calls, NULL, c) || !provider_add(c, "function", fn) ||
            !cJSON_AddStringToObject(c, "id", tc->id ? tc->id : "") ||
            !cJSON_AddStringToObject(c, "type", "function") ||
            !cJSON_AddStringToObject(fn, "name", tc->name ? tc->name : "") ||
            !cJSON_AddStringToObject(fn, "arguments", tc->arguments ? tc->arguments : "{}"))
            return false;
    }
    return true;
}

/* A result answering none of a round's calls: its text as user text, with its images. */
static bool add_orphan(cJSON *messages, const struct llm_message *r)
{
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
    return ok;
}

/* The images of a round's results, as one user message after them: tool messages
 * cannot carry images. */
static bool add_result_images(cJSON *messages, const struct llm_conversation *conv, size_t i)
{
    const struct llm_message *msg = &conv->messages[i];
    size_t n_images = 0;
    for (size_t k = 0; k < msg->n_calls; k++) {
        const struct llm_message *r = provider_find_result(conv, i, msg->calls[k].id);
        n_images += r ? r->n_images : 0;
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
        const struct llm_message *r = provider_find_result(conv, i, msg->calls[k].id);
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

/* A tool message for every call (the API rejects a call left unanswered), results that
 * answer none of them as user text, then one user message with the results' images. */
static const struct llm_encoder openai_encoder = {
    .user = add_user,
    .assistant = add_assistant,
    .result = add_tool_message,
    .orphan = add_orphan,
    .after_round = add_result_images,
};

/* {"function":{"name","description","parameters"},"type":"function"} */
static bool add_function(cJSON *list, const struct llm_tool *t, wa_err *err)
{
    cJSON *o = cJSON_CreateObject(), *fn = cJSON_CreateObject();
    if (!provider_add(list, NULL, o)) {
        cJSON_Delete(fn);
        return false;
    }
    return provider_add(o, "function", fn) && cJSON_AddStringToObject(o, "type", "function") &&
           provider_add_function(fn, t, "parameters", err);
}

static bool no_computer_tool(cJSON *list, const struct llm_computer_tool *ct,
                             const struct llm_settings *s, wa_err *err)
{
    (void)list, (void)ct, (void)s;
    *err = wa_fail(WA_E_INVALID_ARGS, "Chat Completions has no computer tool: use the functions or "
                                      "text tool protocol, or the openai-responses provider");
    return false;
}

static wa_err openai_build(const struct llm_settings *s, const struct llm_conversation *conv,
                           const struct llm_tool *tools, size_t n_tools, struct llm_wire *out)
{
    wa_err err = WA_E_OK;
    cJSON *root = cJSON_CreateObject(), *messages = cJSON_CreateArray();
    bool ok = provider_add(root, "messages", messages) && /* messages is freed either way */
              cJSON_AddStringToObject(root, "model", s->model);
    if (ok && conv->system) {
        cJSON *m = cJSON_CreateObject();
        ok = provider_add(messages, NULL, m) && cJSON_AddStringToObject(m, "role", "system") &&
             cJSON_AddStringToObject(m, "content", conv->system);
    }
    ok = ok && turns_write(messages, conv, &openai_encoder);
    if (ok && n_tools)
        ok = provider_add_tools(root, tools, n_tools, s, add_function, no_computer_tool, &err);
    if (ok && n_tools && s->tool_choice && !(s->dropped & LLM_PARAM_TOOL_CHOICE))
        ok = cJSON_AddStringToObject(root, "tool_choice", s->tool_choice) != NULL;
    if (ok)
        ok = cJSON_AddBoolToObject(root, "stream", s->stream) != NULL;
    if (ok && s->stream && s->stream_options) {
        cJSON *so = cJSON_CreateObject();
        ok = provider_add(root, "stream_options", so) && cJSON_AddTrueToObject(so, "include_usage");
    }
    if (ok && s->max_tokens > 0)
        ok = cJSON_AddNumberToObject(root, "max_tokens", s->max_tokens) != NULL;
    if (ok && s->temperature >= 0 && !(s->dropped & LLM_PARAM_TEMPERATURE))
        ok = cJSON_AddNumberToObject(root, "temperature", s->temperature) != NULL;
    if ((err = provider_wire_set_body(out, root, ok, err)))
        return err;

    if (!(out->url = provider_url_join(s->base_url, "/chat/completions", NULL)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = provider_wire_json_headers(out, s->stream);
    return e ? e : provider_wire_openai_key(out, s->base_url, s->api_key);
}

/* ---- replies ---- */

/* An error object in a 2xx body or mid-stream ({"error":{...}}): the server's message,
 * retried when its code says the failure is transient (or names no status). */
static wa_err error_object(struct reply_asm *a, const cJSON *root, bool mid_stream)
{
    const cJSON *err = provider_get(root, "error");
    const cJSON *code = cJSON_IsObject(err) ? provider_get(err, "code") : NULL;
    const cJSON *type = cJSON_IsObject(err) ? provider_get(err, "type") : NULL;
    char msg[320];
    retry_error_message_json(root, msg, sizeof msg);
    long status = provider_json_long(code, 0, 999, -1); /* 1e300 is no status */
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
        const cJSON *t = provider_get(part, "text");
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
    const cJSON *r = provider_get(obj, "reasoning_content");
    if (!cJSON_IsString(r) || !r->valuestring[0])
        r = provider_get(obj, "reasoning");
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
    const cJSON *u = provider_get(root, "usage");
    if (!cJSON_IsObject(u))
        return WA_E_OK;
    const cJSON *p = provider_get(u, "prompt_tokens"), *c = provider_get(u, "completion_tokens");
    const cJSON *t = provider_get(u, "total_tokens");
    a->usage.prompt_tokens = provider_json_long(p, 0, LLM_TOKENS_MAX, 0);
    a->usage.completion_tokens = provider_json_long(c, 0, LLM_TOKENS_MAX, 0);
    a->usage.total_tokens = provider_json_long(t, 0, LLM_TOKENS_MAX, 0);
    return WA_E_OK;
}

static wa_err parse_message(struct reply_asm *a, const cJSON *msg)
{
    wa_err e = add_reasoning(a, msg);
    if (!e)
        e = add_content(a, provider_get(msg, "content"), false);
    const cJSON *refusal = provider_get(msg, "refusal");
    if (!e && !a->text.len && cJSON_IsString(refusal))
        e = add_content(a, refusal, false);
    const cJSON *tc;
    cJSON_ArrayForEach(tc, provider_get(msg, "tool_calls"))
    {
        struct asm_call *c;
        const cJSON *fn = provider_get(tc, "function");
        if (!e)
            e = asm_new_call(a, &c);
        if (!e)
            e = provider_set_json_str(&c->id, provider_get(tc, "id"));
        if (!e)
            e = provider_set_json_str(&c->name, provider_get(fn, "name"));
        if (!e)
            e = set_arguments(a, c, provider_get(fn, "arguments"), false);
    }
    return e;
}

static wa_err openai_parse_body(struct reply_asm *a, const char *body, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root)
        return provider_not_json("the reply", body, len);
    wa_err e = WA_E_OK;
    const cJSON *choice = cJSON_GetArrayItem(provider_get(root, "choices"), 0);
    if (provider_get(root, "error") && !choice) {
        e = error_object(a, root, false);
        goto out;
    }
    if (!cJSON_IsObject(choice)) {
        e = wa_fail(WA_E_PARSE, "the reply has no choices");
        goto out;
    }
    e = parse_message(a, provider_get(choice, "message"));
    if (!e)
        e = provider_set_json_str(&a->finish_reason, provider_get(choice, "finish_reason"));
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
    const cJSON *idx = provider_get(tc, "index"), *fn = provider_get(tc, "function");
    const cJSON *id = provider_get(tc, "id"), *name = provider_get(fn, "name"),
                *args = provider_get(fn, "arguments");
    const char *new_id = cJSON_IsString(id) && id->valuestring[0] ? id->valuestring : NULL;
    bool has_name = cJSON_IsString(name) && name->valuestring[0];
    struct asm_call *c = NULL;
    /* an index outside 0 to a million is no index (and no integer to convert) */
    long index = provider_json_long(idx, 0, 1000000, -1);
    bool has_index = index >= 0;
    if (has_index) {
        c = asm_call_at(a, index);
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
        e = text_set_str(&c->id, new_id);
    if (!e && has_name && !c->name)
        e = text_set_str(&c->name, name->valuestring);
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
        return provider_not_json("a stream event", data, len);
    wa_err e = WA_E_OK;
    if (provider_get(root, "error")) {
        e = error_object(a, root, true);
        goto out;
    }
    const cJSON *choice = cJSON_GetArrayItem(provider_get(root, "choices"), 0);
    const cJSON *delta = provider_get(choice, "delta");
    if (!delta)
        delta = provider_get(choice, "message"); /* a few servers stream whole messages */
    if (delta) {
        e = add_reasoning(a, delta);
        if (!e)
            e = add_content(a, provider_get(delta, "content"), false);
        if (!e) /* a refusal is the model's answer in words */
            e = add_content(a, provider_get(delta, "refusal"), false);
        const cJSON *tc;
        cJSON_ArrayForEach(tc, provider_get(delta, "tool_calls"))
        {
            if (!e)
                e = tool_delta(a, tc);
        }
    }
    if (!e)
        e = provider_set_json_str(&a->finish_reason, provider_get(choice, "finish_reason"));
    if (!e)
        e = parse_usage(a, root);
out:
    cJSON_Delete(root);
    return e;
}

static wa_err openai_finish(struct reply_asm *a, bool streamed)
{
    return provider_finish_reply(a, streamed && !a->done && !a->finish_reason, "length",
                                 "content_filter", "reply withheld by the server's content filter");
}

const struct llm_provider_ops llm_openai_ops = {
    .name = "openai-compatible",
    .build = openai_build,
    .parse_body = openai_parse_body,
    .parse_event = openai_parse_event,
    .finish = openai_finish,
};
