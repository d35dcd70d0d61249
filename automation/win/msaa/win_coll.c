/* Long collections of the HWND tree: what a walk lists of each, and the readers of
 * list boxes and combo boxes (list views' are in win_cc_list.c and tree views' in
 * win_cc_tree.c, beside the buffers in the target process they need, win_cc_buf.c). */
#include "automation/win/msaa/win_coll.h"

#include <stdlib.h>
#include <string.h>

#include "automation/win/msaa/win_cc_buf.h"
#include "automation/win/msaa/win_cc_list.h"
#include "automation/win/msaa/win_cc_tree.h"
#include "base/win/win_utf8.h"
#include "base/str.h"

struct win_coll {
    HWND h;
    const struct win_cc_reader *rd;
    struct win_cc_view view;
    bool lists;
    struct win_cc_item *items; /* listed, n of them */
    size_t n;
    struct tree_element_info *infos; /* what was read of each, or NULL */
    size_t taken;                    /* of them, taken from the last listing */
};

/* ---- list boxes and combo boxes' lists ---- */

#define LB_TEXT_MAX 8192 /* characters of one item's text */

/* Their items in view: a list box's client area, a combo box's open list. */
/* The five messages' answers r of a list (its count, top index, item height and two
 * more), with count and top set in out; false when it did not answer. */
static bool ask_list(struct win_cc *cc, HWND h, const UINT msg[5], LRESULT r[5],
                     struct win_cc_view *out)
{
    WPARAM wp[5] = {0};
    LPARAM lp[5] = {0};
    memset(out, 0, sizeof *out);
    if (!win_cc_send_all(cc, h, msg, wp, lp, r, 5) || r[0] < 0)
        return false;
    out->count = (int)r[0];
    out->top = r[1] > 0 && r[1] < r[0] ? (int)r[1] : 0;
    return true;
}

static bool list_view(struct win_cc *cc, HWND h, struct win_cc_view *out)
{
    UINT msg[5] = {LB_GETCOUNT, LB_GETTOPINDEX, LB_GETITEMHEIGHT, LB_GETCURSEL, LB_GETCARETINDEX};
    LRESULT r[5];
    if (!ask_list(cc, h, msg, r, out))
        return false;
    RECT client;
    out->per_page =
        r[2] > 0 && GetClientRect(h, &client) ? (int)((client.bottom - client.top) / r[2]) : 1;
    out->has_selected = r[3] >= 0 && r[3] < r[0];
    out->selected = out->has_selected ? (uint64_t)r[3] : 0;
    out->has_caret = r[4] >= 0 && r[4] < r[0];
    out->caret = out->has_caret ? (uint64_t)r[4] : 0;
    return true;
}

static bool combo_view(struct win_cc *cc, HWND h, struct win_cc_view *out)
{
    UINT msg[5] = {CB_GETCOUNT, CB_GETTOPINDEX, CB_GETITEMHEIGHT, CB_GETCURSEL, CB_GETDROPPEDSTATE};
    LRESULT r[5];
    if (!ask_list(cc, h, msg, r, out))
        return false;
    out->has_selected = out->has_caret = r[3] >= 0 && r[3] < r[0];
    out->selected = out->caret = out->has_selected ? (uint64_t)r[3] : 0;
    RECT list = {0};
    LRESULT ok = 0;
    /* Closed, nothing of its list shows: what is listed of a long one is the selected
     * item and those around it. */
    if (r[4] > 0 && r[2] > 0 &&
        win_cc_send(cc, h, CB_GETDROPPEDCONTROLRECT, 0, (LPARAM)&list, &ok) && ok)
        out->per_page = (int)((list.bottom - list.top) / r[2]);
    else if (out->has_selected)
        out->top = (int)out->selected;
    return true;
}

/* An item's text (LB_GETTEXT and CB_GETLBTEXT are copied across processes for lists
 * that hold strings), of length len (-1: asked here first); NULL when it has none to
 * give. */
static char *list_text(struct win_cc *cc, HWND h, bool combo, int i, LRESULT len)
{
    if (len < 0 && !win_cc_send(cc, h, combo ? CB_GETLBTEXTLEN : LB_GETTEXTLEN, (WPARAM)i, 0, &len))
        return NULL;
    if (len < 0 || len > LB_TEXT_MAX)
        return NULL;
    wchar_t *buf = calloc((size_t)len + 256, sizeof *buf); /* room if it grew meanwhile */
    LRESULT got = 0;
    char *s = NULL;
    if (buf &&
        win_cc_send(cc, h, combo ? CB_GETLBTEXT : LB_GETTEXT, (WPARAM)i, (LPARAM)buf, &got) &&
        got >= 0)
        s = win_wide_to_utf8_n(buf, (int)(got < len + 255 ? got : len + 255));
    free(buf);
    return s;
}

