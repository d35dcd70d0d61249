/* The accessibility tree: its nodes, the generic walk with budgets and name fallbacks,
 * and the edits made to a walked tree (open menus first, subtrees spliced in, a cap on
 * nodes). Its text format is tree_format.c. */
#include "automation/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"
#include "base/str.h"

const char *const wa_state_words[WA_ST__COUNT] = {
#define X_WORD(name, word) word,
    WA_STATE_MAP(X_WORD)
#undef X_WORD
};

const char *const wa_pattern_words[WA_PAT__COUNT] = {
#define X_WORD(name, word, short_word) word,
    WA_PATTERN_MAP(X_WORD)
#undef X_WORD
};

const char *const wa_pattern_short_words[WA_PAT__COUNT] = {
#define X_WORD(name, word, short_word) short_word,
    WA_PATTERN_MAP(X_WORD)
#undef X_WORD
};

static wa_err reorder(struct wa_tree *t, const size_t *order, const int *reparent);

void tree_init(struct wa_tree *t)
{
    memset(t, 0, sizeof *t);
}

static void node_cleanup(struct wa_tree *t, struct wa_node *n)
{
    free(n->type);
    free(n->name);
    free(n->value);
    free(n->automation_id);
    free(n->class_name);
    free(n->runtime_id);
    free(n->accelerator);
    if (n->handle && t->release_handle)
        t->release_handle(n->handle);
    n->handle = NULL;
}

void tree_cleanup(struct wa_tree *t)
{
    for (size_t i = 0; i < t->count; i++)
        node_cleanup(t, &t->nodes[i]);
    free(t->nodes);
    free(t->title);
    free(t->process);
    tree_init(t);
}

/* The length of the UTF-8 sequence at p and its code point; 0 when it is not one
 * (a stray byte, an overlong form, a surrogate, past U+10FFFF). */
