/* Tests: the models of now against a fake server as strict as their services. Claude's
 * thinking blocks go back unchanged (streamed and whole, empty text, redacted), bound to
 * a history nothing edits; the computer toolset's member calls and their answers; the
 * client adapting to what a service names (a tool version, an output cap, a reply cut at
 * it, a forced tool choice); the Responses API's reasoning before every kind of item. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fake_llm_proc.c"
#include "llm_test_client.h"
#include "llm/models.h"

static const struct llm_computer_tool display = {
    .desktop = true, .display_width = 1, .display_height = 1};
static const struct llm_tool computer_tools[] = {{.name = "computer", .computer = &display}};

/* The record of request i (0-based) the server got, or fails. */
static cJSON *request(struct fake_llm *f, int i)
{
    cJSON *reqs = fake_llm_requests(f);
    cJSON *r = cJSON_DetachItemFromArray(reqs, i);
    cJSON_Delete(reqs);
    if (!r)
        fail_msg("no request %d", i);
    return r;
}

/* A header of a request's record, or NULL. */
static const char *fake_llm_header_of(const cJSON *rec, const char *name)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, at(rec, "headers"))
    {
        if (strcasecmp(v->string, name) == 0 && cJSON_IsString(v))
            return v->valuestring;
    }
    return NULL;
}

static void assert_logged_once(const char *log, const char *what)
{
    const char *once = strstr(log, what);
    if (!once)
        fail_msg("not logged: %s\nlog:\n%s", what, log);
    if (strstr(once + 1, what))
        fail_msg("logged more than once: %s", what);
}

static void assert_answered(cJSON *rec)
{
    const char *kind = str_at(rec, "response/kind");
    if (!kind || strcmp(kind, "reply") != 0) {
        char *p = cJSON_PrintUnformatted(at(rec, "response"));
        fail_msg("request refused: %s", p);
    }
}

#define CLICK "{'name':'desktop','arguments':{'action':'click','x':5,'y':9},'id':'toolu_c1'}"

/* Claude Opus 5 thinks by default: its replies start with a thinking block (its text
 * often empty) and a signature; the second request carries that block unchanged, first in
 * its turn, streamed and whole, a redacted block too. The fake refuses anything else, as
 * the Messages API does. */
static void thinking_goes_back_unchanged(void **state)
{
    (void)state;
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        session_start(&s,
                      "{'steps':[{'tool_calls':[" CLICK "],'quirks':{'redacted_thinking':true}},"
                      "{'reasoning':'The form is filled.','text':'Done.'}]}",
                      LLM_PROVIDER_ANTHROPIC, stream);
        s.cfg.model = "claude-opus-5";
        session_connect(&s);
        struct llm_reply r;
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_int_equal(r.n_calls, 1);
        assert_non_null(r.verbatim);
        assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
        llm_reply_cleanup(&r);
        assert_int_equal(
            llm_conversation_add_tool_result(&s.conv, "toolu_c1", "desktop", "{\"ok\":1}", NULL),
            WA_E_OK);
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_string_equal(r.text, "Done.");
        assert_string_equal(r.reasoning, "The form is filled.");
        llm_reply_cleanup(&r);

        cJSON *first = request(&s.f, 0), *second = request(&s.f, 1);
        assert_answered(second);
        /* what the first reply was: the fake's record of it is in memory, so compare the
         * turn sent back with the blocks of the reply's own shape */
        const cJSON *turn = at(second, "body/messages/1/content");
        assert_string_equal(str_at(turn, "0/type"), "thinking");
        assert_string_equal(str_at(turn, "0/thinking"), ""); /* empty text, kept */
        assert_non_null(str_at(turn, "0/signature"));
        assert_true(strlen(str_at(turn, "0/signature")) > 8);
        assert_string_equal(str_at(turn, "1/type"), "redacted_thinking");
        assert_non_null(str_at(turn, "1/data"));
        assert_string_equal(str_at(turn, "2/type"), "tool_use");
        assert_string_equal(str_at(turn, "2/id"), "toolu_c1");
        /* the max_tokens of a thinking family, not 4096 */
        assert_int_equal(at(first, "body/max_tokens")->valueint,
                         model_family("claude-opus-5")->max_tokens);
        cJSON_Delete(first);
        cJSON_Delete(second);
        session_close(&s);
    }
}

