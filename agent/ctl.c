/* The command layer for other agents: state with refs that survive between processes,
 * selectors, and every acting command made atomic around its window. */
#include "agent/ctl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/desktop.h"
#include "base/os.h"
#include "base/str.h"

#define FOCUS_TRIES    3
#define WAIT_POLL_MS   250
#define STATE_FILE_MAX (16u << 20)

struct ctl {
    const struct wa_backend *be;
    struct ctl_opts o;
    struct gate *gate;
    char *state_dir;
};

/* ---- the command table ---- */

#define WINDOW_PARAM                                                                               \
    {                                                                                              \
        "window", "string", "Target window: a title or process-name fragment, or a 0x handle.",    \
            false                                                                                  \
    }
#define REF_PARAM(req)                                                                             \
    {                                                                                              \
        "ref", "string",                                                                           \
            "An element: a ref from the last state (3, e3 or @e3) or a selector (#AutomationId, "  \
            ".ClassName, ~wild*card name, Type:Name, or an exact name).",                          \
            req                                                                                    \
    }

static const struct ctl_param p_state[] = {
    WINDOW_PARAM,
    {"interactive", "boolean", "Only interactive elements (focusable or with an action).", false},
    {"compact", "boolean", "Drop unnamed, empty structural elements.", false},
    {"depth", "integer", "Deepest level to show (the window is 0).", false},
    {"scope", "string", "Show only the subtree of this element (ref or selector).", false},
    {"verbose", "boolean", "Add pixel bounds to every element.", false},
};
static const struct ctl_param p_ref[] = {REF_PARAM(true), WINDOW_PARAM};
static const struct ctl_param p_at[] = {
    {"x", "integer", "Screen x in pixels.", true},
    {"y", "integer", "Screen y in pixels.", true},
    WINDOW_PARAM,
};
static const struct ctl_param p_fill[] = {
    REF_PARAM(true), {"text", "string", "The new value.", true}, WINDOW_PARAM};
static const struct ctl_param p_type[] = {
    {"text", "string", "Text to type into the focused control.", true},
    REF_PARAM(false),
    WINDOW_PARAM,
};
static const struct ctl_param p_keys[] = {
    {"keys", "string", "A key combination (ctrl+s, alt+f4, enter) or a sequence ('ctrl+a delete').",
     true},
    WINDOW_PARAM,
};
static const struct ctl_param p_scroll[] = {
    REF_PARAM(false),
    {"direction", "string", "up, down, left or right.", true},
    {"amount", "integer", "Wheel notches (default 3).", false},
    WINDOW_PARAM,
};
static const struct ctl_param p_drag[] = {
    REF_PARAM(true),
    {"x2", "integer", "Screen x to release at, pixels.", true},
    {"y2", "integer", "Screen y to release at, pixels.", true},
    WINDOW_PARAM,
};
static const struct ctl_param p_drag_at[] = {
    {"x1", "integer", "Screen x to press at, pixels.", true},
    {"y1", "integer", "Screen y to press at, pixels.", true},
    {"x2", "integer", "Screen x to release at, pixels.", true},
    {"y2", "integer", "Screen y to release at, pixels.", true},
    WINDOW_PARAM,
};
static const struct ctl_param p_get[] = {
    {"what", "string", "text, value or rect.", true},
    REF_PARAM(true),
    WINDOW_PARAM,
};
static const struct ctl_param p_wait[] = {
    {"seconds", "number", "Seconds to wait (when no condition is given).", false},
    {"visible", "string", "Wait until this element is there and on screen.", false},
    {"enabled", "string", "Wait until this element is there and enabled.", false},
    {"gone", "string", "Wait until this element is gone.", false},
    {"timeout", "number", "Seconds before a condition gives up (default 10).", false},
    WINDOW_PARAM,
};
static const struct ctl_param p_focus[] = {
    {"window", "string", "The window: title or process-name fragment, or a 0x handle.", true}};
static const struct ctl_param p_launch[] = {
    {"command", "string", "A program name (notepad, calc), path or command line.", true}};
static const struct ctl_param p_close[] = {WINDOW_PARAM};
static const struct ctl_param p_find[] = {
    {"selector", "string", "#AutomationId, .ClassName, ~wild*card, Type:Name or an exact name.",
     true},
    {"all", "boolean", "List every match (default: the first).", false},
    WINDOW_PARAM,
};
static const struct ctl_param p_screenshot[] = {
    WINDOW_PARAM,
    {"max_edge", "integer", "Longest edge of the image in pixels (default 1280).", false},
};
static const struct ctl_param p_powershell[] = {
    {"command", "string", "The PowerShell command.", true},
    {"timeout_s", "integer", "Seconds before it is stopped (default 60).", false},
};

enum cmd_kind {
    K_WINDOWS,
    K_STATE,
    K_SCREENSHOT,
    K_CLICK,
    K_DBLCLICK,
    K_RIGHTCLICK,
    K_CLICK_AT,
    K_FILL,
    K_TYPE,
    K_KEYS,
    K_INVOKE,
    K_TOGGLE,
    K_EXPAND,
    K_COLLAPSE,
    K_SELECT,
    K_SCROLL,
    K_DRAG,
    K_DRAG_AT,
    K_GET,
    K_WAIT,
    K_FOCUS,
    K_LAUNCH,
    K_CLOSE,
    K_FIND,
    K_POWERSHELL,
    K__COUNT
};

#define CMD(name, desc, mut, destr, win, params)                                                   \
    {                                                                                              \
        name, desc, mut, destr, win, params, sizeof params / sizeof params[0]                      \
    }
#define CMD0(name, desc, mut, destr, win)                                                          \
    {                                                                                              \
        name, desc, mut, destr, win, NULL, 0                                                       \
    }

