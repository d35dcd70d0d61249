/* Tree view, list view and tab control items through a buffer in the target process. */
#include "automation/win/win_msaa_cc.h"

#include <commctrl.h>
#include <psapi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/win_utf8.h"
#include "base/dynbuf.h"
#include "base/str.h"

#define MESSAGE_MS 500 /* per message */
/* The buffer: the item structure, a RECT, then the text. */
#define REMOTE_SIZE 8192
#define OFF_STRUCT  0
#define OFF_RECT    512
#define OFF_TEXT    1024
#define TEXT_CHARS  ((REMOTE_SIZE - OFF_TEXT) / (int)sizeof(wchar_t))

_Static_assert(sizeof(TVITEMEXW) <= OFF_RECT && sizeof(LVITEMW) <= OFF_RECT &&
                   sizeof(TCITEMW) <= OFF_RECT && sizeof(NMTTDISPINFOW) <= OFF_RECT &&
                   sizeof(HDITEMW) <= OFF_RECT,
               "item structures fit the buffer");

struct remote {
    DWORD pid;
    HANDLE process; /* NULL when it could not be opened (or has another bitness) */
    char *base;     /* the buffer, in the target's address space */
    bool leak;      /* a message using it timed out: the target may still write to it */
};

#define COLUMNS_MAX 8 /* report-mode columns read per list view */

/* The columns of the list view last asked about (a walk reads one list's rows in a
 * row): asked once per list, not once per row. */
struct columns {
    HWND list;
    int count;                /* 0: not in report mode, or one column only */
    char *names[COLUMNS_MAX]; /* header texts; NULL where none */
};

struct win_cc {
    struct win_gate *gate;
    struct remote procs[8];
    int count;
    struct columns cols;
};

static void columns_cleanup(struct columns *c)
{
    for (int i = 0; i < COLUMNS_MAX; i++)
        free(c->names[i]);
    memset(c, 0, sizeof *c);
}

struct win_cc *win_cc_new(struct win_gate *gate)
{
    struct win_cc *cc = calloc(1, sizeof *cc);
    if (cc)
        cc->gate = gate;
    return cc;
}

void win_cc_free(struct win_cc *cc)
{
    if (!cc)
        return;
    columns_cleanup(&cc->cols);
    for (int i = 0; i < cc->count; i++) {
        struct remote *r = &cc->procs[i];
        if (r->base && !r->leak)
            VirtualFreeEx(r->process, r->base, 0, MEM_RELEASE);
        if (r->process)
            CloseHandle(r->process);
    }
    free(cc);
}

/* The structures we write are laid out for our own bitness. */
static bool same_bitness(HANDLE p)
{
    BOOL ours = FALSE, theirs = FALSE;
    return IsWow64Process(GetCurrentProcess(), &ours) && IsWow64Process(p, &theirs) &&
           ours == theirs;
}