/* The same turn rebuilt from its text and calls, as clients did, is refused with the
 * service's own words: the rule the fake keeps is the one the API keeps. */
static void a_rebuilt_turn_is_refused(void **state)
{
    (void)state;
    struct session s;
    session_start(&s, "{'steps':[{'tool_calls':[" CLICK "]},{'text':'Done.'}]}",
                  LLM_PROVIDER_ANTHROPIC, false);
    s.cfg.model = "claude-opus-5";
    s.cfg.max_retries = -1;
    session_connect(&s);
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    free(r.verbatim); /* the turn as it came, forgotten */
    r.verbatim = NULL;
    assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
    llm_reply_cleanup(&r);
    llm_conversation_add_tool_result(&s.conv, "toolu_c1", "desktop", "{\"ok\":1}", NULL);
    assert_int_equal(session_complete(&s, &r), WA_E_HTTP);
    assert_non_null(strstr(wa_err_detail(), "blocks in the latest assistant message cannot be "
                                            "modified"));
    llm_reply_cleanup(&r);
    session_close(&s);
}

#define TWO_ROUNDS                                                                                 \
    "{'steps':[{'tool_calls':[" CLICK "]},"                                                        \
    "{'tool_calls':[{'name':'desktop','arguments':{'action':'wait'},'id':'toolu_c2'}]},"           \
    "{'text':'Done.'}]}"

/* Two rounds with a screenshot in each result; before the third request the first
 * result's image is trimmed when trim is true. */
static wa_err two_rounds(struct session *s, bool trim)
{
    struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
    struct llm_reply r;
    assert_int_equal(session_complete(s, &r), WA_E_OK);
    llm_conversation_add_reply(&s->conv, &r);
    llm_reply_cleanup(&r);
    llm_conversation_add_tool_result(&s->conv, "toolu_c1", "desktop", "{\"ok\":1}", &img);
    assert_int_equal(session_complete(s, &r), WA_E_OK);
    llm_conversation_add_reply(&s->conv, &r);
    llm_reply_cleanup(&r);
    llm_conversation_add_tool_result(&s->conv, "toolu_c2", "desktop", "{\"ok\":2}", &img);
    if (trim) /* what --history trim does to an older observation */
        llm_message_replace_content(&s->conv.messages[2], "[observation omitted]");
    wa_err e = session_complete(s, &r);
    llm_reply_cleanup(&r);
    return e;
}

/* Claude Fable 5.1 binds a replayed thinking block to the history before it: an older
 * result edited on the client is refused as the service refuses it; the history kept
 * whole with the service clearing older results itself (context editing) passes, and so
 * does the binding control, the service dropping what no longer fits. */
static void bound_thinking_and_the_history(void **state)
{
    (void)state;
    struct session s;
    /* trimmed on the client: refused */
    session_start(&s, TWO_ROUNDS, LLM_PROVIDER_ANTHROPIC, true);
    s.cfg.model = "claude-fable-5-1";
    s.cfg.max_retries = -1;
    session_connect(&s);
    assert_int_equal(two_rounds(&s, true), WA_E_HTTP);
    assert_non_null(strstr(wa_err_detail(), "The block is bound to a different conversation"));
    session_close(&s);

    /* whole, the service clearing older results: taken, with context editing asked */
    session_start(&s, TWO_ROUNDS, LLM_PROVIDER_ANTHROPIC, true);
    s.cfg.model = "claude-fable-5-1";
    s.cfg.server_clears = true;
    s.cfg.server_keep = 1;
    session_connect(&s);
    assert_int_equal(two_rounds(&s, false), WA_E_OK);
    cJSON *third = request(&s.f, 2);
    assert_answered(third);
    assert_string_equal(str_at(third, "body/context_management/edits/0/type"),
                        "clear_tool_uses_20250919");
    assert_int_equal(at(third, "body/context_management/edits/0/keep/value")->valueint, 1);
    assert_non_null(
        strstr(fake_llm_header_of(third, "anthropic-beta"), "context-management-2025-06-27"));
    /* the service cleared the older of the two results */
    assert_int_equal(at(third, "context_edits/0/cleared_tool_uses")->valueint, 1);
    cJSON_Delete(third);
    session_close(&s);

    /* trimmed, with the binding control: taken, the stale block dropped by the service */
    session_start(&s, TWO_ROUNDS, LLM_PROVIDER_ANTHROPIC, false);
    s.cfg.model = "claude-fable-5-1";
    s.cfg.drop_stale_thinking = true;
    session_connect(&s);
    assert_int_equal(two_rounds(&s, true), WA_E_OK);
    third = request(&s.f, 2);
    assert_answered(third);
    assert_string_equal(str_at(third, "body/thinking/block_binding/prefix_mismatch_behavior"),
                        "drop_block");
    assert_non_null(strstr(fake_llm_header_of(third, "anthropic-beta"),
                           "thinking-binding-controls-2026-08-01"));
    assert_true(cJSON_GetArraySize(at(third, "thinking_dropped")) >= 1);
    cJSON_Delete(third);
    session_close(&s);
}

