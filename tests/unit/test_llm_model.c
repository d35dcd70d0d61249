/* Unit tests: the conversation model, made-up ids, URLs, key scrubbing, client
 * configuration, and request rendering for both providers (no server). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/assemble.h"
#include "llm/llm.h"
#include "llm/provider.h"
#include "llm/text.h"

#include "json_path.h"

static const struct llm_image png = {.mime = "image/png", .base64 = "iVBORw0KGgo="};

static void conversation_copies_and_trims(void **state)
{
    (void)state;
    struct llm_conversation c;
    llm_conversation_init(&c);
    assert_int_equal(llm_conversation_set_system(&c, "sys"), WA_E_OK);
    assert_int_equal(llm_conversation_set_system(&c, "system prompt"), WA_E_OK);
    char text[] = "look";
    assert_int_equal(llm_conversation_add_user(&c, text, &png, 1), WA_E_OK);
    text[0] = 'X'; /* copied, not referenced */
    struct llm_tool_call call = {.id = "call_1",
                                 .name = "desktop",
                                 .arguments = "{\"action\":\"click\"}",
                                 .thought_signature = "c2ln"};
    struct llm_reply r = {
        .text = "clicking", .calls = &call, .n_calls = 1, .thought_signature = "dHM="};
    assert_int_equal(llm_conversation_add_reply(&c, &r), WA_E_OK);
    assert_int_equal(llm_conversation_add_tool_result(&c, "call_1", "desktop", "ok", &png),
                     WA_E_OK);
    assert_int_equal(llm_conversation_add_tool_result(&c, "", "desktop", "ok", NULL),
                     WA_E_INVALID_ARGS);
    for (int i = 0; i < 40; i++) /* growth past the first allocation */
        assert_int_equal(llm_conversation_add_user(&c, "more", NULL, 0), WA_E_OK);
    assert_int_equal(c.n_messages, 43);
    assert_string_equal(c.system, "system prompt");
    assert_string_equal(c.messages[0].text, "look");
    assert_int_equal(c.messages[0].n_images, 1);
    assert_string_equal(c.messages[1].calls[0].thought_signature, "c2ln");
    assert_string_equal(c.messages[1].thought_signature, "dHM=");
    assert_string_equal(c.messages[2].tool_call_id, "call_1");
    assert_int_equal(c.messages[2].n_images, 1);

    assert_int_equal(llm_message_replace_content(&c.messages[2], "[image dropped]"), WA_E_OK);
    assert_int_equal(c.messages[2].n_images, 0);
    assert_null(c.messages[2].images);
    assert_string_equal(c.messages[2].tool_call_id, "call_1");
    assert_string_equal(c.messages[2].text, "[image dropped]");
    llm_conversation_cleanup(&c);
    llm_conversation_cleanup(&c);
    llm_reply_cleanup(NULL);
}

static void provider_names(void **state)
{
    (void)state;
    enum llm_provider_kind k;
    assert_int_equal(llm_provider_from_name("openai-compatible", &k), WA_E_OK);
    assert_int_equal(k, LLM_PROVIDER_OPENAI);
    assert_int_equal(llm_provider_from_name("OpenAI", &k), WA_E_OK);
    assert_int_equal(k, LLM_PROVIDER_OPENAI);
    assert_int_equal(llm_provider_from_name("google", &k), WA_E_OK);
    assert_int_equal(k, LLM_PROVIDER_GOOGLE);
    assert_int_equal(llm_provider_from_name("Gemini", &k), WA_E_OK);
    assert_int_equal(k, LLM_PROVIDER_GOOGLE);
    assert_int_equal(llm_provider_from_name("openai-responses", &k), WA_E_OK);
    assert_int_equal(k, LLM_PROVIDER_OPENAI_RESPONSES);
    assert_int_equal(llm_provider_from_name("Anthropic", &k), WA_E_OK);
    assert_int_equal(k, LLM_PROVIDER_ANTHROPIC);
    assert_int_equal(llm_provider_from_name("bedrock", &k), WA_E_CONFIG);
    assert_int_equal(llm_provider_from_name(NULL, &k), WA_E_CONFIG);
}