static bool list_wants(struct win_cc *cc, HWND h, bool combo, const struct wa_item_query *q, int i)
{
    char *name = list_text(cc, h, combo, i, -1);
    bool yes = name && wa_item_query_names(q, name);
    free(name);
    return yes;
}

/* By the list's own search (LB_FINDSTRING: the items beginning with a text, case
 * ignored) where the name has a plain beginning, else item by item. */
static size_t list_find(struct win_cc *cc, HWND h, bool combo, const struct wa_item_query *q,
                        uint64_t *out, size_t max)
{
    LRESULT count = 0;
    if (!max || !win_cc_send(cc, h, combo ? CB_GETCOUNT : LB_GETCOUNT, 0, 0, &count) || count <= 0)
        return 0;
    if (q->index >= 0) {
        bool there = q->index < count && list_wants(cc, h, combo, q, q->index);
        if (there)
            out[0] = (uint64_t)q->index;
        return there;
    }
    size_t n = 0, plain = q->name ? (q->wildcard ? strcspn(q->name, "*?") : strlen(q->name)) : 0;
    char *head = plain ? str_ndup(q->name, plain) : NULL;
    wchar_t *prefix = head ? win_utf8_to_wide(head) : NULL;
    free(head);
    if (prefix) {
        LRESULT after = -1, found = -1;
        UINT msg = combo ? (q->wildcard ? CB_FINDSTRING : CB_FINDSTRINGEXACT)
                         : (q->wildcard ? LB_FINDSTRING : LB_FINDSTRINGEXACT);
        while (n < max && win_cc_send(cc, h, msg, (WPARAM)after, (LPARAM)prefix, &found) &&
               found >= 0 && found > after) {
            if (list_wants(cc, h, combo, q, (int)found))
                out[n++] = (uint64_t)found;
            after = found;
        }
        free(prefix);
        return n;
    }
    for (int i = 0; i < count && n < max; i++)
        if (list_wants(cc, h, combo, q, i))
            out[n++] = (uint64_t)i;
    return n;
}

static size_t lb_find(struct win_cc *cc, HWND h, const struct wa_item_query *q, uint64_t *out,
                      size_t max)
{
    return list_find(cc, h, false, q, out, max);
}

static size_t cb_find(struct win_cc *cc, HWND h, const struct wa_item_query *q, uint64_t *out,
                      size_t max)
{
    return list_find(cc, h, true, q, out, max);
}

/* Scrolls so that item id shows: to the top when it is above the view, to the bottom
 * when below. A closed combo box shows no item: nothing to scroll. */
static wa_err list_show(struct win_cc *cc, HWND h, bool combo, uint64_t id)
{
    struct win_cc_view v;
    if (!(combo ? combo_view(cc, h, &v) : list_view(cc, h, &v)))
        return wa_fail(WA_E_TIMEOUT, "the list did not answer");
    if (id >= (uint64_t)v.count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "the list has no item %llu",
                       (unsigned long long)id + 1);
    if (v.per_page <= 0 || (id >= (uint64_t)v.top && id < (uint64_t)(v.top + v.per_page)))
        return WA_E_OK;
    int top = id < (uint64_t)v.top ? (int)id : (int)id - v.per_page + 1;
    LRESULT r = 0;
    if (!win_cc_send(cc, h, combo ? CB_SETTOPINDEX : LB_SETTOPINDEX, (WPARAM)top, 0, &r))
        return wa_fail(WA_E_TIMEOUT, "the list did not answer");
    return r == LB_ERR ? wa_fail(WA_E_ACTION_FAILED, "the list did not scroll") : WA_E_OK;
}

static wa_err lb_show(struct win_cc *cc, HWND h, uint64_t id)
{
    return list_show(cc, h, false, id);
}

static wa_err cb_show(struct win_cc *cc, HWND h, uint64_t id)
{
    return list_show(cc, h, true, id);
}

/* The first item in view: a list's top index. */
static int v_top(const struct win_cc_view *v)
{
    return v && v->top > 0 ? v->top : 0;
}

/* The rows of a long list box, read together where the messages allow: their lengths
 * and selection in one batch, each text by LB_GETTEXT (Wine copies it across processes
 * only when sent and waited for), places from the top row and the row height. A list
 * drawn by its owner without strings has no texts to give. */
