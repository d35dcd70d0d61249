/* What every part of the MSAA tree source stands on: element lists and handles, the
 * calls into the target (through the gate, with a timeout) and what a window says
 * without a message. */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
#include <commctrl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/msaa/win_msaa_el.h"
#include "automation/tree_pix.h"
#include "automation/win/desktop/win_capture.h"
#include "automation/win/msaa/win_cc_buf.h"
#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_window.h"
#include "base/str.h"

_Static_assert(MSAA_ROLE_PUSHBUTTON == ROLE_SYSTEM_PUSHBUTTON, "oleacc.h role values");
_Static_assert(MSAA_ROLE_MENUBAR == ROLE_SYSTEM_MENUBAR, "oleacc.h role values");
_Static_assert(MSAA_ROLE_TEXT == ROLE_SYSTEM_TEXT, "oleacc.h role values");
_Static_assert(MSAA_ROLE_LAST == ROLE_SYSTEM_OUTLINEBUTTON, "oleacc.h role values");
_Static_assert(MSAA_STATE_UNAVAILABLE == STATE_SYSTEM_UNAVAILABLE, "oleacc.h state values");
_Static_assert(MSAA_STATE_FOCUSABLE == STATE_SYSTEM_FOCUSABLE, "oleacc.h state values");
_Static_assert(MSAA_STATE_PROTECTED == STATE_SYSTEM_PROTECTED, "oleacc.h state values");
_Static_assert(MSAA_STATE_MIXED == STATE_SYSTEM_MIXED, "oleacc.h state values");
_Static_assert(MSAA_ROLE_CHECKBUTTON == ROLE_SYSTEM_CHECKBUTTON, "oleacc.h role values");

/* ---- lists and handles ---- */

struct el_list *win_msaa_el_list_new(void)
{
    struct el_list *l = calloc(1, sizeof *l);
    if (l)
        l->refs = 1;
    return l;
}

void win_msaa_el_list_unref(struct el_list *l)
{
    if (!l || InterlockedDecrement(&l->refs) != 0)
        return;
    for (size_t i = 0; i < l->count; i++) {
        WIN_RELEASE(l->d[i].acc);
        WIN_RELEASE(l->d[i].client);
        win_cc_buf_columns_free(l->d[i].cols);
    }
    free(l->d);
    free(l);
}

bool win_msaa_el_list_add(struct el_list *l, struct el_desc *d)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct el_desc *p = wa_reallocarray(l->d, cap, sizeof *p);
        if (!p) {
            WIN_RELEASE(d->acc);
            WIN_RELEASE(d->client);
            return false;
        }
        l->d = p;
        l->cap = cap;
    }
    l->d[l->count++] = *d;
    return true;
}

struct msaa_el *win_msaa_el_handle_new(struct el_list *l, size_t index)
{
    struct msaa_el *h = malloc(sizeof *h);
    if (!h)
        return NULL;
    InterlockedIncrement(&l->refs);
    h->list = l;
    h->index = index;
    return h;
}

struct el_desc *win_msaa_el_desc_of(void *handle)
{
    struct msaa_el *h = handle;
    return &h->list->d[h->index];
}

bool win_msaa_el_send_msg(struct win_gate *g, HWND h, UINT msg, WPARAM wp, LPARAM lp, int ms,
                          LRESULT *res)
{
    DWORD_PTR r = 0;
    win_gate_leave(g);
    LRESULT ok = SendMessageTimeoutW(h, msg, wp, lp, SMTO_ABORTIFHUNG, (UINT)ms, &r);
    win_gate_enter(g);
    *res = (LRESULT)r;
    return ok != 0;
}

bool win_msaa_el_ping(struct win_gate *g, HWND h)
{
    LRESULT r;
    return !IsHungAppWindow(h) && win_msaa_el_send_msg(g, h, WM_NULL, 0, 0, PING_MS, &r);
}

struct thread_state *win_msaa_el_thread_of(struct win_msaa_ctx *c, HWND h)
{
    DWORD tid = GetWindowThreadProcessId(h, NULL);
    for (int i = 0; i < c->nthreads; i++)
        if (c->threads[i].tid == tid)
            return &c->threads[i];
    struct thread_state *t = c->nthreads < (int)(sizeof c->threads / sizeof c->threads[0])
                                 ? &c->threads[c->nthreads++]
                                 : &c->scratch;
    t->tid = tid;
    t->responsive = win_msaa_el_ping(c->gate, h);
    GUITHREADINFO gi = {.cbSize = sizeof gi};
    t->focus = GetGUIThreadInfo(tid, &gi) ? gi.hwndFocus : NULL;
    return t;
}

