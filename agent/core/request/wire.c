/* JSON requests in, the one JSON result shape out. */
#include "agent/core/request/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"

/* The argument of op that key names, or ARG_NONE. */
static enum op_arg find_arg(const struct op_def *op, const char *key)
{
    for (int i = 0; i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++)
        if (arg_matches(op->args[i].arg, key))
            return op->args[i].arg;
    return ARG_NONE;
}

/* "ctrl+s" from ["ctrl", "s"]. */
static wa_err join_keys(const cJSON *arr, struct op_request *q)
{
    char joined[256] = "";
    size_t len = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, arr)
    {
        if (!cJSON_IsString(k))
            return wa_fail(WA_E_INVALID_ARGS, "\"keys\" given as a list must hold key names");
        /* stop at the first name that does not fit: joined + len must stay in the array */
        int n = snprintf(joined + len, sizeof joined - len, "%s%s", len ? "+" : "", k->valuestring);
        if (n < 0 || (size_t)n >= sizeof joined - len)
            return wa_fail(WA_E_INVALID_ARGS, "too many keys");
        len += (size_t)n;
    }
    return op_request_set_text(q, ARG_KEYS, joined);
}

static wa_err set_value(struct op_request *q, enum op_arg a, const cJSON *v)
{
    const char *name = arg_def(a)->name;
    if (cJSON_IsNumber(v))
        return op_request_set_number(q, a, v->valuedouble);
    if (cJSON_IsString(v))
        return op_request_set_text(q, a, v->valuestring);
    if (cJSON_IsBool(v)) {
        if (arg_def(a)->type == ARG_T_BOOL)
            return op_request_set_bool(q, a, cJSON_IsTrue(v));
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must not be true or false", name);
    }
    if (cJSON_IsArray(v) && a == ARG_KEYS)
        return join_keys(v, q);
    return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be a %s", name,
                   arg_def(a)->type == ARG_T_STR ? "string" : "number or string");
}

/* The model's "coordinate": [x, y] (and "to_coordinate"). */
static wa_err coordinate(struct op_request *q, const cJSON *v, enum op_arg xa, enum op_arg ya)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return wa_fail(WA_E_INVALID_ARGS, "a coordinate is [x, y]");
    wa_err e = set_value(q, xa, cJSON_GetArrayItem(v, 0));
    return e ? e : set_value(q, ya, cJSON_GetArrayItem(v, 1));
}

wa_err wire_request(const cJSON *args, enum wire_names names, const struct op_def *op,
                    struct op_request *out)
{
    op_request_init(out, op);
    bool model = names == WIRE_MODEL;
    if (args && !cJSON_IsObject(args))
        return wa_fail(WA_E_INVALID_ARGS, model ? "the desktop tool takes a JSON object like "
                                                  "{\"action\":\"click\",\"x\":500,\"y\":300}"
                                                : "the arguments must be a JSON object");
    if (!op) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, "action");
        if (!cJSON_IsString(a)) /* some models name it "type" */
            a = cJSON_GetObjectItemCaseSensitive(args, "type");
        wa_err e = op_by_model(cJSON_IsString(a) ? a->valuestring : NULL, &op);
        if (e)
            return e;
        out->op = op;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, args)
    {
        const char *key = v->string;
        if (cJSON_IsNull(v) || (model && strcmp(key, "action") == 0))
            continue;
        wa_err e;
        if (model && (strcmp(key, "coordinate") == 0 || strcmp(key, "coordinates") == 0)) {
            e = coordinate(out, v, ARG_X, ARG_Y);
        } else if (model && strcmp(key, "to_coordinate") == 0) {
            e = coordinate(out, v, ARG_TO_X, ARG_TO_Y);
        } else {
            enum op_arg a = find_arg(op, key);
            if (a == ARG_NONE) {
                if (model)
                    continue; /* models add keys of their own ("reason", "type" as action) */
                return wa_fail(WA_E_INVALID_ARGS, "%s takes no argument \"%s\"",
                               op->cli ? op->cli : op->name, key);
            }
            e = set_value(out, a, v);
        }
        if (e)
            return e;
    }
    return op_request_check(out, model);
}

