/* The scripted fake desktop behind automation/fake/fake_backend.h. */
#include "automation/fake/fake_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/os.h"
#include "base/str.h"

/* A row of a collection, made once it is listed or found and kept with the scene (the
 * trees that hold it point at it). */
struct fake_row {
    cJSON *coll; /* the scene node with "collection" */
    cJSON *row;  /* in the node's "_rows", in index order */
};

static struct {
    cJSON *scene;
    struct fake_row *rows;
    size_t nrows, cap_rows;
    cJSON *actions; /* array of recorded actions */
    char *base_dir;
    int cursor_x, cursor_y;
    uint64_t next_hwnd;
} fk;

static cJSON *windows_array(void)
{
    cJSON *w = cJSON_GetObjectItemCaseSensitive(fk.scene, "windows");
    if (!cJSON_IsArray(w)) {
        cJSON_DeleteItemFromObjectCaseSensitive(fk.scene, "windows");
        w = cJSON_AddArrayToObject(fk.scene, "windows");
    }
    return w;
}

/* Appends {"op": op, ...fields} to the record (takes ownership of fields). */
static void record(const char *op, cJSON *fields)
{
    cJSON *a = fields ? fields : cJSON_CreateObject();
    cJSON_AddStringToObject(a, "op", op);
    if (!fk.actions)
        fk.actions = cJSON_CreateArray();
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
    cJSON_AddItemToArray(fk.actions, a);
}

wa_err fake_load_scene(const char *json, const char *base_dir)
{
    cJSON *scene = cJSON_Parse(json);
    if (!cJSON_IsObject(scene)) {
        cJSON_Delete(scene);
        return wa_fail(WA_E_PARSE, "fake scene is not a JSON object");
    }
    cJSON_Delete(fk.scene);
    cJSON_Delete(fk.actions);
    free(fk.base_dir);
    free(fk.rows); /* their objects went with the scene */
    memset(&fk, 0, sizeof fk);
    fk.scene = scene;
    fk.base_dir = str_dup(base_dir);
    fk.next_hwnd = 0x10000;
    return WA_E_OK;
}

char *fake_actions_json(void)
{
    return fk.actions ? cJSON_PrintUnformatted(fk.actions) : str_dup("[]");
}

static wa_err fake_init(void)
{
    if (fk.scene)
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

static void fake_shutdown(void)
{
}

/* ---- scene access ---- */

static uint64_t json_hwnd(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return (uint64_t)v->valuedouble;
    if (cJSON_IsString(v))
        return strtoull(v->valuestring, NULL, 0);
    return 0;
}

static struct wa_rect json_rect(const cJSON *v)
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

static const char *json_str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static cJSON *find_window(uint64_t hwnd)
{
    cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
    {
        if (json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd)
            return w;
    }
    return NULL;
}

static cJSON *foreground_window(void)
{
    cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
    {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "foreground")))
            return w;
    }
    return cJSON_GetArrayItem(windows_array(), 0);
}

static void set_bool(cJSON *o, const char *name, bool value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, name);
    cJSON_AddBoolToObject(o, name, value);
}

static void set_string(cJSON *o, const char *name, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, name);
    cJSON_AddStringToObject(o, name, value);
}

static void make_foreground(cJSON *win)
{
    cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
    {
        set_bool(w, "foreground", w == win);
    }
    /* Z order: the foreground window moves to the front of the list. */
    cJSON *arr = windows_array();
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

static wa_err window_from_json(const cJSON *w, struct wa_window *out)
{
    struct wa_window tmp = {
        .hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")),
        .title = (char *)(json_str(w, "title") ? json_str(w, "title") : ""),
        .class_name = (char *)(json_str(w, "class") ? json_str(w, "class") : ""),
        .process = (char *)(json_str(w, "process") ? json_str(w, "process") : ""),
        .rect = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect")),
        .foreground = w == foreground_window(),
        .visible = true,
        .top_level = find_window(json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"))) == w,
    };
    const char *proc = tmp.process;
    tmp.process_path = (char *)(json_str(w, "process_path") ? json_str(w, "process_path")
                                : strpbrk(proc, "\\/")      ? proc
                                                            : "");
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(w, "pid");
    tmp.pid = cJSON_IsNumber(pid) ? (unsigned long)pid->valuedouble : 0;
    const char *st = json_str(w, "state");
    tmp.state = str_ieq(st, "minimized")   ? WA_WINDOW_MINIMIZED
                : str_ieq(st, "maximized") ? WA_WINDOW_MAXIMIZED
                                           : WA_WINDOW_NORMAL;
    return wa_window_copy(&tmp, out);
}

/* ---- windows ---- */

static wa_err fake_list_windows(struct wa_window_list *out)
{
    int n = cJSON_GetArraySize(windows_array());
    out->items = calloc((size_t)(n ? n : 1), sizeof *out->items);
    if (!out->items)
        return wa_fail(WA_E_NOMEM, "out of memory");
    const cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
    {
        wa_err e = window_from_json(w, &out->items[out->count]);
        if (e) {
            wa_window_list_cleanup(out);
            return e;
        }
        out->count++;
    }
    return WA_E_OK;
}

/* The listed windows and, after them, "unlisted": visible top-level windows no list
 * shows (an untitled pop-up or menu of a program). */
static wa_err fake_list_visible_windows(struct wa_window_list *out)
{
    wa_err e = fake_list_windows(out);
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(fk.scene, "unlisted");
    int n = cJSON_GetArraySize(extra);
    if (e || !n)
        return e;
    struct wa_window *items = realloc(out->items, (out->count + (size_t)n) * sizeof *items);
    if (!items) {
        wa_window_list_cleanup(out);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    out->items = items;
    const cJSON *w;
    cJSON_ArrayForEach(w, extra)
    {
        memset(&out->items[out->count], 0, sizeof out->items[0]);
        if ((e = window_from_json(w, &out->items[out->count]))) {
            wa_window_list_cleanup(out);
            return e;
        }
        out->count++;
    }
    return WA_E_OK;
}

static wa_err no_window(uint64_t hwnd)
{
    return wa_fail(WA_E_WINDOW_NOT_FOUND, "no window 0x%llx", (unsigned long long)hwnd);
}

/* "other_windows": windows that exist but are no top-level window of a program (the
 * desktop window, message-only windows, child controls): described, never listed. */
static const cJSON *find_other_window(uint64_t hwnd)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(fk.scene, "other_windows"))
    {
        if (json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd)
            return w;
    }
    return NULL;
}

static cJSON *node_with_hwnd(cJSON *node, uint64_t hwnd);
static cJSON *child_at(cJSON *node, int x, int y);

/* The top-level window whose tree holds a node with its own window hwnd, and that node. */
static cJSON *window_of_control(uint64_t hwnd, cJSON **node)
{
    cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
    {
        if ((*node = node_with_hwnd(cJSON_GetObjectItemCaseSensitive(w, "tree"), hwnd)))
            return w;
    }
    return NULL;
}

static wa_err fake_window_info(uint64_t hwnd, struct wa_window *out)
{
    const cJSON *w = find_window(hwnd);
    if (!w)
        w = find_other_window(hwnd);
    if (w)
        return window_from_json(w, out);
    /* A control with a window of its own: its window's process (or its own "process"),
     * its class, not a top-level window. */
    cJSON *node, *top = window_of_control(hwnd, &node);
    if (!top)
        return no_window(hwnd);
    wa_err e = window_from_json(top, out);
    if (!e && (!str_set(&out->class_name, json_str(node, "class") ? json_str(node, "class") : "") ||
               (json_str(node, "process") && !str_set(&out->process, json_str(node, "process")))))
        e = wa_fail(WA_E_NOMEM, "out of memory");
    out->hwnd = hwnd;
    out->top_level = false;
    out->foreground = false;
    return e;
}

/* A program's file as the scene's "programs" describe it by path: "console": true,
 * "original_name": "pwsh.exe", "executable": false for what is no PE image. */
static enum wa_program_place fake_place(const char *path)
{
    if ((path[0] == '\\' || path[0] == '/') && (path[1] == '\\' || path[1] == '/'))
        return WA_PLACE_NETWORK;
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(fk.scene, "network_drives"))
    {
        if (cJSON_IsString(d) && str_ieq_n(d->valuestring, path, strlen(d->valuestring)))
            return WA_PLACE_NETWORK;
    }
    if (str_ieq_n("C:\\Windows\\", path, 11) || str_ieq_n("C:\\Program Files", path, 16))
        return strstr(path, "..") ? WA_PLACE_ELSEWHERE : WA_PLACE_SYSTEM;
    return WA_PLACE_ELSEWHERE;
}