static size_t utf8_point(const unsigned char *p, unsigned long *cp)
{
    unsigned c = p[0];
    size_t n = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
    if (!n)
        return 0;
    unsigned long v = n == 1 ? c : c & (0xFFu >> (n + 1));
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    static const unsigned long least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

void tree_text_name(char *name)
{
    if (!name)
        return;
    unsigned char *in = (unsigned char *)name, *out = in;
    unsigned long cp = 0;
    if (utf8_point(in, &cp) == 3 && cp == 0xFFFF) { /* "\xFFFF" + id: a resource, not text */
        *name = '\0';
        return;
    }
    while (*in) {
        size_t n = utf8_point(in, &cp);
        if (!n) {
            in++; /* a byte that is no text */
            continue;
        }
        bool keep = !(cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') &&
                    !(cp >= 0x7F && cp < 0xA0) && !(cp >= 0xFDD0 && cp <= 0xFDEF) &&
                    (cp & 0xFFFE) != 0xFFFE;
        if (keep)
            memmove(out, in, n), out += n;
        in += n;
    }
    *out = '\0';
}

int tree_add_node(struct wa_tree *t, int parent, const struct tree_element_info *info)
{
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        struct wa_node *p = wa_reallocarray(t->nodes, cap, sizeof *p);
        if (!p)
            return -1;
        t->nodes = p;
        t->cap = cap;
    }
    struct wa_node *n = &t->nodes[t->count];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->depth = parent < 0 ? 0 : t->nodes[parent].depth + 1;
    n->type = str_dup(info->type && *info->type ? info->type : "Custom");
    n->name = str_dup(info->name ? info->name : "");
    tree_text_name(n->name);
    n->name_source = n->name && *n->name ? WA_NAME_PRIMARY : WA_NAME_NONE;
    n->value = str_dup(info->value);
    n->automation_id = str_dup(info->automation_id);
    n->class_name = str_dup(info->class_name);
    n->runtime_id = str_dup(info->runtime_id);
    n->bounds = info->bounds;
    n->states = info->states;
    n->patterns = info->patterns;
    n->hwnd = info->hwnd;
    n->child_id = info->child_id;
    n->accelerator = str_dup(info->accelerator);
    n->items_unreadable = info->items_unreadable;
    n->coll = info->coll;
    n->coll_item = info->coll_item;
    n->item_index = info->coll_item ? info->item_index : -1;
    n->sig = info->sig;
    n->pix = info->pix;
    if (!n->type || !n->name || (info->value && !n->value) ||
        (info->automation_id && !n->automation_id) || (info->class_name && !n->class_name) ||
        (info->runtime_id && !n->runtime_id) || (info->accelerator && !n->accelerator)) {
        node_cleanup(t, n);
        return -1;
    }
    return (int)t->count++;
}

void tree_element_info_cleanup(struct tree_element_info *i)
{
    free(i->type);
    free(i->name);
    free(i->automation_id);
    free(i->class_name);
    free(i->value);
    free(i->runtime_id);
    free(i->accelerator);
    memset(i, 0, sizeof *i);
}

bool tree_element_info_copy(const struct tree_element_info *in, struct tree_element_info *out)
{
    *out = *in;
    out->type = str_dup(in->type);
    out->name = str_dup(in->name);
    out->automation_id = str_dup(in->automation_id);
    out->class_name = str_dup(in->class_name);
    out->value = str_dup(in->value);
    out->runtime_id = str_dup(in->runtime_id);
    out->accelerator = str_dup(in->accelerator);
    if ((in->type && !out->type) || (in->name && !out->name) ||
        (in->automation_id && !out->automation_id) || (in->class_name && !out->class_name) ||
        (in->value && !out->value) || (in->runtime_id && !out->runtime_id) ||
        (in->accelerator && !out->accelerator)) {
        tree_element_info_cleanup(out);
        return false;
    }
    return true;
}

bool tree_node_info(const struct wa_tree *t, size_t i, struct tree_element_info *out)
{
    const struct wa_node *n = &t->nodes[i];
    struct tree_element_info view = {
        .type = n->type,
        .name = n->name,
        .automation_id = n->automation_id,
        .class_name = n->class_name,
        .value = n->value,
        .runtime_id = n->runtime_id,
        .bounds = n->bounds,
        .states = n->states,
        .patterns = n->patterns,
        .hwnd = n->hwnd,
        .child_id = n->child_id,
        .accelerator = n->accelerator,
        .items_unreadable = n->items_unreadable,
        .coll = n->coll,
        .coll_item = n->coll_item,
        .item_index = n->item_index,
        .sig = n->sig,
        .pix = n->pix,
    };
    return tree_element_info_copy(&view, out);
}

/* Copies s[0..n) with blanks trimmed at both ends and '&' markers removed when
 * marked ("&&" stays one '&'). */
static char *menu_part(const char *s, size_t n, bool marked)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (marked && s[i] == '&') {
            if (i + 1 < n && s[i + 1] == '&')
                out[k++] = s[++i];
            continue;
        }
        out[k++] = s[i];
    }
    out[k] = '\0';
    return out;
}

void tree_menu_item_text(struct tree_element_info *info, bool marked)
{
    if (!info->name)
        return;
    const char *tab = strchr(info->name, '\t');
    size_t n = tab ? (size_t)(tab - info->name) : strlen(info->name);
    char *name = menu_part(info->name, n, marked);
    char *accel = tab ? menu_part(tab + 1, strlen(tab + 1), false) : NULL;
    if (!name || (tab && !accel)) {
        free(name);
        free(accel);
        return; /* out of memory: the text stays as it was */
    }
    free(info->name);
    info->name = name;
    if (accel && *accel) {
        free(info->accelerator);
        info->accelerator = accel;
    } else {
        free(accel);
    }
}

/* Text-bearing controls whose window text is their content, not their name. */
static bool text_is_content(const char *type)
{
    return type && (strcmp(type, "Edit") == 0 || strcmp(type, "Document") == 0);
}

