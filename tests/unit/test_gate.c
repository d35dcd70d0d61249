/* The gate on the fake desktop, through core_perform as every front end calls it: an
 * allow-list that is default-deny (listed, observed, acted on, launched), routes to a
 * shell told by what they are (the Run dialog in any language, address bars, Task
 * Manager's "Create new task", terminals by name or by their file, the shell's launcher
 * keys), programs that are not installed, pastes checked by the clipboard's
 * owner, elements checked by the nearest window above them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lodepng.h>

#include "agent/core/core.h"
#include "automation/fake/fake_backend.h"
#include "core_rig.h"

/* Notepad in front with a Save As dialog of its own (an address bar, a file name box),
 * a scratch program, a password manager; programs near and far. */
static const char scene[] =
    "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
    " \"desktop_color\": \"#3a6ea5\","
    " \"windows\": ["
    "  {\"hwnd\": 1300, \"title\": \"Save As\", \"class\": \"#32770\", \"process\": "
    "\"notepad.exe\","
    "   \"process_path\": \"C:\\\\Windows\\\\notepad.exe\", \"pid\": 7, \"owner\": 256,"
    "   \"rect\": [300, 200, 900, 600], \"foreground\": true, \"color\": \"#f0f0f0\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Save As\", \"bounds\": [300, 200, 900, 600],"
    "     \"children\": ["
    "     {\"type\": \"Pane\", \"class\": \"Address Band Root\", \"hwnd\": 5001,"
    "      \"bounds\": [310, 210, 890, 240], \"children\": ["
    "       {\"type\": \"Edit\", \"name\": \"Address\", \"class\": \"Edit\", \"hwnd\": 5002,"
    "        \"bounds\": [320, 215, 880, 235], \"patterns\": [\"value\"], \"value\": \"\"}]},"
    "     {\"type\": \"Edit\", \"name\": \"File name:\", \"class\": \"Edit\", \"hwnd\": 5003,"
    "      \"bounds\": [320, 500, 880, 520], \"states\": [\"focused\"], \"value\": \"\","
    "      \"patterns\": [\"value\"]}]}},"
    "  {\"hwnd\": 256, \"title\": \"Untitled - Notepad\", \"class\": \"Notepad\","
    "   \"process\": \"notepad.exe\", \"process_path\": \"C:\\\\Windows\\\\notepad.exe\","
    "   \"pid\": 7, \"rect\": [100, 50, 1100, 850], \"color\": \"#ffffff\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Untitled - Notepad\","
    "     \"bounds\": [100, 50, 1100, 850], \"children\": ["
    "     {\"type\": \"Pane\", \"name\": \"Embedded vault\", \"hwnd\": 768,"
    "      \"bounds\": [600, 700, 900, 800], \"children\": ["
    "       {\"type\": \"Button\", \"name\": \"Reveal\", \"bounds\": [610, 710, 700, 740],"
    "        \"patterns\": [\"invoke\"]}]},"
    "     {\"type\": \"Edit\", \"name\": \"Text Editor\", \"bounds\": [100, 150, 1100, 650],"
    "      \"value\": \"\", \"patterns\": [\"value\"]}]}},"
    "  {\"hwnd\": 512, \"title\": \"Scratch\", \"process\": \"scratch.exe\", \"pid\": 8,"
    "   \"rect\": [1200, 100, 1500, 500], \"color\": \"#dddddd\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Scratch\", \"bounds\": [1200, 100, 1500, "
    "500]}},"
    "  {\"hwnd\": 768, \"title\": \"Passwords - KeePass\", \"process\": \"keepass.exe\","
    "   \"pid\": 9, \"rect\": [1200, 600, 1600, 900], \"color\": \"#ff0000\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"Passwords - KeePass\"}}],"
    " \"launch\": {\"calc\": {\"hwnd\": 1024, \"title\": \"Calculator\", \"process\": "
    "\"calc.exe\", \"process_path\": \"C:\\\\Windows\\\\System32\\\\calc.exe\","
    "    \"rect\": [10, 10, 300, 400], \"tree\": {\"type\": \"Window\"}},"
    "   \"tool\": {\"hwnd\": 1025, \"title\": \"Tool\", \"process\": \"tool.exe\","
    "    \"process_path\": \"C:\\\\Users\\\\me\\\\tool.exe\","
    "    \"rect\": [10, 10, 300, 400], \"tree\": {\"type\": \"Window\"}}},"
    " \"programs\": {\"calc\": {\"path\": \"C:\\\\Windows\\\\System32\\\\calc.exe\"},"
    "   \"update\": {\"path\": \"\\\\\\\\server\\\\share\\\\update.exe\"},"
    "   \"mapped\": {\"path\": \"Y:\\\\tools\\\\mapped.exe\"},"
    "   \"tool\": {\"path\": \"C:\\\\Users\\\\me\\\\tool.exe\"},"
    "   \"climb\": {\"path\": \"C:\\\\Windows\\\\..\\\\Users\\\\me\\\\climb.exe\"},"
    "   \"term\": {\"path\": \"C:\\\\Tools\\\\term.exe\", \"original_name\": "
    "\"alacritty.exe\"},"
    "   \"con\": {\"path\": \"C:\\\\Tools\\\\con.exe\", \"console\": true}},"
    " \"network_drives\": [\"Y:\"],"
    " \"shell\": {\"echo hi\": {\"exit\": 0, \"out\": \"hi\"}}}";

