/* keeper.c - holds the Wine test ground's desktop open between tests.
 *
 *   keeper.exe
 *
 * Wine closes a virtual desktop about a second after the last program using it ends,
 * and the next program to need one starts a new desktop process (explorer.exe) that
 * inherits that program's standard output and error. A test that reads winagent's
 * output through a pipe then waits for the end of that pipe as long as the desktop
 * lives: a hang. tests/wine/harness.sh starts this program with its output on
 * /dev/null when the ground comes up: it makes one hidden window, so it uses the
 * desktop until the ground goes down, and shows nothing. Exit code 1 when the window
 * cannot be made.
 */
#include <windows.h>

static LRESULT CALLBACK keeper_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    return DefWindowProcW(hwnd, msg, wp, lp);
}

int WINAPI wWinMain(HINSTANCE inst, HINSTANCE prev, PWSTR cmd, int show)
{
    (void)prev;
    (void)cmd;
    (void)show;
    WNDCLASSW wc = {
        .lpfnWndProc = keeper_proc, .hInstance = inst, .lpszClassName = L"WinagentKeeper"};
    if (!RegisterClassW(&wc))
        return 1;
    /* Never shown: no test sees it among the visible windows. */
    HWND h = CreateWindowExW(WS_EX_TOOLWINDOW, L"WinagentKeeper", L"winagent keeper", WS_POPUP, 0,
                             0, 1, 1, NULL, NULL, inst, NULL);
    if (!h)
        return 1;
    MSG m;
    while (GetMessageW(&m, NULL, 0, 0) > 0)
        DispatchMessageW(&m);
    return 0;
}
