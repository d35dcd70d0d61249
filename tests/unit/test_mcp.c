/* Unit tests: the MCP server's JSON-RPC handling over the command layer on the scripted
 * fake desktop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/mcp.h"
#include "automation/fake/fake_backend.h"
#include "automation/image.h"
#include "base/os.h"

static const char scene[] =
    "{\"monitors\":[{\"rect\":[0,0,1920,1080],\"primary\":true}],"
    " \"windows\":["
    "  {\"hwnd\":256,\"title\":\"winagent testapp\",\"process\":\"testapp.exe\",\"pid\":7,"
    "   \"rect\":[100,50,1100,850],\"foreground\":true,\"color\":\"#ffffff\","
    "   \"tree\":{\"type\":\"Window\",\"name\":\"winagent testapp\",\"bounds\":[100,50,1100,850],"
    "     \"children\":["
    "      {\"type\":\"Button\",\"name\":\"OK\",\"bounds\":[200,70,260,90],"
    "       \"patterns\":[\"invoke\"]},"
    "      {\"type\":\"Edit\",\"name\":\"Name\",\"bounds\":[300,70,600,90],"
    "       \"states\":[\"focused\"],\"value\":\"\"}]}},"
    "  {\"hwnd\":512,\"title\":\"Vault - KeePassXC\",\"process\":\"keepassxc.exe\",\"pid\":8,"
    "   \"rect\":[1200,100,1500,500],\"color\":\"#dddddd\","
    "   \"tree\":{\"type\":\"Window\",\"name\":\"Vault\",\"bounds\":[1200,100,1500,500],"
    "     \"children\":[{\"type\":\"Button\",\"name\":\"Unlock\",\"bounds\":[1210,110,1290,190],"
    "       \"patterns\":[\"invoke\"]}]}}]}";

struct fixture {
    struct ctl *c;
    struct mcp_server *s;
    struct dynbuf out;
    cJSON *reply; /* the last reply, parsed */
    char state_dir[64];
};

static int make_fixture(void **state, bool dry_run, bool allow_shell)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    snprintf(f->state_dir, sizeof f->state_dir, "/tmp/test_mcp-%lu", (unsigned long)getpid());
    struct ctl_opts o = {0};
    o.state_dir = f->state_dir;
    o.dry_run = dry_run;
    o.allow_shell = allow_shell;
    o.screenshot_by_default = true;
    o.gate.max_actions_per_s = 1000;
    assert_int_equal(ctl_new(backend_default(), &o, &f->c), WA_E_OK);
    assert_int_equal(mcp_server_new(f->c, &f->s), WA_E_OK);
    dynbuf_init(&f->out, 64u << 20);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return make_fixture(state, false, false);
}

static int setup_dry(void **state)
{
    return make_fixture(state, true, false);
}

static int setup_shell(void **state)
{
    return make_fixture(state, false, true);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    cJSON_Delete(f->reply);
    dynbuf_cleanup(&f->out);
    mcp_server_free(f->s);
    ctl_free(f->c);
    free(f);
    return 0;
}

/* Sends one line; returns the parsed reply (NULL when none came). */
static cJSON *send_line(struct fixture *f, const char *line)
{
    cJSON_Delete(f->reply);
    f->reply = NULL;
    dynbuf_reset(&f->out);
    assert_int_equal(mcp_handle_line(f->s, line, strlen(line), &f->out), WA_E_OK);
    if (f->out.len == 0)
        return NULL;
    assert_null(memchr(f->out.data, '\n', f->out.len)); /* one line on the wire */
    f->reply = cJSON_Parse(f->out.data);
    assert_non_null(f->reply);
    return f->reply;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static int error_code(const cJSON *reply)
{
    const cJSON *c = get(get(reply, "error"), "code");
    assert_true(cJSON_IsNumber(c));
    assert_null(get(reply, "result"));
    return c->valueint;
}

/* tools/call: the result object. */
static const cJSON *call_tool(struct fixture *f, const char *name, const char *args)
{
    char line[2048];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":\"c-1\",\"method\":\"tools/call\","
             "\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
             name, args);
    const cJSON *r = send_line(f, line);
    assert_non_null(r);
    assert_string_equal(get(r, "id")->valuestring, "c-1");
    const cJSON *res = get(r, "result");
    assert_non_null(res);
    assert_true(cJSON_IsArray(get(res, "content")));
    return res;
}

