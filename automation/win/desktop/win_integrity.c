/* Whether input sent now would reach a window: the secure desktop (a UAC prompt has the
 * input), and User Interface Privilege Isolation (a window of a process at a higher
 * integrity level drops input from a lower one without a word). */
#include <windows.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "automation/win/desktop/win_integrity.h"
#include "automation/win/desktop/win_window.h"

long win_token_integrity(HANDLE token)
{
    DWORD len = 0;
    GetTokenInformation(token, TokenIntegrityLevel, NULL, 0, &len);
    if (!len || len > 4096)
        return -1;
    TOKEN_MANDATORY_LABEL *label = malloc(len);
    long rid = -1;
    if (label && GetTokenInformation(token, TokenIntegrityLevel, label, len, &len)) {
        PUCHAR count = GetSidSubAuthorityCount(label->Label.Sid);
        if (count && *count > 0)
            rid = (long)*GetSidSubAuthority(label->Label.Sid, *count - 1);
    }
    free(label);
    return rid;
}

/* A process's integrity level, or -1 when it cannot be read. */
static long process_integrity(DWORD pid)
{
    HANDLE p =
        pid ? OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid) : GetCurrentProcess();
    if (!p)
        return -1;
    HANDLE token = NULL;
    long rid = -1;
    if (OpenProcessToken(p, TOKEN_QUERY, &token)) {
        rid = win_token_integrity(token);
        CloseHandle(token);
    }
    if (pid)
        CloseHandle(p);
    return rid;
}

/* The secure desktop has the input when the input desktop is Winlogon's (readable by
 * name) or cannot be opened at all for want of access (it is not ours to open). */
static bool secure_desktop(void)
{
    HDESK d = OpenInputDesktop(0, FALSE, DESKTOP_READOBJECTS);
    if (!d)
        return GetLastError() == ERROR_ACCESS_DENIED;
    wchar_t name[64] = L"";
    DWORD got = 0;
    bool winlogon = GetUserObjectInformationW(d, UOI_NAME, name, sizeof name, &got) &&
                    _wcsicmp(name, L"Winlogon") == 0;
    CloseDesktop(d);
    return winlogon;
}

wa_err win_input_reaches(uint64_t hwnd)
{
    if (secure_desktop())
        return wa_fail(WA_E_SECURE_DESKTOP, "the input desktop is the secure desktop");
    HWND h = win_hwnd(hwnd);
    DWORD pid = 0;
    if (!h || !GetWindowThreadProcessId(h, &pid) || !pid)
        return WA_E_OK;
    /* winagent's own level does not change while it runs: read once */
    static atomic_long own = -2;
    long mine = atomic_load(&own);
    if (mine == -2)
        atomic_store(&own, mine = process_integrity(0));
    long theirs = process_integrity(pid);
    if (mine >= 0 && theirs > mine)
        return wa_fail(WA_E_ELEVATED_TARGET, "its integrity level is 0x%lx, winagent's 0x%lx",
                       (unsigned long)theirs, (unsigned long)mine);
    return WA_E_OK;
}
