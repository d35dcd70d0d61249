/* The desktop core on the fake backend, through core_perform as every front end calls
 * it: every operation of the table, the gate's refusals, dry run, the rate limit,
 * audit lines, refs kept between calls and what an action reports as changed. */
#include <math.h>
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
#include "automation/fake/fake_backend.h"
#include "automation/image/png.h"
#include "core_rig.h"

#include <lodepng.h>
#include "base/os.h"

static const char scene[] =
    "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
    " \"windows\": ["
    "  {\"hwnd\": 256, \"title\": \"Untitled - Notepad\", \"class\": \"Notepad\","
    "   \"process\": \"notepad.exe\", \"pid\": 7, \"rect\": [100, 50, 1100, 850],"
    "   \"foreground\": true, \"color\": \"#ffffff\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Untitled - Notepad\","
    "     \"bounds\": [100, 50, 1100, 850], \"children\": ["
    "     {\"type\": \"MenuItem\", \"name\": \"&Help\", \"bounds\": [100, 50, 150, 70],"
    "      \"patterns\": [\"invoke\"]},"
    "     {\"type\": \"Button\", \"name\": \"Save\", \"bounds\": [200, 70, 260, 90],"
    "      \"patterns\": [\"invoke\"]},"
    "     {\"type\": \"CheckBox\", \"name\": \"Wrap\", \"bounds\": [300, 70, 360, 90],"
    "      \"patterns\": [\"toggle\"]},"
    "     {\"type\": \"ComboBox\", \"name\": \"Font\", \"bounds\": [400, 70, 500, 90],"
    "      \"patterns\": [\"expand\", \"value\"], \"value\": \"Arial\", \"children\": ["
    "       {\"type\": \"ListItem\", \"name\": \"Arial\", \"bounds\": [400, 90, 500, 110],"
    "        \"patterns\": [\"select\"]},"
    "       {\"type\": \"ListItem\", \"name\": \"Courier\", \"bounds\": [400, 110, 500, 130],"
    "        \"patterns\": [\"select\"]}]},"
    "     {\"type\": \"Edit\", \"name\": \"Locked\", \"bounds\": [800, 70, 900, 90],"
    "      \"value\": \"old\", \"readonly\": true, \"patterns\": [\"value\"]},"
    "     {\"type\": \"Edit\", \"name\": \"Embedded\", \"bounds\": [600, 70, 700, 90],"
    "      \"hwnd\": 768, \"value\": \"hunter2\", \"patterns\": [\"value\", \"invoke\"]},"
    "     {\"type\": \"Edit\", \"name\": \"Text Editor\", \"bounds\": [100, 150, 1100, 850],"
    "      \"states\": [\"focused\"], \"value\": \"\", \"patterns\": [\"value\"]}]}},"
    "  {\"hwnd\": 512, \"title\": \"Scratch\", \"process\": \"scratch.exe\", \"pid\": 8,"
    "   \"rect\": [1200, 100, 1500, 500], \"color\": \"#dddddd\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Scratch\", \"bounds\": [1200, 100, 1500, 500],"
    "     \"children\": [{\"type\": \"Button\", \"name\": \"OK\", \"bounds\": [1210, 110, 1290, "
    "190]}]}},"
    "  {\"hwnd\": 768, \"title\": \"Passwords - KeePass\", \"process\": \"keepass.exe\","
    "   \"pid\": 9, \"rect\": [1200, 600, 1600, 900], \"color\": \"#ff0000\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Passwords - KeePass\","
    "     \"bounds\": [1200, 600, 1600, 900], \"children\": ["
    "     {\"type\": \"Edit\", \"name\": \"Password\", \"value\": \"hunter2\","
    "      \"bounds\": [1210, 610, 1590, 640]}]}}],"
    " \"unlisted\": [{\"hwnd\": 4096, \"title\": \"\", \"class\": \"#32768\","
    "   \"process\": \"keepass.exe\", \"rect\": [10, 900, 90, 990]}],"
    " \"other_windows\": [{\"hwnd\": 65568, \"title\": \"\", \"class\": \"#32769\","
    "   \"process\": \"explorer.exe\", \"rect\": [0, 0, 1920, 1080]}],"
    " \"launch\": {\"calc\": {\"hwnd\": 1024, \"title\": \"Calculator\", \"process\": "
    "\"calc.exe\","
    "   \"pid\": 11, \"rect\": [10, 10, 300, 400], \"color\": \"#eeeeee\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Calculator\", \"bounds\": [10, 10, 300, "
    "400]}},"
    "  \"kp\": {\"hwnd\": 2048, \"title\": \"Vault - KeePass\", \"process\": \"keepass.exe\","
    "   \"pid\": 12, \"rect\": [20, 20, 300, 300], \"color\": \"#eeeeee\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Vault - KeePass\"}}},"
    " \"programs\": {\"calc\": {\"path\": \"C:\\\\Windows\\\\calc.exe\"},"
    "   \"kp\": {\"path\": \"C:\\\\KeePass\\\\keepass.exe\"},"
    "   \"notes\": {\"path\": \"C:\\\\Tools\\\\notes.exe\", \"original_name\": \"pwsh.exe\"},"
    "   \"tool\": {\"path\": \"C:\\\\Tools\\\\tool.bin\", \"console\": true,"
    " \"executable\": true}},"
    " \"shell\": {\"echo hi\": {\"exit\": 0, \"out\": \"hi\\r\\n\"}}}";

static char tmp_dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/test_core.XXXXXX");
    assert_non_null(mkdtemp(tmp_dir));
    return fake_load_scene(scene, NULL) == WA_E_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The rig of a test on `scene`, its state kept in tmp_dir; cfg fields the test sets are
 * kept (see rig_open). */
static void open_rig(struct rig *t, struct core_config *cfg, bool refs)
{
    static char state_dir[128];
    snprintf(state_dir, sizeof state_dir, "%s/state", tmp_dir);
    rig_open(t, scene, cfg, state_dir, refs);
}

/* ---- every operation ---- */