static void client_configuration(void **state)
{
    (void)state;
    struct llm_client *c = (struct llm_client *)1;
    struct llm_config cfg = {.provider = LLM_PROVIDER_OPENAI, .model = "m"};
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_CONFIG); /* no base URL */
    assert_null(c);
    cfg.base_url = "ftp://example.com";
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_CONFIG);
    cfg.base_url = "https://user:sk-secret@example.com/v1";
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_CONFIG);
    cfg.base_url = "http://localhost:11434/v1";
    cfg.model = "";
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_CONFIG);
    cfg.model = "llama3";
    cfg.base_url = "http://localhost:11434/v1?tag=a@b"; /* an @ past the host is fine */
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_OK);
    llm_client_free(c);
    cfg.base_url = "http://localhost:11434/v1";
    cfg.model = "";
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_CONFIG);
    cfg.model = "llama3";
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_OK); /* no key: fine for Ollama */
    llm_client_free(c);
    struct llm_config g = {
        .provider = LLM_PROVIDER_GOOGLE, .model = "gemini-2.5-flash", .api_key = "k"};
    assert_int_equal(llm_client_new(&g, &c), WA_E_OK); /* default base URL */
    llm_client_free(c);
    llm_client_free(NULL);
}

static void urls(void **state)
{
    (void)state;
    char *u = provider_url_join("https://api.openai.com/v1/", "/chat/completions", NULL);
    assert_string_equal(u, "https://api.openai.com/v1/chat/completions");
    free(u);
    u = provider_url_join(
        "https://r.openai.azure.com/openai/deployments/gpt4o?api-version=2024-10-21",
        "/chat/completions", NULL);
    assert_string_equal(u, "https://r.openai.azure.com/openai/deployments/gpt4o/chat/"
                           "completions?api-version=2024-10-21");
    free(u);
    u = provider_url_join("http://h/v1/chat/completions", "/chat/completions", NULL);
    assert_string_equal(u, "http://h/v1/chat/completions");
    free(u);
    u = provider_url_join("http://h/x?a=1", "/p", "alt=sse");
    assert_string_equal(u, "http://h/x/p?a=1&alt=sse");
    free(u);
}

static void redaction(void **state)
{
    (void)state;
    char s[200] = "key sk-abcdef123456 in sk-abcdef123456!";
    assert_true(text_redact(s, sizeof s, "sk-abcdef123456"));
    assert_string_equal(s, "key [redacted] in [redacted]!");
    assert_false(text_redact(s, sizeof s, "sk-abcdef123456"));
    assert_false(text_redact(s, sizeof s, NULL));
    assert_false(text_redact(s, sizeof s, "ab")); /* too short to be a key */
    /* A short key growing into the marker never overruns the buffer. */
    char t[12] = "abcd abcd";
    assert_true(text_redact(t, sizeof t, "abcd"));
    assert_null(strstr(t, "abcd"));
    assert_true(strlen(t) < sizeof t);
}

static void made_up_ids_are_unique(void **state)
{
    (void)state;
    struct llm_ids ids;
    asm_ids_init(&ids, 42);
    char seen[200][40];
    for (int i = 0; i < 200; i++) {
        asm_ids_make(&ids, seen[i], sizeof seen[i]);
        assert_memory_equal(seen[i], "call_", 5);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(seen[i], seen[j]);
    }
    /* In a reply: missing, empty and repeated ids are replaced, good ones kept. */
    struct reply_asm a;
    asm_init(&a, 1 << 20, &ids, NULL, NULL);
    struct asm_call *c;
    const char *given[] = {NULL, "", "dup", "dup", "ok"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(asm_new_call(&a, &c), WA_E_OK);
        if (given[i])
            c->id = text_strdup(given[i]);
        c->name = text_strdup("desktop");
    }
    assert_int_equal(asm_call_add_args(&a, c, " \n", 2), WA_E_OK);
    struct llm_reply r;
    memset(&r, 0, sizeof r);
    assert_int_equal(asm_take_reply(&a, &r), WA_E_OK);
    assert_int_equal(r.n_calls, 5);
    assert_true(r.calls[0].id_synthetic && r.calls[1].id_synthetic && r.calls[3].id_synthetic);
    assert_false(r.calls[2].id_synthetic || r.calls[4].id_synthetic);
    assert_string_equal(r.calls[2].id, "dup");
    assert_string_equal(r.calls[4].id, "ok");
    assert_string_equal(r.calls[4].arguments, "{}");
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < i; j++)
            assert_string_not_equal(r.calls[i].id, r.calls[j].id);
    assert_null(r.text);
    llm_reply_cleanup(&r);
    asm_cleanup(&a);
}

