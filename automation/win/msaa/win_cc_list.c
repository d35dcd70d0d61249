/* The list view reader of long collections: the rows in view, read in batches, and
 * the rows a search names, from the control's own data. */
#include "automation/win/msaa/win_cc_list.h"

#include <commctrl.h>
#include <psapi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "automation/win/msaa/win_cc_buf.h"
#include "automation/win/msaa/win_cc_tree.h"
#include "base/win/win_utf8.h"
#include "base/dynbuf.h"
#include "base/str.h"

/* ---- list views ---- */
static void item_area(HWND h, RECT *area)
{
    GetClientRect(h, area);
    for (HWND c = GetWindow(h, GW_CHILD); c; c = GetWindow(c, GW_HWNDNEXT)) {
        wchar_t cls[32];
        RECT hr;
        if (IsWindowVisible(c) && GetClassNameW(c, cls, 32) && _wcsicmp(cls, WC_HEADERW) == 0 &&
            GetWindowRect(c, &hr)) {
            MapWindowPoints(NULL, h, (POINT *)&hr, 2);
            if (hr.bottom > area->top && hr.bottom < area->bottom)
                area->top = hr.bottom;
        }
    }
}

/* The view: how many rows, the top one, how many fit, the focused and the selected one.
 * The selected one is asked only when there is one: comctl32 finds it by looking at
 * every row from the first (Wine's list view: 0.8 ms over bigapp's 3,000 rows with none
 * selected, more than the other five questions together), where the focused one and the
 * number selected it knows. */
static bool lv_view(struct win_cc *cc, HWND h, struct win_cc_view *out)
{
    UINT msg[6] = {LVM_GETITEMCOUNT, LVM_GETTOPINDEX,      LVM_GETCOUNTPERPAGE,
                   LVM_GETNEXTITEM,  LVM_GETSELECTEDCOUNT, LVM_GETVIEW};
    WPARAM wp[6] = {0, 0, 0, (WPARAM)-1, 0, 0};
    LPARAM lp[6] = {0, 0, 0, LVNI_FOCUSED, 0, 0};
    LRESULT r[6];
    memset(out, 0, sizeof *out);
    if (!win_cc_send_all(cc, h, msg, wp, lp, r, 6) || r[0] < 0)
        return false;
    if (r[4] > 0 && !win_cc_send(cc, h, LVM_GETNEXTITEM, (WPARAM)-1, LVNI_SELECTED, &r[4]))
        r[4] = -1;
    else if (r[4] <= 0)
        r[4] = -1;
    out->rows = r[5] == LV_VIEW_DETAILS ||
                (r[5] < 0 && (GetWindowLongW(h, GWL_STYLE) & LVS_TYPEMASK) == LVS_REPORT);
    out->count = (int)r[0];
    out->top = r[1] > 0 && r[1] < r[0] ? (int)r[1] : 0;
    out->per_page = r[2] > 0 ? (int)r[2] : 1;
    out->has_caret = r[3] >= 0 && r[3] < r[0];
    out->caret = out->has_caret ? (uint64_t)r[3] : 0;
    out->has_selected = r[4] >= 0 && r[4] < r[0];
    out->selected = out->has_selected ? (uint64_t)r[4] : 0;
    return true;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const struct win_cc_item *)a)->id, y = ((const struct win_cc_item *)b)->id;
    return (x > y) - (x < y);
}

/* Indexes: every one of a short list, else the rows in view (one more for a row cut by
 * the bottom edge) with margin around, and the caret and selected rows, in order. */
