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
#include "llm/models.h"
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

/* A model's family by its name, however the name is written (API ids, Bedrock and Vertex
 * ids, dots for dashes, dates), and what each family takes. */
static void model_families_by_name(void **state)
{
    (void)state;
    static const struct {
        const char *model, *family, *tool;
    } cases[] = {
        {"claude-opus-5-5", "Claude Opus 5.5", "computer_toolset_20260801"},
        {"claude-sonnet-5-5-20261001", "Claude Sonnet 5.5", "computer_toolset_20260801"},
        {"claude-fable-5-1", "Claude Fable 5.1", "computer_toolset_20260801"},
        {"claude-mythos-5", "Claude Mythos 5", "computer_toolset_20260801"},
        {"claude-opus-5", "Claude Opus 5", "computer_toolset_20260801"},
        {"claude-opus-5-20260801", "Claude Opus 5", "computer_toolset_20260801"},
        {"claude-opus-4-8", "Claude Opus 4.8", "computer_toolset_20260801"},
        {"claude-sonnet-4-6", "Claude Sonnet 4.6", "computer_20251124"},
        {"claude-opus-4-7", "Claude Opus 4.7", "computer_20251124"},
        {"claude-opus-4-6-20260205", "Claude Opus 4.6", "computer_20251124"},
        {"claude-opus-4-5-20251101", "Claude Opus 4.5", "computer_20251124"},
        {"anthropic/claude-sonnet-4.6", "Claude Sonnet 4.6", "computer_20251124"},
        {"claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "computer_20250124"},
        {"claude-sonnet-4-5@20250929", "Claude Sonnet 4.5", "computer_20250124"},
        {"us.anthropic.claude-haiku-4-5-20251001-v1:0", "Claude Haiku 4.5", "computer_20250124"},
        {"claude-opus-4-1-20250805", "Claude Opus 4.1", "computer_20250124"},
        {"claude-opus-4-20250514", "Claude Opus 4", "computer_20250124"},
        {"claude-sonnet-4-0", "Claude Sonnet 4", "computer_20250124"},
        {"claude-3-7-sonnet-20250219", "Claude Sonnet 3.7", "computer_20250124"},
        {"anthropic.claude-3-7-sonnet-20250219-v1:0", "Claude Sonnet 3.7", "computer_20250124"},
        /* between rows: the row below it; newer than every row: the newest shapes */
        {"claude-haiku-4-6", "Claude Haiku 4.5", "computer_20250124"},
        {"claude-opus-5-7", "a later Claude model", "computer_toolset_20260801"},
        {"claude-sonnet-6", "a later Claude model", "computer_toolset_20260801"},
        {"claude-sonnet-latest", "a later Claude model", "computer_toolset_20260801"},
        {"claude-next", "a later Claude model", "computer_toolset_20260801"},
        /* OpenAI and Gemini */
        {"gpt-5.5", "GPT-5.5", "computer"},
        {"gpt-5.5-mini-2026-10-01", "GPT-5.5", "computer"},
        {"gpt-5.4", "GPT-5.4", "computer"},
        {"gpt-5.2", "GPT-5 to 5.3", NULL},
        {"gpt-5.7", "a later GPT model", "computer"},
        {"gpt-6", "a later GPT model", "computer"},
        {"computer-use-preview-2025-03-11", "computer-use-preview", "computer_use_preview"},
        {"gemini-3.6-flash", "Gemini 3.6 Flash", "desktop"},
        {"models/gemini-3.5-flash-lite", "Gemini 3.5 Flash-Lite", "desktop"},
        {"gemini-3.5-flash", "Gemini 3.5 Flash", "desktop"},
        {"gemini-3-flash-preview", "Gemini 3 Flash (preview)", "desktop"},
        {"gemini-3.1-pro-preview", "Gemini 3.1 Pro (preview)", NULL},
        {"gemini-2.5-computer-use-preview-10-2025", "Gemini 2.5 Computer Use (preview)", "browser"},
        {"gemini-4-flash", "a later Gemini model", "desktop"},
        /* no vendor the table knows */
        {"qwen3-vl-32b", "any other model", NULL},
        {"my-proxy-model", "any other model", NULL},
        {NULL, "any other model", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct model_family *f = model_family(cases[i].model);
        const char *m = cases[i].model ? cases[i].model : "(none)";
        if (strcmp(f->name, cases[i].family) != 0)
            fail_msg("%s: %s, not %s", m, f->name, cases[i].family);
        if (cases[i].tool ? !f->computer || strcmp(f->computer, cases[i].tool) != 0 : !!f->computer)
            fail_msg("%s: computer tool %s", m, f->computer ? f->computer : "(none)");
    }
    /* what the record-holding models take */
    const struct model_family *f = model_family("claude-opus-5-5");
    assert_int_equal(f->thinking, MODEL_THINK_ALWAYS);
    assert_int_equal(f->binding, MODEL_BIND_REFUSES);
    assert_false(f->forced_choice);
    assert_int_equal(f->image_edge, 2576);
    assert_true(f->max_tokens >= 32000);
    assert_int_equal(model_family("claude-opus-5")->thinking, MODEL_THINK_DEFAULT);
    assert_int_equal(model_family("claude-opus-5")->binding, MODEL_BIND_NONE);
    assert_string_equal(model_family("claude-opus-5")->computer_also, "computer_20251124");
    assert_int_equal(model_family("claude-sonnet-4-6")->image_edge, 1568);
    assert_int_equal(model_family("claude-opus-4-7")->image_edge, 2576);
    assert_false(model_family("claude-mythos-5-1")->forced_choice);
    /* every row is found by its own id; the toolset is known with no beta header */
    for (size_t i = 0; (f = model_row(i)) != NULL; i++)
        if (f->id[0])
            assert_ptr_equal(model_family(f->id), f);
    const struct model_claude_tool *t = model_claude_tool("computer_toolset_20260801");
    assert_non_null(t);
    assert_true(t->toolset);
    assert_null(t->beta);
    assert_string_equal(model_claude_tool("computer_20251124")->beta, "computer-use-2025-11-24");
    assert_true(model_claude_tool("computer_20251124")->zoom);
    assert_null(model_claude_tool("computer_2099"));
}

/* The table in docs/providers.md is the code's: between its markers it says exactly what
 * model_table_markdown gives (the expected text is printed when it does not). */
static void model_families_documented(void **state)
{
    (void)state;
    static char want[1 << 16];
    assert_true(model_table_markdown(want, sizeof want));
    const char *src = getenv("WINAGENT_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/providers.md", src && src[0] ? src : ".");
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
    static const char begin[] = "<!-- model-families: generated by winagent models --markdown, "
                                "checked by unit.llm_protocol -->\n",
                      end[] = "<!-- /model-families -->";
    const char *b = strstr(dynbuf_str(&doc), begin);
    const char *e = b ? strstr(b, end) : NULL;
    size_t len = strlen(want);
    bool same = b && e && (size_t)(e - b) - (sizeof begin - 1) == len &&
                memcmp(b + sizeof begin - 1, want, len) == 0;
    if (!same)
        fail_msg("%s: the table between\n%s and %s\nmust read:\n%s", path, begin, end, want);
    dynbuf_cleanup(&doc);
}

/* An explicit computer protocol for a family that takes no computer tool is a clear
 * configuration error, before any request. */
static void computer_protocol_needs_a_computer_tool(void **state)
{
    (void)state;
    struct llm_protocol_choice ch;
    assert_int_equal(llm_protocol_choose(LLM_PROVIDER_GOOGLE, "gemini-3.1-pro-preview",
                                         LLM_PROTO_COMPUTER, LLM_COORDS_CHOICE_AUTO, &ch),
                     WA_E_CONFIG);
    assert_non_null(strstr(wa_err_detail(), "takes no computer tool"));
    assert_int_equal(llm_protocol_choose(LLM_PROVIDER_GOOGLE, "gemini-3.6-flash",
                                         LLM_PROTO_COMPUTER, LLM_COORDS_CHOICE_AUTO, &ch),
                     WA_E_OK);
    assert_int_equal(ch.protocol, LLM_PROTO_COMPUTER);
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
        cmocka_unit_test(model_families_by_name),
        cmocka_unit_test(model_families_documented),
        cmocka_unit_test(computer_protocol_needs_a_computer_tool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