/* The rig on `text` (a scene), with cfg's fields. */
static void open_on(struct rig *t, const char *text, struct core_config *cfg)
{
    rig_open(t, text, cfg, rig_state_dir, false);
}

/* The scene with one more window in front (its JSON). */
static char *with_window(const char *window)
{
    size_t n = sizeof scene + strlen(window) + 8;
    char *s = malloc(n);
    const char *at = strstr(scene, "\"windows\": [") + 13;
    snprintf(s, n, "%.*s%s,%s", (int)(at - scene), scene, window, at);
    return s;
}

/* The scene with one more top-level field (",\"key\": value"). */
static char *with_field(const char *field)
{
    size_t n = sizeof scene + strlen(field) + 8;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s}", (int)(sizeof scene - 2), scene, field);
    return s;
}

/* The RGB of screen pixel (x, y) in the rig's last image. */
static unsigned pixel(struct rig *t, int x, int y)
{
    unsigned char *px = NULL;
    unsigned w = 0, h = 0;
    assert_int_equal(
        lodepng_decode32(&px, &w, &h, (const unsigned char *)t->r.png.data, t->r.png.len), 0);
    int ix = (int)(x * t->r.scale), iy = (int)(y * t->r.scale);
    const unsigned char *p = px + ((size_t)iy * w + (size_t)ix) * 4;
    unsigned rgb = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
    free(px);
    return rgb;
}

/* ---- the allow-list ---- */

/* With --apps, only windows of those programs exist: listed, observed, acted on,
 * launched; everything else answers as if it were not there, and images show only them.
 * Their own dialogs (the same process) work. */
static void only_the_allowed_programs_exist(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_ALLOWED, .apps = "notepad.exe"};
    struct rig t;
    open_on(&t, scene, &cfg);
    assert_int_equal(rig_do(&t, OP_LIST_WINDOWS, ""), WA_E_OK);
    assert_int_equal(t.r.windows.count, 2);
    for (size_t i = 0; i < t.r.windows.count; i++)
        assert_string_equal(t.r.windows.items[i].process, "notepad.exe");
    assert_int_equal(t.r.n_notes, 0); /* not even how many others there are */
    /* selectors and handles of any other window: as a window that is not there */
    assert_int_equal(rig_do(&t, OP_STATE, "window=Scratch"), WA_E_WINDOW_NOT_FOUND);
    assert_int_equal(rig_do(&t, OP_FOCUS_WINDOW, "window=0x200"), WA_E_WINDOW_NOT_FOUND);
    assert_null(strstr(t.r.message, "scratch"));
    /* input that would reach another program is refused at the moment of sending */
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=1300|y=300"), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "--apps"));
    assert_false(actions_hold("mouse_button"));
    /* notepad and its own dialog take input */
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Save As|text=note.txt"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=500|y=300"), WA_E_OK);
    /* an image of the screen shows the allowed windows only */
    assert_int_equal(rig_do(&t, OP_SCREENSHOT, "monitor=0"), WA_E_OK);
    assert_int_equal(pixel(&t, 150, 700), 0xffffff);   /* notepad */
    assert_int_equal(pixel(&t, 1300, 300), 0x000000);  /* scratch */
    assert_int_equal(pixel(&t, 1800, 1000), 0x000000); /* the desktop */
    /* only they start; and the shell, a program too, only when listed */
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=calc"), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "calc.exe"));
    assert_int_equal(rig_do(&t, OP_SHELL, "command=echo hi"), WA_E_DENIED);
    assert_false(actions_hold("launch"));
    assert_false(actions_hold("run_shell"));
    rig_close(&t);

    /* listed by name or by whole path; the screen of everything without an allow-list */
    static const struct {
        const char *apps;
        wa_err launch;
    } lists[] = {
        {"Notepad, CALC", WA_E_OK},
        {"notepad.exe,C:/Windows/System32/calc.exe", WA_E_OK},
        {"notepad.exe,C:\\Other\\calc.exe", WA_E_DENIED},
        {"notepad.exe,powershell.exe", WA_E_DENIED},
    };
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        struct core_config c = {.shell = SHELL_ALLOWED, .apps = lists[i].apps};
        open_on(&t, scene, &c);
        assert_int_equal(rig_do(&t, OP_LAUNCH, "command=calc"), lists[i].launch);
        assert_int_equal(rig_do(&t, OP_SHELL, "command=echo hi"),
                         strstr(lists[i].apps, "powershell") ? WA_E_OK : WA_E_DENIED);
        rig_close(&t);
    }
    struct core_config all = {0};
    open_on(&t, scene, &all);
    assert_int_equal(rig_do(&t, OP_SCREENSHOT, "monitor=0"), WA_E_OK);
    assert_int_equal(pixel(&t, 1300, 300), 0xdddddd);
    assert_int_equal(pixel(&t, 1800, 1000), 0x3a6ea5);
    assert_int_equal(pixel(&t, 1300, 700), 0x000000); /* the restricted one, as ever */
    rig_close(&t);
}