static const struct {
    enum op_id op;
    const char *args;
    const char *recorded; /* what the fake backend records of it, or NULL */
} every_op[] = {
    {OP_LIST_WINDOWS, "", NULL},
    {OP_SCREENSHOT, "window=notepad", NULL},
    {OP_OBSERVE, "window=notepad|mode=a11y", NULL},
    {OP_TREE, "window=notepad", NULL},
    {OP_STATE, "window=notepad", NULL},
    {OP_CLICK, "window=notepad|ref=Button:Save", "mouse_button"},
    {OP_DOUBLE_CLICK, "window=notepad|ref=Button:Save", "mouse_button"},
    {OP_RIGHT_CLICK, "window=notepad|ref=Button:Save", "mouse_button"},
    {OP_MIDDLE_CLICK, "window=notepad|ref=Button:Save", "mouse_button"},
    {OP_CLICK_AT, "x=500|y=400", "mouse_button"},
    {OP_MOUSE_MOVE, "window=notepad|ref=Button:Save", "mouse_move"},
    {OP_MOVE_AT, "x=500|y=400|hold=shift", "mouse_move"},
    {OP_MOUSE_DOWN, "x=500|y=400", "mouse_button"},
    {OP_MOUSE_UP, "x=510|y=400", "mouse_button"},
    {OP_KEY_DOWN, "window=notepad|keys=shift", "key_down"},
    {OP_KEY_UP, "window=notepad|keys=shift", "key_up"},
    {OP_POINTER, "", NULL},
    {OP_DRAG, "window=notepad|ref=Button:Save|x2=500|y2=500", "mouse_button"},
    {OP_DRAG_AT, "x=500|y=400|x2=600|y2=500", "mouse_button"},
    {OP_SCROLL, "window=notepad|direction=down", "mouse_wheel"},
    {OP_SCROLL_AT, "x=500|y=400|direction=up", "mouse_wheel"},
    {OP_TYPE, "window=notepad|text=hello", "type_text"},
    {OP_SET_VALUE, "window=notepad|ref=Edit:Text Editor|text=abc", "element_action"},
    {OP_CLEAR, "window=notepad|ref=Edit:Text Editor", "element_action"},
    {OP_KEY, "window=notepad|keys=ctrl+s", "press_keys"},
    {OP_INVOKE, "window=notepad|ref=Button:Save", "element_action"},
    {OP_TOGGLE, "window=notepad|ref=CheckBox:Wrap", "element_action"},
    {OP_EXPAND, "window=notepad|ref=ComboBox:Font", "element_action"},
    {OP_COLLAPSE, "window=notepad|ref=ComboBox:Font", "element_action"},
    {OP_SELECT, "window=notepad|ref=ListItem:Courier", "element_action"},
    {OP_SCROLL_INTO_VIEW, "window=notepad|ref=ListItem:Courier", NULL},
    {OP_FOCUS_ELEMENT, "window=notepad|ref=Edit:Text Editor", NULL},
    {OP_GET, "window=notepad|what=name|ref=Button:Save", NULL},
    {OP_INSPECT, "window=notepad|ref=Button:Save", NULL},
    {OP_FIND, "window=notepad|selector=Button:*|all=true", NULL},
    {OP_WAIT, "seconds=0.05", NULL},
    {OP_FOCUS_WINDOW, "window=Scratch", "focus_window"},
    {OP_MOVE_WINDOW, "window=Scratch|x=1210|y=110|width=300|height=300", "move_window"},
    {OP_SET_WINDOW_STATE, "window=Scratch|state=maximize", "set_window_state"},
    {OP_CLOSE_WINDOW, "window=Scratch", "close_window"},
    {OP_SELECT_MENU, "window=notepad|path=help", "element_action"},
    {OP_LAUNCH, "command=calc", "launch"},
    {OP_SHELL, "command=echo hi", "run_shell"},
    {OP_ASK_USER, "question=Which file?", NULL},
};

static void every_operation_performs(void **state)
{
    (void)state;
    bool covered[OP__COUNT] = {false};
    for (size_t i = 0; i < sizeof every_op / sizeof every_op[0]; i++)
        covered[every_op[i].op] = true;
    for (int i = 0; i < OP__COUNT; i++)
        if (!covered[i])
            fail_msg("operation %s has no row in every_op", op_def((enum op_id)i)->name);

    char audit[160];
    snprintf(audit, sizeof audit, "%s/audit.jsonl", tmp_dir);
    for (size_t i = 0; i < sizeof every_op / sizeof every_op[0]; i++) {
        assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
        struct core_config cfg = {.shell = SHELL_ALLOWED, .audit_path = audit};
        struct rig t;
        open_rig(&t, &cfg, false);
        const struct op_def *op = op_def(every_op[i].op);
        wa_err e = rig_do(&t, every_op[i].op, every_op[i].args);
        if (e)
            fail_msg("%s: %s: %s", op->name, wa_err_code(e), t.r.message);
        assert_ptr_equal(t.r.op, op);
        if (every_op[i].recorded && !actions_hold(every_op[i].recorded))
            fail_msg("%s did not reach the backend as %s", op->name, every_op[i].recorded);
        if (op_acts(op) && (op->flags & OPF_INPUT))
            assert_true(t.r.has_changes); /* every input says what it changed, or nothing */
        rig_close(&t);
    }
    /* one audit line per acting operation, none for the ones that only look */
    char *text = NULL;
    assert_int_equal(os_read_file(audit, 1 << 20, &text, NULL), WA_E_OK);
    size_t lines = 0, acting = 0;
    for (const char *p = text; (p = strchr(p, '\n')); p++)
        lines++;
    for (size_t i = 0; i < sizeof every_op / sizeof every_op[0]; i++)
        acting += op_acts(op_def(every_op[i].op));
    assert_int_equal(lines, acting);
    free(text);
}

/* Keys and buttons pressed and left down go through the gate like every input, a
 * release refused where the pointer is goes up where the button went down, and a
 * session never ends with anything held. */
static void held_keys_and_buttons_are_gated_and_released(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_KEY_DOWN, "keys=ctrl"), WA_E_OK);
    assert_true(actions_hold("{\"keys\":\"Ctrl\",\"op\":\"key_down\"}"));
    assert_int_equal(rig_do(&t, OP_MOUSE_DOWN, "x=500|y=400"), WA_E_OK);
    assert_true(actions_hold("\"button\":\"left\",\"down\":true,\"x\":500,\"y\":400"));
    /* the button would go up over the password manager: it goes up back at (500,400) */
    assert_int_equal(rig_do(&t, OP_MOUSE_UP, "x=1300|y=620"), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "released back where it went down"));
    assert_true(actions_hold("\"button\":\"left\",\"down\":false,\"x\":500,\"y\":400"));
    assert_false(actions_hold("1300"));
    /* keys held count with the keys pressed after them: nothing opens a launcher the
     * shell permission closed (the Windows key alone opens Start; ctrl held, then esc) */
    assert_int_equal(rig_do(&t, OP_KEY_DOWN, "keys=win"), WA_E_SHELL_DISABLED);
    assert_int_equal(rig_do(&t, OP_KEY, "keys=esc"), WA_E_SHELL_DISABLED);
    assert_int_equal(rig_do(&t, OP_KEY_DOWN, "keys=esc"), WA_E_SHELL_DISABLED);
    assert_false(actions_hold("Win"));
    assert_false(actions_hold("Esc"));
    /* the session ends with ctrl and the right button still held: both let go */
    assert_int_equal(rig_do(&t, OP_MOUSE_DOWN, "x=600|y=400|button=right"), WA_E_OK);
    rig_close(&t);
    char *a = fake_actions_json();
    const char *down = strstr(a, "\"button\":\"right\",\"down\":true");
    assert_non_null(down);
    assert_non_null(strstr(down, "\"button\":\"right\",\"down\":false"));
    assert_non_null(strstr(down, "{\"keys\":\"Ctrl\",\"op\":\"key_up\"}"));
    free(a);

    /* with a restricted window in front, nothing is pressed at all */
    cJSON *variant = cJSON_Parse(scene), *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(variant, "windows"))
    {
        cJSON_DeleteItemFromObject(w, "foreground");
        cJSON_AddBoolToObject(w, "foreground", cJSON_GetObjectItem(w, "pid")->valueint == 9);
    }
    char *with = cJSON_PrintUnformatted(variant);
    cJSON_Delete(variant);
    struct core_config cfg2 = {0};
    open_rig(&t, &cfg2, false);
    assert_int_equal(fake_load_scene(with, NULL), WA_E_OK);
    free(with);
    assert_int_equal(rig_do(&t, OP_KEY_DOWN, "keys=shift"), WA_E_DENIED);
    assert_int_equal(rig_do(&t, OP_KEY_UP, "keys=shift"), WA_E_DENIED);
    rig_close(&t);
    assert_false(actions_hold("key_down"));
    assert_false(actions_hold("key_up"));
}

/* Keys held during a click, a drag, a move or a scroll go down after the gate allowed
 * the point and come up after the input, whatever became of it. */