static const char *content_text(const cJSON *res, int i)
{
    const cJSON *item = cJSON_GetArrayItem(get(res, "content"), i);
    assert_non_null(item);
    assert_string_equal(get(item, "type")->valuestring, "text");
    return get(item, "text")->valuestring;
}

static const cJSON *find_content(const cJSON *res, const char *type)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, get(res, "content")) if (strcmp(get(item, "type")->valuestring,
                                                             type) == 0) return item;
    return NULL;
}

static void test_initialize_negotiates_the_version(void **state)
{
    struct fixture *f = *state;
    static const struct {
        const char *asked, *answered;
    } cases[] = {{"\"2025-06-18\"", "2025-06-18"},
                 {"\"2024-11-05\"", "2024-11-05"},
                 {"\"2099-01-01\"", "2025-06-18"},
                 {"null", "2025-06-18"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[512];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"initialize\",\"params\":"
                 "{\"protocolVersion\":%s,\"capabilities\":{},"
                 "\"clientInfo\":{\"name\":\"unit\",\"version\":\"1\"}}}",
                 i + 1, cases[i].asked);
        const cJSON *r = send_line(f, line);
        assert_string_equal(get(r, "jsonrpc")->valuestring, "2.0");
        assert_int_equal(get(r, "id")->valueint, (int)i + 1);
        const cJSON *res = get(r, "result");
        assert_string_equal(get(res, "protocolVersion")->valuestring, cases[i].answered);
        assert_true(cJSON_IsFalse(get(get(get(res, "capabilities"), "tools"), "listChanged")));
        assert_string_equal(get(get(res, "serverInfo"), "name")->valuestring, "winagent");
        assert_true(cJSON_IsString(get(get(res, "serverInfo"), "version")));
    }
}

static void test_notifications_pings_and_protocol_errors(void **state)
{
    struct fixture *f = *state;
    assert_null(send_line(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
    assert_null(send_line(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":3}}"));
    assert_null(send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}")); /* a response */
    assert_null(send_line(f, "\r\n"));

    const cJSON *r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\r");
    assert_string_equal(get(r, "id")->valuestring, "p");
    assert_true(cJSON_IsObject(get(r, "result")));
    assert_int_equal(cJSON_GetArraySize(get(r, "result")), 0);

    r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/li");
    assert_int_equal(error_code(r), -32700);
    assert_true(cJSON_IsNull(get(r, "id")));

    r = send_line(f, "{\"id\":2,\"method\":\"ping\"}");
    assert_int_equal(error_code(r), -32600);
    assert_int_equal(get(r, "id")->valueint, 2);
    r = send_line(f, "[]");
    assert_int_equal(error_code(r), -32600);
    r = send_line(f, "42");
    assert_int_equal(error_code(r), -32600);

    r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}");
    assert_int_equal(error_code(r), -32601);
    r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"teleport\"}}");
    assert_int_equal(error_code(r), -32602);
    assert_non_null(strstr(get(get(r, "error"), "message")->valuestring, "teleport"));
    r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"click\",\"arguments\":[1]}}");
    assert_int_equal(error_code(r), -32602);
    r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{}}");
    assert_int_equal(error_code(r), -32602);

    /* A batch: replies for the requests only, in order. */
    r = send_line(f, "[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"},"
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                     "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"nope\"}]");
    assert_true(cJSON_IsArray(r));
    assert_int_equal(cJSON_GetArraySize(r), 2);
    assert_int_equal(get(cJSON_GetArrayItem(r, 0), "id")->valueint, 7);
    assert_int_equal(error_code(cJSON_GetArrayItem(r, 1)), -32601);
}

