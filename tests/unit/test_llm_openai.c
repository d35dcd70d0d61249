/* Tests of the OpenAI-compatible provider against the fake server: replies whole and
 * streamed, every server quirk, request shape, and the reference request schema. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_llm_proc.c"
#include "llm_test_client.h"

static void assert_schema_valid(const struct fake_llm *f)
{
    int rc = fake_llm_validate_openai(f);
    if (rc == 77)
        return; /* said why on stderr */
    assert_int_equal(rc, 0);
}

/* Runs one completion of the one-turn conversation. */
static wa_err complete_once(struct fake_llm *f, bool stream, struct capture *cap,
                            struct llm_reply *r)
{
    char url[128];
    struct llm_config cfg = test_config(f, LLM_PROVIDER_OPENAI, stream, cap, url, sizeof url);
    struct llm_client *c;
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_OK);
    struct llm_conversation conv;
    test_conversation(&conv);
    wa_err e = llm_complete(c, &conv, test_tools, N_TEST_TOOLS, r);
    llm_conversation_cleanup(&conv);
    llm_client_free(c);
    return e;
}

static void text_reply_whole_and_streamed(void **state)
{
    (void)state;
    struct fake_llm f;
    assert_true(fake_llm_start(&f, "{'steps':[{'text':'Hello from the model.','reasoning':"
                                   "'Think first.','usage':{'prompt_tokens':100,"
                                   "'completion_tokens':20}}],'after_end':'repeat_last'}"));
    for (int stream = 0; stream < 2; stream++) {
        struct capture cap;
        capture_init(&cap);
        struct llm_reply r;
        assert_int_equal(complete_once(&f, stream, &cap, &r), WA_E_OK);
        assert_string_equal(r.text, "Hello from the model.");
        assert_string_equal(r.reasoning, "Think first.");
        assert_int_equal(r.n_calls, 0);
        assert_string_equal(r.finish_reason, "stop");
        assert_int_equal(r.usage.prompt_tokens, 100);
        assert_int_equal(r.usage.completion_tokens, 20);
        assert_int_equal(r.usage.total_tokens, 120);
        assert_int_equal(r.attempts, 1);
        assert_int_equal(r.http_status, 200);
        if (stream) { /* the text also came live, piece by piece */
            assert_string_equal(dynbuf_str(&cap.deltas), "Hello from the model.");
            assert_string_equal(dynbuf_str(&cap.thinking), "Think first.");
        }
        llm_reply_cleanup(&r);
        capture_cleanup(&cap);
    }
    cJSON *reqs = fake_llm_requests(&f);
    assert_int_equal(cJSON_GetArraySize(reqs), 2);
    assert_string_equal(str_at(reqs, "0/path"), "/v1/chat/completions");
    assert_string_equal(fake_llm_header(reqs, 0, "Authorization"), "Bearer " TEST_KEY);
    assert_true(cJSON_IsFalse(at(reqs, "0/body/stream")));
    assert_null(at(reqs, "0/body/stream_options"));
    assert_true(cJSON_IsTrue(at(reqs, "1/body/stream")));
    assert_true(cJSON_IsTrue(at(reqs, "1/body/stream_options/include_usage")));
    assert_string_equal(str_at(reqs, "0/body/model"), "gpt-test");
    assert_string_equal(str_at(reqs, "0/body/messages/0/role"), "system");
    assert_string_equal(str_at(reqs, "0/body/tools/0/type"), "function");
    assert_string_equal(str_at(reqs, "0/body/tools/1/function/name"), "powershell");
    /* OpenAI gets the schema as written */
    assert_true(cJSON_IsFalse(at(reqs, "0/body/tools/0/function/parameters/additionalProperties")));
    cJSON_Delete(reqs);
    assert_schema_valid(&f);
    fake_llm_stop(&f);
}

/* A quirk scenario and what the reply must look like, checked streamed and not. */
struct quirk_case {
    const char *name;
    const char *step;
    void (*check)(const struct llm_reply *r, bool stream);
};