static wa_err fake_program_info(const char *path, struct wa_program_info *out)
{
    out->place = fake_place(path);
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(fk.scene, "programs"))
    {
        if (!json_str(p, "path") || strcmp(json_str(p, "path"), path) != 0)
            continue;
        const cJSON *exe = cJSON_GetObjectItemCaseSensitive(p, "executable");
        out->executable = !cJSON_IsFalse(exe);
        out->console = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "console"));
        if (json_str(p, "original_name") &&
            !(out->original_name = str_dup(json_str(p, "original_name"))))
            return wa_fail(WA_E_NOMEM, "out of memory");
        return WA_E_OK;
    }
    out->executable = true; /* launch entries: GUI programs */
    return WA_E_OK;
}

/* "secure_desktop": true scripts a UAC prompt's desktop; a window's "integrity" above
 * the scene's "winagent_integrity" (low < medium < high < system; medium when not said)
 * an elevated program. */
static int integrity_rank(const char *level)
{
    static const char *const levels[] = {"low", "medium", "high", "system"};
    for (int i = 0; level && i < 4; i++)
        if (str_ieq(level, levels[i]))
            return i;
    return 1;
}

static wa_err fake_input_reaches(uint64_t hwnd)
{
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fk.scene, "secure_desktop")))
        return wa_fail(WA_E_SECURE_DESKTOP, "the secure desktop is up (a UAC prompt)");
    const cJSON *w = find_window(hwnd);
    if (w && integrity_rank(json_str(w, "integrity")) >
                 integrity_rank(json_str(fk.scene, "winagent_integrity")))
        return wa_fail(WA_E_ELEVATED_TARGET, "window 0x%llx runs at integrity level %s",
                       (unsigned long long)hwnd, json_str(w, "integrity"));
    return WA_E_OK;
}

/* A window's "hung": true scripts a thread that takes no messages: whether it handled
 * the input cannot be known. Every other window has handled it when asked. */
static wa_err fake_input_handled(uint64_t hwnd, int timeout_ms)
{
    const cJSON *w = find_window(hwnd);
    if (!w)
        return no_window(hwnd);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "hung")))
        return wa_fail(WA_E_TIMEOUT, "window 0x%llx did not answer in %d ms",
                       (unsigned long long)hwnd, timeout_ms);
    return WA_E_OK;
}

static wa_err fake_target_window(uint64_t *hwnd)
{
    const cJSON *w = foreground_window();
    if (!w)
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "no windows on the fake desktop");
    *hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
    return WA_E_OK;
}

static cJSON *hwnd_fields(uint64_t hwnd)
{
    cJSON *f = cJSON_CreateObject();
    char h[24];
    snprintf(h, sizeof h, "0x%llx", (unsigned long long)hwnd);
    cJSON_AddStringToObject(f, "hwnd", h);
    return f;
}

static wa_err fake_focus_window(uint64_t hwnd)
{
    cJSON *w = find_window(hwnd);
    if (!w)
        return no_window(hwnd);
    make_foreground(w);
    record("focus_window", hwnd_fields(hwnd));
    return WA_E_OK;
}

static wa_err fake_move_window(uint64_t hwnd, struct wa_rect r)
{
    cJSON *w = find_window(hwnd);
    if (!w)
        return no_window(hwnd);
    int v[4] = {r.left, r.top, r.right, r.bottom};
    cJSON_DeleteItemFromObjectCaseSensitive(w, "rect");
    cJSON_AddItemToObject(w, "rect", cJSON_CreateIntArray(v, 4));
    cJSON *f = hwnd_fields(hwnd);
    cJSON_AddItemToObject(f, "rect", cJSON_CreateIntArray(v, 4));
    record("move_window", f);
    return WA_E_OK;
}

static wa_err fake_set_window_state(uint64_t hwnd, enum wa_window_state s)
{
    cJSON *w = find_window(hwnd);
    if (!w)
        return no_window(hwnd);
    const char *name = s == WA_WINDOW_MINIMIZED   ? "minimized"
                       : s == WA_WINDOW_MAXIMIZED ? "maximized"
                                                  : "normal";
    set_string(w, "state", name);
    cJSON *f = hwnd_fields(hwnd);
    cJSON_AddStringToObject(f, "state", name);
    record("set_window_state", f);
    return WA_E_OK;
}

