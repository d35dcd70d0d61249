/* Tests of the LLM client's failure handling against the fake server, both providers:
 * retries and waits (Retry-After, retry-after-ms, RetryInfo), quotas that fail fast,
 * giving up, dropped and truncated transfers, errors mid-stream, malformed bodies,
 * oversized bodies, timeouts, and the API key never reaching a message or log. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>

#include "fake_llm_proc.c"
#include "llm_test_client.h"

struct run {
    wa_err e;
    struct llm_reply r;
    double ms;    /* wall time of llm_complete */
    int requests; /* model requests the server saw */
    char detail[512];
    char *log;
    cJSON *records;
};

struct opts {
    int max_retries;    /* 0: 3 */
    int max_backoff_ms; /* 0: 50 */
    size_t max_bytes;   /* 0: default */
    int timeout_s;      /* 0: 30 */
    const char *key;    /* NULL: TEST_KEY */
};

static void run_scenario(const char *scenario, enum llm_provider_kind p, bool stream,
                         const struct opts *o, struct run *out)
{
    memset(out, 0, sizeof *out);
    struct session s;
    session_start(&s, scenario, p, stream);
    if (o && o->max_retries)
        s.cfg.max_retries = o->max_retries;
    if (o && o->max_backoff_ms)
        s.cfg.max_backoff_ms = o->max_backoff_ms;
    if (o && o->max_bytes)
        s.cfg.max_response_bytes = o->max_bytes;
    if (o && o->timeout_s)
        s.cfg.timeout_s = o->timeout_s;
    if (o && o->key)
        s.cfg.api_key = o->key;
    session_connect(&s);
    int64_t t0 = os_now_ms();
    out->e = llm_complete(s.c, &s.conv, test_tools, N_TEST_TOOLS, &out->r);
    out->ms = (double)(os_now_ms() - t0);
    snprintf(out->detail, sizeof out->detail, "%s", wa_err_detail());
    out->records = fake_llm_requests(&s.f);
    out->requests = 0;
    const cJSON *rec;
    cJSON_ArrayForEach(rec, out->records)
    {
        const cJSON *prov = cJSON_GetObjectItemCaseSensitive(rec, "provider");
        out->requests += cJSON_IsString(prov);
    }
    out->log = dynbuf_take(&s.cap.log);
    if (getenv("LLM_TEST_VERBOSE"))
        fprintf(stderr, "-> %s (%s) in %.0f ms, %d requests\n%s", wa_err_code(out->e), out->detail,
                out->ms, out->requests, out->log);
    session_close(&s);
}

static void run_cleanup(struct run *r)
{
    llm_reply_cleanup(&r->r);
    free(r->log);
    cJSON_Delete(r->records);
}

static const enum llm_provider_kind both[] = {LLM_PROVIDER_OPENAI, LLM_PROVIDER_GOOGLE};
static const char *pname(enum llm_provider_kind p)
{
    return p == LLM_PROVIDER_OPENAI ? "openai" : "gemini";
}

static void expect_ok(const struct run *r, const char *what)
{
    if (r->e)
        fail_msg("%s: %s: %s", what, wa_err_code(r->e), r->detail);
}

