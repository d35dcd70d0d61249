/* JSON Schema -> Gemini's accepted schema subset. */
#include "llm/formats/schema.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/dynbuf.h"

#define MAX_DEPTH 24

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* "string" -> "STRING"; NULL for "null" and unknown names. */
static const char *gemini_type(const char *t)
{
    static const char *const names[][2] = {
        {"string", "STRING"},   {"number", "NUMBER"}, {"integer", "INTEGER"},
        {"boolean", "BOOLEAN"}, {"array", "ARRAY"},   {"object", "OBJECT"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(t, names[i][0]) == 0 || strcmp(t, names[i][1]) == 0)
            return names[i][1];
    return NULL;
}

static bool format_allowed(const char *type, const char *format)
{
    if (strcmp(type, "STRING") == 0)
        return strcmp(format, "date-time") == 0 || strcmp(format, "enum") == 0;
    if (strcmp(type, "NUMBER") == 0)
        return strcmp(format, "float") == 0 || strcmp(format, "double") == 0;
    if (strcmp(type, "INTEGER") == 0)
        return strcmp(format, "int32") == 0 || strcmp(format, "int64") == 0;
    return false;
}

/* Follows a local reference ("#/$defs/x", "#/definitions/x"); NULL when it cannot. */
static const cJSON *resolve_ref(const cJSON *root, const char *ref)
{
    if (ref[0] != '#')
        return NULL;
    const cJSON *node = root;
    const char *p = ref + 1;
    while (*p == '/' && node) {
        p++;
        char key[128];
        size_t k = 0;
        for (; *p && *p != '/'; p++) {
            char ch = *p;
            if (ch == '~' && (p[1] == '0' || p[1] == '1')) {
                ch = p[1] == '0' ? '~' : '/';
                p++;
            }
            if (k + 1 >= sizeof key)
                return NULL;
            key[k++] = ch;
        }
        key[k] = '\0';
        node = cJSON_IsObject(node) ? get(node, key) : NULL;
    }
    return *p ? NULL : node;
}

static cJSON *convert(const cJSON *node, const cJSON *root, int depth);

/* Adds `text` to the node's description (creating it). */
static bool append_description(cJSON *out, const char *text)
{
    cJSON *d = cJSON_GetObjectItemCaseSensitive(out, "description");
    struct dynbuf b;
    dynbuf_init(&b, 1 << 16);
    bool ok = true;
    if (cJSON_IsString(d) && d->valuestring[0])
        ok = !dynbuf_adds(&b, d->valuestring) && !dynbuf_adds(&b, " ");
    ok = ok && !dynbuf_adds(&b, text);
    cJSON *s = ok ? cJSON_CreateString(dynbuf_str(&b)) : NULL;
    dynbuf_cleanup(&b);
    if (!s)
        return false;
    if (d)
        return cJSON_ReplaceItemInObjectCaseSensitive(out, "description", s);
    return cJSON_AddItemToObject(out, "description", s);
}

/* Copies key from src to dst when dst lacks it (allOf and single-branch merges). */
static bool merge_missing(cJSON *dst, const cJSON *src)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, src)
    {
        cJSON *have = cJSON_GetObjectItemCaseSensitive(dst, item->string);
        if (have && strcmp(item->string, "properties") == 0 && cJSON_IsObject(have)) {
            const cJSON *prop;
            cJSON_ArrayForEach(prop, item)
            {
                if (cJSON_GetObjectItemCaseSensitive(have, prop->string))
                    continue;
                cJSON *copy = cJSON_Duplicate(prop, true);
                if (!copy || !cJSON_AddItemToObject(have, prop->string, copy))
                    return false;
            }
            continue;
        }
        if (have && strcmp(item->string, "required") == 0 && cJSON_IsArray(have)) {
            const cJSON *name;
            cJSON_ArrayForEach(name, item)
            {
                cJSON *copy = cJSON_Duplicate(name, false);
                if (!copy || !cJSON_AddItemToArray(have, copy))
                    return false;
            }
            continue;
        }
        if (have)
            continue;
        cJSON *copy = cJSON_Duplicate(item, true);
        if (!copy || !cJSON_AddItemToObject(dst, item->string, copy))
            return false;
    }
    return true;
}

