/* The scripted fake desktop behind automation/fake/fake_backend.h: its windows, what
 * they are made of, their pixels, the shell, and the backend table. The scene is
 * fake_scene.c, input fake_input.c, the tree fake_tree.c. */
#include "automation/fake/fake_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "automation/fake/fake_input.h"
#include "automation/fake/fake_system.h"
#include "automation/fake/fake_person.h"
#include "automation/fake/fake_scene.h"
#include "automation/fake/fake_tree.h"
#include "automation/image/png.h"
#include "base/netpath.h"
#include "base/os.h"
#include "base/str.h"

/* ---- windows ---- */

static wa_err fake_list_windows(struct wa_window_list *out)
{
    int n = cJSON_GetArraySize(fake_scene_windows_array());
    out->items = calloc((size_t)(n ? n : 1), sizeof *out->items);
    if (!out->items)
        return wa_fail(WA_E_NOMEM, "out of memory");
    const cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        wa_err e = fake_scene_window_from_json(w, &out->items[out->count]);
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
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "unlisted");
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
        if ((e = fake_scene_window_from_json(w, &out->items[out->count]))) {
            wa_window_list_cleanup(out);
            return e;
        }
        out->count++;
    }
    return WA_E_OK;
}

/* "other_windows": windows that exist but are no top-level window of a program (the
 * desktop window, message-only windows, child controls): described, never listed. */
static const cJSON *find_other_window(uint64_t hwnd)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "other_windows"))
    {
        if (fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd)
            return w;
    }
    return NULL;
}

/* The top-level window whose tree holds a node with its own window hwnd, and that node. */
static cJSON *window_of_control(uint64_t hwnd, cJSON **node)
{
    cJSON *w;
    cJSON_ArrayForEach(w, fake_scene_windows_array())
    {
        if ((*node = fake_scene_node_with_hwnd(cJSON_GetObjectItemCaseSensitive(w, "tree"), hwnd)))
            return w;
    }
    return NULL;
}

static wa_err fake_window_info(uint64_t hwnd, struct wa_window *out)
{
    const cJSON *w = fake_scene_find_window(hwnd);
    if (!w)
        w = find_other_window(hwnd);
    if (w)
        return fake_scene_window_from_json(w, out);
    /* A control with a window of its own: its window's process (or its own "process"),
     * its class, not a top-level window. */
    cJSON *node, *top = window_of_control(hwnd, &node);
    if (!top)
        return fake_scene_no_window(hwnd);
    wa_err e = fake_scene_window_from_json(top, out);
    if (!e &&
        (!str_set(&out->class_name,
                  fake_scene_json_str(node, "class") ? fake_scene_json_str(node, "class") : "") ||
         (fake_scene_json_str(node, "process") &&
          !str_set(&out->process, fake_scene_json_str(node, "process")))))
        e = wa_fail(WA_E_NOMEM, "out of memory");
    out->hwnd = hwnd;
    out->top_level = false;
    out->foreground = false;
    return e;
}

/* A program's file as the scene's "programs" describe it by path: "console": true,
 * "original_name": "pwsh.exe", "executable": true or false (by default: a name ending
 * in .exe or .com is an image, any other a document). Installed: under C:\\Windows or
 * C:\\Program Files, unless the scene's "writable" lists a folder above it. */
static enum wa_program_place fake_place(const char *path)
{
    if (netpath_remote(path))
        return WA_PLACE_NETWORK;
    const cJSON *d;
    cJSON_ArrayForEach(d,
                       cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "network_drives"))
    {
        if (cJSON_IsString(d) && str_ieq_n(d->valuestring, path, strlen(d->valuestring)))
            return WA_PLACE_NETWORK;
    }
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "writable"))
    {
        size_t n = cJSON_IsString(d) ? strlen(d->valuestring) : 0;
        if (n && str_ieq_n(d->valuestring, path, n) && (path[n] == '\\' || path[n] == '/'))
            return WA_PLACE_ELSEWHERE;
    }
    if (str_ieq_n("C:\\Windows\\", path, 11) || str_ieq_n("C:\\Program Files", path, 16))
        return strstr(path, "..") ? WA_PLACE_ELSEWHERE : WA_PLACE_SYSTEM;
    return WA_PLACE_ELSEWHERE;
}

