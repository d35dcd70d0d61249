/* The person at the desk, through core_perform on the fake desktop, whose scripted
 * person types or moves the mouse when winagent has sent so many inputs: acting is
 * refused while they are active (user_active, nothing sent), a run's session waits
 * until they are idle and looks again, --takeover stop ends the run, the stop gesture
 * lets no more input out, and ask_user goes to whoever the session says answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/request/wire.h"
#include "automation/fake/fake_backend.h"
#include "base/os.h"
#include "core_rig.h"

/* Notepad in front with its editor focused; a person as the test adds it. */
static const char scene_fmt[] =
    "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
    " \"windows\": ["
    "  {\"hwnd\": 256, \"title\": \"Untitled - Notepad\", \"class\": \"Notepad\","
    "   \"process\": \"notepad.exe\", \"pid\": 7, \"rect\": [100, 50, 1100, 850],"
    "   \"foreground\": true, \"color\": \"#ffffff\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Untitled - Notepad\","
    "     \"bounds\": [100, 50, 1100, 850], \"children\": ["
    "     {\"type\": \"Button\", \"name\": \"Save\", \"bounds\": [200, 70, 260, 90],"
    "      \"patterns\": [\"invoke\"]},"
    "     {\"type\": \"Edit\", \"name\": \"Text Editor\", \"bounds\": [100, 150, 1100, 850],"
    "      \"states\": [\"focused\"], \"value\": \"\", \"patterns\": [\"value\"]}]}}],"
    " \"shell\": {\"echo hi\": {\"exit\": 0, \"out\": \"hi\\r\\n\"}}%s}";

static char scene[4096];

static const char *with(const char *person)
{
    snprintf(scene, sizeof scene, scene_fmt, person);
    return scene;
}

static void open_desk(struct rig *t, const char *person, enum takeover takeover)
{
    struct core_config cfg = {.shell = SHELL_ALLOWED, .takeover = takeover, .idle_ms = 200};
    rig_open(t, with(person), &cfg, rig_state_dir, false);
}

/* The text the editor holds now, as the fake desktop has it. */
static char *editor_text(void)
{
    uint64_t control;
    char *v = NULL;
    assert_int_equal(backend_focused_value(backend_default(), 256, &control, &v), WA_E_OK);
    return v;
}

static void refused_while_the_person_is_active(void **state)
{
    (void)state;
    struct rig t;
    open_desk(&t, ", \"person\": [{\"at_ms\": 0, \"for_ms\": 60000, \"keyboard\": false}]",
              TAKEOVER_PAUSE);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save"), WA_E_USER_ACTIVE);
    assert_non_null(strstr(t.r.message, "a person is using the mouse"));
    assert_non_null(strstr(t.r.message, "nothing was sent"));
    assert_false(actions_hold("mouse_button"));
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=ctrl+s"), WA_E_USER_ACTIVE);
    assert_int_equal(rig_do(&t, OP_FOCUS_WINDOW, "window=notepad"), WA_E_USER_ACTIVE);
    assert_false(actions_hold("press_keys"));
    /* looking, and what does not touch their mouse and keyboard, go on */
    assert_int_equal(rig_do(&t, OP_STATE, "window=notepad"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_SHELL, "command=echo hi"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save|delivery=background"),
                     WA_E_OK);
    assert_string_equal(t.r.delivery, "background");
    assert_false(actions_hold("mouse_button"));
    /* the wire names it */
    cJSON *j =
        wire_result(&(struct op_result){.op = op_def(OP_CLICK), .err = WA_E_USER_ACTIVE}, NULL);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(j, "error"), "code")),
                        "user_active");
    cJSON_Delete(j);
    rig_close(&t);
}

static void sent_when_takeover_is_off_or_the_person_idle(void **state)
{
    (void)state;
    struct rig t;
    open_desk(&t, ", \"person\": [{\"at_ms\": 0, \"for_ms\": 60000}]", TAKEOVER_OFF);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save"), WA_E_OK);
    assert_true(actions_hold("mouse_button"));
    rig_close(&t);
    /* a person who was active and has been idle for the idle time is no reason to wait */
    open_desk(&t, ", \"person\": [{\"at_ms\": 0, \"for_ms\": 0}]", TAKEOVER_PAUSE);
    os_nap_ms(250);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save"), WA_E_OK);
    assert_true(actions_hold("mouse_button"));
    rig_close(&t);
}

static const char long_text[] = "0123456789abcdefghijklmnopqrstuvWXYZ0123456789abcdefghijkl";

