/* The HWND + MSAA tree source: the walk (each element's children) and MSAA actions.
 * What it says of each element is win_msaa_info.c, list items and long collections
 * win_msaa_items.c, what a walk takes of the last one win_msaa_reuse.c. Wine 8's oleacc gives
 * little: for OBJID_CLIENT a generic client object (role CLIENT for every class but Edit, whose
 * object has role TEXT, its label as name and its text as value; name by WM_GETTEXT;
 * no accLocation of windows' frames, no default actions, accDoDefaultAction and
 * accSelect E_NOTIMPL), E_NOTIMPL for every call on OBJID_WINDOW objects, nothing for
 * OBJID_MENU, and no list or combo box items. So window classes, styles and LB_/CB_
 * messages carry the tree there, and every MSAA answer is optional. */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
#include <commctrl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/msaa/win_msaa.h"
#include "automation/win/msaa/win_coll.h"
#include "automation/win/desktop/win_events.h"
#include "automation/win/desktop/win_menu.h"
#include "automation/win/msaa/win_msaa_cc.h"
#include "automation/win/msaa/win_msaa_el.h"
#include "automation/win/msaa/win_msaa_info.h"
#include "automation/win/msaa/win_msaa_items.h"
#include "automation/win/msaa/win_msaa_reuse.h"
#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_window.h"
#include "base/str.h"

void win_msaa_release_handle(void *handle)
{
    struct msaa_el *h = handle;
    if (!h)
        return;
    win_msaa_el_list_unref(h->list);
    free(h);
}

void *win_msaa_ref_handle(void *handle)
{
    struct msaa_el *h = handle;
    return h ? win_msaa_el_handle_new(h->list, h->index) : NULL;
}

/* ---- calls into the target, through the gate ---- */
char *win_msaa_text_name(HWND h, struct win_gate *gate)
{
    bool child = (GetWindowLongW(h, GWL_STYLE) & WS_CHILD) != 0;
    return win_msaa_el_text_name(gate, h, child && win_msaa_el_ping(gate, h));
}

char *win_msaa_window_name(HWND h, struct win_gate *gate)
{
    if (!win_msaa_el_ping(gate, h))
        return NULL;
    IAccessible *acc = win_msaa_el_object_from_window(gate, h, OBJID_CLIENT);
    if (!acc)
        return NULL;
    char *name = win_msaa_el_acc_text(gate, acc, CHILDID_SELF, ACC_NAME);
    WIN_RELEASE(acc);
    if (name && !*name) {
        free(name);
        name = NULL;
    }
    return name;
}

/* ---- navigation ---- */

static bool add_window(struct el_list *l, HWND h)
{
    struct el_desc d = {.kind = EL_WINDOW, .hwnd = h};
    return win_msaa_el_list_add(l, &d);
}

struct child_scan {
    HWND parent;
    bool combo; /* the parent is a combo box: its list is left out (is_combo_list) */
    struct el_list *list;
    bool ok;
};

/* A simple combo box's list: its items are the combo box's own (listed under it, placed
 * in this list), so the list is no element of its own. */
static bool is_combo_list(HWND h)
{
    wchar_t cls[16];
    return GetClassNameW(h, cls, 16) > 0 && _wcsicmp(cls, L"ComboLBox") == 0;
}

static BOOL CALLBACK scan_child(HWND h, LPARAM lp)
{
    struct child_scan *s = (struct child_scan *)lp;
    /* EnumChildWindows walks all descendants, in Z order: keep direct children. */
    if (GetAncestor(h, GA_PARENT) == s->parent && IsWindowVisible(h) &&
        !(s->combo && is_combo_list(h)))
        s->ok = add_window(s->list, h);
    return s->ok;
}