/* A conversation exercising every rendering rule: two calls with images, one call
 * whose result is missing, a stray result, and a user turn after the round. */
static void build_round(struct llm_conversation *c)
{
    llm_conversation_init(c);
    llm_conversation_set_system(c, "be brief");
    llm_conversation_add_user(c, "task", NULL, 0);
    struct llm_tool_call calls[3] = {
        {.id = "call_a", .name = "desktop", .arguments = "{\"action\":\"screenshot\"}"},
        {.id = "call_b", .name = "desktop", .arguments = "{\"x\": 1,"}, /* malformed, kept */
        {.id = "call_made", .name = "powershell", .arguments = "{}", .id_synthetic = true},
    };
    struct llm_reply r = {.calls = calls, .n_calls = 3};
    llm_conversation_add_reply(c, &r);
    llm_conversation_add_tool_result(c, "call_a", "desktop", "shot", &png);
    llm_conversation_add_tool_result(c, "call_b", "desktop", "bad args", &png);
    llm_conversation_add_tool_result(c, "call_zzz", "desktop", "stray", NULL);
    llm_conversation_add_user(c, "continue", NULL, 0);
}

static cJSON *render(const struct llm_provider_ops *ops, struct llm_settings *s,
                     const struct llm_conversation *c, struct llm_wire *w)
{
    cJSON *schema = cJSON_Parse("{\"type\":\"object\",\"additionalProperties\":false,"
                                "\"properties\":{\"action\":{\"type\":\"string\"}}}");
    const struct llm_tool tool = {"desktop", "acts", schema, NULL};
    memset(w, 0, sizeof *w);
    assert_int_equal(ops->build(s, c, &tool, 1, w), WA_E_OK);
    cJSON_Delete(schema);
    cJSON *body = cJSON_Parse(w->body);
    assert_non_null(body);
    return body;
}

static void openai_rendering(void **state)
{
    (void)state;
    struct llm_conversation c;
    build_round(&c);
    struct llm_settings s = {.provider = LLM_PROVIDER_OPENAI,
                             .base_url =
                                 "https://r.openai.azure.com/openai/deployments/d?api-version=1",
                             .model = "gpt",
                             .api_key = "sk-azure-key",
                             .temperature = -1};
    struct llm_wire w;
    cJSON *b = render(&llm_openai_ops, &s, &c, &w);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(b, "messages");
    /* system, user, assistant, tool a, tool b, tool (missing), stray as user, images, user */
    assert_int_equal(cJSON_GetArraySize(m), 9);
    assert_string_equal(str_at(m, "0/role"), "system");
    assert_string_equal(str_at(m, "2/role"), "assistant");
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(m, 2), "content"));
    assert_string_equal(str_at(m, "2/tool_calls/1/function/arguments"), "{\"x\": 1,");
    assert_string_equal(str_at(m, "3/tool_call_id"), "call_a");
    assert_string_equal(str_at(m, "3/content"), "shot");
    assert_string_equal(str_at(m, "4/tool_call_id"), "call_b");
    assert_string_equal(str_at(m, "5/tool_call_id"), "call_made");
    assert_non_null(strstr(str_at(m, "5/content"), "no result"));
    assert_string_equal(str_at(m, "6/role"), "user");
    assert_non_null(strstr(str_at(m, "6/content"), "stray"));
    assert_string_equal(str_at(m, "7/role"), "user");
    assert_string_equal(str_at(m, "7/content/0/text"), "Observation images for call_a, call_b");
    assert_string_equal(str_at(m, "7/content/1/image_url/url"),
                        "data:image/png;base64,iVBORw0KGgo=");
    assert_string_equal(str_at(m, "7/content/2/type"), "image_url");
    assert_string_equal(str_at(m, "8/content"), "continue");
    assert_null(cJSON_GetObjectItemCaseSensitive(b, "temperature"));
    assert_null(cJSON_GetObjectItemCaseSensitive(b, "stream_options"));
    /* Azure: the deployment URL keeps its query; the key goes in api-key. */
    assert_string_equal(
        w.url, "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=1");
    int found = 0;
    for (size_t i = 0; i < w.n_headers; i++) {
        found += strcmp(w.headers[i], "api-key: sk-azure-key") == 0;
        assert_null(strstr(w.headers[i], "Authorization"));
    }
    assert_int_equal(found, 1);
    cJSON_Delete(b);
    provider_wire_cleanup(&w);
    llm_conversation_cleanup(&c);
}

