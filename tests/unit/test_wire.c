/* JSON at the edges: what models and clients send becomes a typed request, bad input
 * is refused with a message that names the problem, and every result has one shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/core/request/ops.h"
#include "agent/core/request/request.h"
#include "agent/core/request/wire.h"

/* Parses json with the model's names (op from "action"); the error, request kept. */
static wa_err model(const char *json, struct op_request *q)
{
    return wire_request_text(json, WIRE_MODEL, NULL, q);
}

static wa_err cli(const char *op, const char *json, struct op_request *q)
{
    const struct op_def *d = op_by_cli(op);
    assert_non_null(d);
    return wire_request_text(json, WIRE_CLI, d, q);
}

/* The request is refused as invalid_args with a message that mentions fragment. */
static void refused(const char *json, wa_err got, struct op_request *q, const char *fragment)
{
    if (got != WA_E_INVALID_ARGS)
        fail_msg("%s: %s, not invalid_args", json, wa_err_code(got));
    if (!strstr(wa_err_detail(), fragment))
        fail_msg("%s: error \"%s\" does not mention \"%s\"", json, wa_err_detail(), fragment);
    op_request_cleanup(q);
}

static void bad_model(const char *json, const char *fragment)
{
    struct op_request q;
    refused(json, model(json, &q), &q, fragment);
}

static void bad_cli(const char *op, const char *json, const char *fragment)
{
    struct op_request q;
    refused(json, cli(op, json, &q), &q, fragment);
}

static void what_models_send(void **state)
{
    (void)state;
    struct op_request q;
    assert_int_equal(model("{\"action\":\"left_click\",\"coordinate\":[500,300]}", &q), WA_E_OK);
    assert_int_equal(q.op->id, OP_CLICK);
    assert_int_equal(q.x, 500);
    assert_int_equal(q.y, 300);
    op_request_cleanup(&q);

    /* numbers as strings and floats, unknown keys of the model's own */
    assert_int_equal(model("{\"action\":\"click\",\"x\":\"250\",\"y\":99.6,\"reason\":\"ok\"}", &q),
                     WA_E_OK);
    assert_int_equal(q.x, 250);
    assert_int_equal(q.y, 100);
    op_request_cleanup(&q);

    /* some models name the action "type" */
    assert_int_equal(model("{\"type\":\"double_click\",\"element\":4}", &q), WA_E_OK);
    assert_int_equal(q.op->id, OP_DOUBLE_CLICK);
    assert_int_equal(q.element.kind, EREF_ID);
    assert_int_equal(q.element.id, 4);
    op_request_cleanup(&q);

    assert_int_equal(model("{\"action\":\"key\",\"keys\":[\"ctrl\",\"s\"]}", &q), WA_E_OK);
    assert_string_equal(q.keys, "ctrl+s");
    op_request_cleanup(&q);

    assert_int_equal(model("{\"action\":\"type\",\"text\":\"h\\u00e9llo \\u4e16\\u754c\"}", &q),
                     WA_E_OK);
    assert_string_equal(q.text, "h\xc3\xa9llo \xe4\xb8\x96\xe7\x95\x8c");
    op_request_cleanup(&q);
}

#define KEYS_20  "ctrl+shift+alt+win+a"
#define KEYS_200 KEYS_20 KEYS_20 KEYS_20 KEYS_20 KEYS_20 KEYS_20 KEYS_20 KEYS_20 KEYS_20 KEYS_20

static void bad_model_calls(void **state)
{
    (void)state;
    bad_model("{\"action\":\"teleport\"}", "click");
    bad_model("{\"x\":1}", "click"); /* no action: the valid ones are listed */
    bad_model("[1,2]", "JSON object");
    bad_model("{\"action\":\"click\",", "not valid JSON");
    bad_model("{\"action\":\"click\",\"coordinate\":[1]}", "[x, y]");
    bad_model("{\"action\":\"click\",\"x\":1000,\"y\":5}", "x");
    bad_model("{\"action\":\"click\",\"x\":-1,\"y\":5}", "x");
    bad_model("{\"action\":\"click\",\"x\":true,\"y\":5}", "x");
    bad_model("{\"action\":\"scroll\",\"x\":5,\"y\":5,\"direction\":\"sideways\"}", "direction");
    bad_model("{\"action\":\"wait\",\"seconds\":31}", "seconds");
    bad_model("{\"action\":\"type\"}", "text"); /* required */
    /* key names that do not fit are refused at the first one that overflows (the fuzz
     * target's find: the join used to point past its buffer) */
    bad_model("{\"action\":\"key\",\"keys\":[\"" KEYS_200 "\",\"" KEYS_200 "\",\"s\"]}",
              "too many keys");
    bad_model("{\"action\":\"key\",\"keys\":[\"" KEYS_200 "\",\"" KEYS_200 "\",1]}",
              "too many keys");
}