/* Renders a scalar enum value for a description: 1, true, "x". */
static bool describe_values(cJSON *out, const cJSON *values)
{
    struct dynbuf b;
    dynbuf_init(&b, 4096);
    bool ok = !dynbuf_adds(&b, "Allowed values:");
    const cJSON *v;
    const char *sep = " ";
    cJSON_ArrayForEach(v, values)
    {
        if (cJSON_IsNull(v))
            continue;
        char *text = cJSON_PrintUnformatted(v);
        ok = ok && text && !dynbuf_adds(&b, sep) && !dynbuf_adds(&b, text);
        cJSON_free(text);
        sep = ", ";
    }
    ok = ok && !dynbuf_adds(&b, ".");
    ok = ok && append_description(out, dynbuf_str(&b));
    dynbuf_cleanup(&b);
    return ok;
}

/* The node's enum, or its const as a one-value list (a new array); NULL when none. */
static cJSON *enum_values(const cJSON *node)
{
    const cJSON *e = get(node, "enum");
    if (cJSON_IsArray(e))
        return cJSON_Duplicate(e, true);
    const cJSON *c = get(node, "const");
    if (!c)
        return NULL;
    cJSON *list = cJSON_CreateArray();
    cJSON *copy = cJSON_Duplicate(c, true);
    if (!list || !copy || !cJSON_AddItemToArray(list, copy)) {
        cJSON_Delete(list);
        cJSON_Delete(copy);
        return NULL;
    }
    return list;
}

/* A list of alternatives (anyOf/oneOf): converted branches; null branches only set
 * nullable. One branch left is merged into out, several become anyOf. */
static bool convert_alternatives(cJSON *out, const cJSON *list, const cJSON *root, int depth)
{
    cJSON *any = cJSON_CreateArray();
    if (!any)
        return false;
    const cJSON *branch;
    cJSON_ArrayForEach(branch, list)
    {
        const cJSON *t = get(branch, "type");
        if (cJSON_IsString(t) && strcmp(t->valuestring, "null") == 0) {
            if (!cJSON_GetObjectItemCaseSensitive(out, "nullable"))
                cJSON_AddBoolToObject(out, "nullable", 1);
            continue;
        }
        cJSON *c = convert(branch, root, depth + 1);
        if (!c || !cJSON_AddItemToArray(any, c)) {
            cJSON_Delete(c);
            cJSON_Delete(any);
            return false;
        }
    }
    int n = cJSON_GetArraySize(any);
    bool ok = true;
    if (n == 1)
        ok = merge_missing(out, cJSON_GetArrayItem(any, 0));
    if (n > 1 && !cJSON_GetObjectItemCaseSensitive(out, "anyOf")) {
        cJSON_DeleteItemFromObjectCaseSensitive(out, "type");
        return cJSON_AddItemToObject(out, "anyOf", any);
    }
    cJSON_Delete(any);
    return ok;
}

/* The node's type: a Gemini type name, or NULL when it has none or several (the
 * several become anyOf in out). Sets nullable for "null". */
static const char *convert_type(cJSON *out, const cJSON *node, bool *ok)
{
    const cJSON *t = get(node, "type");
    if (cJSON_IsString(t)) {
        if (strcmp(t->valuestring, "null") == 0)
            cJSON_AddBoolToObject(out, "nullable", 1);
        return gemini_type(t->valuestring);
    }
    if (!cJSON_IsArray(t))
        return NULL;
    const char *first = NULL;
    int n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, t)
    {
        if (!cJSON_IsString(v))
            continue;
        if (strcmp(v->valuestring, "null") == 0) {
            if (!cJSON_GetObjectItemCaseSensitive(out, "nullable"))
                cJSON_AddBoolToObject(out, "nullable", 1);
        } else if (gemini_type(v->valuestring)) {
            first = first ? first : gemini_type(v->valuestring);
            n++;
        }
    }
    if (n <= 1)
        return first;
    cJSON *any = cJSON_CreateArray();
    cJSON_ArrayForEach(v, t)
    {
        const char *g = cJSON_IsString(v) ? gemini_type(v->valuestring) : NULL;
        if (!g || !any)
            continue;
        cJSON *branch = cJSON_CreateObject();
        if (!branch || !cJSON_AddStringToObject(branch, "type", g) ||
            !cJSON_AddItemToArray(any, branch)) {
            cJSON_Delete(branch);
            *ok = false;
        }
    }
    if (!any || !cJSON_AddItemToObject(out, "anyOf", any)) {
        cJSON_Delete(any);
        *ok = false;
    }
    return NULL;
}

static bool copy_number(cJSON *out, const cJSON *node, const char *key)
{
    const cJSON *v = get(node, key);
    if (!cJSON_IsNumber(v))
        return true;
    return cJSON_AddNumberToObject(out, key, v->valuedouble) != NULL;
}

