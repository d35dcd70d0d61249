/* Unit tests: the tool protocol a run speaks, from the settings and the model's name,
 * and a grounding model's coordinates moved onto winagent's 0-999. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/dynbuf.h"
#include "llm/protocol.h"
#include "llm/textcalls.h"

static struct llm_protocol_choice choose(enum llm_provider_kind p, const char *model,
                                         enum llm_tool_protocol req, enum llm_coords_choice c)
{
    struct llm_protocol_choice ch;
    assert_int_equal(llm_protocol_choose(p, model, req, c, &ch), WA_E_OK);
    return ch;
}

static void names_round_trip(void **state)
{
    (void)state;
    enum llm_tool_protocol p;
    for (int i = 0; i < LLM_PROTO__COUNT; i++) {
        assert_int_equal(llm_tool_protocol_from_name(llm_tool_protocol_name(i), &p), WA_E_OK);
        assert_int_equal(p, i);
    }
    assert_int_equal(llm_tool_protocol_from_name("TEXT", &p), WA_E_OK);
    assert_int_equal(p, LLM_PROTO_TEXT);
    assert_int_equal(llm_tool_protocol_from_name("tools", &p), WA_E_CONFIG);
    assert_int_equal(llm_tool_protocol_from_name(NULL, &p), WA_E_CONFIG);
    enum llm_coords_choice c;
    assert_int_equal(llm_coords_choice_from_name("1000", &c), WA_E_OK);
    assert_int_equal(c, LLM_COORDS_CHOICE_1000);
    assert_int_equal(llm_coords_choice_from_name("Pixels", &c), WA_E_OK);
    assert_int_equal(c, LLM_COORDS_CHOICE_PIXELS);
    assert_int_equal(llm_coords_choice_from_name("999", &c), WA_E_CONFIG);
    enum llm_provider_kind k;
    assert_int_equal(llm_provider_from_name("Gemini", &k), WA_E_OK);
    assert_string_equal(llm_provider_name(k), "google");
    assert_int_equal(llm_provider_from_name("openai", &k), WA_E_OK);
    assert_string_equal(llm_provider_name(k), "openai-compatible");
    assert_int_equal(llm_provider_from_name("bedrock", &k), WA_E_CONFIG);
}

static void auto_by_model_name(void **state)
{
    (void)state;
    /* an ordinary model: functions, and calls written as text are read too */
    struct llm_protocol_choice ch =
        choose(LLM_PROVIDER_OPENAI, "qwen2.5-7b-instruct", LLM_PROTO_AUTO, LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_FUNCTIONS);
    assert_int_equal(ch.text_calls, LLM_TEXT_FUNCTION_FORMATS);
    assert_int_equal(ch.grammar, 0);
    /* UI-TARS-1.5 writes text in smart-resized pixels; 1.0 in 0-1000 */
    ch = choose(LLM_PROVIDER_OPENAI, "ByteDance-Seed/UI-TARS-1.5-7B", LLM_PROTO_AUTO,
                LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_TEXT);
    assert_int_equal(ch.grammar, LLM_TEXT_UITARS);
    assert_int_equal(ch.coords, LLM_COORDS_PIXELS);
    assert_true(ch.text_calls & LLM_TEXT_UITARS);
    ch = choose(LLM_PROVIDER_OPENAI, "ui_tars_72b_dpo", LLM_PROTO_AUTO, LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.grammar, LLM_TEXT_UITARS);
    assert_int_equal(ch.coords, LLM_COORDS_NORM_1000);
    /* --coords overrides the name */
    ch = choose(LLM_PROVIDER_OPENAI, "ui-tars-1.5", LLM_PROTO_AUTO, LLM_COORDS_CHOICE_1000);
    assert_int_equal(ch.coords, LLM_COORDS_NORM_1000);
    /* a computer-use model: its computer tool where the provider has one, else functions */
    ch = choose(LLM_PROVIDER_GOOGLE, "gemini-2.5-computer-use-preview-10-2025", LLM_PROTO_AUTO,
                LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_COMPUTER);
    ch = choose(LLM_PROVIDER_OPENAI_RESPONSES, "computer-use-preview", LLM_PROTO_AUTO,
                LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_COMPUTER);
    ch =
        choose(LLM_PROVIDER_OPENAI, "computer-use-preview", LLM_PROTO_AUTO, LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_FUNCTIONS);
    /* Claude does functions well: its computer tool only when asked */
    ch =
        choose(LLM_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", LLM_PROTO_AUTO, LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_FUNCTIONS);
}