static wa_err fake_close_window(uint64_t hwnd)
{
    cJSON *arr = windows_array();
    int i = 0;
    cJSON *w;
    cJSON_ArrayForEach(w, arr)
    {
        if (json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd)
            break;
        i++;
    }
    if (!w)
        return no_window(hwnd);
    cJSON_DeleteItemFromArray(arr, i);
    if (cJSON_GetArraySize(arr) > 0)
        make_foreground(cJSON_GetArrayItem(arr, 0));
    record("close_window", hwnd_fields(hwnd));
    return WA_E_OK;
}

static wa_err fake_foreground_window(uint64_t *hwnd)
{
    const cJSON *w = foreground_window();
    *hwnd = w ? json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) : 0;
    return WA_E_OK;
}

static wa_err fake_window_at(int x, int y, uint64_t *hwnd)
{
    const cJSON *w;
    *hwnd = 0;
    cJSON_ArrayForEach(w, windows_array()) /* in Z order: the first one there is on top */
    {
        struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
        if (str_ieq(json_str(w, "state"), "minimized"))
            continue;
        if (x >= r.left && x < r.right && y >= r.top && y < r.bottom) {
            *hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
            break;
        }
    }
    return WA_E_OK;
}

/* The scene's "programs": {"name": {"path": "...", "runs": "..."}}; names of "launch"
 * templates are programs too. */
static wa_err fake_resolve_program(const char *name, char **path, char **runs)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fk.scene, "programs"), name);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fk.scene, "launch"), name);
    if (!p && !l)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no program named '%s'", name);
    const char *pp = p ? json_str(p, "path") : NULL;
    const char *rr = p ? json_str(p, "runs") : NULL;
    *path = pp ? str_dup(pp) : NULL;
    *runs = str_dup(rr ? rr : pp ? pp : name);
    return WA_E_OK;
}

static wa_err fake_launch(const char *command, int timeout_ms, uint64_t *hwnd)
{
    (void)timeout_ms;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "command", command);
    record("launch", f);
    /* The core quotes a program it starts as it is: "notepad" is the template notepad. */
    char name[512];
    size_t n = strlen(command);
    if (n >= 2 && command[0] == '"' && command[n - 1] == '"' && n - 2 < sizeof name)
        snprintf(name, sizeof name, "%.*s", (int)(n - 2), command + 1);
    else
        snprintf(name, sizeof name, "%s", command);
    const cJSON *programs = cJSON_GetObjectItemCaseSensitive(fk.scene, "programs"), *p;
    cJSON_ArrayForEach(p, programs) /* a program named by its path */
    {
        if (json_str(p, "path") && strcmp(json_str(p, "path"), name) == 0)
            snprintf(name, sizeof name, "%s", p->string);
    }
    const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fk.scene, "launch"), name);
    if (!tmpl)
        return wa_fail(WA_E_ACTION_FAILED, "cannot find the program '%s'", command);
    cJSON *w = cJSON_Duplicate(tmpl, true);
    if (!cJSON_GetObjectItemCaseSensitive(w, "hwnd"))
        cJSON_AddNumberToObject(w, "hwnd", (double)fk.next_hwnd++);
    cJSON_InsertItemInArray(windows_array(), 0, w);
    make_foreground(w);
    *hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
    return WA_E_OK;
}

/* ---- what windows are made of ---- */

/* 1 when node (or the node under it with window hwnd) has window hwnd and a node of
 * class cls at or above it; 0 when hwnd is there without one; -1 when it is not there. */
static int control_inside(const cJSON *node, uint64_t hwnd, const char *cls)
{
    if (!node)
        return -1;
    bool here = str_ieq(json_str(node, "class"), cls);
    if (json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd")) == hwnd)
        return here;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        int r = control_inside(c, hwnd, cls);
        if (r >= 0)
            return r || here;
    }
    return -1;
}

/* Whether a tree holds shell32's Run dialog's command box (its control id as the
 * AutomationId, as UI Automation names a Win32 control). */
static bool holds_run_command(const cJSON *node)
{
    if (!node)
        return false;
    if (str_ieq(json_str(node, "class"), "ComboBox") &&
        str_ieq(json_str(node, "automation_id"), "12298"))
        return true;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        if (holds_run_command(c))
            return true;
    }
    return false;
}

static wa_err fake_window_kind(uint64_t hwnd, struct wa_window_kind *out)
{
    cJSON *node = NULL, *top = find_window(hwnd);
    if (!top && !(top = window_of_control(hwnd, &node)))
        return no_window(hwnd);
    const cJSON *tree = cJSON_GetObjectItemCaseSensitive(top, "tree");
    out->run_dialog = str_ieq(json_str(top, "class"), "#32770") && holds_run_command(tree);
    out->address_bar = node && control_inside(tree, hwnd, "Address Band Root") == 1;
    out->item_view = node && (control_inside(tree, hwnd, "SHELLDLL_DefView") == 1 ||
                              control_inside(tree, hwnd, "NamespaceTreeControl") == 1);
    return WA_E_OK;
}

/* The nearest node at or above the focused one with a window of its own, else 0. */
static uint64_t focused_window_of(const cJSON *node)
{
    if (!node)
        return 0;
    bool focused = false;
    const cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(node, "states"))
    {
        focused = focused || (cJSON_IsString(st) &&
                              strcmp(st->valuestring, wa_state_words[WA_ST_INDEX_FOCUSED]) == 0);
    }
    uint64_t own = json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd"));
    if (focused)
        return own ? own : (uint64_t)-1;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        uint64_t found = focused_window_of(c);
        if (found)
            return found == (uint64_t)-1 && own ? own : found;
    }
    return 0;
}

static wa_err fake_focused_control(uint64_t top, uint64_t *control)
{
    cJSON *w = find_window(top);
    if (!w)
        return no_window(top);
    uint64_t own = focused_window_of(cJSON_GetObjectItemCaseSensitive(w, "tree"));
    *control = own && own != (uint64_t)-1 ? own : top;
    return WA_E_OK;
}

static wa_err fake_control_at(int x, int y, uint64_t *control)
{
    uint64_t top = 0;
    fake_window_at(x, y, &top);
    cJSON *w = top ? find_window(top) : NULL;
    cJSON *child = w ? child_at(cJSON_GetObjectItemCaseSensitive(w, "tree"), x, y) : NULL;
    *control = child ? json_hwnd(cJSON_GetObjectItemCaseSensitive(child, "hwnd")) : top;
    return WA_E_OK;
}

/* The scene's "clipboard_owner": a window's handle. */
static wa_err fake_clipboard_owner(uint64_t *hwnd)
{
    *hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(fk.scene, "clipboard_owner"));
    return WA_E_OK;
}

