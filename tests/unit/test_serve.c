/* Unit tests: `winagent serve` requests and the folder transport (BOM, half-written
 * files, the handshake, the folder going away) on the scripted fake desktop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/serve.h"
#include "automation/fake/fake_backend.h"
#include "base/os.h"

static const char scene[] =
    "{\"monitors\":[{\"rect\":[0,0,1920,1080],\"primary\":true}],"
    " \"windows\":["
    "  {\"hwnd\":256,\"title\":\"winagent testapp\",\"process\":\"testapp.exe\",\"pid\":7,"
    "   \"rect\":[100,50,1100,850],\"foreground\":true,\"color\":\"#ffffff\","
    "   \"tree\":{\"type\":\"Window\",\"name\":\"winagent testapp\",\"bounds\":[100,50,1100,850],"
    "     \"children\":[{\"type\":\"Button\",\"name\":\"OK\",\"bounds\":[200,70,260,90],"
    "       \"patterns\":[\"invoke\"]}]}}]}";

struct fixture {
    struct ctl *c;
    char dir[128];
    char state_dir[128];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_serve-%lu/ipc", (unsigned long)getpid());
    snprintf(f->state_dir, sizeof f->state_dir, "/tmp/test_serve-%lu/state",
             (unsigned long)getpid());
    struct ctl_opts o = {0};
    o.state_dir = f->state_dir;
    o.gate.max_actions_per_s = 1000;
    assert_int_equal(ctl_new(backend_default(), &o, &f->c), WA_E_OK);
    *state = f;
    return 0;
}

static void remove_tree(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    ctl_free(f->c);
    char root[128];
    snprintf(root, sizeof root, "/tmp/test_serve-%lu", (unsigned long)getpid());
    remove_tree(root);
    free(f);
    return 0;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *error_code(const cJSON *r)
{
    const cJSON *c = get(get(r, "error"), "code");
    return cJSON_IsString(c) ? c->valuestring : "";
}

static cJSON *handle(struct fixture *f, const char *text, const char *token)
{
    cJSON *r = serve_handle(f->c, text, strlen(text), token, "fallback");
    assert_non_null(r);
    const cJSON *ts = get(r, "timestamp");
    assert_true(cJSON_IsString(ts));
    assert_int_equal(strlen(ts->valuestring), 24);
    assert_true(cJSON_IsBool(get(r, "success")));
    assert_non_null(get(r, "data"));
    assert_non_null(get(r, "error"));
    return r;
}

static void test_requests_and_responses(void **state)
{
    struct fixture *f = *state;
    cJSON *r = handle(f, "\xEF\xBB\xBF{\"id\":\"a1\",\"command\":\"windows\"}", NULL);
    assert_string_equal(get(r, "id")->valuestring, "a1");
    assert_true(cJSON_IsTrue(get(r, "success")));
    assert_true(cJSON_IsNull(get(r, "error")));
    assert_true(cJSON_IsObject(get(r, "data")));
    cJSON_Delete(r);

    r = handle(f, "{\"id\":7,\"command\":\"teleport\",\"params\":{}}", NULL);
    assert_int_equal(get(r, "id")->valueint, 7);
    assert_true(cJSON_IsFalse(get(r, "success")));
    assert_true(cJSON_IsNull(get(r, "data")));
    assert_string_equal(error_code(r), "invalid_args");
    cJSON_Delete(r);

    r = handle(f, "{\"id\":\"x\",\"command\":\"state\",\"params\":\"window\"}", NULL);
    assert_string_equal(error_code(r), "invalid_args");
    cJSON_Delete(r);
    r = handle(f, "{\"id\":\"x\",", NULL);
    assert_string_equal(error_code(r), "parse_error");
    assert_string_equal(get(r, "id")->valuestring, "fallback");
    cJSON_Delete(r);

    /* A mutating command with an image: base64 PNG plus its mapping. */
    r = handle(f, "{\"id\":\"s\",\"command\":\"state\",\"params\":{\"window\":\"testapp\"}}", NULL);
    assert_true(cJSON_IsTrue(get(r, "success")));
    cJSON_Delete(r);
    r = handle(f,
               "{\"id\":\"c\",\"command\":\"click\",\"params\":{\"window\":\"testapp\","
               "\"ref\":\"2\",\"screenshot\":true,\"screenshot_delay_ms\":0}}",
               NULL);
    assert_true(cJSON_IsTrue(get(r, "success")));
    assert_string_equal(get(get(r, "window_state"), "hwnd")->valuestring, "0x100");
    const cJSON *img = get(r, "image");
    assert_string_equal(get(img, "mime_type")->valuestring, "image/png");
    assert_int_equal(strncmp(get(img, "data")->valuestring, "iVBORw0KGgo", 11), 0); /* PNG */
    assert_int_equal(get(img, "width")->valueint, 1000);
    cJSON_Delete(r);
}