static size_t indexed_listed(const struct win_cc_view *v, int all, int margin,
                             struct win_cc_item *out, size_t max)
{
    int from = 0, to = v->count;
    if (v->count > all) {
        from = v->top - margin > 0 ? v->top - margin : 0;
        to = v->top + v->per_page + 1 + margin;
        to = to < v->count ? to : v->count;
    }
    size_t n = 0;
    for (int i = from; i < to && n < max; i++)
        out[n++] = (struct win_cc_item){(uint64_t)i, 0};
    uint64_t extra[2] = {v->caret, v->selected};
    bool has[2] = {v->has_caret, v->has_selected};
    for (int k = 0; k < 2; k++)
        if (has[k] && (extra[k] < (uint64_t)from || extra[k] >= (uint64_t)to) && n < max &&
            (k == 0 || !has[0] || extra[0] != extra[1]))
            out[n++] = (struct win_cc_item){extra[k], 0};
    qsort(out, n, sizeof *out, by_id);
    return n;
}

size_t win_cc_indexed_listed(struct win_cc *cc, HWND h, const struct win_cc_view *v, int all,
                             int margin, struct win_cc_item *out, size_t max)
{
    (void)cc;
    (void)h;
    return indexed_listed(v, all, margin, out, max);
}

/* A row's cells after the first as its value: "Type: REG_SZ; Data: hello". */
static char *cells_value(const struct columns *c, char **cells)
{
    struct dynbuf b;
    dynbuf_init(&b, (size_t)COLUMNS_MAX * 4 * SLOT_CHARS);
    for (int col = 1; col < c->count; col++) {
        if (col > 1)
            dynbuf_adds(&b, "; ");
        if (c->names[col] && *c->names[col])
            dynbuf_addf(&b, "%s: ", c->names[col]);
        dynbuf_adds(&b, cells[col] ? cells[col] : "");
    }
    char *v = dynbuf_take(&b);
    dynbuf_cleanup(&b);
    return v;
}

/* One batch of list view rows: the first cell with the state, the other cells, and the
 * rectangle, for every row at once; where rows lie one under the other (report view),
 * the first row's rectangle and the next one's place the others. */
