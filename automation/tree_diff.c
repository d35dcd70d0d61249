/* The difference between two walks of a window, by element identity. */
#include "automation/tree_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/tree_format.h"
#include "base/str.h"

#define DIFF_TEXT_MAX (256u << 10)

void tree_diff_init(struct tree_diff *d)
{
    memset(d, 0, sizeof *d);
    dynbuf_init(&d->lines, DIFF_TEXT_MAX);
    dynbuf_init(&d->still_open, DIFF_TEXT_MAX);
}

void tree_diff_cleanup(struct tree_diff *d)
{
    dynbuf_cleanup(&d->lines);
    dynbuf_cleanup(&d->still_open);
    tree_diff_init(d);
}

void tree_mark_all_new(struct wa_tree *t)
{
    for (size_t i = 0; i < t->count; i++)
        t->nodes[i].is_new = true;
}

struct keyed {
    char *key;
    size_t index;
    bool used;
};

/* Position of node i among its parent's children; open menus and the other children
 * are counted apart, so a menu listed first does not move the window's elements. */
static int sibling_position(const struct wa_tree *t, size_t i)
{
    int parent = t->nodes[i].parent, pos = 0;
    bool menu = tree_node_is_open_menu(&t->nodes[i]);
    for (size_t s = (size_t)(parent + 1); s < i; s++)
        if (t->nodes[s].parent == parent && tree_node_is_open_menu(&t->nodes[s]) == menu)
            pos++;
    return pos;
}

/* The identity keys of every node of t, in tree order; NULL when out of memory. Items of
 * a long collection are keyed by their index there; other nodes without a runtime id or
 * window key are named by their parent's key, so moving a subtree elsewhere makes its
 * elements new. */
static struct keyed *make_keys(const struct wa_tree *t)
{
    struct keyed *k = calloc(t->count ? t->count : 1, sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        char buf[1024];
        if (n->runtime_id && *n->runtime_id)
            snprintf(buf, sizeof buf, "r:%s", n->runtime_id);
        else if (n->coll_item && n->item_index >= 0 && n->parent >= 0)
            /* a row stays itself while it scrolls in and out of view, renamed or not */
            snprintf(buf, sizeof buf, "i:%.400s#%d|%s", k[n->parent].key, n->item_index, n->type);
        else if (n->hwnd)
            snprintf(buf, sizeof buf, "h:%llx:%ld:%s", (unsigned long long)n->hwnd, n->child_id,
                     n->type);
        else
            snprintf(buf, sizeof buf, "p:%.400s/%s|%s|%.200s|%d",
                     n->parent >= 0 ? k[n->parent].key : "", n->type,
                     n->automation_id ? n->automation_id : "", n->name, sibling_position(t, i));
        k[i].key = str_dup(buf);
        k[i].index = i;
        if (!k[i].key) {
            for (size_t j = 0; j < i; j++)
                free(k[j].key);
            free(k);
            return NULL;
        }
    }
    return k;
}

static void free_keys(struct keyed *k, size_t n)
{
    for (size_t i = 0; k && i < n; i++)
        free(k[i].key);
    free(k);
}

static int by_key(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The first unused entry of the sorted array with this key, or NULL. */
static struct keyed *lookup(struct keyed *sorted, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* lower bound */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(sorted[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && strcmp(sorted[lo].key, key) == 0; lo++)
        if (!sorted[lo].used)
            return &sorted[lo];
    return NULL;
}

static void describe(struct dynbuf *b, const struct wa_tree *t, size_t i)
{
    const struct wa_node *n = &t->nodes[i];
    dynbuf_addf(b, "[%zu] %s ", i + 1, n->type);
    tree_quote(n->name, b);
}

/* Whether node i is an open menu or inside one. */
static bool in_open_menu(const struct wa_tree *t, size_t i)
{
    for (int p = (int)i; p >= 0; p = t->nodes[p].parent)
        if (tree_node_is_open_menu(&t->nodes[p]))
            return true;
    return false;
}

/* "menu opened: \"File\" ([2] Menu, 9 items)": the items follow as new nodes. For a
 * menu that was open before the action and still is (still_open), "menu open: \"File\"
 * ([2] Menu, 9 items, at [4] MenuItem \"Open...\")", with the item that has the keyboard
 * (arrows and letters move it) where it can be read. */
static void describe_menu(struct dynbuf *b, const struct wa_tree *t, size_t i, bool still_open)
{
    const struct wa_node *n = &t->nodes[i];
    size_t items = 0;
    int at = -1;
    for (size_t j = i + 1; j < t->count && t->nodes[j].depth > n->depth; j++) {
        if (t->nodes[j].parent != (int)i)
            continue;
        items += strcmp(t->nodes[j].type, "MenuItem") == 0;
        if (still_open && at < 0 && (t->nodes[j].states & (WA_ST_FOCUSED | WA_ST_SELECTED)))
            at = (int)j;
    }
    dynbuf_adds(b, still_open ? "menu open: " : "menu opened: ");
    tree_quote(n->name, b);
    dynbuf_addf(b, " ([%zu] Menu, ", i + 1);
    if (n->items_unreadable)
        dynbuf_adds(b, "items not readable");
    else
        dynbuf_addf(b, "%zu item%s", items, items == 1 ? "" : "s");
    if (at >= 0) {
        dynbuf_adds(b, ", at ");
        describe(b, t, (size_t)at);
    }
    dynbuf_adds(b, ")\n");
}

/* A line for d unless max_lines are written already (then only counted). */
static bool want_line(size_t max_lines, size_t *lines)
{
    return (*lines)++ < max_lines;
}

static int focused(const struct wa_tree *t)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->nodes[i].states & WA_ST_FOCUSED)
            return (int)i;
    return -1;
}

