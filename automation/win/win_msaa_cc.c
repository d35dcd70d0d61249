/* Tree view, list view and tab control items through a buffer in the target process. */
#include "automation/win/win_msaa_cc.h"

#include <commctrl.h>
#include <psapi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/win/win_utf8.h"
#include "base/dynbuf.h"
#include "base/str.h"

#define MESSAGE_MS 500  /* per message */
#define EXPAND_MS  3000 /* opening a tree item, which its program may fill meanwhile */
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
        /* A program fills the item as it opens (regedit reads HKEY_CLASSES_ROOT's hundreds
         * of keys then): more time than a message that only reads. */
        DWORD_PTR v = 0;
        if (sent && ((state & TVIS_EXPANDED) != 0) != want)
            sent = SendMessageTimeoutW(h, TVM_EXPAND, want ? TVE_EXPAND : TVE_COLLAPSE,
                                       (LPARAM)item, SMTO_ABORTIFHUNG, EXPAND_MS, &v) &&
                   send_cc(cc, NULL, h, TVM_GETITEMSTATE, (WPARAM)item, TVIS_EXPANDED, &state);
        ok = (LRESULT)v;
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

/* ---- long collections: list views and tree views ---- */

#define SLOT_CHARS 260 /* characters of text read per item or cell in a batch */
#define SLOT_BYTES (SLOT_CHARS * (int)sizeof(wchar_t))
#define BATCH_ROWS 64     /* items per batch of reads */
#define SCAN_MAX   100000 /* items a search looks at, at most */

bool win_cc_send(struct win_cc *cc, HWND h, UINT msg, WPARAM wp, LPARAM lp, LRESULT *res)
{
    return send_cc(cc, NULL, h, msg, wp, lp, res);
}

/* The answers of one sending. Answers that come after the wait still arrive on this
 * thread's next message check, into this block: it is then left allocated. */
struct answers {
    volatile LONG pending;
    struct answer {
        struct answers *all;
        LRESULT res;
    } a[];
};

static void CALLBACK take_answer(HWND h, UINT msg, ULONG_PTR data, LRESULT result)
{
    (void)h;
    (void)msg;
    struct answer *one = (struct answer *)data;
    one->res = result;
    InterlockedDecrement(&one->all->pending);
}

bool win_cc_send_all(struct win_cc *cc, HWND h, const UINT *msg, const WPARAM *wp, const LPARAM *lp,
                     LRESULT *res, size_t n)
{
    return win_send_all(cc->gate, h, msg, wp, lp, res, n);
}

bool win_send_all(struct win_gate *g, HWND h, const UINT *msg, const WPARAM *wp, const LPARAM *lp,
                  LRESULT *res, size_t n)
{
    for (size_t i = 0; i < n; i++)
        res[i] = -1;
    if (!n)
        return true;
    struct answers *b = calloc(1, sizeof *b + n * sizeof b->a[0]);
    if (!b)
        return false;
    win_gate_leave(g);
    for (size_t i = 0; i < n; i++) {
        b->a[i] = (struct answer){b, -1};
        InterlockedIncrement(&b->pending);
        if (!SendMessageCallbackW(h, msg[i], wp[i], lp[i], take_answer, (ULONG_PTR)&b->a[i]))
            InterlockedDecrement(&b->pending);
    }
    DWORD start = GetTickCount();
    MSG m;
    while (b->pending > 0) {
        PeekMessageW(&m, NULL, 0, 0, PM_NOREMOVE); /* delivers the answers */
        DWORD waited = GetTickCount() - start;
        if (b->pending <= 0 || waited >= MESSAGE_MS)
            break;
        MsgWaitForMultipleObjects(0, NULL, FALSE, MESSAGE_MS - waited, QS_SENDMESSAGE);
    }
    win_gate_enter(g);
    bool all = b->pending <= 0;
    for (size_t i = 0; i < n; i++)
        res[i] = b->a[i].res;
    if (all)
        free(b);
    return all;
}

/* A block of the target's memory for one batch of messages, and its image here. */
struct block {
    struct remote *r;
    char *remote, *local;
    size_t size;
};

