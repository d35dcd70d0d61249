/* An action says ok only when it happened: every acting operation whose effect can be
 * read back (toggle, check, select, expand, collapse, fill and set_value, a slider's and
 * a spin box's value, window state), on the fake desktop, against a control scripted to
 * take the action and change nothing ("ignores"), fails with not_verified saying what was
 * read; the same operation on a control that reacts says ok, verified. Check boxes drawn
 * in items are turned over where a person clicks them (their box), and select never
 * turns one over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/front/rdp.h"
#include "automation/fake/fake_backend.h"
#include "core_rig.h"

/* Each control twice: one that ignores what is done to it, one that reacts. */
static const char scene[] =
    "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
    " \"windows\": ["
    "  {\"hwnd\": 256, \"title\": \"Setup\", \"process\": \"setup.exe\", \"pid\": 7,"
    "   \"rect\": [0, 0, 800, 600], \"foreground\": true, \"color\": \"#ffffff\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Setup\", \"bounds\": [0, 0, 800, 600],"
    "    \"children\": ["
    "     {\"type\": \"CheckBox\", \"name\": \"Stuck\", \"bounds\": [10, 10, 100, 30],"
    "      \"states\": [\"unchecked\"], \"patterns\": [\"toggle\"], \"ignores\": [\"toggle\"]},"
    "     {\"type\": \"CheckBox\", \"name\": \"Works\", \"bounds\": [110, 10, 200, 30],"
    "      \"states\": [\"unchecked\"], \"patterns\": [\"toggle\"]},"
    "     {\"type\": \"Tree\", \"name\": \"Components\", \"bounds\": [10, 40, 300, 300],"
    "      \"children\": ["
    "      {\"type\": \"TreeItem\", \"name\": \"Program\", \"bounds\": [40, 40, 200, 60],"
    "       \"check_box\": [22, 42, 38, 58], \"states\": [\"mixed\", \"expanded\"],"
    "       \"patterns\": [\"select\", \"toggle\", \"expand\"], \"ignores\": [\"click\"],"
    "       \"children\": ["
    "        {\"type\": \"TreeItem\", \"name\": \"Manual\", \"bounds\": [60, 60, 200, 80],"
    "         \"check_box\": [42, 62, 58, 78], \"states\": [\"unchecked\"],"
    "         \"patterns\": [\"select\", \"toggle\"]},"
    "        {\"type\": \"TreeItem\", \"name\": \"Samples\", \"bounds\": [60, 80, 200, 100],"
    "         \"check_box\": [42, 82, 58, 98], \"states\": [\"checked\"],"
    "         \"patterns\": [\"select\", \"toggle\"]}]},"
    "      {\"type\": \"TreeItem\", \"name\": \"Fruits\", \"bounds\": [40, 100, 200, 120],"
    "       \"states\": [\"collapsed\"], \"patterns\": [\"select\", \"expand\"],"
    "       \"ignores\": [\"expand\", \"collapse\"]},"
    "      {\"type\": \"TreeItem\", \"name\": \"Roots\", \"bounds\": [40, 120, 200, 140],"
    "       \"states\": [\"collapsed\"], \"patterns\": [\"select\", \"expand\"]},"
    "      {\"type\": \"TreeItem\", \"name\": \"Pinned\", \"bounds\": [40, 140, 200, 160],"
    "       \"states\": [\"expanded\"], \"patterns\": [\"select\", \"expand\"],"
    "       \"ignores\": [\"collapse\"]}]},"
    "     {\"type\": \"List\", \"name\": \"Fonts\", \"bounds\": [310, 40, 500, 300],"
    "      \"children\": ["
    "      {\"type\": \"ListItem\", \"name\": \"Arial\", \"bounds\": [310, 40, 500, 60],"
    "       \"states\": [\"selected\"], \"patterns\": [\"select\"]},"
    "      {\"type\": \"ListItem\", \"name\": \"Courier\", \"bounds\": [310, 60, 500, 80],"
    "       \"patterns\": [\"select\"], \"ignores\": [\"select\"]},"
    "      {\"type\": \"ListItem\", \"name\": \"Times\", \"bounds\": [310, 80, 500, 100],"
    "       \"patterns\": [\"select\"]}]},"
    "     {\"type\": \"Edit\", \"name\": \"Folder\", \"bounds\": [10, 310, 300, 330],"
    "      \"value\": \"C:\\\\Old\", \"patterns\": [\"value\"], \"ignores\": [\"set_value\"],"
    "      \"readonly\": true},"
    "     {\"type\": \"Slider\", \"name\": \"Volume\", \"bounds\": [10, 340, 300, 360],"
    "      \"value\": \"30\", \"patterns\": [\"value\", \"range\"], \"ignores\": [\"set_value\"],"
    "      \"readonly\": true},"
    "     {\"type\": \"Slider\", \"name\": \"Balance\", \"bounds\": [310, 340, 600, 360],"
    "      \"value\": \"0\", \"patterns\": [\"value\", \"range\"]},"
    "     {\"type\": \"Spinner\", \"name\": \"Copies:\", \"bounds\": [10, 370, 60, 390],"
    "      \"value\": \"1\", \"patterns\": [\"value\", \"range\"], \"ignores\": [\"set_value\"],"
    "      \"readonly\": true}]}},"
    "  {\"hwnd\": 512, \"title\": \"Stubborn\", \"process\": \"stubborn.exe\", \"pid\": 8,"
    "   \"rect\": [900, 100, 1300, 500], \"color\": \"#dddddd\","
    "   \"ignores\": [\"set_window_state\"],"
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Stubborn\", \"bounds\": [900, 100, 1300, "
    "500]}},"
    "  {\"hwnd\": 768, \"title\": \"Willing\", \"process\": \"willing.exe\", \"pid\": 9,"
    "   \"rect\": [900, 600, 1300, 900], \"color\": \"#cccccc\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Willing\", \"bounds\": [900, 600, 1300, "
    "900]}}]}";