static void two_calls_with_args(const struct llm_reply *r, bool stream)
{
    (void)stream;
    assert_int_equal(r->n_calls, 2);
    assert_string_equal(r->calls[0].name, "desktop");
    assert_string_equal(r->calls[1].name, "powershell");
    cJSON *a0 = cJSON_Parse(r->calls[0].arguments), *a1 = cJSON_Parse(r->calls[1].arguments);
    assert_non_null(a0);
    assert_non_null(a1);
    assert_string_equal(str_at(a0, "action"), "key");
    assert_string_equal(str_at(a0, "keys"), "ctrl+s");
    assert_string_equal(str_at(a1, "command"), "Get-Date");
    cJSON_Delete(a0);
    cJSON_Delete(a1);
    assert_non_null(r->calls[0].id);
    assert_non_null(r->calls[1].id);
    assert_true(r->calls[0].id[0] && r->calls[1].id[0]);
    assert_string_not_equal(r->calls[0].id, r->calls[1].id);
}

static void ids_kept(const struct llm_reply *r, bool stream)
{
    two_calls_with_args(r, stream);
    assert_string_equal(r->calls[0].id, "call_k1");
    assert_string_equal(r->calls[1].id, "call_k2");
    assert_false(r->calls[0].id_synthetic);
    assert_string_equal(r->finish_reason, "tool_calls");
}

static void ids_made_up(const struct llm_reply *r, bool stream)
{
    two_calls_with_args(r, stream);
    assert_true(r->calls[0].id_synthetic && r->calls[1].id_synthetic);
    assert_memory_equal(r->calls[0].id, "call_", 5);
}

static void no_text(const struct llm_reply *r, bool stream)
{
    ids_kept(r, stream);
    assert_null(r->text);
}

static void finish_stop_with_calls(const struct llm_reply *r, bool stream)
{
    two_calls_with_args(r, stream);
    assert_string_equal(r->finish_reason, "stop");
}

static void text_and_calls(const struct llm_reply *r, bool stream)
{
    two_calls_with_args(r, stream);
    assert_string_equal(r->text, "Saving now.");
}

static void raw_arguments_kept(const struct llm_reply *r, bool stream)
{
    (void)stream;
    assert_int_equal(r->n_calls, 1);
    assert_string_equal(r->calls[0].arguments, "{\"action\": \"click\", \"x\": 12,");
}

static void reasoning_field(const struct llm_reply *r, bool stream)
{
    (void)stream;
    assert_string_equal(r->reasoning, "Considering the menu.");
    assert_string_equal(r->text, "Done.");
}

#define CALLS                                                                                      \
    "'tool_calls':[{'name':'desktop','id':'call_k1','arguments':{'action':'key','keys':"           \
    "'ctrl+s'}},{'name':'powershell','id':'call_k2','arguments':{'command':'Get-Date'}}]"

static const struct quirk_case quirks[] = {
    {"plain", "{" CALLS "}", ids_kept},
    {"args_as_object", "{" CALLS ",'quirks':{'args_as_object':true}}", ids_kept},
    {"empty_ids", "{" CALLS ",'quirks':{'empty_ids':true}}", ids_made_up},
    {"missing_ids", "{" CALLS ",'quirks':{'missing_ids':true}}", ids_made_up},
    {"content_null", "{" CALLS ",'quirks':{'content_null':true}}", no_text},
    {"whole_chunk_stop", "{" CALLS ",'quirks':{'whole_chunk':true,'finish_reason':'stop'}}",
     finish_stop_with_calls},
    {"omit_index", "{" CALLS ",'quirks':{'omit_index':true}}", ids_kept},
    {"omit_index_missing_ids", "{" CALLS ",'quirks':{'omit_index':true,'missing_ids':true}}",
     ids_made_up},
    {"comments_crlf_no_done",
     "{'text':'Saving now.'," CALLS ",'quirks':{'comments':true,'crlf':true,'no_done':true}}",
     text_and_calls},
    {"invalid_arguments",
     "{'tool_calls':[{'name':'desktop','id':'c9','arguments':{}}],'quirks':{'invalid_arguments':"
     "'{\\'action\\': \\'click\\', \\'x\\': 12,'}}",
     raw_arguments_kept},
    {"reasoning_content", "{'text':'Done.','reasoning':'Considering the menu.'}", reasoning_field},
    {"reasoning",
     "{'text':'Done.','reasoning':'Considering the menu.','quirks':{"
     "'reasoning_field':'reasoning'}}",
     reasoning_field},
};

