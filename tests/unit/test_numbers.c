/* Numbers from outside (a server's reply, the model's tool call, agent-rdp's request)
 * are range-checked before they become integers: 1e300 converted to an int or a long is
 * undefined behaviour, which the sanitizer build (float-cast-overflow) turns into a
 * failure of these tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/front/rdp.h"
#include "automation/backend.h"
#include "automation/fake/fake_backend.h"
#include "llm/provider.h"

static void json_long_takes_only_numbers_in_range(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        long want;
    } cases[] = {{"12", 12},    {"12.9", 12}, {"0", 0},      {"1000", 1000},
                 {"1001", -1},  {"-1", -1},   {"1e300", -1}, {"-1e300", -1},
                 {"\"5\"", -1}, {"null", -1}, {"true", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *v = cJSON_Parse(cases[i].json);
        assert_non_null(v);
        if (provider_json_long(v, 0, 1000, -1) != cases[i].want)
            fail_msg("%s gave %ld, not %ld", cases[i].json, provider_json_long(v, 0, 1000, -1),
                     cases[i].want);
        cJSON_Delete(v);
    }
}

/* Parses a whole 2xx body with ops into a; the error. */
static wa_err body(const struct llm_provider_ops *ops, struct reply_asm *a, const char *text)
{
    static struct llm_ids ids;
    asm_ids_init(&ids, 1);
    asm_init(a, 1 << 20, &ids, NULL, NULL);
    return ops->parse_body(a, text, strlen(text));
}

static void openai_usage_and_codes_out_of_range_count_as_none(void **state)
{
    (void)state;
    struct reply_asm a;
    assert_int_equal(body(&llm_openai_ops, &a,
                          "{\"choices\":[{\"message\":{\"content\":\"ok\"}}],\"usage\":"
                          "{\"prompt_tokens\":1e300,\"completion_tokens\":-4,\"total_tokens\":7}}"),
                     WA_E_OK);
    assert_int_equal(a.usage.prompt_tokens, 0);
    assert_int_equal(a.usage.completion_tokens, 0);
    assert_int_equal(a.usage.total_tokens, 7);
    asm_cleanup(&a);

    /* an error code of 1e300 names no status: retried unless the request is invalid */
    assert_int_equal(
        body(&llm_openai_ops, &a,
             "{\"error\":{\"code\":1e300,\"type\":\"server_error\",\"message\":\"x\"}}"),
        WA_E_HTTP);
    assert_int_equal(a.error_status, 0);
    assert_true(a.retryable);
    asm_cleanup(&a);
    assert_int_equal(body(&llm_openai_ops, &a, "{\"error\":{\"code\":503,\"message\":\"x\"}}"),
                     WA_E_HTTP);
    assert_int_equal(a.error_status, 503);
    asm_cleanup(&a);
}

static void openai_stream_index_out_of_range_is_no_index(void **state)
{
    (void)state;
    static struct llm_ids ids;
    asm_ids_init(&ids, 1);
    struct reply_asm a;
    asm_init(&a, 1 << 20, &ids, NULL, NULL);
    const char *ev1 =
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1e300,\"id\":\"c1\","
        "\"function\":{\"name\":\"desktop\",\"arguments\":\"{\\\"action\\\":\"}}]}}]}";
    const char *ev2 = "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1e300,"
                      "\"function\":{\"arguments\":\"\\\"wait\\\"}\"}}]},"
                      "\"finish_reason\":\"tool_calls\"}]}";
    assert_int_equal(llm_openai_ops.parse_event(&a, ev1, strlen(ev1)), WA_E_OK);
    assert_int_equal(llm_openai_ops.parse_event(&a, ev2, strlen(ev2)), WA_E_OK);
    /* without an index the pieces belong to the call before: one call */
    assert_int_equal(a.n_calls, 1);
    assert_string_equal(dynbuf_str(&a.calls[0].args), "{\"action\":\"wait\"}");
    asm_cleanup(&a);
}