static char state_dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(state_dir, sizeof state_dir, "/tmp/test_verify.XXXXXX");
    return mkdtemp(state_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", state_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void open_rig(struct rig *t)
{
    struct core_config cfg = {0};
    rig_open(t, scene, &cfg, state_dir, false);
}

/* The failure's message names what was read back. */
static void says(const struct op_result *r, const char *what)
{
    if (!strstr(r->message, what))
        fail_msg("\"%s\" not in \"%s\"", what, r->message);
}

static void toggle_is_read_back(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Setup|ref=CheckBox:Stuck"), WA_E_NOT_VERIFIED);
    assert_true(t.r.has_verified);
    assert_false(t.r.verified);
    assert_string_equal(t.r.read_back, "unchecked");
    says(&t.r, "is unchecked");
    assert_true(actions_hold("\"toggle\"")); /* it was sent: the control ignored it */
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Setup|ref=CheckBox:Works"), WA_E_OK);
    assert_true(t.r.verified);
    assert_string_equal(t.r.read_back, "checked");
    /* and back */
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Setup|ref=CheckBox:Works"), WA_E_OK);
    assert_string_equal(t.r.read_back, "unchecked");
    rig_close(&t);
}

/* An item's box: the click lands on the box, not the label; a program that ignores the
 * click leaves the box as it was, and that is not_verified. */
static void an_items_box_is_clicked_and_read_back(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Setup|ref=TreeItem:Manual"), WA_E_OK);
    assert_string_equal(t.r.via, "click:check box");
    assert_true(t.r.verified);
    assert_non_null(strstr(t.r.read_back, "checked"));
    assert_null(strstr(t.r.read_back, "unchecked"));
    assert_true(actions_hold("\"x\":50,\"y\":70")); /* the box's middle, not the label's */
    assert_false(actions_hold("\"action\":\"toggle\""));
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Setup|ref=TreeItem:Samples"), WA_E_OK);
    assert_non_null(strstr(t.r.read_back, "unchecked"));
    /* the parent's box ignores clicks: mixed it stays */
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Setup|ref=TreeItem:Program"), WA_E_NOT_VERIFIED);
    assert_non_null(strstr(t.r.read_back, "mixed"));
    says(&t.r, "was mixed expanded and is mixed expanded");
    rig_close(&t);
}

/* In background delivery an item's box is turned over by its pattern, never a click. */
static void an_items_box_in_the_background_takes_its_pattern(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Setup|ref=TreeItem:Manual|delivery=background"),
                     WA_E_OK);
    assert_string_equal(t.r.via, "fake:pattern");
    assert_false(actions_hold("mouse_button"));
    assert_string_equal(t.r.read_back, "checked");
    rig_close(&t);
}