/* An argument's value as JSON, from its field (the table says which and of what type). */
static cJSON *arg_value(const struct op_request *q, enum op_arg a, unsigned flags)
{
    const struct arg_def *d = arg_def(a);
    const void *f = (const char *)q + d->field;
    switch (d->type) {
    case ARG_T_INT:
    case ARG_T_NUM:
        return cJSON_CreateNumber(op_request_number(q, a));
    case ARG_T_BOOL:
        return cJSON_CreateBool(*(const bool *)f);
    case ARG_T_ENUM: {
        int i = *(const int *)f;
        const char *p = d->choices;
        for (; p && i > 0; i--)
            p = (p = strchr(p, ',')) ? p + 1 : NULL;
        size_t n = p ? strcspn(p, ",") : 0;
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)n, p ? p : "");
        return cJSON_CreateString(word);
    }
    case ARG_T_ELEMENT: {
        const struct elem_ref *e = f;
        return e->kind == EREF_ID ? cJSON_CreateNumber(e->id)
                                  : cJSON_CreateString(e->selector ? e->selector : "");
    }
    case ARG_T_WINDOW: {
        const struct window_ref *w = f;
        return cJSON_CreateString(w->text ? w->text : "");
    }
    case ARG_T_STR: {
        const char *t = *(char *const *)f;
        if ((flags & WIRE_TEXT_AS_LENGTH) && (a == ARG_TEXT || a == ARG_ITEM)) {
            cJSON *v = cJSON_CreateObject();
            cJSON_AddNumberToObject(v, "length", t ? (double)strlen(t) : 0);
            return v;
        }
        return cJSON_CreateString(t ? t : "");
    }
    }
    return cJSON_CreateNull();
}

cJSON *wire_request_args(const struct op_request *q, enum wire_names names, unsigned flags)
{
    cJSON *p = cJSON_CreateObject();
    bool model = names == WIRE_MODEL;
    if (model && q->op && q->op->model && !(q->op->flags & OPF_OWN_TOOL))
        cJSON_AddStringToObject(p, "action", q->op->model);
    for (int a = ARG_NONE + 1; a < ARG__COUNT; a++)
        if (op_request_has(q, (enum op_arg)a))
            cJSON_AddItemToObject(p, arg_name((enum op_arg)a, model),
                                  arg_value(q, (enum op_arg)a, flags));
    return p;
}

wa_err wire_request_text(const char *json, enum wire_names names, const struct op_def *op,
                         struct op_request *out)
{
    cJSON *args = cJSON_Parse(json ? json : "");
    if (!args) {
        op_request_init(out, op);
        return wa_fail(WA_E_INVALID_ARGS, "arguments are not valid JSON: %.200s",
                       json ? json : "(none)");
    }
    wa_err e = wire_request(args, names, op, out);
    cJSON_Delete(args);
    return e;
}

/* ---- results ---- */

static cJSON *rect_json(struct wa_rect r)
{
    int v[4] = {r.left, r.top, r.right, r.bottom};
    return cJSON_CreateIntArray(v, 4);
}

static cJSON *pair_json(int a, int b)
{
    int v[2] = {a, b};
    return cJSON_CreateIntArray(v, 2);
}

static void add_hex(cJSON *o, const char *name, uint64_t h)
{
    char s[24];
    snprintf(s, sizeof s, "0x%llx", (unsigned long long)h);
    cJSON_AddStringToObject(o, name, s);
}

/* A window as JSON: {"hwnd","title","class","pid","process","rect","state","foreground"}. */
static cJSON *wire_window(const struct wa_window *w)
{
    cJSON *o = cJSON_CreateObject();
    add_hex(o, "hwnd", w->hwnd);
    cJSON_AddStringToObject(o, "title", w->title ? w->title : "");
    cJSON_AddStringToObject(o, "class", w->class_name ? w->class_name : "");
    cJSON_AddNumberToObject(o, "pid", (double)w->pid);
    cJSON_AddStringToObject(o, "process", w->process ? w->process : "");
    cJSON_AddItemToObject(o, "rect", rect_json(w->rect));
    cJSON_AddStringToObject(o, "state",
                            w->state == WA_WINDOW_MINIMIZED   ? "minimized"
                            : w->state == WA_WINDOW_MAXIMIZED ? "maximized"
                                                              : "normal");
    cJSON_AddBoolToObject(o, "foreground", w->foreground);
    if (w->owner)
        add_hex(o, "owner", w->owner);
    return o;
}

