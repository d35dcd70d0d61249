/* The tree view reader of long collections: the items in view and those holding them,
 * read in batches, each item's runtime id, and the items a search names. */
#include "automation/win/msaa/win_cc_tree.h"

#include <commctrl.h>
#include <psapi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "automation/win/msaa/win_cc_buf.h"
#include "base/win/win_utf8.h"
#include "base/dynbuf.h"
#include "base/str.h"

/* ---- tree views ---- */

static bool tv_view(struct win_cc *cc, HWND h, struct win_cc_view *out)
{
    UINT msg[5] = {TVM_GETCOUNT, TVM_GETVISIBLECOUNT, TVM_GETNEXTITEM, TVM_GETNEXTITEM,
                   TVM_GETNEXTITEM};
    WPARAM wp[5] = {0, 0, TVGN_FIRSTVISIBLE, TVGN_CARET, TVGN_LASTVISIBLE};
    LPARAM lp[5] = {0, 0, 0, 0, 0};
    LRESULT r[5];
    memset(out, 0, sizeof *out);
    if (!win_cc_send_all(cc, h, msg, wp, lp, r, 5) || r[0] < 0)
        return false;
    out->last = r[4] > 0 ? (uint64_t)r[4] : 0;
    out->count = (int)r[0];
    out->top = -1;
    out->per_page = r[1] > 0 ? (int)r[1] : 1;
    out->first = r[2] > 0 ? (uint64_t)r[2] : 0;
    out->has_caret = out->has_selected = r[3] > 0;
    out->caret = out->selected = r[3] > 0 ? (uint64_t)r[3] : 0;
    return true;
}

static bool listed_has(const struct win_cc_item *items, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (items[i].id == id)
            return true;
    return false;
}

/* The rows in view with margin around them (one by one: each is the next of the one
 * before), the caret, then the items holding them, asked level by level together. */
static size_t tv_listed(struct win_cc *cc, HWND h, const struct win_cc_view *v, int all, int margin,
                        struct win_cc_item *out, size_t max)
{
    (void)all; /* a short tree's items are walked by what is expanded (win_cc_items) */
    size_t n = 0;
    uint64_t above[16];
    int nabove = 0;
    LRESULT r = 0;
    uint64_t at = v->first;
    for (int k = 0; at && k < margin && k < 16; k++) {
        if (!win_cc_send(cc, h, TVM_GETNEXTITEM, TVGN_PREVIOUSVISIBLE, (LPARAM)at, &r) || !r)
            break;
        above[nabove++] = at = (uint64_t)r;
    }
    while (nabove > 0 && n < max)
        out[n++] = (struct win_cc_item){above[--nabove], 0};
    at = v->first;
    for (int k = 0; at && k < v->per_page + 1 + margin && n < max; k++) {
        out[n++] = (struct win_cc_item){at, 0};
        if (!win_cc_send(cc, h, TVM_GETNEXTITEM, TVGN_NEXTVISIBLE, (LPARAM)at, &r))
            break;
        at = (uint64_t)r;
    }
    if (v->has_caret && n < max && !listed_has(out, n, v->caret))
        out[n++] = (struct win_cc_item){v->caret, 0};
    /* The items holding them, a level at a time: one batch per level. */
    struct sends s;
    if (!win_cc_buf_sends_init(&s, max))
        return n;
    for (size_t from = 0; from < n;) {
        size_t to = n;
        s.n = 0;
        for (size_t i = from; i < to; i++)
            win_cc_buf_sends_add(&s, TVM_GETNEXTITEM, TVGN_PARENT, (LPARAM)out[i].id);
        win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t i = from; i < to; i++) {
            uint64_t parent = s.res[i - from] > 0 ? (uint64_t)s.res[i - from] : 0;
            out[i].parent = parent;
            if (parent && n < max && !listed_has(out, n, parent))
                out[n++] = (struct win_cc_item){parent, 0};
        }
        from = to;
    }
    win_cc_buf_sends_cleanup(&s);
    return n;
}

static void tv_runtime_id(HWND h, uint64_t item, struct tree_element_info *out)
{
    char id[48];
    snprintf(id, sizeof id, "tv:%llx:%llx", (unsigned long long)(uintptr_t)h,
             (unsigned long long)item);
    free(out->runtime_id);
    out->runtime_id = str_dup(id);
}

void win_cc_item_identity(HWND h, enum msaa_item_class k, uint64_t id,
                          struct tree_element_info *out)
{
    if (k != MSAA_ITEMS_LISTBOX && k != MSAA_ITEMS_COMBOBOX && k != MSAA_ITEMS_LISTVIEW &&
        k != MSAA_ITEMS_TREEVIEW)
        return;
    out->coll_item = true;
    out->item_index = k == MSAA_ITEMS_TREEVIEW ? -1 : (int)id;
    if (k == MSAA_ITEMS_TREEVIEW)
        tv_runtime_id(h, id, out);
}