static void compare_matched(const struct wa_tree *before, size_t bi, const struct wa_tree *after,
                            size_t ai, size_t max_lines, size_t *lines, struct tree_diff *d)
{
    const struct wa_node *b = &before->nodes[bi], *a = &after->nodes[ai];
    bool changed = false;
    if (strcmp(b->name, a->name) != 0) {
        changed = true;
        if (want_line(max_lines, lines)) {
            dynbuf_adds(&d->lines, "name: ");
            describe(&d->lines, after, ai);
            dynbuf_adds(&d->lines, " was ");
            tree_quote(b->name, &d->lines);
            dynbuf_addc(&d->lines, '\n');
        }
    }
    bool value_changed = (b->value == NULL) != (a->value == NULL) ||
                         (b->value && a->value && strcmp(b->value, a->value) != 0);
    if (value_changed) {
        changed = true;
        if (want_line(max_lines, lines)) {
            dynbuf_adds(&d->lines, "value: ");
            describe(&d->lines, after, ai);
            dynbuf_adds(&d->lines, " ");
            tree_quote(b->value ? b->value : "", &d->lines);
            dynbuf_adds(&d->lines, " -> ");
            tree_quote(a->value ? a->value : "", &d->lines);
            dynbuf_addc(&d->lines, '\n');
        }
    }
    unsigned diff = (b->states ^ a->states) & ~(unsigned)(WA_ST_FOCUSED | WA_ST_FOCUSABLE);
    if (diff) {
        changed = true;
        if (want_line(max_lines, lines)) {
            dynbuf_adds(&d->lines, "states: ");
            describe(&d->lines, after, ai);
            for (int k = 0; k < WA_ST__COUNT; k++)
                if (diff & (1u << k) & ~(unsigned)WA_ST_FOCUSABLE)
                    dynbuf_addf(&d->lines, " %c%s", a->states & (1u << k) ? '+' : '-',
                                wa_state_words[k]);
            dynbuf_addc(&d->lines, '\n');
        }
    }
    d->n_changed += changed;
}

/* A long collection whose summary or listed items changed (it scrolled, grew, shrank):
 * one line, "items: [5] List \"Files\" 3000 items, 2681-2719 shown (was 3000 items, 0-38
 * shown); 41 listed anew, 39 no longer". */
static void describe_collection(const struct wa_tree *before, size_t bi,
                                const struct wa_tree *after, size_t ai, size_t came, size_t went,
                                size_t max_lines, size_t *lines, struct tree_diff *d)
{
    const struct wa_collection *b = &before->nodes[bi].coll, *a = &after->nodes[ai].coll;
    bool summary = b->count != a->count || b->first != a->first || b->last != a->last ||
                   b->in_view != a->in_view || b->is != a->is;
    if (!summary && !came && !went)
        return;
    d->n_changed += summary;
    if (!want_line(max_lines, lines))
        return;
    dynbuf_adds(&d->lines, "items: ");
    describe(&d->lines, after, ai);
    tree_collection_words(a, &d->lines);
    if (summary && b->is) {
        dynbuf_adds(&d->lines, " (was");
        tree_collection_words(b, &d->lines);
        dynbuf_addc(&d->lines, ')');
    }
    if (came || went)
        dynbuf_addf(&d->lines, "; %zu listed anew, %zu no longer", came, went);
    dynbuf_addc(&d->lines, '\n');
}