static void keys_are_held_during_pointer_input(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=500|y=400|hold=ctrl+shift|clicks=2"), WA_E_OK);
    char *a = fake_actions_json();
    const char *down = strstr(a, "{\"keys\":\"Ctrl+Shift\",\"op\":\"key_down\"}");
    assert_non_null(down);
    const char *press = strstr(down, "\"down\":true,\"x\":500,\"y\":400");
    assert_non_null(press);
    const char *second = strstr(press + 1, "\"down\":true,\"x\":500,\"y\":400");
    assert_non_null(second); /* two clicks */
    assert_non_null(strstr(second, "{\"keys\":\"Ctrl+Shift\",\"op\":\"key_up\"}"));
    free(a);
    /* refused at the point: no key went down */
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=1300|y=620|hold=shift"), WA_E_DENIED);
    assert_false(actions_hold("key_down"));
    /* the others take them too */
    assert_int_equal(rig_do(&t, OP_DRAG_AT, "x=500|y=400|x2=600|y2=500|hold=alt"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_SCROLL_AT, "x=500|y=400|direction=down|hold=ctrl"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_MOVE_AT, "x=510|y=410|hold=shift"), WA_E_OK);
    assert_true(actions_hold("{\"keys\":\"Alt\",\"op\":\"key_up\"}"));
    assert_true(actions_hold("{\"keys\":\"Ctrl\",\"op\":\"key_up\"}"));
    assert_true(actions_hold("{\"keys\":\"Shift\",\"op\":\"key_up\"}"));
    /* without a point: where the pointer is now */
    assert_int_equal(rig_do(&t, OP_POINTER, ""), WA_E_OK);
    assert_int_equal(t.r.px, 510);
    assert_int_equal(t.r.py, 410);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "button=right"), WA_E_OK);
    assert_true(actions_hold("\"button\":\"right\",\"down\":true,\"x\":510,\"y\":410"));
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "hold=bogus"), WA_E_INVALID_ARGS);
    rig_close(&t);
}

/* A session with one display: the first screenshot of a monitor fixes it, and every
 * observation after acting shows it at the same size, whatever window is in front;
 * a region is an image of its own. */
static void one_display_for_the_session(void **state)
{
    (void)state;
    struct core_config cfg = {
        .be = backend_default(), .restricted_only = "keepass.exe", .max_actions_per_s = 1000};
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    struct core *c = NULL;
    struct session *s = NULL;
    assert_int_equal(core_new(&cfg, &c), WA_E_OK);
    struct session_opts o;
    session_opts_default(&o);
    o.front = "test";
    o.settle_ms = 0;
    o.after = AFTER_OBSERVE;
    o.one_display = true;
    o.observe.mode = OBS_PIXEL;
    o.observe.max_edge = 1280;
    o.observe.max_pixels = 1150000;
    assert_int_equal(session_new(c, &o, &s), WA_E_OK);
    struct op_result r;
    op_result_init(&r);
    assert_int_equal(perform(s, OP_SCREENSHOT, "", &r), WA_E_OK);
    assert_int_equal(r.obs.width, 1280);
    assert_int_equal(r.obs.height, 720);
    struct wa_rect d = r.obs.frame;
    assert_int_equal(d.right, 1920);
    static const char *const acts[] = {"x=1300|y=300", "x=300|y=300", "keys=tab"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(perform(s, i < 2 ? OP_CLICK_AT : OP_KEY, acts[i], &r), WA_E_OK);
        assert_int_equal(r.obs.kind, OBS_IMAGE);
        assert_int_equal(r.obs.width, 1280);
        assert_int_equal(r.obs.height, 720);
        assert_int_equal(r.obs.frame.right, d.right);
        assert_int_equal(r.obs.frame.bottom, d.bottom);
    }
    /* the password manager is black in it, the notepad white */
    assert_int_equal(perform(s, OP_SCREENSHOT, "", &r), WA_E_OK);
    assert_non_null(strstr(r.summary, "display"));
    struct wa_image img = {0};
    assert_int_equal(png_decode(r.png.data, r.png.len, &img), WA_E_OK);
    assert_int_equal(image_pixel_rgb(&img, 1400 * 2 / 3, 750 * 2 / 3), 0x000000);
    assert_int_equal(image_pixel_rgb(&img, 600 * 2 / 3, 400 * 2 / 3), 0xffffff);
    image_cleanup(&img);
    /* a region: that part of the screen, its own size */
    assert_int_equal(perform(s, OP_SCREENSHOT, "x=100|y=50|x2=400|y2=250", &r), WA_E_OK);
    assert_int_equal(r.obs.width, 300);
    assert_int_equal(r.obs.height, 200);
    assert_int_equal(perform(s, OP_SCREENSHOT, "x=100|y=50|x2=50|y2=250", &r), WA_E_INVALID_ARGS);
    op_result_cleanup(&r);
    session_free(s);
    core_free(c);
}

/* ---- the gate ---- */

static void restricted_windows_are_refused_and_left_out(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_ALLOWED};
    struct rig t;
    open_rig(&t, &cfg, false);
    /* A selector sees only what the gate allows: the restricted window answers as a
     * missing one does, so no fragment of its title can be read letter by letter. */
    static const struct {
        enum op_id op;
        const char *args;
    } named[] = {
        {OP_TREE, "window=keepass"},        {OP_STATE, "window=KeePass"},
        {OP_SCREENSHOT, "window=keepass"},  {OP_FOCUS_WINDOW, "window=Passwords"},
        {OP_CLOSE_WINDOW, "window=0x300"},  {OP_GET, "window=keepass|what=value|ref=Edit:Password"},
        {OP_CLICK, "window=keepass|ref=2"},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        wa_err e = rig_do(&t, named[i].op, named[i].args);
        if (e != WA_E_WINDOW_NOT_FOUND)
            fail_msg("%s %s: %s, not window_not_found", op_def(named[i].op)->name, named[i].args,
                     wa_err_code(e));
        assert_null(strstr(t.r.message, "hunter2"));
        assert_null(strstr(t.r.message, "keepass.exe"));
        assert_null(strstr(t.r.message, "restricted"));
    }
    /* ... word for word: a fragment of its title, and its handle, like ones of no window */
    char there[sizeof t.r.message];
    assert_int_equal(rig_do(&t, OP_TREE, "window=Passwor"), WA_E_WINDOW_NOT_FOUND);
    snprintf(there, sizeof there, "%s", t.r.message);
    assert_int_equal(rig_do(&t, OP_TREE, "window=Xasswor"), WA_E_WINDOW_NOT_FOUND);
    assert_int_equal(strncmp(there, t.r.message, strlen("no window matches \"")), 0);
    assert_string_equal(strstr(there, "\" (title"), strstr(t.r.message, "\" (title"));
    assert_int_equal(rig_do(&t, OP_TREE, "window=0x300"), WA_E_WINDOW_NOT_FOUND);
    snprintf(there, sizeof there, "%s", t.r.message);
    assert_int_equal(rig_do(&t, OP_TREE, "window=0x3000"), WA_E_WINDOW_NOT_FOUND);
    assert_string_equal(strstr(there, ")"), strstr(t.r.message, ")"));
    /* Input that would reach it is refused at the moment of sending, saying why. */
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=1300|y=620"), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "keepass.exe")); /* the refusal says why */
    assert_false(actions_hold("\"hwnd\":768"));
    assert_false(actions_hold("1300"));
    assert_int_equal(rig_do(&t, OP_LIST_WINDOWS, ""), WA_E_OK);
    for (size_t i = 0; i < t.r.windows.count; i++)
        assert_string_not_equal(t.r.windows.items[i].process, "keepass.exe");
    assert_int_equal(t.r.windows.count, 2);
    rig_close(&t);
}