#define BATCH                                                                                      \
    "{'tool_calls':["                                                                              \
    "{'name':'computer','arguments':{'action':'left_click','coordinate':[5,9]},'id':'toolu_1'},"   \
    "{'name':'computer','arguments':{'action':'type','text':'hi'},'id':'toolu_2'},"                \
    "{'name':'computer','arguments':{'action':'key','text':'Return','repeat':2},'id':'toolu_3'}"   \
    "]}"

/* Claude Opus 5.5 takes the computer toolset alone: declared by its type, no beta header;
 * its calls come as member tool_use blocks named by their action, several in a turn; each
 * result echoes toolset_name, and after a failed action the rest of the turn is answered
 * with the halt text (the fake refuses any other answer). */
static void toolset_members(void **state)
{
    (void)state;
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        session_start(&s, "{'steps':[" BATCH ",{'text':'done'}]}", LLM_PROVIDER_ANTHROPIC, stream);
        s.cfg.model = "claude-opus-5-5";
        session_connect(&s);
        struct llm_reply r;
        assert_int_equal(llm_complete(s.c, &s.conv, computer_tools, 1, &r), WA_E_OK);
        assert_int_equal(r.n_calls, 3);
        assert_string_equal(r.calls[0].name, "left_click");
        assert_string_equal(r.calls[0].toolset, "computer");
        assert_null(cJSON_GetObjectItem(r.calls[0].parsed, "action"));
        assert_string_equal(r.calls[2].name, "key");
        assert_int_equal(cJSON_GetObjectItem(r.calls[2].parsed, "repeat")->valueint, 2);
        assert_int_equal(llm_conversation_add_reply(&s.conv, &r), WA_E_OK);
        llm_reply_cleanup(&r);
        struct llm_image img = {.mime = "image/png", .base64 = TEST_PNG_B64};
        llm_conversation_add_computer_result(&s.conv, "toolu_1", "left_click", "{\"ok\":1}", &img,
                                             false);
        llm_conversation_add_computer_result(&s.conv, "toolu_2", "type", "{\"ok\":0}", &img, false);
        assert_true(llm_conversation_mark_failed(&s.conv));
        llm_conversation_add_tool_result(
            &s.conv, "toolu_3", "key",
            "Not executed: an earlier computer action in this turn failed.", NULL);
        assert_true(llm_conversation_mark_failed(&s.conv));
        assert_int_equal(llm_complete(s.c, &s.conv, computer_tools, 1, &r), WA_E_OK);
        assert_string_equal(r.text, "done");
        llm_reply_cleanup(&r);
        cJSON *first = request(&s.f, 0), *second = request(&s.f, 1);
        assert_answered(second);
        /* the entry: its type alone */
        assert_string_equal(str_at(first, "body/tools/0/type"), "computer_toolset_20260801");
        assert_int_equal(cJSON_GetArraySize(at(first, "body/tools/0")), 1);
        assert_null(fake_llm_header_of(first, "anthropic-beta"));
        const cJSON *results = at(second, "body/messages/2/content");
        assert_string_equal(str_at(results, "0/toolset_name"), "computer");
        assert_string_equal(str_at(results, "2/toolset_name"), "computer");
        assert_string_equal(str_at(results, "2/content/0/text"),
                            "Not executed: an earlier computer action in this turn failed.");
        cJSON_Delete(first);
        cJSON_Delete(second);
        session_close(&s);
    }
}

/* A service that refuses the first tool version, naming the one it takes (Opus 5.5 on
 * Bedrock keeps computer_20251124): asked again at once with that one, logged once, and
 * it holds for the rest of the client's life. An unknown later model gets the newest. */