/* ---- shell off, honestly ---- */

/* Windows that are routes to a shell, known by what they are, not by an English title. */
static const char *const shell_windows[] = {
    /* the Run dialog of a German Windows: Explorer's dialog, whatever its title */
    "{\"hwnd\": 1280, \"title\": \"Ausf\xc3\xbchren\", \"class\": \"#32770\","
    " \"process\": \"explorer.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    /* shell32's Run dialog in another program, by its command box */
    "{\"hwnd\": 1280, \"title\": \"Neue Aufgabe erstellen\", \"class\": \"#32770\","
    " \"process\": \"host.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true,"
    " \"tree\": {\"type\": \"Window\", \"children\": [{\"type\": \"ComboBox\", \"class\": "
    "\"ComboBox\", \"automation_id\": \"12298\", \"bounds\": [10, 910, 500, 930]}]}}",
    /* Task Manager's "Create new task": shell32's Run dialog in taskmgr.exe */
    "{\"hwnd\": 1280, \"title\": \"Create new task\", \"class\": \"#32770\","
    " \"process\": \"Taskmgr.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true,"
    " \"tree\": {\"type\": \"Window\", \"children\": [{\"type\": \"ComboBox\", \"class\": "
    "\"ComboBox\", \"automation_id\": \"12298\", \"bounds\": [10, 910, 500, 930]}]}}",
    /* terminals by their program */
    "{\"hwnd\": 1280, \"title\": \"~\", \"class\": \"Window Class\","
    " \"process\": \"alacritty.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    "{\"hwnd\": 1280, \"title\": \"wez\", \"class\": \"org.wezfurlong.wezterm\","
    " \"process\": \"wezterm-gui.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    "{\"hwnd\": 1280, \"title\": \"con\", \"class\": \"VirtualConsoleClass\","
    " \"process\": \"ConEmu64.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    "{\"hwnd\": 1280, \"title\": \"Terminal\", \"class\": \"CASCADIA_HOSTING_WINDOW_CLASS\","
    " \"process\": \"WindowsTerminal.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    "{\"hwnd\": 1280, \"title\": \"/home\", \"class\": \"mintty\","
    " \"process\": \"mintty.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    /* ... and by their file: a renamed terminal (its version resource), a console program */
    "{\"hwnd\": 1280, \"title\": \"notes\", \"class\": \"Window Class\","
    " \"process\": \"C:\\\\Tools\\\\term.exe\", \"rect\": [0, 900, 600, 1000], "
    "\"foreground\": true}",
    "{\"hwnd\": 1280, \"title\": \"tool\", \"class\": \"ToolWindow\","
    " \"process\": \"C:\\\\Tools\\\\con.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": "
    "true}",
    /* the Start menu's search, the taskbar */
    "{\"hwnd\": 1280, \"title\": \"Search\", \"class\": \"Windows.UI.Core.CoreWindow\","
    " \"process\": \"SearchHost.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    "{\"hwnd\": 1280, \"title\": \"Taskbar\", \"class\": \"Shell_TrayWnd\","
    " \"process\": \"explorer.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    /* Explorer's own window: its address bar has no window of its own on Windows 11 */
    "{\"hwnd\": 1280, \"title\": \"Documents\", \"class\": \"CabinetWClass\","
    " \"process\": \"explorer.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
};

static void routes_to_a_shell_receive_nothing_when_it_is_off(void **state)
{
    (void)state;
    for (int shell = 0; shell < 2; shell++) {
        for (size_t i = 0; i < sizeof shell_windows / sizeof *shell_windows; i++) {
            struct core_config cfg = {.shell = shell ? SHELL_ALLOWED : SHELL_DENIED};
            struct rig t;
            char *text = with_window(shell_windows[i]);
            open_on(&t, text, &cfg);
            free(text);
            wa_err want = shell ? WA_E_OK : WA_E_SHELL_DISABLED;
            wa_err e = rig_do(&t, OP_TYPE, "window=0x500|text=cmd /c calc");
            if (e != want)
                fail_msg("typing into %s: %s (%s)", shell_windows[i], wa_err_code(e), t.r.message);
            assert_int_equal(rig_do(&t, OP_KEY, "window=0x500|keys=enter"), want);
            assert_int_equal(actions_hold("type_text"), shell == 1);
            assert_int_equal(actions_hold("press_keys"), shell == 1);
            rig_close(&t);
        }
    }
    /* programs on launch's list whose windows take text, not commands (a control panel
     * applet in rundll32, a Java program), and Task Manager's own window, take typing */
    static const char *const plain[] = {
        "{\"hwnd\": 1280, \"title\": \"Internet Settings\", \"class\": \"#32770\","
        " \"process\": \"rundll32.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
        "{\"hwnd\": 1280, \"title\": \"Editor\", \"class\": \"SunAwtFrame\","
        " \"process\": \"javaw.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
        "{\"hwnd\": 1280, \"title\": \"Task Manager\", \"class\": \"#32770\","
        " \"process\": \"taskmgr.exe\", \"rect\": [0, 900, 600, 1000], \"foreground\": true}",
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        struct core_config cfg = {.shell = SHELL_DENIED};
        struct rig p;
        char *text = with_window(plain[i]);
        open_on(&p, text, &cfg);
        free(text);
        assert_int_equal(rig_do(&p, OP_TYPE, "window=0x500|text=hello"), WA_E_OK);
        rig_close(&p);
    }
    /* Explorer's window takes clicks (browsing), not keys */
    struct core_config off = {.shell = SHELL_DENIED};
    struct rig t;
    char *text = with_window(shell_windows[sizeof shell_windows / sizeof *shell_windows - 1]);
    open_on(&t, text, &off);
    free(text);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=100|y=950"), WA_E_OK);
    rig_close(&t);
}

/* The address bar of a program's own file dialog: no input, by click, by keys or by its
 * element; the file name box beside it takes all of them. */
static void an_address_bar_receives_nothing_when_the_shell_is_off(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_DENIED};
    struct rig t;
    open_on(&t, scene, &cfg);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Save As|text=hello.txt"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=Save As|ref=Edit:Address|text=cmd"),
                     WA_E_SHELL_DISABLED);
    assert_non_null(strstr(t.r.message, "address bar"));
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Save As|ref=Edit:Address|text=cmd"),
                     WA_E_SHELL_DISABLED);
    assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=500|y=225"), WA_E_SHELL_DISABLED);
    rig_close(&t);
    /* the focus in the address bar: keys and text go there, and are refused */
    char *moved = strdup(scene);
    char *focused = strstr(moved, "\"states\": [\"focused\"], ");
    memset(focused, ' ', strlen("\"states\": [\"focused\"], "));
    char *address = strstr(moved, "\"hwnd\": 5002,");
    size_t n = strlen(moved) + 64;
    char *text = malloc(n);
    snprintf(text, n, "%.*s\"states\": [\"focused\"], %s", (int)(address - moved), moved, address);
    free(moved);
    open_on(&t, text, &cfg);
    free(text);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Save As|text=powershell"), WA_E_SHELL_DISABLED);
    assert_int_equal(rig_do(&t, OP_KEY, "window=Save As|keys=enter"), WA_E_SHELL_DISABLED);
    assert_false(actions_hold("type_text"));
    assert_false(actions_hold("press_keys"));
    rig_close(&t);
}

/* An Explorer window whose focus is in its items: browsing keys (F2's rename, enter,
 * type-ahead) reach it, keys that can move the focus to the address bar do not, nor does
 * anything once the focus is out of the items. */
static const char explorer_window[] =
    "{\"hwnd\": 1280, \"title\": \"Documents\", \"class\": \"CabinetWClass\","
    " \"process\": \"explorer.exe\", \"rect\": [0, 600, 600, 1000], \"foreground\": true,"
    " \"tree\": {\"type\": \"Window\", \"name\": \"Documents\", \"bounds\": [0, 600, 600, 1000],"
    "  \"children\": ["
    "  {\"type\": \"Pane\", \"class\": \"Address Band Root\", \"hwnd\": 6001,"
    "   \"bounds\": [10, 610, 590, 640], \"children\": ["
    "    {\"type\": \"Edit\", \"name\": \"Address\", \"class\": \"Edit\", \"hwnd\": 6002,"
    "     \"bounds\": [20, 615, 580, 635], \"value\": \"\", \"patterns\": [\"value\"]}]},"
    "  {\"type\": \"Pane\", \"class\": \"SHELLDLL_DefView\", \"hwnd\": 6003,"
    "   \"bounds\": [10, 650, 590, 990], \"children\": ["
    "    {\"type\": \"List\", \"name\": \"Items View\", \"class\": \"SysListView32\","
    "     \"hwnd\": 6004, \"bounds\": [10, 650, 590, 990], \"states\": [\"focused\"]}]}]}}";

static void explorer_takes_browsing_keys_in_its_items_only(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_DENIED};
    struct rig t;
    char *text = with_window(explorer_window);
    open_on(&t, text, &cfg);
    free(text);
    assert_int_equal(rig_do(&t, OP_KEY, "window=0x500|keys=f2"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=0x500|text=final.txt"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_KEY, "window=0x500|keys=enter"), WA_E_OK);
    static const char *const away[] = {"ctrl+l",    "alt+d",  "f4",  "f6",       "tab",
                                       "shift+tab", "ctrl+e", "f10", "f2 ctrl+l"};
    for (size_t i = 0; i < sizeof away / sizeof *away; i++) {
        char args[64];
        snprintf(args, sizeof args, "window=0x500|keys=%s", away[i]);
        if (rig_do(&t, OP_KEY, args) != WA_E_SHELL_DISABLED)
            fail_msg("%s reached Explorer's items: %s", away[i], t.r.message);
        assert_non_null(strstr(t.r.message, "address bar"));
    }
    assert_int_equal(rig_do(&t, OP_TYPE, "window=0x500|text=a\tcmd"), WA_E_SHELL_DISABLED);
    char *a = fake_actions_json();
    assert_null(strstr(a, "cmd")); /* nothing of the refused text was typed */
    free(a);
    rig_close(&t);
    /* the focus out of the items (here the address bar's edit): nothing is typed */
    char *moved = with_window(explorer_window);
    char *focus = strstr(moved, "\"states\": [\"focused\"]");
    memcpy(focus, "\"states\": [         ]", strlen("\"states\": [\"focused\"]"));
    char *edit = strstr(moved, "\"value\": \"\", \"patterns\"");
    size_t n = strlen(moved) + 32;
    text = malloc(n);
    snprintf(text, n, "%.*s\"states\": [\"focused\"], %s", (int)(edit - moved), moved, edit);
    free(moved);
    open_on(&t, text, &cfg);
    free(text);
    assert_int_equal(rig_do(&t, OP_KEY, "window=0x500|keys=f2"), WA_E_SHELL_DISABLED);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=0x500|text=final.txt"), WA_E_SHELL_DISABLED);
    assert_false(actions_hold("press_keys"));
    assert_false(actions_hold("type_text"));
    rig_close(&t);
}

/* The keys that open the shell's launchers: every chord with the Windows key, ctrl+esc,
 * ctrl+shift+esc. */
static void launcher_keys_are_refused_when_the_shell_is_off(void **state)
{
    (void)state;
    static const char *const refused[] = {"win+r",  "win+x",    "win+e",          "win+s",  "win",
                                          "rwin+1", "ctrl+esc", "ctrl+shift+esc", "a win+x"};
    struct core_config cfg = {.shell = SHELL_DENIED};
    struct rig t;
    open_on(&t, scene, &cfg);
    char args[80];
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        snprintf(args, sizeof args, "window=notepad|keys=%s", refused[i]);
        if (rig_do(&t, OP_KEY, args) != WA_E_SHELL_DISABLED)
            fail_msg("%s was not refused", refused[i]);
    }
    assert_false(actions_hold("press_keys"));
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=ctrl+s"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=shift+esc"), WA_E_OK);
    rig_close(&t);
    struct core_config on = {.shell = SHELL_ALLOWED};
    open_on(&t, scene, &on);
    assert_int_equal(rig_do(&t, OP_KEY, "window=notepad|keys=win+x"), WA_E_OK);
    rig_close(&t);
}