VARIANT win_msaa_el_child_var(long id)
{
    VARIANT v;
    VariantInit(&v);
    V_VT(&v) = VT_I4;
    V_I4(&v) = id;
    return v;
}

static char *bstr_to_utf8(BSTR b)
{
    return b ? win_wide_to_utf8_n(b, (int)SysStringLen(b)) : NULL;
}

/* The string properties of an object; NULL when the call fails or gives nothing. */

char *win_msaa_el_acc_text(struct win_gate *g, IAccessible *acc, long id, enum acc_text what)
{
    BSTR b = NULL;
    VARIANT v = win_msaa_el_child_var(id);
    HRESULT hr;
    win_gate_leave(g);
    if (what == ACC_NAME)
        hr = IAccessible_get_accName(acc, v, &b);
    else if (what == ACC_VALUE)
        hr = IAccessible_get_accValue(acc, v, &b);
    else
        hr = IAccessible_get_accDefaultAction(acc, v, &b);
    win_gate_enter(g);
    char *s = hr == S_OK ? bstr_to_utf8(b) : NULL;
    SysFreeString(b);
    return s;
}

bool win_msaa_el_acc_long(struct win_gate *g, IAccessible *acc, long id, bool state, long *out)
{
    VARIANT r;
    VariantInit(&r);
    VARIANT v = win_msaa_el_child_var(id);
    win_gate_leave(g);
    HRESULT hr = state ? IAccessible_get_accState(acc, v, &r) : IAccessible_get_accRole(acc, v, &r);
    win_gate_enter(g);
    bool ok = hr == S_OK && V_VT(&r) == VT_I4;
    *out = ok ? V_I4(&r) : 0;
    VariantClear(&r);
    return ok;
}

bool win_msaa_el_acc_location(struct win_gate *g, IAccessible *acc, long id, struct wa_rect *out)
{
    long x = 0, y = 0, w = 0, h = 0;
    VARIANT v = win_msaa_el_child_var(id);
    win_gate_leave(g);
    HRESULT hr = IAccessible_accLocation(acc, &x, &y, &w, &h, v);
    win_gate_enter(g);
    if (hr != S_OK || w <= 0 || h <= 0)
        return false;
    *out = (struct wa_rect){(int)x, (int)y, (int)(x + w), (int)(y + h)};
    return true;
}

IAccessible *win_msaa_el_object_from_window(struct win_gate *g, HWND h, LONG objid)
{
    IAccessible *acc = NULL;
    win_gate_leave(g);
    HRESULT hr = AccessibleObjectFromWindow(h, (DWORD)objid, &iid_accessible, (void **)&acc);
    win_gate_enter(g);
    if (FAILED(hr))
        WIN_RELEASE(acc);
    return acc;
}

bool win_msaa_el_made_here(IAccessible *acc)
{
    IUnknown *sec = NULL;
    if (SUCCEEDED(IAccessible_QueryInterface(acc, &IID_IClientSecurity, (void **)&sec)) && sec) {
        IUnknown_Release(sec);
        return false;
    }
    return true;
}

IAccessible *win_msaa_el_desc_client(struct win_msaa_ctx *c, struct el_desc *d)
{
    if (!d->client_tried) {
        d->client_tried = true;
        if (win_msaa_el_thread_of(c, d->hwnd)->responsive)
            d->client = win_msaa_el_object_from_window(c->gate, d->hwnd, OBJID_CLIENT);
        d->client_standard = d->client && win_msaa_el_made_here(d->client);
    }
    return d->client;
}

/* ---- window facts that need no message ---- */

char *win_msaa_el_class_of(HWND h)
{
    wchar_t cls[256];
    int n = GetClassNameW(h, cls, 256);
    return win_wide_to_utf8_n(cls, n > 0 ? n : 0);
}