/* Run first: the peak memory of the process is still that of a small program. */
static void huge_body_capped(void **state)
{
    (void)state;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    for (size_t i = 0; i < 2; i++) {
        struct run r;
        /* default cap (32 MiB) against a 50 MB body */
        run_scenario("{'steps':[{'fault':'huge_body','megabytes':50}],'after_end':'repeat_last'}",
                     both[i], false, NULL, &r);
        assert_int_equal(r.e, WA_E_TOO_LARGE);
        assert_non_null(strstr(r.detail, "33554432"));
        assert_int_equal(r.requests, 1); /* not worth another try */
        assert_true(r.ms < 15000);
        run_cleanup(&r);
    }
    getrusage(RUSAGE_SELF, &after);
    /* ru_maxrss is in KiB: the peak grew by about the cap, not by the body */
    long grown_mb = (after.ru_maxrss - before.ru_maxrss) / 1024;
    print_message("peak memory grew by %ld MB\n", grown_mb);
    const char *preload = getenv("LD_PRELOAD");
    bool sanitized = false;
#if defined(__SANITIZE_ADDRESS__)
    sanitized = true; /* ASan quarantines freed blocks: its peak is not ours */
#endif
    if ((preload && strstr(preload, "vgpreload")) || sanitized)
        print_message("under valgrind or ASan: memory bound not checked\n");
    else
        assert_true(grown_mb < 80);

    /* streamed: many valid events, or one endless data line */
    const char *shapes[] = {"chunks", "line"};
    for (size_t i = 0; i < 2; i++)
        for (size_t s = 0; s < 2; s++) {
            char scenario[200];
            snprintf(scenario, sizeof scenario,
                     "{'steps':[{'fault':'huge_body','megabytes':50,'shape':'%s'}]}", shapes[s]);
            struct opts o = {.max_bytes = 4u << 20};
            struct run r;
            run_scenario(scenario, both[i], true, &o, &r);
            if (r.e != WA_E_TOO_LARGE)
                fail_msg("%s %s: %s (%s)", pname(both[i]), shapes[s], wa_err_code(r.e), r.detail);
            assert_int_equal(r.requests, 1);
            run_cleanup(&r);
        }
}

static void retry_after_seconds_honoured(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        struct opts o = {.max_backoff_ms = 5000};
        struct run r;
        run_scenario("{'steps':[{'status':429,'headers':{'Retry-After':'1'}},{'text':'ok'}]}",
                     both[i], i == 1, &o, &r);
        expect_ok(&r, pname(both[i]));
        assert_string_equal(r.r.text, "ok");
        assert_int_equal(r.r.attempts, 2);
        assert_int_equal(r.requests, 2);
        assert_true(r.ms >= 950);
        assert_true(r.r.elapsed_ms >= 950);
        /* the progress line names the status, the reason, the server's words, the wait */
        assert_non_null(strstr(r.log, "llm: HTTP 429 (rate limited: "));
        assert_non_null(strstr(r.log, "), retry 1/3 in 1.0s\n"));
        if (both[i] == LLM_PROVIDER_OPENAI)
            assert_non_null(strstr(r.log, "Rate limit reached for requests per min"));
        run_cleanup(&r);
    }
}

static void retry_after_ms_and_retry_info(void **state)
{
    (void)state;
    struct opts o = {.max_backoff_ms = 5000};
    struct run r;
    /* 700 ms: longer than any plain backoff would be at the first retry (250-500) */
    run_scenario("{'steps':[{'status':429,'retry_after_ms':700},{'text':'ok'}]}",
                 LLM_PROVIDER_OPENAI, true, &o, &r);
    expect_ok(&r, "retry-after-ms");
    assert_true(r.ms >= 690 && r.ms < 3000);
    assert_non_null(strstr(r.log, "retry 1/3 in 0.7s"));
    run_cleanup(&r);

    run_scenario("{'steps':[{'status':429,'retry_delay':'0.8s','quota':'minute'},{'text':'ok'}]}",
                 LLM_PROVIDER_GOOGLE, false, &o, &r);
    expect_ok(&r, "RetryInfo");
    assert_true(r.ms >= 790 && r.ms < 3000);
    assert_non_null(strstr(r.log, "retry 1/3 in 0.8s"));
    run_cleanup(&r);

    /* a wait longer than we are willing to sleep fails at once, saying so */
    run_scenario("{'steps':[{'status':429,'headers':{'Retry-After':'120'}},{'text':'ok'}]}",
                 LLM_PROVIDER_OPENAI, false, &o, &r);
    assert_int_equal(r.e, WA_E_RATE_LIMITED);
    assert_int_equal(r.requests, 1);
    assert_non_null(strstr(r.detail, "server asks to wait 120s"));
    run_cleanup(&r);
}