static wa_err fake_monitors(struct wa_monitor *out, size_t max, size_t *count)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(fk.scene, "monitors"))
    {
        if (*count >= max)
            break;
        struct wa_monitor *o = &out[(*count)++];
        o->rect = o->work = json_rect(cJSON_GetObjectItemCaseSensitive(m, "rect"));
        o->primary = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "primary"));
        const cJSON *dpi = cJSON_GetObjectItemCaseSensitive(m, "dpi");
        o->dpi = cJSON_IsNumber(dpi) && dpi->valueint > 0 ? dpi->valueint : 96;
    }
    return WA_E_OK;
}

/* ---- pixels: solid colours or PNG files, composed in Z order ---- */

static uint32_t parse_color(const char *s)
{
    if (!s || s[0] != '#')
        return 0xffffff;
    return (uint32_t)strtoul(s + 1, NULL, 16);
}

static void fill(struct wa_image *img, struct wa_rect r, uint32_t rgb)
{
    for (int y = r.top < 0 ? 0 : r.top; y < r.bottom && y < img->height; y++)
        for (int x = r.left < 0 ? 0 : r.left; x < r.right && x < img->width; x++) {
            uint8_t *p = img->px + ((size_t)y * (size_t)img->width + (size_t)x) * 4;
            p[0] = (uint8_t)(rgb >> 16);
            p[1] = (uint8_t)(rgb >> 8);
            p[2] = (uint8_t)rgb;
            p[3] = 255;
        }
}

/* Draws window w into img, whose top-left is screen point (ox, oy). */
static void draw_window(struct wa_image *img, const cJSON *w, int ox, int oy)
{
    struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    struct wa_rect at = {r.left - ox, r.top - oy, r.right - ox, r.bottom - oy};
    const char *file = json_str(w, "image");
    if (file) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", fk.base_dir ? fk.base_dir : ".", file);
        char *data = NULL;
        size_t len;
        struct wa_image src = {0};
        if (os_read_file(path, 64u << 20, &data, &len) == WA_E_OK &&
            png_decode(data, len, &src) == WA_E_OK) {
            for (int y = 0; y < src.height; y++)
                for (int x = 0; x < src.width; x++) {
                    int tx = at.left + x, ty = at.top + y;
                    if (tx < 0 || ty < 0 || tx >= img->width || ty >= img->height ||
                        tx >= at.right || ty >= at.bottom)
                        continue;
                    memcpy(img->px + ((size_t)ty * (size_t)img->width + (size_t)tx) * 4,
                           src.px + ((size_t)y * (size_t)src.width + (size_t)x) * 4, 4);
                }
            image_cleanup(&src);
            free(data);
            return;
        }
        free(data);
    }
    fill(img, at, parse_color(json_str(w, "color")));
}

static wa_err fake_capture_screen(struct wa_rect r, struct wa_image *out)
{
    wa_err e = image_alloc(out, wa_rect_width(r), wa_rect_height(r), false);
    if (e)
        return e;
    fill(out, (struct wa_rect){0, 0, out->width, out->height},
         parse_color(json_str(fk.scene, "desktop_color") ? json_str(fk.scene, "desktop_color")
                                                         : "#3a6ea5"));
    /* Back to front: the list is in Z order, topmost first. */
    cJSON *arr = windows_array();
    for (int i = cJSON_GetArraySize(arr) - 1; i >= 0; i--)
        draw_window(out, cJSON_GetArrayItem(arr, i), r.left, r.top);
    record("capture_screen", NULL);
    return WA_E_OK;
}

static wa_err fake_capture_window(uint64_t hwnd, struct wa_image *out, struct wa_rect *frame)
{
    const cJSON *w = find_window(hwnd);
    if (!w)
        return no_window(hwnd);
    *frame = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    wa_err e = image_alloc(out, wa_rect_width(*frame), wa_rect_height(*frame), false);
    if (!e)
        draw_window(out, w, frame->left, frame->top);
    return e;
}

/* ---- input ---- */

static void add_receiver(cJSON *f, int x, int y);

static wa_err fake_mouse_move(int x, int y)
{
    fk.cursor_x = x;
    fk.cursor_y = y;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddNumberToObject(f, "x", x);
    cJSON_AddNumberToObject(f, "y", y);
    record("mouse_move", f);
    return WA_E_OK;
}

static wa_err fake_mouse_button(enum wa_button b, bool down)
{
    uint64_t at = 0;
    cJSON *w = NULL;
    if (down && fake_window_at(fk.cursor_x, fk.cursor_y, &at) == WA_E_OK && at &&
        (w = find_window(at)) && json_str(w, "click_color"))
        set_string(w, "color", json_str(w, "click_color")); /* it repaints at once */
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "button",
                            b == WA_BUTTON_LEFT    ? "left"
                            : b == WA_BUTTON_RIGHT ? "right"
                                                   : "middle");
    cJSON_AddBoolToObject(f, "down", down);
    cJSON_AddNumberToObject(f, "x", fk.cursor_x);
    cJSON_AddNumberToObject(f, "y", fk.cursor_y);
    add_receiver(f, fk.cursor_x, fk.cursor_y);
    record("mouse_button", f);
    return WA_E_OK;
}

static wa_err fake_mouse_wheel(int delta, bool horizontal)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddNumberToObject(f, "delta", delta);
    cJSON_AddBoolToObject(f, "horizontal", horizontal);
    cJSON_AddNumberToObject(f, "x", fk.cursor_x);
    cJSON_AddNumberToObject(f, "y", fk.cursor_y);
    record("mouse_wheel", f);
    return WA_E_OK;
}

/* The focused node of a tree, depth first. */
static cJSON *focused_node(cJSON *node)
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
        cJSON *f = focused_node(c);
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

static void move_focus(cJSON *n)
{
    cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
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
    cJSON *steal = cJSON_GetObjectItemCaseSensitive(fk.scene, "steal_focus");
    if (!steal) {
        total = 0;
        return;
    }
    total += typed;
    const cJSON *after = cJSON_GetObjectItemCaseSensitive(steal, "after");
    if (!cJSON_IsNumber(after) || (double)total < after->valuedouble)
        return;
    uint64_t hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(steal, "hwnd"));
    cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
    {
        if (json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd) {
            make_foreground(w);
            break;
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(fk.scene, "steal_focus"); /* once */
    total = 0;
}

/* Appends typed text to a node's value, as a control does; "readonly": true scripts a
 * control that drops what is typed. */
static wa_err type_into(cJSON *node, const char *utf8)
{
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(node, "readonly")))
        return WA_E_OK;
    const char *old = json_str(node, "value");
    size_t n = (old ? strlen(old) : 0) + strlen(utf8) + 1;
    char *v = malloc(n);
    if (!v)
        return wa_fail(WA_E_NOMEM, "out of memory");
    snprintf(v, n, "%s%s", old ? old : "", utf8);
    set_string(node, "value", v);
    free(v);
    return WA_E_OK;
}