static void lv_read_batch(struct win_cc *cc, HWND h, const struct columns *cols, bool rows,
                          const struct win_cc_item *items, size_t n,
                          struct tree_element_info *infos)
{
    int ncol = cols->count >= 2 ? cols->count : 1;
    size_t cell = sizeof(LVITEMW) + SLOT_BYTES, row = (size_t)ncol * cell;
    size_t rects = rows ? 2 : n, at_rects = n * row; /* the rectangles after the rows */
    struct cc_block b;
    struct sends s;
    if (!win_cc_buf_sends_init(&s, n * (size_t)ncol + rects) ||
        !win_cc_buf_block_new(cc, h, at_rects + rects * sizeof(RECT), &b)) {
        win_cc_buf_sends_cleanup(&s);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        int i = (int)items[k].id;
        for (int c = 0; c < ncol; c++) {
            size_t off = k * row + (size_t)c * cell, text = off + sizeof(LVITEMW);
            LVITEMW lv = {.iItem = i,
                          .iSubItem = c,
                          .pszText = (LPWSTR)(b.remote + text),
                          .cchTextMax = SLOT_CHARS};
            if (c == 0) {
                lv.mask = LVIF_TEXT | LVIF_STATE;
                lv.stateMask = LVIS_SELECTED | LVIS_FOCUSED | LVIS_STATEIMAGEMASK;
            }
            memcpy(b.local + off, &lv, sizeof lv);
            win_cc_buf_sends_add(&s, c == 0 ? LVM_GETITEMW : LVM_GETITEMTEXTW,
                                 c == 0 ? 0 : (WPARAM)i, win_cc_buf_block_at(&b, off));
        }
    }
    for (size_t k = 0; k < rects; k++) {
        RECT in = {.left = LVIR_SELECTBOUNDS}; /* icon and label: where a click selects */
        memcpy(b.local + at_rects + k * sizeof(RECT), &in, sizeof in);
        win_cc_buf_sends_add(&s, LVM_GETITEMRECT, (WPARAM)(rows ? items[0].id + k : items[k].id),
                             win_cc_buf_block_at(&b, at_rects + k * sizeof(RECT)));
    }
    size_t first_rect = n * (size_t)ncol;
    bool answered =
        win_cc_buf_block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
    if (!answered) {
        b.r->leak = true;
    } else if (win_cc_buf_block_get(&b)) {
        RECT area, r0, r1;
        item_area(h, &area);
        memcpy(&r0, b.local + at_rects, sizeof r0);
        memcpy(&r1, b.local + at_rects + (rects > 1 ? sizeof(RECT) : 0), sizeof r1);
        int pitch =
            rows && s.res[first_rect] > 0 && s.res[first_rect + 1] > 0 ? r1.top - r0.top : 0;
        for (size_t k = 0; k < n; k++) {
            struct tree_element_info *out = &infos[k];
            char *cells[COLUMNS_MAX] = {0};
            LVITEMW first;
            memcpy(&first, b.local + k * row, sizeof first);
            if (s.res[k * (size_t)ncol] > 0) {
                cells[0] = win_cc_buf_slot_text(&b, k * row + sizeof(LVITEMW), first.pszText);
                if (first.state & LVIS_SELECTED)
                    out->states |= WA_ST_SELECTED;
                win_cc_buf_check_box(first.state, out);
            }
            for (int c = 1; c < ncol; c++)
                cells[c] =
                    win_cc_buf_slot_text(&b, k * row + (size_t)c * cell + sizeof(LVITEMW), NULL);
            free(out->name);
            out->name = cells[0];
            if (ncol >= 2)
                out->value = cells_value(cols, cells);
            for (int c = 1; c < ncol; c++)
                free(cells[c]);
            RECT rc;
            bool placed = false;
            if (pitch > 0) {
                int dy = (int)((int64_t)items[k].id - (int64_t)items[0].id) * pitch;
                rc = (RECT){r0.left, r0.top + dy, r0.right, r0.bottom + dy};
                placed = true;
            } else if (!rows) {
                memcpy(&rc, b.local + at_rects + k * sizeof(RECT), sizeof rc);
                placed = s.res[first_rect + k] > 0;
            }
            if (placed)
                win_cc_buf_place(h, rc, &area, out);
            else
                out->states |= WA_ST_OFFSCREEN;
        }
    }
    win_cc_buf_block_free(&b, answered);
    win_cc_buf_sends_cleanup(&s);
}

/* The header control of list view h, found without a message; NULL when none shows. */
static HWND header_of(HWND h)
{
    for (HWND c = GetWindow(h, GW_CHILD); c; c = GetWindow(c, GW_HWNDNEXT)) {
        wchar_t cls[32];
        if (IsWindowVisible(c) && GetClassNameW(c, cls, 32) && _wcsicmp(cls, WC_HEADERW) == 0)
            return c;
    }
    return NULL;
}

/* A report view's columns (header texts), as columns_of reads them, in one batch: the
 * count and every text asked together. */
