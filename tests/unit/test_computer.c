/* The computer-use actions of Gemini, OpenAI and Anthropic become the core's requests
 * with their coordinates brought exactly to the frame (0-999 kept, pixels of a
 * possibly downscaled screenshot mapped to screen pixels), and what cannot be done is
 * refused with words the model can act on. */
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
#include "automation/coords.h"

/* A screenshot of the window at (200,100), 1280x800, sent at full size. */
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

static void gemini_points_stay_on_the_grid(void **state)
{
    (void)state;
    struct computer_plan pl;
    assert_int_equal(plan(COMPUTER_GEMINI, "click_at", "{\"x\":500,\"y\":250}", &FULL, &pl), 0);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.steps[0].op->id, OP_CLICK);
    assert_int_equal(pl.steps[0].x, 500);
    assert_int_equal(pl.steps[0].y, 250);
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_GEMINI, "drag_and_drop",
                          "{\"x\":10,\"y\":20,\"destination_x\":900,\"destination_y\":999}", &FULL,
                          &pl),
                     0);
    assert_int_equal(pl.steps[0].op->id, OP_DRAG);
    assert_int_equal(pl.steps[0].to_x, 900);
    assert_int_equal(pl.steps[0].to_y, 999);
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_GEMINI, "right_click", "{\"x\":\"7\",\"y\":8}", &FULL, &pl), 0);
    assert_int_equal(pl.steps[0].op->id, OP_RIGHT_CLICK);
    assert_int_equal(pl.steps[0].x, 7);
    computer_plan_cleanup(&pl);

    refused(COMPUTER_GEMINI, "click_at", "{\"x\":1000,\"y\":5}", &FULL, "outside 0-999");
    refused(COMPUTER_GEMINI, "click_at", "{\"x\":5}", &FULL, "\"x\" and \"y\"");
}

static void pixels_of_a_full_size_screenshot_are_screen_pixels(void **state)
{
    (void)state;
    struct computer_plan pl;
    assert_int_equal(
        plan(COMPUTER_OPENAI, "computer",
             "{\"action\":{\"type\":\"click\",\"button\":\"right\",\"x\":100,\"y\":50}}", &FULL,
             &pl),
        0);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.steps[0].op->id, OP_CLICK_AT);
    assert_int_equal(pl.steps[0].x, 300);
    assert_int_equal(pl.steps[0].y, 150);
    assert_int_equal(pl.steps[0].button, WA_BUTTON_RIGHT);
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_ANTHROPIC, "computer",
                          "{\"action\":\"left_click\",\"coordinate\":[1279,799]}", &FULL, &pl),
                     0);
    assert_int_equal(pl.steps[0].op->id, OP_CLICK_AT);
    assert_int_equal(pl.steps[0].x, 1479);
    assert_int_equal(pl.steps[0].y, 899);
    assert_int_equal(pl.steps[0].button, WA_BUTTON_LEFT);
    computer_plan_cleanup(&pl);
}

static void pixels_of_a_downscaled_screenshot_are_scaled_back(void **state)
{
    (void)state;
    int sx, sy;
    assert_int_equal(computer_pixel_to_screen(&SCALED, 640, 400, &sx, &sy), 0);
    assert_int_equal(sx, 960); /* the middle of image pixel 640 is screen 960.75 */
    assert_int_equal(sy, 600);
    assert_int_equal(computer_pixel_to_screen(&SCALED, 0, 0, &sx, &sy), 0);
    assert_int_equal(sx, 0);
    assert_int_equal(computer_pixel_to_screen(&SCALED, 1279, 799, &sx, &sy), 0);
    assert_int_equal(sx, 1919);
    assert_int_equal(sy, 1199);

    struct computer_plan pl;
    assert_int_equal(plan(COMPUTER_OPENAI, "computer",
                          "{\"action\":{\"type\":\"drag\",\"path\":[{\"x\":10,\"y\":10},"
                          "{\"x\":50,\"y\":60},{\"x\":100,\"y\":200}]}}",
                          &SCALED, &pl),
                     0);
    assert_int_equal(pl.steps[0].op->id, OP_DRAG_AT);
    assert_int_equal(pl.steps[0].x, 15);
    assert_int_equal(pl.steps[0].to_x, 150);
    assert_int_equal(pl.steps[0].to_y, 300);
    computer_plan_cleanup(&pl);

    /* an action the core takes in 0-999 lands within one pixel of the screen point */
    assert_int_equal(plan(COMPUTER_ANTHROPIC, "computer",
                          "{\"action\":\"double_click\",\"coordinate\":[640,400]}", &SCALED, &pl),
                     0);
    assert_int_equal(pl.steps[0].op->id, OP_DOUBLE_CLICK);
    int px = norm_to_pixel(pl.steps[0].x, 0, 1920), py = norm_to_pixel(pl.steps[0].y, 0, 1200);
    assert_true(abs(px - 960) <= 1);
    assert_true(abs(py - 600) <= 1);
    computer_plan_cleanup(&pl);

    refused(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"left_click\",\"coordinate\":[1280,5]}",
            &SCALED, "outside the 1280x800 screenshot");
    struct computer_view none = {{0, 0, 0, 0}, 0, 0};
    refused(COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"move\",\"x\":1,\"y\":1}}", &none,
            "take one first");
}