static wa_err fake_type_text(const char *utf8)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "text", utf8);
    record("type_text", f);
    cJSON *win = foreground_window();
    cJSON *node = win ? focused_node(cJSON_GetObjectItemCaseSensitive(win, "tree")) : NULL;
    wa_err e = node ? type_into(node, utf8) : WA_E_OK;
    if (e)
        return e;
    steal_focus_while_typing(strlen(utf8));
    return WA_E_OK;
}

/* {"keys": "Ctrl+S"} of a chord, for the record. */
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

static wa_err fake_press_keys(const struct wa_key_combo *k)
{
    record("press_keys", keys_fields(k));
    return WA_E_OK;
}

static wa_err fake_hold_keys(const struct wa_key_combo *k, bool down)
{
    record(down ? "key_down" : "key_up", keys_fields(k));
    return WA_E_OK;
}

static wa_err fake_cursor_position(int *x, int *y)
{
    *x = fk.cursor_x;
    *y = fk.cursor_y;
    return WA_E_OK;
}

/* ---- DPI: what a per-monitor-aware caller sees of windows that are not ---- */

/* The "dpi" of the monitor holding screen point (x, y) (primary: of the primary
 * monitor); 96 when the scene does not say. */
static int monitor_dpi(int x, int y, bool primary)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(fk.scene, "monitors"))
    {
        struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(m, "rect"));
        bool hit = primary ? cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "primary"))
                           : x >= r.left && x < r.right && y >= r.top && y < r.bottom;
        const cJSON *dpi = cJSON_GetObjectItemCaseSensitive(m, "dpi");
        if (hit)
            return cJSON_IsNumber(dpi) && dpi->valueint > 0 ? dpi->valueint : 96;
    }
    return 96;
}

/* How many physical pixels one of window w's own pixels covers. Its "dpi_awareness":
 * "unaware" draws at 96 DPI and Windows stretches it to its monitor's DPI; "system"
 * draws at the primary monitor's DPI and is stretched on a monitor of another;
 * "per_monitor" (the default) draws in physical pixels. */
static double window_scale(const cJSON *w)
{
    const char *a = json_str(w, "dpi_awareness");
    if (!a || str_ieq(a, "per_monitor"))
        return 1.0;
    struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    int base = str_ieq(a, "system") ? monitor_dpi(0, 0, true) : 96;
    return (double)monitor_dpi(r.left, r.top, false) / base;
}

/* A node's "bounds" are in its window's own pixels, counted from the window's top-left
 * corner, which the window's "rect" places on the screen in physical pixels: the same
 * numbers as the screen's for a per-monitor-aware window. */
static struct wa_rect bounds_to_physical(const cJSON *w, struct wa_rect b)
{
    double s = window_scale(w);
    struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    return (struct wa_rect){
        r.left + (int)lround((b.left - r.left) * s), r.top + (int)lround((b.top - r.top) * s),
        r.left + (int)lround((b.right - r.left) * s), r.top + (int)lround((b.bottom - r.top) * s)};
}

/* The deepest node of n whose bounds hold (x, y), in its window's own pixels. */
static const cJSON *node_at(const cJSON *n, double x, double y)
{
    struct wa_rect b = json_rect(cJSON_GetObjectItemCaseSensitive(n, "bounds"));
    if (!(x >= b.left && x < b.right && y >= b.top && y < b.bottom))
        return NULL;
    const cJSON *kid;
    cJSON_ArrayForEach(kid, cJSON_GetObjectItemCaseSensitive(n, "children"))
    {
        const cJSON *deeper = node_at(kid, x, y);
        if (deeper)
            return deeper;
    }
    return n;
}

/* What the window under physical point (x, y) receives there: the point in its own
 * pixels and the node it falls on, added to a recorded action as "window", "at" and
 * "element". */
static void add_receiver(cJSON *f, int x, int y)
{
    uint64_t at = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, windows_array())
    {
        struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
        if (!str_ieq(json_str(w, "state"), "minimized") && x >= r.left && x < r.right &&
            y >= r.top && y < r.bottom) {
            at = json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
            break;
        }
    }
    if (!at)
        return;
    struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    double s = window_scale(w), lx = r.left + (x - r.left) / s, ly = r.top + (y - r.top) / s;
    cJSON_AddNumberToObject(f, "window", (double)at);
    cJSON *pt = cJSON_AddArrayToObject(f, "at");
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(lx));
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(ly));
    const cJSON *n = node_at(cJSON_GetObjectItemCaseSensitive(w, "tree"), lx, ly);
    if (n && json_str(n, "name"))
        cJSON_AddStringToObject(f, "element", json_str(n, "name"));
}

/* ---- long collections: rows made on demand ---- */

#define ROW_MARGIN 1 /* rows listed above and below the view */

static int coll_int(const cJSON *coll, const char *key, int def)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(coll, "collection"), key);
    return cJSON_IsNumber(v) ? v->valueint : def;
}

static void coll_set(cJSON *coll, const char *key, int value)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(coll, "collection");
    cJSON_DeleteItemFromObjectCaseSensitive(c, key);
    cJSON_AddNumberToObject(c, key, value);
}

static void row_name(const cJSON *coll, int i, char *out, size_t n)
{
    const char *pattern = json_str(cJSON_GetObjectItemCaseSensitive(coll, "collection"), "name");
    snprintf(out, n, "%s %d", pattern ? pattern : "item", i);
}

static const struct fake_row *row_of(const cJSON *el)
{
    for (size_t i = 0; i < fk.nrows; i++)
        if (fk.rows[i].row == el)
            return &fk.rows[i];
    return NULL;
}

static int by_index(const void *a, const void *b)
{
    int x = cJSON_GetObjectItemCaseSensitive(*(cJSON *const *)a, "index")->valueint;
    int y = cJSON_GetObjectItemCaseSensitive(*(cJSON *const *)b, "index")->valueint;
    return (x > y) - (x < y);
}

/* Puts a collection's rows back in index order (cJSON 1.7.15's InsertItemInArray loses
 * items inserted in the middle): the same objects, which trees point at. */
static void sort_rows(cJSON *list)
{
    int n = cJSON_GetArraySize(list);
    cJSON **v = calloc((size_t)n, sizeof *v);
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        v[i] = cJSON_DetachItemFromArray(list, 0);
    qsort(v, (size_t)n, sizeof *v, by_index);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(list, v[i]);
    free(v);
}