/* What the gate refuses, no result reveals: a launched restricted program started and
 * was refused; a refused receiver is named as restricted only. */
static void refused_windows_are_not_described(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_ALLOWED};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=1300|y=620"), WA_E_DENIED);
    assert_true(t.r.has_receiver);
    assert_string_equal(t.r.receiver.title, "(restricted window)");
    assert_null(strstr(t.r.message, "Passwords"));
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=kp"), WA_E_DENIED);
    assert_true(actions_hold("launch"));
    assert_false(t.r.has_window);
    assert_false(t.r.has_window_state);
    assert_false(t.r.has_image);
    assert_non_null(strstr(t.r.message, "started"));
    assert_null(strstr(t.r.message, "Vault"));
    rig_close(&t);
}

/* A target is a program's top-level window: never the desktop window (whose tree would
 * be every window's, a password manager's included); an element is checked by the
 * window it belongs to. */
static void targets_are_top_level_windows_and_elements_their_own(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    static const struct {
        enum op_id op;
        const char *args;
    } desktop[] = {
        {OP_TREE, "window=0x10020"},         {OP_STATE, "window=65568"},
        {OP_SCREENSHOT, "window=0x10020"},   {OP_CLICK, "window=0x10020|ref=1"},
        {OP_FOCUS_WINDOW, "window=0x10020"},
    };
    for (size_t i = 0; i < sizeof desktop / sizeof desktop[0]; i++) {
        assert_int_equal(rig_do(&t, desktop[i].op, desktop[i].args), WA_E_DENIED);
        assert_non_null(strstr(t.r.message, "top-level window"));
        assert_null(strstr(t.r.message, "hunter2"));
    }
    /* an element inside notepad whose own window is the password manager's */
    assert_int_equal(rig_do(&t, OP_INVOKE, "window=notepad|ref=Edit:Embedded"), WA_E_DENIED);
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=notepad|ref=Edit:Embedded|text=x"),
                     WA_E_DENIED);
    assert_false(actions_hold("element_action"));
    rig_close(&t);
}

/* With the shell off there is no shell by any route: consoles, terminals and the Run
 * dialog receive no input, and win+r is refused. */
static void no_shell_through_the_ui_when_it_is_off(void **state)
{
    (void)state;
    static const char *const windows[] = {
        "{\"hwnd\": 1280, \"title\": \"Command Prompt\", \"class\": \"ConsoleWindowClass\","
        " \"process\": \"conhost.exe\", \"rect\": [0, 900, 600, 1000]}",
        "{\"hwnd\": 1280, \"title\": \"Run\", \"class\": \"#32770\","
        " \"process\": \"explorer.exe\", \"rect\": [0, 900, 600, 1000]}",
        "{\"hwnd\": 1280, \"title\": \"pwsh\", \"class\": \"Renamed\","
        " \"process\": \"C:\\\\Tools\\\\pwsh.exe\", \"rect\": [0, 900, 600, 1000]}",
    };
    for (int shell = 0; shell < 2; shell++) {
        for (size_t i = 0; i < sizeof windows / sizeof *windows; i++) {
            struct core_config cfg = {.shell = shell ? SHELL_ALLOWED : SHELL_DENIED};
            struct rig t;
            open_rig(&t, &cfg, false);
            char *with = malloc(sizeof scene + 512);
            const char *at = strstr(scene, "\"windows\": [") + 13;
            snprintf(with, sizeof scene + 512, "%.*s%s,%s", (int)(at - scene), scene, windows[i],
                     at);
            assert_int_equal(fake_load_scene(with, NULL), WA_E_OK);
            free(with);
            wa_err want = shell ? WA_E_OK : WA_E_SHELL_DISABLED;
            assert_int_equal(rig_do(&t, OP_TYPE, "window=0x500|text=calc"), want);
            assert_int_equal(rig_do(&t, OP_KEY, "window=0x500|keys=enter"), want);
            assert_int_equal(actions_hold("type_text"), shell == 1);
            rig_close(&t);
        }
        struct core_config cfg = {.shell = shell ? SHELL_ALLOWED : SHELL_DENIED};
        struct rig t;
        open_rig(&t, &cfg, false);
        assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=win+r"),
                         shell ? WA_E_OK : WA_E_SHELL_DISABLED);
        assert_int_equal(actions_hold("press_keys"), shell == 1);
        rig_close(&t);
    }
}

/* Launch decides on the file that will start: a renamed interpreter (its version
 * resource says so) or a console program of any name needs the shell permission. */
static void launch_judges_the_file_not_its_name(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_DENIED};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=notes"), WA_E_SHELL_DISABLED);
    assert_non_null(strstr(t.r.message, "pwsh.exe by its version resource"));
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=tool"), WA_E_SHELL_DISABLED);
    assert_non_null(strstr(t.r.message, "console program"));
    assert_false(actions_hold("launch"));
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=calc"), WA_E_OK);
    rig_close(&t);
}

/* An image blacks out every visible window of a restricted process: its untitled
 * pop-ups and menus too, which no window list shows. */
static void images_black_out_restricted_popups(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_SCREENSHOT, "monitor=0"), WA_E_OK);
    unsigned char *px = NULL;
    unsigned w = 0, h = 0;
    assert_int_equal(
        lodepng_decode32(&px, &w, &h, (const unsigned char *)t.r.png.data, t.r.png.len), 0);
    /* the middle of the pop-up at [10,900][90,990], and of a desktop spot beside it */
    int x = (int)(50 * t.r.scale), y = (int)(945 * t.r.scale);
    const unsigned char *p = px + ((size_t)y * w + (size_t)x) * 4;
    assert_true(p[0] == 0 && p[1] == 0 && p[2] == 0);
    x = (int)(150 * t.r.scale);
    p = px + ((size_t)y * w + (size_t)x) * 4;
    assert_false(p[0] == 0 && p[1] == 0 && p[2] == 0);
    free(px);
    rig_close(&t);
}

/* Input Windows would drop is named, not sent into silence: an elevated window refuses
 * what SendInput sends (a pattern still reaches it), and nothing reaches the secure
 * desktop. */
static void input_windows_would_drop_is_named(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    const char *at = strstr(scene, "\"process\": \"notepad.exe\",");
    char *elevated = malloc(sizeof scene + 64);
    snprintf(elevated, sizeof scene + 64, "%.*s\"integrity\": \"high\", %s", (int)(at - scene),
             scene, at);
    assert_int_equal(fake_load_scene(elevated, NULL), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save"), WA_E_ELEVATED_TARGET);
    assert_non_null(strstr(t.r.message, "run winagent elevated"));
    assert_int_equal(rig_do(&t, OP_TYPE, "window=notepad|text=x"), WA_E_ELEVATED_TARGET);
    assert_false(actions_hold("mouse_button"));
    assert_false(actions_hold("type_text"));
    assert_int_equal(rig_do(&t, OP_INVOKE, "window=notepad|ref=Button:Save"), WA_E_OK);
    /* winagent elevated too: sent */
    char *both = malloc(sizeof scene + 128);
    snprintf(both, sizeof scene + 128, "{\"winagent_integrity\": \"high\", %s", elevated + 1);
    assert_int_equal(fake_load_scene(both, NULL), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save"), WA_E_OK);
    free(both);
    free(elevated);
    /* the secure desktop */
    char *secure = malloc(sizeof scene + 64);
    snprintf(secure, sizeof scene + 64, "{\"secure_desktop\": true, %s", scene + 1);
    assert_int_equal(fake_load_scene(secure, NULL), WA_E_OK);
    free(secure);
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=enter"), WA_E_SECURE_DESKTOP);
    assert_non_null(strstr(t.r.message, "secure desktop"));
    assert_false(actions_hold("press_keys"));
    rig_close(&t);
}

static void shell_needs_the_permission(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_DENIED};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_SHELL, "command=echo hi"), WA_E_SHELL_DISABLED);
    assert_false(actions_hold("run_shell"));
    rig_close(&t);
}