static void lb_read(struct win_cc *cc, HWND h, const struct win_cc_view *v,
                    const struct win_cc_item *items, size_t n, struct tree_element_info *infos)
{
    LONG style = GetWindowLongW(h, GWL_STYLE);
    bool owner = (style & (LBS_OWNERDRAWFIXED | LBS_OWNERDRAWVARIABLE)) != 0;
    bool text = !owner || (style & LBS_HASSTRINGS);
    bool multi = (style & (LBS_MULTIPLESEL | LBS_EXTENDEDSEL)) != 0;
    bool rows = !(style & (LBS_OWNERDRAWVARIABLE | LBS_MULTICOLUMN));
    UINT *msg = calloc(2 * n + 1, sizeof *msg);
    WPARAM *wp = calloc(2 * n + 1, sizeof *wp);
    LPARAM *lp = calloc(2 * n + 1, sizeof *lp);
    LRESULT *res = calloc(2 * n + 1, sizeof *res);
    for (size_t k = 0; k < n; k++) {
        win_cc_item_new(h, MSAA_ITEMS_LISTBOX, items[k].id, &infos[k]);
        if (msg && wp && lp && res) {
            msg[2 * k] = LB_GETTEXTLEN;
            msg[2 * k + 1] = LB_GETSEL;
            wp[2 * k] = wp[2 * k + 1] = (WPARAM)items[k].id;
        }
    }
    size_t nmsg = 2 * n;
    if (msg && wp && lp && res) {
        msg[nmsg] = LB_GETITEMHEIGHT;
        win_cc_send_all(cc, h, msg, wp, lp, res, nmsg + 1);
    }
    RECT client = {0};
    POINT origin = {0, 0};
    bool placed = rows && res && res[nmsg] > 0 && GetClientRect(h, &client);
    if (placed)
        MapWindowPoints(h, NULL, &origin, 1);
    for (size_t k = 0; k < n; k++) {
        struct tree_element_info *out = &infos[k];
        int i = (int)items[k].id;
        if (text && res && res[2 * k] >= 0)
            out->name = list_text(cc, h, false, i, res[2 * k]);
        if (multi ? res && res[2 * k + 1] > 0 : v && v->has_selected && v->selected == items[k].id)
            out->states |= WA_ST_SELECTED;
        RECT ir = {0};
        LRESULT r = 0;
        if (placed) {
            int y = client.top + (i - v_top(v)) * (int)res[nmsg];
            ir = (RECT){client.left, y, client.right, y + (int)res[nmsg]};
        } else if (!win_cc_send(cc, h, LB_GETITEMRECT, (WPARAM)i, (LPARAM)&ir, &r) || r == LB_ERR ||
                   !GetClientRect(h, &client)) {
            out->states |= WA_ST_OFFSCREEN;
            continue;
        }
        RECT vis;
        if (!IntersectRect(&vis, &ir, &client) || 2 * (vis.bottom - vis.top) < ir.bottom - ir.top)
            out->states |= WA_ST_OFFSCREEN;
        if (!placed)
            MapWindowPoints(h, NULL, (POINT *)&ir, 2);
        else
            OffsetRect(&ir, origin.x, origin.y);
        out->bounds = (struct wa_rect){ir.left, ir.top, ir.right, ir.bottom};
    }
    free(msg);
    free(wp);
    free(lp);
    free(res);
}

static const struct win_cc_reader list_box_reader = {
    .kind = MSAA_ITEMS_LISTBOX,
    .view = list_view,
    .listed = win_cc_indexed_listed,
    .read = lb_read,
    .find = lb_find,
    .show = lb_show,
};

static const struct win_cc_reader combo_box_reader = {
    .kind = MSAA_ITEMS_COMBOBOX,
    .view = combo_view,
    .listed = win_cc_indexed_listed,
    .find = cb_find,
    .show = cb_show,
};

const struct win_cc_reader *win_coll_reader(enum msaa_item_class k)
{
    switch (k) {
    case MSAA_ITEMS_LISTVIEW:
        return &win_cc_list_view_reader;
    case MSAA_ITEMS_TREEVIEW:
        return &win_cc_tree_view_reader;
    case MSAA_ITEMS_LISTBOX:
        return &list_box_reader;
    case MSAA_ITEMS_COMBOBOX:
        return &combo_box_reader;
    default:
        return NULL;
    }
}

/* ---- one collection, as a walk lists it ---- */

/* What the listed items are: taken from `last` where an item's row looks as it did
 * (the view being where it was), the others read together. */
/* A list box drawn by its owner without strings: its rows are known by their data, which
 * the source reads its own way (win_msaa.c). */