static const cJSON *tool_named(const cJSON *tools, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) if (strcmp(get(t, "name")->valuestring, name) == 0) return t;
    return NULL;
}

static bool has_string(const cJSON *arr, const char *s)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, arr) if (cJSON_IsString(v) && strcmp(v->valuestring, s) == 0) return true;
    return false;
}

static void test_tools_list_schemas_and_annotations(void **state)
{
    struct fixture *f = *state;
    const cJSON *r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    const cJSON *tools = get(get(r, "result"), "tools");
    const char *expected[] = {"windows", "state", "screenshot", "click",  "type",   "keys",
                              "scroll",  "drag",  "fill",       "invoke", "toggle", "expand",
                              "select",  "focus", "launch",     "close",  "wait",   "find"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        assert_non_null(tool_named(tools, expected[i]));
    assert_null(tool_named(tools, "powershell")); /* off without --allow-shell */

    const cJSON *t;
    cJSON_ArrayForEach(t, tools)
    {
        assert_true(cJSON_IsString(get(t, "description")));
        assert_true(cJSON_IsString(get(t, "title")));
        const cJSON *schema = get(t, "inputSchema");
        assert_string_equal(get(schema, "type")->valuestring, "object");
        assert_true(cJSON_IsObject(get(schema, "properties")));
        const cJSON *ann = get(t, "annotations");
        assert_true(cJSON_IsBool(get(ann, "readOnlyHint")));
        assert_true(cJSON_IsBool(get(ann, "destructiveHint")));
    }
    const cJSON *click = tool_named(tools, "click"), *state_tool = tool_named(tools, "state");
    const cJSON *close = tool_named(tools, "close");
    assert_true(cJSON_IsFalse(get(get(click, "annotations"), "readOnlyHint")));
    assert_true(cJSON_IsFalse(get(get(click, "annotations"), "destructiveHint")));
    assert_true(cJSON_IsTrue(get(get(state_tool, "annotations"), "readOnlyHint")));
    assert_true(cJSON_IsTrue(get(get(close, "annotations"), "destructiveHint")));
    const cJSON *props = get(get(click, "inputSchema"), "properties");
    assert_non_null(get(props, "ref"));
    assert_non_null(get(props, "window"));
    assert_string_equal(get(get(props, "screenshot"), "type")->valuestring, "boolean");
    assert_string_equal(get(get(props, "screenshot_delay_ms"), "type")->valuestring, "integer");
    assert_true(has_string(get(get(click, "inputSchema"), "required"), "ref"));
    assert_null(get(get(get(state_tool, "inputSchema"), "properties"), "screenshot"));
    const cJSON *scroll_dir =
        get(get(get(tool_named(tools, "scroll"), "inputSchema"), "properties"), "direction");
    assert_true(has_string(get(scroll_dir, "enum"), "down"));
}

static void test_shell_tool_only_when_allowed(void **state)
{
    struct fixture *f = *state;
    const cJSON *r = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    const cJSON *ps = tool_named(get(get(r, "result"), "tools"), "powershell");
    assert_non_null(ps);
    assert_true(cJSON_IsTrue(get(get(ps, "annotations"), "destructiveHint")));
    assert_true(cJSON_IsTrue(get(get(ps, "annotations"), "openWorldHint")));
}

static void test_state_then_click_with_image(void **state)
{
    struct fixture *f = *state;
    const cJSON *res = call_tool(f, "state", "{\"window\":\"testapp\"}");
    assert_true(cJSON_IsFalse(get(res, "isError")));
    cJSON *j = cJSON_Parse(content_text(res, 0));
    assert_true(cJSON_IsTrue(get(j, "success")));
    assert_null(get(get(j, "data"), "tree"));     /* moved to its own text item */
    assert_null(get(get(j, "data"), "elements")); /* no second copy */
    cJSON_Delete(j);
    const char *tree = content_text(res, 1);
    assert_non_null(strstr(tree, "[2] Button \"OK\""));

    res = call_tool(f, "click", "{\"window\":\"testapp\",\"ref\":\"2\"}");
    assert_true(cJSON_IsFalse(get(res, "isError")));
    j = cJSON_Parse(content_text(res, 0));
    assert_string_equal(get(get(j, "window_state"), "hwnd")->valuestring, "0x100");
    const cJSON *meta = get(get(j, "data"), "image");
    assert_non_null(meta);
    assert_true(cJSON_IsNumber(get(meta, "scale")));
    assert_int_equal(cJSON_GetArraySize(get(meta, "origin")), 2);
    cJSON_Delete(j);
    const cJSON *img = find_content(res, "image");
    assert_non_null(img);
    assert_string_equal(get(img, "mimeType")->valuestring, "image/png");
    struct dynbuf png;
    dynbuf_init(&png, 16u << 20);
    const char *b64 = get(img, "data")->valuestring;
    assert_int_equal(base64_decode(b64, strlen(b64), &png), WA_E_OK);
    assert_memory_equal(png.data, "\x89PNG\r\n\x1a\n", 8);
    dynbuf_cleanup(&png);

    char *actions = fake_actions_json();
    assert_non_null(strstr(actions, "element_action") ? actions : strstr(actions, "mouse_button"));
    free(actions);

    /* screenshot:false: no image. */
    res = call_tool(f, "click", "{\"window\":\"testapp\",\"ref\":\"2\",\"screenshot\":false}");
    assert_true(cJSON_IsFalse(get(res, "isError")));
    assert_null(find_content(res, "image"));
}

static void test_tool_errors_are_results(void **state)
{
    struct fixture *f = *state;
    call_tool(f, "state", "{\"window\":\"testapp\"}");
    const cJSON *res = call_tool(f, "click", "{\"window\":\"testapp\",\"ref\":\"e99\"}");
    assert_true(cJSON_IsTrue(get(res, "isError")));
    assert_non_null(strstr(content_text(res, 0), "stale_ref"));
    assert_null(find_content(res, "image"));

    res = call_tool(f, "keys", "{\"window\":\"no such window\",\"keys\":\"enter\"}");
    assert_true(cJSON_IsTrue(get(res, "isError")));
    assert_non_null(strstr(content_text(res, 0), "window_not_found"));

    /* The gate: a password manager's window is refused. */
    call_tool(f, "state", "{\"window\":\"KeePassXC\"}");
    res = call_tool(f, "click", "{\"window\":\"KeePassXC\",\"ref\":\"2\"}");
    assert_true(cJSON_IsTrue(get(res, "isError")));
    const char *text = content_text(res, 0);
    assert_non_null(strstr(text, "\"denied\""));
    assert_non_null(strstr(text, "keepassxc.exe"));
    char *actions = fake_actions_json();
    assert_null(strstr(actions, "\"Unlock\""));
    assert_null(strstr(actions, "1250"));
    free(actions);
}

static void test_dry_run_touches_nothing(void **state)
{
    struct fixture *f = *state;
    call_tool(f, "state", "{\"window\":\"testapp\"}");
    const cJSON *res = call_tool(f, "click", "{\"window\":\"testapp\",\"ref\":\"2\"}");
    assert_true(cJSON_IsFalse(get(res, "isError")));
    assert_non_null(strstr(content_text(res, 0), "\"dry_run\":true"));
    res = call_tool(f, "type", "{\"window\":\"testapp\",\"text\":\"hello\"}");
    assert_true(cJSON_IsFalse(get(res, "isError")));
    char *actions = fake_actions_json();
    assert_null(strstr(actions, "element_action"));
    assert_null(strstr(actions, "mouse_button"));
    assert_null(strstr(actions, "type_text"));
    free(actions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_initialize_negotiates_the_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_notifications_pings_and_protocol_errors, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_tools_list_schemas_and_annotations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shell_tool_only_when_allowed, setup_shell, teardown),
        cmocka_unit_test_setup_teardown(test_state_then_click_with_image, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tool_errors_are_results, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_touches_nothing, setup_dry, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