static cJSON *window_state_json(const struct wa_window *w)
{
    cJSON *o = cJSON_CreateObject();
    add_hex(o, "hwnd", w->hwnd);
    cJSON_AddStringToObject(o, "title", w->title ? w->title : "");
    cJSON_AddBoolToObject(o, "is_foreground", w->foreground);
    cJSON_AddItemToObject(o, "rect", rect_json(w->rect));
    return o;
}

/* The words of the bits set, from a word list indexed by bit. */
static cJSON *bit_words(unsigned bits, const char *const *words, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        if (bits & (1u << i))
            cJSON_AddItemToArray(a, cJSON_CreateString(words[i]));
    return a;
}

cJSON *wire_states(unsigned states)
{
    return bit_words(states, wa_state_words, WA_ST__COUNT);
}

cJSON *wire_patterns(unsigned patterns)
{
    return bit_words(patterns, wa_pattern_words, WA_PAT__COUNT);
}

/* A long collection's summary: {"count": 3000, "shown": [2970, 2999], "in_view": 30}
 * ("shown" where its items have indexes). */
static cJSON *wire_collection(const struct wa_collection *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "count", c->count);
    if (c->first >= 0 && c->last >= c->first)
        cJSON_AddItemToObject(o, "shown", pair_json(c->first, c->last));
    cJSON_AddNumberToObject(o, "in_view", c->in_view);
    return o;
}

cJSON *wire_element(const struct op_elem *e, bool full)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", e->id);
    cJSON_AddStringToObject(o, "type", e->type ? e->type : "");
    cJSON_AddStringToObject(o, "name", e->name ? e->name : "");
    if (e->value)
        cJSON_AddStringToObject(o, "value", e->value);
    if (e->automation_id)
        cJSON_AddStringToObject(o, "automation_id", e->automation_id);
    if (e->class_name)
        cJSON_AddStringToObject(o, "class", e->class_name);
    if (e->accelerator)
        cJSON_AddStringToObject(o, "accelerator", e->accelerator);
    if (e->items_unreadable)
        cJSON_AddBoolToObject(o, "items_not_readable", true);
    if (e->coll.is)
        cJSON_AddItemToObject(o, "items", wire_collection(&e->coll));
    if (e->coll_item && e->item_index >= 0)
        cJSON_AddNumberToObject(o, "index", e->item_index);
    cJSON_AddItemToObject(o, "bounds", rect_json(e->bounds));
    cJSON_AddItemToObject(o, "center", pair_json(e->cx, e->cy));
    cJSON_AddItemToObject(o, "states", wire_states(e->states));
    cJSON_AddNumberToObject(o, "depth", e->depth);
    cJSON_AddNumberToObject(o, "parent", e->parent);
    if (e->is_new)
        cJSON_AddBoolToObject(o, "new", true);
    if (full) {
        cJSON_AddItemToObject(o, "patterns", wire_patterns(e->patterns));
        add_hex(o, "hwnd", e->hwnd);
        if (e->child_id)
            cJSON_AddNumberToObject(o, "child_id", (double)e->child_id);
        if (e->runtime_id)
            cJSON_AddStringToObject(o, "runtime_id", e->runtime_id);
        cJSON_AddStringToObject(o, "path", e->path ? e->path : "");
    }
    return o;
}

cJSON *wire_error(const char *op, wa_err e, const char *message)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "success", false);
    if (op)
        cJSON_AddStringToObject(j, "op", op);
    cJSON *err = cJSON_AddObjectToObject(j, "error");
    cJSON_AddStringToObject(err, "code", wa_err_code(e));
    cJSON_AddStringToObject(err, "message", message && *message ? message : wa_err_message(e));
    return j;
}

static void add_image_meta(cJSON *data, const struct op_result *r)
{
    cJSON *im = cJSON_AddObjectToObject(data, "image");
    cJSON_AddNumberToObject(im, "width", r->img_w);
    cJSON_AddNumberToObject(im, "height", r->img_h);
    cJSON_AddNumberToObject(im, "bytes", (double)r->png.len);
    cJSON_AddNumberToObject(im, "scale", r->scale);
    cJSON_AddItemToObject(im, "origin", pair_json(r->origin_x, r->origin_y));
    cJSON_AddStringToObject(im, "mapping", "screen = origin + image_pixel / scale");
    if (r->saved_path)
        cJSON_AddStringToObject(im, "path", r->saved_path);
}