/* docs/contract.md §5's name fallbacks and the Pane/Button correction, applied to one element. */
static void apply_fallbacks(const struct tree_source_ops *src, void *ctx,
                            struct tree_element_info *info, enum wa_name_source *source)
{
    if (info->type && strcmp(info->type, "Pane") == 0 && info->class_name &&
        str_ieq(info->class_name, "Button")) {
        free(info->type);
        info->type = str_dup("Button");
    }
    *source = WA_NAME_PRIMARY;
    tree_text_name(info->name); /* an image's resource id is no name: the next one is asked */
    if (info->name && *info->name)
        return;
    char *name = NULL;
    if (info->automation_id && *info->automation_id) {
        name = str_dup(info->automation_id);
        tree_text_name(name);
        *source = WA_NAME_AUTOMATION_ID;
    }
    if ((!name || !*name) && info->hwnd && src->window_text && !text_is_content(info->type)) {
        free(name);
        name = NULL;
        if (src->window_text(ctx, info->hwnd, &name) == WA_E_OK)
            tree_text_name(name);
        if (name && *name)
            *source = WA_NAME_WINDOW_TEXT;
    }
    if (!name || !*name) {
        free(name);
        name = NULL;
    }
    if (!name && info->hwnd && src->msaa_name &&
        src->msaa_name(ctx, info->hwnd, &name) == WA_E_OK && name && (tree_text_name(name), *name))
        *source = WA_NAME_MSAA;
    else if (!name || !*name) {
        free(name);
        name = NULL;
    }
    if (!name) {
        *source = WA_NAME_NONE;
        return;
    }
    free(info->name);
    info->name = name;
}

/* An element off screen, read and put off until everything on screen is in. */
struct later {
    void *el;
    struct tree_element_info info;
    int parent;  /* node index */
    int ordinal; /* its place among its parent's children */
};

/* What the walk keeps of each node: its place among its siblings (the order is made
 * depth-first again at the end when elements were put off) and whether it shows. */
struct node_meta {
    int ordinal;
    bool on_screen;
};

struct walk {
    const struct tree_source_ops *src;
    void *ctx;
    struct tree_walk_opts o;
    struct wa_tree *t;
    int64_t deadline;
    bool stop;
    struct wa_rect frame; /* the root's bounds: what is on screen */
    bool deferring;       /* first pass: elements off screen are put off */
    int cap;              /* nodes this pass may reach */
    struct later *later;  /* put off, in the order met */
    size_t n_later, cap_later;
    struct node_meta *meta; /* per node */
    size_t cap_meta;
};

static bool walk_out_of_budget(struct walk *w)
{
    if (w->stop)
        return true;
    if ((int)w->t->count >= w->cap) {
        w->t->truncated = true;
        w->stop = true;
    } else if (os_now_ms() > w->deadline) {
        w->t->timed_out = true;
        w->stop = true;
    }
    return w->stop;
}

static void release_element(struct walk *w, void *el)
{
    if (el && w->src->release)
        w->src->release(w->ctx, el);
}

/* What the source says of el (an element that cannot describe itself is still a
 * node, of type Custom). */
static void read_info(struct walk *w, void *el, struct tree_element_info *info)
{
    memset(info, 0, sizeof *info);
    if (!w->src->info || w->src->info(w->ctx, el, info) != WA_E_OK)
        tree_element_info_cleanup(info);
    if (info->type && strcmp(info->type, "MenuItem") == 0)
        tree_menu_item_text(info, false);
}

/* Whether an element shows: not marked off screen, and its bounds meet the frame;
 * one without bounds shows where its parent does. */
static bool info_on_screen(const struct walk *w, const struct tree_element_info *info,
                           bool parent_on_screen)
{
    if (info->states & WA_ST_OFFSCREEN)
        return false;
    if (wa_rect_empty(info->bounds))
        return parent_on_screen;
    return wa_rect_empty(w->frame) || !wa_rect_empty(wa_rect_intersect(info->bounds, w->frame));
}

