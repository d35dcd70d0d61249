/* Unit tests: the retry policy (status classes, quotas, server waits, backoff). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "llm/retry.h"

static void transient_statuses(void **state)
{
    (void)state;
    static const long yes[] = {408, 409, 429, 500, 502, 503, 504, 529};
    static const long no[] = {200, 400, 401, 403, 404, 413, 422, 501, 505, 530};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_true(retry_status_transient(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(retry_status_transient(no[i]));
}

static void http_dates(void **state)
{
    (void)state;
    /* 1994-11-06 08:49:37 UTC = 784111777 s */
    assert_int_equal(retry_parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777000LL);
    assert_int_equal(retry_parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777000LL);
    assert_int_equal(retry_parse_http_date("Sun Nov  6 08:49:37 1994"), 784111777000LL);
    assert_int_equal(retry_parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
    assert_int_equal(retry_parse_http_date("Tue, 29 Feb 2028 23:59:59 GMT"), 1835481599000LL);
    assert_int_equal(retry_parse_http_date("yesterday"), -1);
    assert_int_equal(retry_parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"), -1);
    /* Years no clock holds: refused, never an overflow (found by fuzz.openai). */
    assert_int_equal(retry_parse_http_date("\x05, 22 Oct 28988888885025 07:28:00"), -1);
    assert_int_equal(retry_parse_http_date("Sun, 06 Nov 99999999999 08:49:37 GMT"), -1);
    assert_int_equal(retry_parse_http_date("Sun, 06 Nov 1899 08:49:37 GMT"), -1);
}

static void retry_after_headers(void **state)
{
    (void)state;
    int64_t now = 784111777000LL;
    assert_int_equal(retry_after_header_ms("2", NULL, now), 2000);
    assert_int_equal(retry_after_header_ms("1.5", NULL, now), 1500);
    assert_int_equal(retry_after_header_ms("2", "250", now), 250); /* ms wins */
    assert_int_equal(retry_after_header_ms(NULL, "1200.4", now), 1200);
    assert_int_equal(retry_after_header_ms("Sun, 06 Nov 1994 08:49:40 GMT", NULL, now), 3000);
    assert_int_equal(retry_after_header_ms("Sun, 06 Nov 1994 08:49:30 GMT", NULL, now), 0);
    assert_int_equal(retry_after_header_ms("soon", NULL, now), -1);
    assert_int_equal(retry_after_header_ms("-3", NULL, now), -1);
    assert_int_equal(retry_after_header_ms(NULL, NULL, now), -1);
}

static void durations(void **state)
{
    (void)state;
    assert_int_equal(retry_parse_duration_ms("2s"), 2000);
    assert_int_equal(retry_parse_duration_ms("0.250s"), 250);
    assert_int_equal(retry_parse_duration_ms("37.9s"), 37900);
    assert_int_equal(retry_parse_duration_ms("300ms"), 300);
    assert_int_equal(retry_parse_duration_ms("2"), -1);
    assert_int_equal(retry_parse_duration_ms("s"), -1);
}

static const char gemini_minute[] =
    "{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your "
    "plan and billing details.\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":["
    "{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":"
    "\"GenerateRequestsPerMinutePerProjectPerModel-FreeTier\",\"quotaValue\":\"10\"}]},"
    "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"7s\"}]}}";

static const char gemini_daily[] =
    "[{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your "
    "plan and billing details.\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":["
    "{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":"
    "\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\",\"quotaValue\":\"250\"}]},"
    "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"20s\"}]}}]";

static void classify(void **state)
{
    (void)state;
    struct retry_verdict v;
    retry_classify_http(429, gemini_minute, strlen(gemini_minute), NULL, NULL, 0, &v);
    assert_int_equal(v.err, WA_E_RATE_LIMITED);
    assert_true(v.retry);
    assert_int_equal(v.wait_ms, 7000);
    assert_string_equal(v.kind, "rate limited");
    assert_non_null(strstr(v.message, "You exceeded your current quota"));
    assert_non_null(strstr(v.message, "[RESOURCE_EXHAUSTED]"));

    retry_classify_http(429, gemini_daily, strlen(gemini_daily), NULL, NULL, 0, &v);
    assert_int_equal(v.err, WA_E_QUOTA);
    assert_false(v.retry);

    static const char oa_quota[] =
        "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and "
        "billing details.\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":"
        "\"insufficient_quota\"}}";
    retry_classify_http(429, oa_quota, strlen(oa_quota), "20", NULL, 0, &v);
    assert_int_equal(v.err, WA_E_QUOTA);
    assert_false(v.retry);

    static const char oa_rpm[] = "{\"error\":{\"message\":\"Rate limit reached for requests per "
                                 "min (RPM)\",\"type\":\"requests\",\"code\":"
                                 "\"rate_limit_exceeded\"}}";
    retry_classify_http(429, oa_rpm, strlen(oa_rpm), NULL, "1500", 0, &v);
    assert_int_equal(v.err, WA_E_RATE_LIMITED);
    assert_true(v.retry);
    assert_int_equal(v.wait_ms, 1500);

    static const char oa_rpd[] = "{\"error\":{\"message\":\"Rate limit reached for requests per "
                                 "day (RPD)\",\"code\":\"rate_limit_exceeded\"}}";
    retry_classify_http(429, oa_rpd, strlen(oa_rpd), "3600", NULL, 0, &v);
    assert_int_equal(v.err, WA_E_QUOTA);

    retry_classify_http(503, "<html>Service Unavailable</html>", 32, NULL, NULL, 0, &v);
    assert_int_equal(v.err, WA_E_HTTP);
    assert_true(v.retry);
    assert_int_equal(v.wait_ms, -1);
    assert_string_equal(v.message, "<html>Service Unavailable</html>");

    static const char ollama[] = "{\"error\":\"model 'llava' not found\"}";
    retry_classify_http(404, ollama, strlen(ollama), NULL, NULL, 0, &v);
    assert_int_equal(v.err, WA_E_HTTP);
    assert_false(v.retry);
    assert_string_equal(v.message, "model 'llava' not found");

    static const char vllm[] = "{\"object\":\"error\",\"message\":\"max_tokens too large\","
                               "\"type\":\"BadRequestError\",\"code\":400}";
    retry_classify_http(400, vllm, strlen(vllm), NULL, NULL, 0, &v);
    assert_false(v.retry);
    assert_string_equal(v.message, "max_tokens too large");

    retry_classify_http(500, "", 0, NULL, NULL, 0, &v);
    assert_true(v.retry);
    assert_string_equal(v.message, "");
}

static void messages_are_one_line_and_capped(void **state)
{
    (void)state;
    char big[4000];
    memset(big, 'x', sizeof big);
    memcpy(big, "line one\n\tline two  ", 20);
    char out[100];
    retry_error_message(big, sizeof big, out, sizeof out);
    assert_true(strlen(out) < sizeof out);
    assert_memory_equal(out, "line one line two x", 19);
    assert_string_equal(out + strlen(out) - 3, "...");
}

static void backoff(void **state)
{
    (void)state;
    for (uint32_t r = 0; r < 2000; r += 37) {
        int w1 = retry_backoff_ms(1, 500, 60000, r);
        int w3 = retry_backoff_ms(3, 500, 60000, r);
        int w20 = retry_backoff_ms(20, 500, 60000, r);
        assert_in_range(w1, 250, 500);
        assert_in_range(w3, 1000, 2000);
        assert_in_range(w20, 30000, 60000);
        assert_in_range(retry_backoff_ms(5, 500, 40, r), 20, 40);
    }
    /* jitter: different random numbers give different waits */
    assert_int_not_equal(retry_backoff_ms(4, 500, 60000, 1), retry_backoff_ms(4, 500, 60000, 999));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(transient_statuses),
        cmocka_unit_test(http_dates),
        cmocka_unit_test(retry_after_headers),
        cmocka_unit_test(durations),
        cmocka_unit_test(classify),
        cmocka_unit_test(messages_are_one_line_and_capped),
        cmocka_unit_test(backoff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
