/* Tests of the Gemini provider against the fake server: replies whole and streamed,
 * function calls with and without ids, thought signatures echoed, tool results with
 * images in one user turn, the key only in its header, blocked prompts and finish
 * reasons. */
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

static void open_session(struct session *s, const char *scenario, bool stream, int max_retries)
{
    session_start(s, scenario, LLM_PROVIDER_GOOGLE, stream);
    s->cfg.max_retries = max_retries;
    session_connect(s);
}

static void text_reply_and_request_basics(void **state)
{
    (void)state;
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        open_session(&s,
                     "{'steps':[{'text':'Hello from Gemini.','reasoning':'Let me see.',"
                     "'usage':{'prompt_tokens':50,'completion_tokens':7},"
                     "'quirks':{'comments':true,'crlf':true}}]}",
                     stream, 3);
        struct llm_reply r;
        wa_err e = session_complete(&s, &r);
        if (e)
            fail_msg("%s: %s", wa_err_code(e), wa_err_detail());
        assert_string_equal(r.text, "Hello from Gemini.");
        assert_string_equal(r.reasoning, "Let me see.");
        assert_string_equal(r.finish_reason, "STOP");
        assert_int_equal(r.usage.prompt_tokens, 50);
        assert_int_equal(r.usage.completion_tokens, 7);
        assert_int_equal(r.usage.total_tokens, 57);
        if (stream)
            assert_string_equal(dynbuf_str(&s.cap.deltas), "Hello from Gemini.");
        llm_reply_cleanup(&r);

        cJSON *reqs = fake_llm_requests(&s.f);
        assert_string_equal(str_at(reqs, "0/path"),
                            stream ? "/v1beta/models/gemini-test:streamGenerateContent"
                                   : "/v1beta/models/gemini-test:generateContent");
        assert_string_equal(str_at(reqs, "0/query"), stream ? "alt=sse" : "");
        /* the key: in its header, nowhere in the URL */
        assert_string_equal(fake_llm_header(reqs, 0, "x-goog-api-key"), TEST_KEY);
        assert_null(fake_llm_header(reqs, 0, "Authorization"));
        assert_null(strstr(str_at(reqs, "0/path"), "SECRET"));
        assert_null(strstr(str_at(reqs, "0/query"), "SECRET"));
        assert_string_equal(str_at(reqs, "0/body/systemInstruction/parts/0/text"),
                            "You are a test.");
        assert_string_equal(str_at(reqs, "0/body/contents/0/role"), "user");
        assert_string_equal(str_at(reqs, "0/body/contents/0/parts/0/text"), "Open Notepad.");
        /* tool schemas in Gemini's subset */
        const cJSON *decl = at(reqs, "0/body/tools/0/functionDeclarations");
        assert_int_equal(cJSON_GetArraySize(decl), 2);
        char *d = cJSON_PrintUnformatted(decl);
        assert_null(strstr(d, "additionalProperties"));
        assert_null(strstr(d, "$schema"));
        assert_null(strstr(d, "const"));
        assert_non_null(strstr(d, "\"enum\":[\"click\""));
        cJSON_free(d);
        assert_string_equal(str_at(decl, "0/parameters/type"), "OBJECT");
        assert_true(cJSON_IsTrue(at(decl, "1/parameters/properties/timeout_s/nullable")));
        cJSON_Delete(reqs);
        session_close(&s);
    }
}

/* Two rounds: calls with a signature, results with an image, then text with a
 * signature; each request must echo what came before exactly. */