static bool block_new(struct win_cc *cc, HWND h, size_t size, struct block *b)
{
    memset(b, 0, sizeof *b);
    if (!(b->r = remote_for(cc, h)) || !(b->local = calloc(1, size)))
        return false;
    b->size = size;
    b->remote = VirtualAllocEx(b->r->process, NULL, size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (!b->remote) {
        free(b->local);
        b->local = NULL;
    }
    return b->remote != NULL;
}

/* answered: every message using the block was answered (else the target may still
 * write to it, and it is left there). */
static void block_free(struct block *b, bool answered)
{
    if (b->remote && answered)
        VirtualFreeEx(b->r->process, b->remote, 0, MEM_RELEASE);
    free(b->local);
    memset(b, 0, sizeof *b);
}

static LPARAM block_at(const struct block *b, size_t off)
{
    return (LPARAM)(b->remote + off);
}

static bool block_put(const struct block *b)
{
    SIZE_T done = 0;
    return WriteProcessMemory(b->r->process, b->remote, b->local, b->size, &done) &&
           done == b->size;
}

static bool block_get(const struct block *b)
{
    SIZE_T done = 0;
    return ReadProcessMemory(b->r->process, b->remote, b->local, b->size, &done) && done == b->size;
}

/* The text a message left in a slot of the block; where the control pointed the
 * structure's pszText elsewhere in its memory instead (LVM_GETITEM and TVM_GETITEM
 * may), the text there. */
static char *slot_text(const struct block *b, size_t slot, const void *text_ptr)
{
    if (text_ptr && (const char *)text_ptr != b->remote + slot) {
        wchar_t buf[SLOT_CHARS] = {0};
        SIZE_T done = 0;
        ReadProcessMemory(b->r->process, text_ptr, buf, sizeof buf - sizeof buf[0], &done);
        return win_wide_to_utf8(buf);
    }
    const wchar_t *w = (const wchar_t *)(b->local + slot);
    return win_wide_to_utf8_n(w, (int)wcsnlen(w, SLOT_CHARS - 1));
}

/* The messages of one batch, built as its block is laid out. */
struct sends {
    UINT *msg;
    WPARAM *wp;
    LPARAM *lp;
    LRESULT *res;
    size_t n, cap;
};

static bool sends_init(struct sends *s, size_t cap)
{
    memset(s, 0, sizeof *s);
    s->msg = calloc(cap, sizeof *s->msg);
    s->wp = calloc(cap, sizeof *s->wp);
    s->lp = calloc(cap, sizeof *s->lp);
    s->res = calloc(cap, sizeof *s->res);
    s->cap = cap;
    return s->msg && s->wp && s->lp && s->res;
}

static void sends_cleanup(struct sends *s)
{
    free(s->msg);
    free(s->wp);
    free(s->lp);
    free(s->res);
    memset(s, 0, sizeof *s);
}

static size_t sends_add(struct sends *s, UINT msg, WPARAM wp, LPARAM lp)
{
    size_t i = s->n < s->cap ? s->n++ : s->cap - 1; /* sized by the caller: never full */
    s->msg[i] = msg;
    s->wp[i] = wp;
    s->lp[i] = lp;
    return i;
}

/* Whether an item's rectangle (client pixels) shows in area: more than half of it. */
static bool rect_shows(const RECT *rc, const RECT *area)
{
    RECT vis;
    return rc->right > rc->left && rc->bottom > rc->top && IntersectRect(&vis, rc, area) &&
           2 * (vis.bottom - vis.top) >= rc->bottom - rc->top;
}

/* The part of a list view's client area that shows items: below its header. */
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

static void place(HWND h, RECT rc, const RECT *area, struct tree_element_info *out)
{
    if (!rect_shows(&rc, area))
        out->states |= WA_ST_OFFSCREEN;
    if (rc.right <= rc.left || rc.bottom <= rc.top)
        return;
    MapWindowPoints(h, NULL, (POINT *)&rc, 2);
    out->bounds = (struct wa_rect){rc.left, rc.top, rc.right, rc.bottom};
}

/* ---- list views ---- */

static bool lv_view(struct win_cc *cc, HWND h, struct win_cc_view *out)
{
    UINT msg[6] = {LVM_GETITEMCOUNT, LVM_GETTOPINDEX, LVM_GETCOUNTPERPAGE,
                   LVM_GETNEXTITEM,  LVM_GETNEXTITEM, LVM_GETVIEW};
    WPARAM wp[6] = {0, 0, 0, (WPARAM)-1, (WPARAM)-1, 0};
    LPARAM lp[6] = {0, 0, 0, LVNI_FOCUSED, LVNI_SELECTED, 0};
    LRESULT r[6];
    memset(out, 0, sizeof *out);
    if (!win_cc_send_all(cc, h, msg, wp, lp, r, 6) || r[0] < 0)
        return false;
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
    struct block b;
    struct sends s;
    if (!sends_init(&s, n * (size_t)ncol + rects) ||
        !block_new(cc, h, at_rects + rects * sizeof(RECT), &b)) {
        sends_cleanup(&s);
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
                lv.stateMask = LVIS_SELECTED | LVIS_FOCUSED;
            }
            memcpy(b.local + off, &lv, sizeof lv);
            sends_add(&s, c == 0 ? LVM_GETITEMW : LVM_GETITEMTEXTW, c == 0 ? 0 : (WPARAM)i,
                      block_at(&b, off));
        }
    }
    for (size_t k = 0; k < rects; k++) {
        RECT in = {.left = LVIR_SELECTBOUNDS}; /* icon and label: where a click selects */
        memcpy(b.local + at_rects + k * sizeof(RECT), &in, sizeof in);
        sends_add(&s, LVM_GETITEMRECT, (WPARAM)(rows ? items[0].id + k : items[k].id),
                  block_at(&b, at_rects + k * sizeof(RECT)));
    }
    size_t first_rect = n * (size_t)ncol;
    bool answered = block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
    if (!answered) {
        b.r->leak = true;
    } else if (block_get(&b)) {
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
                cells[0] = slot_text(&b, k * row + sizeof(LVITEMW), first.pszText);
                if (first.state & LVIS_SELECTED)
                    out->states |= WA_ST_SELECTED;
            }
            for (int c = 1; c < ncol; c++)
                cells[c] = slot_text(&b, k * row + (size_t)c * cell + sizeof(LVITEMW), NULL);
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
                place(h, rc, &area, out);
            else
                out->states |= WA_ST_OFFSCREEN;
        }
    }
    block_free(&b, answered);
    sends_cleanup(&s);
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
    columns_cleanup(c);
    c->list = h;
    HWND hd = report ? header_of(h) : NULL;
    size_t cell = sizeof(HDITEMW) + SLOT_BYTES;
    struct block b;
    struct sends s;
    if (!hd || !sends_init(&s, COLUMNS_MAX + 1))
        return c;
    if (block_new(cc, hd, COLUMNS_MAX * cell, &b)) {
        sends_add(&s, HDM_GETITEMCOUNT, 0, 0);
        for (int i = 0; i < COLUMNS_MAX; i++) {
            HDITEMW hi = {.mask = HDI_TEXT,
                          .pszText = (LPWSTR)(b.remote + (size_t)i * cell + sizeof(HDITEMW)),
                          .cchTextMax = SLOT_CHARS};
            memcpy(b.local + (size_t)i * cell, &hi, sizeof hi);
            sends_add(&s, HDM_GETITEMW, (WPARAM)i, block_at(&b, (size_t)i * cell));
        }
        bool answered = block_put(&b) && win_cc_send_all(cc, hd, s.msg, s.wp, s.lp, s.res, s.n);
        if (answered && s.res[0] >= 2 && block_get(&b)) {
            c->count = s.res[0] > COLUMNS_MAX ? COLUMNS_MAX : (int)s.res[0];
            for (int i = 0; i < c->count; i++)
                c->names[i] = s.res[1 + i] > 0
                                  ? slot_text(&b, (size_t)i * cell + sizeof(HDITEMW), NULL)
                                  : NULL;
        }
        if (!answered)
            b.r->leak = true;
        block_free(&b, answered);
    }
    sends_cleanup(&s);
    return c;
}

