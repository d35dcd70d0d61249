/* The HWND + MSAA tree source and MSAA actions. Wine 8's oleacc gives little: for
 * OBJID_CLIENT a generic client object (role CLIENT for every class but Edit, whose
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

#include "automation/win/win_msaa.h"
#include "automation/win/win_coll.h"
#include "automation/win/win_events.h"
#include "automation/win/win_menu.h"
#include "automation/win/win_msaa_cc.h"
#include "base/win/win_utf8.h"
#include "automation/win/win_window.h"
#include "base/str.h"

/* IID_IAccessible under our own name: MinGW's liboleacc.a defines a symbol
 * IID_IAccessible that is an import thunk (code), and oleacc links before uuid, so
 * &IID_IAccessible would point at machine code and every AccessibleObjectFromWindow
 * would fail with E_NOINTERFACE. */
static const IID iid_accessible = {
    0x618736e0, 0x3c3d, 0x11cf, {0x81, 0x0c, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71}};

_Static_assert(MSAA_ROLE_PUSHBUTTON == ROLE_SYSTEM_PUSHBUTTON, "oleacc.h role values");
_Static_assert(MSAA_ROLE_MENUBAR == ROLE_SYSTEM_MENUBAR, "oleacc.h role values");
_Static_assert(MSAA_ROLE_TEXT == ROLE_SYSTEM_TEXT, "oleacc.h role values");
_Static_assert(MSAA_ROLE_LAST == ROLE_SYSTEM_OUTLINEBUTTON, "oleacc.h role values");
_Static_assert(MSAA_STATE_UNAVAILABLE == STATE_SYSTEM_UNAVAILABLE, "oleacc.h state values");
_Static_assert(MSAA_STATE_FOCUSABLE == STATE_SYSTEM_FOCUSABLE, "oleacc.h state values");
_Static_assert(MSAA_STATE_PROTECTED == STATE_SYSTEM_PROTECTED, "oleacc.h state values");

#define ITEM_CAP      200  /* items read per list or combo box */
#define MSAA_KIDS_CAP 500  /* MSAA children read per object */
#define TEXT_CAP      8192 /* UTF-16 units of text read per window or item */
#define PING_MS       300  /* how long a window's thread may take to answer WM_NULL */
#define MESSAGE_MS    500  /* and any other message */
#define LABEL_MAX     80   /* bytes: longer static text before a control is no label */
#define BAR_ITEMS_MAX 64   /* menu bar items a later walk may take from the last one */

enum el_kind {
    EL_WINDOW,   /* a window */
    EL_ACC,      /* an MSAA object (child_id CHILDID_SELF) or a simple element of one */
    EL_ITEM,     /* an item of a list or combo box, read with messages */
    EL_MENUBAR,  /* a menu bar: its place, items by MSAA (acc) or the menu functions */
    EL_MENUITEM, /* an item read with the menu functions (menu, pos) */
    EL_POPUP,    /* an open popup menu window (#32768) */
    EL_POPUPS,   /* the root of a walk of a thread's open popup menus (not shown) */
};

struct el_desc {
    enum el_kind kind;
    HWND hwnd;        /* the window; for the other kinds the window holding the element */
    bool root;        /* the top-level window walked */
    IAccessible *acc; /* EL_ACC: the object, or the parent of a simple element */
    long child_id;
    enum msaa_item_class items; /* EL_ITEM */
    int item;                   /* list and combo boxes: the index */
    uint64_t item_id;           /* common controls: HTREEITEM, or the index */
    IAccessible *client;        /* EL_WINDOW: its OBJID_CLIENT object once asked for */
    bool client_tried;
    bool client_standard; /* the window serves none: oleacc's standard object stands in */
    long client_role;     /* its role, once asked */
    HMENU menu;           /* EL_MENUBAR, EL_POPUP (when read), EL_MENUITEM: the menu */
    int pos;              /* EL_MENUITEM: the item's position */
    bool in_bar;          /* EL_MENUITEM, EL_ACC: an item of hwnd's menu bar */
    bool menu_read;       /* EL_POPUP: the route to its items is chosen */
    bool items_by_acc;    /* EL_POPUP, EL_MENUBAR: its items are acc's children (the
                           * popup's client object, the bar's OBJID_MENU object) */
    long bar_items;       /* EL_MENUBAR with items_by_acc: how many acc has */
    bool apart;           /* EL_MENUBAR: its items are walked apart (win_msaa_open_menubar) */
    bool reused; /* EL_WINDOW: taken from the last walk (it has no MSAA children of its own) */
};

/* The children of one element (or the root alone), shared by the handles into it. */
struct el_list {
    volatile LONG refs;
    size_t count, cap;
    struct el_desc *d;
};

/* An element handle: a position in a list. */
struct msaa_el {
    struct el_list *list;
    size_t index;
};

struct thread_state {
    DWORD tid;
    bool responsive;
    HWND focus; /* its focused window */
};

/* What a list or combo box says of all its items, asked once per walk instead of once
 * per item: the selection, and where the rows are. Under Wine each message to another
 * process is a round trip through the wineserver (~0.12 ms); a 60-item list took 240
 * of them. */
struct list_facts {
    HWND hwnd;
    bool combo, responsive;
    LONG style;
    int count;
    int cursel;              /* the selected item of a single-selection list, or -1 */
    unsigned char *selected; /* multiple selection: a flag per item; NULL: ask per item */
    /* Where the items are: the list box itself, or a combo box's list (the child list
     * of a simple combo box, the open drop-down list of another); NULL: nowhere (a
     * closed drop-down). */
    HWND rows_in;
    bool rows; /* rows of one height from `top`: bounds without a message */
    int top, height;
    RECT area;       /* rows_in's client area (client pixels); a drop-down list whose
                      * window was not found: its screen rectangle */
    POINT origin;    /* rows_in's client area's origin on the screen */
    bool dropped;    /* combo box: the drop-down list is open */
    uintptr_t *data; /* owner-drawn items without text: each item's data, its identity */
    int *lens;       /* each item's text length (-1: not known), asked all at once */
    char **texts;    /* each item's text, read before the items are walked */
    int ntexts;
    bool read;          /* the facts above are there */
    bool ahead;         /* a thread reads them ahead of the walk, until joined */
    volatile LONG stop; /* the walk is over: readers stop */
};

#define AHEAD_CAP 8 /* tasks reading lists ahead, per walk */

struct win_msaa_ctx {
    HWND root;
    struct win_gate *gate;
    struct thread_state threads[16];
    int nthreads;
    struct thread_state scratch; /* when more threads than that own windows */
    struct win_cc *cc;           /* buffers in target processes, made when needed */
    struct win_coll **colls;     /* the long collections met (win_coll.h), each once */
    size_t ncolls, cap_colls;
    struct list_facts **lists; /* each its own block: readers write into it */
    size_t nlists, cap_lists;
    struct win_job *ahead[AHEAD_CAP]; /* tasks reading lists ahead of the walk */
    int nahead;
    HWND popups[WIN_MENU_POPUPS_MAX]; /* a walk of open popup menus: their windows */
    size_t npopups;
    bool popup_walk;
    bool bar_walk;  /* a walk of root's menu bar alone: the bar is the root element */
    bool bar_apart; /* a walk of the window whose bar's items are walked apart */
    const struct win_msaa_reuse *reuse; /* what may be taken of the last walk, or NULL */
    HWND *taken; /* the windows taken from it, whose names are as they were too */
    size_t ntaken, cap_taken;
    struct {
        HWND h;
        char *name;
    } * classes; /* each window's class, once asked */
    size_t nclasses, cap_classes;
};

