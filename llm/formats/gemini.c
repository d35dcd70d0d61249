/* The Gemini provider (generateContent, streamGenerateContent with SSE).
 * Renders the system instruction, user/model contents, function calls and responses
 * and thought signatures; parses whole and streamed replies, finish reasons and
 * blocked prompts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/provider.h"
#include "llm/retry.h"
#include "llm/formats/schema.h"
#include "llm/text.h"
#include "llm/formats/turns.h"

#define GEMINI_DEFAULT_BASE "https://generativelanguage.googleapis.com"

/* ---- request ---- */

/* The parts array of a new content with this role; consecutive contents of the same
 * role are merged (tool results followed by an observation stay one user turn). */
static cJSON *parts_for(cJSON *contents, const char *role)
{
    int n = cJSON_GetArraySize(contents);
    cJSON *last = n ? cJSON_GetArrayItem(contents, n - 1) : NULL;
    const cJSON *r = provider_get(last, "role");
    if (last && cJSON_IsString(r) && strcmp(r->valuestring, role) == 0)
        return cJSON_GetObjectItemCaseSensitive(last, "parts");
    cJSON *c = cJSON_CreateObject();
    cJSON *parts = cJSON_CreateArray();
    if (!provider_add(contents, NULL, c) || !cJSON_AddStringToObject(c, "role", role) ||
        !provider_add(c, "parts", parts))
        return NULL;
    return parts;
}

static bool add_text_part(cJSON *parts, const char *text, const char *signature)
{
    cJSON *p = cJSON_CreateObject();
    return provider_add(parts, NULL, p) && cJSON_AddStringToObject(p, "text", text) &&
           (!signature || cJSON_AddStringToObject(p, "thoughtSignature", signature));
}

static bool add_image_parts(cJSON *parts, const struct llm_image *images, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject(), *d = cJSON_CreateObject();
        if (!provider_add(parts, NULL, p) || !provider_add(p, "inlineData", d) ||
            !cJSON_AddStringToObject(d, "mimeType",
                                     images[i].mime ? images[i].mime : "image/png") ||
            !cJSON_AddStringToObject(d, "data", images[i].base64 ? images[i].base64 : ""))
            return false;
    }
    return true;
}

static bool add_user(cJSON *contents, const char *text, const struct llm_image *images,
                     size_t n_images)
{
    cJSON *parts = parts_for(contents, "user");
    if (!parts)
        return false;
    if (((text && text[0]) || !n_images) && !add_text_part(parts, text ? text : "", NULL))
        return false;
    return add_image_parts(parts, images, n_images);
}

/* A functionCall part per call, with its signature. */
static bool add_function_calls(cJSON *parts, const struct llm_message *m)
{
    for (size_t i = 0; i < m->n_calls; i++) {
        const struct llm_tool_call *tc = &m->calls[i];
        cJSON *p = cJSON_CreateObject(), *fc = cJSON_CreateObject();
        /* parsed once when the call was kept; malformed arguments (kept raw) go as {}:
         * Gemini needs an object */
        cJSON *args = tc->parsed ? cJSON_Duplicate(tc->parsed, true) : cJSON_CreateObject();
        if (!provider_add(parts, NULL, p) || !provider_add(p, "functionCall", fc) ||
            !cJSON_AddStringToObject(fc, "name", tc->name ? tc->name : "") ||
            !provider_add(fc, "args", args) ||
            (!tc->id_synthetic && tc->id && tc->id[0] &&
             !cJSON_AddStringToObject(fc, "id", tc->id)) ||
            (tc->thought_signature &&
             !cJSON_AddStringToObject(p, "thoughtSignature", tc->thought_signature)))
            return false;
    }
    return true;
}

/* The model turn as the API returned it: every part, its thought signatures in their
 * places. A turn that did not come from it: its text (with the turn's signature) and,
 * with_calls, its calls and the text the model wrote after them. */
static bool add_model(cJSON *contents, const struct llm_message *m, bool with_calls)
{
    size_t n_calls = with_calls ? m->n_calls : 0;
    cJSON *parts = parts_for(contents, "model");
    if (parts && provider_goes_verbatim(m, llm_gemini_ops.name))
        return provider_add_verbatim(parts, m);
    char *head;
    const char *tail;
    if (!parts || !turns_text_around_calls(m, &head, &tail))
        return false;
    const char *text = tail ? head : m->text;
    bool ok = !((text && text[0]) || m->thought_signature || !n_calls) ||
              add_text_part(parts, text ? text : "", m->thought_signature);
    ok = ok && (!n_calls || add_function_calls(parts, m)) &&
         (!tail || add_text_part(parts, tail, NULL));
    free(head);
    return ok;
}