/* What a file is by its name where the scene does not say. */
static bool fake_image_by_name(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && (str_ieq(path + n - 4, ".exe") || str_ieq(path + n - 4, ".com"));
}

static wa_err fake_program_info(const char *path, struct wa_program_info *out)
{
    fake_scene_lookup(path);
    out->place = fake_place(path);
    if (out->place == WA_PLACE_NETWORK)
        return WA_E_OK; /* never read */
    if (out->place != WA_PLACE_SYSTEM)
        snprintf(out->place_why, sizeof out->place_why, "the scene's folder is not installed");
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "programs"))
    {
        if (!fake_scene_json_str(p, "path") || strcmp(fake_scene_json_str(p, "path"), path) != 0)
            continue;
        const cJSON *exe = cJSON_GetObjectItemCaseSensitive(p, "executable");
        out->executable = cJSON_IsBool(exe) ? cJSON_IsTrue(exe) : fake_image_by_name(path);
        out->console = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "console"));
        if (fake_scene_json_str(p, "original_name") &&
            !(out->original_name = str_dup(fake_scene_json_str(p, "original_name"))))
            return wa_fail(WA_E_NOMEM, "out of memory");
        return WA_E_OK;
    }
    out->executable = true; /* launch entries: GUI programs */
    return WA_E_OK;
}

/* The scene's "processes": [{"pid", "parent", "started": ms of the wall clock}] (and a
 * window's own "parent"): who started whom. */
static wa_err fake_started_by(unsigned long pid, int64_t since_ms, struct wa_started *out,
                              size_t max, size_t *count)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "processes"))
    {
        if (*count < max && cJSON_GetNumberValue(cJSON_GetObjectItem(p, "parent")) == pid &&
            cJSON_GetNumberValue(cJSON_GetObjectItem(p, "started")) >= (double)since_ms) {
            struct wa_started *st = &out[(*count)++];
            st->pid = (unsigned long)cJSON_GetNumberValue(cJSON_GetObjectItem(p, "pid"));
            const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(p, "path"));
            snprintf(st->path, sizeof st->path, "%s", path ? path : "");
        }
    }
    return WA_E_OK;
}

static wa_err fake_process_parent(unsigned long pid, unsigned long *parent)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "processes"))
    {
        if (cJSON_GetNumberValue(cJSON_GetObjectItem(p, "pid")) == pid)
            *parent = (unsigned long)cJSON_GetNumberValue(cJSON_GetObjectItem(p, "parent"));
    }
    cJSON_ArrayForEach(p, fake_scene_windows_array())
    {
        if (!*parent && cJSON_GetNumberValue(cJSON_GetObjectItem(p, "pid")) == pid &&
            cJSON_IsNumber(cJSON_GetObjectItem(p, "parent")))
            *parent = (unsigned long)cJSON_GetNumberValue(cJSON_GetObjectItem(p, "parent"));
    }
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
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "secure_desktop")))
        return wa_fail(WA_E_SECURE_DESKTOP, "the secure desktop is up (a UAC prompt)");
    const cJSON *w = fake_scene_find_window(hwnd);
    if (w && integrity_rank(fake_scene_json_str(w, "integrity")) >
                 integrity_rank(fake_scene_json_str(fake_scene_state.scene, "winagent_integrity")))
        return wa_fail(WA_E_ELEVATED_TARGET, "window 0x%llx runs at integrity level %s",
                       (unsigned long long)hwnd, fake_scene_json_str(w, "integrity"));
    return WA_E_OK;
}

/* A window's "hung": true scripts a thread that takes no messages: whether it handled
 * the input cannot be known. Every other window has handled it when asked. */