/* The MSAA children of an object that are not windows (those come as windows). */
static void add_acc_children(struct win_msaa_ctx *c, struct el_list *l, IAccessible *acc, HWND own)
{
    long n = 0;
    win_gate_leave(c->gate);
    HRESULT hr = IAccessible_get_accChildCount(acc, &n);
    win_gate_enter(c->gate);
    if (FAILED(hr) || n <= 0)
        return;
    if (n > MSAA_KIDS_CAP)
        n = MSAA_KIDS_CAP;
    VARIANT *kids = calloc((size_t)n, sizeof *kids);
    if (!kids)
        return;
    long got = 0;
    win_gate_leave(c->gate);
    hr = AccessibleChildren(acc, 0, n, kids, &got);
    win_gate_enter(c->gate);
    for (long i = 0; SUCCEEDED(hr) && i < got && i < n; i++) {
        struct el_desc d = {.kind = EL_ACC, .hwnd = own};
        if (V_VT(&kids[i]) == VT_I4) {
            d.acc = acc;
            IAccessible_AddRef(acc);
            d.child_id = V_I4(&kids[i]);
            win_msaa_el_list_add(l, &d);
        } else if (V_VT(&kids[i]) == VT_DISPATCH && V_DISPATCH(&kids[i])) {
            IAccessible *obj = NULL;
            IDispatch_QueryInterface(V_DISPATCH(&kids[i]), &iid_accessible, (void **)&obj);
            HWND w = NULL;
            if (obj) {
                win_gate_leave(c->gate);
                WindowFromAccessibleObject(obj, &w);
                win_gate_enter(c->gate);
            }
            if (obj && (!w || w == own)) {
                d.acc = obj;
                d.child_id = CHILDID_SELF;
                win_msaa_el_list_add(l, &d);
            } else {
                WIN_RELEASE(obj);
            }
        }
    }
    for (long i = 0; i < got && i < n; i++)
        VariantClear(&kids[i]);
    free(kids);
}

static void add_items(struct win_msaa_ctx *c, struct el_list *l, HWND h, enum msaa_item_class k)
{
    if (win_msaa_items_add_coll(c, l, h, k, 0))
        return;
    if (k != MSAA_ITEMS_LISTBOX && k != MSAA_ITEMS_COMBOBOX) {
        win_msaa_items_add_cc(c, l, h, k, 0);
        return;
    }
    LRESULT n = 0; /* owner-drawn items without text too: their places tell them apart */
    if (!win_msaa_el_thread_of(c, h)->responsive ||
        !win_msaa_el_send_msg(c->gate, h, k == MSAA_ITEMS_COMBOBOX ? CB_GETCOUNT : LB_GETCOUNT, 0,
                              0, MESSAGE_MS, &n) ||
        n <= 0)
        return;
    for (int i = 0; i < n && i < ITEM_CAP; i++) {
        struct el_desc d = {.kind = EL_ITEM, .hwnd = h, .items = k, .item = i};
        if (!win_msaa_el_list_add(l, &d))
            return;
    }
}

/* How a menu bar's items are read: MSAA's menu bar object where there is one with
 * items (Windows' oleacc, or the program's own), else the menu functions (Windows),
 * else only its place is known. */
static void choose_bar_route(struct win_msaa_ctx *c, struct el_desc *m)
{
    if (win_msaa_el_thread_of(c, m->hwnd)->responsive)
        m->acc = win_msaa_el_object_from_window(c->gate, m->hwnd, OBJID_MENU);
    if (m->acc && (m->bar_items = win_msaa_info_acc_child_count(c->gate, m->acc)) > 0) {
        m->items_by_acc = true;
    } else {
        WIN_RELEASE(m->acc);
        m->menu = GetMenu(m->hwnd);
    }
}

static void window_children(struct win_msaa_ctx *c, struct el_desc *d, struct el_list *l)
{
    HWND h = d->hwnd;
    if (d->root && GetMenu(h)) {
        struct el_desc m = {.kind = EL_MENUBAR, .hwnd = h, .apart = c->bar_apart};
        if (!m.apart)
            choose_bar_route(c, &m);
        win_msaa_el_list_add(l, &m);
    }
    char *cls = win_msaa_el_ctx_class(c, h);
    enum msaa_item_class k = msaa_class_items(cls);
    struct child_scan s = {.parent = h, .combo = k == MSAA_ITEMS_COMBOBOX, .list = l, .ok = true};
    /* the walk's one enumeration (made on the first call, the root's) holds h's children */
    if (win_msaa_el_kid(c, h) || (h == c->root && c->kids_ok)) {
        for (size_t i = 0; i < c->nkids && s.ok; i++) {
            const struct win_kid *kid = &c->kids[i];
            if (kid->parent == h && kid->visible && !(s.combo && is_combo_list(kid->h)))
                s.ok = add_window(l, kid->h);
        }
    } else {
        EnumChildWindows(h, scan_child, (LPARAM)&s);
    }
    win_msaa_items_read_lists_ahead(c, l); /* their items are read meanwhile */

    const char *type = msaa_class_type_name(cls, (unsigned long)GetWindowLongW(h, GWL_STYLE));
    free(cls);
    if (k != MSAA_ITEMS_NONE) {
        add_items(c, l, h, k);
        return;
    }
    /* Plain controls have no MSAA children worth a round trip. */
    if (type && (strcmp(type, "Button") == 0 || strcmp(type, "CheckBox") == 0 ||
                 strcmp(type, "RadioButton") == 0 || strcmp(type, "Text") == 0 ||
                 strcmp(type, "Edit") == 0))
        return;
    if (d->reused)
        return; /* none: only a window without MSAA children of its own is taken */
    /* The generic standard object's children are the child windows, listed already:
     * asking for them made an object per child window (11 ms for testapp's 16). Standard
     * objects of other roles (a status bar's parts) and windows' own objects have
     * children of their own. */
    IAccessible *client = win_msaa_el_desc_client(c, d);
    if (client && d->client_standard && !d->client_role)
        win_msaa_el_acc_long(c->gate, client, CHILDID_SELF, false, &d->client_role);
    if (client && !(d->client_standard && msaa_role_is_generic(d->client_role)))
        add_acc_children(c, l, client, h);
}

