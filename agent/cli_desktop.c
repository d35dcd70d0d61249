/* The desktop subcommands for people and scripts: windows, tree, screenshot, act. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/args.h"
#include "agent/cli.h"
#include "agent/desktop.h"
#include "base/os.h"

int cli_fail(wa_err e)
{
    const char *d = wa_err_detail();
    if (*d)
        fprintf(stderr, "winagent: %s: %s\n", wa_err_message(e), d);
    else
        fprintf(stderr, "winagent: %s\n", wa_err_message(e));
    return EXIT_USAGE;
}

static const struct wa_backend *cli_started; /* set once cli_backend succeeded */

const struct wa_backend *cli_backend(void)
{
    static bool tried;
    if (!tried) {
        tried = true;
        const struct wa_backend *cand = backend_default();
        wa_err e = cand && cand->init ? cand->init() : WA_E_OK;
        if (e)
            cli_fail(e);
        else
            cli_started = cand;
    }
    return cli_started;
}

void cli_shutdown(void)
{
    if (cli_started && cli_started->shutdown)
        cli_started->shutdown();
    cli_started = NULL;
}

static void print_json(cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    if (s) {
        puts(s);
        free(s);
    }
}

/* Resolves --window SEL (NULL: the foreground window that is not our console). */
static wa_err pick_window(const struct wa_backend *b, const char *sel, uint64_t *hwnd)
{
    if (!sel)
        return backend_target_window(b, hwnd);
    struct wa_window w;
    wa_err e = backend_find_window(b, sel, &w);
    *hwnd = w.hwnd;
    wa_window_cleanup(&w);
    return e;
}

int cmd_windows(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    bool json = args_flag(&a, "json", NULL);
    wa_err e = args_check_unknown(&a);
    if (e)
        return cli_fail(e);
    const struct wa_backend *b = cli_backend();
    if (!b)
        return EXIT_USAGE;
    struct wa_window_list l;
    if ((e = backend_list_windows(b, &l)))
        return cli_fail(e);
    if (json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < l.count; i++)
            cJSON_AddItemToArray(arr, desktop_window_json(&l.items[i]));
        print_json(arr);
        cJSON_Delete(arr);
    } else {
        for (size_t i = 0; i < l.count; i++) {
            const struct wa_window *w = &l.items[i];
            printf("0x%-10llx %-22s pid=%-6lu [%d,%d][%d,%d] %s%s \"%s\"\n",
                   (unsigned long long)w->hwnd, w->process, w->pid, w->rect.left, w->rect.top,
                   w->rect.right, w->rect.bottom,
                   w->state == WA_WINDOW_MINIMIZED   ? "minimized"
                   : w->state == WA_WINDOW_MAXIMIZED ? "maximized"
                                                     : "normal",
                   w->foreground ? " foreground" : "", w->title);
        }
    }
    wa_window_list_cleanup(&l);
    return EXIT_OK;
}

