/* Parsing tool calls written as text: Hermes/Qwen, Qwen3-Coder, bare JSON and UI-TARS. */
#include "llm/textcalls.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/dynbuf.h"
#include "base/str.h"
#include "llm/text.h"

#define TEXT_MAX  (8u << 20) /* cap of the text kept around the calls */
#define MAX_CALLS 64

void textcalls_init(struct textcalls *t)
{
    memset(t, 0, sizeof *t);
}

void textcalls_cleanup(struct textcalls *t)
{
    for (size_t i = 0; i < t->n_calls; i++) {
        free(t->calls[i].id);
        free(t->calls[i].name);
        free(t->calls[i].arguments);
        free(t->calls[i].thought_signature);
    }
    free(t->calls);
    free(t->text);
    free(t->final_answer);
    free(t->after_calls);
    memset(t, 0, sizeof *t);
}

/* Appends a call; takes ownership of args (a cJSON object) whether it succeeds or not. */
static wa_err add_call(struct textcalls *t, struct llm_ids *ids, const char *name, size_t nlen,
                       cJSON *args)
{
    if (t->n_calls == MAX_CALLS) {
        cJSON_Delete(args);
        return wa_fail(WA_E_TOO_LARGE, "more than %d calls written in one reply", MAX_CALLS);
    }
    struct llm_tool_call *p = wa_reallocarray(t->calls, t->n_calls + 1, sizeof *p);
    if (!p) {
        cJSON_Delete(args);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    t->calls = p;
    struct llm_tool_call *c = &t->calls[t->n_calls];
    memset(c, 0, sizeof *c);
    char id[40];
    asm_ids_make(ids, id, sizeof id);
    c->id = text_strdup(id);
    c->id_synthetic = true;
    c->name = text_strndup(name, nlen);
    c->arguments = args ? cJSON_PrintUnformatted(args) : NULL;
    cJSON_Delete(args);
    t->n_calls++; /* counted even when incomplete, so cleanup frees what was copied */
    if (!c->id || !c->name || !c->arguments)
        return wa_fail(WA_E_NOMEM, "out of memory");
    return WA_E_OK;
}

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    return s;
}

static const char *find(const char *s, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (; s + n <= end; s++)
        if (memcmp(s, needle, n) == 0)
            return s;
    return NULL;
}

/* Appends s..end, trimmed, to the leftover text (separated by a newline). */
static wa_err keep_text(struct dynbuf *b, const char *s, const char *end)
{
    s = skip_space(s, end);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (s == end)
        return WA_E_OK;
    wa_err e = b->len ? dynbuf_addc(b, '\n') : WA_E_OK;
    return e ? e : dynbuf_add(b, s, (size_t)(end - s));
}

static wa_err malformed(const char *what, const char *s, const char *end)
{
    char snip[100];
    text_snippet(snip, sizeof snip, s, (size_t)(end - s), 80);
    return wa_fail(WA_E_PARSE, "malformed tool call written as text (%s): %s", what, snip);
}

/* ---- JSON objects: {"name":..., "arguments"|"parameters": {...} | "<json>"} ---- */

/* Adds the call a JSON object describes; a non-call object is WA_E_PARSE. */
static wa_err json_call(struct textcalls *t, struct llm_ids *ids, const cJSON *obj, const char *s,
                        const char *end)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(obj, "arguments");
    if (!args)
        args = cJSON_GetObjectItemCaseSensitive(obj, "parameters");
    if (!cJSON_IsString(name) || !name->valuestring[0])
        return malformed("no \"name\"", s, end);
    cJSON *copy = NULL;
    if (!args || cJSON_IsNull(args))
        copy = cJSON_CreateObject();
    else if (cJSON_IsObject(args))
        copy = cJSON_Duplicate(args, true);
    else if (cJSON_IsString(args)) /* arguments as a JSON string, as the API writes them */
        copy = cJSON_Parse(args->valuestring);
    if (!cJSON_IsObject(copy)) {
        cJSON_Delete(copy);
        return malformed("arguments are not a JSON object", s, end);
    }
    return add_call(t, ids, name->valuestring, strlen(name->valuestring), copy);
}

