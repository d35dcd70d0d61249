/* Background delivery on the fake backend, through core_perform: which route each
 * operation takes (a pattern, a posted click, posted characters), that none of them
 * moves the cursor, changes the foreground or sends SendInput-style input, that every
 * other input operation says background_unavailable before sending anything, and
 * that auto falls back to the foreground saying so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/core/core.h"
#include "automation/fake/fake_backend.h"
#include "core_rig.h"

/* "Form" is the target, behind "Front", which has the foreground and its own focus. */
static const char scene[] =
    "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
    " \"windows\": ["
    "  {\"hwnd\": 4096, \"title\": \"Front\", \"process\": \"front.exe\", \"pid\": 5,"
    "   \"rect\": [0, 0, 1000, 800], \"foreground\": true, \"color\": \"#ffffff\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Front\", \"bounds\": [0, 0, 1000, 800],"
    "     \"children\": [{\"type\": \"Edit\", \"name\": \"Mine\", \"hwnd\": 4097,"
    "       \"bounds\": [10, 10, 500, 40], \"states\": [\"focused\"], \"value\": \"\","
    "       \"patterns\": [\"value\"]}]}},"
    "  {\"hwnd\": 256, \"title\": \"Form\", \"process\": \"form.exe\", \"pid\": 7,"
    "   \"rect\": [100, 100, 900, 700], \"color\": \"#eeeeee\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Form\", \"bounds\": [100, 100, 900, 700],"
    "     \"children\": ["
    "     {\"type\": \"Button\", \"name\": \"Save\", \"hwnd\": 257,"
    "      \"bounds\": [110, 110, 200, 140], \"patterns\": [\"invoke\"]},"
    "     {\"type\": \"Button\", \"name\": \"Plain\", \"hwnd\": 258,"
    "      \"bounds\": [210, 110, 300, 140]},"
    "     {\"type\": \"CheckBox\", \"name\": \"Wrap\", \"hwnd\": 259,"
    "      \"bounds\": [310, 110, 400, 140], \"patterns\": [\"toggle\"]},"
    "     {\"type\": \"Edit\", \"name\": \"Name\", \"hwnd\": 260, \"value\": \"\","
    "      \"bounds\": [110, 150, 500, 180], \"states\": [\"focused\"],"
    "      \"patterns\": [\"value\"]},"
    "     {\"type\": \"Edit\", \"name\": \"Virtual\", \"value\": \"\","
    "      \"bounds\": [110, 190, 500, 220]},"
    "     {\"type\": \"ComboBox\", \"name\": \"Color\", \"hwnd\": 261, \"value\": \"Red\","
    "      \"bounds\": [110, 230, 300, 250], \"patterns\": [\"value\", \"expand\"]},"
    "     {\"type\": \"List\", \"name\": \"Fonts\", \"hwnd\": 262,"
    "      \"bounds\": [110, 260, 300, 400], \"children\": ["
    "       {\"type\": \"ListItem\", \"name\": \"Arial\", \"bounds\": [110, 260, 300, 280],"
    "        \"patterns\": [\"select\"]}]}]}}],"
    /* the controls' own windows */
    " \"other_windows\": ["
    "  {\"hwnd\": 257, \"class\": \"Button\", \"process\": \"form.exe\"},"
    "  {\"hwnd\": 258, \"class\": \"Button\", \"process\": \"form.exe\"},"
    "  {\"hwnd\": 259, \"class\": \"Button\", \"process\": \"form.exe\"},"
    "  {\"hwnd\": 260, \"class\": \"Edit\", \"process\": \"form.exe\"},"
    "  {\"hwnd\": 261, \"class\": \"ComboBox\", \"process\": \"form.exe\"},"
    "  {\"hwnd\": 262, \"class\": \"ListBox\", \"process\": \"form.exe\"},"
    "  {\"hwnd\": 4097, \"class\": \"Edit\", \"process\": \"front.exe\"}]}";

/* What background delivery never does: the real cursor, the real keyboard, the
 * foreground. */