/* A program on a network share (by its path, or on a remote drive) or where ordinary
 * users can write (not installed) needs the shell permission; an allow-list that names
 * that very file lets it start. */
static void programs_far_from_the_system_folders_need_the_shell(void **state)
{
    (void)state;
    static const struct {
        const char *command, *why;
    } far[] = {
        {"update", "network share"}, {"\\\\server\\share\\update.exe", "network share"},
        {"mapped", "network share"}, {"tool", "not installed"},
        {"climb", "not installed"},
    };
    struct core_config cfg = {.shell = SHELL_DENIED};
    struct rig t;
    open_on(&t, scene, &cfg);
    char args[120];
    for (size_t i = 0; i < sizeof far / sizeof *far; i++) {
        snprintf(args, sizeof args, "command=%s", far[i].command);
        wa_err e = rig_do(&t, OP_LAUNCH, args);
        if (e != WA_E_SHELL_DISABLED || !strstr(t.r.message, far[i].why))
            fail_msg("%s: %s (%s)", far[i].command, wa_err_code(e), t.r.message);
    }
    assert_false(actions_hold("launch"));
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=calc"), WA_E_OK); /* System32 */
    rig_close(&t);
    struct core_config listed = {.shell = SHELL_DENIED, .apps = "C:\\Users\\me\\tool.exe"};
    open_on(&t, scene, &listed);
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=tool"), WA_E_OK);
    rig_close(&t);
    /* a name names only an installed program: this tool.exe is not one */
    struct core_config by_name = {.shell = SHELL_DENIED, .apps = "tool.exe"};
    open_on(&t, scene, &by_name);
    assert_int_equal(rig_do(&t, OP_LAUNCH, "command=tool"), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "not installed"));
    rig_close(&t);
}