static bool owner_data(HWND h, enum msaa_item_class k)
{
    LONG style = GetWindowLongW(h, GWL_STYLE);
    return k == MSAA_ITEMS_LISTBOX && (style & (LBS_OWNERDRAWFIXED | LBS_OWNERDRAWVARIABLE)) &&
           !(style & LBS_HASSTRINGS);
}

static void read_items(struct win_cc *cc, struct win_coll *c, const struct win_coll_listing *last)
{
    if (!c->rd->read || !c->n || owner_data(c->h, c->rd->kind) ||
        !(c->infos = calloc(c->n, sizeof *c->infos)))
        return;
    struct win_cc_item *ask = calloc(c->n, sizeof *ask);
    size_t *at = calloc(c->n, sizeof *at), nask = 0;
    struct tree_element_info *got = calloc(c->n, sizeof *got);
    for (size_t i = 0; ask && at && got && i < c->n; i++) {
        const struct tree_element_info *was = NULL;
        for (size_t j = 0; last && !was && j < last->n; j++)
            if (last->items[j].id == c->items[i].id)
                was = last->same[j];
        if (!was || !tree_element_info_copy(was, &c->infos[i])) {
            at[nask] = i;
            ask[nask++] = c->items[i];
        } else {
            c->taken++;
        }
    }
    if (nask)
        c->rd->read(cc, c->h, &c->view, ask, nask, got);
    for (size_t k = 0; k < nask; k++)
        c->infos[at[k]] = got[k];
    free(ask);
    free(at);
    free(got);
}

/* Whether the view is where it was when `last` was listed: as many items, the same
 * first row (a tree) or the same rows listed (a list, whose listing follows its top). */
static bool view_kept(const struct win_coll *c, const struct win_coll_listing *last, bool tree)
{
    if (!last || last->h != c->h || last->count != c->view.count)
        return false;
    if (tree)
        return last->first && last->first == c->view.first;
    if (last->n != c->n)
        return false;
    for (size_t i = 0; i < c->n; i++)
        if (last->items[i].id != c->items[i].id)
            return false;
    return true;
}

static void forget_items(struct win_coll *c)
{
    c->taken = 0;
    for (size_t i = 0; c->infos && i < c->n; i++)
        tree_element_info_cleanup(&c->infos[i]);
    free(c->infos);
    c->infos = NULL;
    c->n = 0;
}

static bool shows(const struct tree_element_info *info);

/* Whether the items read still fill the view as the control shows it: the first item in
 * view at the top of them, each next row right below the one before, as many rows as
 * fit or down to the last, the caret among them. (An item opened or closed, a scroll, an
 * item added or taken away: a gap, a row missing, or another first row.) */
static bool fills_view(const struct win_coll *c)
{
    size_t *rows = calloc(c->n ? c->n : 1, sizeof *rows), k = 0;
    bool caret = !c->view.has_caret;
    for (size_t i = 0; rows && i < c->n; i++) {
        caret = caret || c->items[i].id == c->view.caret;
        if (shows(&c->infos[i]))
            rows[k++] = i;
    }
    for (size_t a = 1; a < k; a++) /* by where they are */
        for (size_t b = a; b > 0 && c->infos[rows[b - 1]].bounds.top > c->infos[rows[b]].bounds.top;
             b--) {
            size_t t = rows[b];
            rows[b] = rows[b - 1];
            rows[b - 1] = t;
        }
    bool ok = rows && caret && k > 0 && c->items[rows[0]].id == c->view.first;
    /* rows one pitch apart (a row's height; a pixel more where a control keeps one
     * between rows' rectangles), so none is missing between them */
    const struct wa_rect *r0 = ok ? &c->infos[rows[0]].bounds : NULL;
    int pitch = k > 1 ? c->infos[rows[1]].bounds.top - r0->top : 0;
    ok = ok && (k < 2 || (pitch >= r0->bottom - r0->top && pitch <= r0->bottom - r0->top + 1));
    for (size_t i = 1; ok && i < k; i++)
        ok = c->infos[rows[i]].bounds.top - c->infos[rows[i - 1]].bounds.top == pitch;
    ok = ok && ((int)k >= c->view.per_page || c->items[rows[k - 1]].id == c->view.last);
    free(rows);
    return ok;
}

