/* Unit tests: tool calls written as text (Hermes, Qwen3-Coder, bare JSON, UI-TARS),
 * well-formed and malformed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/textcalls.h"

static struct llm_ids ids;

static wa_err parse(const char *text, unsigned mask, struct textcalls *t)
{
    textcalls_init(t);
    return textcalls_parse(text, mask, LLM_COORDS_PIXELS, &ids, t);
}

/* The call's arguments, reprinted compactly (keys in the order written). */
static void assert_call(const struct textcalls *t, size_t i, const char *name, const char *args)
{
    assert_true(i < t->n_calls);
    assert_string_equal(t->calls[i].name, name);
    assert_true(t->calls[i].id_synthetic);
    assert_non_null(t->calls[i].id);
    cJSON *a = cJSON_Parse(t->calls[i].arguments), *b = cJSON_Parse(args);
    assert_non_null(a);
    assert_non_null(b);
    if (!cJSON_Compare(a, b, true))
        fail_msg("call %zu: %s, expected %s", i, t->calls[i].arguments, args);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void hermes_blocks(void **state)
{
    (void)state;
    struct textcalls t;
    assert_int_equal(parse("I will click.\n<tool_call>\n{\"name\": \"desktop\", \"arguments\": "
                           "{\"action\": \"click\", \"x\": 5, \"y\": 9}}\n</tool_call>\n"
                           "<tool_call>{\"name\":\"powershell\",\"arguments\":"
                           "\"{\\\"command\\\":\\\"dir\\\"}\"}</tool_call>",
                           LLM_TEXT_FUNCTION_FORMATS, &t),
                     WA_E_OK);
    assert_int_equal(t.n_calls, 2);
    assert_int_equal(t.format, LLM_TEXT_HERMES);
    assert_int_equal(t.coords, LLM_COORDS_FRAME_999);
    assert_int_equal(t.calls[1].coords, LLM_COORDS_FRAME_999);
    assert_call(&t, 0, "desktop", "{\"action\":\"click\",\"x\":5,\"y\":9}");
    assert_call(&t, 1, "powershell", "{\"command\":\"dir\"}");
    assert_string_not_equal(t.calls[0].id, t.calls[1].id);
    assert_string_equal(t.text, "I will click.");
    assert_null(t.after_calls); /* nothing follows the calls */
    textcalls_cleanup(&t);

    /* text after the last block: an answer given with the calls, told apart */
    assert_int_equal(parse("Saving.\n<tool_call>{\"name\":\"desktop\",\"arguments\":{}}"
                           "</tool_call>\n<function=desktop>\n</function>\n  Saved it. \n",
                           LLM_TEXT_FUNCTION_FORMATS, &t),
                     WA_E_OK);
    assert_int_equal(t.n_calls, 2);
    assert_string_equal(t.text, "Saving.\nSaved it.");
    assert_string_equal(t.after_calls, "Saved it.");
    textcalls_cleanup(&t);
    assert_int_equal(parse("<tool_call>{\"name\":\"desktop\",\"arguments\":{}}</tool_call>"
                           "Done.",
                           LLM_TEXT_HERMES, &t),
                     WA_E_OK);
    assert_string_equal(t.text, "Done.");
    assert_string_equal(t.after_calls, "Done.");
    textcalls_cleanup(&t);

    /* the last block cut at a stop token before its closing tag; no arguments at all */
    assert_int_equal(parse("<tool_call>\n{\"name\": \"desktop\"}\n", LLM_TEXT_HERMES, &t), WA_E_OK);
    assert_call(&t, 0, "desktop", "{}");
    assert_null(t.text);
    textcalls_cleanup(&t);
}

static void hermes_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "<tool_call>{\"name\": \"desktop\", \"arguments\": {\"x\": 1,}</tool_call>",
        "<tool_call>{\"arguments\": {}}</tool_call>",
        "<tool_call>{\"name\": \"desktop\", \"arguments\": [1]}</tool_call>",
        "<tool_call>{\"name\": \"desktop\", \"arguments\": \"not json\"}</tool_call>",
        "<tool_call>{\"name\": \"a\"}<tool_call>{\"name\": \"b\"}</tool_call>",
        "<tool_call></tool_call>",
        "<tool_call>[]</tool_call>",
        "<tool_call>\"desktop\"</tool_call>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct textcalls t;
        if (parse(bad[i], LLM_TEXT_FUNCTION_FORMATS, &t) != WA_E_PARSE)
            fail_msg("accepted: %s", bad[i]);
        assert_int_equal(t.n_calls, 0);
        assert_null(t.calls);
        assert_non_null(strstr(wa_err_detail(), "malformed tool call"));
        textcalls_cleanup(&t);
    }
}