/* Room in w->meta for one more node. */
static bool meta_room(struct walk *w)
{
    if (w->t->count < w->cap_meta)
        return true;
    size_t cap = 2 * w->t->count + 64;
    struct node_meta *p = wa_reallocarray(w->meta, cap, sizeof *p);
    if (!p)
        return false;
    w->meta = p;
    w->cap_meta = cap;
    return true;
}

/* Adds element el, described by info (taken), under parent; takes ownership of el.
 * Returns the node index or -1. */
static int walk_add(struct walk *w, void *el, struct tree_element_info *info, int parent,
                    int ordinal, bool on_screen)
{
    enum wa_name_source source;
    apply_fallbacks(w->src, w->ctx, info, &source);
    int idx = meta_room(w) ? tree_add_node(w->t, parent, info) : -1;
    tree_element_info_cleanup(info);
    if (idx < 0) {
        release_element(w, el);
        w->stop = true;
        return -1;
    }
    w->meta[idx] = (struct node_meta){ordinal, on_screen};
    w->t->nodes[idx].name_source = source;
    if (w->o.keep_handles)
        w->t->nodes[idx].handle = el;
    return idx;
}

/* Puts el (read into info, both taken) off until the elements on screen are in. */
static bool put_off(struct walk *w, void *el, struct tree_element_info *info, int parent,
                    int ordinal)
{
    if (w->n_later == w->cap_later) {
        size_t cap = w->cap_later ? 2 * w->cap_later : 64;
        struct later *p = wa_reallocarray(w->later, cap, sizeof *p);
        if (!p) {
            tree_element_info_cleanup(info);
            release_element(w, el);
            return false;
        }
        w->later = p;
        w->cap_later = cap;
    }
    w->later[w->n_later++] = (struct later){el, *info, parent, ordinal};
    memset(info, 0, sizeof *info);
    return true;
}

static void walk_children(struct walk *w, void *el, int idx)
{
    if (w->t->nodes[idx].depth + 1 > w->o.max_depth || !w->src->first_child)
        return;
    void *child = NULL;
    if (w->src->first_child(w->ctx, el, &child) != WA_E_OK)
        return; /* a branch that fails is skipped, the walk goes on */
    bool parent_on_screen = w->meta[idx].on_screen;
    for (int ordinal = 0; child; ordinal++) {
        if (walk_out_of_budget(w)) {
            release_element(w, child);
            return;
        }
        struct tree_element_info info;
        read_info(w, child, &info);
        bool on_screen = info_on_screen(w, &info, parent_on_screen);
        void *next = NULL;
        if (!w->src->next_sibling || w->src->next_sibling(w->ctx, child, &next) != WA_E_OK)
            next = NULL;
        if (!on_screen && w->deferring) {
            if (!put_off(w, child, &info, idx, ordinal)) {
                release_element(w, next);
                w->stop = true;
                return;
            }
        } else {
            int ci = walk_add(w, child, &info, idx, ordinal, on_screen);
            if (ci < 0) {
                release_element(w, next);
                return;
            }
            walk_children(w, child, ci);
            if (!w->o.keep_handles)
                release_element(w, child);
        }
        child = next;
    }
}

/* The second pass: the elements put off, each with its subtree, in the order they were
 * met, while the node budget lasts. */
static void walk_later(struct walk *w)
{
    w->deferring = false;
    w->cap = w->o.max_nodes;
    size_t i = 0;
    for (; i < w->n_later && !walk_out_of_budget(w); i++) {
        struct later *l = &w->later[i];
        void *el = l->el;
        l->el = NULL; /* walk_add takes it */
        int ci = walk_add(w, el, &l->info, l->parent, l->ordinal, false);
        if (ci < 0) {
            i++;
            break;
        }
        walk_children(w, el, ci);
        if (!w->o.keep_handles)
            release_element(w, el);
    }
    for (; i < w->n_later; i++) { /* what the budget left out */
        w->t->truncated = true;
        tree_element_info_cleanup(&w->later[i].info);
        release_element(w, w->later[i].el);
    }
}

