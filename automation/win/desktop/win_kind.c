/* Windows by their make: the Run dialog, address bars, shell views, the control under a point or
 * with the keyboard focus, the clipboard's owner. */
#include <windows.h>
#include <string.h>

#include "automation/win/desktop/win_kind.h"
#include "automation/win/desktop/win_window.h"

/* shell32's Run dialog (RunFileDlg) keeps its command in a combo box of this id, in
 * every language and every program that shows it (Explorer's win+r, Task Manager's
 * "Create new task", rundll32 shell32.dll,#61). */
#define RUN_DIALOG_COMMAND_ID 12298

static bool class_is(HWND h, const wchar_t *name)
{
    wchar_t cls[64];
    return GetClassNameW(h, cls, sizeof cls / sizeof cls[0]) && wcscmp(cls, name) == 0;
}

wa_err win_window_kind(uint64_t hwnd, struct wa_window_kind *out)
{
    memset(out, 0, sizeof *out);
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    HWND root = GetAncestor(h, GA_ROOT);
    HWND command = root ? GetDlgItem(root, RUN_DIALOG_COMMAND_ID) : NULL;
    out->run_dialog =
        root && class_is(root, L"#32770") && command && class_is(command, L"ComboBox");
    /* Explorer's and the file dialogs' address bar: the edit, its combo box, the
     * breadcrumbs and the go button all sit inside the band; their items inside the shell
     * view or the folder tree. One class name read per window up to the root. */
    for (HWND c = h; c; c = c == root ? NULL : GetParent(c)) {
        wchar_t cls[64];
        if (!GetClassNameW(c, cls, sizeof cls / sizeof cls[0]))
            continue;
        out->address_bar |= wcscmp(cls, L"Address Band Root") == 0;
        out->item_view |=
            wcscmp(cls, L"SHELLDLL_DefView") == 0 || wcscmp(cls, L"NamespaceTreeControl") == 0;
    }
    return WA_E_OK;
}

wa_err win_focused_control(uint64_t top, uint64_t *control)
{
    *control = 0;
    HWND h;
    wa_err e = win_window_check(top, &h);
    if (e)
        return e;
    GUITHREADINFO gi = {.cbSize = sizeof gi};
    if (GetGUIThreadInfo(GetWindowThreadProcessId(h, NULL), &gi) && gi.hwndFocus)
        *control = win_handle(gi.hwndFocus);
    return WA_E_OK;
}

wa_err win_control_at(int x, int y, uint64_t *control)
{
    POINT pt = {x, y};
    *control = win_handle(WindowFromPoint(pt));
    return WA_E_OK;
}

wa_err win_clipboard_owner(uint64_t *hwnd)
{
    *hwnd = win_handle(GetClipboardOwner());
    return WA_E_OK;
}