static void compound_actions_become_steps(void **state)
{
    (void)state;
    struct computer_plan pl;
    assert_int_equal(plan(COMPUTER_GEMINI, "type_text_at",
                          "{\"x\":100,\"y\":200,\"text\":\"héllo\",\"press_enter\":true}", &FULL,
                          &pl),
                     0);
    assert_int_equal(pl.n, 4);
    assert_int_equal(pl.steps[0].op->id, OP_CLICK);
    assert_int_equal(pl.steps[1].op->id, OP_KEY);
    assert_string_equal(pl.steps[1].keys, "ctrl+a delete");
    assert_int_equal(pl.steps[2].op->id, OP_TYPE);
    assert_string_equal(pl.steps[2].text, "héllo");
    assert_string_equal(pl.steps[3].keys, "enter");
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_GEMINI, "type_text_at",
                          "{\"x\":1,\"y\":2,\"text\":\"a\",\"clear_before_typing\":false}", &FULL,
                          &pl),
                     0);
    assert_int_equal(pl.n, 2);
    computer_plan_cleanup(&pl);

    /* OpenAI's GA tool batches actions */
    assert_int_equal(plan(COMPUTER_OPENAI, "computer",
                          "{\"actions\":[{\"type\":\"keypress\",\"keys\":[\"CTRL\",\"A\"]},"
                          "{\"type\":\"type\",\"text\":\"x\"},{\"type\":\"screenshot\"}]}",
                          &FULL, &pl),
                     0);
    assert_int_equal(pl.n, 2);
    assert_string_equal(pl.steps[0].keys, "CTRL+A");
    assert_string_equal(pl.steps[1].text, "x");
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_ANTHROPIC, "computer",
                          "{\"action\":\"triple_click\",\"coordinate\":[10,10]}", &FULL, &pl),
                     0);
    assert_int_equal(pl.n, 2);
    assert_int_equal(pl.steps[0].op->id, OP_DOUBLE_CLICK);
    assert_int_equal(pl.steps[1].op->id, OP_CLICK_AT);
    computer_plan_cleanup(&pl);
}

static void keys_scrolls_and_waits(void **state)
{
    (void)state;
    struct computer_plan pl;
    assert_int_equal(
        plan(COMPUTER_GEMINI, "key_combination", "{\"keys\":\"Control+C\"}", &FULL, &pl), 0);
    assert_string_equal(pl.steps[0].keys, "Control+C");
    computer_plan_cleanup(&pl);
    assert_int_equal(plan(COMPUTER_ANTHROPIC, "computer",
                          "{\"action\":\"key\",\"text\":\"ctrl+s\"}", &FULL, &pl),
                     0);
    assert_string_equal(pl.steps[0].keys, "ctrl+s");
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_OPENAI, "computer",
                          "{\"action\":{\"type\":\"scroll\",\"x\":10,\"y\":20,\"scroll_x\":0,"
                          "\"scroll_y\":150}}",
                          &FULL, &pl),
                     0);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.steps[0].op->id, OP_SCROLL_AT);
    assert_int_equal(pl.steps[0].direction, DIR_DOWN);
    assert_int_equal(pl.steps[0].amount, 3);
    assert_int_equal(pl.steps[0].x, 210);
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_ANTHROPIC, "computer",
                          "{\"action\":\"scroll\",\"coordinate\":[0,0],\"scroll_direction\":\"up\","
                          "\"scroll_amount\":5}",
                          &FULL, &pl),
                     0);
    assert_int_equal(pl.steps[0].direction, DIR_UP);
    assert_int_equal(pl.steps[0].amount, 5);
    computer_plan_cleanup(&pl);

    /* Gemini's magnitude is 0-999 of the frame: 999 of 800 pixels is 16 notches */
    assert_int_equal(plan(COMPUTER_GEMINI, "scroll_document",
                          "{\"direction\":\"down\",\"magnitude\":999}", &FULL, &pl),
                     0);
    assert_int_equal(pl.steps[0].op->id, OP_SCROLL);
    assert_false(op_request_has(&pl.steps[0], ARG_X));
    assert_int_equal(pl.steps[0].amount, 16);
    computer_plan_cleanup(&pl);

    assert_int_equal(plan(COMPUTER_GEMINI, "wait_5_seconds", "{}", &FULL, &pl), 0);
    assert_int_equal(pl.steps[0].op->id, OP_WAIT);
    assert_true(pl.steps[0].seconds == 5);
    computer_plan_cleanup(&pl);

    assert_int_equal(
        plan(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"screenshot\"}", &FULL, &pl), 0);
    assert_int_equal(pl.n, 0);
    computer_plan_cleanup(&pl);
}

