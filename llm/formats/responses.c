/* The OpenAI Responses provider (POST /responses): the conversation as `input` items,
 * tools as flat function declarations, results as function_call_output items that may
 * carry the observation's image; whole replies and the streamed events. The computer
 * tool's computer_call items become calls of "computer" whose arguments are the item
 * itself, answered by computer_call_output items carrying the screenshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/provider.h"
#include "llm/retry.h"
#include "llm/text.h"
#include "llm/formats/turns.h"

#define RESPONSES_DEFAULT_BASE "https://api.openai.com/v1"
/* A 1x1 grey PNG: a computer_call_output must carry a screenshot, and an old one whose
 * image was trimmed from the history has none left (its text says so). */
#define RESPONSES_NO_SCREENSHOT                                                                    \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg=="

/* ---- request ---- */

static bool add_input_text(cJSON *parts, const char *text)
{
    cJSON *p = cJSON_CreateObject();
    return provider_add(parts, NULL, p) && cJSON_AddStringToObject(p, "type", "input_text") &&
           cJSON_AddStringToObject(p, "text", text);
}

static bool add_input_images(cJSON *parts, const struct llm_image *images, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *url = provider_data_url(images[i].mime, images[i].base64);
        cJSON *p = cJSON_CreateObject();
        bool ok = url && provider_add(parts, NULL, p);
        if (ok) {
            ok = cJSON_AddStringToObject(p, "type", "input_image") &&
                 cJSON_AddStringToObject(p, "image_url", url) &&
                 cJSON_AddStringToObject(p, "detail", "auto");
        } else if (!url) {
            cJSON_Delete(p);
        }
        free(url);
        if (!ok)
            return false;
    }
    return true;
}

/* {"role":"user","content":[input_text, input_image...]} */
static bool add_user(cJSON *input, const char *text, const struct llm_image *images, size_t n)
{
    cJSON *m = cJSON_CreateObject(), *parts = cJSON_CreateArray();
    if (!provider_add(input, NULL, m)) {
        cJSON_Delete(parts);
        return false;
    }
    return cJSON_AddStringToObject(m, "role", "user") && provider_add(m, "content", parts) &&
           (!((text && text[0]) || !n) || add_input_text(parts, text ? text : "")) &&
           add_input_images(parts, images, n);
}

/* A call of the computer tool: its arguments are the computer_call item as received. */
static bool is_computer_call(const struct llm_tool_call *tc)
{
    return tc->parsed && provider_is_type(tc->parsed, "computer_call");
}

/* {"role":"assistant","content":text} */
static bool add_said(cJSON *input, const char *text)
{
    cJSON *m = cJSON_CreateObject();
    return provider_add(input, NULL, m) && cJSON_AddStringToObject(m, "role", "assistant") &&
           cJSON_AddStringToObject(m, "content", text ? text : "");
}

/* One function_call (or computer_call) item per call. */
static bool add_calls(cJSON *input, const struct llm_message *msg)
{
    for (size_t i = 0; i < msg->n_calls; i++) {
        const struct llm_tool_call *tc = &msg->calls[i];
        if (is_computer_call(tc)) { /* the item as it came */
            if (!provider_add(input, NULL, cJSON_Duplicate(tc->parsed, true)))
                return false;
            continue;
        }
        cJSON *c = cJSON_CreateObject();
        if (!provider_add(input, NULL, c) || !cJSON_AddStringToObject(c, "type", "function_call") ||
            !cJSON_AddStringToObject(c, "call_id", tc->id ? tc->id : "") ||
            !cJSON_AddStringToObject(c, "name", tc->name ? tc->name : "") ||
            !cJSON_AddStringToObject(c, "arguments", tc->arguments ? tc->arguments : "{}"))
            return false;
    }
    return true;
}

/* The reply's output items as they came: reasoning items (with their encrypted content)
 * in their places before whatever followed them. A turn that did not come from the API:
 * the assistant's text, then, with_calls, one item per call and the text the model wrote
 * after them. */
static bool add_assistant(cJSON *input, const struct llm_message *msg, bool with_calls)
{
    if (provider_goes_verbatim(msg, llm_responses_ops.name))
        return provider_add_verbatim(input, msg);
    char *head;
    const char *tail;
    if (!turns_text_around_calls(msg, &head, &tail))
        return false;
    const char *text = tail ? head : msg->text;
    bool ok = (!(text && text[0]) && msg->n_calls && with_calls) || add_said(input, text);
    ok = ok && (!with_calls || add_calls(input, msg)) && (!tail || add_said(input, tail));
    free(head);
    return ok;
}