static void gemini_rendering(void **state)
{
    (void)state;
    struct llm_conversation c;
    build_round(&c);
    struct llm_settings s = {.provider = LLM_PROVIDER_GOOGLE,
                             .base_url = "",
                             .model = "models/gemini-x",
                             .api_key = "AIza-key",
                             .stream = true,
                             .max_tokens = 100,
                             .temperature = 0.2};
    struct llm_wire w;
    cJSON *b = render(&llm_gemini_ops, &s, &c, &w);
    assert_string_equal(w.url, "https://generativelanguage.googleapis.com/v1beta/models/"
                               "gemini-x:streamGenerateContent?alt=sse");
    assert_null(strstr(w.url, "AIza"));
    assert_string_equal(str_at(b, "systemInstruction/parts/0/text"), "be brief");
    cJSON *ct = cJSON_GetObjectItemCaseSensitive(b, "contents");
    /* user, model, user (responses + stray + images + "continue" merged) */
    assert_int_equal(cJSON_GetArraySize(ct), 3);
    assert_string_equal(str_at(ct, "1/role"), "model");
    assert_string_equal(str_at(ct, "1/parts/0/functionCall/id"), "call_a");
    assert_null(str_at(ct, "1/parts/2/functionCall/id")); /* made-up id: not sent */
    /* malformed arguments become an empty object: Gemini needs one */
    assert_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(
                    cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ct, 1), "parts"), 1),
                "functionCall"),
            "args"),
        "x"));
    assert_string_equal(str_at(ct, "2/role"), "user");
    assert_string_equal(str_at(ct, "2/parts/0/functionResponse/id"), "call_a");
    assert_string_equal(str_at(ct, "2/parts/0/functionResponse/response/output"), "shot");
    assert_string_equal(str_at(ct, "2/parts/1/functionResponse/name"), "desktop");
    assert_string_equal(str_at(ct, "2/parts/2/functionResponse/name"), "powershell");
    assert_null(str_at(ct, "2/parts/2/functionResponse/id"));
    assert_non_null(strstr(str_at(ct, "2/parts/3/text"), "stray"));
    assert_string_equal(str_at(ct, "2/parts/4/inlineData/mimeType"), "image/png");
    assert_string_equal(str_at(ct, "2/parts/5/inlineData/data"), "iVBORw0KGgo=");
    assert_string_equal(str_at(ct, "2/parts/6/text"), "continue");
    assert_string_equal(str_at(b, "tools/0/functionDeclarations/0/parameters/type"), "OBJECT");
    assert_null(strstr(w.body, "additionalProperties"));
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(b, "generationConfig");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(gc, "maxOutputTokens")->valueint, 100);
    int found = 0;
    for (size_t i = 0; i < w.n_headers; i++)
        found += strcmp(w.headers[i], "x-goog-api-key: AIza-key") == 0;
    assert_int_equal(found, 1);
    cJSON_Delete(b);
    provider_wire_cleanup(&w);

    /* A base URL naming the API version keeps it. */
    s.base_url = "http://127.0.0.1:9/v1";
    s.stream = false;
    b = render(&llm_gemini_ops, &s, &c, &w);
    assert_string_equal(w.url, "http://127.0.0.1:9/v1/models/gemini-x:generateContent");
    cJSON_Delete(b);
    provider_wire_cleanup(&w);
    llm_conversation_cleanup(&c);
}