static const struct columns *lv_columns(struct win_cc *cc, HWND h, bool report)
{
    struct columns *c = &cc->cols;
    if (c->list == h)
        return c;
    win_cc_buf_columns_cleanup(c);
    c->list = h;
    HWND hd = report ? header_of(h) : NULL;
    c->header = hd;
    size_t cell = sizeof(HDITEMW) + SLOT_BYTES;
    struct cc_block b;
    struct sends s;
    if (!hd || !win_cc_buf_sends_init(&s, COLUMNS_MAX + 1))
        return c;
    if (win_cc_buf_block_new(cc, hd, COLUMNS_MAX * cell, &b)) {
        win_cc_buf_sends_add(&s, HDM_GETITEMCOUNT, 0, 0);
        for (int i = 0; i < COLUMNS_MAX; i++) {
            HDITEMW hi = {.mask = HDI_TEXT,
                          .pszText = (LPWSTR)(b.remote + (size_t)i * cell + sizeof(HDITEMW)),
                          .cchTextMax = SLOT_CHARS};
            memcpy(b.local + (size_t)i * cell, &hi, sizeof hi);
            win_cc_buf_sends_add(&s, HDM_GETITEMW, (WPARAM)i,
                                 win_cc_buf_block_at(&b, (size_t)i * cell));
        }
        bool answered =
            win_cc_buf_block_put(&b) && win_cc_send_all(cc, hd, s.msg, s.wp, s.lp, s.res, s.n);
        if (answered && s.res[0] >= 2 && win_cc_buf_block_get(&b)) {
            c->count = s.res[0] > COLUMNS_MAX ? COLUMNS_MAX : (int)s.res[0];
            for (int i = 0; i < c->count; i++)
                c->names[i] =
                    s.res[1 + i] > 0
                        ? win_cc_buf_slot_text(&b, (size_t)i * cell + sizeof(HDITEMW), NULL)
                        : NULL;
        }
        if (!answered)
            b.r->leak = true;
        win_cc_buf_block_free(&b, answered);
    }
    win_cc_buf_sends_cleanup(&s);
    return c;
}

static void lv_read(struct win_cc *cc, HWND h, const struct win_cc_view *view,
                    const struct win_cc_item *items, size_t n, struct tree_element_info *infos)
{
    struct win_cc_view asked;
    bool rows = view ? view->rows : lv_view(cc, h, &asked) && asked.rows;
    for (size_t k = 0; k < n; k++) {
        win_cc_item_new(h, MSAA_ITEMS_LISTVIEW, items[k].id, &infos[k]);
    }
    if (!win_cc_buf_remote_for(cc, h))
        return; /* another bitness, or no access: the rows without their facts */
    const struct columns *cols = lv_columns(cc, h, rows);
    for (size_t k = 0; k < n; k += BATCH_ROWS)
        lv_read_batch(cc, h, cols, rows, items + k, n - k < BATCH_ROWS ? n - k : BATCH_ROWS,
                      infos + k);
}

/* The first cells of rows [from, from + n), read together. texts[i] NULL where none
 * came. */
static void lv_names(struct win_cc *cc, HWND h, int from, size_t n, char **texts)
{
    size_t cell = sizeof(LVITEMW) + SLOT_BYTES;
    struct cc_block b;
    struct sends s;
    if (win_cc_buf_sends_init(&s, n) && win_cc_buf_block_new(cc, h, n * cell, &b)) {
        for (size_t k = 0; k < n; k++) {
            LVITEMW lv = {.pszText = (LPWSTR)(b.remote + k * cell + sizeof(LVITEMW)),
                          .cchTextMax = SLOT_CHARS};
            memcpy(b.local + k * cell, &lv, sizeof lv);
            win_cc_buf_sends_add(&s, LVM_GETITEMTEXTW, (WPARAM)(from + (int)k),
                                 win_cc_buf_block_at(&b, k * cell));
        }
        bool answered =
            win_cc_buf_block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t k = 0; answered && k < n && win_cc_buf_block_get(&b); k++)
            texts[k] =
                s.res[k] >= 0 ? win_cc_buf_slot_text(&b, k * cell + sizeof(LVITEMW), NULL) : NULL;
        if (!answered)
            b.r->leak = true;
        win_cc_buf_block_free(&b, answered);
    }
    win_cc_buf_sends_cleanup(&s);
}

/* What a name pattern starts with before its first wildcard (what LVM_FINDITEM can look
 * for), as UTF-16; NULL when it starts with one. */
static wchar_t *literal_prefix(const struct wa_item_query *q)
{
    if (!q->name)
        return NULL;
    size_t n = q->wildcard ? strcspn(q->name, "*?") : strlen(q->name);
    char *head = n ? str_ndup(q->name, n) : NULL;
    wchar_t *w = head ? win_utf8_to_wide(head) : NULL;
    free(head);
    return w;
}