/* select chooses an item and leaves its check box alone. */
static void select_is_read_back_and_leaves_boxes(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    assert_int_equal(rig_do(&t, OP_SELECT, "window=Setup|ref=ListItem:Courier"), WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.read_back, "no state");
    says(&t.r, "expected it to be selected");
    assert_int_equal(rig_do(&t, OP_SELECT, "window=Setup|ref=ListItem:Times"), WA_E_OK);
    assert_true(t.r.verified);
    assert_int_equal(rig_do(&t, OP_SELECT, "window=Setup|ref=TreeItem:Manual"), WA_E_OK);
    assert_string_equal(t.r.read_back, "unchecked selected");
    assert_false(actions_hold("mouse_button")); /* no click on a boxed item's label */
    rig_close(&t);
}

static void expand_and_collapse_are_read_back(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    assert_int_equal(rig_do(&t, OP_EXPAND, "window=Setup|ref=TreeItem:Fruits"), WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.read_back, "collapsed");
    says(&t.r, "expected it to be expanded");
    assert_int_equal(rig_do(&t, OP_EXPAND, "window=Setup|ref=TreeItem:Roots"), WA_E_OK);
    assert_string_equal(t.r.read_back, "expanded");
    assert_int_equal(rig_do(&t, OP_COLLAPSE, "window=Setup|ref=TreeItem:Roots"), WA_E_OK);
    assert_string_equal(t.r.read_back, "collapsed");
    /* Pinned stays open whatever it is told */
    assert_int_equal(rig_do(&t, OP_COLLAPSE, "window=Setup|ref=TreeItem:Pinned"),
                     WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.read_back, "expanded");
    says(&t.r, "expected it to be collapsed");
    assert_int_equal(rig_do(&t, OP_COLLAPSE, "window=Setup|ref=TreeItem:Program"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_COLLAPSE, "window=Setup|ref=TreeItem:Fruits"),
                     WA_E_OK); /* collapsed already: it is what was asked */
    rig_close(&t);
}

/* fill (set_value), and a slider's and a spin box's value. */
static void values_are_read_back(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=Setup|ref=Edit:Folder|text=C:\\New"),
                     WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.read_back, "C:\\Old");
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=Setup|ref=Slider:Volume|text=60"),
                     WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.read_back, "30");
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=Setup|ref=Spinner:Copies:|text=3"),
                     WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.read_back, "1");
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=Setup|ref=Slider:Balance|text=5"), WA_E_OK);
    assert_true(t.r.verified);
    rig_close(&t);
}

static void window_state_is_read_back(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    assert_int_equal(rig_do(&t, OP_SET_WINDOW_STATE, "window=Stubborn|state=minimize"),
                     WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.read_back, "normal");
    says(&t.r, "is normal, not minimized");
    assert_int_equal(rig_do(&t, OP_SET_WINDOW_STATE, "window=Willing|state=maximize"), WA_E_OK);
    assert_true(t.r.verified);
    assert_string_equal(t.r.read_back, "maximized");
    rig_close(&t);
}

/* agent-rdp's check: the toggle under it is read back, so a box that stays says so. */
static void check_is_read_back(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t);
    struct rdp *p;
    assert_int_equal(rdp_new(t.s, &p), WA_E_OK);
    cJSON *params = cJSON_Parse("{\"selector\":\"CheckBox:Stuck\"}");
    cJSON *res = rdp_handle(p, "check", params);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "success")));
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(res, "error");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(err, "message");
    assert_true(cJSON_IsString(msg));
    assert_non_null(strstr(msg->valuestring, "is unchecked"));
    cJSON_Delete(res);
    cJSON_Delete(params);
    params = cJSON_Parse("{\"selector\":\"CheckBox:Works\"}");
    res = rdp_handle(p, "check", params);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "success")));
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(res, "data");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(data, "changed")));
    cJSON_Delete(res);
    cJSON_Delete(params);
    rdp_free(p);
    rig_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(toggle_is_read_back),
        cmocka_unit_test(an_items_box_is_clicked_and_read_back),
        cmocka_unit_test(an_items_box_in_the_background_takes_its_pattern),
        cmocka_unit_test(select_is_read_back_and_leaves_boxes),
        cmocka_unit_test(expand_and_collapse_are_read_back),
        cmocka_unit_test(values_are_read_back),
        cmocka_unit_test(window_state_is_read_back),
        cmocka_unit_test(check_is_read_back),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