static void add_observation(cJSON *j, const struct observation *o)
{
    cJSON *ob = cJSON_AddObjectToObject(j, "observation");
    cJSON_AddStringToObject(ob, "kind", o->kind == OBS_TREE ? "tree" : "image");
    cJSON_AddStringToObject(ob, "verdict", o->verdict);
    cJSON_AddItemToObject(ob, "frame", rect_json(o->frame));
    if (o->kind == OBS_TREE)
        cJSON_AddStringToObject(ob, "tree", o->text ? o->text : "");
    else {
        if (o->marked && o->text)
            cJSON_AddStringToObject(ob, "marks", o->text);
        cJSON_AddNumberToObject(ob, "width", o->width);
        cJSON_AddNumberToObject(ob, "height", o->height);
        cJSON_AddNumberToObject(ob, "bytes", (double)o->png.len);
    }
}

/* The text a result carries, under the key its operation gives it. */
static void add_text(cJSON *data, const struct op_result *r, enum op_id op)
{
    if (!r->has_text)
        return;
    const char *key = "state"; /* an acting call's fresh state (return_state) */
    if (op == OP_ASK_USER)
        key = "answer";
    else if (op == OP_STATE || op == OP_TREE)
        key = "tree";
    else if (op == OP_GET)
        key = "text";
    cJSON_AddStringToObject(data, key, r->text ? r->text : "");
}

static cJSON *result_data(const struct op_result *r)
{
    cJSON *d = cJSON_CreateObject();
    enum op_id op = r->op->id;
    if (r->has_element && op != OP_STATE)
        cJSON_AddItemToObject(d, "element", wire_element(&r->element, op == OP_INSPECT));
    if (r->has_point) {
        cJSON_AddItemToObject(d, "point", pair_json(r->nx, r->ny));
        cJSON_AddItemToObject(d, "pixel", pair_json(r->px, r->py));
    }
    if (r->has_to) {
        cJSON_AddItemToObject(d, "to_point", pair_json(r->to_nx, r->to_ny));
        cJSON_AddItemToObject(d, "to_pixel", pair_json(r->to_px, r->to_py));
    }
    if (r->has_point && r->has_receiver) /* the window the point's input went to */
        cJSON_AddItemToObject(d, "received_by", wire_window(&r->receiver));
    if (r->via)
        cJSON_AddStringToObject(d, "via", r->via);
    if (r->delivery)
        cJSON_AddStringToObject(d, "delivery", r->delivery);
    if (r->has_window)
        cJSON_AddItemToObject(d, "window", wire_window(&r->window));
    if (r->windows_matched > 1)
        cJSON_AddNumberToObject(d, "windows_matched", r->windows_matched);
    if (r->has_windows) {
        cJSON *arr = cJSON_AddArrayToObject(d, "windows");
        for (size_t i = 0; i < r->windows.count; i++)
            cJSON_AddItemToArray(arr, wire_window(&r->windows.items[i]));
    }
    add_text(d, r, op);
    if (op == OP_GET && r->has_element) {
        const struct op_elem *e = &r->element;
        cJSON_AddItemToObject(d, "value",
                              e->value ? cJSON_CreateString(e->value) : cJSON_CreateNull());
        cJSON_AddItemToObject(d, "rect", rect_json(e->bounds));
        cJSON_AddItemToObject(d, "states", wire_states(e->states));
    }
    if (op == OP_STATE || op == OP_TREE) {
        cJSON_AddBoolToObject(d, "useful", r->useful);
        cJSON_AddStringToObject(d, "verdict", r->verdict);
        cJSON_AddStringToObject(d, "source", r->source ? r->source : "");
        cJSON_AddBoolToObject(d, "truncated", r->truncated);
        cJSON_AddBoolToObject(d, "timed_out", r->timed_out);
        cJSON_AddNumberToObject(d, "walk_ms", r->walk_ms);
        cJSON_AddNumberToObject(d, "taken", (double)r->taken);
        cJSON_AddItemToObject(d, "frame", rect_json(r->frame));
    }
    if (r->n_elements || op == OP_STATE || op == OP_FIND || op == OP_TREE) {
        cJSON *arr = cJSON_AddArrayToObject(d, op == OP_FIND ? "matches" : "elements");
        for (size_t i = 0; i < r->n_elements; i++)
            cJSON_AddItemToArray(arr, wire_element(&r->elements[i], false));
        if (op != OP_FIND)
            cJSON_AddNumberToObject(d, "count", (double)r->n_elements);
    }
    if (r->has_shell) {
        cJSON_AddNumberToObject(d, "exit_code", r->shell.exit_code);
        cJSON_AddBoolToObject(d, "timed_out", r->shell.timed_out);
        cJSON_AddStringToObject(d, "stdout", r->shell.out ? r->shell.out : "");
        cJSON_AddStringToObject(d, "stderr", r->shell.err ? r->shell.err : "");
        cJSON_AddNumberToObject(d, "ms", r->shell.elapsed_ms);
    }
    if (r->has_image)
        add_image_meta(d, r);
    if (r->condition)
        cJSON_AddStringToObject(d, "condition", r->condition);
    if (op == OP_WAIT)
        cJSON_AddNumberToObject(d, "waited_s", r->waited_s);
    if (r->has_closed)
        cJSON_AddBoolToObject(d, "closed", r->closed);
    if (r->asked)
        cJSON_AddBoolToObject(d, "answered", r->has_text);
    if (r->shell_used)
        cJSON_AddBoolToObject(d, "command_line", true);
    if (r->has_verified) {
        cJSON_AddBoolToObject(d, "verified", r->verified);
        if (!r->verified && r->read_back)
            cJSON_AddStringToObject(d, "read_back", r->read_back);
    }
    return d;
}