/* function_call_output: the result's text, with its images in the output itself (the
 * Responses API allows them there, unlike Chat Completions' tool messages). */
static bool add_output(cJSON *input, const char *call_id, const struct llm_message *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!provider_add(input, NULL, o) ||
        !cJSON_AddStringToObject(o, "type", "function_call_output") ||
        !cJSON_AddStringToObject(o, "call_id", call_id))
        return false;
    const char *text = r ? r->text : LLM_NO_RESULT;
    if (!r || !r->n_images)
        return cJSON_AddStringToObject(o, "output", text ? text : "") != NULL;
    cJSON *parts = cJSON_CreateArray();
    return provider_add(o, "output", parts) && add_input_text(parts, text ? text : "") &&
           add_input_images(parts, r->images, r->n_images);
}

/* computer_call_output: the screenshot after the action (a blank one when it was trimmed
 * or is missing), and the call's pending safety checks acknowledged when a person agreed
 * to them. Its text has no room here: add_computer_reports sends it. */
static bool add_computer_output(cJSON *input, const struct llm_tool_call *tc,
                                const struct llm_message *r)
{
    const struct llm_image *img = r && r->n_images ? &r->images[0] : NULL;
    const char *data = img && img->base64 ? img->base64 : RESPONSES_NO_SCREENSHOT;
    cJSON *o = cJSON_CreateObject(), *shot;
    if (!provider_add(input, NULL, o) ||
        !cJSON_AddStringToObject(o, "type", "computer_call_output") ||
        !cJSON_AddStringToObject(o, "call_id", tc->id ? tc->id : "") ||
        !(shot = cJSON_AddObjectToObject(o, "output")) ||
        !cJSON_AddStringToObject(shot, "type", "computer_screenshot"))
        return false;
    char *url = provider_data_url(img ? img->mime : NULL, data);
    if (!url)
        return false;
    bool ok = cJSON_AddStringToObject(shot, "image_url", url) != NULL;
    free(url);
    const cJSON *checks = provider_get(tc->parsed, "pending_safety_checks");
    if (ok && r && r->safety_acknowledged && cJSON_GetArraySize(checks) > 0)
        ok = provider_add(o, "acknowledged_safety_checks", cJSON_Duplicate(checks, true));
    return ok;
}

/* winagent's report on each computer action (what changed, or why it was refused) as
 * one user message after the outputs, which carry only screenshots. */
static bool add_computer_reports(cJSON *input, const struct llm_conversation *conv, size_t i)
{
    const struct llm_message *msg = &conv->messages[i];
    cJSON *m = NULL, *parts = NULL;
    for (size_t k = 0; k < msg->n_calls; k++) {
        const struct llm_tool_call *tc = &msg->calls[k];
        const struct llm_message *r =
            is_computer_call(tc) ? provider_find_result(conv, i, tc->id) : NULL;
        if (!r || !r->text || !r->text[0])
            continue;
        if (!m && (!provider_add(input, NULL, m = cJSON_CreateObject()) ||
                   !cJSON_AddStringToObject(m, "role", "user") ||
                   !(parts = cJSON_AddArrayToObject(m, "content"))))
            return false;
        size_t len = strlen(r->text) + strlen(tc->id ? tc->id : "") + 64;
        char *text = malloc(len);
        if (!text)
            return false;
        snprintf(text, len, "winagent's report on computer action %s: %s", tc->id ? tc->id : "",
                 r->text);
        bool ok = add_input_text(parts, text);
        free(text);
        if (!ok)
            return false;
    }
    return true;
}

/* A call's output item: computer_call_output or function_call_output. */
static bool add_result(cJSON *input, const struct llm_tool_call *tc, const struct llm_message *r)
{
    return is_computer_call(tc) ? add_computer_output(input, tc, r)
                                : add_output(input, tc->id ? tc->id : "", r);
}

/* A round's outputs, then winagent's reports on its computer actions, then results
 * that answer none of its calls as user messages. */
static const struct llm_encoder responses_encoder = {
    .user = add_user,
    .assistant = add_assistant,
    .result = add_result,
    .after_results = add_computer_reports,
};

/* The computer tool the model takes (llm/models.h): computer-use-preview the legacy
 * computer_use_preview with its display (the screenshots' size) and environment; later
 * models the GA "computer". */
