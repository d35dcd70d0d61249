/* The Anthropic provider (the Messages API, POST /v1/messages): alternating user and
 * assistant turns of content blocks, tool_use answered by tool_result blocks that carry
 * the observation's image; whole replies and the streamed events. Each assistant turn
 * goes back as it came (its thinking blocks with their signatures). The computer tool is
 * the version the model takes: the toolset, whose calls are member tool_use blocks named
 * by the action and whose results echo the toolset's name, or the older tool declared
 * with its beta header and display, whose tool_use input (action, coordinate...) is the
 * call's arguments; each tool_result carries winagent's report and the screenshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/models.h"
#include "llm/provider.h"
#include "llm/retry.h"
#include "llm/text.h"
#include "llm/formats/turns.h"

#define ANTHROPIC_DEFAULT_BASE "https://api.anthropic.com"
#define ANTHROPIC_VERSION      "2023-06-01"
#define ANTHROPIC_MAX_TOKENS   4096 /* the API requires a limit; a turn of calls fits */
#define CONTEXT_BETA           "context-management-2025-06-27"
#define BINDING_BETA           "thinking-binding-controls-2026-08-01"

/* ---- request ---- */

/* The content array of a new message with this role; consecutive messages of one role
 * are merged, since the API wants them alternating. */
static cJSON *content_for(cJSON *messages, const char *role)
{
    int n = cJSON_GetArraySize(messages);
    cJSON *last = n ? cJSON_GetArrayItem(messages, n - 1) : NULL;
    const cJSON *r = provider_get(last, "role");
    if (last && cJSON_IsString(r) && strcmp(r->valuestring, role) == 0)
        return cJSON_GetObjectItemCaseSensitive(last, "content");
    cJSON *m = cJSON_CreateObject(), *content = cJSON_CreateArray();
    if (!provider_add(messages, NULL, m) || !cJSON_AddStringToObject(m, "role", role) ||
        !provider_add(m, "content", content))
        return NULL;
    return content;
}

/* A text block; the API refuses empty ones, so those are left out. */
static bool add_text(cJSON *content, const char *text)
{
    if (!text || !text[0])
        return true;
    cJSON *b = cJSON_CreateObject();
    return provider_add(content, NULL, b) && cJSON_AddStringToObject(b, "type", "text") &&
           cJSON_AddStringToObject(b, "text", text);
}

static bool add_images(cJSON *content, const struct llm_image *images, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cJSON *b = cJSON_CreateObject(), *src = cJSON_CreateObject();
        if (!provider_add(content, NULL, b)) {
            cJSON_Delete(src);
            return false;
        }
        if (!cJSON_AddStringToObject(b, "type", "image") || !provider_add(b, "source", src) ||
            !cJSON_AddStringToObject(src, "type", "base64") ||
            !cJSON_AddStringToObject(src, "media_type",
                                     images[i].mime ? images[i].mime : "image/png") ||
            !cJSON_AddStringToObject(src, "data", images[i].base64 ? images[i].base64 : ""))
            return false;
    }
    return true;
}

static bool add_user(cJSON *messages, const char *text, const struct llm_image *images, size_t n)
{
    cJSON *content = content_for(messages, "user");
    return content &&
           add_text(content, text && text[0] ? text
                             : n             ? NULL
                                             : "(empty)") &&
           add_images(content, images, n);
}

/* A tool_use block per call. */
static bool add_tool_uses(cJSON *content, const struct llm_message *msg)
{
    for (size_t i = 0; i < msg->n_calls; i++) {
        const struct llm_tool_call *tc = &msg->calls[i];
        cJSON *b = cJSON_CreateObject();
        /* malformed arguments (kept raw) go as {}: the API needs an object */
        cJSON *input = tc->parsed ? cJSON_Duplicate(tc->parsed, true) : cJSON_CreateObject();
        if (!provider_add(content, NULL, b)) {
            cJSON_Delete(input);
            return false;
        }
        if (!cJSON_AddStringToObject(b, "type", "tool_use") ||
            !cJSON_AddStringToObject(b, "id", tc->id ? tc->id : "") ||
            !cJSON_AddStringToObject(b, "name", tc->name ? tc->name : "") ||
            !provider_add(b, "input", input) ||
            (tc->toolset && !cJSON_AddStringToObject(b, "toolset_name", tc->toolset)))
            return false;
    }
    return true;
}