/* Makes the order of the nodes depth-first again (the second pass added its nodes after
 * the first pass's): each node after its parent, siblings in the order met. */
static wa_err walk_order(struct walk *w)
{
    struct wa_tree *t = w->t;
    size_t n = t->count;
    size_t *first = calloc(n + 1, sizeof *first), *kids = calloc(n ? n : 1, sizeof *kids);
    size_t *order = calloc(n ? n : 1, sizeof *order), *stack = calloc(n ? n : 1, sizeof *stack);
    int *reparent = calloc(n ? n : 1, sizeof *reparent);
    wa_err e = first && kids && order && stack && reparent ? WA_E_OK
                                                           : wa_fail(WA_E_NOMEM, "out of memory");
    if (!e) {
        /* Children grouped by parent (counting sort), each group by ordinal. */
        for (size_t i = 1; i < n; i++)
            first[t->nodes[i].parent + 1]++;
        for (size_t p = 1; p <= n; p++)
            first[p] += first[p - 1];
        size_t *fill = stack; /* borrowed until the walk below */
        memcpy(fill, first, n * sizeof *fill);
        for (size_t i = 1; i < n; i++)
            kids[fill[t->nodes[i].parent]++] = i;
        for (size_t p = 0; p < n; p++)
            for (size_t a = first[p] + 1; a < first[p + 1]; a++)
                for (size_t b = a;
                     b > first[p] && w->meta[kids[b - 1]].ordinal > w->meta[kids[b]].ordinal; b--) {
                    size_t tmp = kids[b];
                    kids[b] = kids[b - 1];
                    kids[b - 1] = tmp;
                }
        /* Depth-first from the root: a stack of nodes still to place. */
        size_t k = 0, top = 0;
        stack[top++] = 0;
        while (top) {
            size_t i = stack[--top];
            order[k++] = i;
            for (size_t c = first[i + 1]; c > first[i]; c--)
                stack[top++] = kids[c - 1];
        }
        for (size_t i = 0; i < n; i++)
            reparent[i] = -2;
        e = reorder(t, order, reparent);
    }
    free(first);
    free(kids);
    free(order);
    free(stack);
    free(reparent);
    return e;
}

wa_err tree_walk(const struct tree_source_ops *src, void *ctx, const struct tree_walk_opts *opts,
                 struct wa_tree *t)
{
    struct walk w = {.src = src, .ctx = ctx, .t = t, .deferring = true};
    w.o.max_nodes = opts && opts->max_nodes > 0 ? opts->max_nodes : 500;
    w.o.max_depth = opts && opts->max_depth > 0 ? opts->max_depth : 64;
    w.o.budget_ms = opts && opts->budget_ms > 0 ? opts->budget_ms : 3000;
    w.o.keep_handles = opts && opts->keep_handles;
    /* What shows is never cut for what does not: the first pass spends the budget on
     * the elements on screen, the second on what is left. */
    w.cap = w.o.max_nodes;
    int64_t start = os_now_ms();
    w.deadline = start + w.o.budget_ms;
    t->source = src->name;

    void *root = NULL;
    wa_err e = src->root ? src->root(ctx, &root) : WA_E_UNSUPPORTED;
    if (e || !root)
        return e ? e : wa_fail(WA_E_ELEMENT_NOT_FOUND, "the %s source has no root", src->name);
    struct tree_element_info info;
    read_info(&w, root, &info);
    w.frame = info.bounds;
    int ri = walk_add(&w, root, &info, -1, 0, true);
    if (ri < 0) {
        free(w.meta);
        return wa_fail(WA_E_NOMEM, "out of memory walking the tree");
    }
    walk_children(&w, root, ri);
    size_t first_pass = t->count;
    if (!w.stop && t->count < (size_t)w.o.max_nodes) {
        walk_later(&w);
    } else {
        for (size_t i = 0; i < w.n_later; i++) {
            tree_element_info_cleanup(&w.later[i].info);
            release_element(&w, w.later[i].el);
        }
        t->truncated |= w.n_later > 0 && !t->timed_out;
    }
    if (t->count > first_pass && first_pass > 1)
        e = walk_order(&w);
    if (!w.o.keep_handles)
        release_element(&w, root);
    free(w.later);
    free(w.meta);
    t->walk_ms = (double)(os_now_ms() - start);
    return e;
}

