/* The items of list and combo boxes, read with LB_/CB_ messages (all of a list's facts
 * asked at once, texts read ahead of the walk on worker threads), and the long
 * collections (win_coll.h) a walk meets, each opened once. */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
#include <commctrl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/msaa/win_msaa_items.h"
#include "automation/win/msaa/win_cc_buf.h"
#include "automation/win/msaa/win_coll.h"
#include "automation/win/msaa/win_msaa_cc.h"
#include "base/win/win_utf8.h"
#include "base/str.h"

static struct win_coll *coll_of(struct win_msaa_ctx *c, HWND h, enum msaa_item_class k);

static bool items_have_text(LONG style, bool combo)
{
    bool owner = combo ? (style & (CBS_OWNERDRAWFIXED | CBS_OWNERDRAWVARIABLE)) != 0
                       : (style & (LBS_OWNERDRAWFIXED | LBS_OWNERDRAWVARIABLE)) != 0;
    bool strings = combo ? (style & CBS_HASSTRINGS) != 0 : (style & LBS_HASSTRINGS) != 0;
    return !owner || strings;
}

struct win_cc *win_msaa_items_cc(struct win_msaa_ctx *c)
{
    if (!c->cc)
        c->cc = win_cc_new(c->gate);
    return c->cc;
}

/* Sends msg with wparam 0..n-1 (lparam 0: no pointer, so the messages need not wait for
 * each other) and waits up to the message timeout for every answer; out[i] is -1 where
 * none came. The target's thread answers them together (win_send_all). */
static void send_batch(struct win_gate *g, HWND h, UINT msg, size_t n, LRESULT *out)
{
    UINT *m = calloc(n ? n : 1, sizeof *m);
    WPARAM *wp = calloc(n ? n : 1, sizeof *wp);
    LPARAM *lp = calloc(n ? n : 1, sizeof *lp);
    for (size_t i = 0; i < n; i++) {
        out[i] = -1;
        if (m && wp) {
            m[i] = msg;
            wp[i] = (WPARAM)i;
        }
    }
    if (m && wp && lp)
        win_send_all(g, h, m, wp, lp, out, n);
    free(m);
    free(wp);
    free(lp);
}

/* The texts of items [from, to) of a list, by messages sent straight (no gate). */
struct text_range {
    HWND hwnd;
    bool combo;
    const int *lens;
    char **texts;
    int from, to;
    volatile LONG *stop;
};

/* *answered: false when the list's thread did not answer (hung, or gone). */
static char *text_of_item(HWND h, bool combo, int i, LRESULT len, bool *answered)
{
    *answered = true;
    if (len < 0 || len > TEXT_CAP)
        return NULL;
    /* Room to spare: the text may have grown since its length was asked. */
    wchar_t *buf = calloc((size_t)len + 256, sizeof *buf);
    if (!buf)
        return NULL;
    DWORD_PTR got = 0;
    char *s = NULL;
    *answered = SendMessageTimeoutW(h, combo ? CB_GETLBTEXT : LB_GETTEXT, (WPARAM)i, (LPARAM)buf,
                                    SMTO_ABORTIFHUNG, MESSAGE_MS, &got) != 0;
    if (*answered && (LRESULT)got >= 0)
        s = win_wide_to_utf8_n(buf, (int)((LRESULT)got > len + 255 ? len + 255 : (LRESULT)got));
    free(buf);
    return s;
}

static void read_range(void *p)
{
    struct text_range *r = p;
    bool answered = true;
    for (int i = r->from; i < r->to && !InterlockedCompareExchange(r->stop, 0, 0); i++) {
        r->texts[i] = text_of_item(r->hwnd, r->combo, i, r->lens[i], &answered);
        if (!answered) /* the list's thread hangs: its other readers stop too */
            InterlockedExchange(r->stop, 1);
    }
}

/* Every item's text: half of them read on a second thread, as the target's thread
 * answers two senders' messages in one turn. */