/* A JSON object or an array of them, each a call. */
static wa_err json_calls(struct textcalls *t, struct llm_ids *ids, const char *s, const char *end)
{
    cJSON *root = cJSON_ParseWithLength(s, (size_t)(end - s));
    if (!root)
        return malformed("not valid JSON", s, end);
    wa_err e = WA_E_OK;
    if (cJSON_IsArray(root)) {
        const cJSON *item;
        if (!cJSON_GetArraySize(root))
            e = malformed("an empty list", s, end);
        cJSON_ArrayForEach(item, root)
        {
            if (!e)
                e = cJSON_IsObject(item) ? json_call(t, ids, item, s, end)
                                         : malformed("a list item is not an object", s, end);
        }
    } else if (cJSON_IsObject(root)) {
        e = json_call(t, ids, root, s, end);
    } else {
        e = malformed("not a JSON object", s, end);
    }
    cJSON_Delete(root);
    return e;
}

/* ---- Qwen3-Coder: <function=NAME> <parameter=K>V</parameter> ... </function> ---- */

/* A parameter's value: JSON when it parses as a number, boolean, null, object or list;
 * else the text itself, one leading and trailing newline removed. */
static cJSON *param_value(const char *s, const char *end)
{
    if (s < end && *s == '\n')
        s++;
    if (end > s && end[-1] == '\n')
        end--;
    const char *a = skip_space(s, end), *b = end;
    while (b > a && isspace((unsigned char)b[-1]))
        b--;
    if (a < b && (*a == '{' || *a == '[' || *a == '-' || isdigit((unsigned char)*a) || *a == 't' ||
                  *a == 'f' || *a == 'n')) {
        cJSON *v = cJSON_ParseWithLength(a, (size_t)(b - a));
        if (v && !cJSON_IsString(v))
            return v;
        cJSON_Delete(v);
    }
    char *text = text_strndup(s, (size_t)(end - s));
    cJSON *v = text ? cJSON_CreateString(text) : NULL;
    free(text);
    return v;
}

/* Parses one function block starting at s ("<function="); *next is set past it. */
static wa_err qwen_function(struct textcalls *t, struct llm_ids *ids, const char *s,
                            const char *end, const char **next)
{
    const char *name = s + strlen("<function=");
    const char *gt = memchr(name, '>', (size_t)(end - name));
    const char *close = find(name, end, "</function>");
    if (!gt || !close || gt > close)
        return malformed("an unclosed <function=...> block", s, end);
    const char *nend = gt;
    while (nend > name && isspace((unsigned char)nend[-1]))
        nend--;
    if (nend == name || memchr(name, '\n', (size_t)(nend - name)))
        return malformed("a function without a name", s, end);
    cJSON *args = cJSON_CreateObject();
    if (!args)
        return wa_fail(WA_E_NOMEM, "out of memory");
    const char *p = gt + 1;
    for (;;) {
        p = skip_space(p, close);
        if (p == close)
            break;
        static const char open[] = "<parameter=";
        if ((size_t)(close - p) < sizeof open - 1 || memcmp(p, open, sizeof open - 1) != 0) {
            cJSON_Delete(args);
            return malformed("text between parameters", p, close);
        }
        const char *key = p + sizeof open - 1;
        const char *kgt = memchr(key, '>', (size_t)(close - key));
        const char *pend = kgt ? find(kgt, close, "</parameter>") : NULL;
        if (!kgt || kgt == key) {
            cJSON_Delete(args);
            return malformed("a parameter without a name", p, close);
        }
        /* The closing tag is sometimes left out before the next parameter or the end. */
        const char *next_param = find(kgt, close, "<parameter=");
        const char *vend = pend && (!next_param || pend < next_param) ? pend
                           : next_param                               ? next_param
                                                                      : close;
        char *k = text_strndup(key, (size_t)(kgt - key));
        cJSON *v = param_value(kgt + 1, vend);
        if (!k || !v) {
            free(k);
            cJSON_Delete(v);
            cJSON_Delete(args);
            return wa_fail(WA_E_NOMEM, "out of memory");
        }
        cJSON_DeleteItemFromObjectCaseSensitive(args, k); /* the last value of a key wins */
        cJSON_AddItemToObject(args, k, v);
        free(k);
        p = vend == pend ? pend + strlen("</parameter>") : vend;
    }
    *next = close + strlen("</function>");
    return add_call(t, ids, name, (size_t)(nend - name), args);
}