/* Typing checks the person before every batch: their words stay, the rest of winagent's
 * are not sent. */
static void typing_stops_when_the_person_types(void **state)
{
    (void)state;
    struct rig t;
    open_desk(&t, ", \"person\": [{\"after_inputs\": 1, \"for_ms\": 300, \"type\": \"[mine]\"}]",
              TAKEOVER_PAUSE);
    char args[200];
    snprintf(args, sizeof args, "window=notepad|text=%s", long_text);
    assert_int_equal(rig_do(&t, OP_TYPE, args), WA_E_USER_ACTIVE);
    assert_non_null(strstr(t.r.message, "typing stopped after 32 of 58 bytes"));
    char *v = editor_text();
    assert_string_equal(v, "0123456789abcdefghijklmnopqrstuv[mine]");
    free(v);
    rig_close(&t);
}

static int pauses[2];
static double paused_for;

static void on_paused(void *ctx, double ms)
{
    (void)ctx;
    pauses[ms < 0 ? 0 : 1]++;
    if (ms >= 0)
        paused_for = ms;
}

/* A run's session waits until the person has been idle for the idle time, then looks
 * again: user_active still, with what changed and a fresh observation, and nothing more
 * sent. */
static void a_run_waits_and_looks_again(void **state)
{
    (void)state;
    struct rig t;
    open_desk(&t, ", \"person\": [{\"after_inputs\": 1, \"for_ms\": 300, \"type\": \"[mine]\"}]",
              TAKEOVER_PAUSE);
    struct session_opts o;
    session_opts_default(&o);
    o.front = "loop";
    o.model_names = true;
    o.after = AFTER_OBSERVE;
    o.observe.mode = OBS_A11Y;
    o.settle_ms = 0;
    o.wait_for_person = true;
    o.paused = on_paused;
    struct session *run;
    assert_int_equal(session_new(t.core, &o, &run), WA_E_OK);
    struct op_result r;
    op_result_init(&r);
    assert_int_equal(perform(run, OP_OBSERVE, "window=notepad|mode=a11y", &r), WA_E_OK);
    int64_t t0 = os_now_ms();
    char args[200];
    snprintf(args, sizeof args, "window=notepad|text=%s", long_text);
    assert_int_equal(perform(run, OP_TYPE, args, &r), WA_E_USER_ACTIVE);
    int64_t took = os_now_ms() - t0;
    assert_true(took >= 450); /* their 300 ms and 200 ms idle after */
    assert_int_equal(pauses[0], 1);
    assert_int_equal(pauses[1], 1);
    assert_true(paused_for >= 400 && r.paused_ms == paused_for);
    assert_non_null(strstr(r.message, "winagent waited"));
    assert_int_equal(r.obs.kind, OBS_TREE); /* looked again */
    assert_non_null(strstr(r.obs.text, "[mine]"));
    assert_true(r.has_changes && !r.nothing_changed);
    cJSON *j = wire_result(&r, NULL);
    cJSON *err = cJSON_GetObjectItemCaseSensitive(j, "error");
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(err, "paused_s")) >= 0.4);
    cJSON_Delete(j);
    char *v = editor_text();
    assert_string_equal(v, "0123456789abcdefghijklmnopqrstuv[mine]");
    free(v);
    /* idle now: the next call goes */
    assert_int_equal(perform(run, OP_TYPE, "window=notepad|text=!", &r), WA_E_OK);
    op_result_cleanup(&r);
    session_free(run);
    rig_close(&t);
}

/* --takeover stop: in a run, the person's input ends it (the process is interrupted by
 * the person) instead of waiting. */
static void takeover_stop_ends_the_run(void **state)
{
    (void)state;
    struct rig t;
    open_desk(&t, ", \"person\": [{\"at_ms\": 0, \"for_ms\": 60000}]", TAKEOVER_STOP);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save"), WA_E_USER_ACTIVE);
    assert_false(os_interrupted()); /* not a run's session: refused only */
    struct session_opts o;
    session_opts_default(&o);
    o.wait_for_person = true;
    struct session *run;
    assert_int_equal(session_new(t.core, &o, &run), WA_E_OK);
    struct op_result r;
    op_result_init(&r);
    assert_int_equal(perform(run, OP_CLICK, "window=notepad|ref=Button:Save", &r),
                     WA_E_USER_ACTIVE);
    assert_non_null(strstr(r.message, "--takeover stop"));
    assert_true(os_interrupted_by_person());
    assert_string_equal(os_interrupt_reason(), "the person took over");
    assert_false(actions_hold("mouse_button"));
    op_result_cleanup(&r);
    session_free(run);
    rig_close(&t);
    assert_true(os_interrupt_unmark(OS_INTERRUPT_TAKEN_OVER));
}