static void adapts_to_the_tool_version_named(void **state)
{
    (void)state;
    struct session s;
    session_start(&s, "{'platform':'bedrock','steps':[{'text':'one'},{'text':'two'}]}",
                  LLM_PROVIDER_ANTHROPIC, false);
    s.cfg.model = "claude-opus-5-5";
    session_connect(&s);
    struct llm_reply r;
    assert_int_equal(llm_complete(s.c, &s.conv, computer_tools, 1, &r), WA_E_OK);
    assert_string_equal(r.text, "one");
    llm_reply_cleanup(&r);
    assert_int_equal(llm_complete(s.c, &s.conv, computer_tools, 1, &r), WA_E_OK);
    llm_reply_cleanup(&r);
    assert_int_equal(fake_llm_count(&s.f), 3); /* refused once, then taken twice */
    cJSON *refused = request(&s.f, 0), *taken = request(&s.f, 2);
    assert_string_equal(str_at(refused, "response/kind"), "invalid");
    assert_string_equal(str_at(taken, "body/tools/0/type"), "computer_20251124");
    assert_string_equal(fake_llm_header_of(taken, "anthropic-beta"), "computer-use-2025-11-24");
    assert_logged_once(dynbuf_str(&s.cap.log), "does not take the computer tool "
                                               "computer_toolset_20260801; declaring "
                                               "computer_20251124 from now on");
    cJSON_Delete(refused);
    cJSON_Delete(taken);
    session_close(&s);

    session_start(&s, "{'steps':[{'text':'one'}]}", LLM_PROVIDER_ANTHROPIC, true);
    s.cfg.model = "claude-opus-6"; /* newer than the table: the newest shapes */
    session_connect(&s);
    assert_int_equal(llm_complete(s.c, &s.conv, computer_tools, 1, &r), WA_E_OK);
    llm_reply_cleanup(&r);
    cJSON *q = request(&s.f, 0);
    assert_string_equal(str_at(q, "body/tools/0/type"), "computer_toolset_20260801");
    assert_int_equal(at(q, "body/max_tokens")->valueint, 64000);
    cJSON_Delete(q);
    session_close(&s);
}

/* More output tokens than the model takes, refused naming its cap: asked again with the
 * cap. A reply cut at max_tokens before it could act: asked again with more. */
static void adapts_to_the_output_cap(void **state)
{
    (void)state;
    struct session s;
    session_start(&s, "{'output_cap':32000,'steps':[{'text':'fits'}]}", LLM_PROVIDER_ANTHROPIC,
                  false);
    s.cfg.model = "claude-opus-5-5";
    session_connect(&s);
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_string_equal(r.text, "fits");
    llm_reply_cleanup(&r);
    cJSON *q = request(&s.f, 1);
    assert_int_equal(at(q, "body/max_tokens")->valueint, 32000);
    cJSON_Delete(q);
    assert_logged_once(dynbuf_str(&s.cap.log), "takes at most 32000 output tokens");
    session_close(&s);

    /* thinking spent the cap: the reply ends with no call; asked again with twice as many */
    for (int stream = 0; stream < 2; stream++) {
        session_start(&s,
                      "{'steps':[{'output_tokens':70000,'tool_calls':[" CLICK "]},"
                      "{'tool_calls':[" CLICK "]}]}",
                      LLM_PROVIDER_ANTHROPIC, stream);
        s.cfg.model = "claude-opus-5-5";
        session_connect(&s);
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        assert_int_equal(r.n_calls, 1);
        llm_reply_cleanup(&r);
        cJSON *cut = request(&s.f, 0), *again = request(&s.f, 1);
        assert_int_equal(at(cut, "body/max_tokens")->valueint, 64000);
        assert_int_equal(at(again, "body/max_tokens")->valueint, 128000);
        assert_logged_once(dynbuf_str(&s.cap.log), "cut at the 64000-token output cap");
        cJSON_Delete(cut);
        cJSON_Delete(again);
        session_close(&s);
    }
}

/* A forced tool choice for a model that takes none is left out before any request; one a
 * service refuses anyway is left out once it says so. */
