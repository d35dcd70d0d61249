/* The fake desktop's scene: the JSON it is loaded from, the actions recorded on it, and
 * what every part of the fake backend reads of it (windows, nodes, rectangles, DPI). */
#include "automation/fake/fake_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/os.h"
#include "base/str.h"

struct fake_scene_state fake_scene_state;

cJSON *fake_scene_windows_array(void)
{
    cJSON *w = cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "windows");
    if (!cJSON_IsArray(w)) {
        cJSON_DeleteItemFromObjectCaseSensitive(fake_scene_state.scene, "windows");
        w = cJSON_AddArrayToObject(fake_scene_state.scene, "windows");
    }
    return w;
}

void (*fake_scene_input_hook)(void);

void fake_scene_input_sent(void)
{
    fake_scene_state.inputs++;
    if (fake_scene_input_hook)
        fake_scene_input_hook();
}

void fake_scene_record(const char *op, cJSON *fields)
{
    cJSON *a = fields ? fields : cJSON_CreateObject();
    cJSON_AddStringToObject(a, "op", op);
    if (!fake_scene_state.actions)
        fake_scene_state.actions = cJSON_CreateArray();
    char *path = os_getenv("WINAGENT_FAKE_LOG");
    if (path) {
        FILE *f = os_fopen(path, "ab");
        char *line = cJSON_PrintUnformatted(a);
        if (f && line)
            fprintf(f, "%s\n", line);
        if (f)
            fclose(f);
        free(line);
        free(path);
    }
    cJSON_AddItemToArray(fake_scene_state.actions, a);
}

wa_err fake_load_scene(const char *json, const char *base_dir)
{
    cJSON *scene = cJSON_Parse(json);
    if (!cJSON_IsObject(scene)) {
        cJSON_Delete(scene);
        return wa_fail(WA_E_PARSE, "fake scene is not a JSON object");
    }
    cJSON_Delete(fake_scene_state.scene);
    cJSON_Delete(fake_scene_state.actions);
    cJSON_Delete(fake_scene_state.lookups);
    free(fake_scene_state.base_dir);
    free(fake_scene_state.rows); /* their objects went with the scene */
    memset(&fake_scene_state, 0, sizeof fake_scene_state);
    fake_scene_state.scene = scene;
    fake_scene_state.base_dir = str_dup(base_dir);
    fake_scene_state.next_hwnd = 0x10000;
    fake_scene_state.loaded_ms = os_now_ms();
    return WA_E_OK;
}

char *fake_actions_json(void)
{
    return fake_scene_state.actions ? cJSON_PrintUnformatted(fake_scene_state.actions)
                                    : str_dup("[]");
}

void fake_scene_lookup(const char *path)
{
    if (!fake_scene_state.lookups)
        fake_scene_state.lookups = cJSON_CreateArray();
    cJSON_AddItemToArray(fake_scene_state.lookups, cJSON_CreateString(path ? path : ""));
}

char *fake_lookups_json(void)
{
    return fake_scene_state.lookups ? cJSON_PrintUnformatted(fake_scene_state.lookups)
                                    : str_dup("[]");
}

wa_err fake_scene_init(void)
{
    if (fake_scene_state.scene)
        return WA_E_OK;
    char *path = os_getenv("WINAGENT_FAKE_SCENE");
    if (!path)
        return fake_load_scene("{\"monitors\":[{\"rect\":[0,0,1920,1080],\"primary\":true}],"
                               "\"windows\":[]}",
                               NULL);
    char *text = NULL;
    wa_err e = os_read_file(path, 16u << 20, &text, NULL);
    if (!e) {
        char *slash = strrchr(path, '/');
        if (slash)
            *slash = '\0';
        e = fake_load_scene(text, slash ? path : ".");
    }
    free(text);
    free(path);
    return e;
}

void fake_scene_shutdown(void)
{
}

/* ---- scene access ---- */

uint64_t fake_scene_json_hwnd(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return (uint64_t)v->valuedouble;
    if (cJSON_IsString(v))
        return strtoull(v->valuestring, NULL, 0);
    return 0;
}

struct wa_rect fake_scene_json_rect(const cJSON *v)
{
    struct wa_rect r = {0, 0, 0, 0};
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 4) {
        r.left = cJSON_GetArrayItem(v, 0)->valueint;
        r.top = cJSON_GetArrayItem(v, 1)->valueint;
        r.right = cJSON_GetArrayItem(v, 2)->valueint;
        r.bottom = cJSON_GetArrayItem(v, 3)->valueint;
    }
    return r;
}

const char *fake_scene_json_str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *fake_scene_find_window(uint64_t hwnd)
{
    cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        if (fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd)
            return w;
    }
    return NULL;
}

cJSON *fake_scene_foreground_window(void)
{
    cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "foreground")))
            return w;
    }
    return cJSON_GetArrayItem(fake_scene_windows_array(), 0);
}