static void every_quirk_streamed_and_not(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof quirks / sizeof quirks[0]; i++) {
        char scenario[2048];
        snprintf(scenario, sizeof scenario, "{'steps':[%s],'after_end':'repeat_last'}",
                 quirks[i].step);
        struct fake_llm f;
        assert_true(fake_llm_start(&f, scenario));
        for (int stream = 0; stream < 2; stream++) {
            struct capture cap;
            capture_init(&cap);
            struct llm_reply r;
            wa_err e = complete_once(&f, stream, &cap, &r);
            if (e)
                fail_msg("quirk %s (%s): %s: %s", quirks[i].name, stream ? "stream" : "whole",
                         wa_err_code(e), wa_err_detail());
            print_message("quirk %s, %s: ok\n", quirks[i].name, stream ? "streamed" : "whole");
            quirks[i].check(&r, stream);
            assert_int_equal(r.attempts, 1);
            llm_reply_cleanup(&r);
            capture_cleanup(&cap);
        }
        assert_int_equal(fake_llm_count(&f), 2);
        fake_llm_stop(&f);
    }
}

/* A whole tool round: the reply's calls go back with their results (with images), then
 * the second request must hold every tool message before the one user message with
 * the images, and validate against the reference schema. */
static void tool_round_request_shape(void **state)
{
    (void)state;
    struct fake_llm f;
    assert_true(fake_llm_start(&f,
                               "{'steps':[{'text':'Looking.'," CALLS "},"
                               "{'expect':{'tool_result_for':'call_k2'},'text':'All done.'}]}"));
    for (int stream = 0; stream < 2; stream++) {
        if (stream) { /* second pass: a fresh server */
            fake_llm_stop(&f);
            assert_true(fake_llm_start(
                &f, "{'steps':[{'text':'Looking.','quirks':{'missing_ids':true}," CALLS "},"
                    "{'text':'All done.'}]}"));
        }
        struct session s;
        session_attach(&s, &f, LLM_PROVIDER_OPENAI, stream);
        session_connect(&s);
        struct llm_reply r;
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_int_equal(r.n_calls, 2);
        assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
        struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
        assert_int_equal(llm_conversation_add_tool_result(&s.conv, r.calls[0].id, "desktop",
                                                          "{\"ok\":true}", &img),
                         WA_E_OK);
        assert_int_equal(
            llm_conversation_add_tool_result(&s.conv, r.calls[1].id, "powershell", "exit 0", &img),
            WA_E_OK);
        char id0[64], id1[64];
        snprintf(id0, sizeof id0, "%s", r.calls[0].id);
        snprintf(id1, sizeof id1, "%s", r.calls[1].id);
        llm_reply_cleanup(&r);
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_string_equal(r.text, "All done.");
        llm_reply_cleanup(&r);

        cJSON *reqs = fake_llm_requests(&f);
        const cJSON *m = at(reqs, "1/body/messages");
        assert_int_equal(cJSON_GetArraySize(m), 6);
        assert_string_equal(str_at(m, "2/role"), "assistant");
        assert_string_equal(str_at(m, "2/content"), "Looking.");
        assert_string_equal(str_at(m, "2/tool_calls/0/id"), id0);
        /* arguments go back exactly as the server sent them */
        assert_string_equal(str_at(m, "2/tool_calls/1/function/arguments"),
                            "{\"command\": \"Get-Date\"}");
        assert_string_equal(str_at(m, "3/role"), "tool");
        assert_string_equal(str_at(m, "3/tool_call_id"), id0);
        assert_true(cJSON_IsString(at(m, "3/content"))); /* never an image in a tool message */
        assert_string_equal(str_at(m, "4/role"), "tool");
        assert_string_equal(str_at(m, "4/tool_call_id"), id1);
        assert_string_equal(str_at(m, "5/role"), "user");
        assert_non_null(strstr(str_at(m, "5/content/0/text"), id0));
        assert_string_equal(str_at(m, "5/content/1/image_url/url"),
                            "data:image/png;base64," TEST_PNG_B64);
        assert_string_equal(str_at(m, "5/content/2/type"), "image_url");
        assert_int_equal(cJSON_GetArraySize(at(reqs, "1/expect_failures")), 0);
        cJSON_Delete(reqs);
        assert_schema_valid(&f);
        session_disconnect(&s);
    }
    fake_llm_stop(&f);
}

