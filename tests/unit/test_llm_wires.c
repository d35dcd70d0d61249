/* Tests of the OpenAI Responses and Anthropic Messages providers against the fake
 * server, which refuses (HTTP 400) any request that is not the documented shape: a tool
 * round whole and streamed with the request as it goes on the wire, the key only in its
 * header, retries, errors mid-stream, and calls written as text. */
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

/* Every request the server got was the documented shape (none answered "invalid"). */
static void assert_all_valid(const cJSON *reqs)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, reqs)
    {
        const char *kind = str_at(r, "response/kind");
        if (kind && strcmp(kind, "invalid") == 0) {
            char *p = cJSON_PrintUnformatted(at(r, "response/problems"));
            fail_msg("request refused as malformed: %s", p);
        }
    }
}

#define CALLS                                                                                      \
    "'tool_calls':[{'name':'desktop','arguments':{'action':'click','x':5,'y':9},'id':'call_k1'},"  \
    "{'name':'powershell','arguments':{'command':'Get-Date'},'id':'call_k2'}]"

static const enum llm_provider_kind kinds[] = {LLM_PROVIDER_OPENAI_RESPONSES,
                                               LLM_PROVIDER_ANTHROPIC};

#define ROUND                                                                                      \
    "{'text':'Looking.','reasoning':'The window first.'," CALLS "},"                               \
    "{'expect':{'tool_result_for':'call_k2'},'text':'All done.',"                                  \
    "'usage':{'prompt_tokens':40,'completion_tokens':3}}"

