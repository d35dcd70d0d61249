/* Typed requests and results: the setters that apply the table's types and limits. */
#include "agent/core/request/request.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"

static const struct arg_def args[ARG__COUNT] = {
#define X_ROW(id, field_, type_, name_, model_, aliases_, choices_, min_, max_, range_, flags_,    \
              help_, model_help_)                                                                  \
    [ARG_##id] = {.name = name_,                                                                   \
                  .model = model_,                                                                 \
                  .aliases = aliases_,                                                             \
                  .type = ARG_T_##type_,                                                           \
                  .choices = choices_,                                                             \
                  .min = min_,                                                                     \
                  .max = max_,                                                                     \
                  .range = RANGE_##range_,                                                         \
                  .flags = flags_,                                                                 \
                  .help = help_,                                                                   \
                  .model_help = model_help_,                                                       \
                  .field = offsetof(struct op_request, field_)},
    OP_ARG_MAP(X_ROW)
#undef X_ROW
};

const struct arg_def *arg_def(enum op_arg a)
{
    return (unsigned)a < ARG__COUNT ? &args[a] : &args[ARG_NONE];
}

const char *arg_name(enum op_arg a, bool model)
{
    const struct arg_def *d = arg_def(a);
    return model && d->model ? d->model : d->name;
}

/* True when the comma-separated list holds key. */
static bool in_list(const char *list, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, key, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

bool arg_matches(enum op_arg a, const char *key)
{
    const struct arg_def *d = arg_def(a);
    if (!key || a == ARG_NONE)
        return false;
    return strcmp(d->name, key) == 0 || (d->model && strcmp(d->model, key) == 0) ||
           in_list(d->aliases, key);
}

const char *op_arg_help(const struct op_def *op, enum op_arg a)
{
    static _Thread_local char buf[400];
    const struct arg_def *d = arg_def(a);
    bool point = a == ARG_X || a == ARG_Y || a == ARG_TO_X || a == ARG_TO_Y;
    if (!point)
        return d->help;
    const char *axis = a == ARG_X || a == ARG_TO_X ? "x" : "y";
    bool to = a == ARG_TO_X || a == ARG_TO_Y;
    const char *what = op->id == OP_SCREENSHOT
                           ? (to ? " of the region's bottom-right corner (outside it)"
                                 : " of the region's top-left corner")
                       : to ? " to release at"
                            : "";
    if (op_arg_unit(op, a) == UNIT_PIXEL)
        snprintf(buf, sizeof buf, "Screen %s%s, in pixels%s.", axis, what,
                 op->id == OP_MOVE_WINDOW ? " (the window's new left or top edge)" : "");
    else
        snprintf(buf, sizeof buf,
                 "%s%s: 0-999 %s the frame of the latest observation (the "
                 "window's frame for the CLI).",
                 axis, what, *axis == 'x' ? "across" : "down");
    return buf;
}

void op_request_init(struct op_request *r, const struct op_def *op)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->amount = 3;
    r->clicks = 1;
    r->seconds = 1.0;
    r->timeout = 10.0;
    r->timeout_s = 60;
    r->duration_ms = 150;
    r->mode = OBS_AUTO;
    r->monitor = -1;
    r->depth = -1;
    r->button = WA_BUTTON_LEFT;
    r->direction = DIR_DOWN;
}

static void elem_ref_cleanup(struct elem_ref *e)
{
    free(e->selector);
    memset(e, 0, sizeof *e);
}

/* The member of r that holds argument a, as the table says. */
static void *field(const struct op_request *r, enum op_arg a)
{
    return (char *)r + arg_def(a)->field;
}

/* Enum arguments are stored as the index of their word, in the enum-typed fields. */
_Static_assert(sizeof(enum wa_button) == sizeof(int), "enum fields are ints");
_Static_assert(sizeof(enum scroll_dir) == sizeof(int), "enum fields are ints");
_Static_assert(sizeof(enum get_what) == sizeof(int), "enum fields are ints");
_Static_assert(sizeof(enum obs_mode) == sizeof(int), "enum fields are ints");
_Static_assert(sizeof(enum wa_window_state) == sizeof(int), "enum fields are ints");