static void no_key_no_header(void **state)
{
    (void)state;
    struct session s;
    session_start(&s, "{'steps':[{'text':'local model'}]}", LLM_PROVIDER_OPENAI, true);
    s.cfg.api_key = "";
    session_connect(&s);
    struct llm_reply r;
    assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_OK);
    assert_string_equal(r.text, "local model");
    cJSON *reqs = fake_llm_requests(&s.f);
    assert_null(fake_llm_header(reqs, 0, "Authorization"));
    assert_null(at(reqs, "0/body/tools"));
    cJSON_Delete(reqs);
    llm_reply_cleanup(&r);
    session_close(&s);
}

/* Azure-style deployment URLs carry their API version as a query: it stays last. */
static void deployment_url_with_query(void **state)
{
    (void)state;
    struct session s;
    session_start(&s, "{'steps':[{'text':'hi'}]}", LLM_PROVIDER_OPENAI, false);
    char base[256];
    snprintf(base, sizeof base, "%s/openai/deployments/gpt4o?api-version=2024-10-21", s.f.url);
    s.cfg.base_url = base;
    s.cfg.max_tokens = 256;
    s.cfg.temperature = 0.2;
    session_connect(&s);
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    cJSON *reqs = fake_llm_requests(&s.f);
    assert_string_equal(str_at(reqs, "0/path"), "/openai/deployments/gpt4o/chat/completions");
    assert_string_equal(str_at(reqs, "0/query"), "api-version=2024-10-21");
    assert_int_equal(at(reqs, "0/body/max_tokens")->valueint, 256);
    assert_true(at(reqs, "0/body/temperature")->valuedouble > 0.19);
    cJSON_Delete(reqs);
    assert_schema_valid(&s.f);
    llm_reply_cleanup(&r);
    session_close(&s);
}

/* A server that ignores "stream": true and answers with one JSON body still works. */
static void stream_requested_json_answered(void **state)
{
    (void)state;
    struct fake_llm f;
    assert_true(fake_llm_start(
        &f, "{'steps':[{'fault':'raw','data':'HTTP/1.1 200 OK\\r\\nContent-Type: "
            "application/json\\r\\nContent-Length: 77\\r\\n\\r\\n{\\'choices\\':[{\\'message\\':"
            "{\\'content\\':\\'plain json\\'},\\'finish_reason\\':\\'stop\\'}]}       '}]}"));
    struct capture cap;
    capture_init(&cap);
    struct llm_reply r;
    wa_err e = complete_once(&f, true, &cap, &r);
    if (e)
        fail_msg("%s: %s", wa_err_code(e), wa_err_detail());
    assert_string_equal(r.text, "plain json");
    llm_reply_cleanup(&r);
    capture_cleanup(&cap);
    fake_llm_stop(&f);
}