static cJSON *tree_json(const struct wa_tree *t, const char *verdict, bool useful)
{
    static const struct {
        unsigned bit;
        const char *word;
    } states[] = {{WA_ST_FOCUSED, "focused"},     {WA_ST_DISABLED, "disabled"},
                  {WA_ST_CHECKED, "checked"},     {WA_ST_EXPANDED, "expanded"},
                  {WA_ST_COLLAPSED, "collapsed"}, {WA_ST_SELECTED, "selected"},
                  {WA_ST_OFFSCREEN, "offscreen"}, {WA_ST_FOCUSABLE, "focusable"}};
    cJSON *o = cJSON_CreateObject();
    char h[24];
    snprintf(h, sizeof h, "0x%llx", (unsigned long long)t->hwnd);
    cJSON *win = cJSON_AddObjectToObject(o, "window");
    cJSON_AddStringToObject(win, "hwnd", h);
    cJSON_AddStringToObject(win, "title", t->title ? t->title : "");
    cJSON_AddStringToObject(win, "process", t->process ? t->process : "");
    int fr[4] = {t->frame.left, t->frame.top, t->frame.right, t->frame.bottom};
    cJSON_AddItemToObject(win, "frame", cJSON_CreateIntArray(fr, 4));
    cJSON_AddStringToObject(o, "source", t->source ? t->source : "");
    cJSON_AddBoolToObject(o, "useful", useful);
    cJSON_AddStringToObject(o, "verdict", verdict);
    cJSON_AddBoolToObject(o, "truncated", t->truncated);
    cJSON_AddBoolToObject(o, "timed_out", t->timed_out);
    cJSON_AddNumberToObject(o, "walk_ms", t->walk_ms);
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (size_t i = 0; i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "id", (double)(i + 1));
        cJSON_AddNumberToObject(j, "parent", n->parent + 1);
        cJSON_AddNumberToObject(j, "depth", n->depth);
        cJSON_AddStringToObject(j, "type", n->type);
        cJSON_AddStringToObject(j, "name", n->name);
        if (n->value)
            cJSON_AddStringToObject(j, "value", n->value);
        int px, py;
        wa_rect_center(wa_rect_empty(n->bounds) ? t->frame : n->bounds, &px, &py);
        int c[2] = {pixel_to_norm(px, t->frame.left, wa_rect_width(t->frame)),
                    pixel_to_norm(py, t->frame.top, wa_rect_height(t->frame))};
        cJSON_AddItemToObject(j, "center", cJSON_CreateIntArray(c, 2));
        int b[4] = {n->bounds.left, n->bounds.top, n->bounds.right, n->bounds.bottom};
        cJSON_AddItemToObject(j, "bounds", cJSON_CreateIntArray(b, 4));
        cJSON *st = cJSON_AddArrayToObject(j, "states");
        for (size_t k = 0; k < sizeof states / sizeof states[0]; k++)
            if (n->states & states[k].bit)
                cJSON_AddItemToArray(st, cJSON_CreateString(states[k].word));
        if (n->automation_id)
            cJSON_AddStringToObject(j, "automation_id", n->automation_id);
        if (n->class_name)
            cJSON_AddStringToObject(j, "class", n->class_name);
        cJSON_AddItemToArray(nodes, j);
    }
    return o;
}

int cmd_tree(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    const char *sel = args_value(&a, "window", "w");
    bool json = args_flag(&a, "json", NULL);
    bool verbose = args_flag(&a, "verbose", "v");
    wa_err e = args_check_unknown(&a);
    if (e)
        return cli_fail(e);
    const struct wa_backend *b = cli_backend();
    if (!b)
        return EXIT_USAGE;
    uint64_t hwnd;
    if ((e = pick_window(b, sel, &hwnd)))
        return cli_fail(e);
    struct wa_tree t;
    struct wa_tree_opts to = {0};
    if ((e = backend_get_tree(b, hwnd, &to, &t)))
        return cli_fail(e);
    char reason[160];
    bool useful = tree_is_useful(&t, reason, sizeof reason);
    char verdict[200];
    snprintf(verdict, sizeof verdict, "tree %s (%s)", useful ? "useful" : "not useful", reason);
    if (json) {
        cJSON *o = tree_json(&t, verdict, useful);
        print_json(o);
        cJSON_Delete(o);
    } else {
        struct dynbuf out;
        dynbuf_init(&out, 16u << 20);
        struct tree_format_opts fo = {.verbose = verbose, .max_depth = -1, .scope = -1};
        e = tree_format(&t, &fo, &out);
        fputs(dynbuf_str(&out), stdout);
        dynbuf_cleanup(&out);
    }
    fprintf(stderr, "%s; %zu nodes from %s in %.0f ms\n", verdict, t.count, t.source, t.walk_ms);
    tree_cleanup(&t);
    return e ? cli_fail(e) : EXIT_OK;
}