/* A call's function response in the user turn after the calls: {"name", "id"?,
 * "response": {"output": text}}, or {"error": text} for a call that failed or was not run
 * (r NULL: missing), as the API reads those keys. A computer action's result carries its
 * screenshot in the response's own parts and the acknowledgement of a safety check the
 * person agreed to; other results' images follow as parts of the turn
 * (add_result_images). */
static bool add_function_response(cJSON *contents, const struct llm_tool_call *tc,
                                  const struct llm_message *r)
{
    const char *text = r ? r->text : LLM_NO_RESULT;
    cJSON *parts = parts_for(contents, "user");
    if (!parts)
        return false;
    cJSON *p = cJSON_CreateObject(), *fr = cJSON_CreateObject(), *resp = cJSON_CreateObject();
    bool ok = provider_add(parts, NULL, p) && provider_add(p, "functionResponse", fr);
    if (!ok) {
        cJSON_Delete(resp);
        return false;
    }
    ok = cJSON_AddStringToObject(fr, "name", tc->name ? tc->name : "") &&
         (tc->id_synthetic || !tc->id || !tc->id[0] || cJSON_AddStringToObject(fr, "id", tc->id)) &&
         provider_add(fr, "response", resp) &&
         cJSON_AddStringToObject(resp, r && !r->failed ? "output" : "error", text ? text : "");
    if (!ok || !r || !r->computer)
        return ok;
    if (r->safety_acknowledged && !cJSON_AddStringToObject(resp, "safety_acknowledgement", "true"))
        return false;
    if (!r->n_images)
        return true;
    cJSON *own = cJSON_CreateArray();
    return provider_add(fr, "parts", own) && add_image_parts(own, r->images, r->n_images);
}

/* A result answering none of a round's calls: its text, in the round's user turn. */
static bool add_orphan(cJSON *contents, const struct llm_message *r)
{
    char *text = provider_orphan_result_text(r);
    bool ok = text && add_user(contents, text, NULL, 0);
    free(text);
    return ok;
}

/* The images of a round's results (computer actions' are in their responses). */
static bool add_result_images(cJSON *contents, const struct llm_conversation *conv, size_t i)
{
    const struct llm_message *m = &conv->messages[i];
    cJSON *parts = parts_for(contents, "user");
    if (!parts)
        return false;
    for (size_t k = 0; k < m->n_calls; k++) {
        const struct llm_message *r = provider_find_result(conv, i, m->calls[k].id);
        if (r && !r->computer && !add_image_parts(parts, r->images, r->n_images))
            return false;
    }
    return true;
}

/* The model turn, then one user turn (consecutive contents of a role merge): a
 * functionResponse for every call (Gemini wants one per call), the text of results that
 * answer none of them, then the results' images as inlineData parts. */
static const struct llm_encoder gemini_encoder = {
    .user = add_user,
    .assistant = add_model,
    .result = add_function_response,
    .orphan = add_orphan,
    .after_round = add_result_images,
};

/* {"computerUse": {"environment": ..., "excludedPredefinedFunctions": [...]}}. */
static bool add_computer_use(cJSON *list, const struct llm_computer_tool *ct)
{
    cJSON *holder = cJSON_CreateObject(), *cu = cJSON_CreateObject();
    if (!provider_add(list, NULL, holder)) {
        cJSON_Delete(cu);
        return false;
    }
    if (!provider_add(holder, "computerUse", cu) ||
        !cJSON_AddStringToObject(cu, "environment",
                                 ct->desktop ? "ENVIRONMENT_DESKTOP" : "ENVIRONMENT_BROWSER"))
        return false;
    if (!ct->excluded || !ct->excluded[0])
        return true;
    cJSON *ex = cJSON_CreateArray();
    if (!provider_add(cu, "excludedPredefinedFunctions", ex))
        return false;
    for (const char *const *f = ct->excluded; *f; f++)
        if (!provider_add(ex, NULL, cJSON_CreateString(*f)))
            return false;
    return true;
}