static const struct win_coll_listing *last_listing(const struct win_msaa_reuse *r, HWND h);
static struct win_coll *coll_of(struct win_msaa_ctx *c, HWND h, enum msaa_item_class k);

/* ---- lists and handles ---- */

static struct el_list *list_new(void)
{
    struct el_list *l = calloc(1, sizeof *l);
    if (l)
        l->refs = 1;
    return l;
}

static void list_unref(struct el_list *l)
{
    if (!l || InterlockedDecrement(&l->refs) != 0)
        return;
    for (size_t i = 0; i < l->count; i++) {
        WIN_RELEASE(l->d[i].acc);
        WIN_RELEASE(l->d[i].client);
    }
    free(l->d);
    free(l);
}

/* Appends a copy of d (taking over its references); false when out of memory (the
 * references are released then). */
static bool list_add(struct el_list *l, struct el_desc *d)
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

static struct msaa_el *handle_new(struct el_list *l, size_t index)
{
    struct msaa_el *h = malloc(sizeof *h);
    if (!h)
        return NULL;
    InterlockedIncrement(&l->refs);
    h->list = l;
    h->index = index;
    return h;
}

static struct el_desc *desc_of(void *handle)
{
    struct msaa_el *h = handle;
    return &h->list->d[h->index];
}

void win_msaa_release_handle(void *handle)
{
    struct msaa_el *h = handle;
    if (!h)
        return;
    list_unref(h->list);
    free(h);
}

void *win_msaa_ref_handle(void *handle)
{
    struct msaa_el *h = handle;
    return h ? handle_new(h->list, h->index) : NULL;
}

/* ---- calls into the target, through the gate ---- */

static bool send_msg(struct win_gate *g, HWND h, UINT msg, WPARAM wp, LPARAM lp, int ms,
                     LRESULT *res)
{
    DWORD_PTR r = 0;
    win_gate_leave(g);
    LRESULT ok = SendMessageTimeoutW(h, msg, wp, lp, SMTO_ABORTIFHUNG, (UINT)ms, &r);
    win_gate_enter(g);
    *res = (LRESULT)r;
    return ok != 0;
}

/* A window's thread answers, within PING_MS. IsHungAppWindow catches threads that
 * stopped long ago without waiting; the ping catches freshly hung ones. */
static bool ping(struct win_gate *g, HWND h)
{
    LRESULT r;
    return !IsHungAppWindow(h) && send_msg(g, h, WM_NULL, 0, 0, PING_MS, &r);
}

static struct thread_state *thread_of(struct win_msaa_ctx *c, HWND h)
{
    DWORD tid = GetWindowThreadProcessId(h, NULL);
    for (int i = 0; i < c->nthreads; i++)
        if (c->threads[i].tid == tid)
            return &c->threads[i];
    struct thread_state *t = c->nthreads < (int)(sizeof c->threads / sizeof c->threads[0])
                                 ? &c->threads[c->nthreads++]
                                 : &c->scratch;
    t->tid = tid;
    t->responsive = ping(c->gate, h);
    GUITHREADINFO gi = {.cbSize = sizeof gi};
    t->focus = GetGUIThreadInfo(tid, &gi) ? gi.hwndFocus : NULL;
    return t;
}

static VARIANT child_var(long id)
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
enum acc_text { ACC_NAME, ACC_VALUE, ACC_DEFAULT_ACTION };

