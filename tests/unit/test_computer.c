/* The computer-use actions of Gemini, OpenAI and Anthropic become the core's requests
 * at exact screen pixels of the run's one display (Gemini's 0-999 grid and the pixels
 * of a possibly downscaled screenshot mapped back), every documented action of each
 * tool version with its argument names and defaults, and what cannot be done is refused
 * with words the model can act on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/run/computer.h"
#include "llm/models.h"
#include "automation/image/coords.h"
#include "automation/image/image.h"

/* A display at (200,100), 1280x800, sent at full size. */
static const struct computer_view FULL = {{200, 100, 1480, 900}, 1280, 800};
/* The whole 1920x1200 screen sent downscaled to 1280x800 (--max-edge 1280). */
static const struct computer_view SCALED = {{0, 0, 1920, 1200}, 1280, 800};

static wa_err plan(enum computer_proto p, const char *name, const char *json,
                   const struct computer_view *v, struct computer_plan *out)
{
    cJSON *args = cJSON_Parse(json);
    assert_non_null(args);
    computer_plan_init(out);
    wa_err e = computer_plan_call(p, name, args, v, out);
    cJSON_Delete(args);
    return e;
}

/* Plans a call that must become n steps. */
static void planned(enum computer_proto p, const char *name, const char *json,
                    const struct computer_view *v, size_t n, struct computer_plan *out)
{
    wa_err e = plan(p, name, json, v, out);
    if (e)
        fail_msg("%s %s: %s: %s", name ? name : "", json, wa_err_code(e), wa_err_detail());
    if (out->n != n)
        fail_msg("%s %s: %zu steps, not %zu", name ? name : "", json, out->n, n);
}

static void refused(enum computer_proto p, const char *name, const char *json,
                    const struct computer_view *v, const char *fragment)
{
    struct computer_plan pl;
    wa_err e = plan(p, name, json, v, &pl);
    if (e != WA_E_INVALID_ARGS)
        fail_msg("%s %s: %s, not invalid_args", name ? name : "", json, wa_err_code(e));
    if (!strstr(wa_err_detail(), fragment))
        fail_msg("%s %s: \"%s\" does not mention \"%s\"", name ? name : "", json, wa_err_detail(),
                 fragment);
    computer_plan_cleanup(&pl);
}

static void at(const struct op_request *q, enum op_id id, int x, int y)
{
    assert_int_equal(q->op->id, id);
    assert_int_equal(q->x, x);
    assert_int_equal(q->y, y);
}

static void gemini_grid_is_the_display(void **state)
{
    (void)state;
    struct computer_plan pl;
    /* the middle of cell 500 of 1280 pixels: 200 + 640.64 */
    planned(COMPUTER_GEMINI, "click_at", "{\"x\":500,\"y\":250}", &FULL, 1, &pl);
    at(&pl.steps[0], OP_CLICK_AT, 840, 300);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "click_at", "{\"x\":0,\"y\":999}", &SCALED, 1, &pl);
    at(&pl.steps[0], OP_CLICK_AT, 0, 1199);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "right_click", "{\"x\":\"7\",\"y\":8}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].button, WA_BUTTON_RIGHT);
    computer_plan_cleanup(&pl);
    refused(COMPUTER_GEMINI, "click_at", "{\"x\":1000,\"y\":5}", &FULL, "outside 0-999");
    refused(COMPUTER_GEMINI, "click_at", "{\"x\":5}", &FULL, "\"x\" and \"y\"");
}

static void gemini_drags_by_either_set_of_names(void **state)
{
    (void)state;
    struct computer_plan pl;
    planned(COMPUTER_GEMINI, "drag_and_drop",
            "{\"x\":10,\"y\":20,\"destination_x\":900,\"destination_y\":999}", &SCALED, 1, &pl);
    at(&pl.steps[0], OP_DRAG_AT, 20, 24);
    assert_int_equal(pl.steps[0].to_x, 1728);
    assert_int_equal(pl.steps[0].to_y, 1199);
    computer_plan_cleanup(&pl);
    /* Gemini 3.5's names */
    planned(COMPUTER_GEMINI, "drag_and_drop",
            "{\"start_x\":10,\"start_y\":20,\"end_x\":900,\"end_y\":999}", &SCALED, 1, &pl);
    at(&pl.steps[0], OP_DRAG_AT, 20, 24);
    assert_int_equal(pl.steps[0].to_x, 1728);
    computer_plan_cleanup(&pl);
    refused(COMPUTER_GEMINI, "drag_and_drop", "{\"start_x\":1,\"start_y\":2}", &FULL,
            "\"end_x\" and \"end_y\"");
}