/* A name in --apps names the installed program of that name: a copy of notepad named
 * notepad.exe where users write is none of the listed programs, for its windows (listed,
 * observed, acted on) and for launch; its whole path lists it. */
static void a_listed_name_is_the_installed_program_of_that_name(void **state)
{
    (void)state;
    char *text = with_window(
        "{\"hwnd\": 2000, \"title\": \"Evil - Notepad\", \"class\": \"Notepad\","
        " \"process\": \"notepad.exe\", \"process_path\": \"C:\\\\evil\\\\notepad.exe\","
        " \"pid\": 31, \"rect\": [1000, 900, 1400, 1000], \"color\": \"#00ff00\","
        " \"tree\": {\"type\": \"Window\", \"name\": \"Evil - Notepad\"}}");
    char *scene2 = malloc(strlen(text) + 200);
    const char *at = strstr(text, "\"programs\": {") + 13;
    sprintf(scene2, "%.*s\"evil\": {\"path\": \"C:\\\\evil\\\\notepad.exe\"},%s", (int)(at - text),
            text, at);
    free(text);
    static const char *const lists[] = {"notepad", "notepad.exe", "NOTE*"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        struct core_config cfg = {.shell = SHELL_ALLOWED, .apps = lists[i]};
        struct rig t;
        open_on(&t, scene2, &cfg);
        assert_int_equal(rig_do(&t, OP_LIST_WINDOWS, ""), WA_E_OK);
        for (size_t w = 0; w < t.r.windows.count; w++)
            assert_int_not_equal(t.r.windows.items[w].hwnd, 2000);
        assert_int_equal(t.r.windows.count, 2); /* the installed notepad's two */
        assert_int_equal(rig_do(&t, OP_STATE, "window=Evil"), WA_E_WINDOW_NOT_FOUND);
        assert_int_equal(rig_do(&t, OP_CLICK_AT, "x=1200|y=950"), WA_E_DENIED);
        assert_int_equal(rig_do(&t, OP_LAUNCH, "command=evil"), WA_E_DENIED);
        assert_non_null(strstr(t.r.message, "whole path"));
        assert_false(actions_hold("launch"));
        assert_false(actions_hold("mouse_button"));
        rig_close(&t);
    }
    struct core_config whole = {.shell = SHELL_ALLOWED, .apps = "C:\\evil\\notepad.exe"};
    struct rig t;
    open_on(&t, scene2, &whole);
    assert_int_equal(rig_do(&t, OP_STATE, "window=Evil"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_STATE, "window=Untitled"), WA_E_WINDOW_NOT_FOUND);
    rig_close(&t);
    free(scene2);
}

