/* Unit tests: base64 against RFC 4648's vectors, malformed input, round trips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/base64.h"
#include "automation/image/image.h"
#include "synth_image.h"

static const char *const vectors[][2] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};

static void rfc4648_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        struct dynbuf b;
        dynbuf_init(&b, 1024);
        assert_int_equal(base64_encode(vectors[i][0], strlen(vectors[i][0]), &b), WA_E_OK);
        assert_string_equal(dynbuf_str(&b), vectors[i][1]);
        dynbuf_reset(&b);
        assert_int_equal(base64_decode(vectors[i][1], strlen(vectors[i][1]), &b), WA_E_OK);
        assert_int_equal(b.len, strlen(vectors[i][0]));
        assert_memory_equal(dynbuf_str(&b), vectors[i][0], b.len);
        dynbuf_cleanup(&b);
    }
}

static void all_alphabet_and_appends(void **state)
{
    (void)state;
    uint8_t bytes[48]; /* the sextets 0..63 in order, packed */
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (uint32_t v = 0; v < 64; v++) {
        acc = acc << 6 | v;
        for (bits += 6; bits >= 8; bits -= 8)
            bytes[n++] = (uint8_t)(acc >> (bits - 8));
    }
    assert_int_equal(n, sizeof bytes);
    struct dynbuf b;
    dynbuf_init(&b, 1024);
    assert_int_equal(dynbuf_adds(&b, "data:"), WA_E_OK); /* appends, keeps what was there */
    assert_int_equal(base64_encode(bytes, sizeof bytes, &b), WA_E_OK);
    assert_string_equal(dynbuf_str(&b),
                        "data:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
    dynbuf_cleanup(&b);
}

static void decode_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "Zm9v!",    /* not in the alphabet */
        "Zm9v-_",   /* the URL-safe alphabet is not standard base64 */
        "Z",        /* one character cannot hold a byte */
        "Zm9vY",    /* likewise after whole groups */
        "Zg=",      /* incomplete padding */
        "Zg===",    /* too much padding */
        "=Zg=",     /* padding first */
        "Zg==Zg==", /* data after padding */
        "Zm9=v",    /* data after padding */
        "Zh==",     /* non-zero bits in the padding */
        "Zm9=",     /* likewise, 2 bytes */
        "Zm\x80v",  /* high bytes */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct dynbuf b;
        dynbuf_init(&b, 1024);
        assert_int_equal(dynbuf_adds(&b, "x"), WA_E_OK);
        if (base64_decode(bad[i], strlen(bad[i]), &b) != WA_E_PARSE)
            fail_msg("\"%s\" was accepted", bad[i]);
        assert_string_equal(dynbuf_str(&b), "x"); /* unchanged on failure */
        dynbuf_cleanup(&b);
    }
    /* A NUL inside the given length is a bad character, not the end. */
    struct dynbuf b;
    dynbuf_init(&b, 1024);
    assert_int_equal(base64_decode("Zm9v\0Zm9v", 9, &b), WA_E_PARSE);
    dynbuf_cleanup(&b);
}

static void whitespace_and_missing_padding(void **state)
{
    (void)state;
    struct dynbuf b;
    dynbuf_init(&b, 1024);
    const char *wrapped = " Zm9v\r\nYmFy\n\tZm9v YmE = \n";
    assert_int_equal(base64_decode(wrapped, strlen(wrapped), &b), WA_E_OK);
    assert_string_equal(dynbuf_str(&b), "foobarfooba");
    dynbuf_reset(&b);
    assert_int_equal(base64_decode("Zm9vYg", 6, &b), WA_E_OK); /* unpadded end */
    assert_string_equal(dynbuf_str(&b), "foob");
    dynbuf_reset(&b);
    assert_int_equal(base64_decode(" \n ", 3, &b), WA_E_OK);
    assert_int_equal(b.len, 0);
    dynbuf_cleanup(&b);
}

static void random_round_trips(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    size_t max = 100003;
    uint8_t *data = malloc(max);
    assert_non_null(data);
    for (size_t i = 0; i < max; i++)
        data[i] = (uint8_t)synth_rand(&seed);
    static const size_t lens[] = {0, 1, 2, 3, 4, 5, 6, 7, 100, 3071, 3072, 3073, 4096, 100003};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        struct dynbuf text, back;
        dynbuf_init(&text, 1 << 20);
        dynbuf_init(&back, 1 << 20);
        assert_int_equal(base64_encode(data, lens[i], &text), WA_E_OK);
        assert_int_equal(text.len, (lens[i] + 2) / 3 * 4);
        assert_int_equal(base64_decode(text.data ? text.data : "", text.len, &back), WA_E_OK);
        assert_int_equal(back.len, lens[i]);
        if (lens[i])
            assert_memory_equal(back.data, data, lens[i]);
        dynbuf_cleanup(&text);
        dynbuf_cleanup(&back);
    }
    free(data);
}

static void respects_buffer_cap(void **state)
{
    (void)state;
    struct dynbuf b;
    dynbuf_init(&b, 10);
    assert_int_equal(dynbuf_adds(&b, "ab"), WA_E_OK);
    assert_int_equal(base64_encode("foobar", 6, &b), WA_E_OK); /* 2 + 8 fits */
    assert_int_equal(base64_encode("x", 1, &b), WA_E_TOO_LARGE);
    assert_string_equal(dynbuf_str(&b), "abZm9vYmFy");
    dynbuf_reset(&b);
    uint8_t big[10000] = {0};
    assert_int_equal(base64_encode(big, sizeof big, &b), WA_E_TOO_LARGE);
    assert_int_equal(b.len, 0);
    dynbuf_cleanup(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc4648_vectors),    cmocka_unit_test(all_alphabet_and_appends),
        cmocka_unit_test(decode_errors),      cmocka_unit_test(whitespace_and_missing_padding),
        cmocka_unit_test(random_round_trips), cmocka_unit_test(respects_buffer_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