static void tool_round(void **state)
{
    (void)state;
    struct fake_llm f; /* one server for the four runs: a server start is slow */
    assert_true(fake_llm_start(&f, "{'steps':[" ROUND "," ROUND "," ROUND "," ROUND "]}"));
    int first = 0; /* this run's first request */
    for (size_t k = 0; k < 2; k++)
        for (int stream = 0; stream < 2; stream++, first += 2) {
            bool anthropic = kinds[k] == LLM_PROVIDER_ANTHROPIC;
            struct session s;
            session_attach(&s, &f, kinds[k], stream);
            session_connect(&s);
            struct llm_reply r;
            assert_int_equal(session_complete(&s, &r), WA_E_OK);
            assert_string_equal(r.text, "Looking.");
            assert_string_equal(r.reasoning, "The window first.");
            assert_int_equal(r.n_calls, 2);
            assert_string_equal(r.calls[0].id, "call_k1");
            assert_string_equal(r.calls[0].name, "desktop");
            assert_non_null(r.calls[0].parsed);
            assert_int_equal(cJSON_GetObjectItem(r.calls[0].parsed, "y")->valueint, 9);
            assert_string_equal(r.calls[1].name, "powershell");
            if (stream)
                assert_string_equal(dynbuf_str(&s.cap.deltas), "Looking.");
            assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
            struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
            assert_int_equal(llm_conversation_add_tool_result(&s.conv, "call_k1", "desktop",
                                                              "{\"ok\":true}", &img),
                             WA_E_OK);
            assert_int_equal(
                llm_conversation_add_tool_result(&s.conv, "call_k2", "powershell", "exit 0", NULL),
                WA_E_OK);
            llm_conversation_add_user(&s.conv, "Note: keep going.", NULL, 0);
            llm_reply_cleanup(&r);
            assert_int_equal(session_complete(&s, &r), WA_E_OK);
            assert_string_equal(r.text, "All done.");
            assert_int_equal(r.usage.prompt_tokens, 40);
            assert_int_equal(r.usage.total_tokens, 43);
            llm_reply_cleanup(&r);

            cJSON *all_reqs = fake_llm_requests(&f);
            assert_int_equal(cJSON_GetArraySize(all_reqs), first + 2);
            assert_all_valid(all_reqs);
            cJSON *reqs = cJSON_CreateArray(); /* this run's two, as 0 and 1 */
            cJSON_AddItemReferenceToArray(reqs, cJSON_GetArrayItem(all_reqs, first));
            cJSON_AddItemReferenceToArray(reqs, cJSON_GetArrayItem(all_reqs, first + 1));
            assert_int_equal(cJSON_GetArraySize(at(reqs, "1/expect_failures")), 0);
            const cJSON *body = at(reqs, "1/body");
            assert_true(cJSON_IsBool(at(body, "stream")));
            assert_int_equal(cJSON_IsTrue(at(body, "stream")), stream);
            if (anthropic) {
                assert_string_equal(str_at(reqs, "1/path"), "/v1/messages");
                assert_string_equal(str_at(body, "system"), "You are a test.");
                assert_string_equal(str_at(body, "tools/0/name"), "desktop");
                assert_non_null(at(body, "tools/0/input_schema"));
                const cJSON *m = at(body, "messages");
                assert_int_equal(cJSON_GetArraySize(m), 3);
                /* the turn as it came: its thinking block first, signature and all */
                assert_string_equal(str_at(m, "1/content/0/type"), "thinking");
                assert_string_equal(str_at(m, "1/content/0/thinking"), "The window first.");
                assert_non_null(str_at(m, "1/content/0/signature"));
                assert_string_equal(str_at(m, "1/content/1/text"), "Looking.");
                assert_string_equal(str_at(m, "1/content/2/type"), "tool_use");
                assert_string_equal(str_at(m, "1/content/2/id"), "call_k1");
                assert_int_equal(at(m, "1/content/2/input/x")->valueint, 5);
                /* one user turn: the results first, the image inside its result */
                assert_string_equal(str_at(m, "2/content/0/type"), "tool_result");
                assert_string_equal(str_at(m, "2/content/0/tool_use_id"), "call_k1");
                assert_string_equal(str_at(m, "2/content/0/content/0/text"), "{\"ok\":true}");
                assert_string_equal(str_at(m, "2/content/0/content/1/source/data"), TEST_PNG_B64);
                assert_string_equal(str_at(m, "2/content/1/tool_use_id"), "call_k2");
                assert_string_equal(str_at(m, "2/content/2/text"), "Note: keep going.");
            } else {
                assert_string_equal(str_at(reqs, "1/path"), "/v1/responses");
                assert_string_equal(str_at(body, "instructions"), "You are a test.");
                assert_string_equal(str_at(body, "tools/0/type"), "function");
                assert_string_equal(str_at(body, "tools/0/name"), "desktop");
                const cJSON *in = at(body, "input");
                assert_int_equal(cJSON_GetArraySize(in), 8);
                /* the output items as they came: the reasoning item (whole, encrypted, as
                 * store false wants) before the message and calls that followed it */
                assert_string_equal(str_at(in, "1/type"), "reasoning");
                assert_non_null(str_at(in, "1/encrypted_content"));
                assert_string_equal(str_at(in, "2/content/0/text"), "Looking.");
                assert_string_equal(str_at(in, "3/type"), "function_call");
                assert_string_equal(str_at(in, "3/call_id"), "call_k1");
                assert_string_equal(str_at(in, "5/type"), "function_call_output");
                /* images are allowed in a function's output here */
                assert_string_equal(str_at(in, "5/output/0/text"), "{\"ok\":true}");
                assert_string_equal(str_at(in, "5/output/1/image_url"),
                                    "data:image/png;base64," TEST_PNG_B64);
                assert_string_equal(str_at(in, "6/output"), "exit 0");
                assert_string_equal(str_at(in, "7/role"), "user");
            }
            /* the key in its header only */
            const char *auth = anthropic ? fake_llm_header(reqs, 0, "x-api-key")
                                         : fake_llm_header(reqs, 0, "Authorization");
            assert_non_null(auth);
            assert_non_null(strstr(auth, TEST_KEY));
            if (anthropic)
                assert_string_equal(fake_llm_header(reqs, 0, "anthropic-version"), "2023-06-01");
            char *body_text = cJSON_PrintUnformatted(body);
            assert_null(strstr(body_text, TEST_KEY));
            free(body_text);
            cJSON_Delete(reqs);
            cJSON_Delete(all_reqs);
            assert_null(strstr(dynbuf_str(&s.cap.log), TEST_KEY));
            session_disconnect(&s);
        }
    fake_llm_stop(&f);
}