static void qwen3_coder(void **state)
{
    (void)state;
    struct textcalls t;
    assert_int_equal(parse("<tool_call>\n<function=desktop>\n<parameter=action>\ntype\n"
                           "</parameter>\n<parameter=text>\nline one\nline two\n</parameter>\n"
                           "<parameter=x>\n12\n</parameter>\n<parameter=element>[3]"
                           "</parameter>\n</function>\n</tool_call>",
                           LLM_TEXT_FUNCTION_FORMATS, &t),
                     WA_E_OK);
    assert_int_equal(t.format, LLM_TEXT_QWEN3_CODER);
    assert_call(&t, 0, "desktop",
                "{\"action\":\"type\",\"text\":\"line one\\nline two\",\"x\":12,\"element\":[3]}");
    textcalls_cleanup(&t);

    /* bare, two of them, a parameter whose closing tag is missing */
    assert_int_equal(parse("Doing it.\n<function=powershell><parameter=command>Get-Date"
                           "</function>\n<function=desktop><parameter=action>screenshot"
                           "</parameter></function>",
                           LLM_TEXT_QWEN3_CODER, &t),
                     WA_E_OK);
    assert_int_equal(t.n_calls, 2);
    assert_call(&t, 0, "powershell", "{\"command\":\"Get-Date\"}");
    assert_call(&t, 1, "desktop", "{\"action\":\"screenshot\"}");
    assert_string_equal(t.text, "Doing it.");
    textcalls_cleanup(&t);

    static const char *const bad[] = {
        "<function=desktop><parameter=action>click</parameter>",
        "<function=><parameter=a>1</parameter></function>",
        "<function=desktop>stray text<parameter=a>1</parameter></function>",
        "<function=desktop><parameter=>1</parameter></function>",
        "<tool_call><function=desktop></function> more</tool_call>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i], LLM_TEXT_FUNCTION_FORMATS, &t) != WA_E_PARSE)
            fail_msg("accepted: %s", bad[i]);
        assert_int_equal(t.n_calls, 0);
        textcalls_cleanup(&t);
    }
}

static void bare_json(void **state)
{
    (void)state;
    struct textcalls t;
    assert_int_equal(parse("  {\"name\": \"desktop\", \"parameters\": {\"action\": \"key\", "
                           "\"keys\": \"ctrl+s\"}}\n",
                           LLM_TEXT_FUNCTION_FORMATS, &t),
                     WA_E_OK);
    assert_int_equal(t.format, LLM_TEXT_JSON);
    assert_call(&t, 0, "desktop", "{\"action\":\"key\",\"keys\":\"ctrl+s\"}");
    textcalls_cleanup(&t);

    assert_int_equal(parse("<|python_tag|>```json\n[{\"name\": \"a\", \"arguments\": {}}, "
                           "{\"name\": \"b\", \"arguments\": {\"k\": 1}}]\n```",
                           LLM_TEXT_JSON, &t),
                     WA_E_OK);
    assert_int_equal(t.n_calls, 2);
    assert_call(&t, 1, "b", "{\"k\":1}");
    textcalls_cleanup(&t);

    /* plain text, prose quoting JSON, objects that name no call: no calls, no error */
    static const char *const plain[] = {
        "The file is saved.",
        "",
        "Use {\"name\": \"x\", \"arguments\": {}} to call it.",
        "{\"result\": 42}",
        "{\"name\": \"Bob\"}",
        "[1, 2, 3]",
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        assert_int_equal(parse(plain[i], LLM_TEXT_FUNCTION_FORMATS, &t), WA_E_OK);
        assert_int_equal(t.n_calls, 0);
        assert_null(t.text);
        textcalls_cleanup(&t);
    }
    /* a formats mask that leaves a grammar out does not find it */
    assert_int_equal(parse("<tool_call>{\"name\": \"a\"}</tool_call>", LLM_TEXT_JSON, &t), WA_E_OK);
    assert_int_equal(t.n_calls, 0);
    textcalls_cleanup(&t);
    assert_int_equal(parse("{\"name\": \"a\", \"arguments\": 5}", LLM_TEXT_JSON, &t), WA_E_PARSE);
    textcalls_cleanup(&t);
}