static bool add_declaration(cJSON *decls, const struct llm_tool *t, wa_err *err)
{
    cJSON *d = cJSON_CreateObject();
    if (!provider_add(decls, NULL, d) || !cJSON_AddStringToObject(d, "name", t->name) ||
        (t->description && !cJSON_AddStringToObject(d, "description", t->description)))
        return false;
    if (!t->parameters)
        return true;
    const cJSON *src = t->parameters;
    if (!cJSON_IsObject(src)) {
        *err = wa_fail(WA_E_INVALID_ARGS, "tool %s: parameters are not a JSON object", t->name);
        return false;
    }
    cJSON *params = schema_to_gemini(src);
    if (!params)
        return false;
    /* A tool without parameters declares none: Gemini rejects an OBJECT with an
     * empty property list. */
    if (!provider_get(params, "properties") && !provider_get(params, "anyOf")) {
        cJSON_Delete(params);
        return true;
    }
    return provider_add(d, "parameters", params);
}

/* The computer tool (if any) and one holder of every function declaration. */
static bool add_tools(cJSON *root, const struct llm_tool *tools, size_t n_tools, wa_err *err)
{
    cJSON *list = cJSON_CreateArray(), *decls = NULL;
    if (!provider_add(root, "tools", list))
        return false;
    for (size_t i = 0; i < n_tools; i++) {
        if (tools[i].computer) {
            if (!add_computer_use(list, tools[i].computer))
                return false;
            continue;
        }
        if (!decls) {
            cJSON *holder = cJSON_CreateObject();
            decls = cJSON_CreateArray();
            if (!provider_add(list, NULL, holder)) {
                cJSON_Delete(decls);
                return false;
            }
            if (!provider_add(holder, "functionDeclarations", decls))
                return false;
        }
        if (!add_declaration(decls, &tools[i], err))
            return false;
    }
    return true;
}

static char *gemini_url(const struct llm_settings *s)
{
    const char *base = s->base_url && s->base_url[0] ? s->base_url : GEMINI_DEFAULT_BASE;
    const char *model = s->model;
    if (strncmp(model, "models/", 7) == 0)
        model += 7;
    /* A base that already names the API version ("…/v1beta", "…/v1") keeps it. */
    size_t blen = strcspn(base, "?");
    while (blen && base[blen - 1] == '/')
        blen--;
    const char *v = NULL;
    for (size_t i = blen; i > 0; i--)
        if (base[i - 1] == '/') {
            v = base + i;
            break;
        }
    bool versioned = v && v[0] == 'v' && v[1] >= '0' && v[1] <= '9';
    size_t n = strlen(model) + 64;
    char *path = malloc(n);
    if (!path)
        return NULL;
    snprintf(path, n, "%s/models/%s:%s", versioned ? "" : "/v1beta", model,
             s->stream ? "streamGenerateContent" : "generateContent");
    char *url = provider_url_join(base, path, s->stream ? "alt=sse" : NULL);
    free(path);
    return url;
}