/* The assistant's turn as the API returned it, thinking blocks and all; a turn that did
 * not come from it: its text and, with_calls, a tool_use block per call, followed by the
 * text the model wrote after them. */
static bool add_assistant(cJSON *messages, const struct llm_message *msg, bool with_calls)
{
    cJSON *content = content_for(messages, "assistant");
    if (content && provider_goes_verbatim(msg, llm_anthropic_ops.name))
        return provider_add_verbatim(content, msg);
    char *head;
    const char *tail;
    if (!content || !turns_text_around_calls(msg, &head, &tail))
        return false;
    const char *text = tail ? head : msg->text;
    bool ok = add_text(content, text && text[0]              ? text
                                : with_calls && msg->n_calls ? NULL
                                                             : "(empty reply)") &&
              (!with_calls || add_tool_uses(content, msg)) && add_text(content, tail);
    free(head);
    return ok;
}

/* {"type":"tool_result","tool_use_id","content":[text, image...]} in the user turn that
 * follows the calls, with "is_error": true when the call failed (or was never run), and
 * the toolset's name when the call was a member of one. */
static bool add_result(cJSON *messages, const struct llm_tool_call *tc, const struct llm_message *r)
{
    cJSON *content = content_for(messages, "user");
    cJSON *b = cJSON_CreateObject(), *inner = cJSON_CreateArray();
    if (!content || !provider_add(content, NULL, b)) {
        cJSON_Delete(inner);
        return false;
    }
    const char *text = r ? r->text : LLM_NO_RESULT;
    return cJSON_AddStringToObject(b, "type", "tool_result") &&
           cJSON_AddStringToObject(b, "tool_use_id", tc->id ? tc->id : "") &&
           provider_add(b, "content", inner) &&
           add_text(inner, text && text[0] ? text : "(empty)") &&
           (!r || add_images(inner, r->images, r->n_images)) &&
           ((r && !r->failed) || cJSON_AddTrueToObject(b, "is_error")) &&
           (!tc->toolset || cJSON_AddStringToObject(b, "toolset_name", tc->toolset));
}

/* Consecutive turns of one role merge, so a round's results open one user turn, results
 * that answer none of its calls follow as text. */
static const struct llm_encoder anthropic_encoder = {
    .user = add_user,
    .assistant = add_assistant,
    .result = add_result,
};

/* The computer tool the model takes (s->computer_tool): the toolset, declared by its type
 * alone (no name, no display: coordinates are pixels of the screenshots it is sent); or
 * {"type":"computer_2025...","name":"computer","display_width_px","display_height_px"},
 * the display the screenshots' size, with enable_zoom where the version has the zoom
 * action. */
static bool add_computer_tool(cJSON *list, const struct llm_computer_tool *ct,
                              const struct llm_settings *s, wa_err *err)
{
    (void)err;
    const struct model_claude_tool *v = model_claude_tool(s->computer_tool);
    cJSON *t = cJSON_CreateObject();
    if (!provider_add(list, NULL, t) || !cJSON_AddStringToObject(t, "type", s->computer_tool))
        return false;
    if (v && v->toolset)
        return true;
    return cJSON_AddStringToObject(t, "name", "computer") &&
           cJSON_AddNumberToObject(t, "display_width_px", ct->display_width) &&
           cJSON_AddNumberToObject(t, "display_height_px", ct->display_height) &&
           (!v || !v->zoom || cJSON_AddTrueToObject(t, "enable_zoom"));
}

/* {"name","description","input_schema"} */
static bool add_function(cJSON *list, const struct llm_tool *t, wa_err *err)
{
    cJSON *o = cJSON_CreateObject();
    return provider_add(list, NULL, o) && provider_add_function(o, t, "input_schema", err);
}

/* tool_choice as the other providers say it: auto, required (the API's "any"), none. */
static bool add_tool_choice(cJSON *root, const char *choice)
{
    const char *type = strcmp(choice, "required") == 0 ? "any" : choice;
    cJSON *tc = cJSON_CreateObject();
    return provider_add(root, "tool_choice", tc) && cJSON_AddStringToObject(tc, "type", type);
}