/* The row object of index i of coll, made when there is none yet. */
static cJSON *row_at(cJSON *coll, int i)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(coll, "_rows");
    if (!list)
        list = cJSON_AddArrayToObject(coll, "_rows");
    int at = 0;
    cJSON *r;
    cJSON_ArrayForEach(r, list)
    {
        int idx = cJSON_GetObjectItemCaseSensitive(r, "index")->valueint;
        if (idx == i)
            return r;
        if (idx > i)
            break;
        at++;
    }
    if (fk.nrows == fk.cap_rows) {
        size_t cap = fk.cap_rows ? 2 * fk.cap_rows : 64;
        struct fake_row *p = wa_reallocarray(fk.rows, cap, sizeof *p);
        if (!p)
            return NULL;
        fk.rows = p;
        fk.cap_rows = cap;
    }
    char name[128];
    row_name(coll, i, name, sizeof name);
    r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "type", "ListItem");
    cJSON_AddStringToObject(r, "name", name);
    cJSON_AddNumberToObject(r, "index", i);
    cJSON *pat = cJSON_AddArrayToObject(r, "patterns");
    cJSON_AddItemToArray(pat, cJSON_CreateString("select"));
    cJSON_AddItemToArray(list, r);
    if (at < cJSON_GetArraySize(list) - 1)
        sort_rows(list);
    fk.rows[fk.nrows++] = (struct fake_row){coll, r};
    return r;
}

/* Lists the rows in view with ROW_MARGIN around and the selected one: made where
 * needed, marked "_listed" (the others unmarked). The first listed, or NULL. */
static cJSON *list_rows(cJSON *coll)
{
    int count = coll_int(coll, "count", 0), top = coll_int(coll, "top", 0);
    int from = top - ROW_MARGIN > 0 ? top - ROW_MARGIN : 0;
    int to = top + coll_int(coll, "per_page", 1) + ROW_MARGIN;
    int selected = coll_int(coll, "selected", -1);
    for (int i = from; i < to && i < count; i++)
        row_at(coll, i);
    if (selected >= 0 && selected < count)
        row_at(coll, selected);
    cJSON *r, *first = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(coll, "_rows"))
    {
        int idx = cJSON_GetObjectItemCaseSensitive(r, "index")->valueint;
        bool listed = (idx >= from && idx < to) || idx == selected;
        cJSON_DeleteItemFromObjectCaseSensitive(r, "_listed");
        cJSON_AddBoolToObject(r, "_listed", listed);
        first = first ? first : listed ? r : NULL;
    }
    return first;
}

/* What a row is now: where (rows of row_height from the node's top), whether it shows
 * and is selected. */
static void row_info(const cJSON *w, const struct fake_row *fr, struct tree_element_info *out)
{
    int i = cJSON_GetObjectItemCaseSensitive(fr->row, "index")->valueint;
    int top = coll_int(fr->coll, "top", 0), per_page = coll_int(fr->coll, "per_page", 1);
    int height = coll_int(fr->coll, "row_height", 20);
    struct wa_rect b = json_rect(cJSON_GetObjectItemCaseSensitive(fr->coll, "bounds"));
    int y = b.top + (i - top) * height;
    out->bounds = bounds_to_physical(w, (struct wa_rect){b.left, y, b.right, y + height});
    out->states &= ~(unsigned)(WA_ST_OFFSCREEN | WA_ST_SELECTED);
    if (i < top || i >= top + per_page)
        out->states |= WA_ST_OFFSCREEN;
    if (i == coll_int(fr->coll, "selected", -1))
        out->states |= WA_ST_SELECTED;
    out->coll_item = true;
    out->item_index = i;
}

static void coll_info(const cJSON *coll, struct tree_element_info *out)
{
    int count = coll_int(coll, "count", 0), top = coll_int(coll, "top", 0);
    int last = top + coll_int(coll, "per_page", 1) - 1;
    last = last < count ? last : count - 1;
    out->coll = (struct wa_collection){true, count, count ? top : -1, count ? last : -1,
                                       count ? last - top + 1 : 0};
}

/* ---- the tree, through the generic walk over the scene's JSON nodes ---- */

static wa_err src_root(void *ctx, void **el)
{
    *el = cJSON_GetObjectItemCaseSensitive((cJSON *)ctx, "tree");
    return *el ? WA_E_OK : wa_fail(WA_E_ELEMENT_NOT_FOUND, "this fake window has no tree");
}

static wa_err src_first_child(void *ctx, void *el, void **out)
{
    (void)ctx;
    if (cJSON_GetObjectItemCaseSensitive((cJSON *)el, "collection")) {
        *out = list_rows(el);
        return WA_E_OK;
    }
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive((cJSON *)el, "children");
    *out = kids ? kids->child : NULL;
    return WA_E_OK;
}

static wa_err src_next_sibling(void *ctx, void *el, void **out)
{
    (void)ctx;
    cJSON *next = ((cJSON *)el)->next;
    if (row_of(el)) /* the next row listed */
        while (next && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(next, "_listed")))
            next = next->next;
    *out = next;
    return WA_E_OK;
}

static unsigned words_to_bits(const cJSON *arr, const char *const *words, int n)
{
    unsigned bits = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, arr)
    {
        for (int i = 0; i < n; i++)
            if (cJSON_IsString(w) && strcmp(w->valuestring, words[i]) == 0)
                bits |= 1u << i;
    }
    return bits;
}

static wa_err src_info(void *ctx, void *el, struct tree_element_info *out)
{
    const cJSON *n = el;
    out->type = str_dup(json_str(n, "type"));
    out->name = str_dup(json_str(n, "name"));
    out->automation_id = str_dup(json_str(n, "automation_id"));
    out->class_name = str_dup(json_str(n, "class"));
    out->value = str_dup(json_str(n, "value"));
    const cJSON *bounds = cJSON_GetObjectItemCaseSensitive(n, "bounds");
    out->bounds = bounds ? bounds_to_physical(ctx, json_rect(bounds)) : json_rect(bounds);
    out->states =
        words_to_bits(cJSON_GetObjectItemCaseSensitive(n, "states"), wa_state_words, WA_ST__COUNT);
    out->patterns = words_to_bits(cJSON_GetObjectItemCaseSensitive(n, "patterns"),
                                  wa_pattern_short_words, WA_PAT__COUNT) |
                    words_to_bits(cJSON_GetObjectItemCaseSensitive(n, "patterns"), wa_pattern_words,
                                  WA_PAT__COUNT);
    out->hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(n, "hwnd"));
    const struct fake_row *fr = row_of(n);
    if (fr)
        row_info(ctx, fr, out);
    if (cJSON_GetObjectItemCaseSensitive(n, "collection"))
        coll_info(n, out);
    return WA_E_OK;
}