static void gemini_35_actions(void **state)
{
    (void)state;
    struct computer_plan pl;
    planned(COMPUTER_GEMINI, "mouse_down", "{\"x\":500,\"y\":500}", &FULL, 1, &pl);
    at(&pl.steps[0], OP_MOUSE_DOWN, 840, 500);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "mouse_up", "{}", &FULL, 1, &pl); /* where the pointer is */
    assert_int_equal(pl.steps[0].op->id, OP_MOUSE_UP);
    assert_false(op_request_has(&pl.steps[0], ARG_X));
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "key_down", "{\"key\":\"shift\"}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_KEY_DOWN);
    assert_string_equal(pl.steps[0].keys, "shift");
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "key_up", "{\"key\":\"shift\"}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_KEY_UP);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "triple_click", "{\"x\":1,\"y\":1}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].clicks, 3);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "move", "{\"x\":999,\"y\":0}", &FULL, 1, &pl);
    at(&pl.steps[0], OP_MOVE_AT, 1479, 100);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "hotkey", "{\"keys\":[\"Control\",\"S\"]}", &FULL, 1, &pl);
    assert_string_equal(pl.steps[0].keys, "Control+S");
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "press_key", "{\"key\":\"Enter\"}", &FULL, 1, &pl);
    assert_string_equal(pl.steps[0].keys, "Enter");
    computer_plan_cleanup(&pl);
    /* wait: 1 second unless told */
    planned(COMPUTER_GEMINI, "wait", "{}", &FULL, 1, &pl);
    assert_true(pl.steps[0].seconds == 1);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "wait", "{\"seconds\":3}", &FULL, 1, &pl);
    assert_true(pl.steps[0].seconds == 3);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "wait_5_seconds", "{}", &FULL, 1, &pl);
    assert_true(pl.steps[0].seconds == 5);
    computer_plan_cleanup(&pl);
    refused(COMPUTER_GEMINI, "wait", "{\"seconds\":31}", &FULL, "at most 30");
}