wa_err tree_diff(const struct wa_tree *before, struct wa_tree *after, size_t max_lines,
                 struct tree_diff *d)
{
    dynbuf_reset(&d->lines);
    dynbuf_reset(&d->still_open);
    d->n_new = d->n_vanished = d->n_changed = 0;
    d->focus_moved = false;
    struct keyed *bk = make_keys(before), *ak = make_keys(after);
    int *match = calloc(after->count ? after->count : 1, sizeof *match); /* after -> before */
    int *back = calloc(before->count ? before->count : 1, sizeof *back); /* before -> after */
    /* per collection of after: its items listed anew, and those no longer listed */
    size_t *came = calloc(after->count ? after->count : 1, sizeof *came);
    size_t *went = calloc(after->count ? after->count : 1, sizeof *went);
    wa_err e =
        bk && ak && match && back && came && went ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
    if (e)
        goto out;
    qsort(bk, before->count, sizeof *bk, by_key);
    size_t lines = 0;
    for (size_t i = 0; i < after->count; i++) {
        struct keyed *m = lookup(bk, before->count, ak[i].key);
        match[i] = m ? (int)m->index : -1;
        if (m)
            m->used = true;
        after->nodes[i].is_new = !m;
    }
    for (size_t i = 0; i < before->count; i++)
        back[i] = -1;
    for (size_t i = 0; i < after->count; i++)
        if (match[i] >= 0)
            back[match[i]] = (int)i;
    for (size_t i = 0; i < after->count; i++) {
        if (match[i] >= 0) {
            compare_matched(before, (size_t)match[i], after, i, max_lines, &lines, d);
            continue;
        }
        d->n_new++;
        /* a new subtree is one line: its root; items a collection lists anew are its line */
        int parent = after->nodes[i].parent;
        if (parent >= 0 && after->nodes[parent].is_new)
            continue;
        if (parent >= 0 && after->nodes[i].coll_item && after->nodes[parent].coll.is) {
            came[parent]++;
            continue;
        }
        if (!want_line(max_lines, &lines))
            continue;
        if (tree_node_is_open_menu(&after->nodes[i])) {
            describe_menu(&d->lines, after, i, false);
            continue;
        }
        dynbuf_adds(&d->lines, "new: ");
        describe(&d->lines, after, i);
        dynbuf_addc(&d->lines, '\n');
    }
    for (size_t i = 0; i < before->count; i++) {
        const struct wa_node *n = &before->nodes[bk[i].index];
        if (bk[i].used || !tree_node_is_open_menu(n) || !want_line(max_lines, &lines))
            continue;
        dynbuf_adds(&d->lines, "menu closed: ");
        tree_quote(n->name, &d->lines);
        dynbuf_addc(&d->lines, '\n');
    }
    size_t gone_others = 0; /* not in a closed menu, which has its line above */
    for (size_t i = 0; i < before->count; i++)
        if (!bk[i].used) {
            const struct wa_node *n = &before->nodes[bk[i].index];
            int owner = n->coll_item && n->parent >= 0 ? back[n->parent] : -1;
            d->n_vanished++;
            if (owner >= 0 && after->nodes[owner].coll.is)
                went[owner]++; /* its collection's line says it */
            else
                gone_others += !in_open_menu(before, bk[i].index);
        }
    for (size_t i = 0; i < after->count; i++)
        if (match[i] >= 0 && after->nodes[i].coll.is)
            describe_collection(before, (size_t)match[i], after, i, came[i], went[i], max_lines,
                                &lines, d);
    if (gone_others && want_line(max_lines, &lines)) {
        dynbuf_addf(&d->lines, "gone: %zu element%s, among them ", gone_others,
                    gone_others == 1 ? "" : "s");
        size_t shown = 0;
        for (size_t i = 0; i < before->count && shown < 3; i++) {
            const struct wa_node *n = &before->nodes[bk[i].index];
            if (bk[i].used || !*n->name || in_open_menu(before, bk[i].index))
                continue; /* the named ones say most */
            dynbuf_adds(&d->lines, shown++ ? ", " : "");
            dynbuf_addf(&d->lines, "%s ", n->type);
            tree_quote(n->name, &d->lines);
        }
        if (!shown)
            dynbuf_adds(&d->lines, "unnamed ones");
        dynbuf_addc(&d->lines, '\n');
    }
    int fb = focused(before), fa = focused(after);
    bool same_focus = (fb < 0 && fa < 0) || (fa >= 0 && match[fa] >= 0 && match[fa] == fb);
    if (!same_focus && (fa >= 0 || fb >= 0)) {
        d->focus_moved = true;
        if (want_line(max_lines, &lines)) {
            dynbuf_adds(&d->lines, "focus: ");
            if (fa >= 0)
                describe(&d->lines, after, (size_t)fa);
            else
                dynbuf_adds(&d->lines, "none");
            if (fb >= 0) {
                dynbuf_adds(&d->lines, " (was ");
                dynbuf_addf(&d->lines, "%s ", before->nodes[fb].type);
                tree_quote(before->nodes[fb].name, &d->lines);
                dynbuf_adds(&d->lines, ")");
            }
            dynbuf_addc(&d->lines, '\n');
        }
    }
    if (lines > max_lines)
        dynbuf_addf(&d->lines, "... and %zu more changes\n", lines - max_lines);
    for (size_t i = 0; i < after->count; i++)
        if (match[i] >= 0 && tree_node_is_open_menu(&after->nodes[i]))
            describe_menu(&d->still_open, after, i, true);
out:
    free_keys(bk, before->count);
    free_keys(ak, after->count);
    free(match);
    free(back);
    free(came);
    free(went);
    return e;
}