static void test_token(void **state)
{
    struct fixture *f = *state;
    const char *tok = "0123456789abcdef0123456789abcdef";
    fake_load_scene(scene, NULL);
    cJSON *r = handle(
        f, "{\"id\":1,\"command\":\"keys\",\"params\":{\"window\":\"testapp\",\"keys\":\"enter\"}}",
        tok);
    assert_string_equal(error_code(r), "denied");
    assert_non_null(strstr(get(get(r, "error"), "message")->valuestring, "missing token"));
    cJSON_Delete(r);
    r = handle(f,
               "{\"id\":2,\"token\":\"0123456789abcdef0123456789abcdee\",\"command\":\"keys\","
               "\"params\":{\"window\":\"testapp\",\"keys\":\"enter\"}}",
               tok);
    assert_string_equal(error_code(r), "denied");
    cJSON_Delete(r);
    r = handle(f, "{\"id\":3,\"token\":\"0123\",\"command\":\"windows\"}", tok);
    assert_string_equal(error_code(r), "denied");
    cJSON_Delete(r);
    char *actions = fake_actions_json();
    assert_null(strstr(actions, "press_keys")); /* nothing ran */
    free(actions);

    char ok[256];
    snprintf(ok, sizeof ok,
             "{\"id\":4,\"token\":\"%s\",\"command\":\"keys\",\"params\":{\"window\":\"testapp\","
             "\"keys\":\"enter\"}}",
             tok);
    r = handle(f, ok, tok);
    assert_true(cJSON_IsTrue(get(r, "success")));
    cJSON_Delete(r);
    actions = fake_actions_json();
    assert_non_null(strstr(actions, "press_keys"));
    free(actions);
}

static char *path_in(const struct fixture *f, const char *rel)
{
    static char buf[4][300];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 300, "%s/%s", f->dir, rel);
    return p;
}