/* The rest of each table, one call each: what it becomes. */
static void every_other_action(void **state)
{
    (void)state;
    static const struct {
        enum computer_proto p;
        const char *name, *json;
        enum op_id op;
        const char *text; /* the step's keys or text, or NULL */
    } rows[] = {
        {COMPUTER_GEMINI, "hover_at", "{\"x\":1,\"y\":2}", OP_MOVE_AT, NULL},
        {COMPUTER_GEMINI, "go_back", "{}", OP_KEY, "alt+left"},
        {COMPUTER_GEMINI, "go_forward", "{}", OP_KEY, "alt+right"},
        {COMPUTER_GEMINI, "navigate", "{\"url\":\"https://example.com\"}", OP_LAUNCH, NULL},
        {COMPUTER_GEMINI, "click", "{\"x\":1,\"y\":2}", OP_CLICK_AT, NULL},
        {COMPUTER_GEMINI, "double_click", "{\"x\":1,\"y\":2}", OP_CLICK_AT, NULL},
        {COMPUTER_GEMINI, "middle_click", "{\"x\":1,\"y\":2}", OP_CLICK_AT, NULL},
        {COMPUTER_GEMINI, "type", "{\"text\":\"hi\"}", OP_TYPE, "hi"},
        {COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"click\",\"button\":\"back\"}}",
         OP_KEY, "alt+left"},
        {COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"type\",\"text\":\"x\"}}", OP_TYPE,
         "x"},
        {COMPUTER_ANTHROPIC, "computer", "{\"action\":\"wait\",\"duration\":2}", OP_WAIT, NULL},
        {COMPUTER_ANTHROPIC, "computer", "{\"action\":\"middle_click\"}", OP_CLICK_AT, NULL},
        {COMPUTER_ANTHROPIC, "computer", "{\"action\":\"right_click\",\"coordinate\":[1,1]}",
         OP_CLICK_AT, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct computer_plan pl;
        planned(rows[i].p, rows[i].name, rows[i].json, &FULL, 1, &pl);
        const struct op_request *q = &pl.steps[0];
        assert_int_equal(q->op->id, rows[i].op);
        if (rows[i].text)
            assert_string_equal(q->op->id == OP_KEY ? q->keys : q->text, rows[i].text);
        computer_plan_cleanup(&pl);
    }
    struct computer_plan pl;
    planned(COMPUTER_GEMINI, "double_click", "{\"x\":1,\"y\":2}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].clicks, 2);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "middle_click", "{\"x\":1,\"y\":2}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].button, WA_BUTTON_MIDDLE);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "type", "{\"text\":\"hi\",\"press_enter\":true}", &FULL, 2, &pl);
    assert_string_equal(pl.steps[1].keys, "enter");
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "take_screenshot", "{}", &FULL, 0, &pl); /* the answer has one */
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"wait\"}", &FULL, 1, &pl);
    assert_true(pl.steps[0].seconds == 1);
    computer_plan_cleanup(&pl);
}

static void gemini_scrolls_by_pixels_or_by_the_grid(void **state)
{
    (void)state;
    struct computer_plan pl;
    /* 3.5: magnitude_in_pixels, 300 when absent; about 50 pixels a notch */
    planned(COMPUTER_GEMINI, "scroll", "{\"x\":500,\"y\":500,\"direction\":\"down\"}", &FULL, 1,
            &pl);
    at(&pl.steps[0], OP_SCROLL_AT, 840, 500);
    assert_int_equal(pl.steps[0].direction, DIR_DOWN);
    assert_int_equal(pl.steps[0].amount, 6);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "scroll",
            "{\"x\":500,\"y\":500,\"direction\":\"Up\",\"magnitude_in_pixels\":120}", &FULL, 1,
            &pl);
    assert_int_equal(pl.steps[0].direction, DIR_UP);
    assert_int_equal(pl.steps[0].amount, 2);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "scroll",
            "{\"x\":5,\"y\":5,\"direction\":\"left\",\"magnitude_in_pixels\":5}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].amount, 1); /* never none */
    computer_plan_cleanup(&pl);
    /* the first set: magnitude 0-999 of the display (800 when absent): 999 of 800 pixels
     * is 16 notches; scroll_document goes to the window in front */
    planned(COMPUTER_GEMINI, "scroll_document", "{\"direction\":\"down\",\"magnitude\":999}", &FULL,
            1, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_SCROLL);
    assert_false(op_request_has(&pl.steps[0], ARG_X));
    assert_int_equal(pl.steps[0].amount, 16);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_GEMINI, "scroll_at", "{\"x\":5,\"y\":5,\"direction\":\"down\"}", &SCALED, 1,
            &pl);
    assert_int_equal(pl.steps[0].amount, 19); /* 800/1000 of 1200 pixels */
    computer_plan_cleanup(&pl);
}

static void pixels_of_a_full_size_screenshot_are_screen_pixels(void **state)
{
    (void)state;
    struct computer_plan pl;
    planned(COMPUTER_OPENAI, "computer",
            "{\"action\":{\"type\":\"click\",\"button\":\"right\",\"x\":100,\"y\":50}}", &FULL, 1,
            &pl);
    at(&pl.steps[0], OP_CLICK_AT, 300, 150);
    assert_int_equal(pl.steps[0].button, WA_BUTTON_RIGHT);
    computer_plan_cleanup(&pl);

    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"left_click\",\"coordinate\":[1279,799]}",
            &FULL, 1, &pl);
    at(&pl.steps[0], OP_CLICK_AT, 1479, 899);
    assert_int_equal(pl.steps[0].button, WA_BUTTON_LEFT);
    computer_plan_cleanup(&pl);
}