static bool has_type(enum op_arg a, enum arg_type t)
{
    return a > ARG_NONE && a < ARG__COUNT && arg_def(a)->type == t;
}

static struct elem_ref *element_field(struct op_request *r, enum op_arg a)
{
    return has_type(a, ARG_T_ELEMENT) ? field(r, a) : NULL;
}

void op_request_cleanup(struct op_request *r)
{
    for (int a = ARG_NONE + 1; a < ARG__COUNT; a++) {
        switch (arg_def((enum op_arg)a)->type) {
        case ARG_T_ELEMENT:
            elem_ref_cleanup(field(r, (enum op_arg)a));
            break;
        case ARG_T_STR:
            free(*(char **)field(r, (enum op_arg)a));
            break;
        case ARG_T_WINDOW:
            free(((struct window_ref *)field(r, (enum op_arg)a))->text);
            break;
        default:
            break;
        }
    }
    op_request_init(r, r->op);
}

const struct elem_ref *op_request_element(const struct op_request *r, enum op_arg a)
{
    return element_field((struct op_request *)r, a);
}

static char **string_field(struct op_request *r, enum op_arg a)
{
    return has_type(a, ARG_T_STR) ? field(r, a) : NULL;
}

static bool *bool_field(struct op_request *r, enum op_arg a)
{
    return has_type(a, ARG_T_BOOL) ? field(r, a) : NULL;
}

static void mark(struct op_request *r, enum op_arg a)
{
    r->have |= (uint64_t)1 << a;
}

/* Stores a number that passed its limits into its field (integers rounded). */
static void store_number(struct op_request *r, enum op_arg a, double v)
{
    if (has_type(a, ARG_T_INT))
        *(int *)field(r, a) = (int)lround(v);
    else if (has_type(a, ARG_T_NUM))
        *(double *)field(r, a) = v;
}

static wa_err set_number_checked(struct op_request *r, enum op_arg a, double v)
{
    const struct arg_def *d = arg_def(a);
    if (!isfinite(v) || v > 1e9 || v < -1e9)
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" is out of range", d->name);
    if (d->min != 0 || d->max != 0) {
        if (v < d->min || v > d->max) {
            if (d->range == RANGE_REJECT)
                return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be %g-%g, not %g", d->name, d->min,
                               d->max, v);
            double c = v < d->min ? d->min : d->max;
            snprintf(r->note, sizeof r->note, "%s %g is outside %g-%g; used %g", d->name, v, d->min,
                     d->max, c);
            v = c;
        }
    }
    store_number(r, a, v);
    mark(r, a);
    return WA_E_OK;
}

/* The index of word in a comma-separated list (case-insensitive), or -1. */
static int choice_index(const char *choices, const char *word)
{
    int i = 0;
    size_t n = strlen(word);
    for (const char *p = choices; p && *p; i++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return i;
        char lower[32];
        if (n < sizeof lower) {
            for (size_t k = 0; k <= n; k++)
                lower[k] = (char)(word[k] >= 'A' && word[k] <= 'Z' ? word[k] + 32 : word[k]);
            if (len == n && strncmp(p, lower, n) == 0)
                return i;
        }
        p = end ? end + 1 : NULL;
    }
    return -1;
}

static wa_err set_enum(struct op_request *r, enum op_arg a, const char *word)
{
    const struct arg_def *d = arg_def(a);
    int i = choice_index(d->choices, word);
    if (i < 0 && a == ARG_STATE) { /* "minimized", "normal", "max" */
        if (str_icontains(word, "min"))
            i = WA_WINDOW_MINIMIZED;
        else if (str_icontains(word, "max"))
            i = WA_WINDOW_MAXIMIZED;
        else if (str_icontains(word, "restore") || str_icontains(word, "normal"))
            i = WA_WINDOW_NORMAL;
    }
    if (i < 0 && a == ARG_MODE) { /* the long spellings */
        enum obs_mode m;
        if (obs_mode_parse(word, &m) == WA_E_OK)
            i = (int)m;
    }
    if (i < 0)
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be one of %s, not \"%s\"", d->name,
                       d->choices, word);
    *(int *)field(r, a) = i;
    mark(r, a);
    return WA_E_OK;
}