/* A window of a program outside the allow-list that an action brings up (F1 in notepad
 * starts winhlp32.exe, which takes the foreground) is named in that action's result, not
 * "nothing changed"; no input is sent while it is in front, in this session (it was
 * named here) or another (its program was started by the target); bringing the target
 * back with focus_window goes on. */
static void a_program_outside_the_list_that_comes_up_is_named(void **state)
{
    (void)state;
    char *text = with_field(
        ", \"key_starts\": {\"F1\": {\"hwnd\": 3000, \"title\": \"Notepad Help\","
        " \"class\": \"MS_WINHELP\", \"process\": \"winhlp32.exe\","
        " \"process_path\": \"C:\\\\Windows\\\\winhlp32.exe\", \"pid\": 40, \"parent\": 7,"
        " \"rect\": [200, 100, 700, 600], \"color\": \"#ffff00\","
        " \"tree\": {\"type\": \"Window\", \"name\": \"Notepad Help\"}}}");
    struct core_config cfg = {.shell = SHELL_DENIED, .apps = "notepad.exe"};
    struct rig t;
    open_on(&t, text, &cfg);
    free(text);
    assert_int_equal(rig_do(&t, OP_KEY, "window=Untitled|keys=f1"), WA_E_OK);
    assert_false(t.r.nothing_changed);
    const char *changes = dynbuf_str(&t.r.changes);
    if (!strstr(changes, "outside --apps: a window of winhlp32.exe (0xbb8) opened in front"))
        fail_msg("F1's result: %s", changes);
    assert_null(strstr(changes, "Notepad Help")); /* its program, never its title */
    /* no input while it is in front: this session, and another that never saw it */
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Untitled|text=hello"), WA_E_DENIED);
    assert_non_null(strstr(t.r.message, "winhlp32.exe"));
    struct session *other = NULL;
    struct session_opts o;
    session_opts_default(&o);
    o.settle_ms = 0;
    assert_int_equal(session_new(t.core, &o, &other), WA_E_OK);
    struct op_result r;
    op_result_init(&r);
    assert_int_equal(perform(other, OP_CLICK, "window=Untitled|ref=Edit:Text Editor", &r),
                     WA_E_DENIED);
    assert_non_null(strstr(r.message, "that the target started"));
    op_result_cleanup(&r);
    session_free(other);
    assert_false(actions_hold("type_text"));
    assert_false(actions_hold("mouse_button"));
    /* the target brought back on purpose: on */
    assert_int_equal(rig_do(&t, OP_FOCUS_WINDOW, "window=Untitled"), WA_E_OK);
    assert_int_equal(rig_do(&t, OP_TYPE, "window=Untitled|text=hello"), WA_E_OK);
    rig_close(&t);
}