static bool lv_wants(struct win_cc *cc, HWND h, const struct wa_item_query *q, int i)
{
    char *name = NULL;
    lv_names(cc, h, i, 1, &name);
    bool yes = name && wa_item_query_names(q, name);
    free(name);
    return yes;
}

/* Rows whose first cell begins with prefix, by the list view's own search
 * (LVM_FINDITEM: case ignored), then checked against q. */
static size_t lv_find_prefix(struct win_cc *cc, HWND h, const struct wa_item_query *q,
                             const wchar_t *prefix, uint64_t *out, size_t max)
{
    struct remote *r = win_cc_buf_remote_for(cc, h);
    size_t len = (wcslen(prefix) + 1) * sizeof *prefix, n = 0;
    if (!r || len > (size_t)(REMOTE_SIZE - OFF_TEXT))
        return 0;
    LVFINDINFOW fi = {.flags = LVFI_PARTIAL | LVFI_STRING, .psz = (LPCWSTR)(r->base + OFF_TEXT)};
    if (!win_cc_buf_put(r, OFF_TEXT, prefix, len) || !win_cc_buf_put(r, OFF_STRUCT, &fi, sizeof fi))
        return 0;
    LRESULT after = -1, found = -1;
    for (int looked = 0; n < max && looked < SCAN_MAX; looked++) {
        if (!win_cc_buf_send(cc, r, h, LVM_FINDITEMW, (WPARAM)after, win_cc_buf_at(r, OFF_STRUCT),
                             &found) ||
            found < 0 || found <= after)
            break;
        if (lv_wants(cc, h, q, (int)found))
            out[n++] = (uint64_t)found;
        after = found;
    }
    return n;
}

static size_t lv_find(struct win_cc *cc, HWND h, const struct wa_item_query *q, uint64_t *out,
                      size_t max)
{
    LRESULT count = 0;
    if (!max || !win_cc_send(cc, h, LVM_GETITEMCOUNT, 0, 0, &count) || count <= 0)
        return 0;
    if (q->index >= 0) {
        bool there = q->index < count && (!q->name || lv_wants(cc, h, q, q->index));
        if (there)
            out[0] = (uint64_t)q->index;
        return there;
    }
    wchar_t *prefix = literal_prefix(q);
    size_t n = 0;
    if (prefix) {
        n = lv_find_prefix(cc, h, q, prefix, out, max);
        free(prefix);
        /* A list whose program keeps its rows (LVS_OWNERDATA) searches by asking the
         * program (LVN_ODFINDITEM), which many leave unanswered: its rows are read. */
        if (n || !(GetWindowLongW(h, GWL_STYLE) & LVS_OWNERDATA))
            return n;
    }
    char *texts[BATCH_ROWS];
    for (int from = 0; from < count && from < SCAN_MAX && n < max; from += BATCH_ROWS) {
        size_t k = (size_t)(count - from < BATCH_ROWS ? count - from : BATCH_ROWS);
        memset(texts, 0, sizeof texts);
        lv_names(cc, h, from, k, texts);
        for (size_t i = 0; i < k; i++) {
            if (n < max && texts[i] && wa_item_query_names(q, texts[i]))
                out[n++] = (uint64_t)(from + (int)i);
            free(texts[i]);
        }
    }
    return n;
}

static wa_err lv_show(struct win_cc *cc, HWND h, uint64_t id)
{
    LRESULT ok = 0;
    if (!win_cc_send(cc, h, LVM_ENSUREVISIBLE, (WPARAM)id, FALSE, &ok))
        return win_cc_buf_result(false, 0, "LVM_ENSUREVISIBLE");
    return win_cc_buf_result(true, ok, "LVM_ENSUREVISIBLE");
}

const struct win_cc_reader win_cc_list_view_reader = {
    .kind = MSAA_ITEMS_LISTVIEW,
    .view = lv_view,
    .listed = win_cc_indexed_listed,
    .read = lv_read,
    .find = lv_find,
    .show = lv_show,
};
