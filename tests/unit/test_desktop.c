/* Unit tests: the desktop dispatcher against the scripted fake desktop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "agent/desktop.h"
#include "automation/fake/fake_backend.h"

/* Notepad at [100,50][1100,850] (frame 1000x800) with a useful tree, and a keypad
 * window of unnamed buttons. */
static const char scene[] =
    "{\"monitors\":[{\"rect\":[0,0,1920,1080],\"primary\":true}],"
    " \"windows\":["
    "  {\"hwnd\":256,\"title\":\"Untitled - Notepad\",\"process\":\"notepad.exe\",\"pid\":7,"
    "   \"rect\":[100,50,1100,850],\"foreground\":true,\"color\":\"#ffffff\","
    "   \"tree\":{\"type\":\"Window\",\"name\":\"Untitled - Notepad\",\"bounds\":[100,50,1100,850],"
    "     \"children\":["
    "      {\"type\":\"MenuItem\",\"name\":\"File\",\"bounds\":[100,70,150,90]},"
    "      {\"type\":\"Button\",\"name\":\"Save\",\"bounds\":[200,70,260,90],"
    "       \"patterns\":[\"invoke\"]},"
    "      {\"type\":\"Edit\",\"name\":\"Text Editor\",\"bounds\":[100,90,1100,850],"
    "       \"states\":[\"focused\"],\"value\":\"\"}]}},"
    "  {\"hwnd\":512,\"title\":\"Keypad\",\"process\":\"calc.exe\",\"pid\":8,"
    "   \"rect\":[1200,100,1500,500],\"color\":\"#dddddd\","
    "   \"tree\":{\"type\":\"Window\",\"name\":\"Keypad\",\"bounds\":[1200,100,1500,500],"
    "     \"children\":[{\"type\":\"Button\",\"class\":\"Key\",\"bounds\":[1210,110,1290,190]},"
    "      {\"type\":\"Button\",\"bounds\":[1300,110,1380,190]},"
    "      {\"type\":\"Button\",\"bounds\":[1390,110,1470,190]}]}}],"
    " \"launch\":{\"notepad\":{\"title\":\"Second Notepad\",\"process\":\"notepad.exe\","
    "   \"rect\":[0,0,400,300]}}}";

struct fixture {
    struct desktop_session s;
    struct desktop_result r;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    struct desktop_opts o;
    desktop_opts_default(&o);
    o.settle_ms = 0;
    desktop_session_init(&f->s, backend_default(), &o);
    desktop_result_init(&f->r);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    desktop_result_cleanup(&f->r);
    desktop_session_cleanup(&f->s);
    free(f);
    return 0;
}

static wa_err call(struct fixture *f, const char *json)
{
    return desktop_call_text(&f->s, json, &f->r);
}

static const char *error_code(struct fixture *f)
{
    cJSON *err = cJSON_GetObjectItemCaseSensitive(f->r.json, "error");
    cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
    return cJSON_IsString(code) ? code->valuestring : "";
}

static const char *error_message(struct fixture *f)
{
    cJSON *err = cJSON_GetObjectItemCaseSensitive(f->r.json, "error");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
    return cJSON_IsString(m) ? m->valuestring : "";
}

/* True when the recorded actions contain `needle` (a JSON fragment). */
static bool recorded(const char *needle)
{
    char *a = fake_actions_json();
    bool found = strstr(a, needle) != NULL;
    free(a);
    return found;
}

static void observe_picks_tree_or_pixels(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\"}"), WA_E_OK);
    assert_int_equal(f->r.obs.kind, OBS_TREE);
    assert_non_null(strstr(f->r.obs.text, "[3] Button \"Save\" @(130,38)"));
    assert_non_null(strstr(f->r.obs.verdict, "auto: tree accepted"));
    /* The keypad's buttons have no names: pixels, and the verdict says why. */
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\",\"window\":\"keypad\"}"), WA_E_OK);
    assert_int_equal(f->r.obs.kind, OBS_IMAGE);
    assert_string_equal(f->r.obs.verdict,
                        "auto: tree rejected (3 interactive elements but none has Name), fell "
                        "back to pixel; source fake");
    assert_int_equal(f->r.obs.width, 300);
    assert_int_equal(f->r.obs.height, 400);
    assert_memory_equal(f->r.obs.png.data, "\x89PNG", 4);
    /* Mode pixel on request. */
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\",\"window\":\"notepad\","
                             "\"mode\":\"pixel\"}"),
                     WA_E_OK);
    assert_int_equal(f->r.obs.kind, OBS_IMAGE);
}