static void set_bool(cJSON *o, const char *name, bool value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, name);
    cJSON_AddBoolToObject(o, name, value);
}

void fake_scene_set_string(cJSON *o, const char *name, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, name);
    cJSON_AddStringToObject(o, name, value);
}

void fake_scene_make_foreground(cJSON *win)
{
    cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        set_bool(w, "foreground", w == win);
    }
    /* Z order: the foreground window moves to the front of the list. */
    cJSON *arr = fake_scene_windows_array();
    int i = 0;
    cJSON_ArrayForEach(w, arr)
    {
        if (w == win)
            break;
        i++;
    }
    if (w && i > 0) {
        cJSON *moved = cJSON_DetachItemFromArray(arr, i);
        cJSON_InsertItemInArray(arr, 0, moved);
    }
    /* "topmost": true windows stay above the others, in their order (appended anew:
     * cJSON 1.7.15 inserts only at the front) */
    if (w && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "topmost"))) {
        cJSON *rest = cJSON_CreateArray();
        int n = cJSON_GetArraySize(arr);
        for (int k = 0, at = 0; k < n; k++) {
            cJSON *t = cJSON_GetArrayItem(arr, at);
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "topmost")))
                at++;
            else
                cJSON_AddItemToArray(rest, cJSON_DetachItemFromArray(arr, at));
        }
        while (cJSON_GetArraySize(rest) > 0)
            cJSON_AddItemToArray(arr, cJSON_DetachItemFromArray(rest, 0));
        cJSON_Delete(rest);
    }
}

wa_err fake_scene_window_from_json(const cJSON *w, struct wa_window *out)
{
    struct wa_window tmp = {
        .hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")),
        .title = (char *)(fake_scene_json_str(w, "title") ? fake_scene_json_str(w, "title") : ""),
        .class_name =
            (char *)(fake_scene_json_str(w, "class") ? fake_scene_json_str(w, "class") : ""),
        .process =
            (char *)(fake_scene_json_str(w, "process") ? fake_scene_json_str(w, "process") : ""),
        .rect = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect")),
        .foreground = w == fake_scene_foreground_window(),
        .visible = true,
        .top_level = fake_scene_find_window(
                         fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"))) == w,
    };
    const char *proc = tmp.process;
    tmp.process_path =
        (char *)(fake_scene_json_str(w, "process_path") ? fake_scene_json_str(w, "process_path")
                 : strpbrk(proc, "\\/")                 ? proc
                                                        : "");
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(w, "pid");
    tmp.pid = cJSON_IsNumber(pid) ? (unsigned long)pid->valuedouble : 0;
    const char *st = fake_scene_json_str(w, "state");
    tmp.state = str_ieq(st, "minimized")   ? WA_WINDOW_MINIMIZED
                : str_ieq(st, "maximized") ? WA_WINDOW_MAXIMIZED
                                           : WA_WINDOW_NORMAL;
    return wa_window_copy(&tmp, out);
}

wa_err fake_scene_no_window(uint64_t hwnd)
{
    return wa_fail(WA_E_WINDOW_NOT_FOUND, "no window 0x%llx", (unsigned long long)hwnd);
}
cJSON *fake_scene_hwnd_fields(uint64_t hwnd)
{
    cJSON *f = cJSON_CreateObject();
    char h[24];
    snprintf(h, sizeof h, "0x%llx", (unsigned long long)hwnd);
    cJSON_AddStringToObject(f, "hwnd", h);
    return f;
}
wa_err fake_scene_window_at(int x, int y, uint64_t *hwnd)
{
    const cJSON *w;
    *hwnd = 0;
    cJSON_ArrayForEach(w,
                       fake_scene_windows_array()) /* in Z order: the first one there is on top */
    {
        struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
        if (str_ieq(fake_scene_json_str(w, "state"), "minimized"))
            continue;
        if (x >= r.left && x < r.right && y >= r.top && y < r.bottom) {
            *hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
            break;
        }
    }
    return WA_E_OK;
}
/* ---- DPI: what a per-monitor-aware caller sees of windows that are not ---- */

/* The "dpi" of the monitor holding screen point (x, y) (primary: of the primary
 * monitor); 96 when the scene does not say. */
static int monitor_dpi(int x, int y, bool primary)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "monitors"))
    {
        struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(m, "rect"));
        bool hit = primary ? cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "primary"))
                           : x >= r.left && x < r.right && y >= r.top && y < r.bottom;
        const cJSON *dpi = cJSON_GetObjectItemCaseSensitive(m, "dpi");
        if (hit)
            return cJSON_IsNumber(dpi) && dpi->valueint > 0 ? dpi->valueint : 96;
    }
    return 96;
}