static BOOL CALLBACK note_kid(HWND h, LPARAM lp)
{
    struct win_msaa_ctx *c = (struct win_msaa_ctx *)lp;
    if (c->nkids == c->cap_kids) {
        size_t cap = c->cap_kids ? 2 * c->cap_kids : 32;
        struct win_kid *k = wa_reallocarray(c->kids, cap, sizeof *k);
        if (!k) {
            c->kids_ok = false;
            return FALSE;
        }
        c->kids = k;
        c->cap_kids = cap;
    }
    c->kids[c->nkids++] = (struct win_kid){
        .h = h, .parent = GetAncestor(h, GA_PARENT), .visible = IsWindowVisible(h)};
    return TRUE;
}

struct win_kid *win_msaa_el_kid(struct win_msaa_ctx *c, HWND h)
{
    if (!c->kids_read) {
        c->kids_read = c->kids_ok = true;
        EnumChildWindows(c->root, note_kid, (LPARAM)c);
    }
    for (size_t i = 0; c->kids_ok && i < c->nkids; i++)
        if (c->kids[i].h == h)
            return &c->kids[i];
    return NULL;
}

HWND win_msaa_el_prev_sibling(struct win_msaa_ctx *c, HWND h)
{
    const struct win_kid *k = win_msaa_el_kid(c, h);
    if (!k)
        return GetWindow(h, GW_HWNDPREV);
    for (const struct win_kid *p = k; p-- > c->kids;)
        if (p->parent == k->parent)
            return p->h;
    return NULL;
}

static uint64_t text_hash_of(HWND h)
{
    wchar_t text[256];
    int n = InternalGetWindowText(h, text, 256);
    uint64_t x = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        x = (x ^ (uint64_t)text[i]) * 1099511628211ull;
    return x ^ (uint64_t)n;
}

uint64_t win_msaa_el_text_hash(struct win_msaa_ctx *c, HWND h)
{
    struct win_kid *k = win_msaa_el_kid(c, h);
    if (!k)
        return text_hash_of(h);
    if (!k->have_text) {
        k->text_hash = text_hash_of(h);
        k->have_text = true;
    }
    return k->text_hash;
}

char *win_msaa_el_ctx_class(struct win_msaa_ctx *c, HWND h)
{
    for (size_t i = 0; i < c->nclasses; i++)
        if (c->classes[i].h == h)
            return str_dup(c->classes[i].name);
    char *cls = win_msaa_el_class_of(h);
    if (cls && c->nclasses == c->cap_classes) {
        size_t cap = c->cap_classes ? 2 * c->cap_classes : 32;
        void *p = wa_reallocarray(c->classes, cap, sizeof *c->classes);
        if (p) {
            c->classes = p;
            c->cap_classes = cap;
        }
    }
    if (cls && c->nclasses < c->cap_classes && (c->classes[c->nclasses].name = str_dup(cls)))
        c->classes[c->nclasses++].h = h;
    return cls;
}

static char *stored_text(HWND h)
{
    wchar_t buf[1024];
    int n = InternalGetWindowText(h, buf, 1024);
    return win_wide_to_utf8_n(buf, n > 0 ? n : 0);
}

struct wa_rect win_msaa_el_rect_of(HWND h)
{
    RECT r;
    if (!GetWindowRect(h, &r))
        return (struct wa_rect){0, 0, 0, 0};
    return (struct wa_rect){r.left, r.top, r.right, r.bottom};
}

char *win_msaa_el_message_text(struct win_gate *g, HWND h)
{
    LRESULT len = 0;
    if (!win_msaa_el_send_msg(g, h, WM_GETTEXTLENGTH, 0, 0, MESSAGE_MS, &len) || len < 0)
        return NULL;
    if (len > TEXT_CAP)
        len = TEXT_CAP;
    wchar_t *buf = calloc((size_t)len + 1, sizeof *buf);
    if (!buf)
        return NULL;
    LRESULT got = 0;
    char *s = NULL;
    if (win_msaa_el_send_msg(g, h, WM_GETTEXT, (WPARAM)len + 1, (LPARAM)buf, MESSAGE_MS, &got))
        s = win_wide_to_utf8_n(buf, got < 0 ? 0 : (int)(got > len ? len : got));
    free(buf);
    return s;
}