static char confirmed[8192];
static int confirms;

static bool record_confirm(void *ctx, const char *what, const char *command)
{
    (void)ctx;
    (void)what;
    confirms++;
    snprintf(confirmed, sizeof confirmed, "%s", command);
    return false; /* declined: nothing runs */
}

/* --shell confirm shows what would run, whole and unreordered, or refuses it. */
static void confirm_shows_the_whole_command(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_ASK, .confirm = record_confirm};
    struct rig t;
    open_rig(&t, &cfg, false);
    /* "echo safe" + RIGHT-TO-LEFT OVERRIDE + "txt.exe" + newline + "del x" */
    assert_int_equal(rig_do(&t, OP_SHELL, "command=echo safe\xe2\x80\xaetxt.exe\ndel x"),
                     WA_E_DENIED);
    assert_int_equal(confirms, 1);
    assert_string_equal(confirmed, "echo safe\\u{202E}txt.exe\\ndel x");
    char *big = malloc(6000);
    memcpy(big, "command=", 8);
    memset(big + 8, 'a', 5000);
    big[5008] = '\0';
    assert_int_equal(rig_do(&t, OP_SHELL, big), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "too long to be shown"));
    assert_int_equal(confirms, 1); /* never asked about what it could not show */
    assert_false(actions_hold("run_shell"));
    free(big);
    rig_close(&t);
}

static void dry_run_sends_nothing(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_ALLOWED, .dry_run = true};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=notepad|ref=Button:Save"), WA_E_OK);
    assert_true(t.r.dry_run);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=notepad|text=hi"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_SHELL, "command=echo hi"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLOSE_WINDOW, "window=Scratch"), WA_E_OK);
    assert_false(actions_hold("mouse_button"));
    assert_false(actions_hold("type_text"));
    assert_false(actions_hold("run_shell"));
    assert_false(actions_hold("close_window"));
    /* a dry run still refuses what the gate refuses */
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=1300|y=620"), WA_E_DENIED);
    rig_close(&t);
}

static void rate_limit_refuses_a_burst(void **state)
{
    (void)state;
    struct core_config cfg = {.max_actions_per_s = 0.5};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=a"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=b"), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "rate limit"));
    /* looking is not rate-limited */
    assert_int_equal(rig_do(&t, OP_LIST_WINDOWS, ""), WA_E_OK);
    rig_close(&t);
}

/* Typing is checked at every batch: a prompt that comes to the front mid-text gets none
 * of the rest; text past the cap is refused whole. */
static void typing_stops_when_another_window_takes_the_keyboard(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    char args[200] = "window=notepad|text=";
    for (int i = 0; i < 100; i++)
        strcat(args, "x");
    /* a window of another program (focus_lost), then a restricted prompt (denied) */
    static const struct {
        int hwnd;
        wa_err code;
    } stealers[] = {{512, WA_E_FOCUS_LOST}, {768, WA_E_DENIED}};
    for (size_t i = 0; i < 2; i++) {
        char *with = malloc(sizeof scene + 64);
        snprintf(with, sizeof scene + 64, "%.*s, \"steal_focus\": {\"after\": 40, \"hwnd\": %d}}",
                 (int)strlen(scene) - 1, scene, stealers[i].hwnd);
        assert_int_equal(fake_load_scene(with, NULL), WA_E_OK);
        free(with);
        assert_int_equal(rig_do(&t, OP_TYPE, args), stealers[i].code);
        assert_non_null(strstr(t.r.message, "typing stopped after 64 of 100 bytes"));
        char *acts = fake_actions_json();
        size_t batches = 0;
        for (const char *p = acts; (p = strstr(p, "type_text")); p++)
            batches++;
        assert_int_equal(batches, 2); /* 32 + 32, then the other window was in front */
        free(acts);
    }
    /* the cap */
    char *big = malloc(65600);
    snprintf(big, 65600, "window=notepad|text=");
    memset(big + strlen(big), 'y', 65537);
    big[20 + 65537] = '\0';
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_TYPE, big), WA_E_INVALID_ARGS);
    assert_non_null(strstr(t.r.message, "at most 65536"));
    assert_false(actions_hold("type_text"));
    free(big);
    rig_close(&t);
}

static void audit_keeps_typed_text_out(void **state)
{
    (void)state;
    char audit[160];
    snprintf(audit, sizeof audit, "%s/typed.jsonl", tmp_dir);
    struct core_config cfg = {.audit_path = audit};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=notepad|text=correct horse"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=1300|y=620"), WA_E_DENIED);
    char *text = NULL;
    assert_int_equal(os_read_file(audit, 1 << 20, &text, NULL), WA_E_OK);
    assert_null(strstr(text, "correct horse"));
    assert_non_null(strstr(text, "\"length\":13"));
    assert_non_null(strstr(text, "\"process\":\"notepad.exe\""));
    assert_non_null(strstr(text, "\"outcome\":\"denied\""));
    free(text);
    rig_close(&t);
}

/* A file is written only where the user said: the command line's path. Every other
 * front end is refused it; a dry run writes nothing; the audit has a line. */
static void files_are_written_only_from_the_command_line(void **state)
{
    (void)state;
    char audit[160], png[160], args[200];
    snprintf(audit, sizeof audit, "%s/files.jsonl", tmp_dir);
    snprintf(png, sizeof png, "%s/shot.png", tmp_dir);
    snprintf(args, sizeof args, "window=notepad|path=%s", png);
    for (int dry = 0; dry < 2; dry++) {
        struct core_config cfg = {.audit_path = audit, .dry_run = dry};
        struct rig t; /* its session: files_allowed false */
        open_rig(&t, &cfg, false);
        assert_int_equal(rig_do(&t, OP_SCREENSHOT, args), WA_E_INVALID_ARGS);
        assert_non_null(strstr(t.r.message, "only the command line"));
        char *text = NULL;
        assert_int_not_equal(os_read_file(png, 1 << 24, &text, NULL), WA_E_OK);
        struct session_opts o;
        session_opts_default(&o);
        o.front = "cli";
        o.files_allowed = true;
        struct session *cli;
        assert_int_equal(session_new(t.core, &o, &cli), WA_E_OK);
        assert_int_equal(perform(cli, OP_SCREENSHOT, args, &t.r), WA_E_OK);
        wa_err read = os_read_file(png, 1 << 24, &text, NULL);
        if (dry) {
            assert_int_not_equal(read, WA_E_OK);
            assert_true(t.r.dry_run);
        } else {
            assert_int_equal(read, WA_E_OK);
            assert_memory_equal(text, "\x89PNG", 4);
            free(text);
            remove(png);
        }
        session_free(cli);
        rig_close(&t);
    }
    char *lines = NULL;
    assert_int_equal(os_read_file(audit, 1 << 20, &lines, NULL), WA_E_OK);
    size_t n = 0;
    for (const char *p = lines; (p = strstr(p, "\"op\":\"screenshot\"")); p++)
        n++;
    assert_int_equal(n, 2); /* the written one and the dry one */
    assert_non_null(strstr(lines, "\"dry_run\":true"));
    free(lines);
}