static void lv_read(struct win_cc *cc, HWND h, const struct win_cc_view *view,
                    const struct win_cc_item *items, size_t n, struct tree_element_info *infos)
{
    struct win_cc_view asked;
    bool rows = view ? view->rows : lv_view(cc, h, &asked) && asked.rows;
    for (size_t k = 0; k < n; k++) {
        struct tree_element_info *out = &infos[k];
        memset(out, 0, sizeof *out);
        out->type = str_dup("ListItem");
        out->patterns = WA_PAT_SELECT;
        out->child_id = (long)items[k].id + 1;
        win_cc_item_identity(h, MSAA_ITEMS_LISTVIEW, items[k].id, out);
    }
    if (!remote_for(cc, h))
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
    struct block b;
    struct sends s;
    if (sends_init(&s, n) && block_new(cc, h, n * cell, &b)) {
        for (size_t k = 0; k < n; k++) {
            LVITEMW lv = {.pszText = (LPWSTR)(b.remote + k * cell + sizeof(LVITEMW)),
                          .cchTextMax = SLOT_CHARS};
            memcpy(b.local + k * cell, &lv, sizeof lv);
            sends_add(&s, LVM_GETITEMTEXTW, (WPARAM)(from + (int)k), block_at(&b, k * cell));
        }
        bool answered = block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t k = 0; answered && k < n && block_get(&b); k++)
            texts[k] = s.res[k] >= 0 ? slot_text(&b, k * cell + sizeof(LVITEMW), NULL) : NULL;
        if (!answered)
            b.r->leak = true;
        block_free(&b, answered);
    }
    sends_cleanup(&s);
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
    struct remote *r = remote_for(cc, h);
    size_t len = (wcslen(prefix) + 1) * sizeof *prefix, n = 0;
    if (!r || len > (size_t)(REMOTE_SIZE - OFF_TEXT))
        return 0;
    LVFINDINFOW fi = {.flags = LVFI_PARTIAL | LVFI_STRING, .psz = (LPCWSTR)(r->base + OFF_TEXT)};
    if (!put(r, OFF_TEXT, prefix, len) || !put(r, OFF_STRUCT, &fi, sizeof fi))
        return 0;
    LRESULT after = -1, found = -1;
    for (int looked = 0; n < max && looked < SCAN_MAX; looked++) {
        if (!send_cc(cc, r, h, LVM_FINDITEMW, (WPARAM)after, at(r, OFF_STRUCT), &found) ||
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
        return result(false, 0, "LVM_ENSUREVISIBLE");
    return result(true, ok, "LVM_ENSUREVISIBLE");
}

const struct win_cc_reader win_cc_list_view_reader = {
    .kind = MSAA_ITEMS_LISTVIEW,
    .view = lv_view,
    .listed = win_cc_indexed_listed,
    .read = lv_read,
    .find = lv_find,
    .show = lv_show,
};

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
    if (!sends_init(&s, max))
        return n;
    for (size_t from = 0; from < n;) {
        size_t to = n;
        s.n = 0;
        for (size_t i = from; i < to; i++)
            sends_add(&s, TVM_GETNEXTITEM, TVGN_PARENT, (LPARAM)out[i].id);
        win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t i = from; i < to; i++) {
            uint64_t parent = s.res[i - from] > 0 ? (uint64_t)s.res[i - from] : 0;
            out[i].parent = parent;
            if (parent && n < max && !listed_has(out, n, parent))
                out[n++] = (struct win_cc_item){parent, 0};
        }
        from = to;
    }
    sends_cleanup(&s);
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
    struct block b;
    struct sends s;
    if (!sends_init(&s, 2 * n) || !block_new(cc, h, n * row, &b)) {
        sends_cleanup(&s);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        size_t off = k * row;
        TVITEMEXW tv = {.mask = TVIF_TEXT | TVIF_STATE | TVIF_CHILDREN | TVIF_HANDLE,
                        .hItem = (HTREEITEM)(uintptr_t)items[k].id,
                        .stateMask = TVIS_SELECTED | TVIS_EXPANDED,
                        .pszText = (LPWSTR)(b.remote + off + sizeof(TVITEMEXW)),
                        .cchTextMax = SLOT_CHARS};
        memcpy(b.local + off, &tv, sizeof tv);
        sends_add(&s, TVM_GETITEMW, 0, block_at(&b, off));
        RECT in = {0};
        memcpy(&in, &tv.hItem, sizeof tv.hItem); /* TVM_GETITEMRECT takes the item in the RECT */
        memcpy(b.local + off + sizeof(TVITEMEXW) + SLOT_BYTES, &in, sizeof in);
        sends_add(&s, TVM_GETITEMRECT, TRUE, block_at(&b, off + sizeof(TVITEMEXW) + SLOT_BYTES));
    }
    bool answered = block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
    if (!answered) {
        b.r->leak = true;
    } else if (block_get(&b)) {
        RECT area;
        GetClientRect(h, &area);
        for (size_t k = 0; k < n; k++) {
            struct tree_element_info *out = &infos[k];
            TVITEMEXW tv;
            memcpy(&tv, b.local + k * row, sizeof tv);
            if (s.res[2 * k] > 0) {
                out->name = slot_text(&b, k * row + sizeof(TVITEMEXW), tv.pszText);
                if (tv.state & TVIS_SELECTED)
                    out->states |= WA_ST_SELECTED;
                if (tv.cChildren) {
                    out->patterns |= WA_PAT_EXPAND;
                    out->states |= (tv.state & TVIS_EXPANDED) ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
                }
            }
            RECT rc;
            memcpy(&rc, b.local + k * row + sizeof(TVITEMEXW) + SLOT_BYTES, sizeof rc);
            if (s.res[2 * k + 1] > 0)
                place(h, rc, &area, out);
            else
                out->states |= WA_ST_OFFSCREEN; /* inside a closed item */
        }
    }
    block_free(&b, answered);
    sends_cleanup(&s);
}

