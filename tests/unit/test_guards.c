/* The loop guards (agent/run/guards.c) on scripted calls: an alternation is told once and
 * ends the run when it goes on, but only while the window comes back to the same state;
 * a still screen ends the run across turns, not within one reply; failures and exact
 * repeats as before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/run/guards.h"

/* One call: its arguments, what it acted on, and the screen it left (a tree's text). */
struct outcome {
    const char *note;
    bool stop;
    char reason[300];
};

static struct outcome call(struct guards *g, int step, const char *args, const char *screen,
                           bool failed)
{
    struct op_result r;
    op_result_init(&r);
    r.op = op_def(OP_CLICK);
    r.obs.kind = OBS_TREE;
    r.obs.text = (char *)screen;
    r.err = failed ? WA_E_ELEMENT_NOT_FOUND : WA_E_OK;
    struct outcome o = {0};
    o.note = guards_after_call(g, step, "desktop", args, args, &r, true, &o.stop, o.reason,
                               sizeof o.reason);
    r.obs.text = NULL;
    op_result_cleanup(&r);
    return o;
}

static void an_alternation_is_told_once_then_ends_the_run(void **state)
{
    (void)state;
    struct guards g = {0};
    const char *a = "{\"action\":\"expand\"}", *b = "{\"action\":\"collapse\"}";
    assert_null(call(&g, 1, a, "open", false).note);
    assert_null(call(&g, 2, b, "shut", false).note);
    assert_null(call(&g, 3, a, "open", false).note);
    struct outcome o = call(&g, 4, b, "shut", false);
    assert_non_null(o.note);
    assert_non_null(strstr(o.note, "back and forth"));
    assert_false(o.stop);
    o = call(&g, 5, a, "open", false);
    assert_null(o.note); /* told once */
    assert_false(o.stop);
    o = call(&g, 6, b, "shut", false);
    assert_true(o.stop);
    assert_non_null(strstr(o.reason, "stuck (alternation): the last 6 calls"));
    assert_non_null(strstr(o.reason, "{\"action\":\"expand\"} and {\"action\":\"collapse\"}"));
}

static void an_alternation_that_gets_somewhere_goes_on(void **state)
{
    (void)state;
    struct guards g = {0};
    const char *scroll = "{\"action\":\"scroll\"}", *look = "{\"action\":\"window_screenshot\"}";
    char screen[32];
    for (int i = 0; i < 12; i++) { /* each scroll shows more of a long page */
        snprintf(screen, sizeof screen, "page %d", i / 2);
        struct outcome o = call(&g, i + 1, i % 2 ? look : scroll, screen, false);
        assert_false(o.stop);
        assert_null(o.note);
    }
}

static void a_still_screen_ends_the_run_across_turns(void **state)
{
    (void)state;
    struct guards g = {0};
    char args[40];
    /* seven calls of one reply that change nothing: told, but not ended */
    for (int i = 0; i < 7; i++) {
        snprintf(args, sizeof args, "{\"x\":%d}", i);
        struct outcome o = call(&g, 1, args, "same", false);
        assert_false(o.stop);
        if (i >= UNCHANGED_WARN)
            assert_non_null(strstr(o.note, "has not changed"));
    }
    /* the streak goes on over the next turns: the run ends */
    struct outcome o = call(&g, 2, "{\"x\":100}", "same", false);
    assert_false(o.stop);
    o = call(&g, 3, "{\"x\":101}", "same", false);
    assert_true(o.stop);
    assert_non_null(strstr(o.reason, "stuck (no change): 8 actions in a row"));
    /* a change starts it over */
    struct guards h = {0};
    for (int i = 0; i < 20; i++) {
        snprintf(args, sizeof args, "{\"x\":%d}", i);
        assert_false(call(&h, i + 1, args, i % 5 ? "same" : "other", false).stop);
    }
}

static void repeated_failures_and_exact_repeats(void **state)
{
    (void)state;
    struct guards g = {0};
    struct outcome o;
    for (int i = 1; i <= SAME_FAILURE_STOP; i++) {
        o = call(&g, i, "{\"element\":77}", "same", true);
        if (i >= SAME_FAILURE_WARN && i < SAME_FAILURE_STOP)
            assert_non_null(strstr(o.note, "failed several times"));
    }
    assert_true(o.stop);
    assert_non_null(strstr(o.reason, "the same call failed 5 times"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_alternation_is_told_once_then_ends_the_run),
        cmocka_unit_test(an_alternation_that_gets_somewhere_goes_on),
        cmocka_unit_test(a_still_screen_ends_the_run_across_turns),
        cmocka_unit_test(repeated_failures_and_exact_repeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