static wa_err gemini_build(const struct llm_settings *s, const struct llm_conversation *conv,
                           const struct llm_tool *tools, size_t n_tools, struct llm_wire *out)
{
    wa_err err = WA_E_OK;
    cJSON *root = cJSON_CreateObject(), *contents = cJSON_CreateArray();
    bool ok = provider_add(root, "contents", contents); /* contents is freed either way */
    if (ok && conv->system) {
        cJSON *si = cJSON_CreateObject(), *parts = cJSON_CreateArray();
        ok = provider_add(root, "systemInstruction", si);
        if (!ok)
            cJSON_Delete(parts);
        ok = ok && provider_add(si, "parts", parts) && add_text_part(parts, conv->system, NULL);
    }
    ok = ok && turns_write(contents, conv, &gemini_encoder);
    if (ok && n_tools)
        ok = add_tools(root, tools, n_tools, &err);
    if (ok && (s->max_tokens > 0 || s->temperature >= 0)) {
        cJSON *gc = cJSON_CreateObject();
        ok =
            provider_add(root, "generationConfig", gc) &&
            (s->max_tokens <= 0 || cJSON_AddNumberToObject(gc, "maxOutputTokens", s->max_tokens)) &&
            (s->temperature < 0 || cJSON_AddNumberToObject(gc, "temperature", s->temperature));
    }
    if ((err = provider_wire_set_body(out, root, ok, err)))
        return err;
    if (!(out->url = gemini_url(s)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = provider_wire_add_header(out, "Content-Type: application/json");
    if (!e && s->api_key && s->api_key[0]) /* the header, never the URL: URLs reach logs */
        e = provider_wire_add_header(out, "x-goog-api-key: %s", s->api_key);
    return e;
}

/* ---- replies ---- */

static wa_err error_object(struct reply_asm *a, const cJSON *root, bool mid_stream)
{
    const cJSON *err = provider_get(root, "error");
    const cJSON *code = provider_get(err, "code");
    char msg[320];
    retry_error_message_json(root, msg, sizeof msg);
    a->error_status = provider_json_long(code, 0, 999, 0);
    a->retryable = !a->error_status || retry_status_transient(a->error_status);
    return wa_fail(WA_E_HTTP, "server error%s: %s", mid_stream ? " mid-stream" : "",
                   msg[0] ? msg : "(no message)");
}

static void parse_usage(struct reply_asm *a, const cJSON *root)
{
    const cJSON *u = provider_get(root, "usageMetadata");
    if (!cJSON_IsObject(u))
        return;
    const cJSON *p = provider_get(u, "promptTokenCount"),
                *c = provider_get(u, "candidatesTokenCount");
    const cJSON *th = provider_get(u, "thoughtsTokenCount"),
                *t = provider_get(u, "totalTokenCount");
    a->usage.prompt_tokens = provider_json_long(p, 0, LLM_TOKENS_MAX, 0);
    a->usage.completion_tokens =
        provider_json_long(c, 0, LLM_TOKENS_MAX, 0) + provider_json_long(th, 0, LLM_TOKENS_MAX, 0);
    a->usage.total_tokens = provider_json_long(t, 0, LLM_TOKENS_MAX, 0);
}

/* Whether a part is text alone (with its thought flag), which a stream cuts anywhere. */
static bool plain_text_part(const cJSON *part)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, part)
    {
        if (strcmp(k->string, "text") != 0 && strcmp(k->string, "thought") != 0)
            return false;
    }
    return cJSON_IsString(provider_get(part, "text"));
}

/* Keeps a part for the turn's way back: streamed text joins the text part before it when
 * both are plain text of one kind (thought or not); everything else, signatures first of
 * all, stays the part it came as. */
static wa_err keep_part(struct reply_asm *a, const cJSON *part)
{
    struct asm_block *last = a->n_blocks ? &a->blocks[a->n_blocks - 1] : NULL;
    if (last && plain_text_part(part) && plain_text_part(last->block) &&
        cJSON_IsTrue(provider_get(part, "thought")) ==
            cJSON_IsTrue(provider_get(last->block, "thought"))) {
        const char *t = provider_get(part, "text")->valuestring;
        return asm_block_grow(a, last->index, "text", false, t, strlen(t));
    }
    return asm_block_add(a, (long)a->n_blocks, part);
}

static wa_err parse_part(struct reply_asm *a, const cJSON *part)
{
    wa_err ke = keep_part(a, part);
    if (ke)
        return ke;
    const cJSON *text = provider_get(part, "text"), *fc = provider_get(part, "functionCall");
    const cJSON *sig = provider_get(part, "thoughtSignature");
    wa_err e = WA_E_OK;
    if (cJSON_IsObject(fc)) {
        struct asm_call *c;
        if ((e = asm_new_call(a, &c)))
            return e;
        e = provider_set_json_str(&c->name, provider_get(fc, "name"));
        if (!e)
            e = provider_set_json_str(&c->id, provider_get(fc, "id"));
        if (!e)
            e = provider_set_json_str(&c->thought_signature, sig);
        const cJSON *args = provider_get(fc, "args");
        if (!e && args && !cJSON_IsNull(args)) {
            char *t = cJSON_PrintUnformatted(args);
            e = t ? asm_call_add_args(a, c, t, strlen(t)) : wa_fail(WA_E_NOMEM, "out of memory");
            cJSON_free(t);
        }
        return e;
    }
    if (cJSON_IsString(text))
        e = asm_add_text(a, text->valuestring, strlen(text->valuestring),
                         cJSON_IsTrue(provider_get(part, "thought")));
    /* A signature on a text part (often an empty one closing the stream) belongs to
     * the turn: keep the latest. */
    if (!e)
        e = provider_set_json_str(&a->thought_signature, sig);
    return e;
}