static const struct ctl_command commands[K__COUNT] = {
    [K_WINDOWS] = CMD0("windows", "List the top-level windows.", false, false, false),
    [K_STATE] = CMD("state",
                    "The window's elements as a numbered tree; the numbers are refs "
                    "for the other commands until the next state.",
                    false, false, false, p_state),
    [K_SCREENSHOT] = CMD("screenshot",
                         "A PNG of the window (or the screen), with the scale "
                         "and origin that map image pixels to screen pixels.",
                         false, false, false, p_screenshot),
    [K_CLICK] = CMD("click", "Click an element.", true, false, true, p_ref),
    [K_DBLCLICK] = CMD("dblclick", "Double-click an element.", true, false, true, p_ref),
    [K_RIGHTCLICK] = CMD("rightclick", "Right-click an element.", true, false, true, p_ref),
    [K_CLICK_AT] = CMD("click-at", "Click at screen pixels.", true, false, true, p_at),
    [K_FILL] = CMD("fill", "Replace an element's text.", true, false, true, p_fill),
    [K_TYPE] =
        CMD("type", "Type text into the focused control (or into ref).", true, false, true, p_type),
    [K_KEYS] = CMD("keys", "Press a key combination or sequence.", true, true, true, p_keys),
    [K_INVOKE] =
        CMD("invoke", "Invoke an element (buttons, menu items).", true, false, true, p_ref),
    [K_TOGGLE] = CMD("toggle", "Toggle a check box.", true, false, true, p_ref),
    [K_EXPAND] = CMD("expand", "Expand a combo box, menu or tree item.", true, false, true, p_ref),
    [K_COLLAPSE] = CMD("collapse", "Collapse an element.", true, false, true, p_ref),
    [K_SELECT] = CMD("select", "Select a list, combo or tab item.", true, false, true, p_ref),
    [K_SCROLL] = CMD("scroll", "Scroll an element (or the window).", true, false, true, p_scroll),
    [K_DRAG] = CMD("drag", "Drag an element to screen pixels.", true, false, true, p_drag),
    [K_DRAG_AT] = CMD("drag-at", "Drag between screen pixels.", true, false, true, p_drag_at),
    [K_GET] = CMD("get", "Read an element's text, value or rect.", false, false, false, p_get),
    [K_WAIT] = CMD("wait", "Wait some seconds, or until an element is visible, enabled or gone.",
                   false, false, false, p_wait),
    [K_FOCUS] =
        CMD("focus", "Bring a window to the front (verified).", true, false, false, p_focus),
    [K_LAUNCH] =
        CMD("launch", "Start a program and return its window.", true, false, false, p_launch),
    [K_CLOSE] = CMD("close", "Close a window (it may ask to save).", true, true, false, p_close),
    [K_FIND] = CMD("find", "Find elements by selector.", false, false, false, p_find),
    [K_POWERSHELL] = CMD("powershell", "Run a PowerShell command (only with --allow-shell).", true,
                         true, false, p_powershell),
};

const struct ctl_command *ctl_commands(const struct ctl *c, size_t *count)
{
    *count = c && c->o.allow_shell ? K__COUNT : K__COUNT - 1;
    return commands;
}

const struct ctl_command *ctl_find_command(const struct ctl *c, const char *name)
{
    size_t n;
    const struct ctl_command *all = ctl_commands(c, &n);
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    return NULL;
}

/* ---- lifetime ---- */

wa_err ctl_new(const struct wa_backend *be, const struct ctl_opts *o, struct ctl **out)
{
    *out = NULL;
    struct ctl *c = calloc(1, sizeof *c);
    if (!c)
        return wa_fail(WA_E_NOMEM, "out of memory");
    c->be = be;
    if (o)
        c->o = *o;
    struct gate_opts go = c->o.gate;
    go.dry_run = go.dry_run || c->o.dry_run;
    wa_err e = gate_new(&go, &c->gate);
    if (!e) {
        if (c->o.state_dir)
            c->state_dir = str_dup(c->o.state_dir);
        else if (!(c->state_dir = os_getenv("WINAGENT_STATE_DIR"))) {
            char *tmp = os_temp_dir();
            size_t n = (tmp ? strlen(tmp) : 1) + 32;
            c->state_dir = malloc(n);
            if (c->state_dir)
                snprintf(c->state_dir, n, "%s/winagent-state", tmp ? tmp : ".");
            free(tmp);
        }
        if (!c->state_dir)
            e = wa_fail(WA_E_NOMEM, "out of memory");
    }
    c->o.state_dir = NULL;
    if (e) {
        ctl_free(c);
        return e;
    }
    *out = c;
    return WA_E_OK;
}

void ctl_free(struct ctl *c)
{
    if (!c)
        return;
    gate_free(c->gate);
    free(c->state_dir);
    free(c);
}

void ctl_result_init(struct ctl_result *r)
{
    memset(r, 0, sizeof *r);
    dynbuf_init(&r->png, 64u << 20);
}

void ctl_result_cleanup(struct ctl_result *r)
{
    cJSON_Delete(r->data);
    cJSON_Delete(r->window_state);
    dynbuf_cleanup(&r->png);
    ctl_result_init(r);
}

cJSON *ctl_result_json(const struct ctl_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "success", r->success);
    if (r->success) {
        cJSON_AddItemToObject(j, "data",
                              r->data ? cJSON_Duplicate(r->data, 1) : cJSON_CreateNull());
    } else {
        cJSON *err = cJSON_AddObjectToObject(j, "error");
        cJSON_AddStringToObject(err, "code", wa_err_code(r->err));
        cJSON_AddStringToObject(err, "message", r->message);
    }
    if (r->window_state)
        cJSON_AddItemToObject(j, "window_state", cJSON_Duplicate(r->window_state, 1));
    return j;
}

/* ---- parameters ---- */

struct call {
    struct ctl *c;
    const cJSON *p;
    struct ctl_result *r;
    enum cmd_kind kind;
    uint64_t hwnd;             /* the window the command works on, once known */
    struct desktop_session ds; /* pinned to hwnd; its tree is the fresh one */
    bool have_ds;
};

static const cJSON *param(const struct call *k, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(k->p, name);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

static const char *param_str(const struct call *k, const char *name)
{
    const cJSON *v = param(k, name);
    if (cJSON_IsString(v))
        return v->valuestring;
    return NULL;
}

static bool param_bool(const struct call *k, const char *name, bool def)
{
    const cJSON *v = param(k, name);
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v);
    if (cJSON_IsString(v))
        return str_ieq(v->valuestring, "true") || strcmp(v->valuestring, "1") == 0;
    if (cJSON_IsNumber(v))
        return v->valuedouble != 0;
    return def;
}