/* The items of a menu bar or an open popup menu, by the route chosen for it. */
static void menu_children(struct win_msaa_ctx *c, struct el_desc *d, struct el_list *l)
{
    if (d->apart)
        return;
    if (d->kind == EL_MENUBAR)
        win_msaa_el_pixels_wait(c); /* its items have fingerprints */
    if (d->kind == EL_MENUBAR && d->items_by_acc) {
        /* A menu bar object's children are simple elements 1..n (oleacc's, and those
         * made like them): no enumeration round trips. */
        for (long i = 1; i <= d->bar_items && i <= ITEM_CAP; i++) {
            struct el_desc m = {
                .kind = EL_ACC, .hwnd = d->hwnd, .acc = d->acc, .child_id = i, .in_bar = true};
            IAccessible_AddRef(d->acc);
            if (!win_msaa_el_list_add(l, &m))
                return;
        }
        return;
    }
    if (d->kind == EL_POPUP) {
        win_msaa_info_choose_popup_route(c, d);
        if (d->items_by_acc) {
            add_acc_children(c, l, d->client, d->hwnd);
            return;
        }
    }
    int n = win_menu_count(d->menu);
    for (int i = 0; i < n && i < ITEM_CAP; i++) {
        struct el_desc m = {.kind = EL_MENUITEM,
                            .hwnd = d->hwnd,
                            .menu = d->menu,
                            .pos = i,
                            .in_bar = d->kind == EL_MENUBAR};
        if (!win_msaa_el_list_add(l, &m))
            return;
    }
}

static wa_err m_first_child(void *ctx, void *el, void **out)
{
    struct win_msaa_ctx *c = ctx;
    struct el_desc *d = win_msaa_el_desc_of(el);
    *out = NULL;
    bool parent = d->kind == EL_WINDOW || (d->kind == EL_ACC && d->child_id == CHILDID_SELF) ||
                  (d->kind == EL_ITEM && d->items == MSAA_ITEMS_TREEVIEW) ||
                  d->kind == EL_MENUBAR || d->kind == EL_POPUP || d->kind == EL_POPUPS;
    if (!parent || (d->kind != EL_POPUPS && !IsWindow(d->hwnd)))
        return WA_E_OK;
    struct el_list *l = win_msaa_el_list_new();
    if (!l)
        return wa_fail(WA_E_NOMEM, "out of memory listing children");
    if (d->kind == EL_WINDOW)
        window_children(c, d, l);
    else if (d->kind == EL_MENUBAR || d->kind == EL_POPUP)
        menu_children(c, d, l);
    else if (d->kind == EL_POPUPS)
        for (size_t i = 0; i < c->npopups; i++) {
            struct el_desc p = {.kind = EL_POPUP, .hwnd = c->popups[i]};
            win_msaa_el_list_add(l, &p);
        }
    else if (d->kind == EL_ACC && d->child_id == CHILDID_SELF)
        add_acc_children(c, l, d->acc, d->hwnd);
    else if (d->kind == EL_ITEM && d->items == MSAA_ITEMS_TREEVIEW)
        win_msaa_items_add_tree_children(c, l, d);
    bool any = l->count > 0;
    if (any)
        *out = win_msaa_el_handle_new(l, 0);
    win_msaa_el_list_unref(l);
    return any && !*out ? wa_fail(WA_E_NOMEM, "out of memory listing children") : WA_E_OK;
}