static void pixels_of_a_downscaled_screenshot_are_scaled_back(void **state)
{
    (void)state;
    int sx, sy, x, y;
    assert_int_equal(computer_pixel_to_screen(&SCALED, 640, 400, &sx, &sy), 0);
    assert_int_equal(sx, 960); /* the middle of image pixel 640 is screen 960.75 */
    assert_int_equal(sy, 600);
    assert_int_equal(computer_pixel_to_screen(&SCALED, 0, 0, &sx, &sy), 0);
    assert_int_equal(sx, 0);
    assert_int_equal(computer_pixel_to_screen(&SCALED, 1279, 799, &sx, &sy), 0);
    assert_int_equal(sx, 1919);
    assert_int_equal(sy, 1199);
    /* and back: every screenshot pixel maps to a screen pixel that maps to it again */
    for (int i = 0; i < 1280; i += 7) {
        assert_int_equal(computer_pixel_to_screen(&SCALED, i, i % 800, &sx, &sy), 0);
        assert_true(computer_screen_to_pixel(&SCALED, sx, sy, &x, &y));
        assert_int_equal(x, i);
        assert_int_equal(y, i % 800);
    }
    assert_false(computer_screen_to_pixel(&FULL, 100, 100, &x, &y)); /* off the display */

    struct computer_plan pl;
    planned(COMPUTER_OPENAI, "computer",
            "{\"action\":{\"type\":\"drag\",\"path\":[{\"x\":10,\"y\":10},"
            "{\"x\":50,\"y\":60},{\"x\":100,\"y\":200}]}}",
            &SCALED, 1, &pl);
    at(&pl.steps[0], OP_DRAG_AT, 15, 15);
    assert_int_equal(pl.steps[0].to_x, 150);
    assert_int_equal(pl.steps[0].to_y, 300);
    computer_plan_cleanup(&pl);

    /* a double click lands on the exact screen pixel, not through 0-999 */
    planned(COMPUTER_ANTHROPIC, "computer",
            "{\"action\":\"double_click\",\"coordinate\":[640,400]}", &SCALED, 1, &pl);
    at(&pl.steps[0], OP_CLICK_AT, 960, 600);
    assert_int_equal(pl.steps[0].clicks, 2);
    computer_plan_cleanup(&pl);

    refused(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"left_click\",\"coordinate\":[1280,5]}",
            &SCALED, "outside the 1280x800 screenshot");
    struct computer_view none = {{0, 0, 0, 0}, 0, 0};
    refused(COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"move\",\"x\":1,\"y\":1}}", &none,
            "take one first");
}

static void anthropic_actions_by_version(void **state)
{
    (void)state;
    struct computer_plan pl;
    /* clicks without a coordinate click where the pointer is; text holds modifiers */
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"left_click\",\"text\":\"ctrl\"}", &FULL,
            1, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_CLICK_AT);
    assert_false(op_request_has(&pl.steps[0], ARG_X));
    assert_string_equal(pl.steps[0].hold, "ctrl");
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer",
            "{\"action\":\"scroll\",\"coordinate\":[0,0],\"scroll_direction\":\"up\","
            "\"scroll_amount\":5,\"text\":\"shift\"}",
            &FULL, 1, &pl);
    at(&pl.steps[0], OP_SCROLL_AT, 200, 100);
    assert_int_equal(pl.steps[0].direction, DIR_UP);
    assert_int_equal(pl.steps[0].amount, 5);
    assert_string_equal(pl.steps[0].hold, "shift");
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer",
            "{\"action\":\"scroll\",\"scroll_direction\":\"down\",\"scroll_amount\":2}", &FULL, 1,
            &pl);
    assert_int_equal(pl.steps[0].op->id, OP_SCROLL_AT); /* at the pointer */
    assert_false(op_request_has(&pl.steps[0], ARG_X));
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"triple_click\",\"coordinate\":[10,10]}",
            &FULL, 1, &pl);
    at(&pl.steps[0], OP_CLICK_AT, 210, 110);
    assert_int_equal(pl.steps[0].clicks, 3);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"left_mouse_down\"}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_MOUSE_DOWN);
    assert_false(op_request_has(&pl.steps[0], ARG_X));
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"left_mouse_up\",\"coordinate\":[20,30]}",
            &FULL, 1, &pl);
    at(&pl.steps[0], OP_MOUSE_UP, 220, 130);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer",
            "{\"action\":\"left_click_drag\",\"start_coordinate\":[1,2],\"coordinate\":[30,40]}",
            &FULL, 1, &pl);
    at(&pl.steps[0], OP_DRAG_AT, 201, 102);
    assert_int_equal(pl.steps[0].to_x, 230);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"cursor_position\"}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_POINTER);
    computer_plan_cleanup(&pl);

    /* hold_key: down, the wait, and up, which runs even if the wait is cut short */
    planned(COMPUTER_ANTHROPIC, "computer",
            "{\"action\":\"hold_key\",\"text\":\"shift\",\"duration\":1.5}", &FULL, 3, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_KEY_DOWN);
    assert_int_equal(pl.steps[1].op->id, OP_WAIT);
    assert_true(pl.steps[1].seconds == 1.5);
    assert_int_equal(pl.steps[2].op->id, OP_KEY_UP);
    assert_string_equal(pl.steps[2].keys, "shift");
    assert_false(pl.release[1]);
    assert_true(pl.release[2]);
    computer_plan_cleanup(&pl);
    refused(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"hold_key\",\"text\":\"a\"}", &FULL,
            "needs \"duration\"");

    /* zoom: the region of the screenshot as an image of the screen region it shows,
     * never larger than the display */
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"zoom\",\"region\":[0,0,320,200]}",
            &SCALED, 1, &pl);
    const struct op_request *z = &pl.steps[0];
    assert_int_equal(z->op->id, OP_SCREENSHOT);
    assert_int_equal(z->x, 0);
    assert_int_equal(z->to_x, 480);
    assert_int_equal(z->to_y, 300);
    assert_int_equal(z->max_edge, 480); /* full resolution */
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"zoom\",\"region\":[0,0,1280,800]}",
            &SCALED, 1, &pl);
    assert_int_equal(pl.steps[0].max_edge, 1280); /* the display's size at most */
    computer_plan_cleanup(&pl);
    refused(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"zoom\",\"region\":[10,10,5,50]}",
            &SCALED, "not a rectangle");
    refused(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"zoom\"}", &SCALED, "needs \"region\"");
}