#define READERS           2 /* threads reading a list's texts */
#define READERS_MIN_ITEMS 8

static void read_texts(struct win_gate *g, struct list_facts *f, int n)
{
    if (!(f->texts = calloc((size_t)n, sizeof *f->texts)))
        return;
    f->ntexts = n;
    int k = n >= READERS_MIN_ITEMS ? READERS : 1;
    struct text_range *parts = calloc((size_t)k, sizeof *parts); /* kept if the walk is abandoned */
    if (!parts)
        return;
    for (int i = 0; i < k; i++)
        parts[i] = (struct text_range){f->hwnd,   f->combo,        f->lens, f->texts,
                                       n * i / k, n * (i + 1) / k, &f->stop};
    struct win_job *t[READERS * 4] = {0};
    win_gate_leave(g);
    for (int i = 1; i < k; i++)
        if (win_task_start(read_range, &parts[i], &t[i]) != WA_E_OK)
            t[i] = NULL;
    read_range(&parts[0]);
    for (int i = 1; i < k; i++) {
        if (t[i]) {
            WaitForSingleObject(win_job_done(t[i]), INFINITE);
            win_job_release(t[i]);
        } else {
            read_range(&parts[i]);
        }
    }
    win_gate_enter(g);
    free(parts);
}

char *win_msaa_items_text(struct win_gate *g, struct list_facts *f, int i)
{
    if (!items_have_text(f->style, f->combo))
        return NULL;
    if (f->texts && i < f->ntexts) { /* read with the others */
        char *s = f->texts[i];
        f->texts[i] = NULL;
        return s;
    }
    LRESULT len = 0;
    if (!win_msaa_el_send_msg(g, f->hwnd, f->combo ? CB_GETLBTEXTLEN : LB_GETTEXTLEN, (WPARAM)i, 0,
                              MESSAGE_MS, &len))
        return NULL;
    win_gate_leave(g);
    bool answered;
    char *s = text_of_item(f->hwnd, f->combo, i, len, &answered);
    win_gate_enter(g);
    return s;
}

/* Every item's text length, in one batch (msg: LB_GETTEXTLEN or CB_GETLBTEXTLEN). */
static void item_lengths(struct win_gate *g, struct list_facts *f, UINT msg)
{
    size_t n = (size_t)(f->count < ITEM_CAP ? f->count : ITEM_CAP);
    LRESULT *r = calloc(n ? n : 1, sizeof *r);
    f->lens = calloc(n ? n : 1, sizeof *f->lens);
    if (r && f->lens && items_have_text(f->style, f->combo)) {
        send_batch(g, f->hwnd, msg, n, r);
        for (size_t i = 0; i < n; i++)
            f->lens[i] = r[i] >= 0 && r[i] <= TEXT_CAP ? (int)r[i] : -1;
        read_texts(g, f, (int)n);
    } else {
        free(f->lens);
        f->lens = NULL;
    }
    free(r);
}

/* Where list box lb (a list box, or a combo box's list) shows its rows: its client area
 * on the screen, and for rows of one height (not owner-drawn variable, not in columns)
 * the top row and the height, so each row's place needs no message. */
static void rows_of(struct win_gate *g, struct list_facts *f, HWND lb)
{
    LONG style = GetWindowLongW(lb, GWL_STYLE);
    LRESULT top = 0, height = 0;
    if (!GetClientRect(lb, &f->area))
        return;
    f->rows_in = lb;
    f->origin = (POINT){0, 0};
    MapWindowPoints(lb, NULL, &f->origin, 1);
    if (!(style & (LBS_OWNERDRAWVARIABLE | LBS_MULTICOLUMN)) &&
        win_msaa_el_send_msg(g, lb, LB_GETTOPINDEX, 0, 0, MESSAGE_MS, &top) && top >= 0 &&
        win_msaa_el_send_msg(g, lb, LB_GETITEMHEIGHT, 0, 0, MESSAGE_MS, &height) && height > 0) {
        f->rows = true;
        f->top = (int)top;
        f->height = (int)height;
    }
}