double fake_scene_window_scale(const cJSON *w)
{
    const char *a = fake_scene_json_str(w, "dpi_awareness");
    if (!a || str_ieq(a, "per_monitor"))
        return 1.0;
    struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    int base = str_ieq(a, "system") ? monitor_dpi(0, 0, true) : 96;
    return (double)monitor_dpi(r.left, r.top, false) / base;
}

struct wa_rect fake_scene_bounds_to_physical(const cJSON *w, struct wa_rect b)
{
    double s = fake_scene_window_scale(w);
    struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    return (struct wa_rect){
        r.left + (int)lround((b.left - r.left) * s), r.top + (int)lround((b.top - r.top) * s),
        r.left + (int)lround((b.right - r.left) * s), r.top + (int)lround((b.bottom - r.top) * s)};
}

const cJSON *fake_scene_node_at(const cJSON *n, double x, double y)
{
    struct wa_rect b = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(n, "bounds"));
    if (!(x >= b.left && x < b.right && y >= b.top && y < b.bottom))
        return NULL;
    const cJSON *kid;
    cJSON_ArrayForEach(kid, cJSON_GetObjectItemCaseSensitive(n, "children"))
    {
        const cJSON *deeper = fake_scene_node_at(kid, x, y);
        if (deeper)
            return deeper;
    }
    return n;
}

cJSON *fake_scene_node_with_hwnd(cJSON *node, uint64_t hwnd)
{
    if (!node)
        return NULL;
    if (fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd")) == hwnd)
        return node;
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        cJSON *f = fake_scene_node_with_hwnd(c, hwnd);
        if (f)
            return f;
    }
    return NULL;
}

cJSON *fake_scene_child_at(cJSON *node, int x, int y)
{
    cJSON *c, *found = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        struct wa_rect b = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(c, "bounds"));
        if (x < b.left || x >= b.right || y < b.top || y >= b.bottom)
            continue;
        cJSON *deeper = fake_scene_child_at(c, x, y);
        if (deeper)
            return deeper;
        if (fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(c, "hwnd")))
            found = c;
    }
    return found;
}

bool fake_scene_has_state(const cJSON *n, const char *w)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(n, "states"))
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, w) == 0)
            return true;
    }
    return false;
}

void fake_scene_set_state(cJSON *n, const char *w, bool on)
{
    cJSON *states = cJSON_GetObjectItemCaseSensitive(n, "states");
    if (!cJSON_IsArray(states))
        states = cJSON_AddArrayToObject(n, "states");
    for (int i = cJSON_GetArraySize(states) - 1; i >= 0; i--) {
        const cJSON *s = cJSON_GetArrayItem(states, i);
        if (cJSON_IsString(s) && strcmp(s->valuestring, w) == 0)
            cJSON_DeleteItemFromArray(states, i);
    }
    if (on)
        cJSON_AddItemToArray(states, cJSON_CreateString(w));
}

bool fake_scene_ignores(const cJSON *n, const char *what)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(n, "ignores"))
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, what) == 0)
            return true;
    }
    return false;
}

void fake_scene_toggle_check(cJSON *n)
{
    const char *checked = wa_state_words[WA_ST_INDEX_CHECKED];
    bool was = fake_scene_has_state(n, checked);
    fake_scene_set_state(n, checked, !was);
    fake_scene_set_state(n, wa_state_words[WA_ST_INDEX_MIXED], false);
    /* a box that showed none stays a plain "checked" toggle (older scenes) */
    bool boxed = was || fake_scene_has_state(n, wa_state_words[WA_ST_INDEX_UNCHECKED]) ||
                 cJSON_GetObjectItemCaseSensitive(n, "check_box");
    fake_scene_set_state(n, wa_state_words[WA_ST_INDEX_UNCHECKED], was && boxed);
}

/* The node under n (n included) whose check box holds (x, y), in its window's pixels. */
static cJSON *check_box_at(cJSON *n, double x, double y)
{
    struct wa_rect b = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(n, "check_box"));
    if (!wa_rect_empty(b) && x >= b.left && x < b.right && y >= b.top && y < b.bottom)
        return n;
    cJSON *kid;
    cJSON_ArrayForEach(kid, cJSON_GetObjectItemCaseSensitive(n, "children"))
    {
        cJSON *found = check_box_at(kid, x, y);
        if (found)
            return found;
    }
    return NULL;
}

void fake_scene_click_check_box(int x, int y)
{
    uint64_t at = 0;
    cJSON *w = NULL;
    if (fake_scene_window_at(x, y, &at) != WA_E_OK || !at || !(w = fake_scene_find_window(at)))
        return;
    /* the point in the window's own pixels (bounds_to_physical the other way) */
    double s = fake_scene_window_scale(w);
    struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    double wx = r.left + (x - r.left) / s, wy = r.top + (y - r.top) / s;
    cJSON *n = check_box_at(cJSON_GetObjectItemCaseSensitive(w, "tree"), wx, wy);
    if (n && !fake_scene_ignores(n, "click"))
        fake_scene_toggle_check(n);
}