/* ---- <tool_call> blocks (Hermes JSON or Qwen3-Coder inside) and bare <function=> ---- */

static wa_err tagged_calls(struct textcalls *t, struct llm_ids *ids, const char *s, const char *end,
                           unsigned mask, struct dynbuf *rest)
{
    const char *p = s;
    wa_err e = WA_E_OK;
    while (!e && p < end) {
        const char *tc = (mask & LLM_TEXT_HERMES) ? find(p, end, "<tool_call>") : NULL;
        const char *fn = (mask & LLM_TEXT_QWEN3_CODER) ? find(p, end, "<function=") : NULL;
        const char *at = tc && (!fn || tc < fn) ? tc : fn;
        if (!at)
            break;
        if ((e = keep_text(rest, p, at)))
            break;
        if (at == fn) {
            t->format = LLM_TEXT_QWEN3_CODER;
            e = qwen_function(t, ids, at, end, &p);
            continue;
        }
        const char *body = at + strlen("<tool_call>");
        const char *close = find(body, end, "</tool_call>");
        const char *next_open = find(body, end, "<tool_call>");
        /* A last block may lack its closing tag (cut at a stop token). */
        if (next_open && (!close || next_open < close))
            return malformed("an unclosed <tool_call> block", at, end);
        const char *bend = close ? close : end;
        const char *b = skip_space(body, bend);
        if ((size_t)(bend - b) >= 10 && memcmp(b, "<function=", 10) == 0) {
            t->format = LLM_TEXT_QWEN3_CODER;
            const char *after;
            if ((e = qwen_function(t, ids, b, bend, &after)))
                break;
            if (skip_space(after, bend) != bend)
                return malformed("text after the function inside <tool_call>", after, bend);
        } else {
            t->format = LLM_TEXT_HERMES;
            const char *je = bend;
            while (je > b && isspace((unsigned char)je[-1]))
                je--;
            e = json_calls(t, ids, b, je);
        }
        p = close ? close + strlen("</tool_call>") : end;
    }
    size_t before = rest->len;
    if (!e)
        e = keep_text(rest, p, end);
    if (!e && t->n_calls && rest->len > before) { /* keep_text separates with a newline */
        const char *tail = dynbuf_str(rest) + before + (before ? 1 : 0);
        if (!(t->after_calls = text_strdup(tail)))
            e = wa_fail(WA_E_NOMEM, "out of memory");
    }
    return e;
}

/* ---- UI-TARS: "Thought: ...\nAction: name(key='value', ...)" ---- */

/* The keys of one action, as written: at most a few. */
struct ui_arg {
    const char *key;
    size_t klen;
    char *value; /* unescaped, heap */
};

struct ui_action {
    const char *name;
    size_t nlen;
    struct ui_arg args[6];
    size_t n_args;
};

static void ui_action_cleanup(struct ui_action *a)
{
    for (size_t i = 0; i < a->n_args; i++)
        free(a->args[i].value);
    a->n_args = 0;
}

static const char *ui_arg(const struct ui_action *a, const char *key)
{
    for (size_t i = 0; i < a->n_args; i++)
        if (a->args[i].klen == strlen(key) && memcmp(a->args[i].key, key, a->args[i].klen) == 0)
            return a->args[i].value;
    return NULL;
}