static void openai_keys_are_held_on_every_pointer_action(void **state)
{
    (void)state;
    static const char *const actions[] = {
        "{\"type\":\"click\",\"button\":\"left\",\"x\":1,\"y\":2,\"keys\":[\"CTRL\"]}",
        "{\"type\":\"double_click\",\"x\":1,\"y\":2,\"keys\":[\"CTRL\"]}",
        "{\"type\":\"move\",\"x\":1,\"y\":2,\"keys\":[\"CTRL\"]}",
        "{\"type\":\"scroll\",\"x\":1,\"y\":2,\"scroll_y\":100,\"keys\":[\"CTRL\"]}",
        "{\"type\":\"drag\",\"path\":[{\"x\":1,\"y\":2},{\"x\":3,\"y\":4}],\"keys\":[\"CTRL\"]}",
    };
    for (size_t i = 0; i < sizeof actions / sizeof *actions; i++) {
        char json[300];
        snprintf(json, sizeof json, "{\"action\":%s}", actions[i]);
        struct computer_plan pl;
        planned(COMPUTER_OPENAI, "computer", json, &FULL, 1, &pl);
        assert_string_equal(pl.steps[0].hold, "CTRL");
        computer_plan_cleanup(&pl);
    }
    struct computer_plan pl;
    planned(COMPUTER_OPENAI, "computer",
            "{\"action\":{\"type\":\"click\",\"x\":1,\"y\":2,\"keys\":[\"CTRL\",\"SHIFT\"]}}",
            &FULL, 1, &pl);
    assert_string_equal(pl.steps[0].hold, "CTRL+SHIFT");
    computer_plan_cleanup(&pl);
    planned(COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"click\",\"x\":1,\"y\":2}}", &FULL,
            1, &pl);
    assert_false(op_request_has(&pl.steps[0], ARG_HOLD));
    computer_plan_cleanup(&pl);
    planned(COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"wait\"}}", &FULL, 1, &pl);
    assert_true(pl.steps[0].seconds == 1);
    computer_plan_cleanup(&pl);
}

static void compound_actions_become_steps(void **state)
{
    (void)state;
    struct computer_plan pl;
    planned(COMPUTER_GEMINI, "type_text_at",
            "{\"x\":100,\"y\":200,\"text\":\"héllo\",\"press_enter\":true}", &FULL, 4, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_CLICK_AT);
    assert_int_equal(pl.steps[1].op->id, OP_KEY);
    assert_string_equal(pl.steps[1].keys, "ctrl+a delete");
    assert_int_equal(pl.steps[2].op->id, OP_TYPE);
    assert_string_equal(pl.steps[2].text, "héllo");
    assert_string_equal(pl.steps[3].keys, "enter");
    computer_plan_cleanup(&pl);

    planned(COMPUTER_GEMINI, "type_text_at",
            "{\"x\":1,\"y\":2,\"text\":\"a\",\"clear_before_typing\":false}", &FULL, 2, &pl);
    computer_plan_cleanup(&pl);

    /* OpenAI's GA tool batches actions */
    planned(COMPUTER_OPENAI, "computer",
            "{\"actions\":[{\"type\":\"keypress\",\"keys\":[\"CTRL\",\"A\"]},"
            "{\"type\":\"type\",\"text\":\"x\"},{\"type\":\"screenshot\"}]}",
            &FULL, 2, &pl);
    assert_string_equal(pl.steps[0].keys, "CTRL+A");
    assert_string_equal(pl.steps[1].text, "x");
    computer_plan_cleanup(&pl);
}