static const char *const foreground_only[] = {"\"mouse_move\"",  "\"mouse_button\"",
                                              "\"mouse_wheel\"", "\"type_text\"",
                                              "\"press_keys\"",  "\"focus_window\""};

static int setup(void **state)
{
    (void)state;
    return fake_load_scene(scene, NULL) == WA_E_OK ? 0 : -1;
}

/* The rig of a test on `scene`, delivering input as d. */
static void open_rig(struct rig *t, enum delivery d)
{
    struct core_config cfg = {.delivery = d};
    rig_open(t, scene, &cfg, "/tmp/test_background-state", false);
}

static void assert_desktop_untouched(void)
{
    for (size_t i = 0; i < sizeof foreground_only / sizeof foreground_only[0]; i++)
        if (actions_hold(foreground_only[i])) {
            char *a = fake_actions_json();
            fail_msg("background delivery did %s: %s", foreground_only[i], a);
        }
    uint64_t fg = 0;
    assert_int_equal(backend_foreground_window(backend_default(), &fg), WA_E_OK);
    assert_int_equal(fg, 4096);
    /* the front window's focused control is still the user's */
    uint64_t focused = 0;
    char *v = NULL;
    assert_int_equal(backend_focused_value(backend_default(), 0, &focused, &v), WA_E_OK);
    assert_int_equal(focused, 4097);
    assert_string_equal(v, "");
    free(v);
}

static bool has_note(const struct op_result *r, const char *text)
{
    for (size_t i = 0; i < r->n_notes; i++)
        if (strstr(r->notes[i], text))
            return true;
    return false;
}

/* The value of node `name` of Form, read back from the backend. */
static char *form_value(const char *name)
{
    struct wa_tree t;
    struct wa_tree_opts o = {.keep_handles = true};
    assert_int_equal(backend_get_tree(backend_default(), 256, &o, &t), WA_E_OK);
    char *v = NULL;
    for (size_t i = 0; i < t.count; i++)
        if (strcmp(t.nodes[i].name, name) == 0)
            assert_int_equal(backend_element_value(backend_default(), &t, i, &v), WA_E_OK);
    tree_cleanup(&t);
    assert_non_null(v);
    return v;
}