static bool copy_string(cJSON *out, const cJSON *node, const char *key)
{
    const cJSON *v = get(node, key);
    if (!cJSON_IsString(v))
        return true;
    return cJSON_AddStringToObject(out, key, v->valuestring) != NULL;
}

static bool convert_properties(cJSON *out, const cJSON *node, const cJSON *root, int depth)
{
    const cJSON *props = get(node, "properties");
    if (!cJSON_IsObject(props))
        return true;
    cJSON *dst = cJSON_CreateObject();
    if (!dst)
        return false;
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        if (!cJSON_IsObject(p) && !cJSON_IsTrue(p))
            continue;
        cJSON *c = convert(p, root, depth + 1);
        if (!c || !cJSON_AddItemToObject(dst, p->string, c)) {
            cJSON_Delete(c);
            cJSON_Delete(dst);
            return false;
        }
    }
    if (!cJSON_GetArraySize(dst)) { /* Gemini rejects an empty properties object */
        cJSON_Delete(dst);
        return true;
    }
    return cJSON_AddItemToObject(out, "properties", dst);
}

/* required: only names of properties that survived the conversion. */
static bool convert_required(cJSON *out, const cJSON *node)
{
    const cJSON *req = get(node, "required");
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(out, "properties");
    if (!cJSON_IsArray(req) || !props)
        return true;
    cJSON *dst = cJSON_CreateArray();
    if (!dst)
        return false;
    const cJSON *r;
    cJSON_ArrayForEach(r, req)
    {
        if (!cJSON_IsString(r) || !cJSON_GetObjectItemCaseSensitive(props, r->valuestring))
            continue;
        cJSON *s = cJSON_CreateString(r->valuestring);
        if (!s || !cJSON_AddItemToArray(dst, s)) {
            cJSON_Delete(s);
            cJSON_Delete(dst);
            return false;
        }
    }
    if (!cJSON_GetArraySize(dst)) {
        cJSON_Delete(dst);
        return true;
    }
    return cJSON_AddItemToObject(out, "required", dst);
}

static bool convert_enum(cJSON *out, const cJSON *node, const char **type)
{
    cJSON *values = enum_values(node);
    if (!values)
        return true;
    bool strings = true, any = false, ok = true;
    cJSON *v, *next;
    for (v = values->child; v; v = next) {
        next = v->next;
        if (cJSON_IsNull(v)) {
            if (!cJSON_GetObjectItemCaseSensitive(out, "nullable"))
                cJSON_AddBoolToObject(out, "nullable", 1);
            cJSON_Delete(cJSON_DetachItemViaPointer(values, v));
            continue;
        }
        any = true;
        strings = strings && cJSON_IsString(v);
    }
    if (any && strings && (!*type || strcmp(*type, "STRING") == 0)) {
        *type = "STRING";
        return cJSON_AddItemToObject(out, "enum", values);
    }
    if (any)
        ok = describe_values(out, values); /* numbers, booleans: Gemini takes none */
    cJSON_Delete(values);
    return ok;
}

/* A $ref node: its target converted, with the description beside the $ref winning. */
static cJSON *convert_ref(const cJSON *node, const char *ref, const cJSON *root, int depth)
{
    const cJSON *target = resolve_ref(root, ref);
    cJSON *c = convert(target, root, target ? depth + 1 : MAX_DEPTH + 1);
    if (!c)
        return NULL;
    const cJSON *d = get(node, "description");
    if (cJSON_IsString(d)) {
        cJSON *s = cJSON_CreateString(d->valuestring);
        if (!s || !(cJSON_GetObjectItemCaseSensitive(c, "description")
                        ? cJSON_ReplaceItemInObjectCaseSensitive(c, "description", s)
                        : cJSON_AddItemToObject(c, "description", s))) {
            cJSON_Delete(s);
            cJSON_Delete(c);
            return NULL;
        }
    }
    return c;
}

/* The keywords Gemini's schema keeps: type, title, description, enum, properties,
 * required, items, the numeric limits, pattern, ordering and nullable. */
