/* Unit tests: JSON Schema -> Gemini's accepted subset. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "llm/formats/schema.h"

/* Converts schema text and returns the result as compact JSON (free it). */
static char *convert(const char *text)
{
    cJSON *in = cJSON_Parse(text);
    assert_non_null(in);
    cJSON *out = schema_to_gemini(in);
    assert_non_null(out);
    char *s = cJSON_PrintUnformatted(out);
    cJSON_Delete(in);
    cJSON_Delete(out);
    return s;
}

/* Keywords Gemini rejects must appear nowhere in the result. */
static void assert_clean(const char *json)
{
    static const char *const banned[] = {
        "additionalProperties", "$schema",  "\"const\"", "$ref", "$defs", "oneOf", "allOf",
        "\"default\"",          "examples", "\"not\""};
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
        if (strstr(json, banned[i]))
            fail_msg("%s still in %s", banned[i], json);
}

static void desktop_like_tool(void **state)
{
    (void)state;
    char *s = convert("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                      "\"type\":\"object\",\"additionalProperties\":false,"
                      "\"properties\":{"
                      "\"action\":{\"type\":\"string\",\"enum\":[\"click\",\"type\"],"
                      "\"description\":\"what to do\"},"
                      "\"x\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":999},"
                      "\"mode\":{\"const\":\"auto\"},"
                      "\"url\":{\"type\":\"string\",\"format\":\"uri\"},"
                      "\"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
                      "\"amount\":{\"type\":\"integer\",\"enum\":[1,2,3],\"default\":3}},"
                      "\"required\":[\"action\",\"ghost\"]}");
    assert_clean(s);
    assert_string_equal(
        s, "{\"properties\":{"
           "\"action\":{\"description\":\"what to do\",\"enum\":[\"click\",\"type\"],"
           "\"type\":\"STRING\"},"
           "\"x\":{\"minimum\":0,\"maximum\":999,\"type\":\"INTEGER\"},"
           "\"mode\":{\"enum\":[\"auto\"],\"type\":\"STRING\"},"
           "\"url\":{\"type\":\"STRING\"},"
           "\"when\":{\"type\":\"STRING\",\"format\":\"date-time\"},"
           "\"amount\":{\"description\":\"Allowed values: 1, 2, 3.\",\"type\":\"INTEGER\"}},"
           "\"required\":[\"action\"],\"type\":\"OBJECT\"}");
    cJSON_free(s);
}

static void nullable_and_type_lists(void **state)
{
    (void)state;
    char *s = convert("{\"type\":[\"string\",\"null\"]}");
    assert_string_equal(s, "{\"nullable\":true,\"type\":\"STRING\"}");
    cJSON_free(s);
    s = convert("{\"type\":[\"string\",\"integer\"]}");
    assert_string_equal(s, "{\"anyOf\":[{\"type\":\"STRING\"},{\"type\":\"INTEGER\"}]}");
    cJSON_free(s);
    s = convert("{\"anyOf\":[{\"type\":\"number\"},{\"type\":\"null\"}]}");
    assert_string_equal(s, "{\"nullable\":true,\"type\":\"NUMBER\"}");
    cJSON_free(s);
    s = convert("{\"enum\":[\"a\",null]}");
    assert_string_equal(s, "{\"nullable\":true,\"enum\":[\"a\"],\"type\":\"STRING\"}");
    cJSON_free(s);
}

static void one_of_becomes_any_of(void **state)
{
    (void)state;
    char *s = convert("{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
                      "\"boolean\"}},\"additionalProperties\":false},{\"type\":\"array\"}]}");
    assert_clean(s);
    assert_string_equal(s, "{\"anyOf\":[{\"properties\":{\"a\":{\"type\":\"BOOLEAN\"}},"
                           "\"type\":\"OBJECT\"},"
                           "{\"type\":\"ARRAY\",\"items\":{\"type\":\"STRING\"}}]}");
    cJSON_free(s);
}

static void refs_and_all_of(void **state)
{
    (void)state;
    char *s = convert("{\"type\":\"object\",\"$defs\":{\"pt\":{\"type\":\"object\","
                      "\"properties\":{\"x\":{\"type\":\"number\"}},\"required\":[\"x\"]}},"
                      "\"properties\":{\"p\":{\"$ref\":\"#/$defs/pt\",\"description\":\"a point\"},"
                      "\"q\":{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{}}},"
                      "{\"properties\":{\"b\":{\"type\":\"integer\"}},\"required\":[\"b\"]}]},"
                      "\"bad\":{\"$ref\":\"#/nowhere\"}}}");
    assert_clean(s);
    assert_string_equal(s,
                        "{\"properties\":{"
                        "\"p\":{\"properties\":{\"x\":{\"type\":\"NUMBER\"}},"
                        "\"required\":[\"x\"],\"type\":\"OBJECT\",\"description\":\"a point\"},"
                        "\"q\":{\"properties\":{\"a\":{\"type\":\"STRING\"},"
                        "\"b\":{\"type\":\"INTEGER\"}},\"type\":\"OBJECT\",\"required\":[\"b\"]},"
                        "\"bad\":{\"type\":\"OBJECT\"}},\"type\":\"OBJECT\"}");
    cJSON_free(s);
}

static void recursive_ref_terminates(void **state)
{
    (void)state;
    char *s = convert("{\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"child\":"
                      "{\"$ref\":\"#/$defs/node\"}}}},\"$ref\":\"#/$defs/node\"}");
    assert_clean(s);
    assert_non_null(strstr(s, "\"child\""));
    cJSON_free(s);
}

static void empty_objects_and_arrays(void **state)
{
    (void)state;
    /* Gemini rejects an empty properties object and an array without items. */
    char *s = convert("{\"type\":\"object\",\"properties\":{},\"required\":[]}");
    assert_string_equal(s, "{\"type\":\"OBJECT\"}");
    cJSON_free(s);
    s = convert("{\"type\":\"array\",\"items\":[{\"type\":\"integer\"}],\"minItems\":1,"
                "\"uniqueItems\":true}");
    assert_string_equal(s, "{\"items\":{\"type\":\"INTEGER\"},\"minItems\":1,\"type\":\"ARRAY\"}");
    cJSON_free(s);
    s = convert("{\"description\":\"anything\"}");
    assert_string_equal(s, "{\"description\":\"anything\",\"type\":\"STRING\"}");
    cJSON_free(s);
}

static void enum_of_booleans_in_description(void **state)
{
    (void)state;
    char *s = convert("{\"type\":\"boolean\",\"description\":\"Flag.\",\"enum\":[true]}");
    assert_string_equal(s,
                        "{\"description\":\"Flag. Allowed values: true.\",\"type\":\"BOOLEAN\"}");
    cJSON_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(desktop_like_tool),
        cmocka_unit_test(nullable_and_type_lists),
        cmocka_unit_test(one_of_becomes_any_of),
        cmocka_unit_test(refs_and_all_of),
        cmocka_unit_test(recursive_ref_terminates),
        cmocka_unit_test(empty_objects_and_arrays),
        cmocka_unit_test(enum_of_booleans_in_description),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