/* Each item's data (LB_GETITEMDATA or CB_GETITEMDATA, in one batch): what an owner-drawn
 * list without text keeps per row (a pointer of the program's), the row's identity. */
static void item_data(struct win_gate *g, struct list_facts *f, UINT msg)
{
    size_t n = (size_t)(f->count < ITEM_CAP ? f->count : ITEM_CAP);
    LRESULT *r = calloc(n ? n : 1, sizeof *r);
    if (r && (f->data = calloc(n ? n : 1, sizeof *f->data))) {
        send_batch(g, f->hwnd, msg, n, r);
        for (size_t i = 0; i < n; i++)
            f->data[i] = (uintptr_t)r[i];
    }
    free(r);
}

static void facts_of_list(struct win_gate *g, struct list_facts *f)
{
    HWND h = f->hwnd;
    LRESULT r = 0, n = 0;
    f->cursel = -1;
    if (!win_msaa_el_send_msg(g, h, LB_GETCOUNT, 0, 0, MESSAGE_MS, &n) || n <= 0)
        return;
    f->count = (int)n;
    item_lengths(g, f, LB_GETTEXTLEN);
    if (f->style & (LBS_MULTIPLESEL | LBS_EXTENDEDSEL)) {
        LRESULT k = 0;
        if (win_msaa_el_send_msg(g, h, LB_GETSELCOUNT, 0, 0, MESSAGE_MS, &k) && k >= 0 &&
            (f->selected = calloc((size_t)n, 1)) != NULL) {
            int *idx = k > 0 ? calloc((size_t)k, sizeof *idx) : NULL;
            if (k > 0 && (!idx ||
                          !win_msaa_el_send_msg(g, h, LB_GETSELITEMS, (WPARAM)k, (LPARAM)idx,
                                                MESSAGE_MS, &r) ||
                          r < 0)) {
                free(f->selected); /* asked item by item instead */
                f->selected = NULL;
            }
            for (LRESULT i = 0; f->selected && i < k && i < r; i++)
                if (idx[i] >= 0 && idx[i] < n)
                    f->selected[idx[i]] = 1;
            free(idx);
        }
    } else if (win_msaa_el_send_msg(g, h, LB_GETCURSEL, 0, 0, MESSAGE_MS, &r)) {
        f->cursel = (int)r;
    }
    rows_of(g, f, h);
    if (!items_have_text(f->style, false))
        item_data(g, f, LB_GETITEMDATA);
}

/* ---- combo boxes ---- */

struct dropped_list {
    RECT want; /* where the combo box says its drop-down list is */
    HWND found;
};

static BOOL CALLBACK find_dropped(HWND h, LPARAM lp)
{
    struct dropped_list *d = (struct dropped_list *)lp;
    wchar_t cls[16];
    RECT r;
    if (IsWindowVisible(h) && GetClassNameW(h, cls, 16) > 0 && _wcsicmp(cls, L"ComboLBox") == 0 &&
        GetWindowRect(h, &r) && r.left == d->want.left && r.top == d->want.top) {
        d->found = h;
        return FALSE;
    }
    return TRUE;
}

/* The list that shows a combo box's items: a simple combo box's child list, or the open
 * drop-down list (a window of the combo box's thread, with no owner under Wine and no
 * cross-process GetComboBoxInfo: found by the place CB_GETDROPPEDCONTROLRECT gives).
 * NULL for a closed drop-down. */
static HWND combo_list(struct win_gate *g, struct list_facts *f)
{
    HWND h = f->hwnd;
    if ((f->style & 3) == CBS_SIMPLE)
        return FindWindowExW(h, NULL, L"ComboLBox", NULL);
    LRESULT dropped = 0, r = 0;
    struct dropped_list d = {.found = NULL};
    if (!win_msaa_el_send_msg(g, h, CB_GETDROPPEDSTATE, 0, 0, MESSAGE_MS, &dropped) || !dropped ||
        !win_msaa_el_send_msg(g, h, CB_GETDROPPEDCONTROLRECT, 0, (LPARAM)&d.want, MESSAGE_MS, &r))
        return NULL;
    f->dropped = true;
    f->area = d.want;
    EnumThreadWindows(GetWindowThreadProcessId(h, NULL), find_dropped, (LPARAM)&d);
    return d.found;
}