/* 429 / 529 and a stream that fails midway are retried; a 400 is not, and the key
 * never reaches the log or the error's detail. */
static void retries_and_errors(void **state)
{
    (void)state;
    struct fake_llm f; /* the Responses steps, then the Messages ones */
    assert_true(
        fake_llm_start(&f, "{'steps':[{'status':429,'headers':{'Retry-After':'0'}},"
                           "{'fault':'error_mid_stream','after_chunks':3,'text':'partial answer'},"
                           "{'text':'third time'},{'status':400},"
                           "{'status':529},{'fault':'error_mid_stream','after_chunks':3,"
                           "'text':'partial answer'},{'text':'third time'},{'status':400}]}"));
    for (size_t k = 0; k < 2; k++) {
        bool anthropic = kinds[k] == LLM_PROVIDER_ANTHROPIC;
        struct session s;
        session_attach(&s, &f, kinds[k], true);
        session_connect(&s);
        struct llm_reply r;
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_string_equal(r.text, "third time");
        assert_int_equal(r.attempts, 3);
        llm_reply_cleanup(&r);
        assert_int_equal(session_complete(&s, &r), WA_E_HTTP);
        assert_int_equal(r.attempts, 1);
        assert_int_equal(r.http_status, 400);
        assert_null(strstr(wa_err_detail(), TEST_KEY));
        llm_reply_cleanup(&r);
        const char *log = dynbuf_str(&s.cap.log);
        assert_non_null(strstr(log, anthropic ? "HTTP 529" : "HTTP 429"));
        assert_non_null(strstr(log, "mid-stream"));
        assert_null(strstr(log, TEST_KEY));
        assert_non_null(strstr(log, anthropic ? "x-api-key: (redacted)" : "(redacted)"));
        session_disconnect(&s);
    }
    cJSON *reqs = fake_llm_requests(&f);
    assert_int_equal(cJSON_GetArraySize(reqs), 8);
    assert_all_valid(reqs);
    cJSON_Delete(reqs);
    fake_llm_stop(&f);
}

/* Calls written as text go back as text, their results as one user turn. */
static void text_round(void **state)
{
    (void)state;
#define TEXT_ROUND                                                                                 \
    "{'text':'Saving.','quirks':{'calls_as_text':'hermes'},"                                       \
    "'tool_calls':[{'name':'desktop','arguments':{'action':'key','keys':'ctrl+s'}}]},"             \
    "{'text':'Saved.','expect':{'contains':'Result of desktop'}}"
    struct fake_llm f;
    assert_true(fake_llm_start(&f, "{'steps':[" TEXT_ROUND "," TEXT_ROUND "]}"));
    for (size_t k = 0; k < 2; k++) {
        struct session s;
        session_attach(&s, &f, kinds[k], false);
        s.cfg.text_calls = LLM_TEXT_FUNCTION_FORMATS;
        session_connect(&s);
        struct llm_reply r;
        assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_OK);
        assert_true(r.calls_from_text);
        assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
        struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
        assert_int_equal(llm_conversation_add_tool_result(&s.conv, r.calls[0].id, "desktop",
                                                          "{\"ok\":true}", &img),
                         WA_E_OK);
        llm_reply_cleanup(&r);
        assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_OK);
        assert_string_equal(r.text, "Saved.");
        llm_reply_cleanup(&r);
        cJSON *reqs = fake_llm_requests(&f);
        assert_all_valid(reqs);
        const cJSON *second = cJSON_GetArrayItem(reqs, (int)(2 * k + 1));
        assert_int_equal(cJSON_GetArraySize(at(second, "expect_failures")), 0);
        char *body = cJSON_PrintUnformatted(at(second, "body"));
        assert_null(strstr(body, "tool_use"));
        assert_null(strstr(body, "function_call"));
        assert_non_null(strstr(body, "<tool_call>"));
        free(body);
        cJSON_Delete(reqs);
        session_disconnect(&s);
    }
    fake_llm_stop(&f);
}