/* context_management: the service clears tool results but the last `keep` itself, the
 * history sent staying whole (context editing, clear_tool_uses_20250919). */
static bool add_context_editing(cJSON *root, int keep)
{
    cJSON *cm = cJSON_CreateObject(), *edits = cJSON_CreateArray(), *e = cJSON_CreateObject();
    cJSON *trigger = cJSON_CreateObject(), *kept = cJSON_CreateObject();
    bool ok = provider_add(root, "context_management", cm) && provider_add(cm, "edits", edits) &&
              provider_add(edits, NULL, e) && provider_add(e, "trigger", trigger) &&
              provider_add(e, "keep", kept);
    if (!ok)
        return false;
    return cJSON_AddStringToObject(e, "type", "clear_tool_uses_20250919") &&
           cJSON_AddStringToObject(trigger, "type", "tool_uses") &&
           cJSON_AddNumberToObject(trigger, "value", keep + 1) &&
           cJSON_AddStringToObject(kept, "type", "tool_uses") &&
           cJSON_AddNumberToObject(kept, "value", keep);
}

/* thinking: adaptive, a replayed block whose history changed dropped by the service
 * rather than refused (the binding control). */
static bool add_binding_control(cJSON *root)
{
    cJSON *th = cJSON_CreateObject(), *bb = cJSON_CreateObject();
    if (!provider_add(root, "thinking", th) || !provider_add(th, "block_binding", bb))
        return false;
    return cJSON_AddStringToObject(th, "type", "adaptive") &&
           cJSON_AddStringToObject(bb, "prefix_mismatch_behavior", "drop_block");
}

/* The anthropic-beta header: the betas this request uses, comma-separated. */
static wa_err add_betas(struct llm_wire *out, const char *const *betas, size_t n)
{
    char line[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(line + len, sizeof line - len, "%s%s", len ? "," : "", betas[i]);
        if (k < 0 || (size_t)k >= sizeof line - len)
            return wa_fail(WA_E_INVALID_ARGS, "too many beta headers");
        len += (size_t)k;
    }
    return len ? provider_wire_add_header(out, "anthropic-beta: %s", line) : WA_E_OK;
}

