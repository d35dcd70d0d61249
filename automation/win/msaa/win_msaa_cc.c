/* Tree view, list view, tab control, toolbar and status bar items, one at a time, through
 * a buffer in the target process (win_cc_buf.c), and their actions. The readers of long
 * collections are win_cc_list.c and win_cc_tree.c. */
#include "automation/win/msaa/win_msaa_cc.h"

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

#include "automation/win/msaa/win_cc_buf.h"

/* Tree view, list view and tab control items through a buffer in the target process. */
#define EXPAND_MS 3000 /* opening a tree item, which its program may fill meanwhile */

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
    win_cc_buf_columns_cleanup(&cc->cols);
    for (int i = 0; i < cc->count; i++)
        win_cc_buf_remote_done(&cc->procs[i]);
    free(cc);
}

/* The text the control wrote into the buffer. */
static char *remote_text(struct remote *r)
{
    wchar_t *w = calloc(TEXT_CHARS + 1, sizeof *w);
    if (!w)
        return NULL;
    char *s = NULL;
    if (win_cc_buf_get(r, OFF_TEXT, w, (size_t)TEXT_CHARS * sizeof *w)) {
        w[TEXT_CHARS] = L'\0';
        s = win_wide_to_utf8(w);
    }
    free(w);
    return s;
}

static bool clear_text(struct remote *r)
{
    wchar_t nul = L'\0';
    return win_cc_buf_put(r, OFF_TEXT, &nul, sizeof nul);
}

static bool toolbar_button(struct win_cc *cc, struct remote *r, HWND h, int i, TBBUTTON *out)
{
    LRESULT ok = 0;
    memset(out, 0, sizeof *out);
    return win_cc_buf_put(r, OFF_STRUCT, out, sizeof *out) &&
           win_cc_buf_send(cc, r, h, TB_GETBUTTON, (WPARAM)i, win_cc_buf_at(r, OFF_STRUCT), &ok) &&
           ok && win_cc_buf_get(r, OFF_STRUCT, out, sizeof *out);
}

