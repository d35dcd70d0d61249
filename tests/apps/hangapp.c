/* hangapp.c - a Win32 window whose UI thread stops answering: the Wine tests check that
 * a tree walk or an action on it returns within its budget. */

/*
 *   hangapp.exe [--log PATH] [--hang-after MS | --hang-on-getobject | --hang-on-gettext |
 *                --hang-on-click | --crash-on-click]
 *
 * Shows the window "winagent hangapp" (client 400x200 at 60,60) with a static label
 * "Notes:", an edit and a button "Hung button", and writes one JSON line
 *   {"event":"ready","hwnd":"0x..","pid":N}
 * to PATH (when given). Then its UI thread goes to sleep for good, answering no
 * message from then on, after writing
 *   {"event":"hanging"}
 * either MS milliseconds later (default 500), or with --hang-on-getobject only when
 * the window gets WM_GETOBJECT (an accessibility client asking for its object), or
 * with --hang-on-gettext only when the button is asked for its text (WM_GETTEXT, as
 * oleacc's standard object does inside get_accName): a hang in the middle of a call
 * into the target, after the window answered others; with --hang-on-click when the button
 * is clicked (BN_CLICKED: a program that hangs over an action), and with --crash-on-click
 * the button's click writes through a null pointer instead (a program that crashes over
 * an action: its exit code is the exception's, 0xC0000005, once Wine's debugger ends it).
 * Kill it from outside. Exit code 1 on a bad command line or when the log or the
 * window cannot be made.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

static HANDLE g_log = INVALID_HANDLE_VALUE;
static BOOL g_hang_on_getobject, g_hang_on_gettext, g_hang_on_click, g_crash_on_click;
static WNDPROC g_button_proc;

static void log_line(const char *line)
{
    if (g_log == INVALID_HANDLE_VALUE)
        return;
    DWORD n;
    WriteFile(g_log, line, (DWORD)strlen(line), &n, NULL);
    FlushFileBuffers(g_log);
}

/* A null pointer the compiler cannot see through. */
static uintptr_t lp_null(void)
{
    static volatile uintptr_t zero;
    return zero;
}

_Noreturn static void hang(void)
{
    log_line("{\"event\":\"hanging\"}\n");
    for (;;)
        Sleep(INFINITE);
}

static LRESULT CALLBACK wnd_proc(HWND h, UINT msg, WPARAM wp, LPARAM lp)
{
    switch (msg) {
    case WM_GETOBJECT:
        if (!g_hang_on_getobject)
            break;
        /* fall through */
    case WM_TIMER:
        KillTimer(h, 1);
        hang();
    case WM_COMMAND:
        if (LOWORD(wp) == 102 && HIWORD(wp) == BN_CLICKED && g_crash_on_click) {
            log_line("{\"event\":\"crashing\"}\n");
            *(volatile int *)(uintptr_t)lp_null() = 1;
        }
        if (LOWORD(wp) == 102 && HIWORD(wp) == BN_CLICKED && g_hang_on_click)
            hang();
        break;
    case WM_DESTROY:
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcW(h, msg, wp, lp);
}

static LRESULT CALLBACK button_proc(HWND h, UINT msg, WPARAM wp, LPARAM lp)
{
    if (msg == WM_GETTEXT)
        hang();
    return CallWindowProcW(g_button_proc, h, msg, wp, lp);
}

int WINAPI wWinMain(HINSTANCE inst, HINSTANCE prev, PWSTR cmd, int show)
{
    (void)prev;
    (void)cmd;
    (void)show;
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    const wchar_t *log_path = NULL;
    int hang_after = 500;
    for (int i = 1; argv && i < argc; i++) {
        if (wcscmp(argv[i], L"--log") == 0 && i + 1 < argc)
            log_path = argv[++i];
        else if (wcscmp(argv[i], L"--hang-after") == 0 && i + 1 < argc)
            hang_after = _wtoi(argv[++i]);
        else if (wcscmp(argv[i], L"--hang-on-getobject") == 0)
            g_hang_on_getobject = TRUE;
        else if (wcscmp(argv[i], L"--hang-on-gettext") == 0)
            g_hang_on_gettext = TRUE;
        else if (wcscmp(argv[i], L"--hang-on-click") == 0)
            g_hang_on_click = TRUE;
        else if (wcscmp(argv[i], L"--crash-on-click") == 0)
            g_crash_on_click = TRUE;
        else
            return 1;
    }
    if (log_path) {
        g_log = CreateFileW(log_path, FILE_APPEND_DATA,
                            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                            OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
        if (g_log == INVALID_HANDLE_VALUE)
            return 1;
    }
    WNDCLASSW wc = {.lpfnWndProc = wnd_proc,
                    .hInstance = inst,
                    .hCursor = LoadCursorW(NULL, (LPCWSTR)IDC_ARROW),
                    .hbrBackground = (HBRUSH)(COLOR_BTNFACE + 1),
                    .lpszClassName = L"WinagentHangApp"};
    if (!RegisterClassW(&wc))
        return 1;
    DWORD style = WS_OVERLAPPED | WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX;
    RECT r = {0, 0, 400, 200};
    AdjustWindowRect(&r, style, FALSE);
    HWND h = CreateWindowW(L"WinagentHangApp", L"winagent hangapp", style, 60, 60, r.right - r.left,
                           r.bottom - r.top, NULL, NULL, inst, NULL);
    if (!h)
        return 1;
    DWORD child = WS_CHILD | WS_VISIBLE;
    CreateWindowW(L"STATIC", L"Notes:", child, 20, 22, 60, 20, h, (HMENU)100, inst, NULL);
    CreateWindowW(L"EDIT", L"", child | WS_BORDER | WS_TABSTOP | ES_AUTOHSCROLL, 90, 20, 280, 24, h,
                  (HMENU)101, inst, NULL);
    HWND button = CreateWindowW(L"BUTTON", L"Hung button", child | WS_TABSTOP | BS_PUSHBUTTON, 20,
                                70, 140, 32, h, (HMENU)102, inst, NULL);
    if (g_hang_on_gettext)
        g_button_proc = (WNDPROC)SetWindowLongPtrW(button, GWLP_WNDPROC, (LONG_PTR)button_proc);
    ShowWindow(h, SW_SHOW);
    UpdateWindow(h);
    char line[128];
    snprintf(line, sizeof line, "{\"event\":\"ready\",\"hwnd\":\"0x%llx\",\"pid\":%lu}\n",
             (unsigned long long)(uintptr_t)h, (unsigned long)GetCurrentProcessId());
    log_line(line);
    if (!g_hang_on_getobject && !g_hang_on_gettext && !g_hang_on_click && !g_crash_on_click)
        SetTimer(h, 1, (UINT)(hang_after > 0 ? hang_after : 1), NULL);
    MSG m;
    while (GetMessageW(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageW(&m);
    }
    return 0;
}
