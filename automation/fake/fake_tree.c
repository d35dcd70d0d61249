/* The fake desktop's accessibility tree: the generic walk over the scene's JSON nodes,
 * long collections whose rows are made on demand, and element actions. */
#include "automation/fake/fake_tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "automation/fake/fake_input.h"
#include "automation/fake/fake_scene.h"
#include "automation/tree.h"
#include "base/os.h"
#include "base/str.h"

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
    const char *pattern =
        fake_scene_json_str(cJSON_GetObjectItemCaseSensitive(coll, "collection"), "name");
    snprintf(out, n, "%s %d", pattern ? pattern : "item", i);
}

static const struct fake_row *row_of(const cJSON *el)
{
    for (size_t i = 0; i < fake_scene_state.nrows; i++)
        if (fake_scene_state.rows[i].row == el)
            return &fake_scene_state.rows[i];
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
    if (fake_scene_state.nrows == fake_scene_state.cap_rows) {
        size_t cap = fake_scene_state.cap_rows ? 2 * fake_scene_state.cap_rows : 64;
        struct fake_row *p = wa_reallocarray(fake_scene_state.rows, cap, sizeof *p);
        if (!p)
            return NULL;
        fake_scene_state.rows = p;
        fake_scene_state.cap_rows = cap;
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
    fake_scene_state.rows[fake_scene_state.nrows++] = (struct fake_row){coll, r};
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
    struct wa_rect b = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(fr->coll, "bounds"));
    int y = b.top + (i - top) * height;
    out->bounds =
        fake_scene_bounds_to_physical(w, (struct wa_rect){b.left, y, b.right, y + height});
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
    out->type = str_dup(fake_scene_json_str(n, "type"));
    out->name = str_dup(fake_scene_json_str(n, "name"));
    out->automation_id = str_dup(fake_scene_json_str(n, "automation_id"));
    out->class_name = str_dup(fake_scene_json_str(n, "class"));
    out->value = str_dup(fake_scene_json_str(n, "value"));
    const cJSON *bounds = cJSON_GetObjectItemCaseSensitive(n, "bounds");
    out->bounds = bounds ? fake_scene_bounds_to_physical(ctx, fake_scene_json_rect(bounds))
                         : fake_scene_json_rect(bounds);
    out->states =
        words_to_bits(cJSON_GetObjectItemCaseSensitive(n, "states"), wa_state_words, WA_ST__COUNT);
    out->patterns = words_to_bits(cJSON_GetObjectItemCaseSensitive(n, "patterns"),
                                  wa_pattern_short_words, WA_PAT__COUNT) |
                    words_to_bits(cJSON_GetObjectItemCaseSensitive(n, "patterns"), wa_pattern_words,
                                  WA_PAT__COUNT);
    out->hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(n, "hwnd"));
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

wa_err fake_tree_get_tree(uint64_t hwnd, const struct wa_tree_opts *o, struct wa_tree *out)
{
    cJSON *w = fake_scene_find_window(hwnd);
    if (!w)
        return fake_scene_no_window(hwnd);
    struct tree_walk_opts wo = {.max_nodes = o ? o->max_nodes : 0,
                                .budget_ms = o ? o->budget_ms : 0,
                                .keep_handles = o && o->keep_handles};
    wa_err e = tree_walk(&fake_source, w, &wo, out);
    if (e)
        return e;
    out->frame = fake_scene_json_rect(cJSON_GetObjectItemCaseSensitive(w, "rect"));
    out->hwnd = hwnd;
    out->title = str_dup(fake_scene_json_str(w, "title") ? fake_scene_json_str(w, "title") : "");
    out->process =
        str_dup(fake_scene_json_str(w, "process") ? fake_scene_json_str(w, "process") : "");
    return WA_E_OK;
}