/* The buttons that show: not separators, not hidden. */
static size_t toolbar_buttons(struct win_cc *cc, HWND h, uint64_t *out, size_t max)
{
    struct remote *r = win_cc_buf_remote_for(cc, h);
    LRESULT count = 0;
    size_t n = 0;
    if (!r || !win_cc_buf_send(cc, NULL, h, TB_BUTTONCOUNT, 0, 0, &count))
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
            if (!win_cc_buf_send(cc, NULL, h, TVM_GETITEMSTATE, (WPARAM)parent, TVIS_EXPANDED,
                                 &v) ||
                !(v & TVIS_EXPANDED))
                return 0;
        }
        if (!win_cc_buf_send(cc, NULL, h, TVM_GETNEXTITEM, parent ? TVGN_CHILD : TVGN_ROOT,
                             (LPARAM)parent, &v))
            return 0;
        while (v && n < max) {
            out[n++] = (uint64_t)(uintptr_t)v;
            if (!win_cc_buf_send(cc, NULL, h, TVM_GETNEXTITEM, TVGN_NEXT, v, &v))
                break;
        }
        return n;
    }
    if (k == MSAA_ITEMS_TOOLBAR)
        return toolbar_buttons(cc, h, out, max);
    if (k == MSAA_ITEMS_STATUSBAR) {
        /* One part is the bar's own text (its name already): parts from two on. */
        LRESULT simple = 0;
        if (win_cc_buf_send(cc, NULL, h, SB_ISSIMPLE, 0, 0, &simple) && simple)
            return 0;
        if (!win_cc_buf_send(cc, NULL, h, SB_GETPARTS, 0, 0, &v) || v < 2)
            return 0;
        for (; n < (size_t)v && n < max; n++)
            out[n] = n;
        return n;
    }
    UINT count_msg = k == MSAA_ITEMS_LISTVIEW ? LVM_GETITEMCOUNT
                     : k == MSAA_ITEMS_TAB    ? TCM_GETITEMCOUNT
                                              : 0;
    if (!count_msg || !win_cc_buf_send(cc, NULL, h, count_msg, 0, 0, &v) || v <= 0)
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
    if (!win_cc_buf_put(r, OFF_RECT, &rc, sizeof rc) ||
        !win_cc_buf_send(cc, r, h, rect_msg, wp, win_cc_buf_at(r, OFF_RECT), &ok) || !ok ||
        !win_cc_buf_get(r, OFF_RECT, &rc, sizeof rc) || rc.right <= rc.left || rc.bottom <= rc.top)
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
                    .stateMask = TVIS_SELECTED | TVIS_EXPANDED | TVIS_STATEIMAGEMASK,
                    .pszText = (LPWSTR)(r->base + OFF_TEXT),
                    .cchTextMax = TEXT_CHARS};
    LRESULT ok = 0;
    out->type = str_dup("TreeItem");
    out->patterns = WA_PAT_SELECT;
    if (win_cc_buf_put(r, OFF_STRUCT, &tv, sizeof tv) && clear_text(r) &&
        win_cc_buf_send(cc, r, h, TVM_GETITEMW, 0, win_cc_buf_at(r, OFF_STRUCT), &ok) && ok &&
        win_cc_buf_get(r, OFF_STRUCT, &tv, sizeof tv)) {
        out->name = remote_text(r);
        if (tv.state & TVIS_SELECTED)
            out->states |= WA_ST_SELECTED;
        win_cc_buf_check_box(tv.state, out);
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
    win_cc_buf_columns_cleanup(c);
    c->list = h;
    LRESULT view = 0, header = 0, n = 0, ok = 0;
    bool report = (GetWindowLongW(h, GWL_STYLE) & LVS_TYPEMASK) == LVS_REPORT;
    if (win_cc_buf_send(cc, NULL, h, LVM_GETVIEW, 0, 0, &view))
        report = view == LV_VIEW_DETAILS;
    if (!report || !win_cc_buf_send(cc, NULL, h, LVM_GETHEADER, 0, 0, &header) || !header ||
        !win_cc_buf_send(cc, NULL, (HWND)header, HDM_GETITEMCOUNT, 0, 0, &n) || n < 2)
        return c;
    c->count = n > COLUMNS_MAX ? COLUMNS_MAX : (int)n;
    for (int i = 0; i < c->count; i++) {
        HDITEMW hd = {
            .mask = HDI_TEXT, .pszText = (LPWSTR)(r->base + OFF_TEXT), .cchTextMax = TEXT_CHARS};
        if (win_cc_buf_put(r, OFF_STRUCT, &hd, sizeof hd) && clear_text(r) &&
            win_cc_buf_send(cc, r, (HWND)header, HDM_GETITEMW, (WPARAM)i,
                            win_cc_buf_at(r, OFF_STRUCT), &ok) &&
            ok)
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
        if (win_cc_buf_put(r, OFF_STRUCT, &lv, sizeof lv) && clear_text(r) &&
            win_cc_buf_send(cc, r, h, LVM_GETITEMTEXTW, (WPARAM)i, win_cc_buf_at(r, OFF_STRUCT),
                            &len))
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
                  .stateMask = LVIS_SELECTED | LVIS_FOCUSED | LVIS_STATEIMAGEMASK,
                  .pszText = (LPWSTR)(r->base + OFF_TEXT),
                  .cchTextMax = TEXT_CHARS};
    LRESULT ok = 0;
    out->type = str_dup("ListItem");
    out->patterns = WA_PAT_SELECT;
    out->child_id = i + 1;
    if (win_cc_buf_put(r, OFF_STRUCT, &lv, sizeof lv) && clear_text(r) &&
        win_cc_buf_send(cc, r, h, LVM_GETITEMW, 0, win_cc_buf_at(r, OFF_STRUCT), &ok) && ok &&
        win_cc_buf_get(r, OFF_STRUCT, &lv, sizeof lv)) {
        out->name = remote_text(r);
        if (lv.state & LVIS_SELECTED)
            out->states |= WA_ST_SELECTED;
        win_cc_buf_check_box(lv.state, out);
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
    if (win_cc_buf_put(r, OFF_STRUCT, &tc, sizeof tc) && clear_text(r) &&
        win_cc_buf_send(cc, r, h, TCM_GETITEMW, (WPARAM)i, win_cc_buf_at(r, OFF_STRUCT), &ok) && ok)
        out->name = remote_text(r);
    LRESULT cur = -1;
    if (win_cc_buf_send(cc, NULL, h, TCM_GETCURSEL, 0, 0, &cur) && cur == i)
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
    if (!to || !win_cc_buf_put(r, OFF_STRUCT, &di, sizeof di) ||
        !win_cc_buf_send(cc, r, to, WM_NOTIFY, (WPARAM)id, win_cc_buf_at(r, OFF_STRUCT),
                         &ignored) ||
        !win_cc_buf_get(r, OFF_STRUCT, &di, sizeof di))
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
    if (clear_text(r) &&
        win_cc_buf_send(cc, r, h, TB_GETBUTTONTEXTW, (WPARAM)id, win_cc_buf_at(r, OFF_TEXT),
                        &len) &&
        len > 0 && len < TEXT_CHARS)
        name = remote_text(r);
    if ((!name || !*name) && win_cc_buf_send(cc, NULL, h, TB_GETTOOLTIPS, 0, 0, &tips) && tips) {
        free(name);
        name = NULL;
        TOOLINFOW ti = {.cbSize = sizeof ti,
                        .hwnd = h,
                        .uId = (UINT_PTR)id,
                        .lpszText = (LPWSTR)(r->base + OFF_TEXT)};
        if (clear_text(r) && win_cc_buf_put(r, OFF_STRUCT, &ti, sizeof ti) &&
            win_cc_buf_send(cc, r, (HWND)tips, TTM_GETTEXTW, TEXT_CHARS,
                            win_cc_buf_at(r, OFF_STRUCT), &ignored))
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
    if (win_cc_buf_send(cc, NULL, h, SB_GETTEXTLENGTHW, (WPARAM)i, 0, &len) &&
        LOWORD(len) < TEXT_CHARS && clear_text(r) &&
        win_cc_buf_send(cc, r, h, SB_GETTEXTW, (WPARAM)i, win_cc_buf_at(r, OFF_TEXT), &ok)) {
        char *text = remote_text(r);
        out->name = msaa_text_to_name(text);
        free(text);
    }
    RECT rc;
    if (win_cc_buf_put(r, OFF_RECT, &(RECT){0}, sizeof rc) &&
        win_cc_buf_send(cc, r, h, SB_GETRECT, (WPARAM)i, win_cc_buf_at(r, OFF_RECT), &ok) && ok &&
        win_cc_buf_get(r, OFF_RECT, &rc, sizeof rc) && rc.right > rc.left) {
        MapWindowPoints(h, NULL, (POINT *)&rc, 2);
        out->bounds = (struct wa_rect){rc.left, rc.top, rc.right, rc.bottom};
    }
    return WA_E_OK;
}

wa_err win_cc_item_info(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item,
                        struct tree_element_info *out)
{
    struct remote *r = win_cc_buf_remote_for(cc, h);
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

static wa_err list_select(struct win_cc *cc, HWND h, int i, const char **via)
{
    struct remote *r = win_cc_buf_remote_for(cc, h);
    if (!r)
        return wa_fail(WA_E_UNSUPPORTED, "cannot reach the list view's process");
    *via = "message:LVM_SETITEMSTATE";
    LRESULT ok = 0;
    bool sent = true;
    /* Like a click: the item alone is selected, and it has the focus. */
    if (!(GetWindowLongW(h, GWL_STYLE) & LVS_SINGLESEL)) {
        LVITEMW none = {.stateMask = LVIS_SELECTED, .state = 0};
        sent = win_cc_buf_put(r, OFF_STRUCT, &none, sizeof none) &&
               win_cc_buf_send(cc, r, h, LVM_SETITEMSTATE, (WPARAM)-1, win_cc_buf_at(r, OFF_STRUCT),
                               &ok);
    }
    LVITEMW lv = {.stateMask = LVIS_SELECTED | LVIS_FOCUSED, .state = LVIS_SELECTED | LVIS_FOCUSED};
    if (sent)
        sent = win_cc_buf_put(r, OFF_STRUCT, &lv, sizeof lv) &&
               win_cc_buf_send(cc, r, h, LVM_SETITEMSTATE, (WPARAM)i, win_cc_buf_at(r, OFF_STRUCT),
                               &ok);
    LRESULT ignored;
    if (sent && ok)
        win_cc_buf_send(cc, NULL, h, LVM_ENSUREVISIBLE, (WPARAM)i, FALSE, &ignored);
    return win_cc_buf_result(sent, ok, "LVM_SETITEMSTATE");
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
        /* The owner may build a whole page as the selection changes (PuTTY's settings
         * panels): the time an expand gets. */
        *via = "message:TVM_SELECTITEM";
        DWORD_PTR v = 0;
        bool sent = SendMessageTimeoutW(h, TVM_SELECTITEM, TVGN_CARET, (LPARAM)item,
                                        SMTO_ABORTIFHUNG, EXPAND_MS, &v) != 0;
        ok = (LRESULT)v;
        if (sent && ok)
            win_cc_buf_send(cc, NULL, h, TVM_ENSUREVISIBLE, 0, (LPARAM)item, &ignored);
        e = win_cc_buf_result(sent, ok, "TVM_SELECTITEM");
    } else if (k == MSAA_ITEMS_TREEVIEW && (a == WA_ACT_EXPAND || a == WA_ACT_COLLAPSE)) {
        /* The answer to TVM_EXPAND is unreliable (Wine's regedit expands and says 0,
         * filling the item while it is asked): the item's state says what happened. */
        *via = "message:TVM_EXPAND";
        bool want = a == WA_ACT_EXPAND;
        LRESULT state = 0;
        bool sent =
            win_cc_buf_send(cc, NULL, h, TVM_GETITEMSTATE, (WPARAM)item, TVIS_EXPANDED, &state);
        /* A program fills the item as it opens (regedit reads HKEY_CLASSES_ROOT's hundreds
         * of keys then): more time than a message that only reads. */
        DWORD_PTR v = 0;
        if (sent && ((state & TVIS_EXPANDED) != 0) != want)
            sent =
                SendMessageTimeoutW(h, TVM_EXPAND, want ? TVE_EXPAND : TVE_COLLAPSE, (LPARAM)item,
                                    SMTO_ABORTIFHUNG, EXPAND_MS, &v) &&
                win_cc_buf_send(cc, NULL, h, TVM_GETITEMSTATE, (WPARAM)item, TVIS_EXPANDED, &state);
        ok = (LRESULT)v;
        if (!sent)
            e = win_cc_buf_result(false, 0, "TVM_EXPAND");
        else if (((state & TVIS_EXPANDED) != 0) != want) /* read back: it did not change */
            e = wa_fail(WA_E_NOT_VERIFIED,
                        want ? "the item is still collapsed (it has nothing to expand)"
                             : "the item is still expanded: it did not collapse");
        else
            e = WA_E_OK;
    } else if (k == MSAA_ITEMS_LISTVIEW && a == WA_ACT_SELECT) {
        e = list_select(cc, h, (int)item, via);
    } else if (k == MSAA_ITEMS_TAB && a == WA_ACT_SELECT) {
        /* Unlike TCM_SETCURSEL, this notifies the parent (TCN_SELCHANGING/CHANGE),
         * which is what switches a property sheet's page. */
        *via = "message:TCM_SETCURFOCUS";
        bool sent = win_cc_buf_send(cc, NULL, h, TCM_SETCURFOCUS, (WPARAM)item, 0, &ok);
        LRESULT cur = -1;
        if (sent && win_cc_buf_send(cc, NULL, h, TCM_GETCURSEL, 0, 0, &cur) && cur != (LRESULT)item)
            e = wa_fail(WA_E_NOT_VERIFIED, "the tab control kept tab %d", (int)cur + 1);
        else
            e = sent ? WA_E_OK : win_cc_buf_result(false, 0, "TCM_SETCURFOCUS");
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