static void bad_tool_schema_is_refused(void **state)
{
    (void)state;
    struct llm_conversation c;
    llm_conversation_init(&c);
    llm_conversation_add_user(&c, "x", NULL, 0);
    cJSON *not_object = cJSON_CreateArray();
    struct llm_tool bad = {"t", "d", not_object, NULL};
    struct llm_settings s = {.base_url = "http://h/v1", .model = "m", .temperature = -1};
    struct llm_wire w;
    memset(&w, 0, sizeof w);
    assert_int_equal(llm_openai_ops.build(&s, &c, &bad, 1, &w), WA_E_INVALID_ARGS);
    provider_wire_cleanup(&w);
    assert_int_equal(llm_gemini_ops.build(&s, &c, &bad, 1, &w), WA_E_INVALID_ARGS);
    provider_wire_cleanup(&w);
    llm_conversation_cleanup(&c);
    cJSON_Delete(not_object);
}

/* Feeds stream events to a provider and returns the assembled reply. */
static wa_err feed(const struct llm_provider_ops *ops, const char *const *events, size_t n,
                   struct llm_reply *r)
{
    static struct llm_ids ids;
    asm_ids_init(&ids, 7);
    struct reply_asm a;
    asm_init(&a, 1 << 20, &ids, NULL, NULL);
    wa_err e = WA_E_OK;
    for (size_t i = 0; i < n && !e; i++)
        e = ops->parse_event(&a, events[i], strlen(events[i]));
    if (!e)
        e = ops->finish(&a, true);
    memset(r, 0, sizeof *r);
    if (!e)
        e = asm_take_reply(&a, r);
    asm_cleanup(&a);
    return e;
}

