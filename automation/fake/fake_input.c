/* The fake desktop's input: the mouse, keys and text typed into the focused node, and
 * background input (posted messages), each recorded, the background's leaving the cursor
 * and the foreground alone. */
#include "automation/fake/fake_input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "automation/fake/fake_scene.h"
#include "base/os.h"
#include "base/str.h"

/* ---- input ---- */

static void add_receiver(cJSON *f, int x, int y);

wa_err fake_input_mouse_move(int x, int y)
{
    fake_scene_state.cursor_x = x;
    fake_scene_state.cursor_y = y;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddNumberToObject(f, "x", x);
    cJSON_AddNumberToObject(f, "y", y);
    fake_scene_record("mouse_move", f);
    fake_scene_input_sent();
    return WA_E_OK;
}

wa_err fake_input_mouse_button(enum wa_button b, bool down)
{
    uint64_t at = 0;
    cJSON *w = NULL;
    if (down &&
        fake_scene_window_at(fake_scene_state.cursor_x, fake_scene_state.cursor_y, &at) ==
            WA_E_OK &&
        at && (w = fake_scene_find_window(at)) && fake_scene_json_str(w, "click_color"))
        fake_scene_set_string(w, "color",
                              fake_scene_json_str(w, "click_color")); /* it repaints at once */
    if (down && b == WA_BUTTON_LEFT) /* an item's check box turns over as it is pressed */
        fake_scene_click_check_box(fake_scene_state.cursor_x, fake_scene_state.cursor_y);
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "button",
                            b == WA_BUTTON_LEFT    ? "left"
                            : b == WA_BUTTON_RIGHT ? "right"
                                                   : "middle");
    cJSON_AddBoolToObject(f, "down", down);
    cJSON_AddNumberToObject(f, "x", fake_scene_state.cursor_x);
    cJSON_AddNumberToObject(f, "y", fake_scene_state.cursor_y);
    add_receiver(f, fake_scene_state.cursor_x, fake_scene_state.cursor_y);
    fake_scene_record("mouse_button", f);
    fake_scene_input_sent();
    return WA_E_OK;
}

wa_err fake_input_mouse_wheel(int delta, bool horizontal)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddNumberToObject(f, "delta", delta);
    cJSON_AddBoolToObject(f, "horizontal", horizontal);
    cJSON_AddNumberToObject(f, "x", fake_scene_state.cursor_x);
    cJSON_AddNumberToObject(f, "y", fake_scene_state.cursor_y);
    fake_scene_record("mouse_wheel", f);
    fake_scene_input_sent();
    return WA_E_OK;
}

cJSON *fake_input_focused_node(cJSON *node)
{
    if (!node)
        return NULL;
    const cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(node, "states"))
    {
        if (cJSON_IsString(st) && strcmp(st->valuestring, wa_state_words[WA_ST_INDEX_FOCUSED]) == 0)
            return node;
    }
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        cJSON *f = fake_input_focused_node(c);
        if (f)
            return f;
    }
    return NULL;
}

/* The keyboard focus moves to node n (within its window's tree). */
static void unfocus(cJSON *node)
{
    cJSON *st = cJSON_GetObjectItemCaseSensitive(node, "states");
    for (int i = cJSON_GetArraySize(st) - 1; i >= 0; i--) {
        cJSON *w = cJSON_GetArrayItem(st, i);
        if (cJSON_IsString(w) && strcmp(w->valuestring, wa_state_words[WA_ST_INDEX_FOCUSED]) == 0)
            cJSON_DeleteItemFromArray(st, i);
    }
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        unfocus(c);
    }
}

void fake_input_move_focus(cJSON *n)
{
    cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        unfocus(cJSON_GetObjectItemCaseSensitive(w, "tree"));
    }
    cJSON *st = cJSON_GetObjectItemCaseSensitive(n, "states");
    if (!cJSON_IsArray(st))
        st = cJSON_AddArrayToObject(n, "states");
    cJSON_AddItemToArray(st, cJSON_CreateString(wa_state_words[WA_ST_INDEX_FOCUSED]));
}

/* "steal_focus": {"after": N, "hwnd": H} scripts a window that comes to the front once
 * N bytes have been typed (a prompt that pops up while typing). */