static void routes_in_order_of_what_the_control_offers(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t, DELIVERY_BACKGROUND);
    /* a pattern first */
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Form|ref=Button:Save"), WA_E_OK);
    assert_string_equal(t.r.via, "fake:pattern");
    assert_string_equal(t.r.delivery, "background");
    assert_true(actions_hold("\"action\":\"invoke\""));
    /* a check box's click is its toggle */
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Form|ref=CheckBox:Wrap"), WA_E_OK);
    assert_true(actions_hold("\"action\":\"toggle\""));
    /* no pattern: the click is posted to the control under the element's centre */
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Form|ref=Button:Plain"), WA_E_OK);
    assert_string_equal(t.r.via, "message:WM_LBUTTONDOWN");
    assert_true(actions_hold("\"hwnd\":\"0x102\",\"x\":255,\"y\":125,\"button\":\"left\",\"count\":"
                             "1,\"op\":\"post_click\""));
    /* a pixel: posted, even where Front covers Form on screen */
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "window=Form|x=220|y=115|button=right"), WA_E_OK);
    assert_string_equal(t.r.via, "message:WM_RBUTTONDOWN");
    assert_true(actions_hold("\"x\":220,\"y\":115,\"button\":\"right\""));
    assert_int_equal(rig_do(&t, OP_DOUBLE_CLICK, "window=Form|ref=Button:Save"), WA_E_OK);
    assert_true(actions_hold("\"count\":2"));
    /* the wheel: notches posted to the control under the element's centre */
    assert_int_equal(rig_do(&t, OP_SCROLL, "window=Form|ref=List:Fonts|direction=down|amount=2"),
                     WA_E_OK);
    assert_string_equal(t.r.via, "message:WM_MOUSEWHEEL");
    assert_true(actions_hold("\"hwnd\":\"0x106\",\"x\":205,\"y\":330,\"notches\":-2,"
                             "\"horizontal\":false,\"op\":\"post_wheel\""));
    assert_int_equal(rig_do(&t, OP_SCROLL_AT, "window=Form|x=220|y=115|direction=right"), WA_E_OK);
    assert_string_equal(t.r.via, "message:WM_MOUSEHWHEEL");
    assert_true(actions_hold("\"hwnd\":\"0x102\",\"x\":220,\"y\":115,\"notches\":3,"
                             "\"horizontal\":true")); /* 3 notches unless told */
    /* typing: characters posted to the element's own window, read back */
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Form|ref=Edit:Name|text=abc"), WA_E_OK);
    assert_string_equal(t.r.via, "message:WM_CHAR");
    assert_true(t.r.verified);
    /* ... or to the control with the focus in the window, which is not the user's */
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Form|text=de"), WA_E_OK);
    assert_true(t.r.verified);
    char *v = form_value("Name");
    assert_string_equal(v, "abcde");
    free(v);
    /* fill, select by item (the combo's value), toggle, invoke: patterns */
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=Form|ref=Edit:Name|text=xyz"), WA_E_OK);
    assert_true(t.r.verified);
    assert_int_equal(rig_do(&t, OP_SELECT, "window=Form|ref=ComboBox:Color|item=Blue"), WA_E_OK);
    v = form_value("Color");
    assert_string_equal(v, "Blue");
    free(v);
    assert_false(actions_hold("\"action\":\"expand\"")); /* no list popped up */
    assert_int_equal(rig_do(&t, OP_SELECT, "window=Form|ref=List:Fonts|item=Arial"), WA_E_OK);
    assert_true(actions_hold("\"action\":\"select\""));
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=Form|ref=CheckBox:Wrap"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_INVOKE, "window=Form|ref=Button:Plain"), WA_E_OK);
    assert_string_equal(t.r.via, "message:WM_LBUTTONDOWN"); /* no pattern: posted */
    assert_desktop_untouched();
    rig_close(&t);
}

static void without_a_route_nothing_is_sent(void **state)
{
    (void)state;
    static const struct {
        enum op_id op;
        const char *args;
        const char *says;
    } cases[] = {
        {OP_KEY, "window=Form|keys=ctrl+s", "keyboard focus"},
        {OP_DRAG, "window=Form|ref=Button:Save|x2=500|y2=500", "drag"},
        {OP_DRAG_AT, "window=Form|x=200|y=200|x2=300|y2=300", "drag"},
        {OP_SCROLL_AT, "window=Form|x=950|y=750|direction=down", "outside the window"},
        {OP_MOUSE_MOVE, "window=Form|ref=Button:Save", "cursor"},
        {OP_FOCUS_ELEMENT, "window=Form|ref=Edit:Name", "focus"},
        {OP_FOCUS_WINDOW, "window=Form", "front"},
        {OP_SELECT_MENU, "window=Form|path=File > Save", "menus"},
        {OP_CLICK_AT, "window=Form|x=950|y=750", "outside the window"},
        {OP_TYPE, "window=Form|ref=Edit:Virtual|text=x", "no window of its own"},
        {OP_SET_VALUE, "window=Form|ref=Edit:Virtual|text=x", "WM_SETTEXT"},
    };
    struct rig t;
    open_rig(&t, DELIVERY_BACKGROUND);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wa_err e = rig_do(&t, cases[i].op, cases[i].args);
        if (e != WA_E_BACKGROUND_UNAVAILABLE || !strstr(t.r.message, cases[i].says))
            fail_msg("%s %s: %s (%s), expected background_unavailable saying \"%s\"",
                     op_def(cases[i].op)->name, cases[i].args, wa_err_code(e), t.r.message,
                     cases[i].says);
    }
    assert_false(actions_hold("post_"));
    assert_false(actions_hold("\"element_action\""));
    assert_desktop_untouched();
    /* the same in a dry run: refused, not described as done */
    rig_close(&t);
}

