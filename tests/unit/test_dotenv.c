/* Unit tests: .env parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "agent/core/config/dotenv.h"

static void parses_what_people_write(void **state)
{
    (void)state;
    struct dotenv d;
    dotenv_init(&d);
    assert_int_equal(dotenv_parse(&d, "\xEF\xBB\xBF"
                                      "LLM_PROVIDER=google\r\n"
                                      "# a comment\r\n"
                                      "\r\n"
                                      "  export LLM_MODEL = gemini-2.5-flash  # trailing\n"
                                      "LLM_API_KEY=\"k\\\"ey#1\"\n"
                                      "SINGLE='lit\\n eral'\n"
                                      "EMPTY=\n"
                                      "URL=http://h/x#frag\n"
                                      "LLM_PROVIDER=openai-compatible\n"
                                      "UTF=héllo wörld"),
                     WA_E_OK);
    assert_string_equal(dotenv_get(&d, "LLM_PROVIDER"), "openai-compatible");
    assert_string_equal(dotenv_get(&d, "LLM_MODEL"), "gemini-2.5-flash");
    assert_string_equal(dotenv_get(&d, "LLM_API_KEY"), "k\"ey#1");
    assert_string_equal(dotenv_get(&d, "SINGLE"), "lit\\n eral");
    assert_string_equal(dotenv_get(&d, "EMPTY"), "");
    assert_string_equal(dotenv_get(&d, "URL"), "http://h/x#frag");
    assert_string_equal(dotenv_get(&d, "UTF"), "héllo wörld");
    assert_null(dotenv_get(&d, "MISSING"));
    assert_int_equal(d.count, 7);
    dotenv_cleanup(&d);
}

static void bad_lines_name_their_number(void **state)
{
    (void)state;
    struct dotenv d;
    dotenv_init(&d);
    assert_int_equal(dotenv_parse(&d, "A=1\nthis is not a pair\n"), WA_E_CONFIG);
    assert_non_null(strstr(wa_err_detail(), "line 2"));
    dotenv_cleanup(&d);
    dotenv_init(&d);
    assert_int_equal(dotenv_parse(&d, " =x\n"), WA_E_CONFIG);
    dotenv_cleanup(&d);
    dotenv_init(&d);
    assert_int_equal(dotenv_load(&d, "/nonexistent/.env"), WA_E_IO);
    dotenv_cleanup(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_what_people_write),
        cmocka_unit_test(bad_lines_name_their_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