/* "3", "e3", "@e3", "@3", "[3]", "#3"? no: "#3" is an AutomationId selector. */
static bool parse_id(const char *s, int *id)
{
    const char *p = s;
    while (*p == ' ')
        p++;
    if (*p == '[')
        p++;
    if (*p == '@')
        p++;
    if (*p == 'e' || *p == 'E')
        p++;
    if (*p < '0' || *p > '9')
        return false;
    char *end;
    long n = strtol(p, &end, 10);
    if (*end == ']')
        end++;
    while (*end == ' ')
        end++;
    if (*end || n < 0 || n > 10000000)
        return false;
    *id = (int)n;
    return true;
}

static wa_err set_element_id(struct op_request *r, enum op_arg a, double v)
{
    struct elem_ref *e = element_field(r, a);
    if (!isfinite(v) || v != floor(v))
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be a whole number", arg_def(a)->name);
    if (v < 1 || v > 10000000)
        return wa_fail(WA_E_INVALID_ARGS, "element ids start at 1 (\"%s\" was %g)",
                       arg_def(a)->name, v);
    elem_ref_cleanup(e);
    e->kind = EREF_ID;
    e->id = (int)v;
    mark(r, a);
    return WA_E_OK;
}

static wa_err set_element_text(struct op_request *r, enum op_arg a, const char *s)
{
    struct elem_ref *e = element_field(r, a);
    int id;
    if (!*s)
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" is empty", arg_def(a)->name);
    if (parse_id(s, &id))
        return set_element_id(r, a, id);
    elem_ref_cleanup(e);
    if (!(e->selector = str_dup(s)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    e->kind = EREF_SELECTOR;
    mark(r, a);
    return WA_E_OK;
}

static wa_err set_window(struct op_request *r, const char *text, bool number, uint64_t handle)
{
    struct window_ref *w = &r->window;
    free(w->text);
    memset(w, 0, sizeof *w);
    w->text = str_dup(text);
    if (!w->text)
        return wa_fail(WA_E_NOMEM, "out of memory");
    w->given = true;
    w->number = number;
    w->handle = handle;
    mark(r, ARG_WINDOW);
    return WA_E_OK;
}

/* A window selector that is a number: 0x hex or decimal digits. */
static bool window_number(const char *s, uint64_t *out)
{
    char *end;
    if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) && s[2]) {
        unsigned long long v = strtoull(s + 2, &end, 16);
        if (*end)
            return false;
        *out = v;
        return true;
    }
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    if (!*s || strlen(s) > 19)
        return false;
    *out = strtoull(s, &end, 10);
    return true;
}

static wa_err parse_number_text(const char *name, const char *s, double *out)
{
    char *end;
    while (*s == ' ')
        s++;
    double d = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (end == s || *end || !isfinite(d))
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be a number, not \"%s\"", name, s);
    *out = d;
    return WA_E_OK;
}