void win_cc_item_new(HWND h, enum msaa_item_class k, uint64_t id, struct tree_element_info *out)
{
    memset(out, 0, sizeof *out);
    out->type = str_dup(k == MSAA_ITEMS_TREEVIEW ? "TreeItem" : "ListItem");
    out->patterns = WA_PAT_SELECT;
    if (k != MSAA_ITEMS_TREEVIEW)
        out->child_id = (long)id + 1;
    win_cc_item_identity(h, k, id, out);
}

uint64_t win_cc_tree_item(HWND h, const char *runtime_id)
{
    unsigned long long list = 0, item = 0;
    if (!runtime_id || sscanf(runtime_id, "tv:%llx:%llx", &list, &item) != 2 ||
        list != (unsigned long long)(uintptr_t)h)
        return 0;
    return (uint64_t)item;
}

static void tv_read_batch(struct win_cc *cc, HWND h, const struct win_cc_item *items, size_t n,
                          struct tree_element_info *infos)
{
    size_t row = sizeof(TVITEMEXW) + SLOT_BYTES + sizeof(RECT);
    struct cc_block b;
    struct sends s;
    if (!win_cc_buf_sends_init(&s, 2 * n) || !win_cc_buf_block_new(cc, h, n * row, &b)) {
        win_cc_buf_sends_cleanup(&s);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        size_t off = k * row;
        TVITEMEXW tv = {.mask = TVIF_TEXT | TVIF_STATE | TVIF_CHILDREN | TVIF_HANDLE,
                        .hItem = (HTREEITEM)(uintptr_t)items[k].id,
                        .stateMask = TVIS_SELECTED | TVIS_EXPANDED | TVIS_STATEIMAGEMASK,
                        .pszText = (LPWSTR)(b.remote + off + sizeof(TVITEMEXW)),
                        .cchTextMax = SLOT_CHARS};
        memcpy(b.local + off, &tv, sizeof tv);
        win_cc_buf_sends_add(&s, TVM_GETITEMW, 0, win_cc_buf_block_at(&b, off));
        RECT in = {0};
        memcpy(&in, &tv.hItem, sizeof tv.hItem); /* TVM_GETITEMRECT takes the item in the RECT */
        memcpy(b.local + off + sizeof(TVITEMEXW) + SLOT_BYTES, &in, sizeof in);
        win_cc_buf_sends_add(&s, TVM_GETITEMRECT, TRUE,
                             win_cc_buf_block_at(&b, off + sizeof(TVITEMEXW) + SLOT_BYTES));
    }
    bool answered =
        win_cc_buf_block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
    if (!answered) {
        b.r->leak = true;
    } else if (win_cc_buf_block_get(&b)) {
        RECT area;
        GetClientRect(h, &area);
        for (size_t k = 0; k < n; k++) {
            struct tree_element_info *out = &infos[k];
            TVITEMEXW tv;
            memcpy(&tv, b.local + k * row, sizeof tv);
            if (s.res[2 * k] > 0) {
                out->name = win_cc_buf_slot_text(&b, k * row + sizeof(TVITEMEXW), tv.pszText);
                if (tv.state & TVIS_SELECTED)
                    out->states |= WA_ST_SELECTED;
                win_cc_buf_check_box(tv.state, out);
                if (tv.cChildren) {
                    out->patterns |= WA_PAT_EXPAND;
                    out->states |= (tv.state & TVIS_EXPANDED) ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
                }
            }
            RECT rc;
            memcpy(&rc, b.local + k * row + sizeof(TVITEMEXW) + SLOT_BYTES, sizeof rc);
            if (s.res[2 * k + 1] > 0)
                win_cc_buf_place(h, rc, &area, out);
            else
                out->states |= WA_ST_OFFSCREEN; /* inside a closed item */
        }
    }
    win_cc_buf_block_free(&b, answered);
    win_cc_buf_sends_cleanup(&s);
}

static void tv_read(struct win_cc *cc, HWND h, const struct win_cc_view *v,
                    const struct win_cc_item *items, size_t n, struct tree_element_info *infos)
{
    (void)v;
    for (size_t k = 0; k < n; k++) {
        win_cc_item_new(h, MSAA_ITEMS_TREEVIEW, items[k].id, &infos[k]);
    }
    if (!win_cc_buf_remote_for(cc, h))
        return;
    for (size_t k = 0; k < n; k += BATCH_ROWS)
        tv_read_batch(cc, h, items + k, n - k < BATCH_ROWS ? n - k : BATCH_ROWS, infos + k);
}