/* A number (or numeric string); WA_E_INVALID_ARGS when present but not a number. */
static wa_err param_num(const struct call *k, const char *name, bool required, double def,
                        double *out)
{
    const cJSON *v = param(k, name);
    *out = def;
    if (!v)
        return required ? wa_fail(WA_E_INVALID_ARGS, "missing \"%s\"", name) : WA_E_OK;
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return WA_E_OK;
    }
    if (cJSON_IsString(v)) {
        char *end;
        double d = strtod(v->valuestring, &end);
        if (end != v->valuestring && *end == '\0' && isfinite(d)) {
            *out = d;
            return WA_E_OK;
        }
    }
    return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be a number", name);
}

static wa_err param_int(const struct call *k, const char *name, bool required, int def, int *out)
{
    double d;
    wa_err e = param_num(k, name, required, def, &d);
    if (!e && (d > 1e9 || d < -1e9))
        e = wa_fail(WA_E_INVALID_ARGS, "\"%s\" is out of range", name);
    *out = e ? def : (int)lround(d);
    return e;
}

/* ---- refs: what `state` saw, kept per window in a small file ---- */

static void state_path(const struct ctl *c, uint64_t hwnd, char *out, size_t n)
{
    if (hwnd)
        snprintf(out, n, "%s/refs-%llx.json", c->state_dir, (unsigned long long)hwnd);
    else
        snprintf(out, n, "%s/last.json", c->state_dir);
}

/* The child-index path of node i from the root ("0.2.1"). */
static void node_path(const struct wa_tree *t, size_t i, char *out, size_t n)
{
    int chain[64], depth = 0;
    for (int at = (int)i; at >= 0 && depth < 64; at = t->nodes[at].parent) {
        int parent = t->nodes[at].parent, pos = 0;
        for (int s = parent + 1; s < at; s++)
            if (t->nodes[s].parent == parent)
                pos++;
        chain[depth++] = pos;
    }
    size_t len = 0;
    out[0] = '\0';
    for (int d = depth - 1; d >= 0 && len < n; d--)
        len += (size_t)snprintf(out + len, n - len, d == depth - 1 ? "%d" : ".%d", chain[d]);
}

static cJSON *element_record(const struct wa_tree *t, size_t i)
{
    const struct wa_node *nd = &t->nodes[i];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "id", (double)(i + 1));
    cJSON_AddStringToObject(e, "type", nd->type);
    cJSON_AddStringToObject(e, "name", nd->name);
    if (nd->automation_id)
        cJSON_AddStringToObject(e, "automation_id", nd->automation_id);
    if (nd->class_name)
        cJSON_AddStringToObject(e, "class", nd->class_name);
    if (nd->runtime_id)
        cJSON_AddStringToObject(e, "runtime_id", nd->runtime_id);
    int b[4] = {nd->bounds.left, nd->bounds.top, nd->bounds.right, nd->bounds.bottom};
    cJSON_AddItemToObject(e, "bounds", cJSON_CreateIntArray(b, 4));
    char path[256];
    node_path(t, i, path, sizeof path);
    cJSON_AddStringToObject(e, "path", path);
    return e;
}

/* Saves the tree's elements as the refs of its window, and marks it the last window. */
static wa_err save_refs(struct ctl *c, const struct wa_tree *t)
{
    wa_err e = os_mkdir_p(c->state_dir);
    if (e)
        return e;
    cJSON *doc = cJSON_CreateObject();
    char h[24];
    snprintf(h, sizeof h, "0x%llx", (unsigned long long)t->hwnd);
    cJSON_AddStringToObject(doc, "hwnd", h);
    cJSON_AddStringToObject(doc, "title", t->title ? t->title : "");
    cJSON_AddNumberToObject(doc, "time", (double)os_time_ms());
    cJSON *els = cJSON_AddArrayToObject(doc, "elements");
    for (size_t i = 0; i < t->count; i++)
        cJSON_AddItemToArray(els, element_record(t, i));
    char *text = cJSON_PrintUnformatted(doc);
    char path[4096];
    state_path(c, t->hwnd, path, sizeof path);
    e = text ? os_write_file(path, text, strlen(text)) : wa_fail(WA_E_NOMEM, "out of memory");
    free(text);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "elements");
    text = cJSON_PrintUnformatted(doc);
    state_path(c, 0, path, sizeof path);
    if (!e && text)
        e = os_write_file(path, text, strlen(text));
    free(text);
    cJSON_Delete(doc);
    return e;
}

static cJSON *load_json_file(const char *path)
{
    char *text = NULL;
    if (os_read_file(path, STATE_FILE_MAX, &text, NULL) != WA_E_OK)
        return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

/* The window of the last `state`, or 0. */
static uint64_t last_state_window(struct ctl *c)
{
    char path[4096];
    state_path(c, 0, path, sizeof path);
    cJSON *j = load_json_file(path);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "hwnd");
    uint64_t hwnd = cJSON_IsString(h) ? strtoull(h->valuestring, NULL, 16) : 0;
    cJSON_Delete(j);
    return hwnd;
}

/* "3", "e3", "@e3", "@3" -> 3; 0 when text is not a ref (then it is a selector). */
static int parse_ref(const char *text)
{
    const char *p = text;
    if (*p == '@')
        p++;
    if (*p == 'e' || *p == 'E')
        p++;
    if (*p < '1' || *p > '9')
        return 0;
    char *end;
    long n = strtol(p, &end, 10);
    return *end == '\0' && n > 0 && n < 1000000 ? (int)n : 0;
}

static bool same_str(const cJSON *rec, const char *field, const char *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, field);
    if (!cJSON_IsString(v))
        return !value || !*value;
    return value && strcmp(v->valuestring, value) == 0;
}

static double centre_distance(const cJSON *rec, struct wa_rect b)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(rec, "bounds");
    if (cJSON_GetArraySize(r) != 4)
        return 1e9;
    double rx = (cJSON_GetArrayItem(r, 0)->valuedouble + cJSON_GetArrayItem(r, 2)->valuedouble) / 2;
    double ry = (cJSON_GetArrayItem(r, 1)->valuedouble + cJSON_GetArrayItem(r, 3)->valuedouble) / 2;
    double nx = (b.left + b.right) / 2.0, ny = (b.top + b.bottom) / 2.0;
    return hypot(rx - nx, ry - ny);
}

