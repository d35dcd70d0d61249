/* Holds on the processes behind windows: a process handle, which keeps the exit code
 * of a process that ended readable until it is closed. */
#include <windows.h>

#include "automation/win/win_process.h"
#include "automation/win/win_window.h"

wa_err win_watch_process(uint64_t hwnd, uintptr_t *watch)
{
    HWND h;
    *watch = 0;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    /* The full query right tells a debugger's hold too; a process of a higher level
     * gives the limited one only. */
    HANDLE p = pid ? OpenProcess(SYNCHRONIZE | PROCESS_QUERY_INFORMATION, FALSE, pid) : NULL;
    if (!p && pid)
        p = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (!p)
        return wa_fail(WA_E_ACTION_FAILED, "cannot hold process %lu (error %lu)",
                       (unsigned long)pid, (unsigned long)GetLastError());
    *watch = (uintptr_t)p;
    return WA_E_OK;
}

wa_err win_process_state(uintptr_t watch, struct wa_process_state *out)
{
    HANDLE p = (HANDLE)watch;
    DWORD code = 0;
    BOOL debugged = FALSE;
    out->ended = WaitForSingleObject(p, 0) == WAIT_OBJECT_0;
    if (out->ended && GetExitCodeProcess(p, &code))
        out->exit_code = code;
    out->debugged = !out->ended && CheckRemoteDebuggerPresent(p, &debugged) && debugged;
    return WA_E_OK;
}

void win_unwatch_process(uintptr_t watch)
{
    CloseHandle((HANDLE)watch);
}