/* ---- typed text ---- */

/* Typed text is text: a control character other than tab, CR and LF is refused before
 * anything is sent (a control takes 0x16 as paste), in both deliveries, for type and
 * set_value alike, naming the character; tab, CR, LF and text that only looks like a
 * control (U+2028, U+2416) are typed. */
static void typed_text_is_text(void **state)
{
    (void)state;
    struct core_config cfg = {.shell = SHELL_DENIED};
    struct rig t;
    open_on(&t, scene, &cfg);
    static const struct {
        const char *text, *named;
    } refused[] = {
        {"A\x16"
         "B",
         "U+0016 (Ctrl+V as a character: pastes)"},
        {"\x18", "U+0018 (Ctrl+X"},
        {"x\x03", "U+0003 (Ctrl+C"},
        {"\x01", "U+0001 (Ctrl+A"},
        {"ab\x08", "U+0008"},
        {"\x1b", "U+001B (Esc"},
        {"\x7f", "U+007F (DEL"},
        {"\xc2\x85", "U+0085 (a C1 control character (NEL"},
        {"\xc2\x9b[2J", "U+009B"},
    };
    static const char *const ops[] = {"type", "type_background", "set_value"};
    char args[160];
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            enum op_id id = o == 2 ? OP_SET_VALUE : OP_TYPE;
            snprintf(args, sizeof args, "window=notepad|%stext=%s%s",
                     o == 2 ? "ref=Edit:File name:|" : "", refused[i].text,
                     o == 1 ? "|delivery=background" : "");
            wa_err e = rig_do(&t, id, args);
            if (e != WA_E_INVALID_ARGS || !strstr(t.r.message, refused[i].named))
                fail_msg("%s of %zu: %s %s", ops[o], i, wa_err_code(e), t.r.message);
        }
    assert_false(actions_hold("type_text"));
    assert_false(actions_hold("post_text"));
    assert_false(actions_hold("set_value"));
    assert_false(actions_hold("focus"));
    assert_int_equal(rig_do(&t, OP_TYPE, "window=notepad|text=a\tb\r\nc\xe2\x80\xa8\xe2\x90\x96"),
                     WA_E_OK);
    assert_true(actions_hold("type_text"));
    rig_close(&t);
}

