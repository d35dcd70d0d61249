/* Tests: each provider's reply records the text the model wrote after its calls (a final
 * answer given with them) where the wire keeps that order, streamed and not, and the
 * assistant turn goes back with its text, calls and that text in their order. */
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
#include "llm/protocol.h"

#define SAVE_CALL "'tool_calls':[{'name':'desktop','arguments':{'action':'key','keys':'ctrl+s'}"
/* A reply with text on both sides of its call, then one whose text all comes first. */
#define ROUND                                                                                      \
    "{'text':'Saving.'," SAVE_CALL ",'id':'call_s'}],'text_after':'Saved it.'},"                   \
    "{'expect':{'tool_result_for':'call_s'},'text':'Again.'," SAVE_CALL ",'id':'call_t'}]}"

static const enum llm_provider_kind kinds[] = {LLM_PROVIDER_OPENAI, LLM_PROVIDER_GOOGLE,
                                               LLM_PROVIDER_OPENAI_RESPONSES,
                                               LLM_PROVIDER_ANTHROPIC};

/* The assistant turn as the second request sent it back. */
static void assert_turn_in_order(enum llm_provider_kind k, const cJSON *body)
{
    switch (k) {
    case LLM_PROVIDER_OPENAI: /* no order to keep: the text is the message's content */
        assert_string_equal(str_at(body, "messages/2/content"), "Saving.Saved it.");
        assert_string_equal(str_at(body, "messages/2/tool_calls/0/id"), "call_s");
        break;
    case LLM_PROVIDER_GOOGLE:
        assert_string_equal(str_at(body, "contents/1/parts/0/text"), "Saving.");
        assert_string_equal(str_at(body, "contents/1/parts/1/functionCall/name"), "desktop");
        assert_string_equal(str_at(body, "contents/1/parts/2/text"), "Saved it.");
        assert_null(at(body, "contents/1/parts/3"));
        break;
    case LLM_PROVIDER_OPENAI_RESPONSES: /* the output items as they came */
        assert_string_equal(str_at(body, "input/1/type"), "message");
        assert_string_equal(str_at(body, "input/1/content/0/text"), "Saving.");
        assert_string_equal(str_at(body, "input/2/call_id"), "call_s");
        assert_string_equal(str_at(body, "input/3/role"), "assistant");
        assert_string_equal(str_at(body, "input/3/content/0/text"), "Saved it.");
        assert_string_equal(str_at(body, "input/4/type"), "function_call_output");
        break;
    case LLM_PROVIDER_ANTHROPIC:
        assert_string_equal(str_at(body, "messages/1/content/0/text"), "Saving.");
        assert_string_equal(str_at(body, "messages/1/content/1/id"), "call_s");
        assert_string_equal(str_at(body, "messages/1/content/2/text"), "Saved it.");
        assert_null(at(body, "messages/1/content/3"));
        break;
    }
}

static void text_after_calls(void **state)
{
    (void)state;
    struct fake_llm f; /* one server for the eight runs: a server start is slow */
    assert_true(fake_llm_start(&f, "{'steps':[" ROUND "," ROUND "," ROUND "," ROUND "," ROUND
                                   "," ROUND "," ROUND "," ROUND "]}"));
    int first = 0; /* this run's first request */
    for (size_t k = 0; k < 4; k++)
        for (int stream = 0; stream < 2; stream++, first += 2) {
            print_message("%s, %s\n", llm_provider_name(kinds[k]), stream ? "streamed" : "whole");
            struct session s;
            session_attach(&s, &f, kinds[k], stream);
            session_connect(&s);
            struct llm_reply r;
            assert_int_equal(session_complete(&s, &r), WA_E_OK);
            assert_string_equal(r.text, "Saving.Saved it.");
            assert_int_equal(r.n_calls, 1);
            if (kinds[k] == LLM_PROVIDER_OPENAI)
                assert_null(r.after_calls); /* Chat Completions keeps no order */
            else
                assert_string_equal(r.after_calls, "Saved it.");
            assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
            assert_int_equal(llm_conversation_add_tool_result(&s.conv, "call_s", "desktop",
                                                              "{\"ok\":true}", NULL),
                             WA_E_OK);
            llm_reply_cleanup(&r);
            assert_int_equal(session_complete(&s, &r), WA_E_OK);
            assert_string_equal(r.text, "Again.");
            assert_null(r.after_calls); /* all its text came before its call */
            llm_reply_cleanup(&r);

            cJSON *reqs = fake_llm_requests(&f);
            assert_int_equal(cJSON_GetArraySize(reqs), first + 2);
            const cJSON *second = cJSON_GetArrayItem(reqs, first + 1);
            assert_string_equal(str_at(second, "response/kind"), "reply");
            assert_int_equal(cJSON_GetArraySize(at(second, "expect_failures")), 0);
            assert_turn_in_order(kinds[k], at(second, "body"));
            cJSON_Delete(reqs);
            session_disconnect(&s);
        }
    fake_llm_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_after_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