static void steal_focus_while_typing(size_t typed)
{
    static size_t total;
    cJSON *steal = cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "steal_focus");
    if (!steal) {
        total = 0;
        return;
    }
    total += typed;
    const cJSON *after = cJSON_GetObjectItemCaseSensitive(steal, "after");
    if (!cJSON_IsNumber(after) || (double)total < after->valuedouble)
        return;
    uint64_t hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(steal, "hwnd"));
    cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        if (fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd) {
            fake_scene_make_foreground(w);
            break;
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(fake_scene_state.scene, "steal_focus"); /* once */
    total = 0;
}

wa_err fake_input_type_into(cJSON *node, const char *utf8)
{
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(node, "readonly")))
        return WA_E_OK;
    const char *old = fake_scene_json_str(node, "value");
    size_t n = (old ? strlen(old) : 0) + strlen(utf8) + 1;
    char *v = malloc(n);
    if (!v)
        return wa_fail(WA_E_NOMEM, "out of memory");
    snprintf(v, n, "%s%s", old ? old : "", utf8);
    fake_scene_set_string(node, "value", v);
    free(v);
    return WA_E_OK;
}

wa_err fake_input_type_text(const char *utf8)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "text", utf8);
    fake_scene_record("type_text", f);
    cJSON *win = fake_scene_foreground_window();
    cJSON *node =
        win ? fake_input_focused_node(cJSON_GetObjectItemCaseSensitive(win, "tree")) : NULL;
    wa_err e = node ? fake_input_type_into(node, utf8) : WA_E_OK;
    if (e)
        return e;
    steal_focus_while_typing(strlen(utf8));
    fake_scene_input_sent();
    return WA_E_OK;
}

/* {"keys": "Ctrl+S"} of a chord, for the fake_scene_record. */
static cJSON *keys_fields(const struct wa_key_combo *k)
{
    cJSON *f = cJSON_CreateObject();
    char names[128] = "";
    size_t len = 0;
    for (int i = 0; i < k->count && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? "+" : "",
                                keys_vk_name(k->vk[i]));
    cJSON_AddStringToObject(f, "keys", names);
    return f;
}

/* "key_starts": {"F1": {window}} scripts a key that makes the foreground program start
 * another: the window (with its "pid" and the "parent" that started it) comes up in
 * front, and its process is one the parent started now (backend started_by). */
static void start_on_key(const char *names)
{
    cJSON *starts = cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "key_starts");
    const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(starts, names);
    if (!tmpl)
        return;
    cJSON *w = cJSON_Duplicate(tmpl, true);
    cJSON_InsertItemInArray(fake_scene_windows_array(), 0, w);
    fake_scene_make_foreground(w);
    cJSON *procs = cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "processes");
    if (!procs)
        procs = cJSON_AddArrayToObject(fake_scene_state.scene, "processes");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "pid", cJSON_GetNumberValue(cJSON_GetObjectItem(w, "pid")));
    cJSON_AddNumberToObject(p, "parent", cJSON_GetNumberValue(cJSON_GetObjectItem(w, "parent")));
    cJSON_AddNumberToObject(p, "started", (double)os_time_ms());
    const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(w, "process_path"));
    cJSON_AddStringToObject(p, "path", path ? path : "");
    cJSON_AddItemToArray(procs, p);
    cJSON_DeleteItemFromObjectCaseSensitive(starts, names); /* once */
}

wa_err fake_input_press_keys(const struct wa_key_combo *k)
{
    cJSON *f = keys_fields(k);
    const char *names = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "keys"));
    char copy[128];
    snprintf(copy, sizeof copy, "%s", names ? names : "");
    fake_scene_record("press_keys", f);
    start_on_key(copy);
    fake_scene_input_sent();
    return WA_E_OK;
}

wa_err fake_input_hold_keys(const struct wa_key_combo *k, bool down)
{
    fake_scene_record(down ? "key_down" : "key_up", keys_fields(k));
    fake_scene_input_sent();
    return WA_E_OK;
}

wa_err fake_input_cursor_position(int *x, int *y)
{
    *x = fake_scene_state.cursor_x;
    *y = fake_scene_state.cursor_y;
    return WA_E_OK;
}

