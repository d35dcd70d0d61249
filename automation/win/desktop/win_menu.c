/* Menus through the menu functions, and a thread's open popup menus. */
#include "automation/win/desktop/win_menu.h"

#include <stdlib.h>
#include <string.h>

#include "base/win/win_utf8.h"
#include "base/str.h"

#define MENU_MS       500 /* MN_GETHMENU's timeout */
#define MENU_TEXT_MAX 512 /* UTF-16 units of an item's text */
#define OPENER_DEPTH  4   /* submenu levels searched for the item that opens a menu */

size_t win_menu_popups(HWND root, HWND *out, size_t max)
{
    DWORD tid = GetWindowThreadProcessId(root, NULL);
    HWND found[WIN_MENU_POPUPS_MAX];
    size_t n = 0;
    if (!tid)
        return 0;
    /* Z order, topmost first: the last submenu opened comes first. */
    for (HWND h = FindWindowExW(NULL, NULL, L"#32768", NULL); h && n < WIN_MENU_POPUPS_MAX;
         h = FindWindowExW(NULL, h, L"#32768", NULL))
        if (h != root && IsWindowVisible(h) && GetWindowThreadProcessId(h, NULL) == tid)
            found[n++] = h;
    size_t k = 0;
    for (size_t i = n; i > 0 && k < max; i--)
        out[k++] = found[i - 1];
    return k;
}

HMENU win_menu_of_popup(HWND popup, struct win_gate *gate)
{
    DWORD_PTR r = 0;
    win_gate_leave(gate);
    LRESULT ok = SendMessageTimeoutW(popup, MN_GETHMENU, 0, 0, SMTO_ABORTIFHUNG, MENU_MS, &r);
    win_gate_enter(gate);
    return ok && r ? (HMENU)r : NULL;
}

int win_menu_count(HMENU menu)
{
    return menu && IsMenu(menu) ? GetMenuItemCount(menu) : -1;
}

/* The item's raw text ("Save &as...\tCtrl+Shift+S"), UTF-8; NULL when none. */
static char *item_text(HMENU menu, int pos)
{
    wchar_t buf[MENU_TEXT_MAX];
    MENUITEMINFOW mi = {.cbSize = sizeof mi, .fMask = MIIM_STRING};
    mi.dwTypeData = buf;
    mi.cch = MENU_TEXT_MAX - 1;
    if (!GetMenuItemInfoW(menu, (UINT)pos, TRUE, &mi))
        return NULL;
    buf[mi.cch < MENU_TEXT_MAX ? mi.cch : MENU_TEXT_MAX - 1] = L'\0';
    return win_wide_to_utf8(buf);
}

void win_menu_item_info(HWND owner, HMENU menu, int pos, struct tree_element_info *out)
{
    MENUITEMINFOW mi = {.cbSize = sizeof mi, .fMask = MIIM_FTYPE | MIIM_STATE | MIIM_SUBMENU};
    bool got = GetMenuItemInfoW(menu, (UINT)pos, TRUE, &mi) != 0;
    bool separator = got && (mi.fType & MFT_SEPARATOR);
    out->type = str_dup(separator ? "Separator" : "MenuItem");
    if (!separator) {
        out->name = item_text(menu, pos);
        tree_menu_item_text(out, true);
        out->patterns = WA_PAT_INVOKE;
    }
    if (got && (mi.fState & MFS_DISABLED))
        out->states |= WA_ST_DISABLED;
    if (got && (mi.fState & MFS_CHECKED))
        out->states |= WA_ST_CHECKED;
    if (got && mi.hSubMenu) {
        out->patterns |= WA_PAT_EXPAND;
        out->states |= WA_ST_COLLAPSED;
    }
    RECT r;
    if (GetMenuItemRect(owner, menu, (UINT)pos, &r) && r.right > r.left && r.bottom > r.top)
        out->bounds = (struct wa_rect){r.left, r.top, r.right, r.bottom};
    out->child_id = pos + 1;
}

static char *opener_below(HMENU menu, HMENU sub, int depth)
{
    int n = win_menu_count(menu);
    for (int i = 0; i < n; i++) {
        HMENU s = GetSubMenu(menu, i);
        if (!s)
            continue;
        if (s == sub) {
            struct tree_element_info info = {.name = item_text(menu, i)};
            tree_menu_item_text(&info, true);
            char *name = info.name;
            info.name = NULL;
            tree_element_info_cleanup(&info);
            return name;
        }
        char *name = depth > 1 ? opener_below(s, sub, depth - 1) : NULL;
        if (name)
            return name;
    }
    return NULL;
}

char *win_menu_opener_name(HWND root, HMENU sub)
{
    HMENU bar = GetMenu(root);
    return bar && sub ? opener_below(bar, sub, OPENER_DEPTH) : NULL;
}