static void uitars_actions(void **state)
{
    (void)state;
    struct textcalls t;
    assert_int_equal(parse("Thought: The OK button is at the bottom.\nAction: click("
                           "start_box='<|box_start|>(512,300)<|box_end|>')",
                           LLM_TEXT_UITARS, &t),
                     WA_E_OK);
    assert_int_equal(t.format, LLM_TEXT_UITARS);
    assert_int_equal(t.coords, LLM_COORDS_PIXELS);
    assert_int_equal(t.calls[0].coords, LLM_COORDS_PIXELS);
    assert_call(&t, 0, "desktop", "{\"action\":\"click\",\"x\":512,\"y\":300}");
    assert_string_equal(t.text, "The OK button is at the bottom.");
    textcalls_cleanup(&t);

    struct {
        const char *text, *args;
    } cases[] = {
        {"Action: left_double(point='<point>10 20</point>')",
         "{\"action\":\"double_click\",\"x\":10,\"y\":20}"},
        {"Action: right_single(start_box='(100,200,110,220)')",
         "{\"action\":\"right_click\",\"x\":105,\"y\":210}"},
        {"Action: hotkey(key='ctrl c')", "{\"action\":\"key\",\"keys\":\"ctrl+c\"}"},
        {"Action: hotkey(key=\"Ctrl+Shift+S\")", "{\"action\":\"key\",\"keys\":\"ctrl+shift+s\"}"},
        {"Action: type(content='it\\'s done')", "{\"action\":\"type\",\"text\":\"it's done\"}"},
        {"Action: scroll(start_box='(5,6)', direction='down')",
         "{\"action\":\"scroll\",\"direction\":\"down\",\"x\":5,\"y\":6}"},
        {"Action: scroll(direction='up')", "{\"action\":\"scroll\",\"direction\":\"up\"}"},
        {"Action: drag(start_box='(1,2)', end_box='(30,40)')",
         "{\"action\":\"drag\",\"x\":1,\"y\":2,\"to_x\":30,\"to_y\":40}"},
        {"Action: drag(start_point='<point>1.4 2.6</point>', end_point='<point>3 4</point>')",
         "{\"action\":\"drag\",\"x\":1,\"y\":3,\"to_x\":3,\"to_y\":4}"},
        {"Action: wait()", "{\"action\":\"wait\",\"seconds\":5}"},
        /* UI-TARS-1.5's own grammar, as its prompt teaches it */
        {"Action: click(point='<point>131 30</point>')",
         "{\"action\":\"click\",\"x\":131,\"y\":30}"},
        {"Action: scroll(point='<point>5 6</point>', direction='left')",
         "{\"action\":\"scroll\",\"direction\":\"left\",\"x\":5,\"y\":6}"},
        {"Action: left_double(point='<point>-0.5 1e3</point>')",
         "{\"action\":\"double_click\",\"x\":-1,\"y\":1000}"},
        {"Action: mouse_move(start_box='(7,8)',)", "{\"action\":\"mouse_move\",\"x\":7,\"y\":8}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (parse(cases[i].text, LLM_TEXT_UITARS, &t) != WA_E_OK)
            fail_msg("%s: %s", cases[i].text, wa_err_detail());
        assert_int_equal(t.n_calls, 1);
        assert_call(&t, 0, "desktop", cases[i].args);
        assert_null(t.text);
        textcalls_cleanup(&t);
    }

    /* a trailing newline submits: type, then enter */
    assert_int_equal(parse("Action: type(content='hello\\n')", LLM_TEXT_UITARS, &t), WA_E_OK);
    assert_int_equal(t.n_calls, 2);
    assert_call(&t, 0, "desktop", "{\"action\":\"type\",\"text\":\"hello\"}");
    assert_call(&t, 1, "desktop", "{\"action\":\"key\",\"keys\":\"enter\"}");
    textcalls_cleanup(&t);

    /* several actions, one per line */
    assert_int_equal(parse("Thought: two steps\nAction: click(start_box='(1,1)')\n\n"
                           "type(content='x')",
                           LLM_TEXT_UITARS, &t),
                     WA_E_OK);
    assert_int_equal(t.n_calls, 2);
    textcalls_cleanup(&t);

    /* finished: the final answer, no call */
    assert_int_equal(
        parse("Thought: all done\nAction: finished(content='Saved as a.txt')", LLM_TEXT_UITARS, &t),
        WA_E_OK);
    assert_int_equal(t.n_calls, 0);
    assert_string_equal(t.final_answer, "Saved as a.txt");
    assert_string_equal(t.text, "all done");
    textcalls_cleanup(&t);
}

static void uitars_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "Action: click(start_box='(512)')",
        "Action: click(start_box='(1,2)'",
        "Action: click(start_box='(1,2))",
        "Action: click start_box='(1,2)'",
        "Action: teleport(start_box='(1,2)')",
        "Action: scroll(start_box='(1,2)', direction='sideways')",
        "Action: drag(start_box='(1,2)')",
        "Action: hotkey()",
        "Action: type()",
        "Action: click(start_box=(1,2))",
        "Action: click(start_box='(1,2)') click(",
        "Action:",
        "Action: click(start_box='(1,2,3,4,5)')",
        /* numbers no screen has (and no integer can hold): refused, never converted */
        "Action: click(point='<point>1e300 5</point>')",
        "Action: click(start_box='(5,-1e300)')",
        "Action: click(start_box='(1e999,5)')",
        "Action: drag(start_point='<point>1 2</point>', end_point='<point>3 9e18</point>')",
        "Action: scroll(point='<point>1e300 1e300</point>', direction='up')",
        "Action: right_single(start_box='(1e308,1,1e308,1)')",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct textcalls t;
        if (parse(bad[i], LLM_TEXT_UITARS, &t) != WA_E_PARSE)
            fail_msg("accepted: %s", bad[i]);
        assert_int_equal(t.n_calls, 0);
        assert_null(t.final_answer);
        textcalls_cleanup(&t);
    }
    /* "Action:" inside a sentence, or UI-TARS not asked for: plain text */
    struct textcalls t;
    assert_int_equal(parse("The next Action: none.", LLM_TEXT_UITARS, &t), WA_E_OK);
    assert_int_equal(t.n_calls, 0);
    assert_int_equal(parse("Action: click(start_box='(1,2)')", LLM_TEXT_FUNCTION_FORMATS, &t),
                     WA_E_OK);
    assert_int_equal(t.n_calls, 0);
    textcalls_cleanup(&t);
}

