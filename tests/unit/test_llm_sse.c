/* Unit tests: the server-sent-events parser, fed whole and split at every byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynbuf.h"
#include "llm/sse.h"

/* Collects events as "event|data\n" lines. */
struct sink {
    struct dynbuf out;
    int count;
    int fail_at; /* return an error on this event (1-based), 0: never */
};

static wa_err collect(void *ctx, const char *event, char *data, size_t len)
{
    struct sink *s = ctx;
    s->count++;
    if (s->fail_at && s->count == s->fail_at)
        return wa_fail(WA_E_PARSE, "stop here");
    assert_int_equal(strlen(data), len);
    dynbuf_addf(&s->out, "%s|%s\n", event, data);
    return WA_E_OK;
}

/* Parses text fed in pieces cut at `cuts` positions (sorted); returns the events. */
static char *parse_split(const char *text, size_t len, const size_t *cuts, size_t n_cuts)
{
    struct sink s = {.fail_at = 0};
    dynbuf_init(&s.out, 1 << 20);
    struct sse_parser p;
    sse_init(&p, 4096, collect, &s);
    size_t at = 0;
    for (size_t i = 0; i <= n_cuts; i++) {
        size_t end = cuts && i < n_cuts ? cuts[i] : len;
        assert_int_equal(sse_feed(&p, text + at, end - at), WA_E_OK);
        at = end;
    }
    assert_int_equal(sse_finish(&p), WA_E_OK);
    sse_cleanup(&p);
    return dynbuf_take(&s.out);
}

static const char stream[] = "\xEF\xBB\xBF"
                             ": keep-alive comment\r\n"
                             "\r\n"
                             "data: {\"a\":1}\r\n"
                             "\r\n"
                             "event: error\n"
                             "data: line one\n"
                             "data:line two\n"
                             "id: 7\n"
                             "retry: 100\n"
                             "\n"
                             ":comment only\r"
                             "data: cr only\r"
                             "\r"
                             "data\n"
                             "\n"
                             "data: [DONE]\n"
                             "\n"
                             "data: tail without blank line";

static const char expected[] = "|{\"a\":1}\n"
                               "error|line one\nline two\n"
                               "|cr only\n"
                               "|\n"
                               "|[DONE]\n"
                               "|tail without blank line\n";

static void whole_stream(void **state)
{
    (void)state;
    char *got = parse_split(stream, sizeof stream - 1, NULL, 0);
    assert_string_equal(got, expected);
    free(got);
}

static void split_at_every_byte(void **state)
{
    (void)state;
    size_t len = sizeof stream - 1;
    for (size_t cut = 0; cut <= len; cut++) {
        char *got = parse_split(stream, len, &cut, 1);
        if (strcmp(got, expected) != 0)
            fail_msg("cut at %zu gave:\n%s", cut, got);
        free(got);
    }
    /* and every pair of cuts, so a CRLF or the BOM can be split three ways */
    for (size_t a = 0; a <= len; a += 3)
        for (size_t b = a; b <= len; b++) {
            size_t cuts[2] = {a, b};
            char *got = parse_split(stream, len, cuts, 2);
            if (strcmp(got, expected) != 0)
                fail_msg("cuts at %zu,%zu gave:\n%s", a, b, got);
            free(got);
        }
}

static void one_byte_at_a_time(void **state)
{
    (void)state;
    size_t len = sizeof stream - 1;
    size_t *cuts = malloc(len * sizeof *cuts);
    for (size_t i = 0; i < len; i++)
        cuts[i] = i;
    char *got = parse_split(stream, len, cuts, len);
    assert_string_equal(got, expected);
    free(got);
    free(cuts);
}

static void not_a_bom(void **state)
{
    (void)state;
    /* Bytes that start like a BOM but are not one stay ordinary text. */
    static const char text[] = "\xEF\xBB"
                               "data: x\n\ndata: y\n\n";
    char *got = parse_split(text, sizeof text - 1, NULL, 0);
    assert_string_equal(got, "|y\n");
    free(got);
}

static void callback_error_stops(void **state)
{
    (void)state;
    struct sink s = {.fail_at = 2};
    dynbuf_init(&s.out, 1024);
    struct sse_parser p;
    sse_init(&p, 4096, collect, &s);
    static const char text[] = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
    assert_int_equal(sse_feed(&p, text, sizeof text - 1), WA_E_PARSE);
    assert_string_equal(wa_err_detail(), "stop here");
    assert_int_equal(s.count, 2);
    assert_int_not_equal(sse_feed(&p, "data: 4\n\n", 9), WA_E_OK);
    sse_cleanup(&p);
    dynbuf_cleanup(&s.out);
}

static void line_cap(void **state)
{
    (void)state;
    struct sink s = {0};
    dynbuf_init(&s.out, 1024);
    struct sse_parser p;
    sse_init(&p, 64, collect, &s);
    char big[200];
    memset(big, 'A', sizeof big);
    assert_int_equal(sse_feed(&p, "data: ", 6), WA_E_OK);
    /* A line with no end that keeps growing is refused at the cap, in pieces or not. */
    wa_err e = WA_E_OK;
    for (int i = 0; i < 4 && !e; i++)
        e = sse_feed(&p, big, 20);
    assert_int_equal(e, WA_E_TOO_LARGE);
    sse_cleanup(&p);
    /* So is an event whose data lines add up past it. */
    sse_init(&p, 64, collect, &s);
    e = WA_E_OK;
    for (int i = 0; i < 10 && !e; i++)
        e = sse_feed(&p, "data: 0123456789\n", 17);
    assert_int_equal(e, WA_E_TOO_LARGE);
    assert_int_equal(s.count, 0);
    sse_cleanup(&p);
    dynbuf_cleanup(&s.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_stream),         cmocka_unit_test(split_at_every_byte),
        cmocka_unit_test(one_byte_at_a_time),   cmocka_unit_test(not_a_bom),
        cmocka_unit_test(callback_error_stops), cmocka_unit_test(line_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