/* Parses "name(k='v', k2=\"v2\")" at s; *next is set past the closing parenthesis. */
static wa_err ui_parse_action(const char *s, const char *end, struct ui_action *a,
                              const char **next)
{
    memset(a, 0, sizeof *a);
    const char *p = s;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    if (p == s || p >= end || *p != '(')
        return malformed("an action is written name(arguments)", s, end);
    a->name = s;
    a->nlen = (size_t)(p - s);
    p++;
    for (;;) {
        p = skip_space(p, end);
        if (p < end && *p == ')') {
            *next = p + 1;
            return WA_E_OK;
        }
        if (a->n_args && (p >= end || *p++ != ','))
            break;
        p = skip_space(p, end);
        if (a->n_args && p < end && *p == ')')
            continue; /* a trailing comma */
        const char *key = p;
        while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
            p++;
        size_t klen = (size_t)(p - key);
        p = skip_space(p, end);
        if (!klen || p >= end || *p != '=' || a->n_args == sizeof a->args / sizeof a->args[0])
            break;
        p = skip_space(p + 1, end);
        if (p >= end || (*p != '\'' && *p != '"'))
            break;
        char quote = *p++;
        struct dynbuf v;
        dynbuf_init(&v, TEXT_MAX);
        wa_err e = WA_E_OK;
        while (!e && p < end && *p != quote) {
            char ch = *p++;
            if (ch == '\\' && p < end) {
                ch = *p++;
                ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
            }
            e = dynbuf_addc(&v, ch);
        }
        if (!e && p >= end)
            e = malformed("an unclosed quote", s, end);
        if (!e && !v.data)
            e = dynbuf_add(&v, "", 0);
        if (e) {
            dynbuf_cleanup(&v);
            ui_action_cleanup(a);
            return e;
        }
        p++;
        a->args[a->n_args++] = (struct ui_arg){key, klen, dynbuf_take(&v)};
        if (!a->args[a->n_args - 1].value) {
            ui_action_cleanup(a);
            return wa_fail(WA_E_NOMEM, "out of memory");
        }
    }
    ui_action_cleanup(a);
    return malformed("arguments are written key='value'", s, end);
}

/* A point from "(x,y)", "<|box_start|>(x,y)<|box_end|>", "<point>x y</point>", or a box
 * of four numbers "(x1,y1,x2,y2)" / "<bbox>x1 y1 x2 y2</bbox>" (its centre). */
static bool ui_point(const char *v, double *x, double *y)
{
    double n[4];
    int k = 0;
    for (const char *p = v; *p && k < 5;) {
        if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])) ||
            (*p == '-' && (isdigit((unsigned char)p[1]) || p[1] == '.'))) {
            char *e;
            double d = strtod(p, &e);
            if (k == 4)
                return false;
            n[k++] = d;
            p = e;
        } else {
            p++;
        }
    }
    if (k == 2) {
        *x = n[0];
        *y = n[1];
        return true;
    }
    if (k == 4) {
        *x = (n[0] + n[2]) / 2;
        *y = (n[1] + n[3]) / 2;
        return true;
    }
    return false;
}

/* The numbers inside a point may come in tags whose names hold digits ("<|box_start|>"
 * has none, but be safe): tags are dropped before the numbers are read. */
static void drop_tags(char *v)
{
    char *o = v;
    for (char *p = v; *p;) {
        if (*p == '<') {
            char *gt = strchr(p, '>');
            if (gt) {
                *o++ = ' ';
                p = gt + 1;
                continue;
            }
        }
        *o++ = *p++;
    }
    *o = '\0';
}

static bool ui_get_point(const struct ui_action *a, const char *const *keys, double *x, double *y)
{
    for (; *keys; keys++) {
        const char *v = ui_arg(a, *keys);
        if (!v)
            continue;
        char *copy = text_strdup(v);
        if (!copy)
            return false;
        drop_tags(copy);
        bool ok = ui_point(copy, x, y);
        free(copy);
        return ok;
    }
    return false;
}

static bool name_is(const struct ui_action *a, const char *name)
{
    return a->nlen == strlen(name) && memcmp(a->name, name, a->nlen) == 0;
}