/* Every prefix of well-formed inputs: never a crash or a leak, and a result either way. */
static void prefixes_never_crash(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "Hi <tool_call>{\"name\": \"d\", \"arguments\": {\"a\": \"<\\\"x\"}}</tool_call> bye",
        "<tool_call><function=d><parameter=a>1</parameter><parameter=b>{\"k\":[1]}</parameter>"
        "</function></tool_call>",
        "Thought: t\nAction: drag(start_box='<|box_start|>(1,2)<|box_end|>', end_box='(3,4)')",
        "```json\n{\"name\": \"d\", \"parameters\": {}}\n```",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        size_t n = strlen(inputs[i]);
        for (size_t k = 0; k <= n; k++) {
            char *p = malloc(k + 1);
            assert_non_null(p);
            memcpy(p, inputs[i], k);
            p[k] = '\0';
            struct textcalls t;
            wa_err e = parse(p, LLM_TEXT_FUNCTION_FORMATS | LLM_TEXT_UITARS, &t);
            assert_true(e == WA_E_OK || e == WA_E_PARSE);
            if (e)
                assert_int_equal(t.n_calls, 0);
            textcalls_cleanup(&t);
            free(p);
        }
    }
}

int main(void)
{
    asm_ids_init(&ids, 42);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hermes_blocks),        cmocka_unit_test(hermes_malformed),
        cmocka_unit_test(qwen3_coder),          cmocka_unit_test(bare_json),
        cmocka_unit_test(uitars_actions),       cmocka_unit_test(uitars_malformed),
        cmocka_unit_test(prefixes_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