static wa_err fake_input_handled(uint64_t hwnd, int timeout_ms)
{
    const cJSON *w = fake_scene_find_window(hwnd);
    if (!w)
        return fake_scene_no_window(hwnd);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "hung")))
        return wa_fail(WA_E_TIMEOUT, "window 0x%llx did not answer in %d ms",
                       (unsigned long long)hwnd, timeout_ms);
    return WA_E_OK;
}

static wa_err fake_default_window(uint64_t *hwnd)
{
    const cJSON *w = fake_scene_foreground_window();
    if (!w)
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "no windows on the fake desktop");
    *hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
    return WA_E_OK;
}

static wa_err fake_focus_window(uint64_t hwnd)
{
    cJSON *w = fake_scene_find_window(hwnd);
    if (!w)
        return fake_scene_no_window(hwnd);
    fake_scene_make_foreground(w);
    fake_scene_record("focus_window", fake_scene_hwnd_fields(hwnd));
    return WA_E_OK;
}

static wa_err fake_move_window(uint64_t hwnd, struct wa_rect r)
{
    cJSON *w = fake_scene_find_window(hwnd);
    if (!w)
        return fake_scene_no_window(hwnd);
    int v[4] = {r.left, r.top, r.right, r.bottom};
    cJSON_DeleteItemFromObjectCaseSensitive(w, "rect");
    cJSON_AddItemToObject(w, "rect", cJSON_CreateIntArray(v, 4));
    cJSON *f = fake_scene_hwnd_fields(hwnd);
    cJSON_AddItemToObject(f, "rect", cJSON_CreateIntArray(v, 4));
    fake_scene_record("move_window", f);
    return WA_E_OK;
}

static wa_err fake_set_window_state(uint64_t hwnd, enum wa_window_state s)
{
    cJSON *w = fake_scene_find_window(hwnd);
    if (!w)
        return fake_scene_no_window(hwnd);
    const char *name = s == WA_WINDOW_MINIMIZED   ? "minimized"
                       : s == WA_WINDOW_MAXIMIZED ? "maximized"
                                                  : "normal";
    if (!fake_scene_ignores(w, "set_window_state")) /* a window that stays as it is */
        fake_scene_set_string(w, "state", name);
    cJSON *f = fake_scene_hwnd_fields(hwnd);
    cJSON_AddStringToObject(f, "state", name);
    fake_scene_record("set_window_state", f);
    return WA_E_OK;
}

static wa_err fake_close_window(uint64_t hwnd)
{
    cJSON *arr = fake_scene_windows_array();
    int i = 0;
    cJSON *w;
    cJSON_ArrayForEach(w, arr)
    {
        if (fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) == hwnd)
            break;
        i++;
    }
    if (!w)
        return fake_scene_no_window(hwnd);
    cJSON_DeleteItemFromArray(arr, i);
    if (cJSON_GetArraySize(arr) > 0)
        fake_scene_make_foreground(cJSON_GetArrayItem(arr, 0));
    fake_scene_record("close_window", fake_scene_hwnd_fields(hwnd));
    return WA_E_OK;
}

static wa_err fake_foreground_window(uint64_t *hwnd)
{
    const cJSON *w = fake_scene_foreground_window();
    *hwnd = w ? fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd")) : 0;
    return WA_E_OK;
}

/* The scene's "programs": {"name": {"path": "...", "runs": "..."}}; names of "launch"
 * templates are programs too. */
static wa_err fake_resolve_program(const char *name, char **path, char **runs)
{
    fake_scene_lookup(name);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "programs"), name);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "launch"), name);
    if (!p && !l)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no program named '%s'", name);
    const char *pp = p ? fake_scene_json_str(p, "path") : NULL;
    const char *rr = p ? fake_scene_json_str(p, "runs") : NULL;
    *path = pp ? str_dup(pp) : NULL;
    *runs = str_dup(rr ? rr : pp ? pp : name);
    return WA_E_OK;
}

/* Records the launch ("command": what, "kind": program, document or line) and shows
 * the scene's "launch" template of that name (a program given by its path: the
 * "programs" entry of that path). */