static wa_err m_next_sibling(void *ctx, void *el, void **out)
{
    (void)ctx;
    struct msaa_el *h = el;
    *out = NULL;
    if (h->index + 1 < h->list->count) {
        *out = win_msaa_el_handle_new(h->list, h->index + 1);
        if (!*out)
            return wa_fail(WA_E_NOMEM, "out of memory walking siblings");
    }
    return WA_E_OK;
}

static wa_err m_root(void *ctx, void **out)
{
    struct win_msaa_ctx *c = ctx;
    *out = NULL;
    if (!IsWindow(c->root))
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "window 0x%llx is gone",
                       (unsigned long long)(uintptr_t)c->root);
    struct el_list *l = win_msaa_el_list_new();
    struct el_desc d = {.kind = c->popup_walk ? EL_POPUPS
                                : c->bar_walk ? EL_MENUBAR
                                              : EL_WINDOW,
                        .hwnd = c->root,
                        .root = !c->popup_walk && !c->bar_walk};
    if (c->bar_walk)
        choose_bar_route(c, &d);
    if (l && win_msaa_el_list_add(l, &d))
        *out = win_msaa_el_handle_new(l, 0);
    win_msaa_el_list_unref(l);
    return *out ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

static wa_err m_window_text(void *ctx, uint64_t hwnd, char **out)
{
    struct win_msaa_ctx *c = ctx;
    HWND h = (HWND)(uintptr_t)hwnd;
    *out = NULL;
    for (size_t i = 0; i < c->ntaken; i++)
        if (c->taken[i] == h)
            return WA_E_OK; /* no name from its text the last time, and its text is the same */
    *out = win_msaa_el_text_name(c->gate, h, win_msaa_el_thread_of(c, h)->responsive);
    return WA_E_OK;
}

static void m_release(void *ctx, void *el)
{
    (void)ctx;
    win_msaa_release_handle(el);
}

const struct tree_source_ops win_msaa_source = {
    .name = "msaa",
    .root = m_root,
    .first_child = m_first_child,
    .next_sibling = m_next_sibling,
    .info = win_msaa_info_read,
    .window_text = m_window_text,
    .msaa_name = NULL, /* the primary name already is MSAA's */
    .release = m_release,
};

wa_err win_msaa_open(HWND root, struct win_gate *gate, struct win_msaa_ctx **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return wa_fail(WA_E_NOMEM, "out of memory");
    (*out)->root = root;
    (*out)->gate = gate;
    return WA_E_OK;
}

wa_err win_msaa_open_popups(HWND root, const HWND *popups, size_t n, struct win_gate *gate,
                            struct win_msaa_ctx **out)
{
    wa_err e = win_msaa_open(root, gate, out);
    if (e)
        return e;
    (*out)->popup_walk = true;
    for (size_t i = 0; i < n && i < WIN_MENU_POPUPS_MAX; i++)
        (*out)->popups[(*out)->npopups++] = popups[i];
    return WA_E_OK;
}

wa_err win_msaa_open_menubar(HWND root, struct win_gate *gate, bool responsive,
                             struct win_msaa_ctx **out)
{
    wa_err e = win_msaa_open(root, gate, out);
    if (e)
        return e;
    struct win_msaa_ctx *c = *out;
    c->bar_walk = true;
    /* What the window's walk found out, not asked again. */
    struct thread_state *t = &c->threads[c->nthreads++];
    t->tid = GetWindowThreadProcessId(root, NULL);
    t->responsive = responsive;
    GUITHREADINFO gi = {.cbSize = sizeof gi};
    t->focus = GetGUIThreadInfo(t->tid, &gi) ? gi.hwndFocus : NULL;
    return WA_E_OK;
}

bool win_msaa_root_responsive(struct win_msaa_ctx *c)
{
    return IsWindow(c->root) && win_msaa_el_thread_of(c, c->root)->responsive;
}

void win_msaa_menubar_apart(struct win_msaa_ctx *c)
{
    c->bar_apart = true;
}

void win_msaa_beside(struct win_msaa_ctx *c, struct win_pixels *p)
{
    c->pixels = p;
}

size_t win_msaa_taken(const struct win_msaa_ctx *c)
{
    size_t n = c ? c->took : 0;
    for (size_t i = 0; c && i < c->ncolls; i++)
        n += win_coll_taken(c->colls[i]);
    return n;
}