/* Finds the element a saved record describes in a fresh tree: by runtime id, else by
 * path with the same type and name, else by type, name and automation id (the nearest
 * when several, if clearly nearest). stale_ref when gone or ambiguous. */
static wa_err refind(const cJSON *rec, const struct wa_tree *t, int ref, size_t *index)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(rec, "type");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(rec, "name");
    const char *ty = cJSON_IsString(type) ? type->valuestring : "";
    const char *nm = cJSON_IsString(name) ? name->valuestring : "";
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(rec, "runtime_id");
    for (size_t i = 0; cJSON_IsString(rid) && i < t->count; i++)
        if (t->nodes[i].runtime_id && strcmp(t->nodes[i].runtime_id, rid->valuestring) == 0) {
            *index = i;
            return WA_E_OK;
        }
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(rec, "path");
    char p[256];
    for (size_t i = 0; cJSON_IsString(path) && i < t->count; i++) {
        if (strcmp(t->nodes[i].type, ty) != 0 || strcmp(t->nodes[i].name, nm) != 0)
            continue;
        node_path(t, i, p, sizeof p);
        if (strcmp(p, path->valuestring) == 0) {
            *index = i;
            return WA_E_OK;
        }
    }
    size_t best = 0, count = 0;
    double best_d = 1e18, second_d = 1e18;
    for (size_t i = 0; i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        if (strcmp(n->type, ty) != 0 || strcmp(n->name, nm) != 0 ||
            !same_str(rec, "automation_id", n->automation_id))
            continue;
        count++;
        double d = centre_distance(rec, n->bounds);
        if (d < best_d) {
            second_d = best_d;
            best_d = d;
            best = i;
        } else if (d < second_d) {
            second_d = d;
        }
    }
    if (count == 1 || (count > 1 && best_d < 8 && second_d > 3 * best_d + 8)) {
        *index = best;
        return WA_E_OK;
    }
    if (count > 1)
        return wa_fail(WA_E_STALE_REF,
                       "ref %d (%s \"%s\") is ambiguous now: %zu elements like it; run state "
                       "again",
                       ref, ty, nm, count);
    return wa_fail(WA_E_STALE_REF, "ref %d (%s \"%s\") is gone; run state again", ref, ty, nm);
}

/* ---- selectors ---- */

static bool node_matches(const struct wa_node *n, const char *sel)
{
    if (sel[0] == '#')
        return n->automation_id && strcmp(n->automation_id, sel + 1) == 0;
    if (sel[0] == '.')
        return n->class_name && str_ieq(n->class_name, sel + 1);
    if (sel[0] == '~')
        return str_wildcard(sel + 1, n->name);
    const char *colon = strchr(sel, ':');
    if (colon && colon > sel) {
        size_t tl = (size_t)(colon - sel);
        if (strlen(n->type) == tl && strncmp(n->type, sel, tl) == 0)
            return strcmp(n->name, colon + 1) == 0;
        /* "Name:" labels contain colons too: fall through to the exact name. */
    }
    return strcmp(n->name, sel) == 0;
}

/* ---- the window and its fresh tree ---- */

static wa_err find_window_by_sel(struct call *k, const char *sel, uint64_t *hwnd)
{
    struct wa_window w;
    wa_err e = backend_find_window(k->c->be, sel, &w);
    *hwnd = w.hwnd;
    wa_window_cleanup(&w);
    return e;
}

/* The command's window: "window", else (for refs) the last state's, else the
 * foreground window that is not our console. */
static wa_err pick_window(struct call *k, bool prefer_last_state)
{
    if (k->hwnd)
        return WA_E_OK;
    const char *sel = param_str(k, "window");
    if (sel)
        return find_window_by_sel(k, sel, &k->hwnd);
    if (prefer_last_state) {
        uint64_t last = last_state_window(k->c);
        struct wa_window w;
        if (last) {
            if (backend_window_info(k->c->be, last, &w) != WA_E_OK)
                return wa_fail(WA_E_STALE_REF,
                               "the window of the last state (0x%llx) is gone; "
                               "run state again",
                               (unsigned long long)last);
            wa_window_cleanup(&w);
            k->hwnd = last;
            return WA_E_OK;
        }
    }
    return backend_target_window(k->c->be, &k->hwnd);
}

/* Walks the window's tree (with handles) into the call's desktop session. */
static wa_err fresh_tree(struct call *k)
{
    if (k->have_ds && k->ds.have_tree)
        return WA_E_OK;
    if (!k->have_ds) {
        struct desktop_opts o;
        desktop_opts_default(&o);
        o.pinned_window = k->hwnd;
        o.dry_run = gate_dry_run(k->c->gate);
        desktop_session_init(&k->ds, k->c->be, &o);
        k->have_ds = true;
    }
    struct wa_tree_opts to = {.keep_handles = true};
    tree_cleanup(&k->ds.tree);
    wa_err e = backend_get_tree(k->c->be, k->hwnd, &to, &k->ds.tree);
    if (e)
        return e;
    k->ds.have_tree = true;
    k->ds.frame = k->ds.tree.frame;
    k->ds.have_frame = true;
    k->ds.target = k->hwnd;
    return WA_E_OK;
}

