/* Refs of `state`: each window's last state, on disk in the state folder (the CLI) or in
 * the session's memory (every other client), and the element a ref names found again
 * in a fresh tree by its identity. */
#include "agent/core/call/refs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define STATE_FILE_MAX (16u << 20)

static void state_path(const struct call *k, uint64_t hwnd, char *out, size_t n)
{
    if (hwnd)
        snprintf(out, n, "%s/refs-%llx.json", k->c->state_dir, (unsigned long long)hwnd);
    else
        snprintf(out, n, "%s/last.json", k->c->state_dir);
}

static cJSON *element_record(const struct wa_tree *t, size_t i)
{
    struct op_elem el;
    if (op_elem_from_node(t, i, &el) != WA_E_OK)
        return NULL;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "id", el.id);
    cJSON_AddStringToObject(e, "type", el.type);
    cJSON_AddStringToObject(e, "name", el.name);
    if (el.automation_id)
        cJSON_AddStringToObject(e, "automation_id", el.automation_id);
    if (el.class_name)
        cJSON_AddStringToObject(e, "class", el.class_name);
    if (el.runtime_id)
        cJSON_AddStringToObject(e, "runtime_id", el.runtime_id);
    int b[4] = {el.bounds.left, el.bounds.top, el.bounds.right, el.bounds.bottom};
    cJSON_AddItemToObject(e, "bounds", cJSON_CreateIntArray(b, 4));
    cJSON_AddStringToObject(e, "path", el.path);
    if (el.coll_item) { /* found again in its collection when no walk lists it */
        cJSON_AddBoolToObject(e, "coll_item", true);
        if (el.item_index >= 0)
            cJSON_AddNumberToObject(e, "item_index", el.item_index);
    }
    op_elem_cleanup(&el);
    return e;
}

static void window_key(uint64_t hwnd, char *out, size_t n)
{
    snprintf(out, n, "0x%llx", (unsigned long long)hwnd);
}

/* Keeps doc (taken) as the session's own last state of hwnd. */
static wa_err save_in_memory(struct session *s, uint64_t hwnd, cJSON *doc)
{
    char key[24];
    window_key(hwnd, key, sizeof key);
    if (!s->refs && !(s->refs = cJSON_CreateObject())) {
        cJSON_Delete(doc);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(s->refs, key);
    cJSON_AddItemToObject(s->refs, key, doc);
    s->refs_last = hwnd;
    return WA_E_OK;
}

wa_err refs_save(struct call *k)
{
    const struct wa_tree *t = &k->s->tree;
    if (!k->s->have_tree)
        return WA_E_OK;
    bool disk = k->s->o.refs_on_disk;
    wa_err e = disk ? os_mkdir_p(k->c->state_dir) : WA_E_OK;
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
    if (!disk)
        return save_in_memory(k->s, t->hwnd, doc);
    char *text = cJSON_PrintUnformatted(doc);
    char path[4096];
    state_path(k, t->hwnd, path, sizeof path);
    e = text ? os_write_file(path, text, strlen(text)) : wa_fail(WA_E_NOMEM, "out of memory");
    free(text);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "elements");
    text = cJSON_PrintUnformatted(doc);
    state_path(k, 0, path, sizeof path);
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

uint64_t refs_last_window(struct call *k)
{
    if (!k->s->o.refs_on_disk)
        return k->s->refs_last;
    char path[4096];
    state_path(k, 0, path, sizeof path);
    cJSON *j = load_json_file(path);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "hwnd");
    uint64_t hwnd = cJSON_IsString(h) ? strtoull(h->valuestring, NULL, 16) : 0;
    cJSON_Delete(j);
    return hwnd;
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
    struct op_elem el;
    for (size_t i = 0; cJSON_IsString(path) && i < t->count; i++) {
        if (strcmp(t->nodes[i].type, ty) != 0 || strcmp(t->nodes[i].name, nm) != 0 ||
            op_elem_from_node(t, i, &el) != WA_E_OK)
            continue;
        bool same = strcmp(el.path, path->valuestring) == 0;
        op_elem_cleanup(&el);
        if (same) {
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

/* The node of t whose path is `path` up to its last '.', when that node is a long
 * collection: where an item of it was. */
static int collection_of(const struct wa_tree *t, const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return -1;
    size_t n = (size_t)(dot - path);
    struct op_elem el;
    for (size_t i = 0; i < t->count; i++) {
        if (!t->nodes[i].coll.is || op_elem_from_node(t, i, &el) != WA_E_OK)
            continue;
        bool same = strlen(el.path) == n && strncmp(el.path, path, n) == 0;
        op_elem_cleanup(&el);
        if (same)
            return (int)i;
    }
    return -1;
}

/* An item of a long collection that the fresh walk does not list (it was found beyond
 * what was in view): asked of its collection by its index or runtime id, and its name,
 * and added to the tree. */
static void bring_item(struct call *k, const cJSON *rec)
{
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(rec, "path");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(rec, "name");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(rec, "item_index");
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(rec, "runtime_id");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "coll_item")) ||
        !cJSON_IsString(path) || !cJSON_IsString(name))
        return;
    int at = collection_of(&k->s->tree, path->valuestring);
    if (at < 0)
        return;
    struct wa_item_query q = {
        .name = name->valuestring,
        .index = cJSON_IsNumber(index) ? index->valueint : -1,
        .runtime_id = cJSON_IsString(rid) ? rid->valuestring : NULL,
    };
    size_t added = 0;
    backend_find_items(k->be, &k->s->tree, (size_t)at, &q, 1, &added);
    wa_err_clear();
}

wa_err refs_find(struct call *k, uint64_t hwnd, int ref, wa_err (*walk)(struct call *, uint64_t),
                 size_t *index)
{
    char path[4096], key[24];
    cJSON *doc = NULL;
    window_key(hwnd, key, sizeof key);
    if (!k->s->o.refs_on_disk) { /* a copy: the session's own stays as it is */
        doc = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(k->s->refs, key), true);
    } else {
        state_path(k, hwnd, path, sizeof path);
        doc = load_json_file(path);
    }
    if (!doc)
        return wa_fail(WA_E_STALE_REF,
                       "no state of this window to take ref %d from; run state "
                       "first",
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
    bool walked = k->look.fresh && k->s->have_tree && k->s->tree.hwnd == hwnd;
    wa_err e = !rec     ? wa_fail(WA_E_STALE_REF, "ref %d was not in the last state", ref)
               : walked ? WA_E_OK
                        : walk(k, hwnd);
    if (!e)
        e = refind(rec, &k->s->tree, ref, index);
    if (e == WA_E_STALE_REF && rec) {
        bring_item(k, rec);
        e = refind(rec, &k->s->tree, ref, index);
    }
    cJSON_Delete(doc);
    return e;
}