unsigned win_msaa_el_button_check(struct win_gate *g, HWND h, const char *type)
{
    bool box = strcmp(type, "CheckBox") == 0, radio = strcmp(type, "RadioButton") == 0;
    LRESULT r = 0;
    if ((!box && !radio) || !win_msaa_el_send_msg(g, h, BM_GETCHECK, 0, 0, MESSAGE_MS, &r))
        return 0;
    if (r == BST_CHECKED)
        return WA_ST_CHECKED;
    if (!box)
        return 0;
    return r == BST_INDETERMINATE ? WA_ST_MIXED : WA_ST_UNCHECKED;
}

bool win_msaa_el_type_takes_label(const char *type)
{
    static const char *const kinds[] = {"Edit",   "ComboBox", "List",        "Tree",
                                        "Slider", "Spinner",  "ProgressBar", "Document"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(type, kinds[i]) == 0)
            return true;
    return false;
}

/* A window text as a name (its '&' marks gone, cut at a tab): NULL when there is none;
 * takes text. */
static char *name_of_text(char *text)
{
    char *name = msaa_text_to_name(text);
    free(text);
    if (name && !*name) {
        free(name);
        name = NULL;
    }
    return name;
}

/* Whether static p sits where a label of control h sits: to its left, its first line at
 * h's first line (its top no lower than half a line below h's top, and reaching down to
 * it), or above it, at most two lines above h's top and over h's width. A text placed
 * anywhere else (a status line below a list, a note beside its lower half) is a
 * neighbour, not its label. Windows' proxies take the static just before a control in
 * tab order; dialogs made by hand (NSIS's pages) put other texts between the two. */
static bool placed_as_label(HWND p, HWND h)
{
    RECT l, c;
    if (!GetWindowRect(p, &l) || !GetWindowRect(h, &c))
        return true; /* nothing to judge by: Windows' rule alone */
    int line = l.bottom - l.top;
    line = line < 12 ? 12 : line > 24 ? 24 : line; /* one line of a label, pixels */
    int tol = line / 2;
    bool left = l.left < c.left && l.right <= c.left + tol && l.top <= c.top + tol &&
                l.bottom >= c.top - tol;
    bool above = l.bottom <= c.top + tol && c.top - l.bottom <= 2 * line && l.left < c.right &&
                 l.right > c.left;
    return left || above;
}

/* The text of static p as a label (NULL when it is no text: an image, a paragraph). */
static char *label_text(HWND p)
{
    LONG type = GetWindowLongW(p, GWL_STYLE) & SS_TYPEMASK;
    if (type == SS_ICON || type == SS_BITMAP || type == SS_ENHMETAFILE || type == SS_OWNERDRAW)
        return NULL;
    char *name = name_of_text(stored_text(p));
    /* A paragraph before a control describes it; it does not name it. */
    if (name && (strlen(name) > LABEL_MAX || strchr(name, '\n'))) {
        free(name);
        name = NULL;
    }
    return name;
}

/* The group box around h, when h is the only control inside it that takes a label: the
 * box's title names it (a list in a "Saved Sessions" box). */
static char *group_label(HWND h)
{
    RECT c, g;
    HWND parent = GetParent(h);
    if (!parent || !GetWindowRect(h, &c))
        return NULL;
    HWND box = NULL;
    for (HWND s = GetWindow(parent, GW_CHILD); s && !box; s = GetWindow(s, GW_HWNDNEXT)) {
        char *cls = win_msaa_el_class_of(s);
        bool is_box = cls && str_ieq(cls, "Button") && IsWindowVisible(s) &&
                      (GetWindowLongW(s, GWL_STYLE) & BS_TYPEMASK) == BS_GROUPBOX &&
                      GetWindowRect(s, &g) && c.left >= g.left && c.right <= g.right &&
                      c.top >= g.top && c.bottom <= g.bottom;
        free(cls);
        box = is_box ? s : NULL;
    }
    if (!box)
        return NULL;
    for (HWND s = GetWindow(parent, GW_CHILD); s; s = GetWindow(s, GW_HWNDNEXT)) {
        RECT r;
        if (s == h || !IsWindowVisible(s) || !GetWindowRect(s, &r) || r.left < g.left ||
            r.right > g.right || r.top < g.top || r.bottom > g.bottom)
            continue;
        char *cls = win_msaa_el_class_of(s);
        const char *type = msaa_class_type_name(cls, (unsigned long)GetWindowLongW(s, GWL_STYLE));
        bool other = type && win_msaa_el_type_takes_label(type);
        free(cls);
        if (other)
            return NULL; /* the box names them all: none of them */
    }
    return name_of_text(stored_text(box));
}