/* Resolves a ref or selector to a node index of the fresh tree. */
static wa_err resolve_element(struct call *k, const char *text, size_t *index)
{
    if (!text || !*text)
        return wa_fail(WA_E_INVALID_ARGS, "missing \"ref\" (a ref from state or a selector)");
    int ref = parse_ref(text);
    wa_err e = pick_window(k, ref != 0);
    if (e == WA_E_WINDOW_NOT_FOUND && ref)
        e = wa_fail(WA_E_STALE_REF, "the window of ref %d is gone; run state again", ref);
    if (!e)
        e = fresh_tree(k);
    if (e)
        return e;
    if (ref) {
        char path[4096];
        state_path(k->c, k->hwnd, path, sizeof path);
        cJSON *doc = load_json_file(path);
        if (!doc)
            return wa_fail(WA_E_STALE_REF,
                           "no state of this window to take ref %d from; run "
                           "state first",
                           ref);
        const cJSON *rec = NULL, *el;
        cJSON_ArrayForEach(el, cJSON_GetObjectItemCaseSensitive(doc, "elements"))
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(el, "id");
            if (cJSON_IsNumber(id) && id->valueint == ref) {
                rec = el;
                break;
            }
        }
        e = rec ? refind(rec, &k->ds.tree, ref, index)
                : wa_fail(WA_E_STALE_REF, "ref %d was not in the last state", ref);
        cJSON_Delete(doc);
        return e;
    }
    size_t found = 0, first = 0;
    for (size_t i = 0; i < k->ds.tree.count; i++)
        if (node_matches(&k->ds.tree.nodes[i], text) && found++ == 0)
            first = i;
    if (found == 0)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element matches '%s'", text);
    if (found > 1)
        return wa_fail(WA_E_AMBIGUOUS,
                       "'%s' matches %zu elements; use find to list them and "
                       "pick a ref",
                       text, found);
    *index = first;
    return WA_E_OK;
}

static const char *ref_param(const struct call *k)
{
    const char *r = param_str(k, "ref");
    if (!r)
        r = param_str(k, "selector");
    const cJSON *n = param(k, "ref");
    static _Thread_local char buf[24];
    if (!r && cJSON_IsNumber(n)) {
        snprintf(buf, sizeof buf, "%d", n->valueint);
        r = buf;
    }
    return r;
}

/* ---- atomic acting: focus, verify, act, verify ---- */

static bool is_foreground(struct call *k)
{
    struct wa_window w;
    if (backend_window_info(k->c->be, k->hwnd, &w) != WA_E_OK)
        return false;
    bool fg = w.foreground;
    wa_window_cleanup(&w);
    return fg;
}

/* Brings the window to the front and checks it got there, up to FOCUS_TRIES times. */
static wa_err focus_verified(struct call *k)
{
    wa_err e = WA_E_OK;
    for (int i = 0; i < FOCUS_TRIES; i++) {
        if (is_foreground(k))
            return WA_E_OK;
        e = backend_focus_window(k->c->be, k->hwnd);
        if (e == WA_E_WINDOW_NOT_FOUND)
            return e;
        if (is_foreground(k))
            return WA_E_OK;
        os_sleep_ms(50);
    }
    return e ? e
             : wa_fail(WA_E_FOCUS_FAILED, "window 0x%llx did not stay in front",
                       (unsigned long long)k->hwnd);
}

/* Runs one desktop-tool call on the fresh session (input reaches k->hwnd). */
static wa_err desktop(struct call *k, cJSON *args)
{
    struct desktop_result dr;
    desktop_result_init(&dr);
    if (!k->have_ds) {
        wa_err e = fresh_tree(k);
        if (e) {
            cJSON_Delete(args);
            return e;
        }
    }
    wa_err e = desktop_call(&k->ds, args, &dr);
    const cJSON *via = cJSON_GetObjectItemCaseSensitive(dr.json, "via");
    if (!e && cJSON_IsString(via))
        cJSON_AddStringToObject(k->r->data, "via", via->valuestring);
    desktop_result_cleanup(&dr);
    cJSON_Delete(args);
    return e;
}

static cJSON *element_args(const char *action, size_t index)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "action", action);
    cJSON_AddNumberToObject(a, "element", (double)(index + 1));
    return a;
}

static void describe_element(struct call *k, size_t index)
{
    const struct wa_node *n = &k->ds.tree.nodes[index];
    cJSON *e = cJSON_AddObjectToObject(k->r->data, "element");
    cJSON_AddNumberToObject(e, "ref", (double)(index + 1));
    cJSON_AddStringToObject(e, "type", n->type);
    cJSON_AddStringToObject(e, "name", n->name);
}

/* ---- commands ---- */

static wa_err do_windows(struct call *k)
{
    struct wa_window_list l;
    wa_err e = backend_list_windows(k->c->be, &l);
    if (e)
        return e;
    cJSON *arr = cJSON_AddArrayToObject(k->r->data, "windows");
    for (size_t i = 0; i < l.count; i++)
        cJSON_AddItemToArray(arr, desktop_window_json(&l.items[i]));
    wa_window_list_cleanup(&l);
    return WA_E_OK;
}

static wa_err do_state(struct call *k)
{
    wa_err e = pick_window(k, false);
    if (!e)
        e = fresh_tree(k);
    if (e)
        return e;
    struct tree_format_opts fo = {
        .verbose = param_bool(k, "verbose", false),
        .interactive_only = param_bool(k, "interactive", false),
        .compact = param_bool(k, "compact", false),
        .max_depth = -1,
        .scope = -1,
    };
    if ((e = param_int(k, "depth", false, -1, &fo.max_depth)))
        return e;
    const char *scope = param_str(k, "scope");
    if (scope) {
        size_t idx;
        /* The scope is resolved against the previous state's refs, then replaced. */
        if ((e = resolve_element(k, scope, &idx)))
            return e;
        fo.scope = (int)idx;
    }
    struct dynbuf text;
    dynbuf_init(&text, 16u << 20);
    e = tree_format(&k->ds.tree, &fo, &text);
    if (!e)
        e = save_refs(k->c, &k->ds.tree);
    if (!e) {
        cJSON_AddStringToObject(k->r->data, "tree", dynbuf_str(&text));
        char reason[160];
        bool useful = tree_is_useful(&k->ds.tree, reason, sizeof reason);
        cJSON_AddBoolToObject(k->r->data, "useful", useful);
        cJSON_AddStringToObject(k->r->data, "verdict", reason);
        cJSON_AddNumberToObject(k->r->data, "count", (double)k->ds.tree.count);
        cJSON *els = cJSON_AddArrayToObject(k->r->data, "elements");
        for (size_t i = 0; i < k->ds.tree.count; i++) {
            cJSON *rec = element_record(&k->ds.tree, i);
            cJSON_DeleteItemFromObjectCaseSensitive(rec, "path");
            cJSON_AddNumberToObject(rec, "depth", k->ds.tree.nodes[i].depth);
            cJSON_AddItemToArray(els, rec);
        }
    }
    dynbuf_cleanup(&text);
    return e;
}