static void gemini_usage_and_codes_out_of_range_count_as_none(void **state)
{
    (void)state;
    struct reply_asm a;
    assert_int_equal(
        body(&llm_gemini_ops, &a,
             "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":"
             "\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":9e99,\"candidatesTokenCount\":3,"
             "\"thoughtsTokenCount\":-1e300,\"totalTokenCount\":5}}"),
        WA_E_OK);
    assert_int_equal(a.usage.prompt_tokens, 0);
    assert_int_equal(a.usage.completion_tokens, 3);
    assert_int_equal(a.usage.total_tokens, 5);
    asm_cleanup(&a);
    assert_int_equal(body(&llm_gemini_ops, &a, "{\"error\":{\"code\":-9e300,\"message\":\"x\"}}"),
                     WA_E_HTTP);
    assert_int_equal(a.error_status, 0);
    asm_cleanup(&a);
}

/* agent-rdp's command with params on a fake desktop; the response's error message, or
 * "" on success (static). */
static const char *rdp_error(const char *command, const char *params)
{
    static char message[800];
    assert_int_equal(
        fake_load_scene("{\"monitors\":[{\"rect\":[0,0,400,300],\"primary\":true}],\"windows\":"
                        "[{\"hwnd\":256,\"title\":\"Notepad\",\"process\":\"notepad.exe\","
                        "\"pid\":7,\"rect\":[0,0,200,100],\"foreground\":true,\"tree\":{\"type\":"
                        "\"Window\",\"name\":\"Notepad\",\"bounds\":[0,0,200,100],\"children\":"
                        "[{\"type\":\"Edit\",\"name\":\"Text\",\"bounds\":[0,20,200,100]}]}}]}",
                        NULL),
        WA_E_OK);
    char state[] = "/tmp/winagent-numbers-XXXXXX";
    assert_non_null(mkdtemp(state));
    struct core_config cfg = {.be = backend_default(), .dry_run = true, .state_dir = state};
    struct core *c;
    assert_int_equal(core_new(&cfg, &c), WA_E_OK);
    struct session_opts so;
    session_opts_default(&so);
    so.refs = true;
    struct session *s;
    assert_int_equal(session_new(c, &so, &s), WA_E_OK);
    struct rdp *r;
    assert_int_equal(rdp_new(s, &r), WA_E_OK);
    cJSON *p = cJSON_Parse(params);
    cJSON *res = rdp_handle(r, command, p);
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(res, "error");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(err, "message");
    snprintf(message, sizeof message, "%s", cJSON_IsString(msg) ? msg->valuestring : "");
    cJSON_Delete(res);
    cJSON_Delete(p);
    rdp_free(r);
    session_free(s);
    core_free(c);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", state);
    assert_int_equal(system(cmd), 0);
    return message;
}

static void rdp_numbers_out_of_range_are_refused(void **state)
{
    (void)state;
    assert_non_null(strstr(rdp_error("snapshot", "{\"window\":\"Notepad\",\"max_depth\":1e300}"),
                           "max_depth must be 0-64"));
    assert_non_null(strstr(rdp_error("snapshot", "{\"window\":\"Notepad\",\"max_depth\":-1e300}"),
                           "max_depth must be 0-64"));
    assert_string_equal(rdp_error("snapshot", "{\"window\":\"Notepad\",\"max_depth\":2}"), "");
    assert_non_null(
        strstr(rdp_error("scroll", "{\"selector\":\"Text\",\"amount\":-1e308}"), "out of range"));
    assert_string_equal(rdp_error("scroll", "{\"selector\":\"Text\",\"amount\":2.9}"), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_long_takes_only_numbers_in_range),
        cmocka_unit_test(openai_usage_and_codes_out_of_range_count_as_none),
        cmocka_unit_test(openai_stream_index_out_of_range_is_no_index),
        cmocka_unit_test(gemini_usage_and_codes_out_of_range_count_as_none),
        cmocka_unit_test(rdp_numbers_out_of_range_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