static bool add_computer_tool(cJSON *list, const struct llm_computer_tool *ct,
                              const struct llm_settings *s, wa_err *err)
{
    (void)err;
    cJSON *t = cJSON_CreateObject();
    if (!provider_add(list, NULL, t))
        return false;
    if (strcmp(s->computer_tool, "computer_use_preview") != 0)
        return cJSON_AddStringToObject(t, "type",
                                       s->computer_tool[0] ? s->computer_tool : "computer") != NULL;
    return cJSON_AddStringToObject(t, "type", "computer_use_preview") &&
           cJSON_AddNumberToObject(t, "display_width", ct->display_width) &&
           cJSON_AddNumberToObject(t, "display_height", ct->display_height) &&
           cJSON_AddStringToObject(t, "environment", "windows");
}

/* {"type":"function","name","description","parameters","strict":false}: strict mode would
 * demand every property be required, and winagent's are optional. */
static bool add_function(cJSON *list, const struct llm_tool *t, wa_err *err)
{
    cJSON *o = cJSON_CreateObject();
    return provider_add(list, NULL, o) && cJSON_AddStringToObject(o, "type", "function") &&
           provider_add_function(o, t, "parameters", err) && cJSON_AddFalseToObject(o, "strict");
}

/* "store" as set; without storage (zero data retention forces it) the reasoning items
 * exist only in the replies, so their encrypted content is asked for: they go back whole,
 * with the turn's other items (add_assistant), never by id alone. */
static bool add_storage(cJSON *root, bool store)
{
    if (!cJSON_AddBoolToObject(root, "store", store))
        return false;
    if (store)
        return true;
    cJSON *include = cJSON_CreateArray();
    return provider_add(root, "include", include) &&
           provider_add(include, NULL, cJSON_CreateString("reasoning.encrypted_content"));
}