static void unnamed_interactive_elements_are_listed_for_the_log(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\",\"window\":\"keypad\"}"), WA_E_OK);
    struct dynbuf lines;
    dynbuf_init(&lines, 1u << 16);
    assert_int_equal(observe_unnamed_lines(&f->s.tree, &lines), WA_E_OK);
    assert_string_equal(dynbuf_str(&lines),
                        "DEBUG: unnamed Button hwnd=0x0 autoId=\"\" class=\"Key\" "
                        "bounds=[1210,110][1290,190]\n"
                        "DEBUG: unnamed Button hwnd=0x0 autoId=\"\" class=\"\" "
                        "bounds=[1300,110][1380,190]\n"
                        "DEBUG: unnamed Button hwnd=0x0 autoId=\"\" class=\"\" "
                        "bounds=[1390,110][1470,190]\n");
    /* Named elements and the window itself are not listed. */
    dynbuf_reset(&lines);
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\",\"window\":\"notepad\"}"), WA_E_OK);
    assert_int_equal(observe_unnamed_lines(&f->s.tree, &lines), WA_E_OK);
    assert_string_equal(dynbuf_str(&lines), "");
    dynbuf_cleanup(&lines);
}

static void click_maps_coordinates_against_the_frame(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\"}"), WA_E_OK);
    /* 0-999 over [100,50][1100,850]: x = 100 + round(500*999/999) = 600 */
    assert_int_equal(call(f, "{\"action\":\"left_click\",\"x\":500,\"y\":\"999\"}"), WA_E_OK);
    assert_string_equal(f->r.summary, "click (500,999) -> ok");
    assert_true(recorded("{\"x\":600,\"y\":849,\"op\":\"mouse_move\"}"));
    assert_true(recorded("\"button\":\"left\",\"down\":true,\"x\":600,\"y\":849"));
    /* Anthropic-style coordinate arrays work too. */
    assert_int_equal(call(f, "{\"action\":\"right_click\",\"coordinate\":[0,0]}"), WA_E_OK);
    assert_true(recorded("\"button\":\"right\",\"down\":true,\"x\":100,\"y\":50"));
    /* Out of range: a clear error, nothing clicked. */
    assert_int_equal(call(f, "{\"action\":\"click\",\"x\":1200,\"y\":5}"), WA_E_INVALID_ARGS);
    assert_string_equal(error_code(f), "invalid_args");
    assert_non_null(strstr(error_message(f), "outside 0-999"));
}

static void click_by_element_uses_its_centre(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\"}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"click\",\"element\":\"e2\"}"), WA_E_OK);
    assert_true(recorded("{\"x\":125,\"y\":80,\"op\":\"mouse_move\"}"));
    assert_int_equal(call(f, "{\"action\":\"click\",\"element\":42}"), WA_E_ELEMENT_NOT_FOUND);
    assert_non_null(strstr(error_message(f), "it has 4 elements"));
}

static void unknown_and_malformed_calls_fail_clearly(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"teleport\"}"), WA_E_INVALID_ARGS);
    assert_non_null(strstr(error_message(f), "unknown action \"teleport\"; valid actions: "
                                             "screenshot, window_screenshot, click"));
    assert_int_equal(call(f, "{\"action\":\"click\",\"x\":5,"), WA_E_INVALID_ARGS);
    assert_non_null(strstr(error_message(f), "not valid JSON"));
    assert_int_equal(call(f, "[1,2]"), WA_E_INVALID_ARGS);
    assert_int_equal(call(f, "{\"action\":\"click\",\"x\":\"abc\",\"y\":1}"), WA_E_INVALID_ARGS);
    assert_int_equal(call(f, "{\"action\":\"wait\",\"seconds\":31}"), WA_E_INVALID_ARGS);
    assert_int_equal(call(f, "{\"action\":\"key\",\"keys\":\"ctrl+nope\"}"), WA_E_INVALID_ARGS);
    assert_non_null(strstr(error_message(f), "unknown key 'nope'"));
    cJSON *ok = cJSON_GetObjectItemCaseSensitive(f->r.json, "ok");
    assert_true(cJSON_IsFalse(ok));
}

static void typing_reaches_the_focused_edit_and_is_observed(void **state)
{
    struct fixture *f = *state;
    f->s.opts.observe_after = true;
    assert_int_equal(call(f, "{\"action\":\"type_text\",\"text\":\"héllo \\\"x\\\"\"}"), WA_E_OK);
    assert_int_equal(f->r.obs.kind, OBS_TREE);
    assert_non_null(strstr(f->r.obs.text,
                           "Edit \"Text Editor\" @(500,525) value=\"héllo \\\"x\\\"\" "
                           "focused"));
    cJSON *ws = cJSON_GetObjectItemCaseSensitive(f->r.json, "window_state");
    assert_non_null(ws);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ws, "is_foreground")));
    assert_int_equal(call(f, "{\"action\":\"hotkey\",\"keys\":[\"ctrl\",\"s\"]}"), WA_E_OK);
    assert_true(recorded("\"keys\":\"Ctrl+S\""));
    assert_int_equal(call(f, "{\"action\":\"key\",\"keys\":\"ctrl+a delete\"}"), WA_E_OK);
    assert_true(recorded("\"keys\":\"Delete\""));
}