static void hard_quota_fails_fast(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++)
        for (int stream = 0; stream < 2; stream++) {
            struct run r;
            run_scenario("{'steps':[{'status':429,'quota':'daily','retry_delay':'30s'}],"
                         "'after_end':'repeat_last'}",
                         both[i], stream, NULL, &r);
            assert_int_equal(r.e, WA_E_QUOTA);
            assert_int_equal(r.requests, 1);
            assert_int_equal(r.r.attempts, 1);
            assert_int_equal(r.r.http_status, 429);
            assert_non_null(strstr(r.detail, "HTTP 429 (quota exhausted: You exceeded your "
                                             "current quota"));
            run_cleanup(&r);
        }
}

static void server_errors_then_give_up(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        struct opts o = {.max_backoff_ms = 20};
        struct run r;
        run_scenario("{'steps':[{'status':500}],'after_end':'repeat_last'}", both[i], i == 0, &o,
                     &r);
        assert_int_equal(r.e, WA_E_HTTP); /* the CLI maps LLM errors to exit code 2 */
        assert_int_equal(r.requests, 4);  /* the first try and max_retries (3) more */
        assert_int_equal(r.r.attempts, 4);
        assert_int_equal(r.r.http_status, 500);
        assert_non_null(strstr(r.detail, "HTTP 500 (server error: "));
        assert_non_null(strstr(r.detail, "gave up after 4 attempts"));
        assert_non_null(strstr(r.log, "retry 3/3"));
        assert_null(strstr(r.log, "retry 4/3"));
        assert_true(r.ms < 5000);
        run_cleanup(&r);
    }
    /* every transient status is retried; a client error is not */
    struct opts o = {.max_retries = 6, .max_backoff_ms = 10};
    struct run r;
    run_scenario("{'steps':[{'status':503},{'status':502},{'status':504},{'status':408},"
                 "{'status':409},{'status':429},{'text':'finally'}]}",
                 LLM_PROVIDER_OPENAI, false, &o, &r);
    expect_ok(&r, "transient statuses");
    assert_int_equal(r.r.attempts, 7);
    run_cleanup(&r);
    run_scenario("{'steps':[{'status':400},{'text':'never'}]}", LLM_PROVIDER_GOOGLE, false, &o, &r);
    assert_int_equal(r.e, WA_E_HTTP);
    assert_int_equal(r.requests, 1);
    assert_non_null(strstr(r.detail, "HTTP 400 (bad request: Request contains an invalid "
                                     "argument. [INVALID_ARGUMENT])"));
    run_cleanup(&r);
}

/* Dropped connections, before the response or mid-stream, and bodies cut short of
 * their Content-Length are all retried; the reply after them is whole. */
static void dropped_and_truncated_retried(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++)
        for (int stream = 0; stream < 2; stream++) {
            struct run r;
            run_scenario("{'steps':[{'fault':'drop_before_response'},"
                         "{'fault':'drop_before_response','rst':true},"
                         "{'fault':'drop_mid_stream','after_chunks':2,'text':'This is cut off.'},"
                         "{'fault':'truncated_json','text':'Truncated.'},"
                         "{'text':'Recovered.'}]}",
                         both[i], stream, &(struct opts){.max_retries = 4}, &r);
            if (r.e)
                fail_msg("%s %s: %s: %s", pname(both[i]), stream ? "stream" : "whole",
                         wa_err_code(r.e), r.detail);
            assert_string_equal(r.r.text, "Recovered.");
            assert_int_equal(r.r.attempts, 5);
            assert_non_null(strstr(r.log, "retry 1/4"));
            assert_non_null(strstr(r.log, "retry 4/4"));
            run_cleanup(&r);
        }
}