wa_err op_request_set_text(struct op_request *r, enum op_arg a, const char *text)
{
    const struct arg_def *d = arg_def(a);
    if (!text)
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" has no value", d->name);
    switch (d->type) {
    case ARG_T_INT:
    case ARG_T_NUM: {
        double v = 0;
        wa_err e = parse_number_text(d->name, text, &v);
        return e ? e : set_number_checked(r, a, v);
    }
    case ARG_T_BOOL:
        if (str_ieq(text, "true") || strcmp(text, "1") == 0 || str_ieq(text, "yes"))
            return op_request_set_bool(r, a, true);
        if (str_ieq(text, "false") || strcmp(text, "0") == 0 || str_ieq(text, "no"))
            return op_request_set_bool(r, a, false);
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be true or false, not \"%s\"", d->name,
                       text);
    case ARG_T_ENUM:
        return set_enum(r, a, text);
    case ARG_T_ELEMENT:
        return set_element_text(r, a, text);
    case ARG_T_WINDOW: {
        uint64_t h = 0;
        if (!*text)
            return wa_fail(WA_E_INVALID_ARGS, "\"window\" is empty");
        bool num = window_number(text, &h);
        return set_window(r, text, num, h);
    }
    case ARG_T_STR: {
        char **f = string_field(r, a);
        if (!f)
            return wa_fail(WA_E_INVALID_ARGS, "\"%s\" is not a text argument", d->name);
        char *copy = str_dup(text);
        if (!copy)
            return wa_fail(WA_E_NOMEM, "out of memory");
        free(*f);
        *f = copy;
        mark(r, a);
        return WA_E_OK;
    }
    }
    return wa_fail(WA_E_INVALID_ARGS, "unknown argument type");
}

wa_err op_request_set_number(struct op_request *r, enum op_arg a, double value)
{
    const struct arg_def *d = arg_def(a);
    switch (d->type) {
    case ARG_T_INT:
    case ARG_T_NUM:
        return set_number_checked(r, a, value);
    case ARG_T_BOOL:
        return op_request_set_bool(r, a, value != 0);
    case ARG_T_ELEMENT:
        return set_element_id(r, a, value);
    case ARG_T_WINDOW: {
        if (!(value >= 0) || value != floor(value) || value > 18446744073709549568.0)
            return wa_fail(WA_E_INVALID_ARGS, "\"window\" must be a handle (a whole number)");
        char text[32];
        snprintf(text, sizeof text, "%llu", (unsigned long long)value);
        return set_window(r, text, true, (uint64_t)value);
    }
    case ARG_T_STR:
        if (a == ARG_TEXT || a == ARG_ITEM || a == ARG_KEYS) { /* type 5, key 5 */
            char text[40];
            snprintf(text, sizeof text, "%.15g", value);
            return op_request_set_text(r, a, text);
        }
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be text, not a number", d->name);
    case ARG_T_ENUM:
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must be one of %s", d->name, d->choices);
    }
    return wa_fail(WA_E_INVALID_ARGS, "unknown argument type");
}

wa_err op_request_set_bool(struct op_request *r, enum op_arg a, bool value)
{
    bool *f = bool_field(r, a);
    if (!f)
        return wa_fail(WA_E_INVALID_ARGS, "\"%s\" must not be true or false", arg_def(a)->name);
    *f = value;
    mark(r, a);
    return WA_E_OK;
}

double op_request_number(const struct op_request *q, enum op_arg a)
{
    if (has_type(a, ARG_T_INT))
        return *(const int *)field(q, a);
    if (has_type(a, ARG_T_NUM))
        return *(const double *)field(q, a);
    return -1;
}

wa_err op_request_check(const struct op_request *r, bool model)
{
    const struct op_def *op = r->op;
    for (int i = 0; i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++) {
        const struct op_arg_use *u = &op->args[i];
        if (!op_arg_required(u->flags, model) || op_request_has(r, u->arg))
            continue;
        if ((model && (u->flags & OPA_CLI)) || (!model && (u->flags & OPA_MODEL)))
            continue;
        return wa_fail(WA_E_INVALID_ARGS, "%s needs \"%s\": %s", model ? op->model : op->cli,
                       arg_name(u->arg, model), op_arg_help(op, u->arg));
    }
    /* Points in 0-999 of the frame are refused here, before anything is observed. */
    static const enum op_arg points[] = {ARG_X, ARG_Y, ARG_TO_X, ARG_TO_Y};
    for (size_t i = 0; i < sizeof points / sizeof *points; i++) {
        enum op_arg a = points[i];
        if (!op_request_has(r, a) || op_arg_unit(op, a) != UNIT_NORM)
            continue;
        int v = (int)op_request_number(r, a);
        if (v < 0 || v > 999)
            return wa_fail(WA_E_INVALID_ARGS, "\"%s\" is %d, outside 0-999: %s", arg_name(a, model),
                           v, op_arg_help(op, a));
    }
    return WA_E_OK;
}