/* The stop gesture: the process is interrupted at once, and no acting call sends
 * anything afterwards (takeover off: the gesture works all the same). */
static void the_stop_gesture_lets_nothing_more_out(void **state)
{
    (void)state;
    struct rig t;
    open_desk(&t, ", \"stop_gesture\": {\"after_inputs\": 1}", TAKEOVER_OFF);
    core_watch_person(t.core);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=notepad|text=ab"), WA_E_OK);
    assert_true(actions_hold("stop_gesture"));
    assert_true(os_interrupted_by_person());
    assert_string_equal(os_interrupt_reason(), "stop gesture");
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=ctrl+s"), WA_E_INTERRUPTED);
    assert_non_null(strstr(t.r.message, "the person stopped winagent"));
    assert_int_equal(rig_do(&t, OP_SHELL, "command=echo hi"), WA_E_INTERRUPTED);
    assert_false(actions_hold("press_keys"));
    assert_false(actions_hold("run_shell"));
    assert_int_equal(rig_do(&t, OP_STATE, "window=notepad"), WA_E_OK); /* looking still works */
    rig_close(&t);
    assert_true(os_interrupt_unmark(OS_INTERRUPT_STOP_GESTURE));
}

/* ---- ask_user ---- */

static char asked[100];

static enum person_answer scripted_person(void *ctx, const char *question, bool confirm,
                                          const volatile bool *cancel, char **answer)
{
    (void)cancel;
    (void)confirm;
    snprintf(asked, sizeof asked, "%s", question);
    const char *reply = ctx;
    if (!reply)
        return PERSON_DECLINED;
    *answer = strdup(reply);
    return PERSON_ANSWERED;
}

static void ask_user_goes_to_whoever_answers(void **state)
{
    (void)state;
    struct rig t;
    open_desk(&t, "", TAKEOVER_PAUSE);
    /* nobody: at once, said so */
    assert_int_equal(rig_do(&t, OP_ASK_USER, "question=Which file?"), WA_E_OK);
    assert_false(t.r.has_text);
    cJSON *j = wire_result(&t.r, NULL);
    cJSON *data = cJSON_GetObjectItemCaseSensitive(j, "data");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(data, "answered")));
    char *text = cJSON_PrintUnformatted(j);
    assert_non_null(strstr(text, "no person is available"));
    cJSON_free(text);
    cJSON_Delete(j);
    /* someone answers */
    struct session_opts o;
    session_opts_default(&o);
    o.person = (struct person_asker){scripted_person, "the one from Monday"};
    struct session *s;
    assert_int_equal(session_new(t.core, &o, &s), WA_E_OK);
    struct op_result r;
    op_result_init(&r);
    assert_int_equal(perform(s, OP_ASK_USER, "question=Which file?", &r), WA_E_OK);
    assert_string_equal(asked, "Which file?");
    j = wire_result(&r, NULL);
    data = cJSON_GetObjectItemCaseSensitive(j, "data");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(data, "answered")));
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(data, "answer")),
                        "the one from Monday");
    cJSON_Delete(j);
    session_free(s);
    /* someone who declines */
    o.person.ctx = NULL;
    assert_int_equal(session_new(t.core, &o, &s), WA_E_OK);
    assert_int_equal(perform(s, OP_ASK_USER, "question=Which file?", &r), WA_E_OK);
    assert_false(r.has_text);
    assert_true(r.n_notes == 1 && strstr(r.notes[0], "declined"));
    /* an empty question is no question */
    assert_int_equal(perform(s, OP_ASK_USER, "question=", &r), WA_E_INVALID_ARGS);
    op_result_cleanup(&r);
    session_free(s);
    rig_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refused_while_the_person_is_active),
        cmocka_unit_test(sent_when_takeover_is_off_or_the_person_idle),
        cmocka_unit_test(typing_stops_when_the_person_types),
        cmocka_unit_test(a_run_waits_and_looks_again),
        cmocka_unit_test(takeover_stop_ends_the_run),
        cmocka_unit_test(the_stop_gesture_lets_nothing_more_out),
        cmocka_unit_test(ask_user_goes_to_whoever_answers),
    };
    return cmocka_run_group_tests(tests, rig_state_setup, rig_state_teardown);
}