static wa_err fake_launch(enum wa_launch_kind kind, const char *command, int timeout_ms,
                          uint64_t *hwnd)
{
    (void)timeout_ms;
    static const char *const kinds[] = {"program", "document", "line"};
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "command", command);
    cJSON_AddStringToObject(f, "kind", kinds[kind]);
    fake_scene_record("launch", f);
    char name[512];
    snprintf(name, sizeof name, "%s", command);
    const cJSON *programs = cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "programs"),
                *p;
    cJSON_ArrayForEach(p, programs) /* a program named by its path */
    {
        if (fake_scene_json_str(p, "path") && strcmp(fake_scene_json_str(p, "path"), name) == 0)
            snprintf(name, sizeof name, "%s", p->string);
    }
    const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "launch"), name);
    if (!tmpl)
        return wa_fail(WA_E_ACTION_FAILED, "cannot find the program '%s'", command);
    cJSON *w = cJSON_Duplicate(tmpl, true);
    if (!cJSON_GetObjectItemCaseSensitive(w, "hwnd"))
        cJSON_AddNumberToObject(w, "hwnd", (double)fake_scene_state.next_hwnd++);
    cJSON_InsertItemInArray(fake_scene_windows_array(), 0, w);
    fake_scene_make_foreground(w);
    *hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(w, "hwnd"));
    return WA_E_OK;
}

/* ---- what windows are made of ---- */

/* 1 when node (or the node under it with window hwnd) has window hwnd and a node of
 * class cls at or above it; 0 when hwnd is there without one; -1 when it is not there. */
static int control_inside(const cJSON *node, uint64_t hwnd, const char *cls)
{
    if (!node)
        return -1;
    bool here = str_ieq(fake_scene_json_str(node, "class"), cls);
    if (fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd")) == hwnd)
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
    if (str_ieq(fake_scene_json_str(node, "class"), "ComboBox") &&
        str_ieq(fake_scene_json_str(node, "automation_id"), "12298"))
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
    cJSON *node = NULL, *top = fake_scene_find_window(hwnd);
    if (!top && !(top = window_of_control(hwnd, &node)))
        return fake_scene_no_window(hwnd);
    const cJSON *tree = cJSON_GetObjectItemCaseSensitive(top, "tree");
    out->run_dialog =
        str_ieq(fake_scene_json_str(top, "class"), "#32770") && holds_run_command(tree);
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
    uint64_t own = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd"));
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
    cJSON *w = fake_scene_find_window(top);
    if (!w)
        return fake_scene_no_window(top);
    uint64_t own = focused_window_of(cJSON_GetObjectItemCaseSensitive(w, "tree"));
    *control = own && own != (uint64_t)-1 ? own : top;
    return WA_E_OK;
}

static wa_err fake_control_at(int x, int y, uint64_t *control)
{
    uint64_t top = 0;
    fake_scene_window_at(x, y, &top);
    cJSON *w = top ? fake_scene_find_window(top) : NULL;
    cJSON *child =
        w ? fake_scene_child_at(cJSON_GetObjectItemCaseSensitive(w, "tree"), x, y) : NULL;
    *control = child ? fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(child, "hwnd")) : top;
    return WA_E_OK;
}

/* The scene's "clipboard_owner": a window's handle. */
static wa_err fake_clipboard_owner(uint64_t *hwnd)
{
    *hwnd = fake_scene_json_hwnd(
        cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "clipboard_owner"));
    return WA_E_OK;
}

static wa_err fake_monitors(struct wa_monitor *out, size_t max, size_t *count)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "monitors"))
    {
        if (*count >= max)
            break;
        struct wa_monitor *o = &out[(*count)++];
        o->rect = o->work = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(m, "rect"));
        if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(m, "work")))
            o->work = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(m, "work"));
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
    struct wa_rect r = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    struct wa_rect at = {r.left - ox, r.top - oy, r.right - ox, r.bottom - oy};
    const char *file = fake_scene_json_str(w, "image");
    if (file) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s",
                 fake_scene_state.base_dir ? fake_scene_state.base_dir : ".", file);
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
    fill(img, at, parse_color(fake_scene_json_str(w, "color")));
}