/* ---- refs and changes ---- */

static int ref_of(const struct op_result *r, const char *type, const char *name)
{
    for (size_t i = 0; i < r->n_elements; i++)
        if (strcmp(r->elements[i].type, type) == 0 && strcmp(r->elements[i].name, name) == 0)
            return r->elements[i].id;
    return 0;
}

static void refs_hold_between_calls_and_go_stale(void **state)
{
    (void)state;
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, true);
    assert_int_equal(rig_do(&t, OP_STATE, "window=notepad"), WA_E_OK);
    int save = ref_of(&t.r, "Button", "Save");
    assert_true(save > 0);
    char args[64];
    snprintf(args, sizeof args, "ref=%d", save);
    /* a second session of the same client kind (the CLI's next process) finds it too */
    struct session_opts o;
    session_opts_default(&o);
    o.refs = o.refs_on_disk = true;
    struct session *s2;
    assert_int_equal(session_new(t.core, &o, &s2), WA_E_OK);
    assert_int_equal(perform(s2, OP_INVOKE, args, &t.r), WA_E_OK);
    assert_string_equal(t.r.element.name, "Save");
    /* the button goes: its ref is stale, nothing is pressed */
    char *gone = strdup(scene);
    char *at = strstr(gone, "\"name\": \"Save\"");
    memcpy(at, "\"name\": \"Sav_\"", 14);
    assert_int_equal(fake_load_scene(gone, NULL), WA_E_OK);
    free(gone);
    assert_int_equal(perform(s2, OP_INVOKE, args, &t.r), WA_E_STALE_REF);
    assert_false(actions_hold("element_action"));
    session_free(s2);
    rig_close(&t);
}

/* Two clients of one server (MCP sessions, serve connections): each has refs of its
 * own, and a ref of the other's observation is stale, never the other's element. */
static struct session *client(struct core *c)
{
    struct session_opts o;
    session_opts_default(&o);
    o.refs = true; /* refs_on_disk false: the session's own */
    struct session *s;
    assert_int_equal(session_new(c, &o, &s), WA_E_OK);
    return s;
}

/* set_value never says ok for nothing: a control that keeps its old text after the
 * pattern is typed into instead, and when it still does not hold the text the call is
 * not_verified with what it holds. */
static void set_value_is_ok_only_when_the_control_holds_it(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=notepad|ref=Edit:Locked|text=new"),
                     WA_E_NOT_VERIFIED);
    assert_string_equal(t.r.via, "click+select-all+type");
    assert_string_equal(t.r.read_back, "old");
    bool said = false;
    for (size_t i = 0; i < t.r.n_notes; i++)
        said = said || strstr(t.r.notes[i], "typed the value instead");
    assert_true(said);
    assert_true(actions_hold("type_text"));
    /* one that takes the value: ok, verified */
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=notepad|ref=Edit:Text Editor|text=abc"),
                     WA_E_OK);
    assert_true(t.r.verified);
    rig_close(&t);
}

/* select_menu: an unknown level fails listing the items there are; nothing is pressed. */
static void a_menu_path_names_what_is_there(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_SELECT_MENU, "window=notepad|path=Edit > Undo"),
                     WA_E_ELEMENT_NOT_FOUND);
    assert_non_null(strstr(t.r.message, "no menu item \"Edit\" in the menu bar"));
    assert_non_null(strstr(t.r.message, "\"&Help\""));
    assert_false(actions_hold("element_action"));
    assert_int_equal(rig_do(&t, OP_SELECT_MENU, "window=notepad|path= > "), WA_E_INVALID_ARGS);
    rig_close(&t);
}

static void refs_belong_to_their_client(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t; /* its session is not used */
    open_rig(&t, &cfg, false);
    char cmd[192];
    snprintf(cmd, sizeof cmd, "rm -rf %s/state", tmp_dir);
    assert_int_equal(system(cmd), 0);
    struct session *a = client(t.core), *b = client(t.core), *late = client(t.core);
    assert_int_equal(perform(a, OP_STATE, "window=notepad", &t.r), WA_E_OK);
    int save = ref_of(&t.r, "Button", "Save");
    assert_int_equal(perform(b, OP_STATE, "window=Scratch", &t.r), WA_E_OK);
    int ok = ref_of(&t.r, "Button", "OK");
    assert_true(ok > 0 && ok != save);
    char args[32];
    snprintf(args, sizeof args, "ref=%d", save);
    assert_int_equal(perform(a, OP_INVOKE, args, &t.r), WA_E_OK);
    assert_string_equal(t.r.element.name, "Save");
    snprintf(args, sizeof args, "what=name|ref=%d", ok);
    assert_int_equal(perform(b, OP_GET, args, &t.r), WA_E_OK);
    assert_string_equal(t.r.text, "OK");
    /* A's number means nothing to B: B's last state has no such ref */
    snprintf(args, sizeof args, "what=name|ref=%d", save);
    assert_int_equal(perform(b, OP_GET, args, &t.r), WA_E_STALE_REF);
    snprintf(args, sizeof args, "ref=%d", save);
    /* a client that observed nothing has no refs, whatever the others did */
    assert_int_equal(perform(late, OP_INVOKE, args, &t.r), WA_E_STALE_REF);
    /* nor is anything left in the state folder for the CLI to pick up */
    char path[192];
    snprintf(path, sizeof path, "%s/state/last.json", tmp_dir);
    char *text = NULL;
    assert_int_not_equal(os_read_file(path, 1 << 20, &text, NULL), WA_E_OK);
    free(text);
    session_free(late);
    session_free(b);
    session_free(a);
    rig_close(&t);
}

static void an_action_reports_what_it_changed(void **state)
{
    (void)state;
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(rig_do(&t, OP_TOGGLE, "window=notepad|ref=CheckBox:Wrap"), WA_E_OK);
    assert_true(t.r.has_changes);
    assert_false(t.r.nothing_changed);
    assert_non_null(strstr(dynbuf_str(&t.r.changes), "checked"));
    assert_int_equal(rig_do(&t, OP_TYPE, "window=notepad|text=hello"), WA_E_OK);
    assert_true(t.r.verified);
    assert_non_null(strstr(dynbuf_str(&t.r.changes), "hello"));
    assert_int_equal(rig_do(&t, OP_CLOSE_WINDOW, "window=Scratch"), WA_E_OK);
    assert_non_null(strstr(dynbuf_str(&t.r.changes), "window closed: \"Scratch\""));
    rig_close(&t);
}

/* Notes, and a window of another program over its Send button: one that stays on top
 * ("topmost"), or one that raising Notes puts behind it. */
static void load_cover_scene(bool topmost)
{
    char text[1400];
    snprintf(text, sizeof text,
             "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
             " \"windows\": ["
             "  {\"hwnd\": 512, \"title\": \"Cover\", \"process\": \"cover.exe\", \"pid\": 2,"
             "   \"rect\": [50, 50, 400, 300], \"foreground\": true, \"topmost\": %s},"
             "  {\"hwnd\": 256, \"title\": \"Notes\", \"process\": \"notes.exe\", \"pid\": 1,"
             "   \"rect\": [0, 0, 800, 600], \"tree\": {\"type\": \"Window\", \"name\": \"Notes\","
             "    \"bounds\": [0, 0, 800, 600], \"children\": ["
             "     {\"type\": \"Button\", \"name\": \"Send\", \"bounds\": [100, 100, 200, 140]},"
             "     {\"type\": \"Button\", \"name\": \"Far\", \"bounds\": [600, 400, 700, 440]}]}},"
             "  {\"hwnd\": 1024, \"title\": \"Desktop\", \"process\": \"shell.exe\", \"pid\": 3,"
             "   \"rect\": [0, 0, 1920, 1080]}]}",
             topmost ? "true" : "false");
    assert_int_equal(fake_load_scene(text, NULL), WA_E_OK);
}