static bool convert_keywords(cJSON *out, const cJSON *node, const cJSON *root, int depth,
                             const char **type)
{
    bool ok = true;
    *type = convert_type(out, node, &ok);
    ok = ok && copy_string(out, node, "title") && copy_string(out, node, "description");
    ok = ok && convert_enum(out, node, type);
    ok = ok && convert_properties(out, node, root, depth);
    ok = ok && convert_required(out, node);
    const cJSON *items = get(node, "items");
    if (ok && cJSON_IsArray(items)) /* tuple form: the first item's schema */
        items = cJSON_GetArrayItem(items, 0);
    if (ok && (cJSON_IsObject(items) || cJSON_IsTrue(items))) {
        cJSON *c = convert(items, root, depth + 1);
        ok = c && cJSON_AddItemToObject(out, "items", c);
        if (!ok)
            cJSON_Delete(c);
    }
    static const char *const numbers[] = {"minimum",       "maximum",      "minItems",
                                          "maxItems",      "minLength",    "maxLength",
                                          "minProperties", "maxProperties"};
    for (size_t i = 0; ok && i < sizeof numbers / sizeof numbers[0]; i++)
        ok = copy_number(out, node, numbers[i]);
    ok = ok && copy_string(out, node, "pattern");
    const cJSON *order = get(node, "propertyOrdering");
    if (ok && cJSON_IsArray(order)) {
        cJSON *c = cJSON_Duplicate(order, true);
        ok = c && cJSON_AddItemToObject(out, "propertyOrdering", c);
    }
    const cJSON *nullable = get(node, "nullable");
    if (ok && cJSON_IsTrue(nullable) && !cJSON_GetObjectItemCaseSensitive(out, "nullable"))
        ok = cJSON_AddBoolToObject(out, "nullable", 1) != NULL;
    return ok;
}

/* anyOf/oneOf as alternatives; allOf merged in. */
static bool convert_combinators(cJSON *out, const cJSON *node, const cJSON *root, int depth)
{
    bool ok = true;
    const cJSON *alt = get(node, "anyOf");
    if (!cJSON_IsArray(alt))
        alt = get(node, "oneOf");
    if (cJSON_IsArray(alt) && !cJSON_GetObjectItemCaseSensitive(out, "anyOf"))
        ok = convert_alternatives(out, alt, root, depth);
    const cJSON *all = get(node, "allOf");
    const cJSON *branch;
    if (!cJSON_IsArray(all))
        all = NULL;
    cJSON_ArrayForEach(branch, all)
    {
        cJSON *c = ok ? convert(branch, root, depth + 1) : NULL;
        ok = c && merge_missing(out, c);
        cJSON_Delete(c);
    }
    return ok;
}

/* The type of a node without one of its own (inferred, unless alternatives carry it),
 * an array's items, and a format Gemini takes for that type. */
static bool finish_type(cJSON *out, const cJSON *node, const char *type)
{
    bool has_any = cJSON_GetObjectItemCaseSensitive(out, "anyOf") != NULL;
    if (!type && !has_any && !cJSON_GetObjectItemCaseSensitive(out, "type"))
        type = cJSON_GetObjectItemCaseSensitive(out, "properties") ? "OBJECT"
               : cJSON_GetObjectItemCaseSensitive(out, "items")    ? "ARRAY"
                                                                   : "STRING";
    if (type && !has_any && !cJSON_GetObjectItemCaseSensitive(out, "type") &&
        !cJSON_AddStringToObject(out, "type", type))
        return false;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(out, "type");
    if (cJSON_IsString(t) && strcmp(t->valuestring, "ARRAY") == 0 &&
        !cJSON_GetObjectItemCaseSensitive(out, "items")) {
        cJSON *it = cJSON_CreateObject();
        if (!it || !cJSON_AddStringToObject(it, "type", "STRING") ||
            !cJSON_AddItemToObject(out, "items", it)) {
            cJSON_Delete(it);
            return false;
        }
    }
    const cJSON *format = get(node, "format");
    return !(cJSON_IsString(t) && cJSON_IsString(format) &&
             format_allowed(t->valuestring, format->valuestring) &&
             !cJSON_AddStringToObject(out, "format", format->valuestring));
}

static cJSON *convert(const cJSON *node, const cJSON *root, int depth)
{
    if (cJSON_IsObject(node) && depth <= MAX_DEPTH && cJSON_IsString(get(node, "$ref")))
        return convert_ref(node, get(node, "$ref")->valuestring, root, depth);
    cJSON *out = cJSON_CreateObject();
    if (!out)
        return NULL;
    if (!cJSON_IsObject(node) || depth > MAX_DEPTH) {
        if (!cJSON_AddStringToObject(out, "type", depth > MAX_DEPTH ? "OBJECT" : "STRING"))
            goto fail;
        return out;
    }
    const char *type = NULL;
    if (!convert_keywords(out, node, root, depth, &type) ||
        !convert_combinators(out, node, root, depth) || !finish_type(out, node, type))
        goto fail;
    return out;
fail:
    cJSON_Delete(out);
    return NULL;
}

cJSON *schema_to_gemini(const cJSON *schema)
{
    return convert(schema, schema, 0);
}