wa_err fake_tree_element_action(struct wa_tree *t, size_t index, enum wa_element_action a,
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
    fake_scene_record("element_action", f);
    *via = "fake:pattern";
    if (fake_scene_ignores(n, names[a]))
        return WA_E_OK; /* it takes the action, and nothing changes */
    if (a == WA_ACT_SET_VALUE && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n, "readonly")))
        fake_scene_set_string(n, "value", value ? value : "");
    if (a == WA_ACT_FOCUS)
        fake_input_move_focus(n);
    if (a == WA_ACT_TOGGLE)
        fake_scene_toggle_check(n);
    if (a == WA_ACT_EXPAND || a == WA_ACT_COLLAPSE) {
        fake_scene_set_state(n, wa_state_words[WA_ST_INDEX_EXPANDED], a == WA_ACT_EXPAND);
        fake_scene_set_state(n, wa_state_words[WA_ST_INDEX_COLLAPSED], a == WA_ACT_COLLAPSE);
    }
    const struct fake_row *fr = row_of(n);
    int idx = fr ? cJSON_GetObjectItemCaseSensitive(n, "index")->valueint : -1;
    if (a == WA_ACT_SELECT && fr)
        coll_set(fr->coll, "selected", idx);
    else if (a == WA_ACT_SELECT)
        fake_scene_set_state(n, wa_state_words[WA_ST_INDEX_SELECTED], true);
    if (a == WA_ACT_SCROLL_INTO_VIEW && fr) {
        int top = coll_int(fr->coll, "top", 0), per_page = coll_int(fr->coll, "per_page", 1);
        if (idx < top || idx >= top + per_page)
            coll_set(fr->coll, "top", idx < top ? idx : idx - per_page + 1);
        struct tree_element_info now = {0};
        row_info(fake_scene_find_window(t->hwnd), fr, &now);
        t->nodes[index].bounds = now.bounds;
        t->nodes[index].states =
            (t->nodes[index].states & ~(unsigned)WA_ST_OFFSCREEN) | (now.states & WA_ST_OFFSCREEN);
    }
    return WA_E_OK;
}

wa_err fake_tree_element_states(struct wa_tree *t, size_t index, unsigned *states)
{
    cJSON *n = t->nodes[index].handle;
    cJSON *w = fake_scene_find_window(t->hwnd);
    if (!n || !w)
        return wa_fail(WA_E_STALE_REF, "the element is gone");
    struct tree_element_info now = {0};
    wa_err e = src_info(w, n, &now);
    *states = now.states;
    tree_element_info_cleanup(&now);
    return e;
}

wa_err fake_tree_check_box_point(struct wa_tree *t, size_t index, int *x, int *y)
{
    const cJSON *n = t->nodes[index].handle;
    const cJSON *w = fake_scene_find_window(t->hwnd);
    const cJSON *box = n ? cJSON_GetObjectItemCaseSensitive(n, "check_box") : NULL;
    if (!box || !w)
        return wa_fail(WA_E_UNSUPPORTED, "the element draws no check box of its own");
    wa_rect_center(fake_scene_bounds_to_physical(w, fake_scene_json_rect(box)), x, y);
    return WA_E_OK;
}

wa_err fake_tree_find_items(struct wa_tree *t, size_t index, const struct wa_item_query *q,
                            size_t max, size_t *added)
{
    cJSON *coll = t->nodes[index].handle;
    cJSON *w = fake_scene_find_window(t->hwnd);
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
    const char *v = fake_scene_json_str(n, "value");
    if (!v)
        return wa_fail(WA_E_UNSUPPORTED, "the element has no value");
    *value = str_dup(v);
    return *value ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

wa_err fake_tree_element_value(struct wa_tree *t, size_t index, char **value)
{
    const cJSON *n = t->nodes[index].handle;
    if (!n)
        return wa_fail(WA_E_STALE_REF, "the tree was walked without element handles");
    return node_value(n, value);
}

wa_err fake_tree_focused_value(uint64_t top, uint64_t *hwnd, char **value)
{
    cJSON *win = top ? fake_scene_find_window(top) : fake_scene_foreground_window();
    cJSON *node =
        win ? fake_input_focused_node(cJSON_GetObjectItemCaseSensitive(win, "tree")) : NULL;
    if (!node)
        return wa_fail(WA_E_UNSUPPORTED, "no control has the keyboard focus");
    *hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(node, "hwnd"));
    if (!*hwnd)
        *hwnd = fake_scene_json_hwnd(cJSON_GetObjectItemCaseSensitive(win, "hwnd"));
    return node_value(node, value);
}