static bool clicked(void)
{
    char *acts = fake_actions_json();
    bool any = strstr(acts, "\"mouse_button\"") != NULL;
    free(acts);
    return any;
}

static void a_click_names_the_window_that_gets_it(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    /* Another program's window stays over the named target's button: refused, named. */
    load_cover_scene(true);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Notes|ref=Button:Send"), WA_E_COVERED);
    assert_non_null(strstr(t.r.message, "\"Cover\" (cover.exe, 0x200)"));
    assert_non_null(strstr(t.r.message, "nothing was sent"));
    assert_false(clicked());
    /* A point of the target's frame is as named as a ref: refused the same way. */
    load_cover_scene(true);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Notes|x=188|y=200"), WA_E_COVERED);
    assert_false(clicked());
    /* Where the cover does not reach, the click goes to the target. */
    load_cover_scene(true);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Notes|ref=Button:Far"), WA_E_OK);
    assert_true(clicked());
    /* One that raising the target puts behind: the target is raised and clicked. */
    load_cover_scene(false);
    assert_int_equal(rig_do(&t, OP_CLICK, "window=Notes|ref=Button:Send"), WA_E_OK);
    assert_true(clicked());
    assert_true(t.r.has_receiver);
    assert_int_equal(t.r.receiver.hwnd, 256);
    /* No target named (a session that has looked at no window): the click goes where
     * the point is, and the result says where. */
    rig_close(&t);
    open_rig(&t, &cfg, false);
    load_cover_scene(true);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=150|y=120"), WA_E_OK);
    assert_int_equal(t.r.receiver.hwnd, 512);
    bool said = false;
    for (size_t i = 0; i < t.r.n_notes; i++)
        said = said || strstr(t.r.notes[i], "went to \"Cover\" (cover.exe");
    assert_true(said);
    rig_close(&t);
}

/* One window that turns black where it is clicked, as soon as it is (hung: it takes
 * no messages, so only its pixels tell when the click is done). */
static void load_paint_scene(bool hung)
{
    char paint[640];
    snprintf(paint, sizeof paint,
             "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
             " \"windows\": [{\"hwnd\": 256, \"title\": \"Paint\", \"class\": \"Paint\","
             "   \"process\": \"paint.exe\", \"pid\": 42, \"rect\": [100, 100, 300, 200],"
             "   \"foreground\": true, \"color\": \"#ffffff\", \"click_color\": \"#000000\","
             "   \"hung\": %s, \"tree\": {\"type\": \"Window\", \"name\": \"Paint\","
             "   \"bounds\": [100, 100, 300, 200]}}]}",
             hung ? "true" : "false");
    assert_int_equal(fake_load_scene(paint, NULL), WA_E_OK);
}

static void a_settle_ends_when_the_input_was_handled(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    /* The window says it handled the click, and the second look shows no more change:
     * no polling interval, no stable period. */
    load_paint_scene(false);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=200|y=150"), WA_E_OK);
    assert_non_null(strstr(dynbuf_str(&t.r.changes), "pixels: the window changed"));
    assert_true(t.r.settle_ms < 40);
    /* A window that cannot say so is watched until its pixels stop changing: the stable
     * period at least. */
    load_paint_scene(true);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=200|y=150"), WA_E_OK);
    assert_non_null(strstr(dynbuf_str(&t.r.changes), "pixels: the window changed"));
    assert_true(t.r.settle_ms >= 49);
    /* Nothing changes: the wait goes on for an effect that comes late, either way. */
    load_paint_scene(false);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=200|y=150"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=200|y=150"), WA_E_OK);
    assert_true(t.r.nothing_changed);
    assert_true(t.r.settle_ms >= 145);
    rig_close(&t);
}

/* Four monitors: the primary at 100 %, one left of and above it at 125 %, one above
 * it at 150 %, one right of it at 200 %; on each a window with a button, drawn
 * DPI-aware, DPI-unaware or system-aware. Bounds in the scene are the window's own
 * pixels (fake_backend.c stretches them as Windows does). */
static const char monitors_scene[] =
    "{\"monitors\": ["
    "  {\"rect\": [0, 0, 1920, 1080], \"primary\": true, \"dpi\": 96},"
    "  {\"rect\": [-1920, -240, 0, 840], \"dpi\": 120},"
    "  {\"rect\": [0, -1440, 2560, 0], \"dpi\": 144},"
    "  {\"rect\": [1920, 0, 5760, 2160], \"dpi\": 192}],"
    " \"windows\": ["
    "  {\"hwnd\": 256, \"title\": \"Aware\", \"process\": \"a.exe\", \"pid\": 1,"
    "   \"rect\": [100, 100, 900, 700], \"dpi_awareness\": \"per_monitor\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Aware\", \"bounds\": [100, 100, 900, 700],"
    "    \"children\": [{\"type\": \"Button\", \"name\": \"A1\", \"bounds\": [200, 200, 300, "
    "240]}]}},"
    "  {\"hwnd\": 512, \"title\": \"Unaware125\", \"process\": \"b.exe\", \"pid\": 2,"
    "   \"rect\": [-1800, -200, -800, 600], \"dpi_awareness\": \"unaware\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Unaware125\","
    "    \"bounds\": [-1800, -200, -1000, 440],"
    "    \"children\": [{\"type\": \"Button\", \"name\": \"B1\","
    "     \"bounds\": [-1700, -150, -1620, -120]}]}},"
    "  {\"hwnd\": 768, \"title\": \"System150\", \"process\": \"c.exe\", \"pid\": 3,"
    "   \"rect\": [100, -1300, 1300, -300], \"dpi_awareness\": \"system\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"System150\","
    "    \"bounds\": [100, -1300, 900, -633],"
    "    \"children\": [{\"type\": \"Button\", \"name\": \"C1\","
    "     \"bounds\": [140, -1270, 220, -1240]}]}},"
    "  {\"hwnd\": 1024, \"title\": \"Unaware200\", \"process\": \"d.exe\", \"pid\": 4,"
    "   \"rect\": [2000, 100, 3600, 1300], \"dpi_awareness\": \"unaware\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Unaware200\", \"bounds\": [2000, 100, 2800, "
    "700],"
    "    \"children\": [{\"type\": \"Button\", \"name\": \"D1\", \"bounds\": [2010, 110, 2090, "
    "140]}]}},"
    /* below them, a window filling each monitor: every point has a receiver */
    "  {\"hwnd\": 2048, \"title\": \"Back0\", \"process\": \"e.exe\", \"pid\": 5,"
    "   \"rect\": [0, 0, 1920, 1080]},"
    "  {\"hwnd\": 2304, \"title\": \"Back1\", \"process\": \"e.exe\", \"pid\": 5,"
    "   \"rect\": [-1920, -240, 0, 840]},"
    "  {\"hwnd\": 2560, \"title\": \"Back2\", \"process\": \"e.exe\", \"pid\": 5,"
    "   \"rect\": [0, -1440, 2560, 0]},"
    "  {\"hwnd\": 2816, \"title\": \"Back3\", \"process\": \"e.exe\", \"pid\": 5,"
    "   \"rect\": [1920, 0, 5760, 2160]}]}";