/* The computer tool of a 1x1 display (the size of TEST_PNG_B64, as the fakes require),
 * as the only tool. */
static struct llm_computer_tool test_display = {.display_width = 1, .display_height = 1};
static const struct llm_tool computer_tools[] = {{"computer", NULL, NULL, &test_display}};

/* Asks the model of s (with the computer tool) for its calls, expecting n, and keeps them
 * in the conversation. */
static void computer_calls(struct session *s, size_t n)
{
    struct llm_reply r;
    assert_int_equal(llm_complete(s->c, &s->conv, computer_tools, 1, &r), WA_E_OK);
    assert_int_equal(r.n_calls, n);
    assert_int_equal(llm_conversation_add_reply(&s->conv, &r), WA_E_OK);
    llm_reply_cleanup(&r);
}

/* Answers computer call id with the test screenshot and report; failed marks it so. */
static void computer_result(struct session *s, const char *id, const char *report, bool failed)
{
    struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
    assert_int_equal(
        llm_conversation_add_computer_result(&s->conv, id, "computer", report, &img, false),
        WA_E_OK);
    assert_true(!failed || llm_conversation_mark_failed(&s->conv));
}

/* Asks the model of s for its final text, which must be want. */
static void computer_done(struct session *s, const char *want)
{
    struct llm_reply r;
    assert_int_equal(llm_complete(s->c, &s->conv, computer_tools, 1, &r), WA_E_OK);
    assert_string_equal(r.text, want);
    llm_reply_cleanup(&r);
}

/* The computer tool as a model takes it: the Anthropic version by model family (the
 * fake refuses another, as the API does), enable_zoom with computer_20251124, and a
 * failed action's result marked is_error. */
static void claude_computer_tool_by_model(void **state)
{
    (void)state;
    static const struct {
        const char *model, *tool, *beta;
    } cases[] = {
        {"claude-sonnet-4-6", "computer_20251124", "computer-use-2025-11-24"},
        {"claude-opus-4-7", "computer_20251124", "computer-use-2025-11-24"},
        {"claude-sonnet-4-5-20250929", "computer_20250124", "computer-use-2025-01-24"},
        {"claude-3-7-sonnet-20250219", "computer_20250124", "computer-use-2025-01-24"},
        {"claude-opus-4-6-20260205", "computer_20251124", "computer-use-2025-11-24"},
    };
    enum { N = sizeof cases / sizeof cases[0] };
#define CLICK_ROUND                                                                                \
    "{'tool_calls':[{'name':'computer','arguments':{'action':'left_click','coordinate':[5,9]},"    \
    "'id':'toolu_1'},{'name':'computer','arguments':{'action':'zoom'},'id':'toolu_2'}]},"          \
    "{'text':'done'}"
    struct fake_llm f;
    assert_true(fake_llm_start(&f, "{'steps':[" CLICK_ROUND "," CLICK_ROUND "," CLICK_ROUND
                                   "," CLICK_ROUND "," CLICK_ROUND "]}"));
    for (int i = 0; i < N; i++) {
        struct session s;
        session_attach(&s, &f, LLM_PROVIDER_ANTHROPIC, i % 2 == 0);
        s.cfg.model = cases[i].model;
        session_connect(&s);
        computer_calls(&s, 2);
        computer_result(&s, "toolu_1", "{\"success\":true}", false);
        computer_result(&s, "toolu_2", "{\"success\":false,\"error\":\"unsupported\"}", true);
        computer_done(&s, "done");
        cJSON *reqs = fake_llm_requests(&f);
        assert_all_valid(reqs);
        const cJSON *q = cJSON_GetArrayItem(reqs, 2 * i + 1);
        assert_string_equal(str_at(q, "body/tools/0/type"), cases[i].tool);
        assert_int_equal(cJSON_IsTrue(at(q, "body/tools/0/enable_zoom")),
                         strcmp(cases[i].tool, "computer_20251124") == 0);
        if (strcmp(cases[i].tool, "computer_20251124") != 0)
            assert_null(at(q, "body/tools/0/enable_zoom"));
        assert_string_equal(fake_llm_header(reqs, 2 * i + 1, "anthropic-beta"), cases[i].beta);
        const cJSON *m = at(q, "body/messages");
        assert_string_equal(str_at(m, "2/content/0/tool_use_id"), "toolu_1");
        assert_null(at(m, "2/content/0/is_error"));
        assert_string_equal(str_at(m, "2/content/1/tool_use_id"), "toolu_2");
        assert_true(cJSON_IsTrue(at(m, "2/content/1/is_error")));
        cJSON_Delete(reqs);
        session_disconnect(&s);
    }
    fake_llm_stop(&f);
}