static void calls_signatures_and_results(void **state)
{
    (void)state;
    static const char scenario[] =
        "{'steps':["
        "{'reasoning':'Launch it.','tool_calls':["
        "{'name':'desktop','id':'fc_1','arguments':{'action':'launch','command':'notepad'}},"
        "{'name':'powershell','id':'fc_2','arguments':{'command':'Get-Process'}}],"
        "'quirks':{'thought_signature':'c2lnLW9uZQ=='}},"
        "{'expect':{'contains':'c2lnLW9uZQ==','tool_result_for':'fc_2','has_image':true},"
        "'text':'Notepad is open.','quirks':{'thought_signature':'c2lnLXR3bw=='}},"
        "{'expect':{'contains':'c2lnLXR3bw=='},'text':'Bye.'}]}";
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        open_session(&s, scenario, stream, 3);
        struct llm_reply r;
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_int_equal(r.n_calls, 2);
        assert_string_equal(r.calls[0].id, "fc_1");
        assert_false(r.calls[0].id_synthetic);
        assert_string_equal(r.calls[0].name, "desktop");
        assert_string_equal(r.calls[0].thought_signature, "c2lnLW9uZQ==");
        assert_null(r.calls[1].thought_signature);
        cJSON *args = cJSON_Parse(r.calls[0].arguments);
        assert_string_equal(str_at(args, "command"), "notepad");
        cJSON_Delete(args);
        assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
        llm_reply_cleanup(&r);
        struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
        assert_int_equal(
            llm_conversation_add_tool_result(&s.conv, "fc_1", "desktop", "{\"ok\":true}", &img),
            WA_E_OK);
        assert_int_equal(
            llm_conversation_add_tool_result(&s.conv, "fc_2", "powershell", "exit 1", NULL),
            WA_E_OK);
        assert_true(llm_conversation_mark_failed(&s.conv));

        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_string_equal(r.text, "Notepad is open.");
        assert_string_equal(r.thought_signature, "c2lnLXR3bw==");
        assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
        llm_reply_cleanup(&r);
        assert_int_equal(llm_conversation_add_user(&s.conv, "Close it.", NULL, 0), WA_E_OK);
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        llm_reply_cleanup(&r);

        cJSON *reqs = fake_llm_requests(&s.f);
        const cJSON *ct = at(reqs, "1/body/contents");
        assert_int_equal(cJSON_GetArraySize(ct), 3);
        /* the model turn as it came: its thought part, then the calls, the signature on
         * the one that carried it */
        assert_string_equal(str_at(ct, "1/role"), "model");
        assert_string_equal(str_at(ct, "1/parts/0/text"), "Launch it.");
        assert_true(cJSON_IsTrue(at(ct, "1/parts/0/thought")));
        assert_string_equal(str_at(ct, "1/parts/1/functionCall/name"), "desktop");
        assert_string_equal(str_at(ct, "1/parts/1/functionCall/id"), "fc_1");
        assert_string_equal(str_at(ct, "1/parts/1/functionCall/args/command"), "notepad");
        assert_string_equal(str_at(ct, "1/parts/1/thoughtSignature"), "c2lnLW9uZQ==");
        assert_null(at(ct, "1/parts/2/thoughtSignature"));
        assert_int_equal(cJSON_GetArraySize(at(ct, "1/parts")), 3);
        /* one user turn: both responses, then the image */
        assert_string_equal(str_at(ct, "2/role"), "user");
        assert_string_equal(str_at(ct, "2/parts/0/functionResponse/name"), "desktop");
        assert_string_equal(str_at(ct, "2/parts/0/functionResponse/id"), "fc_1");
        assert_string_equal(str_at(ct, "2/parts/0/functionResponse/response/output"),
                            "{\"ok\":true}");
        assert_string_equal(str_at(ct, "2/parts/1/functionResponse/id"), "fc_2");
        /* a failed call's result under the "error" key, as the API reads it */
        assert_string_equal(str_at(ct, "2/parts/1/functionResponse/response/error"), "exit 1");
        assert_null(at(ct, "2/parts/1/functionResponse/response/output"));
        assert_string_equal(str_at(ct, "2/parts/2/inlineData/mimeType"), "image/png");
        assert_string_equal(str_at(ct, "2/parts/2/inlineData/data"), TEST_PNG_B64);
        assert_int_equal(cJSON_GetArraySize(at(ct, "2/parts")), 3);
        const cJSON *c2 = at(reqs, "2/body/contents");
        assert_int_equal(cJSON_GetArraySize(c2), 5);
        assert_string_equal(str_at(c2, "3/role"), "model");
        assert_string_equal(str_at(c2, "3/parts/0/text"), "Notepad is open.");
        /* where it came: on the text part, or streamed, on an empty part of its own */
        assert_string_equal(
            str_at(c2, stream ? "3/parts/1/thoughtSignature" : "3/parts/0/thoughtSignature"),
            "c2lnLXR3bw==");
        if (stream)
            assert_string_equal(str_at(c2, "3/parts/1/text"), "");
        assert_string_equal(str_at(c2, "4/parts/0/text"), "Close it.");
        for (int i = 0; i < 3; i++) { /* the scenario's own checks of each request */
            char path[32];
            snprintf(path, sizeof path, "%d/expect_failures", i);
            assert_int_equal(cJSON_GetArraySize(at(reqs, path)), 0);
        }
        cJSON_Delete(reqs);
        session_close(&s);
    }
}