static void keys_and_plain_scrolls(void **state)
{
    (void)state;
    struct computer_plan pl;
    planned(COMPUTER_GEMINI, "key_combination", "{\"keys\":\"Control+C\"}", &FULL, 1, &pl);
    assert_string_equal(pl.steps[0].keys, "Control+C");
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"key\",\"text\":\"ctrl+s\"}", &FULL, 1,
            &pl);
    assert_string_equal(pl.steps[0].keys, "ctrl+s");
    computer_plan_cleanup(&pl);

    planned(COMPUTER_OPENAI, "computer",
            "{\"action\":{\"type\":\"scroll\",\"x\":10,\"y\":20,\"scroll_x\":0,\"scroll_y\":150}}",
            &FULL, 1, &pl);
    at(&pl.steps[0], OP_SCROLL_AT, 210, 120);
    assert_int_equal(pl.steps[0].direction, DIR_DOWN);
    assert_int_equal(pl.steps[0].amount, 3);
    computer_plan_cleanup(&pl);
    planned(
        COMPUTER_OPENAI, "computer",
        "{\"action\":{\"type\":\"scroll\",\"x\":10,\"y\":20,\"scroll_x\":-100,\"scroll_y\":-50}}",
        &FULL, 2, &pl);
    assert_int_equal(pl.steps[0].direction, DIR_UP);
    assert_int_equal(pl.steps[0].amount, 1);
    assert_int_equal(pl.steps[1].direction, DIR_LEFT);
    assert_int_equal(pl.steps[1].amount, 2);
    computer_plan_cleanup(&pl);

    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"screenshot\"}", &FULL, 0, &pl);
    computer_plan_cleanup(&pl);
}

static void what_cannot_be_done_is_said(void **state)
{
    (void)state;
    refused(COMPUTER_GEMINI, "teleport", "{}", &FULL, "unknown computer action \"teleport\"");
    refused(COMPUTER_GEMINI, "teleport", "{}", &FULL, "click_at, hover_at");
    refused(COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"left_click\"}}", &FULL,
            "the actions are click, double_click");
    refused(COMPUTER_ANTHROPIC, "computer", "{\"coordinate\":[1,1]}", &FULL, "needs \"action\"");
    refused(COMPUTER_GEMINI, "open_web_browser", "{}", &FULL, "not a browser");
    refused(COMPUTER_GEMINI, "scroll_at", "{\"x\":1,\"y\":1,\"direction\":\"sideways\"}", &FULL,
            "up, down, left or right");
    refused(COMPUTER_GEMINI, "key_combination", "{}", &FULL, "needs \"keys\"");
    refused(COMPUTER_GEMINI, "key_down", "{}", &FULL, "needs \"key\"");
    refused(COMPUTER_GEMINI, "click", "{}", &FULL, "needs \"x\" and \"y\"");
}

static void safety_checks_are_read(void **state)
{
    (void)state;
    char why[200];
    cJSON *a = cJSON_Parse("{\"x\":1,\"y\":2,\"safety_decision\":{\"decision\":"
                           "\"require_confirmation\",\"explanation\":\"Accepting cookies\"}}");
    assert_int_equal(computer_safety_check(COMPUTER_GEMINI, a, why, sizeof why), COMPUTER_CONFIRM);
    assert_string_equal(why, "Accepting cookies");
    assert_string_equal(computer_action_name(COMPUTER_GEMINI, "click_at", a), "click_at");
    cJSON_Delete(a);
    a = cJSON_Parse("{\"x\":1,\"safety_decision\":{\"decision\":\"blocked\","
                    "\"explanation\":\"Deleting files\"}}");
    assert_int_equal(computer_safety_check(COMPUTER_GEMINI, a, why, sizeof why), COMPUTER_BLOCKED);
    assert_string_equal(why, "Deleting files");
    cJSON_Delete(a);
    a = cJSON_Parse("{\"x\":1,\"safety_decision\":{\"decision\":\"regular\"}}");
    assert_int_equal(computer_safety_check(COMPUTER_GEMINI, a, why, sizeof why), COMPUTER_SAFE);
    cJSON_Delete(a);
    a = cJSON_Parse("{\"action\":{\"type\":\"wait\"},\"pending_safety_checks\":[{\"id\":\"cu_1\","
                    "\"code\":\"malicious_instructions\",\"message\":\"Odd text on screen\"}]}");
    assert_int_equal(computer_safety_check(COMPUTER_OPENAI, a, why, sizeof why), COMPUTER_CONFIRM);
    assert_string_equal(why, "Odd text on screen");
    assert_string_equal(computer_action_name(COMPUTER_OPENAI, "computer", a), "wait");
    cJSON_Delete(a);
    a = cJSON_Parse("{\"action\":{\"type\":\"wait\"},\"pending_safety_checks\":[]}");
    assert_int_equal(computer_safety_check(COMPUTER_OPENAI, a, why, sizeof why), COMPUTER_SAFE);
    cJSON_Delete(a);
    a = cJSON_Parse("{\"action\":\"left_click\"}");
    assert_string_equal(computer_action_name(COMPUTER_ANTHROPIC, "computer", a), "left_click");
    cJSON_Delete(a);
}