static void write_raw(const char *path, const char *text, const char *mode)
{
    FILE *fp = fopen(path, mode);
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static cJSON *read_json(const char *path)
{
    char *text = NULL;
    assert_int_equal(os_read_file(path, 1 << 24, &text, NULL), WA_E_OK);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static void poll_ok(struct serve_ipc *s)
{
    bool gone = true;
    assert_int_equal(serve_ipc_poll(s, &gone), WA_E_OK);
    assert_false(gone);
}

static void test_folder_transport(void **state)
{
    struct fixture *f = *state;
    struct serve_ipc *s;
    assert_int_equal(serve_ipc_open(f->c, f->dir, 300, &s), WA_E_OK);

    cJSON *h = read_json(path_in(f, "handshake.json"));
    assert_true(cJSON_IsTrue(get(h, "ready")));
    assert_int_equal((unsigned long)get(h, "pid")->valuedouble, os_pid());
    assert_true(cJSON_IsString(get(h, "version")));
    assert_true(cJSON_IsString(get(h, "started_at")));
    const cJSON *cap;
    bool has_click = false;
    cJSON_ArrayForEach(cap, get(h, "capabilities")) has_click |=
        strcmp(cap->valuestring, "click") == 0;
    assert_true(has_click);
    cJSON_Delete(h);
    assert_true(os_is_dir(path_in(f, "requests")));
    assert_true(os_is_dir(path_in(f, "responses")));

    /* Two requests, one with a BOM, plus a file that is not a request. */
    write_raw(path_in(f, "requests/req_b.json"), "{\"id\":\"b\",\"command\":\"windows\"}", "wb");
    write_raw(
        path_in(f, "requests/req_a.json"),
        "\xEF\xBB\xBF{\"id\":\"a\",\"command\":\"state\",\"params\":{\"window\":\"testapp\"}}",
        "wb");
    write_raw(path_in(f, "requests/req_c.json.tmp"), "{", "wb");
    poll_ok(s);
    cJSON *ra = read_json(path_in(f, "responses/res_a.json"));
    cJSON *rb = read_json(path_in(f, "responses/res_b.json"));
    assert_string_equal(get(ra, "id")->valuestring, "a");
    assert_true(cJSON_IsTrue(get(ra, "success")));
    assert_non_null(strstr(get(get(ra, "data"), "tree")->valuestring, "Button \"OK\""));
    assert_true(cJSON_IsNull(get(ra, "error")));
    assert_true(cJSON_IsString(get(ra, "timestamp")));
    assert_true(cJSON_IsTrue(get(rb, "success")));
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    assert_false(os_path_exists(path_in(f, "requests/req_a.json")));
    assert_false(os_path_exists(path_in(f, "requests/req_b.json")));
    assert_true(os_path_exists(path_in(f, "requests/req_c.json.tmp")));

    /* Written in two halves: nothing until it is whole. */
    write_raw(path_in(f, "requests/req_half.json"), "{\"id\":\"half\",\"comm", "wb");
    poll_ok(s);
    poll_ok(s);
    assert_false(os_path_exists(path_in(f, "responses/res_half.json")));
    assert_true(os_path_exists(path_in(f, "requests/req_half.json")));
    write_raw(path_in(f, "requests/req_half.json"), "and\":\"windows\"}", "ab");
    poll_ok(s);
    cJSON *rh = read_json(path_in(f, "responses/res_half.json"));
    assert_true(cJSON_IsTrue(get(rh, "success")));
    cJSON_Delete(rh);

    /* Broken for good: answered with parse_error once it stays unchanged for the grace. */
    write_raw(path_in(f, "requests/req_bad.json"), "not json at all", "wb");
    poll_ok(s);
    assert_false(os_path_exists(path_in(f, "responses/res_bad.json")));
    os_sleep_ms(200);
    write_raw(path_in(f, "requests/req_bad.json"), " still not", "ab"); /* changed: wait again */
    poll_ok(s);
    os_sleep_ms(200);
    poll_ok(s);
    assert_false(os_path_exists(path_in(f, "responses/res_bad.json")));
    os_sleep_ms(150);
    poll_ok(s);
    cJSON *rbad = read_json(path_in(f, "responses/res_bad.json"));
    assert_string_equal(get(rbad, "id")->valuestring, "bad");
    assert_string_equal(error_code(rbad), "parse_error");
    cJSON_Delete(rbad);
    assert_false(os_path_exists(path_in(f, "requests/req_bad.json")));

    /* The controller goes away: the folder with it. */
    remove_tree(f->dir);
    bool gone = false;
    assert_int_equal(serve_ipc_poll(s, &gone), WA_E_OK);
    assert_true(gone);
    serve_ipc_close(s);
    assert_false(os_path_exists(f->dir)); /* closing did not bring it back */
}

static void test_close_marks_the_handshake(void **state)
{
    struct fixture *f = *state;
    struct serve_ipc *s;
    assert_int_equal(serve_ipc_open(f->c, f->dir, 300, &s), WA_E_OK);
    serve_ipc_close(s);
    cJSON *h = read_json(path_in(f, "handshake.json"));
    assert_true(cJSON_IsFalse(get(h, "ready")));
    cJSON_Delete(h);
    serve_ipc_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_requests_and_responses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_transport, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_marks_the_handshake, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