/* Calls without ids (older Gemini): we make ids up but never send them back. */
static void calls_without_ids(void **state)
{
    (void)state;
    for (int pass = 0; pass < 4; pass++) {
        bool stream = pass & 1;
        const char *quirk = pass < 2 ? "" : ",'quirks':{'empty_ids':true}";
        char scenario[512];
        snprintf(scenario, sizeof scenario,
                 "{'steps':[{'tool_calls':[{'name':'desktop','arguments':{'action':'wait',"
                 "'seconds':1}},{'name':'desktop','id':'x','arguments':{}}]%s},"
                 "{'text':'ok'}]}",
                 quirk);
        struct session s;
        open_session(&s, scenario, stream, 3);
        struct llm_reply r;
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_int_equal(r.n_calls, 2);
        assert_true(r.calls[0].id_synthetic);
        assert_true(r.calls[0].id[0] != '\0');
        assert_string_not_equal(r.calls[0].id, r.calls[1].id);
        assert_string_equal(r.calls[1].arguments, "{}");
        llm_conversation_add_reply(&s.conv, &r);
        llm_conversation_add_tool_result(&s.conv, r.calls[0].id, "desktop", "waited", NULL);
        llm_conversation_add_tool_result(&s.conv, r.calls[1].id, "desktop", "done", NULL);
        llm_reply_cleanup(&r);
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        llm_reply_cleanup(&r);
        cJSON *reqs = fake_llm_requests(&s.f);
        const cJSON *ct = at(reqs, "1/body/contents");
        /* the model turn goes back as it came: no id where none came, "" where "" came */
        if (pass < 2)
            assert_null(at(ct, "1/parts/0/functionCall/id"));
        else
            assert_string_equal(str_at(ct, "1/parts/0/functionCall/id"), "");
        assert_null(at(ct, "2/parts/0/functionResponse/id"));
        assert_string_equal(str_at(ct, "2/parts/0/functionResponse/name"), "desktop");
        assert_string_equal(str_at(ct, "2/parts/0/functionResponse/response/output"), "waited");
        if (pass < 2) { /* the id the server did send goes back */
            assert_string_equal(str_at(ct, "1/parts/1/functionCall/id"), "x");
            assert_string_equal(str_at(ct, "2/parts/1/functionResponse/id"), "x");
        }
        cJSON_Delete(reqs);
        session_close(&s);
    }
}

static void blocked_prompt_and_reply(void **state)
{
    (void)state;
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        open_session(&s,
                     "{'steps':[{'text':'x','quirks':{'block_reason':'PROHIBITED_CONTENT'}},"
                     "{'text':'partial','quirks':{'gemini_finish':'SAFETY'}}]}",
                     stream, 3);
        struct llm_reply r;
        assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_BLOCKED);
        assert_non_null(strstr(wa_err_detail(), "PROHIBITED_CONTENT"));
        assert_int_equal(r.attempts, 1);
        llm_reply_cleanup(&r);
        assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_BLOCKED);
        assert_non_null(strstr(wa_err_detail(), "SAFETY"));
        llm_reply_cleanup(&r);
        assert_int_equal(fake_llm_count(&s.f), 2); /* neither was retried */
        session_close(&s);
    }
}

static void malformed_function_call_retried(void **state)
{
    (void)state;
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        open_session(&s,
                     "{'steps':[{'tool_calls':[{'name':'desktop','arguments':{}}],"
                     "'quirks':{'invalid_arguments':'{\\'action\\': '}},"
                     "{'tool_calls':[{'name':'desktop','arguments':{'action':'screenshot'}}]},"
                     "{'tool_calls':[{'name':'desktop','arguments':{}}],"
                     "'quirks':{'gemini_finish':'MALFORMED_FUNCTION_CALL'}}],"
                     "'after_end':'repeat_last'}",
                     stream, 2);
        struct llm_reply r;
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_int_equal(r.attempts, 2);
        assert_int_equal(r.n_calls, 1);
        llm_reply_cleanup(&r);
        /* always malformed: an attempt each, then a clear parse error */
        assert_int_equal(session_complete(&s, &r), WA_E_PARSE);
        assert_int_equal(r.attempts, 3);
        assert_non_null(strstr(wa_err_detail(), "malformed function call"));
        llm_reply_cleanup(&r);
        assert_int_equal(fake_llm_count(&s.f), 5);
        assert_non_null(strstr(dynbuf_str(&s.cap.log), "retry 1/2"));
        session_close(&s);
    }
}

static void max_tokens(void **state)
{
    (void)state;
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        open_session(&s,
                     "{'steps':[{'text':'Half an ans','quirks':{'gemini_finish':'MAX_TOKENS'}},"
                     "{'quirks':{'gemini_finish':'MAX_TOKENS'}},"
                     "{'quirks':{'gemini_finish':'OTHER'}}]}",
                     stream, 3);
        struct llm_reply r;
        assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_OK);
        assert_string_equal(r.text, "Half an ans");
        assert_string_equal(r.finish_reason, "MAX_TOKENS");
        llm_reply_cleanup(&r);
        assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_PARSE);
        assert_non_null(strstr(wa_err_detail(), "max tokens"));
        llm_reply_cleanup(&r);
        assert_int_equal(llm_complete(s.c, &s.conv, NULL, 0, &r), WA_E_PARSE);
        assert_non_null(strstr(wa_err_detail(), "OTHER"));
        llm_reply_cleanup(&r);
        assert_int_equal(fake_llm_count(&s.f), 3);
        session_close(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_reply_and_request_basics),
        cmocka_unit_test(calls_signatures_and_results),
        cmocka_unit_test(calls_without_ids),
        cmocka_unit_test(blocked_prompt_and_reply),
        cmocka_unit_test(malformed_function_call_retried),
        cmocka_unit_test(max_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