/* ---- menus ---- */

bool tree_node_is_open_menu(const struct wa_node *n)
{
    return n->type && strcmp(n->type, "Menu") == 0;
}

/* The index just past node i's subtree (nodes are in depth-first order). */
static size_t subtree_end(const struct wa_tree *t, size_t i)
{
    size_t j = i + 1;
    while (j < t->count && t->nodes[j].depth > t->nodes[i].depth)
        j++;
    return j;
}

/* Rebuilds t's nodes in the order `order` (old indexes), fixing parents and depths;
 * `reparent[k]` (old index) gives a node a new parent (old index), or -2 to keep it. */
static wa_err reorder(struct wa_tree *t, const size_t *order, const int *reparent)
{
    struct wa_node *nodes = calloc(t->cap ? t->cap : 1, sizeof *nodes);
    int *where = calloc(t->count ? t->count : 1, sizeof *where); /* old -> new */
    if (!nodes || !where) {
        free(nodes);
        free(where);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < t->count; k++)
        where[order[k]] = (int)k;
    for (size_t k = 0; k < t->count; k++) {
        size_t old = order[k];
        nodes[k] = t->nodes[old];
        int p = reparent[old] != -2 ? reparent[old] : t->nodes[old].parent;
        nodes[k].parent = p < 0 ? -1 : where[p];
        nodes[k].depth = p < 0 ? 0 : nodes[nodes[k].parent].depth + 1;
    }
    free(t->nodes);
    t->nodes = nodes;
    free(where);
    return WA_E_OK;
}

wa_err tree_hoist_menus(struct wa_tree *t)
{
    bool any = false;
    for (size_t i = 1; i < t->count && !any; i++)
        any = tree_node_is_open_menu(&t->nodes[i]) && t->nodes[i].parent != 0;
    if (!any) {
        /* Already children of the root: only their place among the root's children. */
        size_t first_other = 0;
        bool misplaced = false;
        for (size_t i = 1; i < t->count; i = subtree_end(t, i)) {
            if (!tree_node_is_open_menu(&t->nodes[i]))
                first_other = first_other ? first_other : i;
            else if (first_other)
                misplaced = true;
        }
        if (!misplaced)
            return WA_E_OK;
    }
    size_t *order = calloc(t->count, sizeof *order);
    int *reparent = calloc(t->count, sizeof *reparent);
    bool *moved = calloc(t->count, sizeof *moved);
    wa_err e = order && reparent && moved ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
    if (!e) {
        size_t k = 0;
        order[k++] = 0;
        for (size_t i = 0; i < t->count; i++)
            reparent[i] = -2;
        for (size_t i = 1; i < t->count;) {
            if (!tree_node_is_open_menu(&t->nodes[i])) {
                i++;
                continue;
            }
            size_t end = subtree_end(t, i);
            reparent[i] = 0;
            for (size_t j = i; j < end; j++) {
                order[k++] = j;
                moved[j] = true;
            }
            i = end;
        }
        for (size_t i = 1; i < t->count; i++)
            if (!moved[i])
                order[k++] = i;
        e = reorder(t, order, reparent);
    }
    free(order);
    free(reparent);
    free(moved);
    return e;
}