/* The validator itself must be able to fail: an image inside a tool message (what
 * OpenAI and vLLM reject) and a missing model are caught. */
static void schema_validator_rejects_bad_requests(void **state)
{
    (void)state;
    struct fake_llm f;
    memset(&f, 0, sizeof f);
    snprintf(f.record, sizeof f.record, "/tmp/wa-llm-badreq-%d.jsonl", (int)getpid());
    FILE *fp = fopen(f.record, "w");
    assert_non_null(fp);
    fputs("{\"n\":1,\"provider\":\"openai\",\"body\":{\"model\":\"m\",\"messages\":[{\"role\":"
          "\"tool\",\"tool_call_id\":\"a\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
          "{\"url\":\"data:image/png;base64,AAAA\"}}]}]}}\n",
          fp);
    fclose(fp);
    int rc = fake_llm_validate_openai(&f);
    if (rc != 77)
        assert_int_equal(rc, 1);
    fp = fopen(f.record, "w");
    fputs("{\"n\":1,\"provider\":\"openai\",\"body\":{\"messages\":[{\"role\":\"user\","
          "\"content\":\"hi\"}]}}\n",
          fp);
    fclose(fp);
    rc = fake_llm_validate_openai(&f);
    if (rc != 77)
        assert_int_equal(rc, 1);
    unlink(f.record);
}

/* A server without a tool parser: the call comes back as text in the content; with
 * text_calls on, the client takes it from there (said once in the log), and a
 * malformed one is left as text with the reason beside it. */
static void calls_written_as_text(void **state)
{
    (void)state;
    struct fake_llm f;
    assert_true(fake_llm_start(
        &f,
        "{'steps':[{'text':'Saving.\\n<tool_call>\\n{\\'name\\': \\'desktop\\', "
        "\\'arguments\\': {\\'action\\': \\'key\\', \\'keys\\': \\'ctrl+s\\'}}\\n</tool_call>'},"
        "{'text':'<tool_call>\\n<function=desktop>\\n<parameter=action>\\nscreenshot\\n"
        "</parameter>\\n</function>\\n</tool_call>'},"
        "{'text':'<tool_call>{\\'name\\': \\'desktop\\', \\'arguments\\': {\\'x\\': 1,}}"
        "</tool_call>'},{'text':'All done.'}]}"));
    struct session s;
    session_attach(&s, &f, LLM_PROVIDER_OPENAI, true);
    s.cfg.text_calls = LLM_TEXT_FUNCTION_FORMATS;
    session_connect(&s);
    struct llm_reply r;

    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_true(r.calls_from_text);
    assert_int_equal(r.n_calls, 1);
    assert_string_equal(r.calls[0].name, "desktop");
    assert_string_equal(r.calls[0].arguments, "{\"action\":\"key\",\"keys\":\"ctrl+s\"}");
    assert_int_equal(r.calls[0].coords, LLM_COORDS_FRAME_999);
    assert_string_equal(r.text, "Saving.");
    assert_null(r.text_call_error);
    llm_reply_cleanup(&r);

    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_true(r.calls_from_text);
    assert_string_equal(r.calls[0].arguments, "{\"action\":\"screenshot\"}");
    assert_null(r.text);
    llm_reply_cleanup(&r);

    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_false(r.calls_from_text);
    assert_int_equal(r.n_calls, 0);
    assert_non_null(strstr(r.text, "<tool_call>"));
    assert_non_null(r.text_call_error);
    assert_non_null(strstr(r.text_call_error, "not valid JSON"));
    llm_reply_cleanup(&r);

    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_false(r.calls_from_text);
    assert_string_equal(r.text, "All done.");
    assert_null(r.text_call_error);
    llm_reply_cleanup(&r);

    const char *log = dynbuf_str(&s.cap.log);
    const char *once = strstr(log, "wrote its tool calls as text");
    assert_non_null(once);
    assert_null(strstr(once + 1, "wrote its tool calls as text"));
    assert_null(strstr(log, TEST_KEY));
    session_disconnect(&s);
    assert_schema_valid(&f);
    fake_llm_stop(&f);
}

