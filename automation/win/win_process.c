/* Holds on the processes behind windows: a process handle, which keeps the exit code
 * of a process that ended readable until it is closed; and who started whom, from a
 * Toolhelp snapshot. */
#include <windows.h>
#include <tlhelp32.h>

#include <stdio.h>
#include <stdlib.h>

#include "automation/win/win_process.h"
#include "automation/win/desktop/win_window.h"

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

/* When process pid was created, in ms of the Unix epoch (-1 when it cannot be read). */
static int64_t created_ms(DWORD pid)
{
    HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    FILETIME made, ended, kernel, user;
    int64_t ms = -1;
    if (p && GetProcessTimes(p, &made, &ended, &kernel, &user))
        ms = (int64_t)((((uint64_t)made.dwHighDateTime << 32 | made.dwLowDateTime) -
                        116444736000000000ULL) /
                       10000);
    if (p)
        CloseHandle(p);
    return ms;
}

wa_err win_started_by(unsigned long pid, int64_t since_ms, struct wa_started *out, size_t max,
                      size_t *count)
{
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return wa_fail(WA_E_ACTION_FAILED, "no process snapshot (error %lu)",
                       (unsigned long)GetLastError());
    PROCESSENTRY32W e = {.dwSize = sizeof e};
    for (BOOL more = Process32FirstW(snap, &e); more && *count < max;
         more = Process32NextW(snap, &e))
        /* a child made since: a pid reused by an old process is older than since_ms */
        if (e.th32ParentProcessID == pid && e.th32ProcessID != pid &&
            created_ms(e.th32ProcessID) >= since_ms) {
            struct wa_started *st = &out[(*count)++];
            st->pid = e.th32ProcessID;
            char *path = win_process_path(e.th32ProcessID);
            snprintf(st->path, sizeof st->path, "%s", path ? path : "");
            free(path);
        }
    CloseHandle(snap);
    return WA_E_OK;
}

wa_err win_process_parent(unsigned long pid, unsigned long *parent)
{
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return wa_fail(WA_E_ACTION_FAILED, "no process snapshot (error %lu)",
                       (unsigned long)GetLastError());
    PROCESSENTRY32W e = {.dwSize = sizeof e};
    for (BOOL more = Process32FirstW(snap, &e); more; more = Process32NextW(snap, &e))
        if (e.th32ProcessID == pid) {
            *parent = e.th32ParentProcessID;
            break;
        }
    CloseHandle(snap);
    /* a parent younger than its child is another process that took a dead one's pid */
    if (*parent && created_ms(*parent) > created_ms(pid))
        *parent = 0;
    return WA_E_OK;
}

wa_err win_wait_ready(unsigned long pid, int timeout_ms)
{
    HANDLE p = OpenProcess(PROCESS_QUERY_INFORMATION | SYNCHRONIZE, FALSE, pid);
    if (!p)
        return WA_E_OK; /* gone, or not ours to wait for */
    WaitForInputIdle(p, (DWORD)timeout_ms);
    CloseHandle(p);
    return WA_E_OK;
}