static void patterns_fall_back_to_clicks(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\"}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"invoke\",\"element\":3}"), WA_E_OK);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(f->r.json, "via")->valuestring,
                        "fake:pattern");
    assert_true(recorded("\"action\":\"invoke\",\"name\":\"Save\""));
    /* The menu item has no patterns: the dispatcher clicks its centre. */
    assert_int_equal(call(f, "{\"action\":\"invoke\",\"element\":2}"), WA_E_OK);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(f->r.json, "via")->valuestring, "click");
    assert_true(recorded("{\"x\":125,\"y\":80,\"op\":\"mouse_move\"}"));
    /* set_value without a Value pattern: click, select all, type. */
    assert_int_equal(call(f, "{\"action\":\"set_value\",\"element\":4,\"value\":\"new\"}"),
                     WA_E_OK);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(f->r.json, "via")->valuestring,
                        "click+select-all+type");
    assert_true(recorded("\"keys\":\"Ctrl+A\""));
    assert_true(recorded("{\"text\":\"new\",\"op\":\"type_text\"}"));
    assert_int_equal(call(f, "{\"action\":\"toggle\"}"), WA_E_INVALID_ARGS);
}

static void input_brings_the_target_to_the_front(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\",\"window\":\"Keypad\"}"), WA_E_OK);
    assert_false(recorded("focus_window"));
    assert_int_equal(call(f, "{\"action\":\"click\",\"x\":10,\"y\":10}"), WA_E_OK);
    assert_true(recorded("{\"hwnd\":\"0x200\",\"op\":\"focus_window\"}"));
}

static void dry_run_touches_nothing(void **state)
{
    struct fixture *f = *state;
    f->s.opts.dry_run = true;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\"}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"click\",\"x\":1,\"y\":1}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"type\",\"text\":\"x\"}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"close_window\",\"window\":\"notepad\"}"), WA_E_OK);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f->r.json, "dry_run")));
    assert_string_equal(f->r.summary, "close_window \"Untitled - Notepad\" -> dry-run");
    assert_false(recorded("mouse_button"));
    assert_false(recorded("type_text"));
    assert_false(recorded("close_window"));
}

static void scroll_drag_and_windows(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\"}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"scroll\",\"direction\":\"down\"}"), WA_E_OK);
    assert_true(recorded("{\"delta\":-120,\"horizontal\":false,\"x\":600,\"y\":450"));
    assert_int_equal(call(f, "{\"action\":\"scroll\",\"direction\":\"sideways\"}"),
                     WA_E_INVALID_ARGS);
    assert_int_equal(call(f, "{\"action\":\"drag\",\"x\":0,\"y\":0,\"to_x\":999,\"to_y\":999}"),
                     WA_E_OK);
    assert_true(recorded("\"down\":false,\"x\":1099,\"y\":849"));
    assert_int_equal(call(f, "{\"action\":\"launch\",\"command\":\"notepad\"}"), WA_E_OK);
    assert_string_equal(f->r.summary, "launch notepad -> ok");
    assert_int_equal(call(f, "{\"action\":\"maximize\",\"window\":\"Second\"}"), WA_E_OK);
    assert_true(recorded("\"state\":\"maximized\""));
    assert_int_equal(call(f, "{\"action\":\"move_window\",\"window\":\"Second\",\"x\":10,"
                             "\"y\":20,\"width\":300,\"height\":200}"),
                     WA_E_OK);
    assert_true(recorded("\"rect\":[10,20,310,220]"));
    assert_int_equal(call(f, "{\"action\":\"close_window\",\"window\":\"Second\"}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"focus_window\",\"window\":\"Second\"}"),
                     WA_E_WINDOW_NOT_FOUND);
    assert_int_equal(call(f, "{\"action\":\"list_windows\"}"), WA_E_OK);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(f->r.json, "windows")), 2);
}

static void annotation_marks_the_target(void **state)
{
    struct fixture *f = *state;
    f->s.opts.annotate = true;
    assert_int_equal(call(f, "{\"action\":\"window_screenshot\"}"), WA_E_OK);
    assert_int_equal(call(f, "{\"action\":\"click\",\"x\":500,\"y\":500}"), WA_E_OK);
    assert_true(f->r.has_annotate);
    assert_int_equal(f->r.annotate.width, 1000);
    assert_int_equal(f->r.annotate.height, 800);
    /* The crosshair's centre is red on the white window. */
    assert_int_equal(image_pixel_rgb(&f->r.annotate, 500, 400) & 0xff0000, 0xff0000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(observe_picks_tree_or_pixels, setup, teardown),
        cmocka_unit_test_setup_teardown(unnamed_interactive_elements_are_listed_for_the_log, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(click_maps_coordinates_against_the_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(click_by_element_uses_its_centre, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_and_malformed_calls_fail_clearly, setup, teardown),
        cmocka_unit_test_setup_teardown(typing_reaches_the_focused_edit_and_is_observed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(patterns_fall_back_to_clicks, setup, teardown),
        cmocka_unit_test_setup_teardown(input_brings_the_target_to_the_front, setup, teardown),
        cmocka_unit_test_setup_teardown(dry_run_touches_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(scroll_drag_and_windows, setup, teardown),
        cmocka_unit_test_setup_teardown(annotation_marks_the_target, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