static char *acc_text(struct win_gate *g, IAccessible *acc, long id, enum acc_text what)
{
    BSTR b = NULL;
    VARIANT v = child_var(id);
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

static bool acc_long(struct win_gate *g, IAccessible *acc, long id, bool state, long *out)
{
    VARIANT r;
    VariantInit(&r);
    VARIANT v = child_var(id);
    win_gate_leave(g);
    HRESULT hr = state ? IAccessible_get_accState(acc, v, &r) : IAccessible_get_accRole(acc, v, &r);
    win_gate_enter(g);
    bool ok = hr == S_OK && V_VT(&r) == VT_I4;
    *out = ok ? V_I4(&r) : 0;
    VariantClear(&r);
    return ok;
}

static bool acc_location(struct win_gate *g, IAccessible *acc, long id, struct wa_rect *out)
{
    long x = 0, y = 0, w = 0, h = 0;
    VARIANT v = child_var(id);
    win_gate_leave(g);
    HRESULT hr = IAccessible_accLocation(acc, &x, &y, &w, &h, v);
    win_gate_enter(g);
    if (hr != S_OK || w <= 0 || h <= 0)
        return false;
    *out = (struct wa_rect){(int)x, (int)y, (int)(x + w), (int)(y + h)};
    return true;
}

static IAccessible *object_from_window(struct win_gate *g, HWND h, LONG objid)
{
    IAccessible *acc = NULL;
    win_gate_leave(g);
    HRESULT hr = AccessibleObjectFromWindow(h, (DWORD)objid, &iid_accessible, (void **)&acc);
    win_gate_enter(g);
    if (FAILED(hr))
        WIN_RELEASE(acc);
    return acc;
}

/* Whether acc is oleacc's standard object for a window that serves none of its own:
 * made in this process, where a window's own object comes through a COM proxy (which
 * answers IClientSecurity). */
static bool made_here(IAccessible *acc)
{
    IUnknown *sec = NULL;
    if (SUCCEEDED(IAccessible_QueryInterface(acc, &IID_IClientSecurity, (void **)&sec)) && sec) {
        IUnknown_Release(sec);
        return false;
    }
    return true;
}

static IAccessible *desc_client(struct win_msaa_ctx *c, struct el_desc *d)
{
    if (!d->client_tried) {
        d->client_tried = true;
        if (thread_of(c, d->hwnd)->responsive)
            d->client = object_from_window(c->gate, d->hwnd, OBJID_CLIENT);
        d->client_standard = d->client && made_here(d->client);
    }
    return d->client;
}

/* ---- window facts that need no message ---- */

static char *class_of(HWND h)
{
    wchar_t cls[256];
    int n = GetClassNameW(h, cls, 256);
    return win_wide_to_utf8_n(cls, n > 0 ? n : 0);
}

/* class_of, asked of the server once a walk per window (a walk asks it of each window
 * three times over). A heap copy, as class_of's. */
static char *ctx_class(struct win_msaa_ctx *c, HWND h)
{
    for (size_t i = 0; i < c->nclasses; i++)
        if (c->classes[i].h == h)
            return str_dup(c->classes[i].name);
    char *cls = class_of(h);
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

static struct wa_rect rect_of(HWND h)
{
    RECT r;
    if (!GetWindowRect(h, &r))
        return (struct wa_rect){0, 0, 0, 0};
    return (struct wa_rect){r.left, r.top, r.right, r.bottom};
}

/* The window's text by WM_GETTEXT (controls keep theirs away from the stored caption). */
static char *message_text(struct win_gate *g, HWND h)
{
    LRESULT len = 0;
    if (!send_msg(g, h, WM_GETTEXTLENGTH, 0, 0, MESSAGE_MS, &len) || len < 0)
        return NULL;
    if (len > TEXT_CAP)
        len = TEXT_CAP;
    wchar_t *buf = calloc((size_t)len + 1, sizeof *buf);
    if (!buf)
        return NULL;
    LRESULT got = 0;
    char *s = NULL;
    if (send_msg(g, h, WM_GETTEXT, (WPARAM)len + 1, (LPARAM)buf, MESSAGE_MS, &got))
        s = win_wide_to_utf8_n(buf, got < 0 ? 0 : (int)(got > len ? len : got));
    free(buf);
    return s;
}

/* Types whose window text is not their name: their name is a label before them. */
static bool type_takes_label(const char *type)
{
    static const char *const kinds[] = {"Edit",   "ComboBox", "List",        "Tree",
                                        "Slider", "Spinner",  "ProgressBar", "Document"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(type, kinds[i]) == 0)
            return true;
    return false;
}

/* What MSAA does on Windows for unnamed controls: the text of the static just
 * before it in Z order (its label, created just before it). */
static char *label_before(HWND h)
{
    for (HWND p = GetWindow(h, GW_HWNDPREV); p; p = GetWindow(p, GW_HWNDPREV)) {
        if (!IsWindowVisible(p))
            continue;
        char *cls = class_of(p);
        bool is_label = cls && str_ieq(cls, "Static");
        free(cls);
        if (!is_label)
            return NULL;
        char *text = stored_text(p);
        char *name = msaa_text_to_name(text);
        free(text);
        /* A paragraph before a control describes it; it does not name it. */
        if (name && (!*name || strlen(name) > LABEL_MAX || strchr(name, '\n'))) {
            free(name);
            name = NULL;
        }
        return name;
    }
    return NULL;
}

/* The window's text as a name; `responsive`: its thread answered a ping. */
static char *text_name(struct win_gate *gate, HWND h, bool responsive)
{
    char *cls = class_of(h);
    /* Edits, combo boxes (ComboBoxEx32 too) and list boxes show their content. */
    const char *type = msaa_class_type_name(cls, 0);
    bool content = type && (strcmp(type, "Edit") == 0 || strcmp(type, "ComboBox") == 0 ||
                            msaa_class_items(cls) == MSAA_ITEMS_LISTBOX);
    free(cls);
    if (content)
        return NULL;
    char *text = NULL;
    if (responsive && (GetWindowLongW(h, GWL_STYLE) & WS_CHILD))
        text = message_text(gate, h);
    else
        text = stored_text(h);
    char *name = msaa_text_to_name(text);
    free(text);
    if (name && !*name) {
        free(name);
        name = NULL;
    }
    return name;
}

char *win_msaa_text_name(HWND h, struct win_gate *gate)
{
    bool child = (GetWindowLongW(h, GWL_STYLE) & WS_CHILD) != 0;
    return text_name(gate, h, child && ping(gate, h));
}

char *win_msaa_window_name(HWND h, struct win_gate *gate)
{
    if (!ping(gate, h))
        return NULL;
    IAccessible *acc = object_from_window(gate, h, OBJID_CLIENT);
    if (!acc)
        return NULL;
    char *name = acc_text(gate, acc, CHILDID_SELF, ACC_NAME);
    WIN_RELEASE(acc);
    if (name && !*name) {
        free(name);
        name = NULL;
    }
    return name;
}

/* ---- element info ---- */

static unsigned patterns_for_type(const char *type)
{
    static const struct {
        const char *type;
        unsigned patterns;
    } map[] = {
        {"Button", WA_PAT_INVOKE},   {"SplitButton", WA_PAT_INVOKE | WA_PAT_EXPAND},
        {"MenuItem", WA_PAT_INVOKE}, {"Hyperlink", WA_PAT_INVOKE},
        {"CheckBox", WA_PAT_TOGGLE}, {"RadioButton", WA_PAT_SELECT},
        {"ListItem", WA_PAT_SELECT}, {"TabItem", WA_PAT_SELECT},
        {"TreeItem", WA_PAT_SELECT}, {"ComboBox", WA_PAT_EXPAND | WA_PAT_VALUE},
        {"Edit", WA_PAT_VALUE},      {"Slider", WA_PAT_RANGE},
        {"ScrollBar", WA_PAT_RANGE}, {"ProgressBar", WA_PAT_RANGE},
    };
    for (size_t i = 0; type && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(type, map[i].type) == 0)
            return map[i].patterns;
    return 0;
}

static void take_string(char **dst, char *s)
{
    free(*dst);
    *dst = s;
}

/* The position of a slider, progress bar or spin button as its value ("30"), read
 * with the control's own messages (no pointers: nothing to copy across processes);
 * NULL for other types or when it does not answer. */
static char *range_value(struct win_gate *g, HWND h, const char *type)
{
    UINT msg = strcmp(type, "Slider") == 0        ? TBM_GETPOS
               : strcmp(type, "ProgressBar") == 0 ? PBM_GETPOS
               : strcmp(type, "Spinner") == 0     ? UDM_GETPOS32
                                                  : 0;
    LRESULT pos = 0;
    if (!msg || !send_msg(g, h, msg, 0, 0, MESSAGE_MS, &pos))
        return NULL;
    char buf[24];
    snprintf(buf, sizeof buf, "%ld", (long)(int)pos);
    return str_dup(buf);
}

static wa_err info_root(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    (void)c;
    out->type = str_dup("Window");
    out->name = win_window_title(d->hwnd);
    out->class_name = class_of(d->hwnd);
    RECT fr; /* the frame the tree's coordinates are relative to */
    if (win_window_frame(d->hwnd, &fr))
        out->bounds = (struct wa_rect){fr.left, fr.top, fr.right, fr.bottom};
    out->hwnd = (uint64_t)(uintptr_t)d->hwnd;
    if (!IsWindowEnabled(d->hwnd))
        out->states |= WA_ST_DISABLED; /* a modal dialog is open */
    return WA_E_OK;
}

static void coll_summary(struct win_msaa_ctx *c, HWND h, struct tree_element_info *out);

static uint64_t window_sig(struct win_msaa_ctx *c, HWND h);
static bool take_window(struct win_msaa_ctx *c, struct el_desc *d, uint64_t sig,
                        struct tree_element_info *out);
static void sign_window(struct el_desc *d, const char *type, uint64_t sig,
                        struct tree_element_info *out);

static wa_err info_window(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    HWND h = d->hwnd;
    uint64_t sig = window_sig(c, h);
    if (take_window(c, d, sig, out))
        return WA_E_OK;
    LONG style = GetWindowLongW(h, GWL_STYLE);
    struct thread_state *ts = thread_of(c, h);
    out->class_name = ctx_class(c, h);
    out->bounds = rect_of(h);
    out->hwnd = (uint64_t)(uintptr_t)h;

    long role = 0, state = 0;
    bool have_state = false;
    char *acc_name = NULL, *acc_value = NULL, *action = NULL;
    IAccessible *client = desc_client(c, d);
    if (client) {
        acc_long(c->gate, client, CHILDID_SELF, false, &role);
        d->client_role = role;
        have_state = acc_long(c->gate, client, CHILDID_SELF, true, &state);
        acc_name = acc_text(c->gate, client, CHILDID_SELF, ACC_NAME);
        acc_value = acc_text(c->gate, client, CHILDID_SELF, ACC_VALUE);
        action = acc_text(c->gate, client, CHILDID_SELF, ACC_DEFAULT_ACTION);
    }
    const char *type = NULL;
    if (role && !msaa_role_is_generic(role))
        type = msaa_role_type_name(role, (unsigned long)state);
    if (!type)
        type = msaa_class_type_name(out->class_name, (unsigned long)style);
    if (!type)
        type = "Pane";
    out->type = str_dup(type);

    /* Name: MSAA's, except where Wine's generic client object named a combo or list
     * box by its content; the label before it for unnamed edits, lists and combos. */
    bool takes_label = type_takes_label(type);
    if (acc_name && *acc_name && !(takes_label && msaa_role_is_generic(role)))
        take_string(&out->name, acc_name);
    else
        free(acc_name);
    if (!out->name && takes_label)
        out->name = label_before(h);
    /* A spin button sits beside the edit it steps (its buddy): the edit's label. */
    LRESULT buddy = 0;
    if (!out->name && strcmp(type, "Spinner") == 0 && ts->responsive &&
        send_msg(c->gate, h, UDM_GETBUDDY, 0, 0, MESSAGE_MS, &buddy) && buddy)
        out->name = label_before((HWND)buddy);

    /* Value: edits and combo boxes; never a password field's. */
    bool secret = (have_state && (state & STATE_SYSTEM_PROTECTED)) ||
                  (str_ieq(type, "Edit") && (style & ES_PASSWORD));
    if (!secret && acc_value)
        take_string(&out->value, acc_value);
    else
        free(acc_value);
    if (!secret && !out->value && ts->responsive &&
        (strcmp(type, "Edit") == 0 || strcmp(type, "ComboBox") == 0))
        out->value = message_text(c->gate, h);

    /* States: MSAA's, corrected where Wine's answer is about our own thread. */
    unsigned s = have_state ? msaa_state_to_wa((unsigned long)state) : 0;
    s &= ~(unsigned)WA_ST_FOCUSED;
    if (ts->focus == h)
        s |= WA_ST_FOCUSED;
    if ((style & WS_DISABLED) || !IsWindowEnabled(h))
        s |= WA_ST_DISABLED;
    else if (style & WS_TABSTOP)
        s |= WA_ST_FOCUSABLE;
    LRESULT r = 0;
    if (ts->responsive && (strcmp(type, "CheckBox") == 0 || strcmp(type, "RadioButton") == 0) &&
        send_msg(c->gate, h, BM_GETCHECK, 0, 0, MESSAGE_MS, &r) && r == BST_CHECKED)
        s |= WA_ST_CHECKED;
    /* A simple combo box's list is always open: neither expanded nor collapsed. */
    bool simple_combo = strcmp(type, "ComboBox") == 0 && (style & 3) == CBS_SIMPLE &&
                        str_ieq(out->class_name, "ComboBox");
    if (simple_combo)
        s &= ~(unsigned)(WA_ST_EXPANDED | WA_ST_COLLAPSED);
    else if (ts->responsive && strcmp(type, "ComboBox") == 0 &&
             send_msg(c->gate, h, CB_GETDROPPEDSTATE, 0, 0, MESSAGE_MS, &r)) {
        s &= ~(unsigned)(WA_ST_EXPANDED | WA_ST_COLLAPSED);
        s |= r ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
    }
    out->states = s;

    if (ts->responsive && !out->value)
        out->value = range_value(c->gate, h, type);

    out->patterns = patterns_for_type(type);
    if ((out->patterns & WA_PAT_VALUE) && strcmp(type, "Edit") == 0 && (style & ES_READONLY))
        out->patterns &= ~(unsigned)WA_PAT_VALUE;
    if (simple_combo)
        out->patterns &= ~(unsigned)WA_PAT_EXPAND;
    if (action && *action)
        out->patterns |= WA_PAT_DEFAULT_ACTION;
    free(action);
    coll_summary(c, h, out);
    if (ts->responsive) /* what a window that did not answer told is not worth keeping */
        sign_window(d, type, sig, out);
    return WA_E_OK;
}

static bool take_bar_item(struct win_msaa_ctx *c, int pos, struct tree_element_info *out);

static wa_err info_acc(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    if (d->in_bar && take_bar_item(c, (int)d->child_id - 1, out))
        return WA_E_OK; /* it looks as it did */
    long role = ROLE_SYSTEM_MENUITEM, state = 0;
    if (!d->in_bar) /* what a menu bar holds is known: a round trip fewer per item */
        acc_long(c->gate, d->acc, d->child_id, false, &role);
    bool have_state = acc_long(c->gate, d->acc, d->child_id, true, &state);
    const char *type = msaa_role_type_name(role, (unsigned long)state);
    out->type = str_dup(type ? type : "Custom");
    out->name = acc_text(c->gate, d->acc, d->child_id, ACC_NAME);
    /* Menu items have no value, and what their default action does is known: two
     * round trips fewer for each (a menu bar is walked with every tree). */
    bool menu_item = role == ROLE_SYSTEM_MENUITEM || role == ROLE_SYSTEM_SEPARATOR;
    if (!menu_item && !(have_state && (state & STATE_SYSTEM_PROTECTED)))
        out->value = acc_text(c->gate, d->acc, d->child_id, ACC_VALUE);
    acc_location(c->gate, d->acc, d->child_id, &out->bounds);
    out->states = have_state ? msaa_state_to_wa((unsigned long)state) : 0;
    out->patterns = patterns_for_type(out->type);
    if (menu_item && (have_state && (state & STATE_SYSTEM_HASPOPUP))) {
        out->patterns |= WA_PAT_EXPAND;
        out->states |= (state & STATE_SYSTEM_EXPANDED) ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
    }
    char *action = menu_item ? NULL : acc_text(c->gate, d->acc, d->child_id, ACC_DEFAULT_ACTION);
    if (menu_item || (action && *action))
        out->patterns |= WA_PAT_DEFAULT_ACTION;
    free(action);
    out->child_id = d->child_id;
    /* hwnd stays 0: the element is not its container window, whose text and MSAA
     * name must not become its name. */
    return WA_E_OK;
}

/* Owner-drawn lists without strings hold pointers: their items have no text. */
static bool items_have_text(LONG style, bool combo)
{
    bool owner = combo ? (style & (CBS_OWNERDRAWFIXED | CBS_OWNERDRAWVARIABLE)) != 0
                       : (style & (LBS_OWNERDRAWFIXED | LBS_OWNERDRAWVARIABLE)) != 0;
    bool strings = combo ? (style & CBS_HASSTRINGS) != 0 : (style & LBS_HASSTRINGS) != 0;
    return !owner || strings;
}

static struct win_cc *ctx_cc(struct win_msaa_ctx *c)
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

/* An item's text: LB_GETTEXT / CB_GETLBTEXT, which Windows and Wine copy across
 * processes only for lists that hold strings (owner-drawn ones hold pointers). */
static char *item_text(struct win_gate *g, struct list_facts *f, int i)
{
    if (!items_have_text(f->style, f->combo))
        return NULL;
    if (f->texts && i < f->ntexts) { /* read with the others */
        char *s = f->texts[i];
        f->texts[i] = NULL;
        return s;
    }
    LRESULT len = 0;
    if (!send_msg(g, f->hwnd, f->combo ? CB_GETLBTEXTLEN : LB_GETTEXTLEN, (WPARAM)i, 0, MESSAGE_MS,
                  &len))
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
        send_msg(g, lb, LB_GETTOPINDEX, 0, 0, MESSAGE_MS, &top) && top >= 0 &&
        send_msg(g, lb, LB_GETITEMHEIGHT, 0, 0, MESSAGE_MS, &height) && height > 0) {
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
    if (!send_msg(g, h, LB_GETCOUNT, 0, 0, MESSAGE_MS, &n) || n <= 0)
        return;
    f->count = (int)n;
    item_lengths(g, f, LB_GETTEXTLEN);
    if (f->style & (LBS_MULTIPLESEL | LBS_EXTENDEDSEL)) {
        LRESULT k = 0;
        if (send_msg(g, h, LB_GETSELCOUNT, 0, 0, MESSAGE_MS, &k) && k >= 0 &&
            (f->selected = calloc((size_t)n, 1)) != NULL) {
            int *idx = k > 0 ? calloc((size_t)k, sizeof *idx) : NULL;
            if (k > 0 &&
                (!idx || !send_msg(g, h, LB_GETSELITEMS, (WPARAM)k, (LPARAM)idx, MESSAGE_MS, &r) ||
                 r < 0)) {
                free(f->selected); /* asked item by item instead */
                f->selected = NULL;
            }
            for (LRESULT i = 0; f->selected && i < k && i < r; i++)
                if (idx[i] >= 0 && idx[i] < n)
                    f->selected[idx[i]] = 1;
            free(idx);
        }
    } else if (send_msg(g, h, LB_GETCURSEL, 0, 0, MESSAGE_MS, &r)) {
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
    if (!send_msg(g, h, CB_GETDROPPEDSTATE, 0, 0, MESSAGE_MS, &dropped) || !dropped ||
        !send_msg(g, h, CB_GETDROPPEDCONTROLRECT, 0, (LPARAM)&d.want, MESSAGE_MS, &r))
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
    f->cursel = send_msg(g, h, CB_GETCURSEL, 0, 0, MESSAGE_MS, &r) ? (int)r : -1;
    if (send_msg(g, h, CB_GETCOUNT, 0, 0, MESSAGE_MS, &r) && r > 0) {
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
    } else if (f->dropped && send_msg(g, h, CB_GETTOPINDEX, 0, 0, MESSAGE_MS, &top) &&
               send_msg(g, h, CB_GETITEMHEIGHT, 0, 0, MESSAGE_MS, &height) && height > 0) {
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
    f->responsive = thread_of(c, h)->responsive;
    c->lists[c->nlists++] = f;
    return f;
}

/* Starts reading the facts of the list and combo boxes among l's windows on a thread
 * while the walk goes on through the other windows. */
static void read_lists_ahead(struct win_msaa_ctx *c, struct el_list *l)
{
    struct ahead *a = NULL;
    for (size_t i = 0; i < l->count && c->nahead < AHEAD_CAP; i++) {
        if (l->d[i].kind != EL_WINDOW)
            continue;
        char *cls = ctx_class(c, l->d[i].hwnd);
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

/* Waits for the threads reading ahead; stop: tells them to stop first. */
static void join_ahead(struct win_msaa_ctx *c, bool stop)
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

/* The facts of list or combo box h: read ahead, or read now. */
static struct list_facts *list_facts(struct win_msaa_ctx *c, HWND h, bool combo)
{
    struct list_facts *f = find_facts(c, h);
    if (!f && !(f = new_facts(c, h, combo)))
        return NULL;
    if (f->ahead)
        join_ahead(c, false);
    if (!f->read)
        read_facts(c->gate, f);
    return f;
}

/* An item's place on the screen, from where its list shows its rows (list_facts);
 * offscreen when scrolled out of view, more than half hidden below the last row, or in
 * a drop-down list that is closed. */
static void place_item(struct win_msaa_ctx *c, struct list_facts *f, int i,
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
               !send_msg(c->gate, f->rows_in, LB_GETITEMRECT, (WPARAM)i, (LPARAM)&ir, MESSAGE_MS,
                         &r) ||
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

/* The id a collection names an item by: its index, or its HTREEITEM. */
static uint64_t item_id(const struct el_desc *d)
{
    return d->items == MSAA_ITEMS_LISTBOX || d->items == MSAA_ITEMS_COMBOBOX ? (uint64_t)d->item
                                                                             : d->item_id;
}

static struct win_coll *coll_found(struct win_msaa_ctx *c, HWND h)
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
    struct win_coll *co = coll_found(c, h);
    if (co || !win_coll_reader(k) || !thread_of(c, h)->responsive || !ctx_cc(c))
        return co;
    if (c->ncolls == c->cap_colls) {
        size_t cap = c->cap_colls ? 2 * c->cap_colls : 4;
        struct win_coll **p = wa_reallocarray(c->colls, cap, sizeof *p);
        if (!p)
            return NULL;
        c->colls = p;
        c->cap_colls = cap;
    }
    if ((co = win_coll_open(c->cc, h, k, last_listing(c->reuse, h))))
        c->colls[c->ncolls++] = co;
    return co;
}

/* A collection control's summary on its node. */
static void coll_summary(struct win_msaa_ctx *c, HWND h, struct tree_element_info *out)
{
    struct win_coll *co = coll_of(c, h, msaa_class_items(out->class_name));
    if (co)
        win_coll_summary(co, &out->coll);
}

/* The items of a long collection listed under parent (0: its top level); false when
 * the collection does not list its items itself (they are walked as before). */
static bool add_coll_items(struct win_msaa_ctx *c, struct el_list *l, HWND h,
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
        if (!list_add(l, &d))
            break;
    }
    return true;
}

static void add_cc_items(struct win_msaa_ctx *c, struct el_list *l, HWND h, enum msaa_item_class k,
                         uint64_t parent);

/* A tree item's children: those its collection lists, else its open branch. */
static void add_tree_children(struct win_msaa_ctx *c, struct el_list *l, struct el_desc *d)
{
    if (!add_coll_items(c, l, d->hwnd, d->items, d->item_id))
        add_cc_items(c, l, d->hwnd, d->items, d->item_id);
}

static wa_err info_item_read(struct win_msaa_ctx *c, struct el_desc *d,
                             struct tree_element_info *out);
static bool take_list_item(struct win_msaa_ctx *c, HWND h, int i, struct tree_element_info *out);

/* An item: what its collection read of it, else read on its own, with the identity
 * every collection item carries. */
static wa_err info_item(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    struct win_coll *co = coll_found(c, d->hwnd);
    uint64_t id = item_id(d);
    if (co && win_coll_info(co, id, out))
        return WA_E_OK;
    if ((d->items == MSAA_ITEMS_LISTBOX || d->items == MSAA_ITEMS_COMBOBOX) &&
        take_list_item(c, d->hwnd, d->item, out))
        return WA_E_OK;
    wa_err e = info_item_read(c, d, out);
    win_cc_item_identity(d->hwnd, d->items, id, out);
    return e;
}

static wa_err info_item_read(struct win_msaa_ctx *c, struct el_desc *d,
                             struct tree_element_info *out)
{
    HWND h = d->hwnd;
    if (d->items != MSAA_ITEMS_LISTBOX && d->items != MSAA_ITEMS_COMBOBOX) {
        if (!thread_of(c, h)->responsive || !ctx_cc(c)) {
            out->type = str_dup(d->items == MSAA_ITEMS_TREEVIEW    ? "TreeItem"
                                : d->items == MSAA_ITEMS_TAB       ? "TabItem"
                                : d->items == MSAA_ITEMS_TOOLBAR   ? "Button"
                                : d->items == MSAA_ITEMS_STATUSBAR ? "Text"
                                                                   : "ListItem");
            return WA_E_OK;
        }
        return win_cc_item_info(c->cc, h, d->items, d->item_id, out);
    }
    bool combo = d->items == MSAA_ITEMS_COMBOBOX;
    out->type = str_dup("ListItem");
    out->patterns = WA_PAT_SELECT;
    out->child_id = d->item + 1; /* MSAA numbers list items from 1 */
    struct list_facts *f = list_facts(c, h, combo);
    if (!f || !f->responsive)
        return WA_E_OK;
    out->name = item_text(c->gate, f, d->item);
    LRESULT r = 0;
    if (f->cursel == d->item || (f->selected && d->item < f->count && f->selected[d->item]))
        out->states |= WA_ST_SELECTED;
    else if (!combo && !f->selected && (f->style & (LBS_MULTIPLESEL | LBS_EXTENDEDSEL)) &&
             send_msg(c->gate, h, LB_GETSEL, (WPARAM)d->item, 0, MESSAGE_MS, &r) && r > 0)
        out->states |= WA_ST_SELECTED;
    if (f->data && d->item < f->count && d->item < ITEM_CAP && f->data[d->item] != (uintptr_t)-1) {
        char id[64]; /* a row without text is known by its data */
        snprintf(id, sizeof id, "item.%llx.%llx", (unsigned long long)(uintptr_t)h,
                 (unsigned long long)f->data[d->item]);
        out->runtime_id = str_dup(id);
    }
    place_item(c, f, d->item, out);
    return WA_E_OK;
}

/* The menu bar, whatever reads its items: its place between the title bar and the
 * client area, one menu row high, known without asking the program (a walk of testapp
 * took 6 round trips more when its MSAA object was asked for each of these). */
static wa_err info_menubar(struct el_desc *d, struct tree_element_info *out)
{
    out->type = str_dup("MenuBar");
    out->name = str_dup("Application"); /* what MSAA calls a window's menu bar */
    /* Walked apart: the walk of the bar says, once its items are in. */
    out->items_unreadable = !d->apart && !d->items_by_acc && win_menu_count(d->menu) <= 0;
    WINDOWINFO wi = {.cbSize = sizeof wi};
    TITLEBARINFO ti = {.cbSize = sizeof ti};
    if (GetWindowInfo(d->hwnd, &wi)) {
        int top = wi.rcClient.top - GetSystemMetrics(SM_CYMENU);
        if (GetTitleBarInfo(d->hwnd, &ti) && ti.rcTitleBar.bottom > top &&
            ti.rcTitleBar.bottom < wi.rcClient.top)
            top = ti.rcTitleBar.bottom;
        out->bounds = (struct wa_rect){wi.rcClient.left, top, wi.rcClient.right, wi.rcClient.top};
    }
    return WA_E_OK;
}

static long acc_child_count(struct win_gate *g, IAccessible *acc)
{
    long n = 0;
    win_gate_leave(g);
    HRESULT hr = IAccessible_get_accChildCount(acc, &n);
    win_gate_enter(g);
    return SUCCEEDED(hr) ? n : 0;
}

/* Chooses how an open popup menu's items are read: its client object when the
 * program (or Windows' oleacc) serves a popup menu object with children, else the
 * menu functions on the menu MN_GETHMENU names; neither: not readable (Wine). */
static void choose_popup_route(struct win_msaa_ctx *c, struct el_desc *d)
{
    if (d->menu_read)
        return;
    d->menu_read = true;
    IAccessible *client = desc_client(c, d);
    long role = 0;
    if (client && acc_long(c->gate, client, CHILDID_SELF, false, &role) &&
        role == ROLE_SYSTEM_MENUPOPUP && acc_child_count(c->gate, client) > 0) {
        d->items_by_acc = true;
        return;
    }
    if (thread_of(c, d->hwnd)->responsive)
        d->menu = win_menu_of_popup(d->hwnd, c->gate);
    if (win_menu_count(d->menu) <= 0)
        d->menu = NULL;
}

static wa_err info_popup(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    choose_popup_route(c, d);
    out->type = str_dup("Menu");
    out->class_name = class_of(d->hwnd);
    out->bounds = rect_of(d->hwnd);
    out->hwnd = (uint64_t)(uintptr_t)d->hwnd;
    if (d->items_by_acc)
        out->name = acc_text(c->gate, d->client, CHILDID_SELF, ACC_NAME);
    else if (d->menu)
        out->name = win_menu_opener_name(c->root, d->menu);
    if (!out->name)
        out->name = str_dup("");
    out->items_unreadable = !d->items_by_acc && !d->menu;
    return WA_E_OK;
}

static wa_err m_info(void *ctx, void *el, struct tree_element_info *out)
{
    struct win_msaa_ctx *c = ctx;
    struct el_desc *d = desc_of(el);
    memset(out, 0, sizeof *out);
    if (d->kind == EL_ITEM) /* its list's window was there a moment ago; messages tell */
        return info_item(c, d, out);
    if (!IsWindow(d->hwnd))
        return wa_fail(WA_E_STALE_REF, "window 0x%llx is gone",
                       (unsigned long long)(uintptr_t)d->hwnd);
    switch (d->kind) {
    case EL_WINDOW:
        return d->root ? info_root(c, d, out) : info_window(c, d, out);
    case EL_ACC:
        return info_acc(c, d, out);
    case EL_ITEM:
        return info_item(c, d, out);
    case EL_MENUBAR:
        return info_menubar(d, out);
    case EL_MENUITEM:
        if (!d->in_bar || !take_bar_item(c, d->pos, out))
            win_menu_item_info(d->in_bar ? d->hwnd : NULL, d->menu, d->pos, out);
        return WA_E_OK;
    case EL_POPUP:
        return info_popup(c, d, out);
    case EL_POPUPS:
        out->type = str_dup("Pane");
        return WA_E_OK;
    }
    return WA_E_OK;
}

/* ---- navigation ---- */

static bool add_window(struct el_list *l, HWND h)
{
    struct el_desc d = {.kind = EL_WINDOW, .hwnd = h};
    return list_add(l, &d);
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
            list_add(l, &d);
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
                list_add(l, &d);
            } else {
                WIN_RELEASE(obj);
            }
        }
    }
    for (long i = 0; i < got && i < n; i++)
        VariantClear(&kids[i]);
    free(kids);
}

/* Items of a common control: the top level, or a tree item's children. */
static void add_cc_items(struct win_msaa_ctx *c, struct el_list *l, HWND h, enum msaa_item_class k,
                         uint64_t parent)
{
    uint64_t ids[ITEM_CAP];
    if (!thread_of(c, h)->responsive || !ctx_cc(c))
        return;
    size_t n = win_cc_items(c->cc, h, k, parent, ids, ITEM_CAP);
    for (size_t i = 0; i < n; i++) {
        struct el_desc d = {.kind = EL_ITEM, .hwnd = h, .items = k, .item_id = ids[i]};
        if (!list_add(l, &d))
            return;
    }
}

static void add_items(struct win_msaa_ctx *c, struct el_list *l, HWND h, enum msaa_item_class k)
{
    if (add_coll_items(c, l, h, k, 0))
        return;
    if (k != MSAA_ITEMS_LISTBOX && k != MSAA_ITEMS_COMBOBOX) {
        add_cc_items(c, l, h, k, 0);
        return;
    }
    LRESULT n = 0; /* owner-drawn items without text too: their places tell them apart */
    if (!thread_of(c, h)->responsive ||
        !send_msg(c->gate, h, k == MSAA_ITEMS_COMBOBOX ? CB_GETCOUNT : LB_GETCOUNT, 0, 0,
                  MESSAGE_MS, &n) ||
        n <= 0)
        return;
    for (int i = 0; i < n && i < ITEM_CAP; i++) {
        struct el_desc d = {.kind = EL_ITEM, .hwnd = h, .items = k, .item = i};
        if (!list_add(l, &d))
            return;
    }
}

/* How a menu bar's items are read: MSAA's menu bar object where there is one with
 * items (Windows' oleacc, or the program's own), else the menu functions (Windows),
 * else only its place is known. */
static void choose_bar_route(struct win_msaa_ctx *c, struct el_desc *m)
{
    if (thread_of(c, m->hwnd)->responsive)
        m->acc = object_from_window(c->gate, m->hwnd, OBJID_MENU);
    if (m->acc && (m->bar_items = acc_child_count(c->gate, m->acc)) > 0) {
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
        list_add(l, &m);
    }
    char *cls = ctx_class(c, h);
    enum msaa_item_class k = msaa_class_items(cls);
    struct child_scan s = {.parent = h, .combo = k == MSAA_ITEMS_COMBOBOX, .list = l, .ok = true};
    EnumChildWindows(h, scan_child, (LPARAM)&s);
    read_lists_ahead(c, l); /* their items are read meanwhile */

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
    IAccessible *client = desc_client(c, d);
    if (client && d->client_standard && !d->client_role)
        acc_long(c->gate, client, CHILDID_SELF, false, &d->client_role);
    if (client && !(d->client_standard && msaa_role_is_generic(d->client_role)))
        add_acc_children(c, l, client, h);
}

/* The items of a menu bar or an open popup menu, by the route chosen for it. */
static void menu_children(struct win_msaa_ctx *c, struct el_desc *d, struct el_list *l)
{
    if (d->apart)
        return;
    if (d->kind == EL_MENUBAR && d->items_by_acc) {
        /* A menu bar object's children are simple elements 1..n (oleacc's, and those
         * made like them): no enumeration round trips. */
        for (long i = 1; i <= d->bar_items && i <= ITEM_CAP; i++) {
            struct el_desc m = {
                .kind = EL_ACC, .hwnd = d->hwnd, .acc = d->acc, .child_id = i, .in_bar = true};
            IAccessible_AddRef(d->acc);
            if (!list_add(l, &m))
                return;
        }
        return;
    }
    if (d->kind == EL_POPUP) {
        choose_popup_route(c, d);
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
        if (!list_add(l, &m))
            return;
    }
}

static wa_err m_first_child(void *ctx, void *el, void **out)
{
    struct win_msaa_ctx *c = ctx;
    struct el_desc *d = desc_of(el);
    *out = NULL;
    bool parent = d->kind == EL_WINDOW || (d->kind == EL_ACC && d->child_id == CHILDID_SELF) ||
                  (d->kind == EL_ITEM && d->items == MSAA_ITEMS_TREEVIEW) ||
                  d->kind == EL_MENUBAR || d->kind == EL_POPUP || d->kind == EL_POPUPS;
    if (!parent || (d->kind != EL_POPUPS && !IsWindow(d->hwnd)))
        return WA_E_OK;
    struct el_list *l = list_new();
    if (!l)
        return wa_fail(WA_E_NOMEM, "out of memory listing children");
    if (d->kind == EL_WINDOW)
        window_children(c, d, l);
    else if (d->kind == EL_MENUBAR || d->kind == EL_POPUP)
        menu_children(c, d, l);
    else if (d->kind == EL_POPUPS)
        for (size_t i = 0; i < c->npopups; i++) {
            struct el_desc p = {.kind = EL_POPUP, .hwnd = c->popups[i]};
            list_add(l, &p);
        }
    else if (d->kind == EL_ACC && d->child_id == CHILDID_SELF)
        add_acc_children(c, l, d->acc, d->hwnd);
    else if (d->kind == EL_ITEM && d->items == MSAA_ITEMS_TREEVIEW)
        add_tree_children(c, l, d);
    bool any = l->count > 0;
    if (any)
        *out = handle_new(l, 0);
    list_unref(l);
    return any && !*out ? wa_fail(WA_E_NOMEM, "out of memory listing children") : WA_E_OK;
}

static wa_err m_next_sibling(void *ctx, void *el, void **out)
{
    (void)ctx;
    struct msaa_el *h = el;
    *out = NULL;
    if (h->index + 1 < h->list->count) {
        *out = handle_new(h->list, h->index + 1);
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
    struct el_list *l = list_new();
    struct el_desc d = {.kind = c->popup_walk ? EL_POPUPS
                                : c->bar_walk ? EL_MENUBAR
                                              : EL_WINDOW,
                        .hwnd = c->root,
                        .root = !c->popup_walk && !c->bar_walk};
    if (c->bar_walk)
        choose_bar_route(c, &d);
    if (l && list_add(l, &d))
        *out = handle_new(l, 0);
    list_unref(l);
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
    *out = text_name(c->gate, h, thread_of(c, h)->responsive);
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
    .info = m_info,
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
    return IsWindow(c->root) && thread_of(c, c->root)->responsive;
}

void win_msaa_menubar_apart(struct win_msaa_ctx *c)
{
    c->bar_apart = true;
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
        win_cc_free(c->cc);
        join_ahead(c, true); /* lists whose items were not walked (budget, node cap) */
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
    struct el_desc *d = desc_of(handle);
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
        if (ping(NULL, d->hwnd))
            d->client = object_from_window(NULL, d->hwnd, OBJID_CLIENT);
        d->client_standard = d->client && made_here(d->client);
    }
    return d->kind == EL_WINDOW ? d->client : NULL;
}

wa_err win_msaa_value(void *handle, char **out)
{
    *out = NULL;
    struct el_desc *d = desc_of(handle);
    IAccessible *acc = d->kind == EL_ACC ? d->acc : window_object(d);
    long id = d->kind == EL_ACC ? d->child_id : CHILDID_SELF;
    if (!acc)
        return wa_fail(WA_E_UNSUPPORTED, "no MSAA object");
    long state = 0;
    if (acc_long(NULL, acc, id, true, &state) && (state & STATE_SYSTEM_PROTECTED))
        return wa_fail(WA_E_DENIED, "a password field is not read back");
    *out = acc_text(NULL, acc, id, ACC_VALUE);
    return *out ? WA_E_OK : wa_fail(WA_E_UNSUPPORTED, "the MSAA object has no value");
}

wa_err win_msaa_action(void *handle, enum wa_element_action a, const char *value, const char **via)
{
    struct el_desc *d = desc_of(handle);
    IAccessible *acc = d->kind == EL_ACC ? d->acc : window_object(d);
    long id = d->kind == EL_ACC ? d->child_id : CHILDID_SELF;
    if (!acc)
        return wa_fail(WA_E_UNSUPPORTED, "no MSAA object");
    if (!ping(NULL, d->hwnd))
        return wa_fail(WA_E_TIMEOUT, "the window does not answer");
    VARIANT v = child_var(id);
    HRESULT hr;
    switch (a) {
    case WA_ACT_EXPAND:
    case WA_ACT_COLLAPSE: {
        /* The default action of expandable things flips them: only when it changes. */
        long state = 0;
        if (!acc_long(NULL, acc, id, true, &state) ||
            !(state & (STATE_SYSTEM_EXPANDED | STATE_SYSTEM_COLLAPSED)))
            return wa_fail(WA_E_UNSUPPORTED, "the MSAA object does not expand");
        bool expanded = (state & STATE_SYSTEM_EXPANDED) != 0;
        *via = "msaa:accDoDefaultAction";
        if (expanded == (a == WA_ACT_EXPAND))
            return WA_E_OK;
    } /* fall through */
    case WA_ACT_INVOKE:
    case WA_ACT_TOGGLE: {
        char *action = acc_text(NULL, acc, id, ACC_DEFAULT_ACTION);
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
    else if (!thread_of(c, h)->responsive || !ctx_cc(c))
        e = wa_fail(WA_E_TIMEOUT, "the window does not answer");
    size_t found = e ? 0 : rd->find(c->cc, h, q, ids, max);
    for (size_t i = 0; i < found; i++)
        items[i] = (struct win_cc_item){ids[i], 0};
    if (found && rd->read)
        rd->read(c->cc, h, NULL, items, found, infos);
    for (size_t i = 0; i < found; i++) {
        struct el_list *l = list_new();
        struct el_desc d = {
            .kind = EL_ITEM, .hwnd = h, .items = k, .item = (int)ids[i], .item_id = ids[i]};
        handles[*n] = l && list_add(l, &d) ? handle_new(l, 0) : NULL;
        list_unref(l);
        if (!handles[*n]) {
            e = wa_fail(WA_E_NOMEM, "out of memory");
            break;
        }
        if (!rd->read)
            info_item(c, desc_of(handles[*n]), &infos[*n]);
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
    struct el_desc *d = desc_of(handle);
    struct win_msaa_ctx *c = NULL;
    wa_err e = win_msaa_open(GetAncestor(d->hwnd, GA_ROOT), NULL, &c);
    if (!e)
        e = m_info(c, handle, out);
    win_msaa_close(c);
    return e;
}

/* ---- what a walk takes of the last one ---- */

struct reused_window {
    HWND h;
    uint64_t sig;
    struct tree_element_info info;
};

struct win_msaa_reuse {
    volatile LONG refs; /* the window's walk, and its menu bar's walked apart */
    uint64_t stamp;     /* the last walk's moment (win_events) */
    /* The menu bar's items by position, where they look as they did; else NULL. */
    struct tree_element_info *bar[BAR_ITEMS_MAX];
    struct reused_window *w; /* by h */
    size_t nw;
    struct win_coll_listing *lists; /* tree views' */
    size_t nlists;
};

/* What can be said of a window without asking its program (no message, no MSAA call):
 * a change of any of it makes the window read again. */
static uint64_t window_sig(struct win_msaa_ctx *c, HWND h)
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
    MIX(thread_of(c, h)->focus == h);
    wchar_t text[256];
    int n = InternalGetWindowText(h, text, 256);
    for (int i = 0; i < n; i++)
        MIX(text[i]);
    /* the label a control may take its name from: the window just before it */
    HWND label = GetWindow(h, GW_HWNDPREV);
    n = label ? InternalGetWindowText(label, text, 256) : 0;
    MIX((uintptr_t)label);
    for (int i = 0; i < n; i++)
        MIX(text[i]);
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

/* Marks what info_window read as one a later walk may take: a window whose MSAA side is
 * oleacc's standard object (what it says follows from the window and the messages read
 * again anyway) and that has no MSAA children of its own. */
static void sign_window(struct el_desc *d, const char *type, uint64_t sig,
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
 * message_text reads it. */
static char *short_text(struct win_gate *g, HWND h)
{
    wchar_t buf[512];
    LRESULT got = 0;
    if (!send_msg(g, h, WM_GETTEXT, 512, (LPARAM)buf, MESSAGE_MS, &got) || got < 0)
        return NULL;
    return got < 511 ? win_wide_to_utf8_n(buf, (int)got) : message_text(g, h);
}

/* What a window read again says now that is not in its fingerprint: its value, check,
 * drop-down state, position, focus, and what its collection holds. */
static void read_again(struct win_msaa_ctx *c, HWND h, struct tree_element_info *out)
{
    const char *type = out->type ? out->type : "";
    LRESULT r = 0;
    out->states &= ~(unsigned)WA_ST_FOCUSED;
    if (thread_of(c, h)->focus == h)
        out->states |= WA_ST_FOCUSED;
    if ((strcmp(type, "Edit") == 0 || strcmp(type, "ComboBox") == 0) && out->value) {
        free(out->value); /* a password field had none, and still has none */
        out->value = short_text(c->gate, h);
    }
    if (strcmp(type, "CheckBox") == 0 || strcmp(type, "RadioButton") == 0) {
        out->states &= ~(unsigned)WA_ST_CHECKED;
        if (send_msg(c->gate, h, BM_GETCHECK, 0, 0, MESSAGE_MS, &r) && r == BST_CHECKED)
            out->states |= WA_ST_CHECKED;
    }
    if (strcmp(type, "ComboBox") == 0 &&
        send_msg(c->gate, h, CB_GETDROPPEDSTATE, 0, 0, MESSAGE_MS, &r)) {
        out->states &= ~(unsigned)(WA_ST_EXPANDED | WA_ST_COLLAPSED);
        out->states |= r ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
    }
    char *range = range_value(c->gate, h, type);
    if (range) {
        free(out->value);
        out->value = range;
    }
    coll_summary(c, h, out);
}

/* What the last walk read of window h, taken when nothing was heard of it since and its
 * fingerprint is the same, with what it says now read again. */
static bool take_window(struct win_msaa_ctx *c, struct el_desc *d, uint64_t sig,
                        struct tree_element_info *out)
{
    const struct win_msaa_reuse *r = c->reuse;
    struct reused_window key = {.h = d->hwnd};
    const struct reused_window *w = r ? bsearch(&key, r->w, r->nw, sizeof *r->w, by_hwnd) : NULL;
    if (!w || w->sig != sig || !thread_of(c, d->hwnd)->responsive ||
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
    read_again(c, d->hwnd, out);
    out->sig = sig;
    return true;
}

static const struct win_coll_listing *last_listing(const struct win_msaa_reuse *r, HWND h)
{
    for (size_t i = 0; r && i < r->nlists; i++)
        if (r->lists[i].h == h)
            return &r->lists[i];
    return NULL;
}

/* A menu bar item (at position pos) that looks as it did: what it was, into out. */
static bool take_bar_item(struct win_msaa_ctx *c, int pos, struct tree_element_info *out)
{
    const struct win_msaa_reuse *r = c->reuse;
    return r && pos >= 0 && pos < BAR_ITEMS_MAX && r->bar[pos] &&
           tree_element_info_copy(r->bar[pos], out);
}

/* A list or combo box item (index i of list h) that looks as it did, while the list shows
 * what it did (as many items, the same first in view): what it was, into out. */
static bool take_list_item(struct win_msaa_ctx *c, HWND h, int i, struct tree_element_info *out)
{
    const struct win_coll_listing *l = last_listing(c->reuse, h);
    struct win_coll *co = coll_found(c, h);
    struct wa_collection now;
    if (!l || !co)
        return false;
    win_coll_summary(co, &now);
    if (now.count != l->count || now.first != l->top)
        return false;
    for (size_t k = 0; k < l->n; k++)
        if (l->items[k].id == (uint64_t)i)
            return l->same[k] && tree_element_info_copy(l->same[k], out);
    return false;
}

/* The items node i of prev (a list or tree view) listed, with the items holding them
 * and, where same says an item's row looks as it did, what it was. */
static void add_listing(struct win_msaa_reuse *r, const struct wa_tree *prev, const bool *same,
                        size_t i, bool tree)
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
        if (same && same[j] && (l->same[l->n] = calloc(1, sizeof **l->same)) &&
            !tree_node_info(prev, j, l->same[l->n])) {
            free(l->same[l->n]);
            l->same[l->n] = NULL;
        }
        if (tree && !(n->states & WA_ST_OFFSCREEN) && !wa_rect_empty(n->bounds) &&
            n->bounds.top < first_top) {
            first_top = n->bounds.top;
            l->first = id;
        }
        l->items[l->n++] = (struct win_cc_item){id, parent};
    }
    r->nlists++;
}

struct win_msaa_reuse *win_msaa_reuse_new(const struct wa_tree *prev, const bool *same)
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
        if (in_bar && same && same[i] && bar_pos < BAR_ITEMS_MAX &&
            (r->bar[bar_pos] = calloc(1, sizeof *r->bar[bar_pos])) &&
            !tree_node_info(prev, i, r->bar[bar_pos])) {
            free(r->bar[bar_pos]);
            r->bar[bar_pos] = NULL;
        }
        bar_pos += in_bar;
        if (n->hwnd && n->sig && !n->coll_item && tree_node_info(prev, i, &r->w[r->nw].info)) {
            r->w[r->nw].h = (HWND)(uintptr_t)n->hwnd;
            r->w[r->nw++].sig = n->sig;
        }
        bool tree = n->class_name && str_ieq(n->class_name, "SysTreeView32");
        if (n->coll.is && n->hwnd && n->class_name)
            add_listing(r, prev, same, i, tree);
    }
    qsort(r->w, r->nw, sizeof *r->w, by_hwnd);
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
    }
    free(r->lists);
    free(r->w);
    free(r);
}

void win_msaa_reuse(struct win_msaa_ctx *c, const struct win_msaa_reuse *r)
{
    c->reuse = r;
}