int cmd_screenshot(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    const char *sel = args_value(&a, "window", "w");
    int max_edge = args_int(&a, "max-edge", NULL, 0);
    const char *path = args_value(&a, "output", "o");
    wa_err e = args_check_unknown(&a);
    if (!e && !path)
        e = wa_fail(WA_E_USAGE, "screenshot needs -o FILE.png");
    if (!e && max_edge < 0)
        e = wa_fail(WA_E_USAGE, "--max-edge must be positive");
    if (e)
        return cli_fail(e);
    const struct wa_backend *b = cli_backend();
    if (!b)
        return EXIT_USAGE;
    struct wa_image img = {0};
    struct wa_rect frame;
    if (sel) {
        uint64_t hwnd;
        if (!(e = pick_window(b, sel, &hwnd)))
            e = backend_capture_window(b, hwnd, &img, &frame);
    } else if (!(e = backend_virtual_screen(b, &frame))) {
        e = backend_capture_screen(b, frame, &img);
    }
    struct observation obs;
    observation_init(&obs);
    if (!e)
        e = observation_set_image(&obs, &img,
                                  max_edge > 0 ? max_edge
                                               : (img.width > img.height ? img.width : img.height));
    if (!e)
        e = os_write_file(path, obs.png.data, obs.png.len);
    if (!e)
        printf("%s %dx%d frame=[%d,%d][%d,%d] %zu bytes\n", path, obs.width, obs.height, frame.left,
               frame.top, frame.right, frame.bottom, obs.png.len);
    observation_cleanup(&obs);
    image_cleanup(&img);
    return e ? cli_fail(e) : EXIT_OK;
}

int cmd_act(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    const char *sel = args_value(&a, "window", "w");
    const char *png_path = args_value(&a, "output", "o");
    bool dry = args_flag(&a, "dry-run", NULL);
    wa_err e = args_check_unknown(&a);
    const char *json = args_positional(&a, 0);
    if (!e && (!json || args_positional(&a, 1)))
        e = wa_fail(WA_E_USAGE, "act takes one desktop tool call as JSON, e.g. "
                                "winagent act '{\"action\":\"click\",\"x\":500,\"y\":300}'");
    if (e)
        return cli_fail(e);
    const struct wa_backend *b = cli_backend();
    if (!b)
        return EXIT_USAGE;
    struct desktop_opts o;
    desktop_opts_default(&o);
    o.dry_run = dry;
    struct desktop_session s;
    desktop_session_init(&s, b, &o);
    if (sel) {
        uint64_t hwnd;
        if (!(e = pick_window(b, sel, &hwnd)))
            e = desktop_session_use_window(&s, hwnd);
        if (e) {
            /* The same JSON shape as a failed call, so scripts parse one thing. */
            cJSON *j = cJSON_CreateObject();
            cJSON_AddBoolToObject(j, "ok", false);
            cJSON *err = cJSON_AddObjectToObject(j, "error");
            cJSON_AddStringToObject(err, "code", wa_err_code(e));
            cJSON_AddStringToObject(err, "message", wa_err_detail());
            print_json(j);
            cJSON_Delete(j);
            desktop_session_cleanup(&s);
            return EXIT_USAGE;
        }
        s.opts.pinned_window = hwnd;
    }
    struct desktop_result r;
    desktop_result_init(&r);
    e = desktop_call_text(&s, json, &r);
    if (r.obs.kind == OBS_TREE)
        cJSON_AddStringToObject(r.json, "tree", r.obs.text);
    else if (r.obs.kind == OBS_IMAGE) {
        cJSON *img = cJSON_AddObjectToObject(r.json, "image");
        cJSON_AddNumberToObject(img, "width", r.obs.width);
        cJSON_AddNumberToObject(img, "height", r.obs.height);
        cJSON_AddNumberToObject(img, "bytes", (double)r.obs.png.len);
        if (png_path && os_write_file(png_path, r.obs.png.data, r.obs.png.len) == WA_E_OK)
            cJSON_AddStringToObject(img, "path", png_path);
    }
    if (r.obs.kind != OBS_NONE) {
        int f[4] = {r.obs.frame.left, r.obs.frame.top, r.obs.frame.right, r.obs.frame.bottom};
        cJSON_AddItemToObject(r.json, "frame", cJSON_CreateIntArray(f, 4));
        cJSON_AddStringToObject(r.json, "verdict", r.obs.verdict);
    }
    print_json(r.json);
    desktop_result_cleanup(&r);
    desktop_session_cleanup(&s);
    return e ? EXIT_USAGE : EXIT_OK;
}