static wa_err anthropic_build(const struct llm_settings *s, const struct llm_conversation *conv,
                              const struct llm_tool *tools, size_t n_tools, struct llm_wire *out)
{
    wa_err err = WA_E_OK;
    bool computer = false;
    for (size_t i = 0; i < n_tools; i++)
        computer = computer || tools[i].computer;
    const struct model_claude_tool *tool = computer ? model_claude_tool(s->computer_tool) : NULL;
    bool context = s->server_keep >= 0 && !(s->dropped & LLM_PARAM_CONTEXT);
    bool binding = s->drop_stale_thinking && !(s->dropped & LLM_PARAM_THINKING);
    cJSON *root = cJSON_CreateObject(), *messages = cJSON_CreateArray();
    bool ok = provider_add(root, "messages", messages) && /* messages is freed either way */
              cJSON_AddStringToObject(root, "model", s->model) &&
              cJSON_AddNumberToObject(root, "max_tokens",
                                      s->max_tokens > 0 ? s->max_tokens : ANTHROPIC_MAX_TOKENS) &&
              (!conv->system || cJSON_AddStringToObject(root, "system", conv->system));
    ok = ok && turns_write(messages, conv, &anthropic_encoder);
    if (ok && n_tools)
        ok = provider_add_tools(root, tools, n_tools, s, add_function, add_computer_tool, &err);
    if (ok && n_tools && s->tool_choice && !(s->dropped & LLM_PARAM_TOOL_CHOICE))
        ok = add_tool_choice(root, s->tool_choice);
    if (ok && context)
        ok = add_context_editing(root, s->server_keep);
    if (ok && binding)
        ok = add_binding_control(root);
    if (ok)
        ok = cJSON_AddBoolToObject(root, "stream", s->stream) != NULL;
    if (ok && s->temperature >= 0 && !(s->dropped & LLM_PARAM_TEMPERATURE))
        ok = cJSON_AddNumberToObject(root, "temperature", s->temperature) != NULL;
    if ((err = provider_wire_set_body(out, root, ok, err)))
        return err;

    const char *base = s->base_url && s->base_url[0] ? s->base_url : ANTHROPIC_DEFAULT_BASE;
    size_t blen = strcspn(base, "?");
    while (blen && base[blen - 1] == '/')
        blen--;
    bool versioned = blen >= 3 && memcmp(base + blen - 3, "/v1", 3) == 0;
    if (!(out->url = provider_url_join(base, versioned ? "/messages" : "/v1/messages", NULL)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = provider_wire_json_headers(out, s->stream);
    if (!e)
        e = provider_wire_add_header(out, "anthropic-version: %s", ANTHROPIC_VERSION);
    const char *betas[3];
    size_t n_betas = 0;
    if (tool && tool->beta)
        betas[n_betas++] = tool->beta;
    if (context)
        betas[n_betas++] = CONTEXT_BETA;
    if (binding)
        betas[n_betas++] = BINDING_BETA;
    if (!e)
        e = add_betas(out, betas, n_betas);
    if (!e && s->api_key && s->api_key[0])
        e = provider_wire_add_header(out, "x-api-key: %s", s->api_key);
    return e;
}

/* ---- replies ---- */

/* {"type":"error","error":{"type","message"}} in a body or the stream: overloaded and
 * server errors are retried, a request the API calls invalid is not. */
static wa_err error_object(struct reply_asm *a, const cJSON *root, bool mid_stream)
{
    const cJSON *type = provider_get(provider_get(root, "error"), "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    char msg[320];
    retry_error_message_json(root, msg, sizeof msg);
    a->retryable = strcmp(t, "overloaded_error") == 0 || strcmp(t, "api_error") == 0 ||
                   strcmp(t, "rate_limit_error") == 0 || !t[0];
    a->error_status = strcmp(t, "overloaded_error") == 0 ? 529 : 0;
    return wa_fail(WA_E_HTTP, "server error%s%s%s: %s", mid_stream ? " mid-stream" : "",
                   t[0] ? " " : "", t, msg[0] ? msg : "(no message)");
}

static void parse_usage(struct reply_asm *a, const cJSON *u)
{
    if (!cJSON_IsObject(u))
        return;
    long in = provider_json_long(provider_get(u, "input_tokens"), 0, LLM_TOKENS_MAX, -1);
    if (in >= 0) /* the prompt counts what was read from and written to the cache too */
        a->usage.prompt_tokens =
            in +
            provider_json_long(provider_get(u, "cache_read_input_tokens"), 0, LLM_TOKENS_MAX, 0) +
            provider_json_long(provider_get(u, "cache_creation_input_tokens"), 0, LLM_TOKENS_MAX,
                               0);
    long o = provider_json_long(provider_get(u, "output_tokens"), 0, LLM_TOKENS_MAX, -1);
    if (o >= 0)
        a->usage.completion_tokens = o;
    a->usage.total_tokens = a->usage.prompt_tokens + a->usage.completion_tokens;
}

/* One content block of a reply (whole, or the start of a streamed one at index), kept as
 * it came for the turn's way back. */
static wa_err block(struct reply_asm *a, const cJSON *b, long index, bool streamed)
{
    wa_err e = asm_block_add(a, index, b);
    if (e)
        return e;
    if (provider_is_type(b, "text") || provider_is_type(b, "thinking")) {
        bool thinking = provider_is_type(b, "thinking");
        const cJSON *t = provider_get(b, thinking ? "thinking" : "text");
        return cJSON_IsString(t) ? asm_add_text(a, t->valuestring, strlen(t->valuestring), thinking)
                                 : WA_E_OK;
    }
    if (!provider_is_type(b, "tool_use"))
        return WA_E_OK; /* redacted thinking, server tools: nothing for the loop */
    struct asm_call *c;
    if ((e = asm_new_call(a, &c)))
        return e;
    c->index = index;
    if ((e = provider_set_json_str(&c->id, provider_get(b, "id"))) ||
        (e = provider_set_json_str(&c->name, provider_get(b, "name"))) ||
        (e = provider_set_json_str(&c->toolset, provider_get(b, "toolset_name"))))
        return e;
    const cJSON *input = provider_get(b, "input");
    /* streamed, the input comes as input_json_delta pieces; the start holds {} */
    if (streamed || !cJSON_IsObject(input))
        return WA_E_OK;
    char *text = cJSON_PrintUnformatted(input);
    if (!text)
        return wa_fail(WA_E_NOMEM, "out of memory");
    e = asm_call_add_args(a, c, text, strlen(text));
    cJSON_free(text);
    return e;
}

static wa_err anthropic_parse_body(struct reply_asm *a, const char *body, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root)
        return provider_not_json("the reply", body, len);
    wa_err e = WA_E_OK;
    if (provider_is_type(root, "error")) {
        e = error_object(a, root, false);
        goto out;
    }
    const cJSON *content = provider_get(root, "content"), *b;
    if (!cJSON_IsArray(content)) {
        e = wa_fail(WA_E_PARSE, "the reply has no content");
        goto out;
    }
    long index = 0;
    cJSON_ArrayForEach(b, content)
    {
        if ((e = block(a, b, index++, false)))
            goto out;
    }
    parse_usage(a, provider_get(root, "usage"));
    e = provider_set_json_str(&a->finish_reason, provider_get(root, "stop_reason"));
    a->done = true;
out:
    cJSON_Delete(root);
    return e;
}

static wa_err anthropic_parse_event(struct reply_asm *a, const char *data, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(data, len);
    if (!root)
        return provider_not_json("a stream event", data, len);
    wa_err e = WA_E_OK;
    long index = provider_json_long(provider_get(root, "index"), 0, 1000000, -1);
    const cJSON *delta = provider_get(root, "delta");
    struct asm_call *c;
    if (provider_is_type(root, "message_start")) {
        parse_usage(a, provider_get(provider_get(root, "message"), "usage"));
    } else if (provider_is_type(root, "content_block_start")) {
        e = block(a, provider_get(root, "content_block"), index, true);
    } else if (provider_is_type(root, "content_block_delta")) {
        const cJSON *t = provider_get(delta, "text"), *th = provider_get(delta, "thinking");
        const cJSON *pj = provider_get(delta, "partial_json"),
                    *sig = provider_get(delta, "signature");
        if (provider_is_type(delta, "text_delta") && cJSON_IsString(t)) {
            size_t n = strlen(t->valuestring);
            if (!(e = asm_add_text(a, t->valuestring, n, false)))
                e = asm_block_grow(a, index, "text", false, t->valuestring, n);
        } else if (provider_is_type(delta, "thinking_delta") && cJSON_IsString(th)) {
            size_t n = strlen(th->valuestring);
            if (!(e = asm_add_text(a, th->valuestring, n, true)))
                e = asm_block_grow(a, index, "thinking", false, th->valuestring, n);
        } else if (provider_is_type(delta, "signature_delta") && cJSON_IsString(sig)) {
            e = asm_block_grow(a, index, "signature", false, sig->valuestring,
                               strlen(sig->valuestring));
        } else if (provider_is_type(delta, "input_json_delta") && cJSON_IsString(pj)) {
            size_t n = strlen(pj->valuestring);
            if ((c = asm_call_at(a, index)))
                e = asm_call_add_args(a, c, pj->valuestring, n);
            if (!e)
                e = asm_block_grow(a, index, "input", true, pj->valuestring, n);
        }
    } else if (provider_is_type(root, "message_delta")) {
        parse_usage(a, provider_get(root, "usage"));
        e = provider_set_json_str(&a->finish_reason, provider_get(delta, "stop_reason"));
    } else if (provider_is_type(root, "message_stop")) {
        a->done = true;
    } else if (provider_is_type(root, "error")) {
        e = error_object(a, root, true);
    }
    cJSON_Delete(root);
    return e;
}

static wa_err anthropic_finish(struct reply_asm *a, bool streamed)
{
    return provider_finish_reply(a, streamed && !a->done, "max_tokens", "refusal",
                                 "the model declined to answer (refusal)");
}

const struct llm_provider_ops llm_anthropic_ops = {
    .name = "anthropic",
    .build = anthropic_build,
    .parse_body = anthropic_parse_body,
    .parse_event = anthropic_parse_event,
    .finish = anthropic_finish,
    .ordered = true,
    .verbatim = true,
};
