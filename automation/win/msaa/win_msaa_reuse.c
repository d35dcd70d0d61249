/* What a walk takes of the last walk of the same window instead of asking the program
 * again: windows whose fingerprint is the same, list items and menu bar items that look
 * as they did. */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
#include <commctrl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/msaa/win_msaa_reuse.h"
#include "automation/tree_pix.h"
#include "automation/win/msaa/win_cc_buf.h"
#include "automation/win/msaa/win_cc_tree.h"
#include "automation/win/desktop/win_events.h"
#include "automation/win/msaa/win_msaa_items.h"
#include "base/win/win_utf8.h"
#include "base/str.h"

uint64_t win_msaa_reuse_window_sig(struct win_msaa_ctx *c, HWND h)
{
    uint64_t x = 1469598103934665603ull;
#define MIX(v)                                                                                     \
    do {                                                                                           \
        x ^= (uint64_t)(v);                                                                        \
        x *= 1099511628211ull;                                                                     \
    } while (0)
    /* one call for the place, style and state: each is a round trip to the server */
    WINDOWINFO wi = {.cbSize = sizeof wi};
    GetWindowInfo(h, &wi);
    MIX((uintptr_t)h);
    MIX(wi.dwStyle);
    MIX(wi.dwExStyle);
    MIX(wi.rcWindow.left);
    MIX(wi.rcWindow.top);
    MIX(wi.rcWindow.right);
    MIX(wi.rcWindow.bottom);
    MIX(win_msaa_el_thread_of(c, h)->focus == h);
    MIX(win_msaa_el_text_hash(c, h));
    /* the label a control may take its name from: a window just before it */
    HWND label = h;
    for (int i = 0; i < 3 && (label = win_msaa_el_prev_sibling(c, label)); i++) {
        MIX((uintptr_t)label);
        MIX(win_msaa_el_text_hash(c, label));
    }
#undef MIX
    return x ? x : 1;
}

/* Types whose MSAA children are not walked (win_msaa.c window_children). */
static bool childless_type(const char *type)
{
    static const char *const kinds[] = {"Button", "CheckBox", "RadioButton", "Text", "Edit"};
    for (size_t i = 0; type && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(type, kinds[i]) == 0)
            return true;
    return false;
}

void win_msaa_reuse_sign_window(struct el_desc *d, const char *type, uint64_t sig,
                                struct tree_element_info *out)
{
    bool standard = !d->client || d->client_standard;
    bool childless = childless_type(type) || msaa_class_items(out->class_name) != MSAA_ITEMS_NONE ||
                     !d->client || msaa_role_is_generic(d->client_role);
    out->sig = standard && childless ? sig : 0;
}

static int by_hwnd(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct reused_window *)a)->h;
    uintptr_t y = (uintptr_t)((const struct reused_window *)b)->h;
    return (x > y) - (x < y);
}

/* The window's text by one WM_GETTEXT where it is short (most are), else as
 * win_msaa_el_message_text reads it. */
static char *short_text(struct win_gate *g, HWND h)
{
    wchar_t buf[512];
    LRESULT got = 0;
    if (!win_msaa_el_send_msg(g, h, WM_GETTEXT, 512, (LPARAM)buf, MESSAGE_MS, &got) || got < 0)
        return NULL;
    return got < 511 ? win_wide_to_utf8_n(buf, (int)got) : win_msaa_el_message_text(g, h);
}

/* What a window read again says now that is not in its fingerprint: its value, check,
 * drop-down state, position, focus, and what its collection holds. */
static void read_again(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    HWND h = d->hwnd;
    const char *type = out->type ? out->type : "";
    LRESULT r = 0;
    out->states &= ~(unsigned)WA_ST_FOCUSED;
    if (win_msaa_el_thread_of(c, h)->focus == h)
        out->states |= WA_ST_FOCUSED;
    if ((strcmp(type, "Edit") == 0 || strcmp(type, "ComboBox") == 0) && out->value) {
        free(out->value); /* a password field had none, and still has none */
        out->value = short_text(c->gate, h);
    }
    if (strcmp(type, "CheckBox") == 0 || strcmp(type, "RadioButton") == 0) {
        out->states &= ~(unsigned)WA_ST_CHECK_STATES;
        out->states |= win_msaa_el_button_check(c->gate, h, type);
    }
    if (strcmp(type, "ComboBox") == 0 &&
        win_msaa_el_send_msg(c->gate, h, CB_GETDROPPEDSTATE, 0, 0, MESSAGE_MS, &r)) {
        out->states &= ~(unsigned)(WA_ST_EXPANDED | WA_ST_COLLAPSED);
        out->states |= r ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
    }
    char *range = win_msaa_el_range_value(c->gate, h, type);
    if (range) {
        free(out->value);
        out->value = range;
    }
    win_msaa_items_coll_summary(c, d, out);
}