static void tv_read(struct win_cc *cc, HWND h, const struct win_cc_view *v,
                    const struct win_cc_item *items, size_t n, struct tree_element_info *infos)
{
    (void)v;
    for (size_t k = 0; k < n; k++) {
        struct tree_element_info *out = &infos[k];
        memset(out, 0, sizeof *out);
        out->type = str_dup("TreeItem");
        out->patterns = WA_PAT_SELECT;
        win_cc_item_identity(h, MSAA_ITEMS_TREEVIEW, items[k].id, out);
    }
    if (!remote_for(cc, h))
        return;
    for (size_t k = 0; k < n; k += BATCH_ROWS)
        tv_read_batch(cc, h, items + k, n - k < BATCH_ROWS ? n - k : BATCH_ROWS, infos + k);
}

/* The texts of n tree items, read together; texts[i] NULL where none came. */
static void tv_names(struct win_cc *cc, HWND h, const uint64_t *ids, size_t n, char **texts)
{
    size_t cell = sizeof(TVITEMEXW) + SLOT_BYTES;
    struct block b;
    struct sends s;
    if (sends_init(&s, n) && block_new(cc, h, n * cell, &b)) {
        for (size_t k = 0; k < n; k++) {
            TVITEMEXW tv = {.mask = TVIF_TEXT | TVIF_HANDLE,
                            .hItem = (HTREEITEM)(uintptr_t)ids[k],
                            .pszText = (LPWSTR)(b.remote + k * cell + sizeof(TVITEMEXW)),
                            .cchTextMax = SLOT_CHARS};
            memcpy(b.local + k * cell, &tv, sizeof tv);
            sends_add(&s, TVM_GETITEMW, 0, block_at(&b, k * cell));
        }
        bool answered = block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t k = 0; answered && k < n && block_get(&b); k++) {
            TVITEMEXW tv;
            memcpy(&tv, b.local + k * cell, sizeof tv);
            texts[k] =
                s.res[k] > 0 ? slot_text(&b, k * cell + sizeof(TVITEMEXW), tv.pszText) : NULL;
        }
        if (!answered)
            b.r->leak = true;
        block_free(&b, answered);
    }
    sends_cleanup(&s);
}

/* Every item of the tree (open or closed), level by level: the first children of a
 * level asked together, then their next siblings together, round after round. */
static size_t tv_all_items(struct win_cc *cc, HWND h, uint64_t *all, size_t cap)
{
    struct sends s;
    size_t n = 0;
    LRESULT r = 0;
    if (!sends_init(&s, cap))
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
            sends_add(&s, TVM_GETNEXTITEM, TVGN_CHILD, (LPARAM)all[i]);
        win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
        for (size_t i = 0; i < s.n; i++)
            if (s.res[i] > 0)
                cur[ncur++] = (uint64_t)s.res[i];
        while (ncur && n < cap) {
            s.n = 0;
            for (size_t i = 0; i < ncur && n < cap; i++) {
                all[n++] = cur[i];
                sends_add(&s, TVM_GETNEXTITEM, TVGN_NEXT, (LPARAM)cur[i]);
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
    sends_cleanup(&s);
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
        return result(false, 0, "TVM_ENSUREVISIBLE");
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