static void facts_of_combo(struct win_gate *g, struct list_facts *f)
{
    HWND h = f->hwnd;
    LRESULT r = 0, top = 0, height = 0;
    f->cursel = win_msaa_el_send_msg(g, h, CB_GETCURSEL, 0, 0, MESSAGE_MS, &r) ? (int)r : -1;
    if (win_msaa_el_send_msg(g, h, CB_GETCOUNT, 0, 0, MESSAGE_MS, &r) && r > 0) {
        f->count = (int)r;
        item_lengths(g, f, CB_GETLBTEXTLEN);
        if (!items_have_text(f->style, true))
            item_data(g, f, CB_GETITEMDATA);
    }
    /* Items have a place where their list shows: always for a simple combo box, for
     * the others while the drop-down list is open. */
    HWND list = combo_list(g, f);
    if (list) {
        rows_of(g, f, list);
    } else if (f->dropped && win_msaa_el_send_msg(g, h, CB_GETTOPINDEX, 0, 0, MESSAGE_MS, &top) &&
               win_msaa_el_send_msg(g, h, CB_GETITEMHEIGHT, 0, 0, MESSAGE_MS, &height) &&
               height > 0) {
        /* the list's window was not found: rows from the list's rectangle */
        f->rows = true;
        f->top = (int)top;
        f->height = (int)height;
    }
}

static void read_facts(struct win_gate *g, struct list_facts *f)
{
    if (f->responsive && f->combo)
        facts_of_combo(g, f);
    else if (f->responsive)
        facts_of_list(g, f);
    f->read = true;
}

/* Lists whose facts one thread reads ahead of the walk, one after the other. */
struct ahead {
    size_t n;
    struct list_facts *lists[];
};

static void read_ahead(void *p)
{
    struct ahead *a = p;
    for (size_t i = 0; i < a->n; i++)
        read_facts(NULL, a->lists[i]);
    free(a);
}

static struct list_facts *find_facts(struct win_msaa_ctx *c, HWND h)
{
    for (size_t i = 0; i < c->nlists; i++)
        if (c->lists[i]->hwnd == h)
            return c->lists[i];
    return NULL;
}

static struct list_facts *new_facts(struct win_msaa_ctx *c, HWND h, bool combo)
{
    if (c->nlists == c->cap_lists) {
        size_t cap = c->cap_lists ? 2 * c->cap_lists : 8;
        struct list_facts **grown = wa_reallocarray(c->lists, cap, sizeof *grown);
        if (!grown)
            return NULL;
        c->lists = grown;
        c->cap_lists = cap;
    }
    struct list_facts *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    *f = (struct list_facts){.hwnd = h, .combo = combo, .cursel = -1};
    f->style = GetWindowLongW(h, GWL_STYLE);
    f->responsive = win_msaa_el_thread_of(c, h)->responsive;
    c->lists[c->nlists++] = f;
    return f;
}