static wa_err responses_build(const struct llm_settings *s, const struct llm_conversation *conv,
                              const struct llm_tool *tools, size_t n_tools, struct llm_wire *out)
{
    wa_err err = WA_E_OK;
    cJSON *root = cJSON_CreateObject(), *input = cJSON_CreateArray();
    bool ok = provider_add(root, "input", input) && /* input is freed either way */
              cJSON_AddStringToObject(root, "model", s->model) &&
              (!conv->system || cJSON_AddStringToObject(root, "instructions", conv->system));
    ok = ok && turns_write(input, conv, &responses_encoder);
    if (ok && n_tools)
        ok = provider_add_tools(root, tools, n_tools, s, add_function, add_computer_tool, &err);
    if (ok && n_tools && s->tool_choice && !(s->dropped & LLM_PARAM_TOOL_CHOICE))
        ok = cJSON_AddStringToObject(root, "tool_choice", s->tool_choice) != NULL;
    /* the whole conversation is sent each turn: a long one is cut by the server, not
     * refused with a 400 */
    if (ok)
        ok = cJSON_AddBoolToObject(root, "stream", s->stream) &&
             ((s->dropped & LLM_PARAM_TRUNCATION) ||
              cJSON_AddStringToObject(root, "truncation", "auto"));
    if (ok)
        ok = add_storage(root, s->store);
    if (ok && s->max_tokens > 0)
        ok = cJSON_AddNumberToObject(root, "max_output_tokens", s->max_tokens) != NULL;
    if (ok && s->temperature >= 0 && !(s->dropped & LLM_PARAM_TEMPERATURE))
        ok = cJSON_AddNumberToObject(root, "temperature", s->temperature) != NULL;
    if ((err = provider_wire_set_body(out, root, ok, err)))
        return err;

    const char *base = s->base_url && s->base_url[0] ? s->base_url : RESPONSES_DEFAULT_BASE;
    if (!(out->url = provider_url_join(base, "/responses", NULL)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = provider_wire_json_headers(out, s->stream);
    return e ? e : provider_wire_openai_key(out, base, s->api_key);
}

/* ---- replies ---- */

/* {"error":{"code","message"}} in a body, a response.failed event's response, or an
 * "error" event: retried unless the server calls the request itself invalid. */
static wa_err error_object(struct reply_asm *a, const cJSON *holder, bool mid_stream)
{
    const cJSON *err = provider_get(holder, "error");
    const cJSON *code =
        cJSON_IsObject(err) ? provider_get(err, "code") : provider_get(holder, "code");
    char msg[320];
    retry_error_message_json(holder, msg, sizeof msg);
    const char *c = cJSON_IsString(code) ? code->valuestring : "";
    a->retryable = !strstr(c, "invalid") && !strstr(c, "quota");
    return wa_fail(WA_E_HTTP, "server error%s%s%s: %s", mid_stream ? " mid-stream" : "",
                   c[0] ? " " : "", c, msg[0] ? msg : "(no message)");
}

static void parse_usage(struct reply_asm *a, const cJSON *resp)
{
    const cJSON *u = provider_get(resp, "usage");
    if (!cJSON_IsObject(u))
        return;
    a->usage.prompt_tokens =
        provider_json_long(provider_get(u, "input_tokens"), 0, LLM_TOKENS_MAX, 0);
    a->usage.completion_tokens =
        provider_json_long(provider_get(u, "output_tokens"), 0, LLM_TOKENS_MAX, 0);
    a->usage.total_tokens =
        provider_json_long(provider_get(u, "total_tokens"), 0, LLM_TOKENS_MAX, 0);
}

/* Text of a message item's output_text (or refusal) parts; a reasoning item's summary. */
static wa_err item_text(struct reply_asm *a, const cJSON *item)
{
    const cJSON *type = provider_get(item, "type"), *part;
    bool reasoning = cJSON_IsString(type) && strcmp(type->valuestring, "reasoning") == 0;
    cJSON_ArrayForEach(part, provider_get(item, reasoning ? "summary" : "content"))
    {
        const cJSON *t = provider_get(part, "text");
        if (!cJSON_IsString(t))
            t = provider_get(part, "refusal");
        if (cJSON_IsString(t)) {
            wa_err e = asm_add_text(a, t->valuestring, strlen(t->valuestring), reasoning);
            if (e)
                return e;
        }
    }
    return WA_E_OK;
}

/* A computer_call output item as a call of "computer" whose arguments are the item
 * itself (call_id, action or actions, pending_safety_checks: what the computer layer
 * reads). */
static wa_err item_computer_call(struct reply_asm *a, const cJSON *item, long index)
{
    struct asm_call *c;
    wa_err e = asm_new_call(a, &c);
    if (e)
        return e;
    c->index = index;
    e = provider_set_json_str(&c->id, provider_get(item, "call_id"));
    char *json = e ? NULL : cJSON_PrintUnformatted(item);
    if (!e && (!json || !(c->name = text_strdup("computer"))))
        e = wa_fail(WA_E_NOMEM, "out of memory reading a computer call");
    if (!e)
        e = asm_call_add_args(a, c, json, strlen(json));
    free(json);
    return e;
}

/* A function_call output item as a call (index: its place in the output). */
static wa_err item_call(struct reply_asm *a, const cJSON *item, long index, struct asm_call **out)
{
    struct asm_call *c;
    wa_err e = asm_new_call(a, &c);
    if (e)
        return e;
    c->index = index;
    e = provider_set_json_str(&c->id, provider_get(item, "call_id"));
    if (!e)
        e = provider_set_json_str(&c->name, provider_get(item, "name"));
    const cJSON *args = provider_get(item, "arguments");
    if (!e && cJSON_IsString(args))
        e = asm_call_add_args(a, c, args->valuestring, strlen(args->valuestring));
    *out = c;
    return e;
}

/* The response's status as the finish reason; its end. */
static wa_err response_end(struct reply_asm *a, const cJSON *resp)
{
    parse_usage(a, resp);
    const cJSON *status = provider_get(resp, "status");
    const cJSON *why = provider_get(provider_get(resp, "incomplete_details"), "reason");
    wa_err e = provider_set_json_str(&a->finish_reason, cJSON_IsString(why) ? why : status);
    a->done = true;
    return e;
}

static wa_err responses_parse_body(struct reply_asm *a, const char *body, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root)
        return provider_not_json("the reply", body, len);
    wa_err e = WA_E_OK;
    const cJSON *output = provider_get(root, "output");
    if (cJSON_IsObject(provider_get(root, "error")) ||
        (!cJSON_IsArray(output) && provider_get(root, "error"))) {
        e = error_object(a, root, false);
        goto out;
    }
    if (!cJSON_IsArray(output)) {
        e = wa_fail(WA_E_PARSE, "the reply has no output");
        goto out;
    }
    const cJSON *item;
    long index = 0;
    cJSON_ArrayForEach(item, output)
    {
        struct asm_call *c;
        if ((e = asm_block_add(a, index, item)))
            goto out;
        if (provider_is_type(item, "function_call"))
            e = item_call(a, item, index, &c);
        else if (provider_is_type(item, "computer_call"))
            e = item_computer_call(a, item, index);
        else
            e = item_text(a, item);
        if (e)
            goto out;
        index++;
    }
    e = response_end(a, root);
out:
    cJSON_Delete(root);
    return e;
}

static wa_err responses_parse_event(struct reply_asm *a, const char *data, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(data, len);
    if (!root)
        return provider_not_json("a stream event", data, len);
    wa_err e = WA_E_OK;
    const cJSON *type = provider_get(root, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    long index = provider_json_long(provider_get(root, "output_index"), 0, 1000000, -1);
    const cJSON *delta = provider_get(root, "delta");
    struct asm_call *c;
    if (strcmp(t, "response.output_text.delta") == 0 || strcmp(t, "response.refusal.delta") == 0 ||
        strcmp(t, "response.reasoning_summary_text.delta") == 0) {
        if (cJSON_IsString(delta))
            e = asm_add_text(a, delta->valuestring, strlen(delta->valuestring),
                             strstr(t, "reasoning") != NULL);
    } else if (strcmp(t, "response.output_item.added") == 0) {
        const cJSON *item = provider_get(root, "item");
        if (provider_is_type(item, "function_call") && !asm_call_at(a, index))
            e = item_call(a, item, index, &c);
    } else if (strcmp(t, "response.function_call_arguments.delta") == 0) {
        if ((c = asm_call_at(a, index)) && cJSON_IsString(delta))
            e = asm_call_add_args(a, c, delta->valuestring, strlen(delta->valuestring));
    } else if (strcmp(t, "response.function_call_arguments.done") == 0 ||
               strcmp(t, "response.output_item.done") == 0) {
        /* the whole arguments again: they win over the deltas (a delta may have been
         * lost or never sent, as some servers send calls whole) */
        const cJSON *item = provider_get(root, "item");
        const cJSON *args =
            item ? provider_get(item, "arguments") : provider_get(root, "arguments");
        bool item_done = strcmp(t, "response.output_item.done") == 0;
        if (item_done && cJSON_IsObject(item) && !asm_block_at(a, index) &&
            (e = asm_block_add(a, index, item))) /* the item whole, as it goes back */
            goto out;
        if (item_done && provider_is_type(item, "computer_call")) /* comes whole: no deltas */
            e = asm_call_at(a, index) ? WA_E_OK : item_computer_call(a, item, index);
        else if (item_done && provider_is_type(item, "reasoning"))
            e = WA_E_OK;
        else if (item && provider_is_type(item, "function_call") && !(c = asm_call_at(a, index)))
            e = item_call(a, item, index, &c);
        else if ((c = asm_call_at(a, index)) && cJSON_IsString(args)) {
            dynbuf_reset(&c->args);
            e = asm_call_add_args(a, c, args->valuestring, strlen(args->valuestring));
        }
    } else if (strcmp(t, "response.completed") == 0 || strcmp(t, "response.incomplete") == 0) {
        const cJSON *resp = provider_get(root, "response"), *output = provider_get(resp, "output"),
                    *it;
        if (cJSON_GetArraySize(output) > 0) { /* the whole output: it wins over the items */
            asm_blocks_clear(a);
            long i = 0;
            cJSON_ArrayForEach(it, output)
            {
                if ((e = asm_block_add(a, i++, it)))
                    goto out;
            }
        }
        e = response_end(a, resp);
    } else if (strcmp(t, "response.failed") == 0) {
        const cJSON *resp = provider_get(root, "response");
        e = error_object(a, resp ? resp : root, true);
    } else if (strcmp(t, "error") == 0) {
        e = error_object(a, root, true);
    }
out:
    cJSON_Delete(root);
    return e;
}

static wa_err responses_finish(struct reply_asm *a, bool streamed)
{
    return provider_finish_reply(a, streamed && !a->done, "max_output_tokens", "content_filter",
                                 "reply withheld by the server's content filter");
}

const struct llm_provider_ops llm_responses_ops = {
    .name = "openai-responses",
    .build = responses_build,
    .parse_body = responses_parse_body,
    .parse_event = responses_parse_event,
    .finish = responses_finish,
    .ordered = true,
    .verbatim = true,
};