wa_err tree_splice_under(struct wa_tree *t, size_t at, struct wa_tree *sub, bool keep_handles)
{
    if (at >= t->count || sub->count <= 1)
        return WA_E_OK;
    size_t add = sub->count - 1;
    if (t->count + add > t->cap) {
        struct wa_node *p = wa_reallocarray(t->nodes, t->count + add, sizeof *p);
        if (!p)
            return wa_fail(WA_E_NOMEM, "out of memory");
        t->nodes = p;
        t->cap = t->count + add;
    }
    /* Shift the nodes after `at` up by `add`, then fill the gap: sub's node k lands at
     * at + k, so its parent 0 becomes `at` and parent p becomes at + p. */
    memmove(&t->nodes[at + 1 + add], &t->nodes[at + 1], (t->count - at - 1) * sizeof *t->nodes);
    for (size_t i = at + 1 + add; i < t->count + add; i++)
        if (t->nodes[i].parent > (int)at)
            t->nodes[i].parent += (int)add;
    for (size_t i = 1; i < sub->count; i++) {
        struct wa_node *n = &t->nodes[at + i];
        *n = sub->nodes[i];
        n->parent = (int)at + (n->parent > 0 ? n->parent : 0);
        n->depth = t->nodes[n->parent].depth + 1;
        if (!keep_handles && n->handle && sub->release_handle)
            sub->release_handle(n->handle);
        if (!keep_handles)
            n->handle = NULL;
        memset(&sub->nodes[i], 0, sizeof sub->nodes[i]);
    }
    t->count += add;
    sub->count = 1; /* its nodes belong to t now */
    return WA_E_OK;
}

bool tree_node_on_screen(const struct wa_tree *t, size_t i)
{
    struct wa_rect frame = !wa_rect_empty(t->frame) ? t->frame : t->nodes[0].bounds;
    for (const struct wa_node *n = &t->nodes[i];; n = &t->nodes[n->parent]) {
        if (n->states & WA_ST_OFFSCREEN)
            return false;
        if (!wa_rect_empty(n->bounds))
            return wa_rect_empty(frame) || !wa_rect_empty(wa_rect_intersect(n->bounds, frame));
        if (n->parent < 0)
            return false; /* nothing says where it is */
    }
}

void tree_cap_nodes(struct wa_tree *t, size_t max)
{
    if (t->count <= max || t->count <= 1)
        return;
    bool *keep = calloc(t->count, sizeof *keep);
    int *where = calloc(t->count, sizeof *where);
    if (!keep || !where) { /* out of memory: the depth-first tail goes, as a walk cuts */
        free(keep);
        free(where);
        while (t->count > max && t->count > 1) {
            node_cleanup(t, &t->nodes[--t->count]);
            memset(&t->nodes[t->count], 0, sizeof t->nodes[t->count]);
        }
        t->truncated = true;
        return;
    }
    /* What shows first, with the elements that hold it, in depth-first order; then the
     * rest in that order, while the budget lasts. */
    size_t kept = 1;
    keep[0] = true;
    for (size_t i = 1; i < t->count && kept < max; i++) {
        if (keep[i] || !tree_node_on_screen(t, i))
            continue;
        size_t need = 0;
        for (int p = (int)i; p >= 0 && !keep[p]; p = t->nodes[p].parent)
            need++;
        if (kept + need > max)
            continue;
        for (int p = (int)i; p >= 0 && !keep[p]; p = t->nodes[p].parent)
            keep[p] = true;
        kept += need;
    }
    for (size_t i = 1; i < t->count; i++)
        if (!keep[i] && kept < max && keep[t->nodes[i].parent]) {
            keep[i] = true;
            kept++;
        }
    size_t k = 0;
    for (size_t i = 0; i < t->count; i++) {
        if (!keep[i]) {
            node_cleanup(t, &t->nodes[i]);
            continue;
        }
        where[i] = (int)k;
        struct wa_node n = t->nodes[i];
        n.parent = n.parent < 0 ? -1 : where[n.parent];
        t->nodes[k++] = n;
    }
    if (k < t->count)
        memset(&t->nodes[k], 0, (t->count - k) * sizeof *t->nodes);
    t->count = k;
    t->truncated = true;
    free(keep);
    free(where);
}