static wa_err src_window_text(void *ctx, uint64_t hwnd, char **out)
{
    (void)ctx;
    (void)hwnd;
    *out = NULL;
    return WA_E_OK;
}

static const struct tree_source_ops fake_source = {
    .name = "fake",
    .root = src_root,
    .first_child = src_first_child,
    .next_sibling = src_next_sibling,
    .info = src_info,
    .window_text = src_window_text,
};

static wa_err fake_get_tree(uint64_t hwnd, const struct wa_tree_opts *o, struct wa_tree *out)
{
    cJSON *w = find_window(hwnd);
    if (!w)
        return no_window(hwnd);
    struct tree_walk_opts wo = {.max_nodes = o ? o->max_nodes : 0,
                                .budget_ms = o ? o->budget_ms : 0,
                                .keep_handles = o && o->keep_handles};
    wa_err e = tree_walk(&fake_source, w, &wo, out);
    if (e)
        return e;
    out->frame = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    out->hwnd = hwnd;
    out->title = str_dup(json_str(w, "title") ? json_str(w, "title") : "");
    out->process = str_dup(json_str(w, "process") ? json_str(w, "process") : "");
    return WA_E_OK;
}

/* Whether node n has state word w, and setting or clearing it. */
static bool has_state(const cJSON *n, const char *w)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(n, "states"))
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, w) == 0)
            return true;
    }
    return false;
}

static void set_state(cJSON *n, const char *w, bool on)
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

static wa_err fake_element_action(struct wa_tree *t, size_t index, enum wa_element_action a,
                                  const char *value, const char **via)
{
    static const char *const names[] = {"invoke", "toggle",    "expand", "collapse",
                                        "select", "set_value", "focus",  "scroll_into_view"};
    cJSON *n = t->nodes[index].handle;
    if (!n)
        return wa_fail(WA_E_STALE_REF, "the tree was walked without element handles");
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "action", names[a]);
    cJSON_AddStringToObject(f, "name", t->nodes[index].name);
    if (value)
        cJSON_AddStringToObject(f, "value", value);
    if (!cJSON_GetObjectItemCaseSensitive(n, "patterns") && a != WA_ACT_FOCUS) {
        cJSON_Delete(f);
        return wa_fail(WA_E_UNSUPPORTED, "element has no patterns");
    }
    record("element_action", f);
    if (a == WA_ACT_SET_VALUE && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n, "readonly")))
        set_string(n, "value", value ? value : "");
    if (a == WA_ACT_FOCUS)
        move_focus(n);
    const char *checked = wa_state_words[WA_ST_INDEX_CHECKED];
    if (a == WA_ACT_TOGGLE)
        set_state(n, checked, !has_state(n, checked));
    if (a == WA_ACT_EXPAND || a == WA_ACT_COLLAPSE) {
        set_state(n, wa_state_words[WA_ST_INDEX_EXPANDED], a == WA_ACT_EXPAND);
        set_state(n, wa_state_words[WA_ST_INDEX_COLLAPSED], a == WA_ACT_COLLAPSE);
    }
    const struct fake_row *fr = row_of(n);
    int idx = fr ? cJSON_GetObjectItemCaseSensitive(n, "index")->valueint : -1;
    if (a == WA_ACT_SELECT && fr)
        coll_set(fr->coll, "selected", idx);
    else if (a == WA_ACT_SELECT)
        set_state(n, wa_state_words[WA_ST_INDEX_SELECTED], true);
    if (a == WA_ACT_SCROLL_INTO_VIEW && fr) {
        int top = coll_int(fr->coll, "top", 0), per_page = coll_int(fr->coll, "per_page", 1);
        if (idx < top || idx >= top + per_page)
            coll_set(fr->coll, "top", idx < top ? idx : idx - per_page + 1);
        struct tree_element_info now = {0};
        row_info(find_window(t->hwnd), fr, &now);
        t->nodes[index].bounds = now.bounds;
        t->nodes[index].states =
            (t->nodes[index].states & ~(unsigned)WA_ST_OFFSCREEN) | (now.states & WA_ST_OFFSCREEN);
    }
    *via = "fake:pattern";
    return WA_E_OK;
}

/* Rows of a collection node that q wants, by their generated names: added to t. */
static wa_err fake_find_items(struct wa_tree *t, size_t index, const struct wa_item_query *q,
                              size_t max, size_t *added)
{
    cJSON *coll = t->nodes[index].handle;
    cJSON *w = find_window(t->hwnd);
    *added = 0;
    if (!coll || !w || !cJSON_GetObjectItemCaseSensitive(coll, "collection"))
        return wa_fail(WA_E_UNSUPPORTED, "the node is no collection of this scene");
    int count = coll_int(coll, "count", 0);
    for (int i = q->index >= 0 ? q->index : 0; i < count && *added < max && !q->runtime_id; i++) {
        char name[128];
        row_name(coll, i, name, sizeof name);
        bool held = false;
        for (size_t j = index + 1; j < t->count && !held; j++)
            held = t->nodes[j].parent == (int)index && t->nodes[j].item_index == i;
        if (!held && wa_item_query_names(q, name)) {
            cJSON *r = row_at(coll, i);
            struct tree_element_info info = {0};
            if (r)
                src_info(w, r, &info);
            int at = r ? tree_add_node(t, (int)index, &info) : -1;
            tree_element_info_cleanup(&info);
            if (at < 0)
                return wa_fail(WA_E_NOMEM, "out of memory");
            t->nodes[at].handle = r;
            (*added)++;
        }
        if (q->index >= 0)
            break;
    }
    return WA_E_OK;
}

/* A node's value as the application would say it. */
static wa_err node_value(const cJSON *n, char **value)
{
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n, "password")))
        return wa_fail(WA_E_DENIED, "a password field is not read back");
    const char *v = json_str(n, "value");
    if (!v)
        return wa_fail(WA_E_UNSUPPORTED, "the element has no value");
    *value = str_dup(v);
    return *value ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

static wa_err fake_element_value(struct wa_tree *t, size_t index, char **value)
{
    const cJSON *n = t->nodes[index].handle;
    if (!n)
        return wa_fail(WA_E_STALE_REF, "the tree was walked without element handles");
    return node_value(n, value);
}

