/* shellmimic.c - routes to a shell as Windows has them, for the Wine tests of the gate
 * with the shell off (tests/wine/test_shell_routes.py). Wine has no Explorer address bar
 * of Windows' make and no Windows terminals; this program shows the real Run dialog and
 * windows of the structure and files those have.
 *
 *   shellmimic.exe run TITLE     shell32's own Run dialog (RunFileDlg, as win+r and Task
 *                                Manager's "Create new task" show it), titled TITLE
 *   shellmimic.exe addressbar    "winagent file dialog": an address bar as Explorer and
 *                                the common file dialogs build it (an edit inside a
 *                                ComboBoxEx32 inside the band of class "Address Band
 *                                Root"), focused, beside a "File name" edit
 *   shellmimic.exe window TITLE  a window with one edit, focused (copied under a
 *                                terminal's name, or built with a terminal's version
 *                                resource as termmimic.exe)
 *   shellmimic.exe class CLASS TITLE   the same, of window class CLASS (copied as
 *                                ApplicationFrameHost.exe with "ApplicationFrameWindow",
 *                                a Store app's frame whose app is suspended; or under an
 *                                app's name with "Windows.UI.Core.CoreWindow", that app)
 *
 * Exit code 1 on a bad command line or when the window cannot be made.
 */
#include <windows.h>
#include <commctrl.h>
#include <wchar.h>

typedef void(WINAPI *run_file_dlg_fn)(HWND, HICON, LPCWSTR, LPCWSTR, LPCWSTR, UINT);

static HWND g_focus; /* the control the keyboard goes to, as a dialog keeps it */

static LRESULT CALLBACK plain_proc(HWND h, UINT msg, WPARAM wp, LPARAM lp)
{
    if (msg == WM_SETFOCUS && g_focus) {
        SetFocus(g_focus);
        return 0;
    }
    if (msg == WM_DESTROY)
        PostQuitMessage(0);
    return DefWindowProcW(h, msg, wp, lp);
}

static HWND child(const wchar_t *cls, const wchar_t *text, HWND parent, int x, int y, int w, int h,
                  DWORD style, int id)
{
    return CreateWindowExW(0, cls, text, WS_CHILD | WS_VISIBLE | style, x, y, w, h, parent,
                           (HMENU)(INT_PTR)id, GetModuleHandleW(NULL), NULL);
}

static int window(const wchar_t *cls, const wchar_t *title, BOOL address_bar)
{
    HINSTANCE inst = GetModuleHandleW(NULL);
    WNDCLASSW wc = {.lpfnWndProc = plain_proc,
                    .hInstance = inst,
                    .hCursor = LoadCursorW(NULL, (LPCWSTR)IDC_ARROW),
                    .hbrBackground = (HBRUSH)(COLOR_BTNFACE + 1),
                    .lpszClassName = cls};
    WNDCLASSW band = {.lpfnWndProc = DefWindowProcW,
                      .hInstance = inst,
                      .hbrBackground = (HBRUSH)(COLOR_WINDOW + 1),
                      .lpszClassName = L"Address Band Root"};
    if (!RegisterClassW(&wc) || !RegisterClassW(&band))
        return 1;
    HWND top = CreateWindowExW(0, wc.lpszClassName, title, WS_OVERLAPPEDWINDOW | WS_VISIBLE, 200,
                               150, 520, 240, NULL, NULL, inst, NULL);
    if (!top)
        return 1;
    HWND focus;
    if (address_bar) {
        INITCOMMONCONTROLSEX icc = {sizeof icc, ICC_USEREX_CLASSES};
        InitCommonControlsEx(&icc);
        HWND root = child(L"Address Band Root", L"", top, 10, 10, 480, 30, 0, 0xA005);
        HWND combo = child(WC_COMBOBOXEXW, L"", root, 0, 0, 480, 200, CBS_DROPDOWN, 0xA205);
        HWND edit = (HWND)SendMessageW(combo, CBEM_GETEDITCONTROL, 0, 0);
        child(L"Static", L"File name:", top, 10, 80, 90, 20, 0, 0);
        child(L"Edit", L"", top, 100, 78, 380, 24, WS_BORDER | ES_AUTOHSCROLL, 0x47C);
        focus = edit ? edit : combo;
    } else {
        focus = child(L"Edit", L"", top, 10, 10, 480, 150, WS_BORDER | ES_MULTILINE, 100);
    }
    g_focus = focus;
    SetForegroundWindow(top);
    SetFocus(focus);
    MSG m;
    while (GetMessageW(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageW(&m);
    }
    return 0;
}

int WINAPI wWinMain(HINSTANCE inst, HINSTANCE prev, PWSTR cmd, int show)
{
    (void)inst, (void)prev, (void)cmd, (void)show;
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (argc >= 3 && wcscmp(argv[1], L"run") == 0) {
        run_file_dlg_fn run =
            (run_file_dlg_fn)(void *)GetProcAddress(LoadLibraryW(L"shell32.dll"), (LPCSTR)61);
        if (!run)
            return 1;
        run(NULL, NULL, NULL, argv[2], L"Geben Sie den Namen eines Programms ein.", 0);
        return 0;
    }
    if (argc >= 2 && wcscmp(argv[1], L"addressbar") == 0)
        return window(L"WinagentShellMimic", L"winagent file dialog", TRUE);
    if (argc >= 3 && wcscmp(argv[1], L"window") == 0)
        return window(L"WinagentShellMimic", argv[2], FALSE);
    if (argc >= 4 && wcscmp(argv[1], L"class") == 0)
        return window(argv[2], argv[3], FALSE);
    return 1;
}