static void explicit_protocols(void **state)
{
    (void)state;
    /* functions as asked: replies are taken as sent */
    struct llm_protocol_choice ch =
        choose(LLM_PROVIDER_OPENAI, "ui-tars-1.5", LLM_PROTO_FUNCTIONS, LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_FUNCTIONS);
    assert_int_equal(ch.text_calls, 0);
    /* text for a function-calling model: Hermes blocks asked for, every grammar read */
    ch = choose(LLM_PROVIDER_GOOGLE, "llama3.1", LLM_PROTO_TEXT, LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_TEXT);
    assert_int_equal(ch.grammar, LLM_TEXT_HERMES);
    assert_int_equal(ch.text_calls, LLM_TEXT_FUNCTION_FORMATS | LLM_TEXT_UITARS);
    /* computer where the provider has none (Chat Completions): a clear configuration error */
    struct llm_protocol_choice bad;
    assert_false(llm_provider_has_computer(LLM_PROVIDER_OPENAI));
    assert_int_equal(llm_protocol_choose(LLM_PROVIDER_OPENAI, "gpt-4o", LLM_PROTO_COMPUTER,
                                         LLM_COORDS_CHOICE_AUTO, &bad),
                     WA_E_CONFIG);
    assert_non_null(strstr(wa_err_detail(), "openai-compatible has none"));
    /* ... and the Responses API and Anthropic's have one, for any model asked */
    ch = choose(LLM_PROVIDER_OPENAI_RESPONSES, "gpt-5.4", LLM_PROTO_COMPUTER,
                LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_COMPUTER);
    ch = choose(LLM_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", LLM_PROTO_COMPUTER,
                LLM_COORDS_CHOICE_AUTO);
    assert_int_equal(ch.protocol, LLM_PROTO_COMPUTER);
}

static void smart_resize_as_the_server_does(void **state)
{
    (void)state;
    int w, h;
    textcalls_smart_resize(1280, 800, &w, &h);
    assert_int_equal(w, 1288);
    assert_int_equal(h, 812);
    textcalls_smart_resize(100, 50, &w, &h); /* below the minimum pixel count: scaled up */
    assert_int_equal(w % 28, 0);
    assert_int_equal(h % 28, 0);
    assert_true(w * h >= 100 * 28 * 28);
    textcalls_smart_resize(8000, 8000, &w, &h); /* above the maximum: scaled down */
    assert_true(w * h <= 16384 * 28 * 28);
    assert_int_equal(w, h);
}

/* Python's round() takes a half to the even neighbour, and so do the servers' resizes:
 * sides of 28k + 14 pixels round down when k is even, up when it is odd. */
static void smart_resize_rounds_halves_to_even(void **state)
{
    (void)state;
    static const int cases[][4] = {
        {1246, 798, 1232, 784}, /* 44.5 -> 44, 28.5 -> 28 */
        {1274, 770, 1288, 784}, /* 45.5 -> 46, 27.5 -> 28 */
        {1330, 742, 1344, 728}, /* 47.5 -> 48, 26.5 -> 26 */
        {1280, 800, 1288, 812}, /* no half */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w, h;
        textcalls_smart_resize(cases[i][0], cases[i][1], &w, &h);
        assert_int_equal(w, cases[i][2]);
        assert_int_equal(h, cases[i][3]);
    }
    int w, h; /* sizes no image has (a server refuses them) still give whole blocks */
    textcalls_smart_resize(0, -5, &w, &h);
    assert_true(w >= 28 && h >= 28 && w % 28 == 0 && h % 28 == 0);
    textcalls_smart_resize(2000000000, 3, &w, &h);
    assert_true(w >= 28 && h >= 28 && w % 28 == 0 && h % 28 == 0);
}