/* The last mouse button press the fake desktop recorded: where (physical pixels), the
 * window and element that received it. */
static void last_press(int *x, int *y, double *window, char *element, size_t size)
{
    char *json = fake_actions_json();
    cJSON *all = cJSON_Parse(json), *a, *last = NULL;
    free(json);
    cJSON_ArrayForEach(a, all)
    {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(a, "op");
        if (cJSON_IsString(op) && strcmp(op->valuestring, "mouse_button") == 0 &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "down")))
            last = a;
    }
    assert_non_null(last);
    *x = cJSON_GetObjectItemCaseSensitive(last, "x")->valueint;
    *y = cJSON_GetObjectItemCaseSensitive(last, "y")->valueint;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(last, "window");
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(last, "element");
    *window = cJSON_IsNumber(w) ? w->valuedouble : 0;
    snprintf(element, size, "%s", cJSON_IsString(el) ? el->valuestring : "");
    cJSON_Delete(all);
}

static void clicks_land_on_every_monitor_and_scale(void **state)
{
    (void)state;
    static const struct {
        const char *title, *button;
        double hwnd;
        struct wa_rect frame;     /* physical */
        struct wa_rect button_px; /* the button's bounds stretched to physical pixels */
    } wins[] = {
        {"Aware", "A1", 256, {100, 100, 900, 700}, {200, 200, 300, 240}},
        /* 125 %: 100 of its pixels right of its corner are 125 physical ones */
        {"Unaware125", "B1", 512, {-1800, -200, -800, 600}, {-1675, -137, -1575, -100}},
        /* system-aware at the primary's 96 DPI on a 144 DPI monitor: 150 % */
        {"System150", "C1", 768, {100, -1300, 1300, -300}, {160, -1255, 280, -1210}},
        {"Unaware200", "D1", 1024, {2000, 100, 3600, 1300}, {2020, 120, 2180, 180}},
    };
    static const int norms[] = {0, 1, 250, 499, 500, 998, 999};
    struct core_config cfg = {0};
    struct rig t;
    open_rig(&t, &cfg, false);
    assert_int_equal(fake_load_scene(monitors_scene, NULL), WA_E_OK);
    char args[160], element[64];
    int x, y;
    double window;
    for (size_t i = 0; i < sizeof wins / sizeof wins[0]; i++) {
        /* by element: the centre of its physical bounds, and it is what receives it */
        snprintf(args, sizeof args, "window=%s|ref=Button:%s", wins[i].title, wins[i].button);
        assert_int_equal(rig_do(&t, OP_CLICK, args), WA_E_OK);
        last_press(&x, &y, &window, element, sizeof element);
        int cx, cy;
        wa_rect_center(wins[i].button_px, &cx, &cy);
        assert_int_equal(x, cx);
        assert_int_equal(y, cy);
        assert_true(window == wins[i].hwnd);
        assert_string_equal(element, wins[i].button);
        /* by 0-999 of the window: origin + round(n * (size - 1) / 999), inside it */
        struct wa_rect f = wins[i].frame;
        for (size_t n = 0; n < sizeof norms / sizeof norms[0]; n++) {
            snprintf(args, sizeof args, "window=%s|x=%d|y=%d", wins[i].title, norms[n], norms[n]);
            assert_int_equal(rig_do(&t, OP_CLICK, args), WA_E_OK);
            last_press(&x, &y, &window, element, sizeof element);
            assert_int_equal(x, norm_to_pixel(norms[n], f.left, wa_rect_width(f)));
            assert_int_equal(y, norm_to_pixel(norms[n], f.top, wa_rect_height(f)));
            assert_true(x >= f.left && x < f.right && y >= f.top && y < f.bottom);
            assert_true(window == wins[i].hwnd);
        }
    }
    /* A screenshot of each monitor, downscaled to 1280: the model's 0-999 of the image
     * is the same place on the screen, and a pixel of the image maps back to within
     * one image pixel of it. */
    struct wa_monitor mons[8];
    size_t nm = 0;
    assert_int_equal(backend_monitors(backend_default(), mons, 8, &nm), WA_E_OK);
    assert_int_equal(nm, 4);
    for (size_t m = 0; m < nm; m++) {
        snprintf(args, sizeof args, "monitor=%zu|max_edge=1280", m);
        assert_int_equal(rig_do(&t, OP_SCREENSHOT, args), WA_E_OK);
        struct wa_rect mon = mons[m].rect;
        assert_int_equal(t.r.origin_x, mon.left);
        assert_int_equal(t.r.origin_y, mon.top);
        int img_w = t.r.img_w, img_h = t.r.img_h;
        assert_true(img_w <= 1280 && img_h <= 1280);
        for (size_t n = 0; n < sizeof norms / sizeof norms[0]; n++) {
            snprintf(args, sizeof args, "x=%d|y=%d", norms[n], norms[n]);
            assert_int_equal(rig_do(&t, OP_CLICK, args), WA_E_OK);
            last_press(&x, &y, &window, element, sizeof element);
            assert_int_equal(x, norm_to_pixel(norms[n], mon.left, wa_rect_width(mon)));
            assert_int_equal(y, norm_to_pixel(norms[n], mon.top, wa_rect_height(mon)));
            assert_true(x >= mon.left && x < mon.right && y >= mon.top && y < mon.bottom);
            int ix = norm_to_pixel(norms[n], 0, img_w), iy = norm_to_pixel(norms[n], 0, img_h);
            double sx = (double)wa_rect_width(mon) / img_w;
            double sy = (double)wa_rect_height(mon) / img_h;
            assert_true(fabs(mon.left + ix * sx - x) <= sx + 1);
            assert_true(fabs(mon.top + iy * sy - y) <= sy + 1);
        }
    }
    rig_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_operation_performs),
        cmocka_unit_test(held_keys_and_buttons_are_gated_and_released),
        cmocka_unit_test(keys_are_held_during_pointer_input),
        cmocka_unit_test(one_display_for_the_session),
        cmocka_unit_test(restricted_windows_are_refused_and_left_out),
        cmocka_unit_test(refused_windows_are_not_described),
        cmocka_unit_test(targets_are_top_level_windows_and_elements_their_own),
        cmocka_unit_test(no_shell_through_the_ui_when_it_is_off),
        cmocka_unit_test(launch_judges_the_file_not_its_name),
        cmocka_unit_test(images_black_out_restricted_popups),
        cmocka_unit_test(input_windows_would_drop_is_named),
        cmocka_unit_test(a_settle_ends_when_the_input_was_handled),
        cmocka_unit_test(clicks_land_on_every_monitor_and_scale),
        cmocka_unit_test(shell_needs_the_permission),
        cmocka_unit_test(confirm_shows_the_whole_command),
        cmocka_unit_test(dry_run_sends_nothing),
        cmocka_unit_test(rate_limit_refuses_a_burst),
        cmocka_unit_test(typing_stops_when_another_window_takes_the_keyboard),
        cmocka_unit_test(audit_keeps_typed_text_out),
        cmocka_unit_test(files_are_written_only_from_the_command_line),
        cmocka_unit_test(refs_hold_between_calls_and_go_stale),
        cmocka_unit_test(set_value_is_ok_only_when_the_control_holds_it),
        cmocka_unit_test(a_menu_path_names_what_is_there),
        cmocka_unit_test(refs_belong_to_their_client),
        cmocka_unit_test(an_action_reports_what_it_changed),
        cmocka_unit_test(a_click_names_the_window_that_gets_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