/* What the window under physical point (x, y) receives there: the point in its own
 * pixels and the node it falls on, added to a recorded action as "window", "at" and
 * "element". */
static void add_receiver(cJSON *f, int x, int y)
{
    uint64_t at = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
        if (!str_ieq(fake_scene_json_str(w, "state"), "minimized") && x >= r.left && x < r.right &&
            y >= r.top && y < r.bottom) {
            at = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
            break;
        }
    }
    if (!at)
        return;
    struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    double s = fake_scene_window_scale(w), lx = r.left + (x - r.left) / s,
           ly = r.top + (y - r.top) / s;
    cJSON_AddNumberToObject(f, "window", (double)at);
    cJSON *pt = cJSON_AddArrayToObject(f, "at");
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(lx));
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(ly));
    const cJSON *n = fake_scene_node_at(cJSON_GetObjectItemCaseSensitive(w, "tree"), lx, ly);
    if (n && fake_scene_json_str(n, "name"))
        cJSON_AddStringToObject(f, "element", fake_scene_json_str(n, "name"));
}

/* ---- background input: recorded, the cursor and the foreground left alone ---- */

/* The fake_scene_record of a message posted at (x, y) of window top: to its child there, with
 * the point. */
static wa_err posted_at(uint64_t top, int x, int y, uint64_t *child, cJSON **fields)
{
    cJSON *w = fake_scene_find_window(top);
    if (!w)
        return fake_scene_no_window(top);
    struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    if (x < r.left || x >= r.right || y < r.top || y >= r.bottom)
        return wa_fail(WA_E_ACTION_FAILED, "(%d,%d) is outside window 0x%llx", x, y,
                       (unsigned long long)top);
    cJSON *c = fake_scene_child_at(cJSON_GetObjectItemCaseSensitive(w, "tree"), x, y);
    *child = c ? fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(c, "hwnd")) : top;
    *fields = fake_scene_hwnd_fields(*child);
    cJSON_AddNumberToObject(*fields, "x", x);
    cJSON_AddNumberToObject(*fields, "y", y);
    return WA_E_OK;
}

wa_err fake_input_post_wheel(uint64_t top, int x, int y, int notches, bool horizontal,
                             uint64_t *child)
{
    cJSON *f;
    wa_err e = posted_at(top, x, y, child, &f);
    if (e)
        return e;
    cJSON_AddNumberToObject(f, "notches", notches);
    cJSON_AddBoolToObject(f, "horizontal", horizontal);
    fake_scene_record("post_wheel", f);
    return WA_E_OK;
}

wa_err fake_input_post_click(uint64_t top, int x, int y, enum wa_button b, int count,
                             uint64_t *child)
{
    cJSON *f;
    wa_err e = posted_at(top, x, y, child, &f);
    if (e)
        return e;
    cJSON_AddStringToObject(f, "button",
                            b == WA_BUTTON_LEFT    ? "left"
                            : b == WA_BUTTON_RIGHT ? "right"
                                                   : "middle");
    cJSON_AddNumberToObject(f, "count", count);
    fake_scene_record("post_click", f);
    return WA_E_OK;
}

wa_err fake_input_post_text(uint64_t hwnd, const char *utf8, uint64_t *control)
{
    cJSON *node = NULL, *w;
    cJSON *top = fake_scene_find_window(hwnd);
    if (top) {
        node = fake_input_focused_node(cJSON_GetObjectItemCaseSensitive(top, "tree"));
        if (!node)
            return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no control of window 0x%llx has the focus",
                           (unsigned long long)hwnd);
    } else {
        cJSON_ArrayForEach(w, fake_scene_windows_array())
        {
            if (!node)
                node = fake_scene_node_with_hwnd(cJSON_GetObjectItemCaseSensitive(w, "tree"), hwnd);
        }
        if (!node)
            return fake_scene_no_window(hwnd);
    }
    *control = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd"));
    if (!*control)
        *control = hwnd;
    cJSON *f = fake_scene_hwnd_fields(*control);
    cJSON_AddStringToObject(f, "text", utf8);
    fake_scene_record("post_text", f);
    return fake_input_type_into(node, utf8);
}