static void what_cannot_be_done_is_said(void **state)
{
    (void)state;
    refused(COMPUTER_GEMINI, "teleport", "{}", &FULL, "unknown computer action \"teleport\"");
    refused(COMPUTER_GEMINI, "teleport", "{}", &FULL, "click_at, hover_at");
    refused(COMPUTER_OPENAI, "computer", "{\"action\":{\"type\":\"left_click\"}}", &FULL,
            "the actions are click, double_click");
    refused(COMPUTER_ANTHROPIC, "computer", "{\"action\":\"zoom\",\"region\":[0,0,1,1]}", &FULL,
            "zoom is not supported");
    refused(COMPUTER_ANTHROPIC, "computer", "{\"coordinate\":[1,1]}", &FULL, "needs \"action\"");
    refused(COMPUTER_GEMINI, "open_web_browser", "{}", &FULL, "not a browser");
    refused(COMPUTER_OPENAI, "computer",
            "{\"action\":{\"type\":\"click\",\"x\":1,\"y\":1,\"keys\":[\"SHIFT\"]}}", &FULL,
            "keys held");
    refused(COMPUTER_GEMINI, "scroll_at", "{\"x\":1,\"y\":1,\"direction\":\"sideways\"}", &FULL,
            "up, down, left or right");
    refused(COMPUTER_GEMINI, "key_combination", "{}", &FULL, "needs \"keys\"");
}

static void safety_checks_are_found(void **state)
{
    (void)state;
    char why[200];
    cJSON *a = cJSON_Parse("{\"x\":1,\"y\":2,\"safety_decision\":{\"decision\":"
                           "\"require_confirmation\",\"explanation\":\"Accepting cookies\"}}");
    assert_true(computer_needs_confirmation(COMPUTER_GEMINI, a, why, sizeof why));
    assert_string_equal(why, "Accepting cookies");
    cJSON_Delete(a);
    a = cJSON_Parse("{\"x\":1,\"safety_decision\":{\"decision\":\"regular\"}}");
    assert_false(computer_needs_confirmation(COMPUTER_GEMINI, a, why, sizeof why));
    cJSON_Delete(a);
    a = cJSON_Parse("{\"action\":{\"type\":\"wait\"},\"pending_safety_checks\":[{\"id\":\"cu_1\","
                    "\"code\":\"malicious_instructions\",\"message\":\"Odd text on screen\"}]}");
    assert_true(computer_needs_confirmation(COMPUTER_OPENAI, a, why, sizeof why));
    assert_string_equal(why, "Odd text on screen");
    cJSON_Delete(a);
    a = cJSON_Parse("{\"action\":{\"type\":\"wait\"},\"pending_safety_checks\":[]}");
    assert_false(computer_needs_confirmation(COMPUTER_OPENAI, a, why, sizeof why));
    cJSON_Delete(a);
}

static void gemini_environment_by_model(void **state)
{
    (void)state;
    assert_false(computer_gemini_desktop("gemini-2.5-computer-use-preview-10-2025"));
    assert_false(computer_gemini_desktop("models/gemini-3-flash-preview"));
    assert_true(computer_gemini_desktop("gemini-3.5-flash"));
    const char *const *f = computer_gemini_browser_only;
    assert_string_equal(f[0], "open_web_browser");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemini_points_stay_on_the_grid),
        cmocka_unit_test(pixels_of_a_full_size_screenshot_are_screen_pixels),
        cmocka_unit_test(pixels_of_a_downscaled_screenshot_are_scaled_back),
        cmocka_unit_test(compound_actions_become_steps),
        cmocka_unit_test(keys_scrolls_and_waits),
        cmocka_unit_test(what_cannot_be_done_is_said),
        cmocka_unit_test(safety_checks_are_found),
        cmocka_unit_test(gemini_environment_by_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