/* The Anthropic computer tool's version by model, however the name is written. */
static void claude_computer_version_by_model(void **state)
{
    (void)state;
    static const struct {
        const char *model, *tool;
    } cases[] = {
        {"claude-sonnet-4-6", "computer_20251124"},
        {"claude-opus-4-7", "computer_20251124"},
        {"claude-opus-4-6-20260205", "computer_20251124"},
        {"claude-opus-4-5-20251101", "computer_20251124"},
        {"anthropic/claude-sonnet-4.6", "computer_20251124"},
        {"claude-sonnet-4-5-20250929", "computer_20250124"},
        {"claude-sonnet-4-5@20250929", "computer_20250124"},
        {"us.anthropic.claude-haiku-4-5-20251001-v1:0", "computer_20250124"},
        {"claude-opus-4-1-20250805", "computer_20250124"},
        {"claude-opus-4-20250514", "computer_20250124"},
        {"claude-sonnet-4-0", "computer_20250124"},
        {"claude-3-7-sonnet-20250219", "computer_20250124"},
        {"anthropic.claude-3-7-sonnet-20250219-v1:0", "computer_20250124"},
        /* later or unknown models: the newest */
        {"claude-opus-4-8", "computer_20251124"},
        {"claude-haiku-4-6", "computer_20251124"},
        {"claude-sonnet-5", "computer_20251124"},
        {"claude-sonnet-latest", "computer_20251124"},
        {"my-proxy-model", "computer_20251124"},
        {NULL, "computer_20251124"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct llm_claude_computer *v = llm_claude_computer_for(cases[i].model);
        if (strcmp(v->tool, cases[i].tool) != 0)
            fail_msg("%s: %s, not %s", cases[i].model ? cases[i].model : "(none)", v->tool,
                     cases[i].tool);
        assert_int_equal(v->zoom, strcmp(v->tool, "computer_20251124") == 0);
        char beta[64]; /* the header of the tool's own date */
        snprintf(beta, sizeof beta, "computer-use-%.4s-%.2s-%.2s", v->tool + 9, v->tool + 13,
                 v->tool + 15);
        assert_string_equal(v->beta, beta);
    }
    /* every row of the table is found by its own id */
    const char *name, *id;
    const struct llm_claude_computer *v;
    for (size_t i = 0; llm_claude_computer_row(i, &name, &id, &v); i++)
        assert_ptr_equal(llm_claude_computer_for(id), v);
}

/* The table in docs/conformance.md is the code's: between its markers it says exactly
 * what llm_claude_computer_row gives (the expected text is printed when it does not). */
static void claude_versions_documented(void **state)
{
    (void)state;
    struct dynbuf want;
    dynbuf_init(&want, 1 << 16);
    dynbuf_adds(&want, "| Model | API id | Tool type | Beta header | Zoom |\n"
                       "|---|---|---|---|---|\n");
    const char *name, *id;
    const struct llm_claude_computer *v;
    for (size_t i = 0; llm_claude_computer_row(i, &name, &id, &v); i++)
        dynbuf_addf(&want, "| %s | `%s` | `%s` | `%s` | %s |\n", name, id, v->tool, v->beta,
                    v->zoom ? "`enable_zoom: true`" : "no");
    v = llm_claude_computer_for("claude-model-from-later");
    dynbuf_addf(&want, "| any other (a later model) | | `%s` | `%s` | %s |\n", v->tool, v->beta,
                v->zoom ? "`enable_zoom: true`" : "no");
    const char *src = getenv("WINAGENT_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/conformance.md", src && src[0] ? src : ".");
    FILE *fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot read %s", path);
    struct dynbuf doc;
    dynbuf_init(&doc, 1 << 22);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        dynbuf_add(&doc, buf, n);
    fclose(fp);
    static const char begin[] = "<!-- claude-computer-versions: generated, checked by "
                                "unit.llm_protocol -->\n",
                      end[] = "<!-- /claude-computer-versions -->";
    const char *b = strstr(dynbuf_str(&doc), begin);
    const char *e = b ? strstr(b, end) : NULL;
    bool same = b && e && (size_t)(e - b) - (sizeof begin - 1) == want.len &&
                memcmp(b + sizeof begin - 1, dynbuf_str(&want), want.len) == 0;
    if (!same)
        fail_msg("%s: the table between\n%s and %s\nmust read:\n%s", path, begin, end,
                 dynbuf_str(&want));
    dynbuf_cleanup(&doc);
    dynbuf_cleanup(&want);
}

static void coords_to_999(void **state)
{
    (void)state;
    struct llm_tool_call c = {.coords = LLM_COORDS_PIXELS};
    c.parsed = cJSON_Parse("{\"action\":\"drag\",\"x\":644,\"y\":406,\"to_x\":1288,\"to_y\":0,"
                           "\"text\":\"x\"}");
    cJSON *out;
    /* a 1280x800 screenshot is seen as 1288x812: its centre is (644,406) */
    assert_int_equal(textcalls_args_to_999(&c, 1280, 800, &out), WA_E_OK);
    assert_int_equal(cJSON_GetObjectItem(out, "x")->valueint, 500);
    assert_int_equal(cJSON_GetObjectItem(out, "y")->valueint, 500);
    assert_int_equal(cJSON_GetObjectItem(out, "to_x")->valueint, 999);
    assert_int_equal(cJSON_GetObjectItem(out, "to_y")->valueint, 0);
    assert_string_equal(cJSON_GetObjectItem(out, "text")->valuestring, "x");
    cJSON_Delete(out);
    /* pixels without a screenshot cannot be placed */
    assert_int_equal(textcalls_args_to_999(&c, 0, 0, &out), WA_E_INVALID_ARGS);
    assert_null(out);
    /* 0-1000 over any image */
    c.coords = LLM_COORDS_NORM_1000;
    assert_int_equal(textcalls_args_to_999(&c, 0, 0, &out), WA_E_OK);
    assert_int_equal(cJSON_GetObjectItem(out, "x")->valueint, 644);
    assert_int_equal(cJSON_GetObjectItem(out, "to_x")->valueint, 999);
    cJSON_Delete(out);
    /* winagent's own space is left alone */
    c.coords = LLM_COORDS_FRAME_999;
    assert_int_equal(textcalls_args_to_999(&c, 640, 480, &out), WA_E_OK);
    assert_true(cJSON_Compare(out, c.parsed, true));
    cJSON_Delete(out);
    cJSON_Delete(c.parsed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(auto_by_model_name),
        cmocka_unit_test(explicit_protocols),
        cmocka_unit_test(smart_resize_as_the_server_does),
        cmocka_unit_test(coords_to_999),
        cmocka_unit_test(smart_resize_rounds_halves_to_even),
        cmocka_unit_test(claude_computer_version_by_model),
        cmocka_unit_test(claude_versions_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