/* ---- results ---- */

void op_elem_cleanup(struct op_elem *e)
{
    free(e->type);
    free(e->name);
    free(e->value);
    free(e->automation_id);
    free(e->class_name);
    free(e->runtime_id);
    free(e->accelerator);
    free(e->path);
    memset(e, 0, sizeof *e);
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

wa_err op_elem_from_node(const struct wa_tree *t, size_t i, struct op_elem *out)
{
    memset(out, 0, sizeof *out);
    const struct wa_node *n = &t->nodes[i];
    char path[256];
    node_path(t, i, path, sizeof path);
    out->id = (int)i + 1;
    out->depth = n->depth;
    out->parent = n->parent + 1;
    out->bounds = n->bounds;
    int px, py;
    wa_rect_center(wa_rect_empty(n->bounds) ? t->frame : n->bounds, &px, &py);
    out->cx = pixel_to_norm(px, t->frame.left, wa_rect_width(t->frame));
    out->cy = pixel_to_norm(py, t->frame.top, wa_rect_height(t->frame));
    out->states = n->states;
    out->patterns = n->patterns;
    out->hwnd = n->hwnd;
    out->child_id = n->child_id;
    out->type = str_dup(n->type);
    out->name = str_dup(n->name);
    out->path = str_dup(path);
    out->value = n->value ? str_dup(n->value) : NULL;
    out->automation_id = n->automation_id ? str_dup(n->automation_id) : NULL;
    out->class_name = n->class_name ? str_dup(n->class_name) : NULL;
    out->runtime_id = n->runtime_id ? str_dup(n->runtime_id) : NULL;
    out->accelerator = n->accelerator ? str_dup(n->accelerator) : NULL;
    out->items_unreadable = n->items_unreadable;
    out->coll = n->coll;
    out->coll_item = n->coll_item;
    out->item_index = n->item_index;
    if (!out->type || !out->name || !out->path || (n->value && !out->value) ||
        (n->automation_id && !out->automation_id) || (n->class_name && !out->class_name) ||
        (n->runtime_id && !out->runtime_id) || (n->accelerator && !out->accelerator)) {
        op_elem_cleanup(out);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    return WA_E_OK;
}

void op_result_init(struct op_result *r)
{
    memset(r, 0, sizeof *r);
    dynbuf_init(&r->png, 64u << 20);
    dynbuf_init(&r->changes, 256u << 10);
    observation_init(&r->obs);
}

void op_result_cleanup(struct op_result *r)
{
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    wa_window_cleanup(&r->window_state);
    wa_window_cleanup(&r->receiver);
    wa_window_cleanup(&r->window);
    op_elem_cleanup(&r->element);
    wa_window_list_cleanup(&r->windows);
    for (size_t i = 0; i < r->n_elements; i++)
        op_elem_cleanup(&r->elements[i]);
    free(r->elements);
    free(r->text);
    wa_shell_result_cleanup(&r->shell);
    dynbuf_cleanup(&r->png);
    dynbuf_cleanup(&r->changes);
    free(r->read_back);
    free(r->saved_path);
    observation_cleanup(&r->obs);
    image_cleanup(&r->annotate);
    op_result_init(r);
}

void op_result_set_error(struct op_result *r, wa_err e)
{
    r->err = e;
    if (e)
        snprintf(r->message, sizeof r->message, "%s",
                 *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
}

void op_result_note(struct op_result *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **grown = wa_reallocarray(r->notes, r->n_notes + 1, sizeof *grown);
    if (!grown)
        return;
    r->notes = grown;
    if ((r->notes[r->n_notes] = str_dup(buf)))
        r->n_notes++;
}