/* A server that refuses streaming together with tools (HTTP 400 naming stream) is
 * asked again without streaming, and not asked to stream again; said once. */
/* Calls a server passed on as text go back as that text, and their results as one user
 * message with the images: no tool_calls, no tool message (both providers). */
static void text_round_goes_back_as_text(void **state)
{
    (void)state;
#define SAVING                                                                                     \
    "{'text':'Saving.','quirks':{'calls_as_text':'hermes'},"                                       \
    "'tool_calls':[{'name':'desktop','arguments':{'action':'key','keys':'ctrl+s'}},"               \
    "{'name':'desktop','arguments':{'action':'wait','seconds':1}}]},{'text':'Saved.'}"
    struct fake_llm f; /* one server for both providers: a server start is slow */
    assert_true(fake_llm_start(&f, "{'steps':[" SAVING "," SAVING "]}"));
    for (int gemini = 0; gemini < 2; gemini++) {
        struct capture cap;
        capture_init(&cap);
        char url[128];
        enum llm_provider_kind p = gemini ? LLM_PROVIDER_GOOGLE : LLM_PROVIDER_OPENAI;
        struct llm_config cfg = test_config(&f, p, true, &cap, url, sizeof url);
        cfg.text_calls = LLM_TEXT_FUNCTION_FORMATS;
        struct llm_client *c;
        assert_int_equal(llm_client_new(&cfg, &c), WA_E_OK);
        struct llm_conversation conv;
        test_conversation(&conv);
        struct llm_reply r;
        assert_int_equal(llm_complete(c, &conv, NULL, 0, &r), WA_E_OK);
        assert_true(r.calls_from_text);
        assert_int_equal(r.n_calls, 2);
        assert_string_equal(r.text, "Saving.");
        assert_non_null(strstr(r.written, "<tool_call>"));
        assert_int_equal(llm_conversation_add_reply(&conv, &r), WA_E_OK);
        struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
        assert_int_equal(llm_conversation_add_tool_result(&conv, r.calls[0].id, "desktop",
                                                          "{\"ok\":true}", &img),
                         WA_E_OK);
        assert_int_equal(
            llm_conversation_add_tool_result(&conv, r.calls[1].id, "desktop", "{\"ok\":1}", NULL),
            WA_E_OK);
        char id0[64];
        snprintf(id0, sizeof id0, "%s", r.calls[0].id);
        llm_reply_cleanup(&r);
        assert_int_equal(llm_complete(c, &conv, NULL, 0, &r), WA_E_OK);
        assert_string_equal(r.text, "Saved.");
        llm_reply_cleanup(&r);

        cJSON *reqs = fake_llm_requests(&f);
        const cJSON *second = cJSON_GetArrayItem(reqs, 2 * gemini + 1);
        char *body = cJSON_PrintUnformatted(at(second, "body"));
        assert_null(strstr(body, "tool_calls"));
        assert_null(strstr(body, "\"tool\""));
        assert_null(strstr(body, "functionCall"));
        assert_null(strstr(body, "functionResponse"));
        assert_null(strstr(body, "\"tools\""));
        free(body);
        const cJSON *m = at(second, gemini ? "body/contents" : "body/messages");
        int n = cJSON_GetArraySize(m);
        const cJSON *said = cJSON_GetArrayItem(m, n - 2), *results = cJSON_GetArrayItem(m, n - 1);
        const char *said_text = gemini ? str_at(said, "parts/0/text") : str_at(said, "content");
        assert_string_equal(str_at(said, "role"), gemini ? "model" : "assistant");
        assert_non_null(strstr(said_text, "Saving."));
        assert_non_null(strstr(said_text, "<tool_call>"));
        assert_string_equal(str_at(results, "role"), "user");
        const char *rt =
            gemini ? str_at(results, "parts/0/text") : str_at(results, "content/0/text");
        char want[128];
        snprintf(want, sizeof want, "Result of desktop (%s):\n{\"ok\":true}", id0);
        assert_non_null(strstr(rt, want));
        assert_non_null(strstr(rt, "{\"ok\":1}"));
        if (gemini)
            assert_string_equal(str_at(results, "parts/1/inlineData/data"), TEST_PNG_B64);
        else
            assert_string_equal(str_at(results, "content/1/image_url/url"),
                                "data:image/png;base64," TEST_PNG_B64);
        cJSON_Delete(reqs);
        llm_conversation_cleanup(&conv);
        llm_client_free(c);
        capture_cleanup(&cap);
    }
    assert_schema_valid(&f); /* the Chat Completions requests; the others are skipped */
    fake_llm_stop(&f);
}