/* The toolset's member calls: the name is the action (no "action" field), key takes a
 * repeat of 1-100 (steps of at most 16 chords), wait and hold_key up to 300 seconds (waits
 * of at most 30 each); the older tool's "action" still reads as before. */
static void toolset_members(void **state)
{
    (void)state;
    struct computer_plan pl;
    planned(COMPUTER_ANTHROPIC, "left_click", "{\"coordinate\":[10,20]}", &FULL, 1, &pl);
    assert_int_equal(pl.steps[0].op->id, OP_CLICK_AT);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"left_click\",\"coordinate\":[1,2]}",
            &FULL, 1, &pl);
    computer_plan_cleanup(&pl);
    assert_string_equal(computer_action_name(COMPUTER_ANTHROPIC, "type", NULL), "type");
    /* key with repeat: 40 Enters, three steps (16, 16, 8) */
    planned(COMPUTER_ANTHROPIC, "key", "{\"text\":\"Return\",\"repeat\":40}", &FULL, 3, &pl);
    for (size_t i = 0; i < pl.n; i++)
        assert_int_equal(pl.steps[i].op->id, OP_KEY);
    size_t chords = 0;
    for (size_t i = 0; i < pl.n; i++)
        for (const char *c = pl.steps[i].keys; c && *c; c++)
            chords += *c == 'R';
    assert_int_equal(chords, 40);
    computer_plan_cleanup(&pl);
    planned(COMPUTER_ANTHROPIC, "key", "{\"text\":\"ctrl+a\",\"repeat\":1}", &FULL, 1, &pl);
    assert_string_equal(pl.steps[0].keys, "ctrl+a");
    computer_plan_cleanup(&pl);
    refused(COMPUTER_ANTHROPIC, "key", "{\"text\":\"a\",\"repeat\":101}", &FULL, "1-100");
    refused(COMPUTER_ANTHROPIC, "key", "{\"text\":\"a\",\"repeat\":0}", &FULL, "1-100");
    /* a wait of 95 s: 30 + 30 + 30 + 5; 300 at most */
    planned(COMPUTER_ANTHROPIC, "wait", "{\"duration\":95}", &FULL, 4, &pl);
    assert_true(pl.steps[3].seconds > 4.9 && pl.steps[3].seconds < 5.1);
    computer_plan_cleanup(&pl);
    refused(COMPUTER_ANTHROPIC, "wait", "{\"duration\":301}", &FULL, "at most 300");
    /* hold_key for 300 s: down, ten waits, up (the up runs whatever happened before) */
    planned(COMPUTER_ANTHROPIC, "hold_key", "{\"text\":\"shift\",\"duration\":300}", &FULL, 12,
            &pl);
    assert_int_equal(pl.steps[0].op->id, OP_KEY_DOWN);
    assert_int_equal(pl.steps[11].op->id, OP_KEY_UP);
    assert_true(pl.release[11]);
    computer_plan_cleanup(&pl);
    /* Gemini and OpenAI keep their 30 */
    refused(COMPUTER_GEMINI, "wait", "{\"seconds\":31}", &FULL, "at most 30");
}

/* The display a model is told of: within its family's own image limits, whatever the
 * screen (llm/models.h). */