static bool name_in(const struct ui_action *a, const char *const *names)
{
    for (; *names; names++)
        if (name_is(a, *names))
            return true;
    return false;
}

/* Coordinates a model writes are pixels or 0-1000: anything beyond this many is no
 * point on any screen (and a double that large has no long to become). */
#define UI_COORD_MAX 1e6

/* v rounded to a whole number, as the coordinate of a call. */
static bool add_num(cJSON *o, const char *k, double v)
{
    return cJSON_AddNumberToObject(o, k, round(v)) != NULL;
}

/* Whether every coordinate read is a finite number within UI_COORD_MAX. */
static bool ui_in_range(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabs(v[i]) <= UI_COORD_MAX)) /* NaN fails too */
            return false;
    return true;
}

/* "ctrl c", "Ctrl+Shift+S" -> "ctrl+c", "ctrl+shift+s" (winagent's key syntax). */
static char *ui_keys(const char *v)
{
    size_t n = strlen(v);
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = v; *p;) {
        while (*p == ' ' || *p == '+')
            p++;
        if (!*p)
            break;
        if (o != out)
            *o++ = '+';
        while (*p && *p != ' ' && *p != '+')
            *o++ = (char)tolower((unsigned char)*p++);
    }
    *o = '\0';
    return out;
}

static const char *const POINT_KEYS[] = {"start_box", "point", "start_point", "box", NULL};
static const char *const END_KEYS[] = {"end_box", "end_point", NULL};

/* One UI-TARS action as desktop-tool calls (type with a trailing newline is a type
 * then an enter), or the final answer. */