/* The first request is refused and asked again at once (two attempts, "one"); the
 * second goes through as it is ("two"). */
static void answered_after_a_refusal(struct session *s)
{
    struct llm_reply r;
    assert_int_equal(session_complete(s, &r), WA_E_OK);
    assert_string_equal(r.text, "one");
    assert_int_equal(r.attempts, 2);
    llm_reply_cleanup(&r);
    assert_int_equal(session_complete(s, &r), WA_E_OK);
    assert_string_equal(r.text, "two");
    assert_int_equal(r.attempts, 1);
    llm_reply_cleanup(&r);
}

/* The log says what once, and only once. */
static void assert_logged_once(const char *log, const char *what)
{
    const char *once = strstr(log, what);
    if (!once)
        fail_msg("not logged: %s", what);
    if (strstr(once + 1, what))
        fail_msg("logged more than once: %s", what);
}

static void stream_with_tools_refused(void **state)
{
    (void)state;
    struct session s;
    session_open(&s,
                 "{'steps':[{'status':400,'body':{'error':{'message':"
                 "'Cannot use tools with stream','type':"
                 "'invalid_request_error'}}},{'text':'one'},{'text':'two'},"
                 "{'status':400}]}",
                 LLM_PROVIDER_OPENAI, true);
    answered_after_a_refusal(&s);
    /* any other 400 is not retried */
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_HTTP);
    assert_int_equal(r.attempts, 1);
    llm_reply_cleanup(&r);
    cJSON *reqs = fake_llm_requests(&s.f);
    assert_int_equal(cJSON_GetArraySize(reqs), 4);
    assert_true(cJSON_IsTrue(at(reqs, "0/body/stream")));
    assert_true(cJSON_IsFalse(at(reqs, "1/body/stream")));
    assert_true(cJSON_IsFalse(at(reqs, "2/body/stream")));
    assert_null(at(reqs, "2/body/stream_options"));
    cJSON_Delete(reqs);
    assert_logged_once(dynbuf_str(&s.cap.log), "refuses streaming with tools");
    session_disconnect(&s);
    assert_schema_valid(&s.f);
    fake_llm_stop(&s.f);
}

/* A server that refuses only stream_options (older Azure api-versions): asked again at
 * once without it, still streaming, and never sent it again. */
static void stream_options_refused(void **state)
{
    (void)state;
    struct session s;
    session_open(&s, "{'refuse':['stream_options'],'steps':[{'text':'one'},{'text':'two'}]}",
                 LLM_PROVIDER_OPENAI, true);
    answered_after_a_refusal(&s);
    assert_string_equal(dynbuf_str(&s.cap.deltas), "onetwo"); /* streamed, both */
    cJSON *reqs = fake_llm_requests(&s.f);
    assert_int_equal(cJSON_GetArraySize(reqs), 3);
    assert_string_equal(str_at(reqs, "0/response/refusal"), "stream_options");
    for (int i = 1; i < 3; i++) {
        char path[32];
        snprintf(path, sizeof path, "%d/body/stream", i);
        assert_true(cJSON_IsTrue(at(reqs, path)));
        snprintf(path, sizeof path, "%d/body/stream_options", i);
        assert_null(at(reqs, path));
    }
    cJSON_Delete(reqs);
    assert_logged_once(dynbuf_str(&s.cap.log), "refuses stream_options");
    assert_null(strstr(dynbuf_str(&s.cap.log), "refuses streaming"));
    session_disconnect(&s);
    assert_schema_valid(&s.f);
    fake_llm_stop(&s.f);
}