static void displays_fit_each_service(void **state)
{
    (void)state;
    static const int screens[][2] = {{1920, 1080}, {1280, 1024}, {1024, 768}, {2560, 1600},
                                     {3840, 2160}, {1080, 1920}, {800, 600},  {1366, 768}};
    const struct model_family *old = model_family("claude-sonnet-4-6");
    const struct model_family *now = model_family("claude-opus-5-5");
    const struct model_family *gpt = model_family("gpt-5.5");
    for (size_t i = 0; i < sizeof screens / sizeof *screens; i++) {
        int w = screens[i][0], h = screens[i][1], edge, sw, sh, short_edge;
        long pixels;
        computer_image_limits(old, 1280, 4, &edge, &pixels, &short_edge);
        image_fit(w, h, image_edge_within(w, h, edge, pixels, short_edge), &sw, &sh);
        assert_true(sw <= 1280 && sh <= 1280 && (long)sw * sh <= 1150000);
        computer_image_limits(old, 0, 4, &edge, &pixels, &short_edge); /* no --max-edge */
        image_fit(w, h, image_edge_within(w, h, edge, pixels, short_edge), &sw, &sh);
        assert_true(sw <= 1568 && sh <= 1568 && (long)sw * sh <= 1150000);
        computer_image_limits(now, 0, 4, &edge, &pixels, &short_edge);
        image_fit(w, h, image_edge_within(w, h, edge, pixels, short_edge), &sw, &sh);
        assert_true(sw <= 2576 && sh <= 2576 && (long)sw * sh <= 3588000);
        computer_image_limits(now, 0, 31, &edge, &pixels, &short_edge); /* past 20 images */
        image_fit(w, h, image_edge_within(w, h, edge, pixels, short_edge), &sw, &sh);
        assert_true(sw <= 2000 && sh <= 2000);
        computer_image_limits(gpt, 4000, 4, &edge, &pixels, &short_edge);
        image_fit(w, h, image_edge_within(w, h, edge, pixels, short_edge), &sw, &sh);
        assert_true(sw <= 2048 && sh <= 2048 && (sw < sh ? sw : sh) <= 768);
    }
    int edge, sw, sh, short_edge;
    long pixels;
    /* a 1920x1080 screen goes whole to Claude 4.7 and later, not cut to 1280 */
    computer_image_limits(now, 0, 4, &edge, &pixels, &short_edge);
    assert_int_equal(image_edge_within(1920, 1080, edge, pixels, short_edge), 1920);
    /* 4:3 at --max-edge 1280 is 1.31 megapixels: scaled to fit an older Claude's 1.15 */
    computer_image_limits(old, 1280, 4, &edge, &pixels, &short_edge);
    image_fit(1280, 1024, image_edge_within(1280, 1024, edge, pixels, short_edge), &sw, &sh);
    assert_int_equal(sw, 1199);
    assert_int_equal(sh, 959);
    /* Gemini: the user's edge alone, 1280 when none */
    computer_image_limits(model_family("gemini-3.6-flash"), 0, 4, &edge, &pixels, &short_edge);
    assert_int_equal(image_edge_within(1920, 1080, edge, pixels, short_edge), 1280);
}

static void gemini_environment_by_model(void **state)
{
    (void)state;
    assert_false(computer_gemini_desktop("gemini-2.5-computer-use-preview-10-2025"));
    /* "Gemini 3.x models support three environments" (the computer use page, 2026-07-30) */
    assert_true(computer_gemini_desktop("models/gemini-3-flash-preview"));
    assert_true(computer_gemini_desktop("gemini-3.5-flash"));
    assert_true(computer_gemini_desktop("gemini-3.6-flash"));
    assert_true(computer_gemini_desktop("gemini-4-flash")); /* a later one: the newest shapes */
    const char *const *f = computer_gemini_browser_only;
    assert_string_equal(f[0], "open_web_browser");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemini_grid_is_the_display),
        cmocka_unit_test(toolset_members),
        cmocka_unit_test(gemini_drags_by_either_set_of_names),
        cmocka_unit_test(gemini_35_actions),
        cmocka_unit_test(gemini_scrolls_by_pixels_or_by_the_grid),
        cmocka_unit_test(every_other_action),
        cmocka_unit_test(pixels_of_a_full_size_screenshot_are_screen_pixels),
        cmocka_unit_test(pixels_of_a_downscaled_screenshot_are_scaled_back),
        cmocka_unit_test(anthropic_actions_by_version),
        cmocka_unit_test(openai_keys_are_held_on_every_pointer_action),
        cmocka_unit_test(compound_actions_become_steps),
        cmocka_unit_test(keys_and_plain_scrolls),
        cmocka_unit_test(what_cannot_be_done_is_said),
        cmocka_unit_test(safety_checks_are_read),
        cmocka_unit_test(displays_fit_each_service),
        cmocka_unit_test(gemini_environment_by_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