void win_msaa_items_read_lists_ahead(struct win_msaa_ctx *c, struct el_list *l)
{
    struct ahead *a = NULL;
    for (size_t i = 0; i < l->count && c->nahead < AHEAD_CAP; i++) {
        if (l->d[i].kind != EL_WINDOW)
            continue;
        char *cls = win_msaa_el_ctx_class(c, l->d[i].hwnd);
        enum msaa_item_class k = msaa_class_items(cls);
        free(cls);
        if (k != MSAA_ITEMS_LISTBOX && k != MSAA_ITEMS_COMBOBOX)
            continue;
        /* a long list box lists what is in view, read by its collection */
        struct win_coll *co = k == MSAA_ITEMS_LISTBOX ? coll_of(c, l->d[i].hwnd, k) : NULL;
        if (co && win_coll_lists(co))
            continue;
        struct list_facts *f = find_facts(c, l->d[i].hwnd)
                                   ? NULL
                                   : new_facts(c, l->d[i].hwnd, k == MSAA_ITEMS_COMBOBOX);
        if (!f || !f->responsive)
            continue;
        win_msaa_el_pixels_wait(c); /* before their items are read */
        if (!a && !(a = calloc(1, sizeof *a + l->count * sizeof a->lists[0])))
            return;
        a->lists[a->n++] = f;
        f->ahead = true;
    }
    struct win_job *t = NULL;
    if (a && win_task_start(read_ahead, a, &t) == WA_E_OK) {
        c->ahead[c->nahead++] = t;
    } else if (a) { /* read when their items come */
        for (size_t i = 0; i < a->n; i++)
            a->lists[i]->ahead = false;
        free(a);
    }
}

void win_msaa_items_join_ahead(struct win_msaa_ctx *c, bool stop)
{
    for (size_t i = 0; stop && i < c->nlists; i++)
        InterlockedExchange(&c->lists[i]->stop, 1);
    if (!c->nahead)
        return;
    HANDLE done[AHEAD_CAP];
    for (int i = 0; i < c->nahead; i++)
        done[i] = win_job_done(c->ahead[i]);
    win_gate_leave(c->gate);
    WaitForMultipleObjects((DWORD)c->nahead, done, TRUE, INFINITE);
    win_gate_enter(c->gate);
    for (int i = 0; i < c->nahead; i++)
        win_job_release(c->ahead[i]);
    c->nahead = 0;
    for (size_t i = 0; i < c->nlists; i++)
        c->lists[i]->ahead = false;
}

struct list_facts *win_msaa_items_facts(struct win_msaa_ctx *c, HWND h, bool combo)
{
    win_msaa_el_pixels_wait(c);
    struct list_facts *f = find_facts(c, h);
    if (!f && !(f = new_facts(c, h, combo)))
        return NULL;
    if (f->ahead)
        win_msaa_items_join_ahead(c, false);
    if (!f->read)
        read_facts(c->gate, f);
    return f;
}

void win_msaa_items_place(struct win_msaa_ctx *c, struct list_facts *f, int i,
                          struct tree_element_info *out)
{
    RECT ir = {0}, client = f->area;
    LRESULT r = 0;
    if (f->rows) {
        ir = (RECT){client.left, client.top + (i - f->top) * f->height, client.right,
                    client.top + (i - f->top + 1) * f->height};
        if (!f->rows_in) /* a drop-down list's rectangle, inside its border */
            OffsetRect(&ir, 1, 1);
    } else if (!f->rows_in ||
               !win_msaa_el_send_msg(c->gate, f->rows_in, LB_GETITEMRECT, (WPARAM)i, (LPARAM)&ir,
                                     MESSAGE_MS, &r) ||
               r == LB_ERR) {
        out->states |= WA_ST_OFFSCREEN;
        return;
    }
    RECT vis;
    if (!IntersectRect(&vis, &ir, &client) || 2 * (vis.bottom - vis.top) < ir.bottom - ir.top)
        out->states |= WA_ST_OFFSCREEN;
    if (f->rows_in)
        OffsetRect(&ir, f->origin.x, f->origin.y);
    out->bounds = (struct wa_rect){ir.left, ir.top, ir.right, ir.bottom};
}

/* ---- long collections (win_coll.h) ---- */

uint64_t win_msaa_items_id(const struct el_desc *d)
{
    return d->items == MSAA_ITEMS_LISTBOX || d->items == MSAA_ITEMS_COMBOBOX ? (uint64_t)d->item
                                                                             : d->item_id;
}

struct win_coll *win_msaa_items_coll_found(struct win_msaa_ctx *c, HWND h)
{
    for (size_t i = 0; i < c->ncolls; i++)
        if (win_coll_hwnd(c->colls[i]) == h)
            return c->colls[i];
    return NULL;
}