static void auto_falls_back_to_the_foreground_and_says_so(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t, DELIVERY_AUTO);
    assert_int_equal(rig_do(&t, OP_INVOKE, "window=Form|ref=Button:Save"), WA_E_OK);
    assert_string_equal(t.r.delivery, "background");
    assert_false(has_note(&t.r, "background_unavailable"));
    assert_desktop_untouched();
    assert_int_equal(rig_do(&t, OP_KEY, "window=Form|keys=ctrl+s"), WA_E_OK);
    assert_string_equal(t.r.delivery, "foreground");
    assert_true(has_note(&t.r, "background_unavailable: keys has no background route"));
    assert_true(has_note(&t.r, "delivered in the foreground"));
    assert_true(actions_hold("\"press_keys\""));
    uint64_t fg = 0;
    backend_foreground_window(backend_default(), &fg);
    assert_int_equal(fg, 256); /* the foreground way: Form brought to the front */
    rig_close(&t);
}

static void a_call_chooses_its_own_delivery(void **state)
{
    (void)state;
    struct rig t;
    open_rig(&t, DELIVERY_FOREGROUND);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Form|ref=Button:Plain|delivery=background"),
                     WA_E_OK);
    assert_string_equal(t.r.delivery, "background");
    assert_desktop_untouched();
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Form|ref=Button:Plain"), WA_E_OK);
    assert_string_equal(t.r.delivery, "foreground");
    assert_true(actions_hold("\"mouse_button\""));
    /* non-input operations report no delivery */
    assert_int_equal(rig_do(&t, OP_LIST_WINDOWS, ""), WA_E_OK);
    assert_null(t.r.delivery);
    rig_close(&t);
    /* a background session takes foreground for one call */
    open_rig(&t, DELIVERY_BACKGROUND);
    assert_int_equal(rig_do(&t, OP_KEY, "window=Form|keys=enter|delivery=foreground"), WA_E_OK);
    assert_true(actions_hold("\"press_keys\""));
    rig_close(&t);
}

static void the_setting_is_read_and_checked(void **state)
{
    (void)state;
    static const struct {
        const char *env, *flag;
        wa_err e;
        enum delivery d;
    } cases[] = {
        {NULL, NULL, WA_E_OK, DELIVERY_FOREGROUND}, /* the default: as before */
        {"background", NULL, WA_E_OK, DELIVERY_BACKGROUND},
        {"Auto", NULL, WA_E_OK, DELIVERY_AUTO},
        {"background", "foreground", WA_E_OK, DELIVERY_FOREGROUND}, /* the flag wins */
        {"sideways", NULL, WA_E_CONFIG, DELIVERY_FOREGROUND},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].env)
            setenv("WINAGENT_DELIVERY", cases[i].env, 1);
        else
            unsetenv("WINAGENT_DELIVERY");
        char *argv[] = {"click", "--delivery", (char *)cases[i].flag, NULL};
        struct args a;
        args_init(&a, cases[i].flag ? 3 : 1, argv, 1);
        struct settings st;
        assert_int_equal(settings_load(&st, &a, SG_DESK), WA_E_OK);
        struct core_config cfg;
        assert_int_equal(core_config_from_settings(&st, false, &cfg), cases[i].e);
        if (!cases[i].e)
            assert_int_equal(cfg.delivery, cases[i].d);
        else
            assert_non_null(strstr(wa_err_detail(), "WINAGENT_DELIVERY"));
        settings_cleanup(&st);
    }
    unsetenv("WINAGENT_DELIVERY");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(routes_in_order_of_what_the_control_offers),
        cmocka_unit_test(without_a_route_nothing_is_sent),
        cmocka_unit_test(auto_falls_back_to_the_foreground_and_says_so),
        cmocka_unit_test(a_call_chooses_its_own_delivery),
        cmocka_unit_test(the_setting_is_read_and_checked),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