bool win_msaa_reuse_take_window(struct win_msaa_ctx *c, struct el_desc *d, uint64_t sig,
                                struct tree_element_info *out)
{
    const struct win_msaa_reuse *r = c->reuse;
    struct reused_window key = {.h = d->hwnd};
    const struct reused_window *w = r ? bsearch(&key, r->w, r->nw, sizeof *r->w, by_hwnd) : NULL;
    if (!w || w->sig != sig || !win_msaa_el_thread_of(c, d->hwnd)->responsive ||
        win_events_since(d->hwnd, r->stamp) || !tree_element_info_copy(&w->info, out))
        return false;
    d->reused = true;
    if (c->ntaken == c->cap_taken) {
        size_t cap = c->cap_taken ? 2 * c->cap_taken : 16;
        HWND *p = wa_reallocarray(c->taken, cap, sizeof *p);
        if (p) {
            c->taken = p;
            c->cap_taken = cap;
        }
    }
    if (c->ntaken < c->cap_taken)
        c->taken[c->ntaken++] = d->hwnd;
    read_again(c, d, out);
    out->sig = sig;
    c->took++;
    return true;
}

bool win_msaa_reuse_take_bar_item(struct win_msaa_ctx *c, int pos, struct tree_element_info *out)
{
    const struct win_msaa_reuse *r = c->reuse;
    win_msaa_el_pixels_wait(c);
    bool took = win_msaa_el_reuse_settled(r) && pos >= 0 && pos < BAR_ITEMS_MAX && r->bar[pos] &&
                tree_element_info_copy(r->bar[pos], out);
    c->took += took;
    return took;
}

bool win_msaa_reuse_take_list_item(struct win_msaa_ctx *c, HWND h, int i,
                                   struct tree_element_info *out)
{
    win_msaa_el_pixels_wait(c);
    const struct win_coll_listing *l = win_msaa_items_last_listing(c->reuse, h);
    struct win_coll *co = win_msaa_items_coll_found(c, h);
    struct wa_collection now;
    if (!l || !co)
        return false;
    win_coll_summary(co, &now);
    if (now.count != l->count || now.first != l->top)
        return false;
    for (size_t k = 0; k < l->n; k++)
        if (l->items[k].id == (uint64_t)i)
            return l->same[k] && tree_element_info_copy(l->same[k], out) && ++c->took;
    return false;
}

/* Room for one more check in r; NULL when out of memory. */
static struct pix_check *new_check(struct win_msaa_reuse *r, const struct wa_tree *prev, size_t j)
{
    struct wa_rect area;
    if (!prev->nodes[j].pix || !tree_pix_area(prev, j, &area))
        return NULL;
    struct pix_check *k = wa_reallocarray(r->checks, r->nchecks + 1, sizeof *k);
    if (!k)
        return NULL;
    r->checks = k;
    k = &r->checks[r->nchecks++];
    *k = (struct pix_check){.node = j, .area = area, .pix = prev->nodes[j].pix, .cols_of = -1};
    return k;
}

/* A copy of node j of prev to take while its pixels look as they did, in *slot. */
static void take_if_same(struct win_msaa_reuse *r, const struct wa_tree *prev, size_t j,
                         struct tree_element_info **slot)
{
    *slot = NULL;
    if (!prev->nodes[j].pix || !(*slot = calloc(1, sizeof **slot)))
        return;
    struct pix_check *k = tree_node_info(prev, j, *slot) ? new_check(r, prev, j) : NULL;
    if (k) {
        k->info = slot;
    } else {
        tree_element_info_cleanup(*slot);
        free(*slot);
        *slot = NULL;
    }
}

/* The columns list view node i of prev was read with, kept while its header (a node
 * under it) looks as it did (listing `list` of r). */
static void listing_columns(struct win_msaa_reuse *r, const struct wa_tree *prev, size_t i,
                            int list)
{
    struct win_coll_listing *l = &r->lists[list];
    const struct el_desc *d =
        prev->nodes[i].handle ? win_msaa_el_desc_of(prev->nodes[i].handle) : NULL;
    l->cols_gone = d && d->cols;
    if (!d || !d->cols || !d->cols->header)
        return;
    for (size_t j = i + 1; j < prev->count && prev->nodes[j].depth > prev->nodes[i].depth; j++) {
        if (prev->nodes[j].parent != (int)i ||
            (HWND)(uintptr_t)prev->nodes[j].hwnd != d->cols->header)
            continue;
        struct pix_check *k =
            (l->cols = win_cc_buf_columns_dup(d->cols)) ? new_check(r, prev, j) : NULL;
        if (!k) {
            win_cc_buf_columns_free(l->cols);
            l->cols = NULL;
            return;
        }
        k->cols_of = list;
        l->cols_gone = false;
        return;
    }
}

/* The items node i of prev (a list or tree view) listed, with the items holding them
 * and, where same says an item's row looks as it did, what it was. */