static void what_clients_send(void **state)
{
    (void)state;
    struct op_request q;
    assert_int_equal(cli("click", "{\"ref\":\"@e7\"}", &q), WA_E_OK);
    assert_int_equal(q.element.kind, EREF_ID);
    assert_int_equal(q.element.id, 7);
    op_request_cleanup(&q);

    assert_int_equal(cli("click", "{\"ref\":\"#okButton\"}", &q), WA_E_OK);
    assert_int_equal(q.element.kind, EREF_SELECTOR);
    assert_string_equal(q.element.selector, "#okButton");
    op_request_cleanup(&q);

    /* a window by its handle as a JSON integer, or by a title fragment */
    assert_int_equal(cli("type", "{\"text\":\"x\",\"window\":197632}", &q), WA_E_OK);
    assert_true(q.window.given && q.window.number);
    assert_int_equal(q.window.handle, 197632);
    op_request_cleanup(&q);
    assert_int_equal(cli("type", "{\"text\":\"x\",\"window\":\"0x30044\"}", &q), WA_E_OK);
    assert_true(q.window.number);
    assert_int_equal(q.window.handle, 0x30044);
    op_request_cleanup(&q);
    assert_int_equal(cli("type", "{\"text\":\"x\",\"window\":\"Notepad\"}", &q), WA_E_OK);
    assert_false(q.window.number);
    assert_string_equal(q.window.text, "Notepad");
    op_request_cleanup(&q);

    /* pixels for click-at: no 0-999 limit */
    assert_int_equal(cli("click-at", "{\"x\":1500,\"y\":1000}", &q), WA_E_OK);
    assert_int_equal(q.x, 1500);
    op_request_cleanup(&q);

    /* a clamped value says so */
    assert_int_equal(cli("wait", "{\"visible\":3,\"timeout\":1000}", &q), WA_E_OK);
    assert_true(q.timeout <= 300);
    assert_true(*q.note);
    op_request_cleanup(&q);
}

static void bad_client_calls(void **state)
{
    (void)state;
    bad_cli("click", "{\"ref\":3,\"force\":true}", "force"); /* unknown */
    bad_cli("click", "{}", "ref");                           /* required of the CLI */
    bad_cli("fill", "{\"ref\":3,\"text\":{\"a\":1}}", "text");
    bad_cli("click", "\"click 3\"", "JSON object");
}

/* The one shape: success with op/data/notes; failure with error {code, message}. */
static void result_shape(void **state)
{
    (void)state;
    struct op_result r;
    op_result_init(&r);
    r.op = op_by_cli("click");
    r.err = WA_E_STALE_REF;
    snprintf(r.message, sizeof r.message, "element 3 is gone: run state again");
    struct wire_opts o = {.names = WIRE_CLI};
    cJSON *j = wire_result(&r, &o);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "success")));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "op")->valuestring, "click");
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(j, "error");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(err, "code")->valuestring, "stale_ref");
    assert_non_null(strstr(cJSON_GetObjectItemCaseSensitive(err, "message")->valuestring, "gone"));
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "data"));
    cJSON_Delete(j);
    op_result_cleanup(&r);

    op_result_init(&r);
    r.op = op_by_cli("dblclick");
    o.names = WIRE_MODEL;
    j = wire_result(&r, &o);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "success")));
    /* the model sees its own name of the operation */
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "op")->valuestring, "double_click");
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "error"));
    cJSON_Delete(j);
    op_result_cleanup(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_models_send),  cmocka_unit_test(bad_model_calls),
        cmocka_unit_test(what_clients_send), cmocka_unit_test(bad_client_calls),
        cmocka_unit_test(result_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