void win_msaa_close(struct win_msaa_ctx *c)
{
    if (c) {
        for (size_t i = 0; i < c->ncolls; i++)
            win_coll_free(c->colls[i]);
        free(c->colls);
        free(c->taken);
        for (size_t i = 0; i < c->nclasses; i++)
            free(c->classes[i].name);
        free(c->classes);
        free(c->kids);
        win_cc_free(c->cc);
        win_msaa_items_join_ahead(c,
                                  true); /* lists whose items were not walked (budget, node cap) */
        for (size_t i = 0; i < c->nlists; i++) {
            struct list_facts *f = c->lists[i];
            free(f->selected);
            free(f->lens);
            free(f->data);
            for (int k = 0; f->texts && k < f->ntexts; k++)
                free(f->texts[k]);
            free(f->texts);
            free(f);
        }
        free(c->lists);
    }
    free(c);
}

/* ---- actions ---- */

void win_msaa_describe(void *handle, struct win_msaa_target *out)
{
    struct el_desc *d = win_msaa_el_desc_of(handle);
    memset(out, 0, sizeof *out);
    out->hwnd = d->hwnd;
    out->is_window = d->kind == EL_WINDOW;
    if (d->kind == EL_ITEM) {
        out->items = d->items;
        out->item = d->item;
        out->item_id = d->item_id;
    }
}

static wa_err acc_result(HRESULT hr, const char *what)
{
    if (SUCCEEDED(hr))
        return WA_E_OK;
    if (hr == E_NOTIMPL || hr == DISP_E_MEMBERNOTFOUND || hr == E_NOINTERFACE)
        return wa_fail(WA_E_UNSUPPORTED, "%s is not implemented (HRESULT 0x%08lx)", what,
                       (unsigned long)hr);
    return win_hr_fail(WA_E_ACTION_FAILED, hr, what);
}

/* The MSAA object an action on a window takes: asked for now when the walk took the
 * window from the walk before it and so never asked. */
static IAccessible *window_object(struct el_desc *d)
{
    if (d->kind == EL_WINDOW && !d->client_tried) {
        d->client_tried = true;
        if (win_msaa_el_ping(NULL, d->hwnd))
            d->client = win_msaa_el_object_from_window(NULL, d->hwnd, OBJID_CLIENT);
        d->client_standard = d->client && win_msaa_el_made_here(d->client);
    }
    return d->kind == EL_WINDOW ? d->client : NULL;
}

wa_err win_msaa_value(void *handle, char **out)
{
    *out = NULL;
    struct el_desc *d = win_msaa_el_desc_of(handle);
    IAccessible *acc = d->kind == EL_ACC ? d->acc : window_object(d);
    long id = d->kind == EL_ACC ? d->child_id : CHILDID_SELF;
    if (!acc)
        return wa_fail(WA_E_UNSUPPORTED, "no MSAA object");
    long state = 0;
    if (win_msaa_el_acc_long(NULL, acc, id, true, &state) && (state & STATE_SYSTEM_PROTECTED))
        return wa_fail(WA_E_DENIED, "a password field is not read back");
    *out = win_msaa_el_acc_text(NULL, acc, id, ACC_VALUE);
    return *out ? WA_E_OK : wa_fail(WA_E_UNSUPPORTED, "the MSAA object has no value");
}