/* ---- pastes, elements ---- */

/* A paste takes what the clipboard holds: refused while its owner is a restricted program,
 * or (with an allow-list) one outside it or unknown. */
static void a_paste_is_checked_by_the_clipboards_owner(void **state)
{
    (void)state;
    static const struct {
        const char *owner, *apps;
        wa_err want;
    } cases[] = {
        {",\"clipboard_owner\": 768", NULL, WA_E_DENIED},
        {",\"clipboard_owner\": 512", NULL, WA_E_OK},
        {",\"clipboard_owner\": 512", "notepad.exe", WA_E_DENIED},
        {",\"clipboard_owner\": 256", "notepad.exe", WA_E_OK},
        {"", NULL, WA_E_OK},
        {"", "notepad.exe", WA_E_DENIED},
    };
    static const char *const pastes[] = {"ctrl+v", "shift+insert", "ctrl+shift+v"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (size_t k = 0; k < sizeof pastes / sizeof *pastes; k++) {
            struct core_config cfg = {.apps = cases[i].apps};
            struct rig t;
            char *text = with_field(cases[i].owner);
            open_on(&t, text, &cfg);
            free(text);
            char args[80];
            snprintf(args, sizeof args, "window=notepad|keys=%s", pastes[k]);
            assert_int_equal(rig_do(&t, OP_KEY, args), cases[i].want);
            assert_int_equal(actions_hold("press_keys"), cases[i].want == WA_E_OK);
            if (cases[i].want)
                assert_non_null(strstr(t.r.message, "clipboard"));
            rig_close(&t);
        }
    }
}

/* An element without a window of its own belongs to the nearest window above it: a
 * password manager's control embedded in notepad is the password manager's. */
static void elements_are_checked_by_the_nearest_window_above_them(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    open_on(&t, scene, &cfg);
    assert_int_equal(rig_do(&t, OP_INVOKE, "window=Untitled|ref=Button:Reveal"), WA_E_DENIED);
    assert_false(actions_hold("element_action"));
    assert_int_equal(rig_do(&t, OP_SET_VALUE, "window=Untitled|ref=Edit:Text Editor|text=x"),
                     WA_E_OK);
    rig_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_the_allowed_programs_exist),
        cmocka_unit_test(routes_to_a_shell_receive_nothing_when_it_is_off),
        cmocka_unit_test(an_address_bar_receives_nothing_when_the_shell_is_off),
        cmocka_unit_test(explorer_takes_browsing_keys_in_its_items_only),
        cmocka_unit_test(launcher_keys_are_refused_when_the_shell_is_off),
        cmocka_unit_test(programs_far_from_the_system_folders_need_the_shell),
        cmocka_unit_test(a_listed_name_is_the_installed_program_of_that_name),
        cmocka_unit_test(a_program_outside_the_list_that_comes_up_is_named),
        cmocka_unit_test(typed_text_is_text),
        cmocka_unit_test(a_paste_is_checked_by_the_clipboards_owner),
        cmocka_unit_test(elements_are_checked_by_the_nearest_window_above_them),
    };
    return cmocka_run_group_tests(tests, rig_state_setup, rig_state_teardown);
}