static void add_listing(struct win_msaa_reuse *r, const struct wa_tree *prev, size_t i, bool tree)
{
    HWND h = (HWND)(uintptr_t)prev->nodes[i].hwnd;
    struct win_coll_listing *l = wa_reallocarray(r->lists, r->nlists + 1, sizeof *l);
    if (!l)
        return;
    r->lists = l;
    l = &r->lists[r->nlists];
    *l = (struct win_coll_listing){.h = h,
                                   .count = prev->nodes[i].coll.count,
                                   .top = prev->nodes[i].coll.first,
                                   .items = calloc(WIN_COLL_LISTED_MAX, sizeof *l->items),
                                   .same = calloc(WIN_COLL_LISTED_MAX, sizeof *l->same)};
    if (!l->items || !l->same) {
        free(l->items);
        free(l->same);
        return;
    }
    int first_top = INT32_MAX;
    for (size_t j = i + 1; j < prev->count && prev->nodes[j].depth > prev->nodes[i].depth &&
                           l->n < WIN_COLL_LISTED_MAX;
         j++) {
        const struct wa_node *n = &prev->nodes[j];
        if (!n->coll_item)
            continue;
        uint64_t id = tree ? win_cc_tree_item(h, n->runtime_id) : (uint64_t)n->item_index;
        if (tree ? !id : n->item_index < 0)
            continue;
        const struct wa_node *p = &prev->nodes[n->parent];
        uint64_t parent = !tree || n->parent == (int)i ? 0 : win_cc_tree_item(h, p->runtime_id);
        take_if_same(r, prev, j, &l->same[l->n]);
        if (tree && !(n->states & WA_ST_OFFSCREEN) && !wa_rect_empty(n->bounds) &&
            n->bounds.top < first_top) {
            first_top = n->bounds.top;
            l->first = id;
        }
        l->items[l->n++] = (struct win_cc_item){id, parent};
    }
    r->nlists++;
    if (!tree)
        listing_columns(r, prev, i, (int)r->nlists - 1);
}

struct win_msaa_reuse *win_msaa_reuse_new(const struct wa_tree *prev, const bool *same, bool later)
{
    if (!prev || !prev->count || !prev->source || strcmp(prev->source, "msaa") != 0)
        return NULL;
    struct win_msaa_reuse *r = calloc(1, sizeof *r);
    if (!r || !(r->w = calloc(prev->count, sizeof *r->w))) {
        free(r);
        return NULL;
    }
    r->refs = 1;
    r->stamp = prev->stamp;
    int bar_pos = 0;
    for (size_t i = 0; i < prev->count; i++) {
        const struct wa_node *n = &prev->nodes[i];
        bool in_bar = n->parent >= 0 && strcmp(prev->nodes[n->parent].type, "MenuBar") == 0;
        if (in_bar && bar_pos < BAR_ITEMS_MAX)
            take_if_same(r, prev, i, &r->bar[bar_pos]);
        bar_pos += in_bar;
        if (n->hwnd && n->sig && !n->coll_item && tree_node_info(prev, i, &r->w[r->nw].info)) {
            r->w[r->nw].info.pix = 0; /* taken by its fingerprint, not its pixels */
            r->w[r->nw].h = (HWND)(uintptr_t)n->hwnd;
            r->w[r->nw++].sig = n->sig;
        }
        bool tree = n->class_name && str_ieq(n->class_name, "SysTreeView32");
        if (n->coll.is && n->hwnd && n->class_name)
            add_listing(r, prev, i, tree);
    }
    qsort(r->w, r->nw, sizeof *r->w, by_hwnd);
    InitializeSRWLock(&r->settle_lock);
    if (same || !later) /* else when the capture beside the walk comes */
        win_msaa_el_reuse_settle(r, same, NULL, (struct wa_rect){0, 0, 0, 0});
    return r;
}

struct win_msaa_reuse *win_msaa_reuse_ref(struct win_msaa_reuse *r)
{
    if (r)
        InterlockedIncrement(&r->refs);
    return r;
}

void win_msaa_reuse_free(struct win_msaa_reuse *r)
{
    if (!r || InterlockedDecrement(&r->refs) != 0)
        return;
    for (int i = 0; i < BAR_ITEMS_MAX; i++)
        if (r->bar[i]) {
            tree_element_info_cleanup(r->bar[i]);
            free(r->bar[i]);
        }
    for (size_t i = 0; i < r->nw; i++)
        tree_element_info_cleanup(&r->w[i].info);
    for (size_t i = 0; i < r->nlists; i++) {
        for (size_t j = 0; j < r->lists[i].n; j++)
            if (r->lists[i].same[j]) {
                tree_element_info_cleanup(r->lists[i].same[j]);
                free(r->lists[i].same[j]);
            }
        free(r->lists[i].same);
        free(r->lists[i].items);
        win_cc_buf_columns_free(r->lists[i].cols);
    }
    free(r->lists);
    free(r->checks);
    free(r->w);
    free(r);
}

void win_msaa_reuse(struct win_msaa_ctx *c, const struct win_msaa_reuse *r)
{
    c->reuse = r;
}