/* A PNG of the window (or, without one, the whole virtual screen) into r->png. */
static wa_err capture_png(struct call *k, bool whole_screen, int max_edge)
{
    struct wa_image img = {0};
    struct wa_rect frame;
    wa_err e;
    if (whole_screen) {
        if ((e = backend_virtual_screen(k->c->be, &frame)))
            return e;
        e = backend_capture_screen(k->c->be, frame, &img);
    } else {
        e = backend_capture_window(k->c->be, k->hwnd, &img, &frame);
    }
    if (e)
        return e;
    struct observation obs;
    observation_init(&obs);
    e = observation_set_image(&obs, &img, max_edge > 0 ? max_edge : 1280);
    if (!e) {
        dynbuf_reset(&k->r->png);
        e = dynbuf_add(&k->r->png, obs.png.data, obs.png.len);
        k->r->scale = img.width > 0 ? (double)obs.width / img.width : 1.0;
        k->r->origin_x = frame.left;
        k->r->origin_y = frame.top;
        cJSON *im = cJSON_AddObjectToObject(k->r->data, "image");
        cJSON_AddNumberToObject(im, "width", obs.width);
        cJSON_AddNumberToObject(im, "height", obs.height);
        cJSON_AddNumberToObject(im, "scale", k->r->scale);
        int o[2] = {frame.left, frame.top};
        cJSON_AddItemToObject(im, "origin", cJSON_CreateIntArray(o, 2));
        cJSON_AddStringToObject(im, "mapping", "screen = origin + image_pixel / scale");
    }
    observation_cleanup(&obs);
    image_cleanup(&img);
    return e;
}

static wa_err do_screenshot(struct call *k)
{
    int max_edge;
    wa_err e = param_int(k, "max_edge", false, 1280, &max_edge);
    bool screen = !param_str(k, "window");
    if (!e && !screen)
        e = pick_window(k, false);
    return e ? e : capture_png(k, screen, max_edge);
}

static const char *element_action_name(enum cmd_kind kind)
{
    switch (kind) {
    case K_CLICK:
        return "click";
    case K_DBLCLICK:
        return "double_click";
    case K_RIGHTCLICK:
        return "right_click";
    case K_INVOKE:
        return "invoke";
    case K_TOGGLE:
        return "toggle";
    case K_EXPAND:
        return "expand";
    case K_COLLAPSE:
        return "collapse";
    case K_SELECT:
        return "select";
    default:
        return NULL;
    }
}

/* Everything that acts; the window is already focused and verified (unless dry-run). */
static wa_err act(struct call *k, bool dry, const size_t *element)
{
    const char *name = element_action_name(k->kind);
    if (name)
        return dry ? WA_E_OK : desktop(k, element_args(name, *element));
    const struct wa_backend *be = k->c->be;
    int x, y, x2, y2;
    wa_err e;
    switch (k->kind) {
    case K_CLICK_AT:
        if ((e = param_int(k, "x", true, 0, &x)) || (e = param_int(k, "y", true, 0, &y)))
            return e;
        return dry ? WA_E_OK : backend_click(be, x, y, WA_BUTTON_LEFT, 1);
    case K_DRAG_AT:
        if ((e = param_int(k, "x1", true, 0, &x)) || (e = param_int(k, "y1", true, 0, &y)) ||
            (e = param_int(k, "x2", true, 0, &x2)) || (e = param_int(k, "y2", true, 0, &y2)))
            return e;
        return dry ? WA_E_OK : backend_drag(be, x, y, x2, y2);
    case K_DRAG: {
        if ((e = param_int(k, "x2", true, 0, &x2)) || (e = param_int(k, "y2", true, 0, &y2)))
            return e;
        wa_rect_center(k->ds.tree.nodes[*element].bounds, &x, &y);
        return dry ? WA_E_OK : backend_drag(be, x, y, x2, y2);
    }
    case K_FILL: {
        cJSON *a = element_args("set_value", *element);
        const char *text = param_str(k, "text");
        if (!text) {
            cJSON_Delete(a);
            return wa_fail(WA_E_INVALID_ARGS, "fill needs \"text\"");
        }
        cJSON_AddStringToObject(a, "value", text);
        if (dry) {
            cJSON_Delete(a);
            return WA_E_OK;
        }
        return desktop(k, a);
    }
    case K_TYPE: {
        const char *text = param_str(k, "text");
        if (!text)
            return wa_fail(WA_E_INVALID_ARGS, "type needs \"text\"");
        cJSON *a = element ? element_args("type", *element) : cJSON_CreateObject();
        if (!element)
            cJSON_AddStringToObject(a, "action", "type");
        cJSON_AddStringToObject(a, "text", text);
        if (dry) {
            cJSON_Delete(a);
            return WA_E_OK;
        }
        return desktop(k, a);
    }
    case K_KEYS: {
        const char *keys = param_str(k, "keys");
        struct wa_key_combo combos[16];
        size_t n;
        if (!keys)
            return wa_fail(WA_E_INVALID_ARGS, "keys needs \"keys\", e.g. ctrl+s");
        if ((e = keys_parse_sequence(keys, combos, 16, &n)))
            return e;
        for (size_t i = 0; !dry && !e && i < n; i++)
            e = backend_press_keys(be, &combos[i]);
        return e;
    }
    case K_SCROLL: {
        const char *dir = param_str(k, "direction");
        int amount;
        if (!dir)
            return wa_fail(WA_E_INVALID_ARGS, "scroll needs \"direction\" (up, down, left, right)");
        if ((e = param_int(k, "amount", false, 3, &amount)))
            return e;
        cJSON *a = element ? element_args("scroll", *element) : cJSON_CreateObject();
        if (!element)
            cJSON_AddStringToObject(a, "action", "scroll");
        cJSON_AddStringToObject(a, "direction", dir);
        cJSON_AddNumberToObject(a, "amount", amount);
        if (dry) {
            cJSON_Delete(a);
            return WA_E_OK;
        }
        return desktop(k, a);
    }
    default:
        return wa_fail(WA_E_INVALID_ARGS, "not an acting command");
    }
}