wa_err win_msaa_action(void *handle, enum wa_element_action a, const char *value, const char **via)
{
    struct el_desc *d = win_msaa_el_desc_of(handle);
    IAccessible *acc = d->kind == EL_ACC ? d->acc : window_object(d);
    long id = d->kind == EL_ACC ? d->child_id : CHILDID_SELF;
    if (!acc)
        return wa_fail(WA_E_UNSUPPORTED, "no MSAA object");
    if (!win_msaa_el_ping(NULL, d->hwnd))
        return wa_fail(WA_E_TIMEOUT, "the window does not answer");
    VARIANT v = win_msaa_el_child_var(id);
    HRESULT hr;
    switch (a) {
    case WA_ACT_EXPAND:
    case WA_ACT_COLLAPSE: {
        /* The default action of expandable things flips them: only when it changes. */
        long state = 0;
        if (!win_msaa_el_acc_long(NULL, acc, id, true, &state) ||
            !(state & (STATE_SYSTEM_EXPANDED | STATE_SYSTEM_COLLAPSED)))
            return wa_fail(WA_E_UNSUPPORTED, "the MSAA object does not expand");
        bool expanded = (state & STATE_SYSTEM_EXPANDED) != 0;
        *via = "msaa:accDoDefaultAction";
        if (expanded == (a == WA_ACT_EXPAND))
            return WA_E_OK;
    } /* fall through */
    case WA_ACT_INVOKE:
    case WA_ACT_TOGGLE: {
        char *action = win_msaa_el_acc_text(NULL, acc, id, ACC_DEFAULT_ACTION);
        bool has = action && *action;
        free(action);
        if (!has)
            return wa_fail(WA_E_UNSUPPORTED, "the MSAA object has no default action");
        *via = "msaa:accDoDefaultAction";
        return acc_result(IAccessible_accDoDefaultAction(acc, v), "accDoDefaultAction");
    }
    case WA_ACT_SELECT:
        *via = "msaa:accSelect";
        hr = IAccessible_accSelect(acc, SELFLAG_TAKEFOCUS | SELFLAG_TAKESELECTION, v);
        return acc_result(hr, "accSelect");
    case WA_ACT_FOCUS:
        *via = "msaa:accSelect";
        return acc_result(IAccessible_accSelect(acc, SELFLAG_TAKEFOCUS, v), "accSelect");
    case WA_ACT_SET_VALUE: {
        wchar_t *w = win_utf8_to_wide(value ? value : "");
        BSTR b = w ? SysAllocString(w) : NULL;
        free(w);
        if (!b)
            return wa_fail(WA_E_NOMEM, "out of memory");
        *via = "msaa:put_accValue";
        hr = IAccessible_put_accValue(acc, v, b);
        SysFreeString(b);
        return acc_result(hr, "put_accValue");
    }
    case WA_ACT_SCROLL_INTO_VIEW: /* the control's own message does that */
        break;
    }
    return wa_fail(WA_E_UNSUPPORTED, "no MSAA action");
}

/* ---- items of long collections, beyond what a walk lists ---- */

wa_err win_msaa_find_items(HWND root, HWND h, const struct wa_item_query *q, struct win_gate *gate,
                           void **handles, struct tree_element_info *infos, size_t max, size_t *n)
{
    *n = 0;
    wchar_t wcls[64];
    char *cls = win_wide_to_utf8_n(wcls, GetClassNameW(h, wcls, 64));
    enum msaa_item_class k = msaa_class_items(cls);
    free(cls);
    const struct win_cc_reader *rd = win_coll_reader(k);
    if (!rd || !rd->find)
        return wa_fail(WA_E_UNSUPPORTED, "the control is no collection that can be searched");
    struct win_msaa_ctx *c = NULL;
    wa_err e = win_msaa_open(root, gate, &c);
    if (e)
        return e;
    uint64_t *ids = calloc(max ? max : 1, sizeof *ids);
    struct win_cc_item *items = calloc(max ? max : 1, sizeof *items);
    if (!ids || !items)
        e = wa_fail(WA_E_NOMEM, "out of memory");
    else if (!win_msaa_el_thread_of(c, h)->responsive || !win_msaa_items_cc(c))
        e = wa_fail(WA_E_TIMEOUT, "the window does not answer");
    size_t found = e ? 0 : rd->find(c->cc, h, q, ids, max);
    for (size_t i = 0; i < found; i++)
        items[i] = (struct win_cc_item){ids[i], 0};
    if (found && rd->read)
        rd->read(c->cc, h, NULL, items, found, infos);
    for (size_t i = 0; i < found; i++) {
        struct el_list *l = win_msaa_el_list_new();
        struct el_desc d = {
            .kind = EL_ITEM, .hwnd = h, .items = k, .item = (int)ids[i], .item_id = ids[i]};
        handles[*n] = l && win_msaa_el_list_add(l, &d) ? win_msaa_el_handle_new(l, 0) : NULL;
        win_msaa_el_list_unref(l);
        if (!handles[*n]) {
            e = wa_fail(WA_E_NOMEM, "out of memory");
            break;
        }
        if (!rd->read)
            win_msaa_info_item(c, win_msaa_el_desc_of(handles[*n]), &infos[*n]);
        (*n)++;
    }
    for (size_t i = *n; rd->read && i < found; i++) /* what went unused */
        tree_element_info_cleanup(&infos[i]);
    free(ids);
    free(items);
    win_msaa_close(c);
    return e;
}

wa_err win_msaa_element_info(void *handle, struct tree_element_info *out)
{
    memset(out, 0, sizeof *out);
    struct el_desc *d = win_msaa_el_desc_of(handle);
    struct win_msaa_ctx *c = NULL;
    wa_err e = win_msaa_open(GetAncestor(d->hwnd, GA_ROOT), NULL, &c);
    if (!e)
        e = win_msaa_info_read(c, handle, out);
    win_msaa_close(c);
    return e;
}