static wa_err fake_focused_value(uint64_t top, uint64_t *hwnd, char **value)
{
    cJSON *win = top ? find_window(top) : foreground_window();
    cJSON *node = win ? focused_node(cJSON_GetObjectItemCaseSensitive(win, "tree")) : NULL;
    if (!node)
        return wa_fail(WA_E_UNSUPPORTED, "no control has the keyboard focus");
    *hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd"));
    if (!*hwnd)
        *hwnd = json_hwnd(cJSON_GetObjectItemCaseSensitive(win, "hwnd"));
    return node_value(node, value);
}

/* ---- background input: recorded, the cursor and the foreground left alone ---- */

/* The node of a tree with its own window hwnd (depth first), or NULL. */
static cJSON *node_with_hwnd(cJSON *node, uint64_t hwnd)
{
    if (!node)
        return NULL;
    if (json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd")) == hwnd)
        return node;
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        cJSON *f = node_with_hwnd(c, hwnd);
        if (f)
            return f;
    }
    return NULL;
}

/* The deepest node with a window of its own whose bounds hold (x, y), else NULL. */
static cJSON *child_at(cJSON *node, int x, int y)
{
    cJSON *c, *found = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
    {
        struct wa_rect b = json_rect(cJSON_GetObjectItemCaseSensitive(c, "bounds"));
        if (x < b.left || x >= b.right || y < b.top || y >= b.bottom)
            continue;
        cJSON *deeper = child_at(c, x, y);
        if (deeper)
            return deeper;
        if (json_hwnd(cJSON_GetObjectItemCaseSensitive(c, "hwnd")))
            found = c;
    }
    return found;
}

/* The record of a message posted at (x, y) of window top: to its child there, with
 * the point. */
static wa_err posted_at(uint64_t top, int x, int y, uint64_t *child, cJSON **fields)
{
    cJSON *w = find_window(top);
    if (!w)
        return no_window(top);
    struct wa_rect r = json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    if (x < r.left || x >= r.right || y < r.top || y >= r.bottom)
        return wa_fail(WA_E_ACTION_FAILED, "(%d,%d) is outside window 0x%llx", x, y,
                       (unsigned long long)top);
    cJSON *c = child_at(cJSON_GetObjectItemCaseSensitive(w, "tree"), x, y);
    *child = c ? json_hwnd(cJSON_GetObjectItemCaseSensitive(c, "hwnd")) : top;
    *fields = hwnd_fields(*child);
    cJSON_AddNumberToObject(*fields, "x", x);
    cJSON_AddNumberToObject(*fields, "y", y);
    return WA_E_OK;
}

static wa_err fake_post_wheel(uint64_t top, int x, int y, int notches, bool horizontal,
                              uint64_t *child)
{
    cJSON *f;
    wa_err e = posted_at(top, x, y, child, &f);
    if (e)
        return e;
    cJSON_AddNumberToObject(f, "notches", notches);
    cJSON_AddBoolToObject(f, "horizontal", horizontal);
    record("post_wheel", f);
    return WA_E_OK;
}

static wa_err fake_post_click(uint64_t top, int x, int y, enum wa_button b, int count,
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
    record("post_click", f);
    return WA_E_OK;
}

static wa_err fake_post_text(uint64_t hwnd, const char *utf8, uint64_t *control)
{
    cJSON *node = NULL, *w;
    cJSON *top = find_window(hwnd);
    if (top) {
        node = focused_node(cJSON_GetObjectItemCaseSensitive(top, "tree"));
        if (!node)
            return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no control of window 0x%llx has the focus",
                           (unsigned long long)hwnd);
    } else {
        cJSON_ArrayForEach(w, windows_array())
        {
            if (!node)
                node = node_with_hwnd(cJSON_GetObjectItemCaseSensitive(w, "tree"), hwnd);
        }
        if (!node)
            return no_window(hwnd);
    }
    *control = json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd"));
    if (!*control)
        *control = hwnd;
    cJSON *f = hwnd_fields(*control);
    cJSON_AddStringToObject(f, "text", utf8);
    record("post_text", f);
    return type_into(node, utf8);
}

/* ---- shell: scripted answers ---- */

static wa_err fake_run_shell(const char *shell, const char *command, int timeout_ms, size_t cap,
                             struct wa_shell_result *out)
{
    (void)timeout_ms;
    (void)cap;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "command", command);
    if (shell && *shell)
        cJSON_AddStringToObject(f, "shell", shell);
    record("run_shell", f);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fk.scene, "shell"), command);
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(s, "exit");
    out->exit_code = s ? (cJSON_IsNumber(code) ? code->valueint : 0) : 127;
    out->out = str_dup(s && json_str(s, "out") ? json_str(s, "out") : "");
    out->err = str_dup(s ? (json_str(s, "err") ? json_str(s, "err") : "")
                         : "fake shell: command not scripted\n");
    return out->out && out->err ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

static const struct wa_backend fake_backend = {
    .name = "fake",
    .init = fake_init,
    .shutdown = fake_shutdown,
    .list_windows = fake_list_windows,
    .list_visible_windows = fake_list_visible_windows,
    .window_info = fake_window_info,
    .target_window = fake_target_window,
    .foreground_window = fake_foreground_window,
    .window_at = fake_window_at,
    .focus_window = fake_focus_window,
    .move_window = fake_move_window,
    .set_window_state = fake_set_window_state,
    .close_window = fake_close_window,
    .resolve_program = fake_resolve_program,
    .launch = fake_launch,
    .window_kind = fake_window_kind,
    .focused_control = fake_focused_control,
    .control_at = fake_control_at,
    .clipboard_owner = fake_clipboard_owner,
    .monitors = fake_monitors,
    .capture_screen = fake_capture_screen,
    .capture_window = fake_capture_window,
    .mouse_move = fake_mouse_move,
    .mouse_button = fake_mouse_button,
    .mouse_wheel = fake_mouse_wheel,
    .type_text = fake_type_text,
    .press_keys = fake_press_keys,
    .hold_keys = fake_hold_keys,
    .cursor_position = fake_cursor_position,
    .get_tree = fake_get_tree,
    .find_items = fake_find_items,
    .element_action = fake_element_action,
    .element_value = fake_element_value,
    .focused_value = fake_focused_value,
    .post_click = fake_post_click,
    .post_wheel = fake_post_wheel,
    .post_text = fake_post_text,
    .run_shell = fake_run_shell,
    .program_info = fake_program_info,
    .input_reaches = fake_input_reaches,
    .input_handled = fake_input_handled,
};

const struct wa_backend *backend_default(void)
{
    return &fake_backend;
}