/* The collection of control h (of item class k) for this walk, opened once; NULL when
 * it is none, or does not answer. */
static struct win_coll *coll_of(struct win_msaa_ctx *c, HWND h, enum msaa_item_class k)
{
    struct win_coll *co = win_msaa_items_coll_found(c, h);
    if (co || !win_coll_reader(k) || !win_msaa_el_thread_of(c, h)->responsive ||
        !win_msaa_items_cc(c))
        return co;
    win_msaa_el_pixels_wait(c); /* its rows are read now */
    if (c->ncolls == c->cap_colls) {
        size_t cap = c->cap_colls ? 2 * c->cap_colls : 4;
        struct win_coll **p = wa_reallocarray(c->colls, cap, sizeof *p);
        if (!p)
            return NULL;
        c->colls = p;
        c->cap_colls = cap;
    }
    if ((co = win_coll_open(c->cc, h, k, win_msaa_items_last_listing(c->reuse, h))))
        c->colls[c->ncolls++] = co;
    return co;
}

/* A list view's columns as this walk read them, kept on its element for the next walk
 * (the reader holds one list's at a time). */
static void keep_columns(struct win_msaa_ctx *c, struct el_desc *d)
{
    const struct columns *now = c->cc ? &c->cc->cols : NULL;
    if (!d->cols && now && now->list == d->hwnd && now->header && now->count >= 2)
        d->cols = win_cc_buf_columns_dup(now);
}

void win_msaa_items_coll_summary(struct win_msaa_ctx *c, struct el_desc *d,
                                 struct tree_element_info *out)
{
    struct win_coll *co = coll_of(c, d->hwnd, msaa_class_items(out->class_name));
    if (!co)
        return;
    win_coll_summary(co, &out->coll);
    keep_columns(c, d);
}

bool win_msaa_items_add_coll(struct win_msaa_ctx *c, struct el_list *l, HWND h,
                             enum msaa_item_class k, uint64_t parent)
{
    struct win_coll *co = coll_of(c, h, k);
    if (!co || !win_coll_lists(co))
        return false;
    uint64_t ids[WIN_COLL_LISTED_MAX];
    size_t n = win_coll_children(co, parent, ids, WIN_COLL_LISTED_MAX);
    for (size_t i = 0; i < n; i++) {
        struct el_desc d = {
            .kind = EL_ITEM, .hwnd = h, .items = k, .item = (int)ids[i], .item_id = ids[i]};
        if (!win_msaa_el_list_add(l, &d))
            break;
    }
    return true;
}

void win_msaa_items_add_tree_children(struct win_msaa_ctx *c, struct el_list *l, struct el_desc *d)
{
    if (!win_msaa_items_add_coll(c, l, d->hwnd, d->items, d->item_id))
        win_msaa_items_add_cc(c, l, d->hwnd, d->items, d->item_id);
}

void win_msaa_items_add_cc(struct win_msaa_ctx *c, struct el_list *l, HWND h,
                           enum msaa_item_class k, uint64_t parent)
{
    uint64_t ids[ITEM_CAP];
    if (!win_msaa_el_thread_of(c, h)->responsive || !win_msaa_items_cc(c))
        return;
    win_msaa_el_pixels_wait(c);
    size_t n = win_cc_items(c->cc, h, k, parent, ids, ITEM_CAP);
    for (size_t i = 0; i < n; i++) {
        struct el_desc d = {.kind = EL_ITEM, .hwnd = h, .items = k, .item_id = ids[i]};
        if (!win_msaa_el_list_add(l, &d))
            return;
    }
}

const struct win_coll_listing *win_msaa_items_last_listing(const struct win_msaa_reuse *r, HWND h)
{
    for (size_t i = 0; win_msaa_el_reuse_settled(r) && i < r->nlists; i++)
        if (r->lists[i].h == h)
            return &r->lists[i];
    return NULL;
}