/* A local server as vLLM and llama.cpp answer: images refused in tool messages (the
 * client never puts them there), streaming with tools refused, tool_choice rejected.
 * Each fallback happens once and holds for the client's lifetime. */
static void local_server_refusals(void **state)
{
    (void)state;
    struct session s;
    session_start(&s,
                  "{'refuse':['images_in_tool','stream_with_tools',"
                  "'tool_choice'],'steps':[{'text':'one'},{'text':'two'}]}",
                  LLM_PROVIDER_OPENAI, true);
    s.cfg.tool_choice = "auto";
    session_connect(&s);
    struct llm_tool_call call = {
        .id = "call_a", .name = "desktop", .arguments = "{\"action\":\"screenshot\"}"};
    struct llm_reply prev = {.calls = &call, .n_calls = 1};
    assert_int_equal(llm_conversation_add_reply(&s.conv, &prev), WA_E_OK);
    struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
    assert_int_equal(llm_conversation_add_tool_result(&s.conv, "call_a", "desktop", "ok", &img),
                     WA_E_OK);
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_string_equal(r.text, "one");
    assert_int_equal(r.attempts, 3);
    llm_reply_cleanup(&r);
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_string_equal(r.text, "two");
    assert_int_equal(r.attempts, 1);
    llm_reply_cleanup(&r);
    cJSON *reqs = fake_llm_requests(&s.f);
    assert_int_equal(cJSON_GetArraySize(reqs), 4);
    assert_string_equal(str_at(reqs, "0/response/refusal"), "stream_with_tools");
    assert_string_equal(str_at(reqs, "1/response/refusal"), "tool_choice");
    assert_true(cJSON_IsFalse(at(reqs, "1/body/stream")));
    assert_string_equal(str_at(reqs, "1/body/tool_choice"), "auto");
    assert_null(at(reqs, "2/body/tool_choice"));
    assert_null(at(reqs, "3/body/tool_choice"));
    assert_true(cJSON_IsFalse(at(reqs, "3/body/stream")));
    /* the image went into a user message after the tool message, naming its call */
    assert_string_equal(str_at(reqs, "3/body/messages/3/role"), "tool");
    assert_string_equal(str_at(reqs, "3/body/messages/3/content"), "ok");
    assert_string_equal(str_at(reqs, "3/body/messages/4/role"), "user");
    assert_non_null(strstr(str_at(reqs, "3/body/messages/4/content/0/text"), "call_a"));
    assert_string_equal(str_at(reqs, "3/body/messages/4/content/1/type"), "image_url");
    cJSON_Delete(reqs);
    assert_logged_once(dynbuf_str(&s.cap.log), "rejects tool_choice");
    assert_logged_once(dynbuf_str(&s.cap.log), "refuses streaming with tools");
    session_disconnect(&s);
    assert_schema_valid(&s.f);
    fake_llm_stop(&s.f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_reply_whole_and_streamed),
        cmocka_unit_test(calls_written_as_text),
        cmocka_unit_test(text_round_goes_back_as_text),
        cmocka_unit_test(stream_with_tools_refused),
        cmocka_unit_test(stream_options_refused),
        cmocka_unit_test(local_server_refusals),
        cmocka_unit_test(every_quirk_streamed_and_not),
        cmocka_unit_test(tool_round_request_shape),
        cmocka_unit_test(no_key_no_header),
        cmocka_unit_test(deployment_url_with_query),
        cmocka_unit_test(stream_requested_json_answered),
        cmocka_unit_test(schema_validator_rejects_bad_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
