/* Menus through the Win32 menu functions, and the open popup menus (#32768 windows)
 * of a window's thread. On Windows the menu functions read another process's menus;
 * under Wine 8 they read only the caller's own (GetMenuItemCount answers -1), so every
 * caller treats "not readable" as an answer, not an error. */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_MENU_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_MENU_H

#include <windows.h>
#include <stdbool.h>
#include <stddef.h>

#include "automation/tree.h"
#include "automation/win/desktop/win_tree_job.h"

#define WIN_MENU_POPUPS_MAX 8 /* open popups listed per window: a menu and its submenus */

/* The visible popup menu windows of root's thread (drop-downs, submenus, context
 * menus), in the order they opened (the bottom of the Z order first). The count. */
size_t win_menu_popups(HWND root, HWND *out, size_t max);

/* The menu a popup window shows (MN_GETHMENU through the gate, with a timeout); NULL
 * when it does not answer. */
HMENU win_menu_of_popup(HWND popup, struct win_gate *gate);

/* The number of items of a menu, or -1 when the menu functions cannot read it. */
int win_menu_count(HMENU menu);

/* Item `pos` of `menu`: MenuItem (or Separator) with its text as name ('&' removed),
 * the text after a tab as accelerator, disabled and checked, collapsed for an item
 * that opens a submenu, and its bounds (GetMenuItemRect: owner is the window of a menu
 * bar, NULL for a popup menu). */
void win_menu_item_info(HWND owner, HMENU menu, int pos, struct tree_element_info *out);

/* The name of the item of root's menu bar (or of one of its submenus) that opens
 * `sub` ('&' and accelerator removed), as UTF-8; NULL when none does or it cannot be
 * read. */
char *win_menu_opener_name(HWND root, HMENU sub);

#endif