char *win_msaa_el_label_before(HWND h)
{
    for (HWND p = GetWindow(h, GW_HWNDPREV); p; p = GetWindow(p, GW_HWNDPREV)) {
        if (!IsWindowVisible(p))
            continue;
        char *cls = win_msaa_el_class_of(p);
        bool is_label = cls && str_ieq(cls, "Static");
        free(cls);
        if (!is_label)
            break; /* another control: the statics before it are its own */
        char *name = placed_as_label(p, h) ? label_text(p) : NULL;
        if (name)
            return name;
    }
    return group_label(h);
}

char *win_msaa_el_text_name(struct win_gate *gate, HWND h, bool responsive)
{
    char *cls = win_msaa_el_class_of(h);
    /* Edits, combo boxes (ComboBoxEx32 too) and list boxes show their content. */
    const char *type = msaa_class_type_name(cls, 0);
    bool content = type && (strcmp(type, "Edit") == 0 || strcmp(type, "ComboBox") == 0 ||
                            msaa_class_items(cls) == MSAA_ITEMS_LISTBOX);
    free(cls);
    if (content)
        return NULL;
    if (responsive && (GetWindowLongW(h, GWL_STYLE) & WS_CHILD))
        return name_of_text(win_msaa_el_message_text(gate, h));
    return name_of_text(stored_text(h));
}

char *win_msaa_el_range_value(struct win_gate *g, HWND h, const char *type)
{
    UINT msg = strcmp(type, "Slider") == 0        ? TBM_GETPOS
               : strcmp(type, "ProgressBar") == 0 ? PBM_GETPOS
               : strcmp(type, "Spinner") == 0     ? UDM_GETPOS32
                                                  : 0;
    LRESULT pos = 0;
    if (!msg || !win_msaa_el_send_msg(g, h, msg, 0, 0, MESSAGE_MS, &pos))
        return NULL;
    char buf[24];
    snprintf(buf, sizeof buf, "%ld", (long)(int)pos);
    return str_dup(buf);
}

/* ---- the capture beside the walk, and what it settles ---- */

bool win_msaa_el_reuse_settled(const struct win_msaa_reuse *r)
{
    return r && InterlockedCompareExchange((volatile LONG *)&r->settled, 0, 0);
}

/* What goes of what check k kept. */
static void reuse_drop(struct win_msaa_reuse *r, const struct pix_check *k)
{
    if (k->info && *k->info) {
        tree_element_info_cleanup(*k->info);
        free(*k->info);
        *k->info = NULL;
    }
    if (k->cols_of >= 0 && r->lists[k->cols_of].cols) {
        struct win_coll_listing *l = &r->lists[k->cols_of];
        win_cc_buf_columns_free(l->cols);
        l->cols = NULL;
        l->cols_gone = true;
    }
}

void win_msaa_el_reuse_settle(struct win_msaa_reuse *r, const bool *same,
                              const struct wa_image *img, struct wa_rect frame)
{
    AcquireSRWLockExclusive(&r->settle_lock);
    for (size_t i = 0; !r->settled && i < r->nchecks; i++) {
        const struct pix_check *k = &r->checks[i];
        bool kept = same ? same[k->node] : img && tree_pix_in(img, frame, k->area) == k->pix;
        if (!kept)
            reuse_drop(r, k);
    }
    InterlockedExchange(&r->settled, 1);
    ReleaseSRWLockExclusive(&r->settle_lock);
}

void win_msaa_el_pixels_wait(struct win_msaa_ctx *c)
{
    if (!c->pixels || c->pixels_waited)
        return;
    c->pixels_waited = true;
    win_gate_leave(c->gate);
    win_pixels_wait(c->pixels, INFINITE);
    win_gate_enter(c->gate);
    if (!c->reuse || win_msaa_el_reuse_settled(c->reuse))
        return;
    struct wa_rect frame = {0, 0, 0, 0};
    const struct wa_image *img = win_pixels_hold(c->pixels, &frame);
    win_msaa_el_reuse_settle((struct win_msaa_reuse *)c->reuse, NULL, img, frame);
    if (img)
        win_pixels_unhold(c->pixels);
}
