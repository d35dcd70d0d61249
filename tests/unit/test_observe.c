/* Unit tests: observations on the fake desktop (agent/core/request/observe.c): tree or image,
 * the numbered marks of unnamed interactive elements, and agent.log's DEBUG lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "agent/core/request/observe.h"
#include "automation/fake/fake_backend.h"

static const char scene[] =
    "{\"monitors\":[{\"rect\":[0,0,1920,1080],\"primary\":true}],"
    " \"windows\":["
    "  {\"hwnd\":512,\"title\":\"Keypad\",\"process\":\"calc.exe\",\"pid\":8,"
    "   \"rect\":[1200,100,1500,500],\"color\":\"#dddddd\",\"foreground\":true,"
    "   \"tree\":{\"type\":\"Window\",\"name\":\"Keypad\",\"bounds\":[1200,100,1500,500],"
    "     \"children\":[{\"type\":\"Button\",\"class\":\"Key\",\"bounds\":[1210,110,1290,190]},"
    "      {\"type\":\"Button\",\"bounds\":[1300,110,1380,190]},"
    "      {\"type\":\"Button\",\"bounds\":[1390,110,1470,190]}]}}]}";

static const struct observe_opts auto_opts = {
    .mode = OBS_AUTO, .max_edge = 1280, .tree_budget_ms = 3000};

static void unnamed_buttons_come_as_an_image_with_numbered_marks(void **state)
{
    (void)state;
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    struct observation o;
    struct wa_tree t;
    observation_init(&o);
    assert_int_equal(observe_window(backend_default(), 512, &auto_opts, NULL, &o, &t), WA_E_OK);
    assert_int_equal(o.kind, OBS_IMAGE);
    assert_true(o.marked);
    assert_string_equal(o.verdict, "auto: tree rejected (3 interactive elements but none has "
                                   "Name), fell back to pixel; source fake, with numbered marks");
    /* one line per mark, by id, bounds in 0-999 of the window */
    assert_non_null(strstr(o.text, "[2] Button \"\" bounds=[33,25][297,223]\n"));
    assert_non_null(strstr(o.text, "[4] Button \"\" bounds=[635,25][899,223]\n"));
    assert_int_equal(t.count, 4); /* the tree stays, so element ids work */
    tree_cleanup(&t);
    observation_cleanup(&o);
}

static void the_marks_are_drawn_on_each_box(void **state)
{
    (void)state;
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    struct wa_tree t;
    struct wa_tree_opts to = {.keep_handles = true};
    assert_int_equal(backend_get_tree(backend_default(), 512, &to, &t), WA_E_OK);
    struct wa_image img = {0};
    struct wa_rect frame = {1200, 100, 1500, 500};
    assert_int_equal(image_alloc(&img, 300, 400, false), WA_E_OK);
    observe_draw_marks(&t, &img, frame);
    /* the left edge of the first box, below its number tab: magenta */
    assert_int_equal(image_pixel_rgb(&img, 10, 60), 0xff00ff);
    /* inside the box: untouched */
    assert_int_equal(image_pixel_rgb(&img, 50, 60), 0x000000);
    image_cleanup(&img);
    tree_cleanup(&t);
}

static void unnamed_interactive_elements_are_listed_for_the_log(void **state)
{
    (void)state;
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    struct wa_tree t;
    struct wa_tree_opts to = {0};
    assert_int_equal(backend_get_tree(backend_default(), 512, &to, &t), WA_E_OK);
    struct dynbuf lines;
    dynbuf_init(&lines, 1u << 16);
    assert_int_equal(observe_unnamed_lines(&t, &lines), WA_E_OK);
    assert_string_equal(dynbuf_str(&lines),
                        "DEBUG: unnamed Button hwnd=0x0 autoId=\"\" class=\"Key\" "
                        "bounds=[1210,110][1290,190]\n"
                        "DEBUG: unnamed Button hwnd=0x0 autoId=\"\" class=\"\" "
                        "bounds=[1300,110][1380,190]\n"
                        "DEBUG: unnamed Button hwnd=0x0 autoId=\"\" class=\"\" "
                        "bounds=[1390,110][1470,190]\n");
    dynbuf_cleanup(&lines);
    tree_cleanup(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unnamed_buttons_come_as_an_image_with_numbered_marks),
        cmocka_unit_test(the_marks_are_drawn_on_each_box),
        cmocka_unit_test(unnamed_interactive_elements_are_listed_for_the_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