/* The texts of n tree items, read together; texts[i] NULL where none came. */
static void tv_names(struct win_cc *cc, HWND h, const uint64_t *ids, size_t n, char **texts)
{
    size_t cell = sizeof(TVITEMEXW) + SLOT_BYTES;
    struct cc_block b;
    struct sends s;
    if (win_cc_buf_sends_init(&s, n) && win_cc_buf_block_new(cc, h, n * cell, &b)) {
        for (size_t k = 0; k < n; k++) {
            TVITEMEXW tv = {.mask = TVIF_TEXT | TVIF_HANDLE,
                            .hItem = (HTREEITEM)(uintptr_t)ids[k],
                            .pszText = (LPWSTR)(b.remote + k * cell + sizeof(TVITEMEXW)),
                            .cchTextMax = SLOT_CHARS};
            memcpy(b.local + k * cell, &tv, sizeof tv);
            win_cc_buf_sends_add(&s, TVM_GETITEMW, 0, win_cc_buf_block_at(&b, k * cell));
        }
        bool answered =
            win_cc_buf_block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t k = 0; answered && k < n && win_cc_buf_block_get(&b); k++) {
            TVITEMEXW tv;
            memcpy(&tv, b.local + k * cell, sizeof tv);
            texts[k] = s.res[k] > 0
                           ? win_cc_buf_slot_text(&b, k * cell + sizeof(TVITEMEXW), tv.pszText)
                           : NULL;
        }
        if (!answered)
            b.r->leak = true;
        win_cc_buf_block_free(&b, answered);
    }
    win_cc_buf_sends_cleanup(&s);
}

/* Every item of the tree (open or closed), level by level: the first children of a
 * level asked together, then their next siblings together, round after round. */
static size_t tv_all_items(struct win_cc *cc, HWND h, uint64_t *all, size_t cap)
{
    struct sends s;
    size_t n = 0;
    LRESULT r = 0;
    if (!win_cc_buf_sends_init(&s, cap))
        return 0;
    /* the top level: one by one */
    if (win_cc_send(cc, h, TVM_GETNEXTITEM, TVGN_ROOT, 0, &r))
        for (uint64_t at = (uint64_t)r; at && n < cap;) {
            all[n++] = at;
            if (!win_cc_send(cc, h, TVM_GETNEXTITEM, TVGN_NEXT, (LPARAM)at, &r))
                break;
            at = (uint64_t)r;
        }
    uint64_t *cur = calloc(cap, sizeof *cur);
    for (size_t level = 0; cur && level < n;) {
        size_t end = n, ncur = 0;
        s.n = 0;
        for (size_t i = level; i < end; i++)
            win_cc_buf_sends_add(&s, TVM_GETNEXTITEM, TVGN_CHILD, (LPARAM)all[i]);
        win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t i = 0; i < s.n; i++)
            if (s.res[i] > 0)
                cur[ncur++] = (uint64_t)s.res[i];
        while (ncur && n < cap) {
            s.n = 0;
            for (size_t i = 0; i < ncur && n < cap; i++) {
                all[n++] = cur[i];
                win_cc_buf_sends_add(&s, TVM_GETNEXTITEM, TVGN_NEXT, (LPARAM)cur[i]);
            }
            win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
            ncur = 0;
            for (size_t i = 0; i < s.n; i++)
                if (s.res[i] > 0)
                    cur[ncur++] = (uint64_t)s.res[i];
        }
        level = end;
    }
    free(cur);
    win_cc_buf_sends_cleanup(&s);
    return n;
}

static size_t tv_find(struct win_cc *cc, HWND h, const struct wa_item_query *q, uint64_t *out,
                      size_t max)
{
    uint64_t one = win_cc_tree_item(h, q->runtime_id);
    if (q->runtime_id) {
        char *name = NULL;
        if (!one || !max)
            return 0;
        tv_names(cc, h, &one, 1, &name);
        bool there = name && wa_item_query_names(q, name);
        free(name);
        if (there)
            out[0] = one;
        return there;
    }
    LRESULT count = 0;
    if (!max || q->index >= 0 || !win_cc_send(cc, h, TVM_GETCOUNT, 0, 0, &count) || count <= 0)
        return 0;
    size_t cap = (size_t)(count < SCAN_MAX ? count : SCAN_MAX), n = 0;
    uint64_t *all = calloc(cap, sizeof *all);
    size_t total = all ? tv_all_items(cc, h, all, cap) : 0;
    char *texts[BATCH_ROWS];
    for (size_t from = 0; from < total && n < max; from += BATCH_ROWS) {
        size_t k = total - from < BATCH_ROWS ? total - from : BATCH_ROWS;
        memset(texts, 0, sizeof texts);
        tv_names(cc, h, all + from, k, texts);
        for (size_t i = 0; i < k; i++) {
            if (n < max && texts[i] && wa_item_query_names(q, texts[i]))
                out[n++] = all[from + i];
            free(texts[i]);
        }
    }
    free(all);
    return n;
}

static wa_err tv_show(struct win_cc *cc, HWND h, uint64_t id)
{
    LRESULT ignored = 0;
    if (!win_cc_send(cc, h, TVM_ENSUREVISIBLE, 0, (LPARAM)id, &ignored))
        return win_cc_buf_result(false, 0, "TVM_ENSUREVISIBLE");
    return WA_E_OK; /* its answer says whether it scrolled, not whether it shows */
}

const struct win_cc_reader win_cc_tree_view_reader = {
    .kind = MSAA_ITEMS_TREEVIEW,
    .view = tv_view,
    .listed = tv_listed,
    .read = tv_read,
    .find = tv_find,
    .show = tv_show,
};