static void forced_tool_choice(void **state)
{
    (void)state;
    struct session s;
    session_start(&s, "{'steps':[{'text':'ok'}]}", LLM_PROVIDER_ANTHROPIC, false);
    s.cfg.model = "claude-opus-5-5";
    s.cfg.tool_choice = "required";
    session_connect(&s);
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    llm_reply_cleanup(&r);
    cJSON *q = request(&s.f, 0);
    assert_null(at(q, "body/tool_choice"));
    cJSON_Delete(q);
    assert_logged_once(dynbuf_str(&s.cap.log), "takes no forced tool choice");
    session_close(&s);

    /* a model the table gives no row refuses it: the service's words are enough */
    session_start(&s, "{'steps':[{'text':'ok'}]}", LLM_PROVIDER_ANTHROPIC, false);
    s.cfg.model = "claude-mythos-5-1";
    s.cfg.tool_choice = "auto";
    session_connect(&s);
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    llm_reply_cleanup(&r);
    q = request(&s.f, 0);
    assert_string_equal(str_at(q, "body/tool_choice/type"), "auto");
    cJSON_Delete(q);
    session_close(&s);
}

/* A parameter the model does not take, refused by name (GPT-5.x and temperature): left
 * out from then on, logged once. */
static void adapts_to_a_parameter_refused(void **state)
{
    (void)state;
    struct session s;
    session_start(&s, "{'steps':[{'text':'one'},{'text':'two'}]}", LLM_PROVIDER_OPENAI_RESPONSES,
                  false);
    s.cfg.model = "gpt-5.5";
    s.cfg.temperature = 0.2;
    session_connect(&s);
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    assert_string_equal(r.text, "one");
    llm_reply_cleanup(&r);
    assert_int_equal(session_complete(&s, &r), WA_E_OK);
    llm_reply_cleanup(&r);
    assert_int_equal(fake_llm_count(&s.f), 3);
    cJSON *q = request(&s.f, 2);
    assert_null(at(q, "body/temperature"));
    cJSON_Delete(q);
    assert_logged_once(dynbuf_str(&s.cap.log), "does not take temperature here");
    session_close(&s);
}

/* GPT-5.5 through the Responses API with functions: every reasoning item it issues goes
 * back, whole, before the item it preceded (a function call, a message), streamed and
 * whole; the fake notes any it had to do without. */
static void reasoning_before_every_item(void **state)
{
    (void)state;
    for (int stream = 0; stream < 2; stream++) {
        struct session s;
        session_start(&s,
                      "{'steps':[{'text':'Looking.','tool_calls':[{'name':'desktop','arguments':"
                      "{'action':'wait'},'id':'call_w1'}]},{'text':'Next.'},{'text':'Done.'}]}",
                      LLM_PROVIDER_OPENAI_RESPONSES, stream);
        s.cfg.model = "gpt-5.5";
        session_connect(&s);
        struct llm_reply r;
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        llm_conversation_add_reply(&s.conv, &r);
        llm_reply_cleanup(&r);
        llm_conversation_add_tool_result(&s.conv, "call_w1", "desktop", "{\"ok\":1}", NULL);
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        llm_conversation_add_reply(&s.conv, &r);
        llm_reply_cleanup(&r);
        llm_conversation_add_user(&s.conv, "Go on.", NULL, 0);
        assert_int_equal(session_complete(&s, &r), WA_E_OK);
        llm_reply_cleanup(&r);
        cJSON *third = request(&s.f, 2);
        assert_answered(third);
        const cJSON *in = at(third, "body/input");
        /* user, [reasoning, message, call], output, [reasoning, message], user */
        assert_string_equal(str_at(in, "1/type"), "reasoning");
        assert_non_null(str_at(in, "1/encrypted_content"));
        assert_string_equal(str_at(in, "2/type"), "message");
        assert_string_equal(str_at(in, "3/type"), "function_call");
        assert_string_equal(str_at(in, "4/type"), "function_call_output");
        assert_string_equal(str_at(in, "5/type"), "reasoning");
        assert_string_equal(str_at(in, "6/type"), "message");
        assert_null(at(third, "reasoning_dropped"));
        cJSON_Delete(third);
        session_close(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thinking_goes_back_unchanged),
        cmocka_unit_test(a_rebuilt_turn_is_refused),
        cmocka_unit_test(bound_thinking_and_the_history),
        cmocka_unit_test(toolset_members),
        cmocka_unit_test(adapts_to_the_tool_version_named),
        cmocka_unit_test(adapts_to_the_output_cap),
        cmocka_unit_test(forced_tool_choice),
        cmocka_unit_test(adapts_to_a_parameter_refused),
        cmocka_unit_test(reasoning_before_every_item),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