static void error_mid_stream_retried(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++)
        for (int stream = 0; stream < 2; stream++) {
            struct run r;
            run_scenario("{'steps':[{'fault':'error_mid_stream','after_chunks':2,"
                         "'text':'Partial answer that fails.'},{'text':'Second try.'}]}",
                         both[i], stream, NULL, &r);
            expect_ok(&r, pname(both[i]));
            assert_string_equal(r.r.text, "Second try.");
            assert_int_equal(r.r.attempts, 2);
            assert_non_null(strstr(r.log, "server error"));
            run_cleanup(&r);
            /* and when it keeps failing, the server's message is the error */
            run_scenario("{'steps':[{'fault':'error_mid_stream','after_chunks':1,'text':'x y'}],"
                         "'after_end':'repeat_last'}",
                         both[i], stream, &(struct opts){.max_retries = 1}, &r);
            assert_int_equal(r.e, WA_E_HTTP);
            assert_int_equal(r.requests, 2);
            assert_true(strstr(r.detail, "failed mid-stream") ||
                        strstr(r.detail, "internal error"));
            run_cleanup(&r);
        }
}

/* A stream that ends cleanly but before the reply did (no finish, no [DONE]; or no
 * body at all) is retried like a dropped connection. */
static void stream_ending_early_retried(void **state)
{
    (void)state;
    static const char *const scenarios[] = {
        "{'steps':[{'fault':'raw','data':'HTTP/1.1 200 OK\\r\\nContent-Type: text/event-stream"
        "\\r\\nContent-Length: 0\\r\\n\\r\\n'},{'text':'ok'}]}",
        "{'steps':[{'fault':'raw','data':'HTTP/1.1 200 OK\\r\\nContent-Type: text/event-stream"
        "\\r\\n\\r\\ndata: {\\'choices\\':[{\\'delta\\':{\\'content\\':\\'cut\\'}}],"
        "\\'candidates\\':[{\\'content\\':{\\'parts\\':[{\\'text\\':\\'cut\\'}]}}]}"
        "\\n\\n'},{'text':'ok'}]}",
    };
    for (size_t i = 0; i < 2; i++)
        for (size_t s = 0; s < 2; s++) {
            struct run r;
            run_scenario(scenarios[s], both[i], true, NULL, &r);
            if (r.e)
                fail_msg("%s #%zu: %s (%s)", pname(both[i]), s, wa_err_code(r.e), r.detail);
            assert_string_equal(r.r.text, "ok");
            assert_int_equal(r.r.attempts, 2);
            assert_non_null(strstr(r.log, "stream ended before the reply was complete"));
            run_cleanup(&r);
        }
}

/* A body that arrived whole but is not JSON will not improve: WA_E_PARSE at once. */
static void complete_but_malformed_not_retried(void **state)
{
    (void)state;
    static const char *const scenarios[] = {
        "{'steps':[{'fault':'raw','data':'HTTP/1.1 200 OK\\r\\nContent-Type: application/json"
        "\\r\\nContent-Length: 11\\r\\n\\r\\n{\\'choices\\':'}],'after_end':'repeat_last'}",
        "{'steps':[{'fault':'raw','data':'HTTP/1.1 200 OK\\r\\nContent-Type: text/event-stream"
        "\\r\\nContent-Length: 14\\r\\n\\r\\ndata: {\\'cand\\n\\n'}],'after_end':'repeat_last'}",
    };
    for (size_t i = 0; i < 2; i++)
        for (size_t s = 0; s < 2; s++) {
            struct run r;
            run_scenario(scenarios[s], both[i], s == 1, NULL, &r);
            if (r.e != WA_E_PARSE)
                fail_msg("%s #%zu: %s (%s)", pname(both[i]), s, wa_err_code(r.e), r.detail);
            assert_int_equal(r.requests, 1);
            assert_non_null(strstr(r.detail, "not valid JSON"));
            run_cleanup(&r);
        }
}