/* The Responses API without storage (the default): store false, the reasoning's encrypted
 * content asked for, and a computer_call sent back after its reasoning item whole (the
 * fake, as the API, answers 404 to a reasoning item given by id alone); with --store the
 * server keeps them and the items go back as they came. */
static void responses_storage(void **state)
{
    (void)state;
#define CU_ROUND                                                                                   \
    "{'reasoning':'Save is at the top.','tool_calls':[{'name':'computer','arguments':{"            \
    "'action':{'type':'click','button':'left','x':5,'y':9}},'id':'cu_call_1'}]},"                  \
    "{'text':'saved'}"
    struct fake_llm f;
    assert_true(fake_llm_start(&f, "{'steps':[" CU_ROUND "," CU_ROUND "," CU_ROUND "]}"));
    for (int i = 0; i < 3; i++) {
        bool store = i == 2;
        struct session s;
        session_attach(&s, &f, LLM_PROVIDER_OPENAI_RESPONSES, i == 1);
        s.cfg.model = "computer-use-preview";
        s.cfg.store = store;
        session_connect(&s);
        computer_calls(&s, 1);
        computer_result(&s, "cu_call_1", "{\"success\":true}", false);
        computer_done(&s, "saved");
        cJSON *reqs = fake_llm_requests(&f);
        assert_all_valid(reqs);
        const cJSON *q = at(cJSON_GetArrayItem(reqs, 2 * i + 1), "body");
        assert_int_equal(cJSON_IsTrue(at(q, "store")), store);
        assert_true(cJSON_IsBool(at(q, "store")));
        if (store) {
            assert_null(at(q, "include"));
            assert_null(at(q, "input/1/encrypted_content"));
        } else {
            assert_string_equal(str_at(q, "include/0"), "reasoning.encrypted_content");
            assert_non_null(str_at(q, "input/1/encrypted_content"));
        }
        assert_string_equal(str_at(q, "input/1/type"), "reasoning");
        assert_string_equal(str_at(q, "input/1/summary/0/text"), "Save is at the top.");
        assert_string_equal(str_at(q, "input/2/type"), "computer_call");
        assert_string_equal(str_at(q, "input/3/type"), "computer_call_output");
        cJSON_Delete(reqs);
        session_disconnect(&s);
    }
    fake_llm_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tool_round),        cmocka_unit_test(retries_and_errors),
        cmocka_unit_test(text_round),        cmocka_unit_test(claude_computer_tool_by_model),
        cmocka_unit_test(responses_storage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