/* One GenerateContentResponse: a whole reply or one streamed chunk. */
static wa_err parse_response(struct reply_asm *a, const cJSON *root, bool mid_stream)
{
    if (provider_get(root, "error"))
        return error_object(a, root, mid_stream);
    const cJSON *block = provider_get(provider_get(root, "promptFeedback"), "blockReason");
    if (cJSON_IsString(block)) {
        const cJSON *msg = provider_get(provider_get(root, "promptFeedback"), "blockReasonMessage");
        return wa_fail(WA_E_BLOCKED, "the prompt was blocked by the server (%s)%s%s",
                       block->valuestring, cJSON_IsString(msg) ? ": " : "",
                       cJSON_IsString(msg) ? msg->valuestring : "");
    }
    parse_usage(a, root);
    const cJSON *cand = cJSON_GetArrayItem(provider_get(root, "candidates"), 0);
    const cJSON *part;
    wa_err e = WA_E_OK;
    cJSON_ArrayForEach(part, provider_get(provider_get(cand, "content"), "parts"))
    {
        if ((e = parse_part(a, part)))
            return e;
    }
    if (cJSON_IsString(provider_get(cand, "finishReason"))) {
        a->done = true;
        e = provider_set_json_str(&a->finish_reason, provider_get(cand, "finishReason"));
        if (!e)
            e = provider_set_json_str(&a->finish_message, provider_get(cand, "finishMessage"));
    }
    return e;
}

static wa_err gemini_parse_body(struct reply_asm *a, const char *body, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root)
        return provider_not_json("the reply", body, len);
    wa_err e = WA_E_OK;
    if (cJSON_IsArray(root)) { /* a streamed reply without alt=sse: an array of chunks */
        const cJSON *chunk;
        cJSON_ArrayForEach(chunk, root)
        {
            if (!e)
                e = parse_response(a, chunk, false);
        }
    } else if (cJSON_IsObject(root)) {
        e = parse_response(a, root, false);
        if (!e && !provider_get(root, "candidates"))
            e = wa_fail(WA_E_PARSE, "the reply has no candidates");
        a->done = true;
    } else {
        e = wa_fail(WA_E_PARSE, "the reply is not a JSON object");
    }
    cJSON_Delete(root);
    return e;
}

static wa_err gemini_parse_event(struct reply_asm *a, const char *data, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(data, len);
    if (!root)
        return provider_not_json("a stream event", data, len);
    wa_err e = parse_response(a, root, true);
    cJSON_Delete(root);
    return e;
}

static bool one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

static wa_err gemini_finish(struct reply_asm *a, bool streamed)
{
    static const char *const blocked[] = {
        "SAFETY",       "RECITATION", "PROHIBITED_CONTENT",       "BLOCKLIST",        "SPII",
        "IMAGE_SAFETY", "LANGUAGE",   "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", NULL};
    static const char *const malformed[] = {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL",
                                            NULL};
    if (streamed && !a->done) {
        a->retryable = true;
        return wa_fail(WA_E_NETWORK, "the stream ended before the reply was complete");
    }
    const char *f = a->finish_reason ? a->finish_reason : "STOP";
    const char *why = a->finish_message ? a->finish_message : "";
    char msg[240];
    text_snippet(msg, sizeof msg, why, strlen(why), 200);
    if (strcmp(f, "STOP") == 0 || strcmp(f, "FINISH_REASON_UNSPECIFIED") == 0)
        return WA_E_OK;
    if (one_of(f, malformed)) {
        a->retryable = true;
        return wa_fail(WA_E_PARSE, "the model produced a malformed function call (%s)%s%s", f,
                       msg[0] ? ": " : "", msg);
    }
    if (one_of(f, blocked))
        return wa_fail(WA_E_BLOCKED, "the reply was blocked by the server (%s)%s%s", f,
                       msg[0] ? ": " : "", msg);
    if (asm_has_content(a))
        return WA_E_OK; /* MAX_TOKENS and the like, with something usable */
    if (strcmp(f, "MAX_TOKENS") == 0)
        return wa_fail(WA_E_PARSE, "reply cut at max tokens before any text or tool call");
    return wa_fail(WA_E_PARSE, "the model stopped (%s) without a reply%s%s", f, msg[0] ? ": " : "",
                   msg);
}

const struct llm_provider_ops llm_gemini_ops = {
    .name = "google",
    .build = gemini_build,
    .parse_body = gemini_parse_body,
    .parse_event = gemini_parse_event,
    .finish = gemini_finish,
    .ordered = true,
    .verbatim = true,
};