static bool needs_element(enum cmd_kind kind)
{
    return element_action_name(kind) || kind == K_FILL || kind == K_DRAG;
}

static wa_err do_acting(struct call *k)
{
    size_t element = 0;
    bool have_element = false;
    const char *ref = ref_param(k);
    wa_err e;
    if (needs_element(k->kind) || ref) {
        if ((e = resolve_element(k, ref, &element)))
            return e;
        have_element = true;
        describe_element(k, element);
    } else if ((e = pick_window(k, false))) {
        return e;
    }
    if ((e = gate_check(k->c->gate, k->c->be, commands[k->kind].name, k->hwnd)))
        return e;
    bool dry = gate_dry_run(k->c->gate);
    if (dry) {
        cJSON_AddBoolToObject(k->r->data, "dry_run", true);
        return act(k, true, have_element ? &element : NULL);
    }
    if ((e = focus_verified(k)))
        return e;
    e = act(k, false, have_element ? &element : NULL);
    if (!e)
        cJSON_AddBoolToObject(k->r->data, "focus_held", is_foreground(k));
    return e;
}

static wa_err do_get(struct call *k)
{
    const char *what = param_str(k, "what");
    size_t i;
    wa_err e = resolve_element(k, ref_param(k), &i);
    if (e)
        return e;
    const struct wa_node *n = &k->ds.tree.nodes[i];
    describe_element(k, i);
    if (str_ieq(what, "text"))
        cJSON_AddStringToObject(k->r->data, "text", n->value && !*n->name ? n->value : n->name);
    else if (str_ieq(what, "value"))
        cJSON_AddItemToObject(k->r->data, "value",
                              n->value ? cJSON_CreateString(n->value) : cJSON_CreateNull());
    else if (str_ieq(what, "rect")) {
        int b[4] = {n->bounds.left, n->bounds.top, n->bounds.right, n->bounds.bottom};
        cJSON_AddItemToObject(k->r->data, "rect", cJSON_CreateIntArray(b, 4));
    } else
        return wa_fail(WA_E_INVALID_ARGS, "get takes text, value or rect");
    return WA_E_OK;
}

/* Polls a condition on an element until it holds or the timeout passes. */
static wa_err do_wait(struct call *k)
{
    static const char *const conds[] = {"visible", "enabled", "gone"};
    const char *cond = NULL, *ref = NULL;
    for (int i = 0; i < 3 && !cond; i++)
        if ((ref = param_str(k, conds[i])))
            cond = conds[i];
    double secs, timeout;
    wa_err e = param_num(k, "seconds", false, 1.0, &secs);
    if (!e)
        e = param_num(k, "timeout", false, 10.0, &timeout);
    if (e)
        return e;
    if (!cond) {
        if (secs < 0 || secs > 300)
            return wa_fail(WA_E_INVALID_ARGS, "wait takes 0-300 seconds");
        cJSON_AddNumberToObject(k->r->data, "waited_s", secs);
        return os_sleep_ms((int)(secs * 1000));
    }
    int64_t end = os_now_ms() + (int64_t)(timeout * 1000);
    for (;;) {
        size_t i;
        k->ds.have_tree = false; /* a fresh tree every poll */
        e = resolve_element(k, ref, &i);
        bool holds;
        if (strcmp(cond, "gone") == 0)
            holds =
                e == WA_E_STALE_REF || e == WA_E_ELEMENT_NOT_FOUND || e == WA_E_WINDOW_NOT_FOUND;
        else if (e)
            holds = false;
        else if (strcmp(cond, "visible") == 0)
            holds = !(k->ds.tree.nodes[i].states & WA_ST_OFFSCREEN) &&
                    !wa_rect_empty(k->ds.tree.nodes[i].bounds);
        else
            holds = !(k->ds.tree.nodes[i].states & WA_ST_DISABLED);
        if (e && e != WA_E_STALE_REF && e != WA_E_ELEMENT_NOT_FOUND && !holds)
            return e;
        if (holds) {
            cJSON_AddStringToObject(k->r->data, "condition", cond);
            return WA_E_OK;
        }
        if (os_now_ms() >= end)
            return wa_fail(WA_E_TIMEOUT, "'%s' did not become %s within %.1f s", ref, cond,
                           timeout);
        if ((e = os_sleep_ms(WAIT_POLL_MS)))
            return e;
    }
}

static wa_err do_window_command(struct call *k)
{
    wa_err e;
    if (k->kind == K_LAUNCH) {
        const char *cmd = param_str(k, "command");
        if (!cmd)
            return wa_fail(WA_E_INVALID_ARGS, "launch needs \"command\"");
        if ((e = gate_check(k->c->gate, k->c->be, "launch", 0)))
            return e;
        if (gate_dry_run(k->c->gate)) {
            cJSON_AddBoolToObject(k->r->data, "dry_run", true);
            return WA_E_OK;
        }
        if ((e = backend_launch(k->c->be, cmd, 10000, &k->hwnd)))
            return e;
        struct wa_window w;
        if (k->hwnd && backend_window_info(k->c->be, k->hwnd, &w) == WA_E_OK) {
            cJSON_AddItemToObject(k->r->data, "window", desktop_window_json(&w));
            wa_window_cleanup(&w);
        }
        return WA_E_OK;
    }
    if (k->kind == K_FOCUS && !param_str(k, "window"))
        return wa_fail(WA_E_INVALID_ARGS, "focus needs a window (title, process or 0x handle)");
    if ((e = pick_window(k, k->kind == K_CLOSE)))
        return e;
    if ((e = gate_check(k->c->gate, k->c->be, commands[k->kind].name, k->hwnd)))
        return e;
    if (gate_dry_run(k->c->gate)) {
        cJSON_AddBoolToObject(k->r->data, "dry_run", true);
        return WA_E_OK;
    }
    if (k->kind == K_FOCUS)
        return focus_verified(k);
    wa_err_clear();
    e = backend_close_window(k->c->be, k->hwnd);
    if (!e && *wa_err_detail())
        cJSON_AddStringToObject(k->r->data, "note", wa_err_detail());
    if (!e) {
        struct wa_window w;
        bool still = backend_window_info(k->c->be, k->hwnd, &w) == WA_E_OK;
        if (still)
            wa_window_cleanup(&w);
        cJSON_AddBoolToObject(k->r->data, "closed", !still);
    }
    return e;
}