static wa_err fake_capture_screen(struct wa_rect r, struct wa_image *out)
{
    wa_err e = image_alloc(out, wa_rect_width(r), wa_rect_height(r), false);
    if (e)
        return e;
    fill(out, (struct wa_rect){0, 0, out->width, out->height},
         parse_color(fake_scene_json_str(fake_scene_state.scene, "desktop_color")
                         ? fake_scene_json_str(fake_scene_state.scene, "desktop_color")
                         : "#3a6ea5"));
    /* Back to front: the list is in Z order, topmost first. */
    cJSON *arr = fake_scene_windows_array();
    for (int i = cJSON_GetArraySize(arr) - 1; i >= 0; i--)
        draw_window(out, cJSON_GetArrayItem(arr, i), r.left, r.top);
    fake_scene_record("capture_screen", NULL);
    return WA_E_OK;
}

static wa_err fake_capture_window(uint64_t hwnd, struct wa_image *out, struct wa_rect *frame)
{
    const cJSON *w = fake_scene_find_window(hwnd);
    if (!w)
        return fake_scene_no_window(hwnd);
    *frame = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    wa_err e = image_alloc(out, wa_rect_width(*frame), wa_rect_height(*frame), false);
    if (!e)
        draw_window(out, w, frame->left, frame->top);
    return e;
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
    fake_scene_record("run_shell", f);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(fake_scene_state.scene, "shell"), command);
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(s, "exit");
    out->exit_code = s ? (cJSON_IsNumber(code) ? code->valueint : 0) : 127;
    out->out = str_dup(s && fake_scene_json_str(s, "out") ? fake_scene_json_str(s, "out") : "");
    out->err = str_dup(s ? (fake_scene_json_str(s, "err") ? fake_scene_json_str(s, "err") : "")
                         : "fake shell: command not scripted\n");
    return out->out && out->err ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

static const struct wa_backend fake_backend = {
    .name = "fake",
    .init = fake_scene_init,
    .shutdown = fake_scene_shutdown,
    .list_windows = fake_list_windows,
    .list_visible_windows = fake_list_visible_windows,
    .window_info = fake_window_info,
    .default_window = fake_default_window,
    .foreground_window = fake_foreground_window,
    .window_at = fake_scene_window_at,
    .focus_window = fake_focus_window,
    .move_window = fake_move_window,
    .set_window_state = fake_set_window_state,
    .close_window = fake_close_window,
    .started_by = fake_started_by,
    .process_parent = fake_process_parent,
    .resolve_program = fake_resolve_program,
    .launch = fake_launch,
    .window_kind = fake_window_kind,
    .focused_control = fake_focused_control,
    .control_at = fake_control_at,
    .clipboard_owner = fake_clipboard_owner,
    .monitors = fake_monitors,
    .system_info = fake_system_info,
    .capture_screen = fake_capture_screen,
    .capture_window = fake_capture_window,
    .mouse_move = fake_input_mouse_move,
    .mouse_button = fake_input_mouse_button,
    .mouse_wheel = fake_input_mouse_wheel,
    .type_text = fake_input_type_text,
    .press_keys = fake_input_press_keys,
    .hold_keys = fake_input_hold_keys,
    .cursor_position = fake_input_cursor_position,
    .watch_person = fake_person_watch,
    .person_idle = fake_person_idle,
    .get_tree = fake_tree_get_tree,
    .find_items = fake_tree_find_items,
    .element_action = fake_tree_element_action,
    .element_value = fake_tree_element_value,
    .element_states = fake_tree_element_states,
    .check_box_point = fake_tree_check_box_point,
    .focused_value = fake_tree_focused_value,
    .post_click = fake_input_post_click,
    .post_wheel = fake_input_post_wheel,
    .post_text = fake_input_post_text,
    .run_shell = fake_run_shell,
    .program_info = fake_program_info,
    .input_reaches = fake_input_reaches,
    .input_handled = fake_input_handled,
};

const struct wa_backend *backend_default(void)
{
    return &fake_backend;
}