static struct remote *remote_for(struct win_cc *cc, HWND h)
{
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    for (int i = 0; i < cc->count; i++)
        if (cc->procs[i].pid == pid)
            return cc->procs[i].base ? &cc->procs[i] : NULL;
    if (cc->count == (int)(sizeof cc->procs / sizeof cc->procs[0]))
        return NULL;
    struct remote *r = &cc->procs[cc->count++];
    r->pid = pid;
    r->process = OpenProcess(PROCESS_VM_OPERATION | PROCESS_VM_READ | PROCESS_VM_WRITE |
                                 PROCESS_QUERY_LIMITED_INFORMATION,
                             FALSE, pid);
    if (r->process && same_bitness(r->process))
        r->base =
            VirtualAllocEx(r->process, NULL, REMOTE_SIZE, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    return r->base ? r : NULL;
}

static bool put(struct remote *r, size_t off, const void *data, size_t n)
{
    SIZE_T done = 0;
    return WriteProcessMemory(r->process, r->base + off, data, n, &done) && done == n;
}

static bool get(struct remote *r, size_t off, void *data, size_t n)
{
    SIZE_T done = 0;
    return ReadProcessMemory(r->process, r->base + off, data, n, &done) && done == n;
}

static LPARAM at(struct remote *r, size_t off)
{
    return (LPARAM)(r->base + off);
}

/* A message through the gate; false when it failed or timed out (r: its buffer, which
 * is then left to the target). */
static bool send_cc(struct win_cc *cc, struct remote *r, HWND h, UINT msg, WPARAM wp, LPARAM lp,
                    LRESULT *res)
{
    DWORD_PTR v = 0;
    win_gate_leave(cc->gate);
    LRESULT ok = SendMessageTimeoutW(h, msg, wp, lp, SMTO_ABORTIFHUNG, MESSAGE_MS, &v);
    win_gate_enter(cc->gate);
    if (!ok && r)
        r->leak = true;
    *res = (LRESULT)v;
    return ok != 0;
}

/* The text the control wrote into the buffer. */
static char *remote_text(struct remote *r)
{
    wchar_t *w = calloc(TEXT_CHARS + 1, sizeof *w);
    if (!w)
        return NULL;
    char *s = NULL;
    if (get(r, OFF_TEXT, w, (size_t)TEXT_CHARS * sizeof *w)) {
        w[TEXT_CHARS] = L'\0';
        s = win_wide_to_utf8(w);
    }
    free(w);
    return s;
}

static bool clear_text(struct remote *r)
{
    wchar_t nul = L'\0';
    return put(r, OFF_TEXT, &nul, sizeof nul);
}

static bool toolbar_button(struct win_cc *cc, struct remote *r, HWND h, int i, TBBUTTON *out)
{
    LRESULT ok = 0;
    memset(out, 0, sizeof *out);
    return put(r, OFF_STRUCT, out, sizeof *out) &&
           send_cc(cc, r, h, TB_GETBUTTON, (WPARAM)i, at(r, OFF_STRUCT), &ok) && ok &&
           get(r, OFF_STRUCT, out, sizeof *out);
}

/* The buttons that show: not separators, not hidden. */
static size_t toolbar_buttons(struct win_cc *cc, HWND h, uint64_t *out, size_t max)
{
    struct remote *r = remote_for(cc, h);
    LRESULT count = 0;
    size_t n = 0;
    if (!r || !send_cc(cc, NULL, h, TB_BUTTONCOUNT, 0, 0, &count))
        return 0;
    for (int i = 0; i < count && n < max; i++) {
        TBBUTTON b;
        if (toolbar_button(cc, r, h, i, &b) && !(b.fsStyle & BTNS_SEP) &&
            !(b.fsState & TBSTATE_HIDDEN))
            out[n++] = (uint64_t)i;
    }
    return n;
}

size_t win_cc_items(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t parent,
                    uint64_t *out, size_t max)
{
    LRESULT v = 0;
    size_t n = 0;
    if (k == MSAA_ITEMS_TREEVIEW) {
        if (parent) {
            /* Only what shows: the children of expanded items. */
            if (!send_cc(cc, NULL, h, TVM_GETITEMSTATE, (WPARAM)parent, TVIS_EXPANDED, &v) ||
                !(v & TVIS_EXPANDED))
                return 0;
        }
        if (!send_cc(cc, NULL, h, TVM_GETNEXTITEM, parent ? TVGN_CHILD : TVGN_ROOT, (LPARAM)parent,
                     &v))
            return 0;
        while (v && n < max) {
            out[n++] = (uint64_t)(uintptr_t)v;
            if (!send_cc(cc, NULL, h, TVM_GETNEXTITEM, TVGN_NEXT, v, &v))
                break;
        }
        return n;
    }
    if (k == MSAA_ITEMS_TOOLBAR)
        return toolbar_buttons(cc, h, out, max);
    if (k == MSAA_ITEMS_STATUSBAR) {
        /* One part is the bar's own text (its name already): parts from two on. */
        LRESULT simple = 0;
        if (send_cc(cc, NULL, h, SB_ISSIMPLE, 0, 0, &simple) && simple)
            return 0;
        if (!send_cc(cc, NULL, h, SB_GETPARTS, 0, 0, &v) || v < 2)
            return 0;
        for (; n < (size_t)v && n < max; n++)
            out[n] = n;
        return n;
    }
    UINT count_msg = k == MSAA_ITEMS_LISTVIEW ? LVM_GETITEMCOUNT
                     : k == MSAA_ITEMS_TAB    ? TCM_GETITEMCOUNT
                                              : 0;
    if (!count_msg || !send_cc(cc, NULL, h, count_msg, 0, 0, &v) || v <= 0)
        return 0;
    for (; n < (size_t)v && n < max; n++)
        out[n] = n;
    return n;
}

/* The item's rectangle in client pixels (from rect_msg with the RECT prepared in the
 * buffer) as screen pixels; *visible when it shows in the client area. */
static bool item_rect(struct win_cc *cc, struct remote *r, HWND h, UINT rect_msg, WPARAM wp,
                      const RECT *in, struct wa_rect *out, bool *visible)
{
    RECT rc = *in, client;
    LRESULT ok = 0;
    *visible = false;
    if (!put(r, OFF_RECT, &rc, sizeof rc) ||
        !send_cc(cc, r, h, rect_msg, wp, at(r, OFF_RECT), &ok) || !ok ||
        !get(r, OFF_RECT, &rc, sizeof rc) || rc.right <= rc.left || rc.bottom <= rc.top)
        return false;
    RECT vis;
    *visible = GetClientRect(h, &client) && IntersectRect(&vis, &rc, &client) &&
               2 * (vis.bottom - vis.top) >= rc.bottom - rc.top;
    MapWindowPoints(h, NULL, (POINT *)&rc, 2);
    *out = (struct wa_rect){rc.left, rc.top, rc.right, rc.bottom};
    return true;
}

static wa_err tree_item_info(struct win_cc *cc, struct remote *r, HWND h, HTREEITEM item,
                             struct tree_element_info *out)
{
    TVITEMEXW tv = {.mask = TVIF_TEXT | TVIF_STATE | TVIF_CHILDREN | TVIF_HANDLE,
                    .hItem = item,
                    .stateMask = TVIS_SELECTED | TVIS_EXPANDED,
                    .pszText = (LPWSTR)(r->base + OFF_TEXT),
                    .cchTextMax = TEXT_CHARS};
    LRESULT ok = 0;
    out->type = str_dup("TreeItem");
    out->patterns = WA_PAT_SELECT;
    if (put(r, OFF_STRUCT, &tv, sizeof tv) && clear_text(r) &&
        send_cc(cc, r, h, TVM_GETITEMW, 0, at(r, OFF_STRUCT), &ok) && ok &&
        get(r, OFF_STRUCT, &tv, sizeof tv)) {
        out->name = remote_text(r);
        if (tv.state & TVIS_SELECTED)
            out->states |= WA_ST_SELECTED;
        if (tv.cChildren) {
            out->patterns |= WA_PAT_EXPAND;
            out->states |= (tv.state & TVIS_EXPANDED) ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
        }
    }
    RECT in = {0};
    memcpy(&in, &item, sizeof item); /* TVM_GETITEMRECT takes the item in the RECT */
    bool visible;
    if (!item_rect(cc, r, h, TVM_GETITEMRECT, TRUE, &in, &out->bounds, &visible) || !visible)
        out->states |= WA_ST_OFFSCREEN;
    return WA_E_OK;
}

/* The list view's report-mode columns (header texts), read once per list. */
static struct columns *columns_of(struct win_cc *cc, struct remote *r, HWND h)
{
    struct columns *c = &cc->cols;
    if (c->list == h)
        return c;
    columns_cleanup(c);
    c->list = h;
    LRESULT view = 0, header = 0, n = 0, ok = 0;
    bool report = (GetWindowLongW(h, GWL_STYLE) & LVS_TYPEMASK) == LVS_REPORT;
    if (send_cc(cc, NULL, h, LVM_GETVIEW, 0, 0, &view))
        report = view == LV_VIEW_DETAILS;
    if (!report || !send_cc(cc, NULL, h, LVM_GETHEADER, 0, 0, &header) || !header ||
        !send_cc(cc, NULL, (HWND)header, HDM_GETITEMCOUNT, 0, 0, &n) || n < 2)
        return c;
    c->count = n > COLUMNS_MAX ? COLUMNS_MAX : (int)n;
    for (int i = 0; i < c->count; i++) {
        HDITEMW hd = {
            .mask = HDI_TEXT, .pszText = (LPWSTR)(r->base + OFF_TEXT), .cchTextMax = TEXT_CHARS};
        if (put(r, OFF_STRUCT, &hd, sizeof hd) && clear_text(r) &&
            send_cc(cc, r, (HWND)header, HDM_GETITEMW, (WPARAM)i, at(r, OFF_STRUCT), &ok) && ok)
            c->names[i] = remote_text(r);
    }
    return c;
}

/* A report-mode row's other cells as its value: "Type: REG_SZ; Data: hello" (each
 * cell after its column's header). NULL when the list shows one column. */
static char *row_cells(struct win_cc *cc, struct remote *r, HWND h, int i)
{
    struct columns *c = columns_of(cc, r, h);
    if (c->count < 2)
        return NULL;
    struct dynbuf b;
    dynbuf_init(&b, 4 * TEXT_CHARS);
    for (int col = 1; col < c->count; col++) {
        LVITEMW lv = {
            .iSubItem = col, .pszText = (LPWSTR)(r->base + OFF_TEXT), .cchTextMax = TEXT_CHARS};
        LRESULT len = 0;
        char *text = NULL;
        if (put(r, OFF_STRUCT, &lv, sizeof lv) && clear_text(r) &&
            send_cc(cc, r, h, LVM_GETITEMTEXTW, (WPARAM)i, at(r, OFF_STRUCT), &len))
            text = remote_text(r);
        if (col > 1)
            dynbuf_adds(&b, "; ");
        if (c->names[col] && *c->names[col])
            dynbuf_addf(&b, "%s: ", c->names[col]);
        dynbuf_adds(&b, text ? text : "");
        free(text);
    }
    char *v = dynbuf_take(&b);
    dynbuf_cleanup(&b);
    return v;
}

static wa_err list_item_info(struct win_cc *cc, struct remote *r, HWND h, int i,
                             struct tree_element_info *out)
{
    LVITEMW lv = {.mask = LVIF_TEXT | LVIF_STATE,
                  .iItem = i,
                  .stateMask = LVIS_SELECTED | LVIS_FOCUSED,
                  .pszText = (LPWSTR)(r->base + OFF_TEXT),
                  .cchTextMax = TEXT_CHARS};
    LRESULT ok = 0;
    out->type = str_dup("ListItem");
    out->patterns = WA_PAT_SELECT;
    out->child_id = i + 1;
    if (put(r, OFF_STRUCT, &lv, sizeof lv) && clear_text(r) &&
        send_cc(cc, r, h, LVM_GETITEMW, 0, at(r, OFF_STRUCT), &ok) && ok &&
        get(r, OFF_STRUCT, &lv, sizeof lv)) {
        out->name = remote_text(r);
        if (lv.state & LVIS_SELECTED)
            out->states |= WA_ST_SELECTED;
        out->value = row_cells(cc, r, h, i);
    }
    RECT in = {.left = LVIR_SELECTBOUNDS}; /* icon and label: where a click selects */
    bool visible;
    if (!item_rect(cc, r, h, LVM_GETITEMRECT, (WPARAM)i, &in, &out->bounds, &visible) || !visible)
        out->states |= WA_ST_OFFSCREEN;
    return WA_E_OK;
}

static wa_err tab_item_info(struct win_cc *cc, struct remote *r, HWND h, int i,
                            struct tree_element_info *out)
{
    TCITEMW tc = {
        .mask = TCIF_TEXT, .pszText = (LPWSTR)(r->base + OFF_TEXT), .cchTextMax = TEXT_CHARS};
    LRESULT ok = 0;
    out->type = str_dup("TabItem");
    out->patterns = WA_PAT_SELECT;
    out->child_id = i + 1;
    if (put(r, OFF_STRUCT, &tc, sizeof tc) && clear_text(r) &&
        send_cc(cc, r, h, TCM_GETITEMW, (WPARAM)i, at(r, OFF_STRUCT), &ok) && ok)
        out->name = remote_text(r);
    LRESULT cur = -1;
    if (send_cc(cc, NULL, h, TCM_GETCURSEL, 0, 0, &cur) && cur == i)
        out->states |= WA_ST_SELECTED;
    RECT in = {0};
    bool visible;
    if (!item_rect(cc, r, h, TCM_GETITEMRECT, (WPARAM)i, &in, &out->bounds, &visible) || !visible)
        out->states |= WA_ST_OFFSCREEN;
    return WA_E_OK;
}

/* A string resource of a module loaded in the target (its file opened here as data). */
static char *module_string(struct remote *r, HINSTANCE module, UINT id)
{
    wchar_t path[MAX_PATH];
    DWORD n = K32GetModuleFileNameExW(r->process, module, path, MAX_PATH);
    if (!n || n >= MAX_PATH)
        return NULL;
    HMODULE m =
        LoadLibraryExW(path, NULL, LOAD_LIBRARY_AS_DATAFILE | LOAD_LIBRARY_AS_IMAGE_RESOURCE);
    if (!m)
        return NULL;
    wchar_t buf[256];
    int len = LoadStringW(m, id, buf, 256);
    FreeLibrary(m);
    return len > 0 ? win_wide_to_utf8_n(buf, len) : NULL;
}

/* A callback tooltip's text, asked as the tooltip itself asks (TTN_GETDISPINFO, the
 * structure in the target's memory): of the toolbar, which answers from its own
 * strings or asks the window it notifies, then of its parent window. The answer is
 * the structure's own buffer, a pointer into the target, or a string resource of
 * one of its modules. */
static char *ask_dispinfo(struct win_cc *cc, struct remote *r, HWND to, HWND tips, int id)
{
    LPWSTR own = (LPWSTR)(r->base + OFF_STRUCT + offsetof(NMTTDISPINFOW, szText));
    NMTTDISPINFOW di = {.hdr = {.hwndFrom = tips, .idFrom = (UINT_PTR)id, .code = TTN_GETDISPINFOW},
                        .lpszText = own};
    LRESULT ignored;
    if (!to || !put(r, OFF_STRUCT, &di, sizeof di) ||
        !send_cc(cc, r, to, WM_NOTIFY, (WPARAM)id, at(r, OFF_STRUCT), &ignored) ||
        !get(r, OFF_STRUCT, &di, sizeof di))
        return NULL;
    if (di.lpszText == own) {
        di.szText[sizeof di.szText / sizeof di.szText[0] - 1] = L'\0';
        return win_wide_to_utf8(di.szText);
    }
    if (IS_INTRESOURCE(di.lpszText))
        return di.hinst && di.lpszText ? module_string(r, di.hinst, (UINT)(uintptr_t)di.lpszText)
                                       : NULL;
    wchar_t buf[256] = {0};
    SIZE_T done = 0;
    ReadProcessMemory(r->process, di.lpszText, buf, sizeof buf - sizeof buf[0], &done);
    return done ? win_wide_to_utf8(buf) : NULL;
}

static char *tooltip_callback_text(struct win_cc *cc, struct remote *r, HWND toolbar, HWND tips,
                                   int id)
{
    char *text = ask_dispinfo(cc, r, toolbar, tips, id);
    if (!text || !*text) {
        free(text);
        text = ask_dispinfo(cc, r, GetParent(toolbar), tips, id);
    }
    return text;
}

/* A toolbar button's name: its text, else its tooltip (most toolbars show icons): the
 * tooltip's stored text, else the text its owner gives when asked. */
static char *toolbar_name(struct win_cc *cc, struct remote *r, HWND h, int id)
{
    LRESULT len = 0, tips = 0, ignored;
    char *name = NULL;
    if (clear_text(r) && send_cc(cc, r, h, TB_GETBUTTONTEXTW, (WPARAM)id, at(r, OFF_TEXT), &len) &&
        len > 0 && len < TEXT_CHARS)
        name = remote_text(r);
    if ((!name || !*name) && send_cc(cc, NULL, h, TB_GETTOOLTIPS, 0, 0, &tips) && tips) {
        free(name);
        name = NULL;
        TOOLINFOW ti = {.cbSize = sizeof ti,
                        .hwnd = h,
                        .uId = (UINT_PTR)id,
                        .lpszText = (LPWSTR)(r->base + OFF_TEXT)};
        if (clear_text(r) && put(r, OFF_STRUCT, &ti, sizeof ti) &&
            send_cc(cc, r, (HWND)tips, TTM_GETTEXTW, TEXT_CHARS, at(r, OFF_STRUCT), &ignored))
            name = remote_text(r);
        if (!name || !*name) {
            free(name);
            name = tooltip_callback_text(cc, r, h, (HWND)tips, id);
        }
    }
    char *clean = msaa_text_to_name(name);
    free(name);
    return clean;
}

static wa_err toolbar_item_info(struct win_cc *cc, struct remote *r, HWND h, int i,
                                struct tree_element_info *out)
{
    TBBUTTON b;
    out->type = str_dup("Button");
    out->patterns = WA_PAT_INVOKE;
    out->child_id = i + 1;
    if (toolbar_button(cc, r, h, i, &b)) {
        out->name = toolbar_name(cc, r, h, b.idCommand);
        if (b.fsState & TBSTATE_CHECKED)
            out->states |= WA_ST_CHECKED;
        if (!(b.fsState & TBSTATE_ENABLED))
            out->states |= WA_ST_DISABLED;
    }
    RECT in = {0};
    bool visible;
    if (!item_rect(cc, r, h, TB_GETITEMRECT, (WPARAM)i, &in, &out->bounds, &visible) || !visible)
        out->states |= WA_ST_OFFSCREEN;
    return WA_E_OK;
}

/* A status bar part: Text named by its text (SB_GETTEXT), in its place (SB_GETRECT). */
static wa_err status_part_info(struct win_cc *cc, struct remote *r, HWND h, int i,
                               struct tree_element_info *out)
{
    LRESULT len = 0, ok = 0;
    out->type = str_dup("Text");
    out->child_id = i + 1;
    if (send_cc(cc, NULL, h, SB_GETTEXTLENGTHW, (WPARAM)i, 0, &len) && LOWORD(len) < TEXT_CHARS &&
        clear_text(r) && send_cc(cc, r, h, SB_GETTEXTW, (WPARAM)i, at(r, OFF_TEXT), &ok)) {
        char *text = remote_text(r);
        out->name = msaa_text_to_name(text);
        free(text);
    }
    RECT rc;
    if (put(r, OFF_RECT, &(RECT){0}, sizeof rc) &&
        send_cc(cc, r, h, SB_GETRECT, (WPARAM)i, at(r, OFF_RECT), &ok) && ok &&
        get(r, OFF_RECT, &rc, sizeof rc) && rc.right > rc.left) {
        MapWindowPoints(h, NULL, (POINT *)&rc, 2);
        out->bounds = (struct wa_rect){rc.left, rc.top, rc.right, rc.bottom};
    }
    return WA_E_OK;
}

wa_err win_cc_item_info(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item,
                        struct tree_element_info *out)
{
    struct remote *r = remote_for(cc, h);
    const char *type = k == MSAA_ITEMS_TREEVIEW    ? "TreeItem"
                       : k == MSAA_ITEMS_TAB       ? "TabItem"
                       : k == MSAA_ITEMS_TOOLBAR   ? "Button"
                       : k == MSAA_ITEMS_STATUSBAR ? "Text"
                                                   : "ListItem";
    if (!r) { /* another bitness, or no access: the item without its facts */
        out->type = str_dup(type);
        return WA_E_OK;
    }
    if (k == MSAA_ITEMS_TREEVIEW)
        return tree_item_info(cc, r, h, (HTREEITEM)(uintptr_t)item, out);
    if (k == MSAA_ITEMS_LISTVIEW)
        return list_item_info(cc, r, h, (int)item, out);
    if (k == MSAA_ITEMS_TOOLBAR)
        return toolbar_item_info(cc, r, h, (int)item, out);
    if (k == MSAA_ITEMS_STATUSBAR)
        return status_part_info(cc, r, h, (int)item, out);
    return tab_item_info(cc, r, h, (int)item, out);
}

static wa_err result(bool sent, LRESULT ok, const char *what)
{
    if (!sent)
        return wa_fail(WA_E_TIMEOUT, "%s: the window did not answer", what);
    return ok ? WA_E_OK : wa_fail(WA_E_ACTION_FAILED, "%s failed", what);
}

static wa_err list_select(struct win_cc *cc, HWND h, int i, const char **via)
{
    struct remote *r = remote_for(cc, h);
    if (!r)
        return wa_fail(WA_E_UNSUPPORTED, "cannot reach the list view's process");
    *via = "message:LVM_SETITEMSTATE";
    LRESULT ok = 0;
    bool sent = true;
    /* Like a click: the item alone is selected, and it has the focus. */
    if (!(GetWindowLongW(h, GWL_STYLE) & LVS_SINGLESEL)) {
        LVITEMW none = {.stateMask = LVIS_SELECTED, .state = 0};
        sent = put(r, OFF_STRUCT, &none, sizeof none) &&
               send_cc(cc, r, h, LVM_SETITEMSTATE, (WPARAM)-1, at(r, OFF_STRUCT), &ok);
    }
    LVITEMW lv = {.stateMask = LVIS_SELECTED | LVIS_FOCUSED, .state = LVIS_SELECTED | LVIS_FOCUSED};
    if (sent)
        sent = put(r, OFF_STRUCT, &lv, sizeof lv) &&
               send_cc(cc, r, h, LVM_SETITEMSTATE, (WPARAM)i, at(r, OFF_STRUCT), &ok);
    LRESULT ignored;
    if (sent && ok)
        send_cc(cc, NULL, h, LVM_ENSUREVISIBLE, (WPARAM)i, FALSE, &ignored);
    return result(sent, ok, "LVM_SETITEMSTATE");
}

wa_err win_cc_action(HWND h, enum msaa_item_class k, uint64_t item, enum wa_element_action a,
                     const char **via)
{
    LRESULT ok = 0, ignored;
    struct win_cc *cc = win_cc_new(NULL);
    if (!cc)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = WA_E__COUNT; /* no path yet */
    if (k == MSAA_ITEMS_TREEVIEW && a == WA_ACT_SELECT) {
        *via = "message:TVM_SELECTITEM";
        bool sent = send_cc(cc, NULL, h, TVM_SELECTITEM, TVGN_CARET, (LPARAM)item, &ok);
        if (sent && ok)
            send_cc(cc, NULL, h, TVM_ENSUREVISIBLE, 0, (LPARAM)item, &ignored);
        e = result(sent, ok, "TVM_SELECTITEM");
    } else if (k == MSAA_ITEMS_TREEVIEW && (a == WA_ACT_EXPAND || a == WA_ACT_COLLAPSE)) {
        /* The answer to TVM_EXPAND is unreliable (Wine's regedit expands and says 0,
         * filling the item while it is asked): the item's state says what happened. */
        *via = "message:TVM_EXPAND";
        bool want = a == WA_ACT_EXPAND;
        LRESULT state = 0;
        bool sent = send_cc(cc, NULL, h, TVM_GETITEMSTATE, (WPARAM)item, TVIS_EXPANDED, &state);
        if (sent && ((state & TVIS_EXPANDED) != 0) != want)
            sent = send_cc(cc, NULL, h, TVM_EXPAND, want ? TVE_EXPAND : TVE_COLLAPSE, (LPARAM)item,
                           &ok) &&
                   send_cc(cc, NULL, h, TVM_GETITEMSTATE, (WPARAM)item, TVIS_EXPANDED, &state);
        if (!sent)
            e = result(false, 0, "TVM_EXPAND");
        else if (((state & TVIS_EXPANDED) != 0) != want)
            e = wa_fail(WA_E_ACTION_FAILED,
                        want ? "the item has nothing to expand" : "the item did not collapse");
        else
            e = WA_E_OK;
    } else if (k == MSAA_ITEMS_LISTVIEW && a == WA_ACT_SELECT) {
        e = list_select(cc, h, (int)item, via);
    } else if (k == MSAA_ITEMS_TAB && a == WA_ACT_SELECT) {
        /* Unlike TCM_SETCURSEL, this notifies the parent (TCN_SELCHANGING/CHANGE),
         * which is what switches a property sheet's page. */
        *via = "message:TCM_SETCURFOCUS";
        bool sent = send_cc(cc, NULL, h, TCM_SETCURFOCUS, (WPARAM)item, 0, &ok);
        LRESULT cur = -1;
        if (sent && send_cc(cc, NULL, h, TCM_GETCURSEL, 0, 0, &cur) && cur != (LRESULT)item)
            e = wa_fail(WA_E_ACTION_FAILED, "the tab control kept tab %d", (int)cur + 1);
        else
            e = sent ? WA_E_OK : result(false, 0, "TCM_SETCURFOCUS");
    }
    win_cc_free(cc);
    if (e == WA_E__COUNT)
        e = wa_fail(WA_E_UNSUPPORTED, "%s do not take that action",
                    k == MSAA_ITEMS_TREEVIEW   ? "tree items"
                    : k == MSAA_ITEMS_LISTVIEW ? "list view items"
                    : k == MSAA_ITEMS_TOOLBAR  ? "toolbar buttons (click them)"
                    : k == MSAA_ITEMS_TAB      ? "tabs"
                                               : "status bar parts");
    return e;
}