struct win_coll *win_coll_open(struct win_cc *cc, HWND h, enum msaa_item_class k,
                               const struct win_coll_listing *last)
{
    const struct win_cc_reader *rd = win_coll_reader(k);
    struct win_coll *c = rd && cc ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->h = h;
    c->rd = rd;
    if (!rd->view(cc, h, &c->view)) {
        free(c);
        return NULL;
    }
    /* A list view is read here whatever its length (its rows together), and a list box
     * or tree that holds more than a few views' worth; short ones (and combo boxes, whose
     * lists rarely show) are walked as they always were. */
    bool pages = k != MSAA_ITEMS_COMBOBOX && c->view.per_page > 0 &&
                 c->view.count > WIN_COLL_PAGES * c->view.per_page;
    c->lists = k == MSAA_ITEMS_LISTVIEW || c->view.count > WIN_COLL_SHORT || pages;
    if (!c->lists || !(c->items = calloc(WIN_COLL_LISTED_MAX, sizeof *c->items)))
        return c;
    /* A tree's rows are asked one by one (each is the next of the one before): what the
     * last walk listed is taken where it still fills the view. */
    bool tree = k == MSAA_ITEMS_TREEVIEW;
    /* A report view's columns, where its header looks as it did: 9 messages fewer */
    if (k == MSAA_ITEMS_LISTVIEW && c->view.rows && last && last->h == h && last->cols &&
        last->cols->list == h && cc->cols.list != h)
        win_cc_buf_columns_copy(last->cols, &cc->cols);
    if (tree && last && last->h == h && last->n && rd->read) {
        c->n = last->n < WIN_COLL_LISTED_MAX ? last->n : WIN_COLL_LISTED_MAX;
        memcpy(c->items, last->items, c->n * sizeof *c->items);
        read_items(cc, c, view_kept(c, last, true) ? last : NULL);
        if (c->infos && fills_view(c))
            return c;
        forget_items(c);
    }
    c->n = rd->listed(cc, h, &c->view, pages ? 0 : WIN_COLL_SHORT, WIN_COLL_MARGIN, c->items,
                      WIN_COLL_LISTED_MAX);
    read_items(cc, c, view_kept(c, last, tree) && !last->cols_gone ? last : NULL);
    return c;
}

void win_coll_free(struct win_coll *c)
{
    if (!c)
        return;
    forget_items(c);
    free(c->items);
    free(c);
}

size_t win_coll_taken(const struct win_coll *c)
{
    return c->taken;
}

HWND win_coll_hwnd(const struct win_coll *c)
{
    return c->h;
}

bool win_coll_lists(const struct win_coll *c)
{
    return c->lists;
}

static bool shows(const struct tree_element_info *info)
{
    return !(info->states & WA_ST_OFFSCREEN) && !wa_rect_empty(info->bounds);
}

void win_coll_summary(const struct win_coll *c, struct wa_collection *out)
{
    *out = (struct wa_collection){.is = true, .count = c->view.count, .first = -1, .last = -1};
    if (c->infos) { /* what was read says what shows */
        for (size_t i = 0; i < c->n; i++) {
            if (!shows(&c->infos[i]))
                continue;
            out->in_view++;
            if (c->view.top < 0)
                continue;
            int idx = (int)c->items[i].id;
            out->first = out->first < 0 || idx < out->first ? idx : out->first;
            out->last = idx > out->last ? idx : out->last;
        }
    } else if (c->view.top >= 0 && c->view.per_page > 0 && c->view.count > 0) {
        out->first = c->view.top;
        out->last = c->view.top + c->view.per_page - 1;
        out->last = out->last < c->view.count ? out->last : c->view.count - 1;
        out->in_view = out->last - out->first + 1;
    }
}

static int top_of(const struct win_coll *c, size_t i)
{
    return c->infos && !wa_rect_empty(c->infos[i].bounds) ? c->infos[i].bounds.top : INT32_MAX;
}

size_t win_coll_children(const struct win_coll *c, uint64_t parent, uint64_t *out, size_t max)
{
    size_t *at = calloc(c->n ? c->n : 1, sizeof *at), n = 0;
    if (!at)
        return 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->items[i].parent == parent)
            at[n++] = i;
    /* In display order: by where they are (a tree's caret and holders were asked apart);
     * those with no place (inside a closed branch) last, as listed. */
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && top_of(c, at[b - 1]) > top_of(c, at[b]); b--) {
            size_t tmp = at[b];
            at[b] = at[b - 1];
            at[b - 1] = tmp;
        }
    size_t k = 0;
    for (; k < n && k < max; k++)
        out[k] = c->items[at[k]].id;
    free(at);
    return k;
}

bool win_coll_info(const struct win_coll *c, uint64_t id, struct tree_element_info *out)
{
    for (size_t i = 0; c->infos && i < c->n; i++)
        if (c->items[i].id == id)
            return tree_element_info_copy(&c->infos[i], out);
    return false;
}