static void key_never_leaks(void **state)
{
    (void)state;
    static const char *const scenarios[] = {
        /* servers that echo the key back in their error */
        "{'steps':[{'status':401,'body':{'error':{'message':'Incorrect API key provided: " TEST_KEY
        "','type':'invalid_request_error','code':'invalid_api_key'}}}]}",
        "{'steps':[{'status':503,'body':'upstream said " TEST_KEY " was bad'}],"
        "'after_end':'repeat_last'}",
        "{'steps':[{'fault':'raw','data':'HTTP/1.1 200 OK\\r\\nContent-Type: text/event-stream"
        "\\r\\n\\r\\ndata: {\\'error\\':{\\'message\\':\\'key " TEST_KEY
        " revoked\\',\\'code\\':400}}\\n\\n'}]}",
    };
    for (size_t i = 0; i < 2; i++)
        for (size_t s = 0; s < 3; s++) {
            struct opts o = {.max_retries = 1};
            struct run r;
            run_scenario(scenarios[s], both[i], s == 2, &o, &r);
            assert_int_not_equal(r.e, WA_E_OK);
            /* the key was used... */
            const char *h = fake_llm_header(
                r.records, 0, both[i] == LLM_PROVIDER_OPENAI ? "Authorization" : "x-goog-api-key");
            assert_non_null(h);
            assert_non_null(strstr(h, TEST_KEY));
            /* ...and is nowhere in the error or the log, though both name the request */
            if (strstr(r.detail, "SECRET") || strstr(r.log, "SECRET"))
                fail_msg("key leaked: detail \"%s\" log:\n%s", r.detail, r.log);
            assert_non_null(strstr(r.detail, "[redacted]"));
            assert_non_null(strstr(r.log, "llm: request POST http://127.0.0.1:"));
            assert_non_null(strstr(r.log, both[i] == LLM_PROVIDER_OPENAI
                                              ? "Authorization: (redacted)"
                                              : "x-goog-api-key: (redacted)"));
            run_cleanup(&r);
        }
}

static void refused_and_timeout(void **state)
{
    (void)state;
    /* a port nobody listens on: retried as a transient failure, then a network error */
    struct fake_llm f;
    assert_true(fake_llm_start(&f, "{'steps':[]}"));
    char url[128];
    struct capture cap;
    capture_init(&cap);
    struct llm_config cfg = test_config(&f, LLM_PROVIDER_OPENAI, false, &cap, url, sizeof url);
    fake_llm_stop(&f);
    cfg.max_retries = 2;
    struct llm_client *c;
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_OK);
    struct llm_conversation conv;
    test_conversation(&conv);
    struct llm_reply r;
    assert_int_equal(llm_complete(c, &conv, NULL, 0, &r), WA_E_NETWORK);
    assert_int_equal(r.attempts, 3);
    assert_int_equal(r.http_status, 0);
    assert_non_null(strstr(wa_err_detail(), "connection failed"));
    llm_reply_cleanup(&r);
    llm_conversation_cleanup(&conv);
    llm_client_free(c);
    capture_cleanup(&cap);

    /* a server slower than the whole-transfer timeout */
    struct opts o = {.max_retries = -1, .timeout_s = 1};
    struct run run;
    run_scenario("{'steps':[{'fault':'slow','delay_s':5}]}", LLM_PROVIDER_GOOGLE, true, &o, &run);
    assert_int_equal(run.e, WA_E_TIMEOUT);
    assert_int_equal(run.requests, 1);
    assert_true(run.ms >= 900 && run.ms < 3000);
    run_cleanup(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(huge_body_capped),
        cmocka_unit_test(retry_after_seconds_honoured),
        cmocka_unit_test(retry_after_ms_and_retry_info),
        cmocka_unit_test(hard_quota_fails_fast),
        cmocka_unit_test(server_errors_then_give_up),
        cmocka_unit_test(dropped_and_truncated_retried),
        cmocka_unit_test(error_mid_stream_retried),
        cmocka_unit_test(stream_ending_early_retried),
        cmocka_unit_test(complete_but_malformed_not_retried),
        cmocka_unit_test(key_never_leaks),
        cmocka_unit_test(refused_and_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