/* "changes": the lines of what the action changed, or "nothing changed"; the menus
 * still open are listed either way. */
static void add_changes(cJSON *j, const struct op_result *r)
{
    if (!r->has_changes)
        return;
    if (r->nothing_changed && !r->changes.len) {
        cJSON_AddStringToObject(j, "changes", "nothing changed");
        return;
    }
    cJSON *arr = cJSON_AddArrayToObject(j, "changes");
    const char *p = dynbuf_str(&r->changes);
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = str_ndup(p, n);
        if (line)
            cJSON_AddItemToArray(arr, cJSON_CreateString(line));
        free(line);
        p += n + (nl ? 1 : 0);
    }
}

cJSON *wire_result(const struct op_result *r, const struct wire_opts *o)
{
    const char *name = "";
    if (r->op)
        name = o && o->names == WIRE_MODEL && r->op->model ? r->op->model
               : r->op->cli                                ? r->op->cli
                                                           : r->op->name;
    if (r->err) {
        cJSON *j = wire_error(name, r->err, r->message);
        if (r->has_verified && r->read_back) /* not_verified: what the control holds */
            cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(j, "error"), "read_back",
                                    r->read_back);
        if (r->has_window_state)
            cJSON_AddItemToObject(j, "window_state", window_state_json(&r->window_state));
        if (r->paused_ms > 0) /* user_active: how long the call waited for the person */
            cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(j, "error"), "paused_s",
                                    (double)(long)(r->paused_ms / 100.0) / 10.0);
        add_changes(j, r); /* a target that crashed or hung, a person who used the desktop:
                            * what changed meanwhile */
        return j;
    }
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "success", true);
    cJSON_AddStringToObject(j, "op", name);
    if (r->dry_run)
        cJSON_AddBoolToObject(j, "dry_run", true);
    cJSON_AddItemToObject(j, "data", r->op ? result_data(r) : cJSON_CreateObject());
    if (r->n_notes) {
        cJSON *n = cJSON_AddArrayToObject(j, "notes");
        for (size_t i = 0; i < r->n_notes; i++)
            cJSON_AddItemToArray(n, cJSON_CreateString(r->notes[i]));
    }
    add_changes(j, r);
    if (r->has_window_state)
        cJSON_AddItemToObject(j, "window_state", window_state_json(&r->window_state));
    if (o && o->observation && r->obs.kind != OBS_NONE)
        add_observation(j, &r->obs);
    return j;
}