static wa_err do_find(struct call *k)
{
    const char *sel = param_str(k, "selector");
    if (!sel)
        sel = param_str(k, "ref");
    if (!sel)
        return wa_fail(WA_E_INVALID_ARGS, "find needs a selector");
    bool all = param_bool(k, "all", false);
    wa_err e = pick_window(k, false);
    if (!e)
        e = fresh_tree(k);
    if (!e)
        e = save_refs(k->c, &k->ds.tree); /* the refs find prints are valid refs */
    if (e)
        return e;
    cJSON *arr = cJSON_AddArrayToObject(k->r->data, "matches");
    const struct wa_tree *t = &k->ds.tree;
    for (size_t i = 0; i < t->count; i++) {
        if (!node_matches(&t->nodes[i], sel))
            continue;
        cJSON *rec = element_record(t, i);
        cJSON_DeleteItemFromObjectCaseSensitive(rec, "path");
        cJSON_AddItemToArray(arr, rec);
        if (!all)
            break;
    }
    if (cJSON_GetArraySize(arr) == 0)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element matches '%s'", sel);
    return WA_E_OK;
}

static wa_err do_powershell(struct call *k)
{
    const char *cmd = param_str(k, "command");
    int timeout;
    wa_err e = param_int(k, "timeout_s", false, 60, &timeout);
    if (!cmd)
        return wa_fail(WA_E_INVALID_ARGS, "powershell needs \"command\"");
    if (e || (e = gate_check(k->c->gate, k->c->be, "powershell", 0)))
        return e;
    if (gate_dry_run(k->c->gate)) {
        cJSON_AddBoolToObject(k->r->data, "dry_run", true);
        return WA_E_OK;
    }
    struct wa_shell_result sr;
    if ((e = backend_run_shell(k->c->be, cmd, timeout * 1000, 16u << 10, &sr)))
        return e;
    cJSON_AddNumberToObject(k->r->data, "exit_code", sr.exit_code);
    cJSON_AddBoolToObject(k->r->data, "timed_out", sr.timed_out);
    cJSON_AddStringToObject(k->r->data, "stdout", sr.out ? sr.out : "");
    cJSON_AddStringToObject(k->r->data, "stderr", sr.err ? sr.err : "");
    wa_shell_result_cleanup(&sr);
    return WA_E_OK;
}

static wa_err dispatch(struct call *k)
{
    switch (k->kind) {
    case K_WINDOWS:
        return do_windows(k);
    case K_STATE:
        return do_state(k);
    case K_SCREENSHOT:
        return do_screenshot(k);
    case K_GET:
        return do_get(k);
    case K_WAIT:
        return do_wait(k);
    case K_FIND:
        return do_find(k);
    case K_FOCUS:
    case K_LAUNCH:
    case K_CLOSE:
        return do_window_command(k);
    case K_POWERSHELL:
        return do_powershell(k);
    default:
        return do_acting(k);
    }
}

/* After a mutating command: the pause, the image, the fresh state, as asked. */
static void after_action(struct call *k)
{
    struct ctl_result *r = k->r;
    bool want_image = param_bool(k, "screenshot", k->c->o.screenshot_by_default);
    bool want_state = param_bool(k, "return_state", false);
    if (!k->hwnd || (!want_image && !want_state))
        return;
    int delay;
    if (param_int(k, "screenshot_delay_ms", false, 150, &delay) == WA_E_OK && delay > 0)
        os_sleep_ms(delay > 10000 ? 10000 : delay);
    if (want_image && capture_png(k, false, 1280) != WA_E_OK)
        cJSON_AddStringToObject(r->data, "screenshot_error", wa_err_detail());
    if (want_state) {
        k->ds.have_tree = false;
        struct dynbuf text;
        dynbuf_init(&text, 16u << 20);
        struct tree_format_opts fo = {.max_depth = -1, .scope = -1};
        if (fresh_tree(k) == WA_E_OK && tree_format(&k->ds.tree, &fo, &text) == WA_E_OK &&
            save_refs(k->c, &k->ds.tree) == WA_E_OK)
            cJSON_AddStringToObject(r->data, "state", dynbuf_str(&text));
        dynbuf_cleanup(&text);
    }
    /* window_state reflects the moment after the pause */
    cJSON_Delete(r->window_state);
    r->window_state = desktop_window_state(k->c->be, k->hwnd);
}

wa_err ctl_run(struct ctl *c, const char *command, const cJSON *params, struct ctl_result *r)
{
    ctl_result_cleanup(r);
    r->data = cJSON_CreateObject();
    wa_err_clear();
    struct call k = {.c = c, .p = params, .r = r};
    const struct ctl_command *cmd = ctl_find_command(c, command);
    wa_err e;
    if (!cmd) {
        bool shell = command && strcmp(command, "powershell") == 0;
        e = wa_fail(shell ? WA_E_DENIED : WA_E_INVALID_ARGS,
                    shell ? "powershell is off; start winagent with --allow-shell"
                          : "unknown command '%s'",
                    command ? command : "");
    } else if (params && !cJSON_IsObject(params)) {
        e = wa_fail(WA_E_INVALID_ARGS, "params must be a JSON object");
    } else {
        k.kind = (enum cmd_kind)(cmd - commands);
        e = dispatch(&k);
        if (cmd->mutating) {
            if (!e)
                after_action(&k);
            gate_audit(c->gate, cmd->name, params, k.hwnd, e,
                       e ? (*wa_err_detail() ? wa_err_detail() : wa_err_message(e)) : NULL);
        }
        if (k.hwnd && !r->window_state && cmd->mutating)
            r->window_state = desktop_window_state(c->be, k.hwnd);
    }
    r->err = e;
    r->success = e == WA_E_OK;
    if (e)
        snprintf(r->message, sizeof r->message, "%s",
                 *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    if (k.have_ds)
        desktop_session_cleanup(&k.ds);
    return e;
}