static void openai_delta_shapes(void **state)
{
    (void)state;
    struct llm_reply r;
    /* whole calls that all claim index 0, told apart by their ids */
    const char *reused[] = {
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":"
        "{\"name\":\"desktop\",\"arguments\":\"{\\\"x\\\":1}\"}}]}}]}",
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"function\":"
        "{\"name\":\"desktop\",\"arguments\":{\"x\":2}}}]},\"finish_reason\":\"stop\"}]}",
    };
    assert_int_equal(feed(&llm_openai_ops, reused, 2, &r), WA_E_OK);
    assert_int_equal(r.n_calls, 2);
    assert_string_equal(r.calls[0].arguments, "{\"x\":1}");
    assert_string_equal(r.calls[1].id, "b");
    assert_string_equal(r.calls[1].arguments, "{\"x\":2}");
    llm_reply_cleanup(&r);

    /* the name repeated in every delta of one call; usage in every chunk (last wins);
     * content as an array of parts */
    const char *repeated[] = {
        "{\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"On it.\"}],"
        "\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"desktop\","
        "\"arguments\":\"{\\\"action\\\":\"}}]}}],\"usage\":{\"prompt_tokens\":5}}",
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":"
        "\"desktop\",\"arguments\":\"\\\"wait\\\"}\"}}]}}],\"usage\":null}",
        "{\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":"
        "{\"prompt_tokens\":9,\"completion_tokens\":3}}",
        "[DONE]",
    };
    assert_int_equal(feed(&llm_openai_ops, repeated, 4, &r), WA_E_OK);
    assert_int_equal(r.n_calls, 1);
    assert_string_equal(r.calls[0].arguments, "{\"action\":\"wait\"}");
    assert_string_equal(r.text, "On it.");
    assert_int_equal(r.usage.prompt_tokens, 9);
    assert_int_equal(r.usage.total_tokens, 12);
    llm_reply_cleanup(&r);

    /* a refusal is the model's text; a stream cut before its end is retryable */
    const char *refusal[] = {"{\"choices\":[{\"delta\":{\"refusal\":\"I cannot.\"}}]}",
                             "{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}"};
    assert_int_equal(feed(&llm_openai_ops, refusal, 1, &r), WA_E_NETWORK);
    assert_int_equal(feed(&llm_openai_ops, refusal, 2, &r), WA_E_OK);
    assert_string_equal(r.text, "I cannot.");
    llm_reply_cleanup(&r);
    struct reply_asm a;
    struct llm_ids ids;
    asm_ids_init(&ids, 1);
    asm_init(&a, 1024, &ids, NULL, NULL);
    static const char body[] = "{\"choices\":[{\"message\":{\"content\":null,\"refusal\":"
                               "\"I cannot.\"},\"finish_reason\":\"stop\"}]}";
    assert_int_equal(llm_openai_ops.parse_body(&a, body, strlen(body)), WA_E_OK);
    assert_string_equal(dynbuf_str(&a.text), "I cannot.");
    asm_cleanup(&a);

    /* length with nothing usable; content filter */
    const char *cut[] = {"{\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}"};
    assert_int_equal(feed(&llm_openai_ops, cut, 1, &r), WA_E_PARSE);
    const char *filtered[] = {
        "{\"choices\":[{\"delta\":{},\"finish_reason\":\"content_filter\"}]}"};
    assert_int_equal(feed(&llm_openai_ops, filtered, 1, &r), WA_E_BLOCKED);
}

static void gemini_chunk_shapes(void **state)
{
    (void)state;
    struct llm_reply r;
    /* text over chunks, a signature on a closing empty text part, thoughts apart */
    const char *chunks[] = {
        "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Plan\","
        "\"thought\":true},{\"text\":\"Hel\"}]}}]}",
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"lo\"}]}}]}",
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\",\"thoughtSignature\":"
        "\"U0lH\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":4,"
        "\"candidatesTokenCount\":2,\"thoughtsTokenCount\":3,\"totalTokenCount\":9}}",
    };
    assert_int_equal(feed(&llm_gemini_ops, chunks, 3, &r), WA_E_OK);
    assert_string_equal(r.text, "Hello");
    assert_string_equal(r.reasoning, "Plan");
    assert_string_equal(r.thought_signature, "U0lH");
    assert_int_equal(r.usage.completion_tokens, 5);
    assert_int_equal(r.usage.total_tokens, 9);
    llm_reply_cleanup(&r);
    /* no finishReason: the stream was cut */
    assert_int_equal(feed(&llm_gemini_ops, chunks, 2, &r), WA_E_NETWORK);
    /* RECITATION blocks; an unknown reason with content returns it */
    const char *recit[] = {"{\"candidates\":[{\"finishReason\":\"RECITATION\"}]}"};
    assert_int_equal(feed(&llm_gemini_ops, recit, 1, &r), WA_E_BLOCKED);
    const char *other[] = {"{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\"}]},"
                           "\"finishReason\":\"SOMETHING_NEW\"}]}"};
    assert_int_equal(feed(&llm_gemini_ops, other, 1, &r), WA_E_OK);
    llm_reply_cleanup(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conversation_copies_and_trims),
        cmocka_unit_test(provider_names),
        cmocka_unit_test(client_configuration),
        cmocka_unit_test(urls),
        cmocka_unit_test(redaction),
        cmocka_unit_test(made_up_ids_are_unique),
        cmocka_unit_test(openai_rendering),
        cmocka_unit_test(gemini_rendering),
        cmocka_unit_test(bad_tool_schema_is_refused),
        cmocka_unit_test(openai_delta_shapes),
        cmocka_unit_test(gemini_chunk_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