static wa_err ui_action_calls(struct textcalls *t, struct llm_ids *ids, const struct ui_action *a,
                              const char *s, const char *end)
{
    static const char *const clicks[] = {"click", "left_single", NULL};
    static const char *const moves[] = {"mouse_move", "hover", "move_to", NULL};
    static const char *const keys[] = {"hotkey", "press", "keydown", "key", NULL};
    double x = 0, y = 0, x2 = 0, y2 = 0;
    cJSON *args = cJSON_CreateObject();
    if (!args)
        return wa_fail(WA_E_NOMEM, "out of memory");
    const char *action;
    bool ok;
    if (name_in(a, clicks) || name_is(a, "left_double") || name_is(a, "right_single") ||
        name_in(a, moves)) {
        action = name_in(a, clicks)           ? "click"
                 : name_is(a, "left_double")  ? "double_click"
                 : name_is(a, "right_single") ? "right_click"
                                              : "mouse_move";
        ok = cJSON_AddStringToObject(args, "action", action) != NULL;
        if (!ui_get_point(a, POINT_KEYS, &x, &y)) {
            cJSON_Delete(args);
            return malformed("a point needs two numbers", s, end);
        }
        if (!ui_in_range((double[]){x, y}, 2)) {
            cJSON_Delete(args);
            return malformed("a coordinate out of range", s, end);
        }
        ok = ok && add_num(args, "x", x) && add_num(args, "y", y);
    } else if (name_is(a, "drag") || name_is(a, "select")) {
        action = "drag";
        ok = cJSON_AddStringToObject(args, "action", action) != NULL;
        if (!ui_get_point(a, POINT_KEYS, &x, &y) || !ui_get_point(a, END_KEYS, &x2, &y2)) {
            cJSON_Delete(args);
            return malformed("drag needs a start and an end point", s, end);
        }
        if (!ui_in_range((double[]){x, y, x2, y2}, 4)) {
            cJSON_Delete(args);
            return malformed("a coordinate out of range", s, end);
        }
        ok = ok && add_num(args, "x", x) && add_num(args, "y", y) && add_num(args, "to_x", x2) &&
             add_num(args, "to_y", y2);
    } else if (name_is(a, "scroll")) {
        action = "scroll";
        const char *dir = ui_arg(a, "direction");
        if (!dir || (strcmp(dir, "up") && strcmp(dir, "down") && strcmp(dir, "left") &&
                     strcmp(dir, "right"))) {
            cJSON_Delete(args);
            return malformed("scroll needs direction up, down, left or right", s, end);
        }
        ok = cJSON_AddStringToObject(args, "action", action) &&
             cJSON_AddStringToObject(args, "direction", dir);
        if (ok && ui_get_point(a, POINT_KEYS, &x, &y)) {
            if (!ui_in_range((double[]){x, y}, 2)) {
                cJSON_Delete(args);
                return malformed("a coordinate out of range", s, end);
            }
            ok = add_num(args, "x", x) && add_num(args, "y", y);
        }
    } else if (name_in(a, keys)) {
        action = "key";
        const char *k = ui_arg(a, "key");
        if (!k)
            k = ui_arg(a, "keys");
        char *norm = k ? ui_keys(k) : NULL;
        if (!norm || !norm[0]) {
            free(norm);
            cJSON_Delete(args);
            return malformed("a key action needs key='...'", s, end);
        }
        ok = cJSON_AddStringToObject(args, "action", action) &&
             cJSON_AddStringToObject(args, "keys", norm);
        free(norm);
    } else if (name_is(a, "type")) {
        action = "type";
        const char *c = ui_arg(a, "content");
        if (!c) {
            cJSON_Delete(args);
            return malformed("type needs content='...'", s, end);
        }
        size_t n = strlen(c);
        bool submit = n && c[n - 1] == '\n'; /* UI-TARS: a trailing newline submits */
        char *body = text_strndup(c, submit ? n - 1 : n);
        ok = body && cJSON_AddStringToObject(args, "action", action) &&
             cJSON_AddStringToObject(args, "text", body);
        free(body);
        if (ok && submit) {
            wa_err e = add_call(t, ids, "desktop", 7, args);
            if (e)
                return e;
            args = cJSON_CreateObject();
            if (!args)
                return wa_fail(WA_E_NOMEM, "out of memory");
            ok = cJSON_AddStringToObject(args, "action", "key") &&
                 cJSON_AddStringToObject(args, "keys", "enter");
        }
    } else if (name_is(a, "wait")) {
        action = "wait";
        ok = cJSON_AddStringToObject(args, "action", action) &&
             cJSON_AddNumberToObject(args, "seconds", 5); /* UI-TARS waits 5 s */
    } else if (name_is(a, "finished")) {
        cJSON_Delete(args);
        const char *c = ui_arg(a, "content");
        return text_set_str(&t->final_answer, c ? c : "");
    } else {
        cJSON_Delete(args);
        char what[64];
        snprintf(what, sizeof what, "unknown action %.*s", (int)(a->nlen > 40 ? 40 : a->nlen),
                 a->name);
        return malformed(what, s, end);
    }
    if (!ok) {
        cJSON_Delete(args);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    return add_call(t, ids, "desktop", 7, args);
}

static wa_err uitars_calls(struct textcalls *t, struct llm_ids *ids, const char *s, const char *end,
                           const char *action, struct dynbuf *rest)
{
    /* The thought: everything before "Action:", its "Thought:" label dropped. */
    const char *th = skip_space(s, action);
    if ((size_t)(action - th) >= 8 && memcmp(th, "Thought:", 8) == 0)
        th += 8;
    wa_err e = keep_text(rest, th, action);
    const char *p = action + strlen("Action:");
    t->format = LLM_TEXT_UITARS;
    while (!e) {
        p = skip_space(p, end);
        if (p == end)
            break;
        struct ui_action a;
        const char *next = end;
        if ((e = ui_parse_action(p, end, &a, &next)))
            break;
        e = ui_action_calls(t, ids, &a, p, end);
        ui_action_cleanup(&a);
        p = next;
    }
    if (!e && !t->n_calls && !t->final_answer)
        e = malformed("no action after Action:", action, end);
    return e;
}

/* ---- the whole text ---- */

/* The text inside a ```json fence that is the whole text, or the text itself. */
static void unfence(const char **s, const char **end)
{
    const char *a = skip_space(*s, *end), *b = *end;
    while (b > a && isspace((unsigned char)b[-1]))
        b--;
    static const char tag[] = "<|python_tag|>"; /* Llama 3.1 before a JSON call */
    if ((size_t)(b - a) > sizeof tag - 1 && memcmp(a, tag, sizeof tag - 1) == 0)
        a = skip_space(a + sizeof tag - 1, b);
    if ((size_t)(b - a) > 6 && memcmp(a, "```", 3) == 0 && memcmp(b - 3, "```", 3) == 0) {
        const char *nl = memchr(a, '\n', (size_t)(b - a));
        if (nl && nl < b - 3) {
            a = skip_space(nl + 1, b - 3);
            b -= 3;
            while (b > a && isspace((unsigned char)b[-1]))
                b--;
        }
    }
    *s = a;
    *end = b;
}

/* The "Action:" of a UI-TARS reply: at the start of a line. */
static const char *find_action(const char *s, const char *end)
{
    for (const char *p = s; (p = find(p, end, "Action:")) != NULL; p++)
        if (p == s || p[-1] == '\n')
            return p;
    return NULL;
}

wa_err textcalls_parse(const char *text, unsigned mask, enum llm_coords uitars_coords,
                       struct llm_ids *ids, struct textcalls *out)
{
    textcalls_cleanup(out);
    if (!text)
        return WA_E_OK;
    const char *s = text, *end = text + strlen(text);
    struct dynbuf rest;
    dynbuf_init(&rest, TEXT_MAX);
    wa_err e = WA_E_OK;
    const char *action = (mask & LLM_TEXT_UITARS) ? find_action(s, end) : NULL;
    if (action) {
        out->coords = uitars_coords;
        e = uitars_calls(out, ids, s, end, action, &rest);
    } else if (((mask & LLM_TEXT_HERMES) && find(s, end, "<tool_call>")) ||
               ((mask & LLM_TEXT_QWEN3_CODER) && find(s, end, "<function="))) {
        e = tagged_calls(out, ids, s, end, mask, &rest);
    } else if (mask & LLM_TEXT_JSON) {
        const char *a = s, *b = end;
        unfence(&a, &b);
        /* Only a text that is nothing but an object (or a list of them) naming a call:
         * prose that quotes JSON stays prose. */
        if (a < b && (*a == '{' || *a == '[') && (b[-1] == '}' || b[-1] == ']')) {
            cJSON *probe = cJSON_ParseWithLength(a, (size_t)(b - a));
            const cJSON *first = cJSON_IsArray(probe) ? cJSON_GetArrayItem(probe, 0) : probe;
            bool looks = cJSON_IsObject(first) &&
                         cJSON_IsString(cJSON_GetObjectItemCaseSensitive(first, "name")) &&
                         (cJSON_GetObjectItemCaseSensitive(first, "arguments") ||
                          cJSON_GetObjectItemCaseSensitive(first, "parameters"));
            cJSON_Delete(probe);
            if (looks) {
                out->format = LLM_TEXT_JSON;
                e = json_calls(out, ids, a, b);
            }
        }
    }
    if (!e && rest.len && (out->n_calls || out->final_answer) && !(out->text = dynbuf_take(&rest)))
        e = wa_fail(WA_E_NOMEM, "out of memory");
    dynbuf_cleanup(&rest);
    if (e) {
        textcalls_cleanup(out);
        return e;
    }
    if (!out->n_calls && !out->final_answer) {
        textcalls_cleanup(out); /* plain text: nothing found */
        return WA_E_OK;
    }
    if (out->format != LLM_TEXT_UITARS)
        out->coords = LLM_COORDS_FRAME_999;
    for (size_t i = 0; i < out->n_calls; i++)
        out->calls[i].coords = out->coords;
    return WA_E_OK;
}

/* ---- coordinates ---- */

#define TARS_FACTOR     28
#define TARS_MIN_PIXELS (100 * 28 * 28)
#define TARS_MAX_PIXELS (16384 * 28 * 28)

/* v / f rounded to a whole number as Python's round() does it (a half goes to the even
 * neighbour: 2.5 -> 2, 3.5 -> 4), times f: the model servers' resize is Python. */
static int round_by(double v, int f)
{
    double q = v / f, r = floor(q);
    double frac = q - r;
    if (frac > 0.5 || (frac == 0.5 && fmod(r, 2) != 0))
        r += 1;
    return (int)r * f;
}

void textcalls_smart_resize(int w, int h, int *rw, int *rh)
{
    /* a side outside 1..2^20 pixels is no image sent: kept in range so nothing overflows */
    w = w < 1 ? 1 : w > (1 << 20) ? 1 << 20 : w;
    h = h < 1 ? 1 : h > (1 << 20) ? 1 << 20 : h;
    int bw = round_by(w, TARS_FACTOR), bh = round_by(h, TARS_FACTOR);
    bw = bw < TARS_FACTOR ? TARS_FACTOR : bw;
    bh = bh < TARS_FACTOR ? TARS_FACTOR : bh;
    if ((double)bw * bh > TARS_MAX_PIXELS) {
        double beta = sqrt((double)w * h / TARS_MAX_PIXELS);
        bw = (int)floor(w / beta / TARS_FACTOR) * TARS_FACTOR;
        bh = (int)floor(h / beta / TARS_FACTOR) * TARS_FACTOR;
        bw = bw < TARS_FACTOR ? TARS_FACTOR : bw; /* a side never goes below one block */
        bh = bh < TARS_FACTOR ? TARS_FACTOR : bh;
    } else if ((double)bw * bh < TARS_MIN_PIXELS) {
        double beta = sqrt((double)TARS_MIN_PIXELS / ((double)w * h));
        bw = (int)ceil(w * beta / TARS_FACTOR) * TARS_FACTOR;
        bh = (int)ceil(h * beta / TARS_FACTOR) * TARS_FACTOR;
    }
    *rw = bw;
    *rh = bh;
}

/* One coordinate from the call's space to 0-999 over an extent of `size` pixels whose
 * model-side extent is `model_size` (the smart-resized side, or 1000). */
static double to_999(double v, int size, double model_size)
{
    double px = v / model_size * size; /* a pixel of the image sent */
    double n = size > 1 ? px * 999.0 / (size - 1) : 0;
    n = floor(n + 0.5);
    return n < 0 ? 0 : n > 999 ? 999 : n;
}

wa_err textcalls_args_to_999(const struct llm_tool_call *c, int image_w, int image_h, cJSON **out)
{
    *out = NULL;
    if (!c->parsed)
        return wa_fail(WA_E_INVALID_ARGS, "the call has no arguments to convert");
    double mw = 1000, mh = 1000;
    int w = image_w, h = image_h;
    if (c->coords == LLM_COORDS_PIXELS) {
        if (image_w <= 0 || image_h <= 0)
            return wa_fail(WA_E_INVALID_ARGS,
                           "pixel coordinates need a screenshot to refer to, and none was sent");
        int rw, rh;
        textcalls_smart_resize(image_w, image_h, &rw, &rh);
        mw = rw;
        mh = rh;
    } else if (w <= 0 || h <= 0) { /* 0-1000 needs no image: map over 0-999 itself */
        w = h = 1000;
    }
    cJSON *args = cJSON_Duplicate(c->parsed, true);
    if (!args)
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (c->coords != LLM_COORDS_FRAME_999) {
        static const char *const xs[] = {"x", "to_x"}, *const ys[] = {"y", "to_y"};
        for (int i = 0; i < 2; i++) {
            cJSON *x = cJSON_GetObjectItemCaseSensitive(args, xs[i]);
            cJSON *y = cJSON_GetObjectItemCaseSensitive(args, ys[i]);
            if (cJSON_IsNumber(x))
                cJSON_SetNumberValue(x, to_999(x->valuedouble, w, mw));
            if (cJSON_IsNumber(y))
                cJSON_SetNumberValue(y, to_999(y->valuedouble, h, mh));
        }
    }
    *out = args;
    return WA_E_OK;
}
