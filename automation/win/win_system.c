/* The machine's facts for `winagent doctor`, each read the way Windows offers it, looked
 * up at run time where a call is younger than Windows 10 (and Wine may lack it). */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <uiautomationclient.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/desktop/win_integrity.h"
#include "automation/win/win_system.h"
#include "automation/win/desktop/win_tree_job.h"
#include "base/win/win_utf8.h"

#define UIA_WAIT_MS 5000

static void wide_to_text(const wchar_t *w, char *out, size_t cap)
{
    char *u = win_wide_to_utf8(w);
    if (u)
        snprintf(out, cap, "%s", u);
    free(u);
}

static bool reg_text(HKEY root, const wchar_t *key, const wchar_t *name, char *out, size_t cap)
{
    wchar_t buf[128];
    DWORD len = sizeof buf;
    if (RegGetValueW(root, key, name, RRF_RT_REG_SZ, NULL, buf, &len) != ERROR_SUCCESS)
        return false;
    wide_to_text(buf, out, cap);
    return true;
}

/* A DWORD value, or -1 when it is not set. */
static int reg_dword(HKEY root, const wchar_t *key, const wchar_t *name)
{
    DWORD v = 0, len = sizeof v;
    if (RegGetValueW(root, key, name, RRF_RT_REG_DWORD, NULL, &v, &len) != ERROR_SUCCESS)
        return -1;
    return (int)v;
}

typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *);
typedef const char *(CDECL *wine_get_version_fn)(void);

/* RtlGetVersion tells the truth where GetVersionEx answers what the manifest claims;
 * the product's name and release are the registry's. Windows 11 still calls itself
 * "Windows 10" there: its builds from 22000 on are 11. */
static void read_version(struct wa_system_info *out)
{
    static const wchar_t cv[] = L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    rtl_get_version_fn get =
        ntdll ? (rtl_get_version_fn)(void *)GetProcAddress(ntdll, "RtlGetVersion") : NULL;
    OSVERSIONINFOW v = {.dwOSVersionInfoSize = sizeof v};
    if (get && get(&v) == 0) {
        out->os_major = (int)v.dwMajorVersion;
        out->os_minor = (int)v.dwMinorVersion;
        out->os_build = (int)v.dwBuildNumber;
    }
    out->os_revision = reg_dword(HKEY_LOCAL_MACHINE, cv, L"UBR");
    reg_text(HKEY_LOCAL_MACHINE, cv, L"ProductName", out->os_name, sizeof out->os_name);
    if (!reg_text(HKEY_LOCAL_MACHINE, cv, L"DisplayVersion", out->os_release,
                  sizeof out->os_release))
        reg_text(HKEY_LOCAL_MACHINE, cv, L"ReleaseId", out->os_release, sizeof out->os_release);
    if (out->os_build >= 22000 && strncmp(out->os_name, "Windows 10", 10) == 0)
        out->os_name[9] = '1';
    wine_get_version_fn wine =
        ntdll ? (wine_get_version_fn)(void *)GetProcAddress(ntdll, "wine_get_version") : NULL;
    if (wine && wine())
        snprintf(out->wine, sizeof out->wine, "%s", wine());
}

/* The session, the console's, and the desktop that has the input (a desktop that may
 * not be opened for want of access is the secure one, as win_integrity.c judges it). */
static void read_session(struct wa_system_info *out)
{
    DWORD id = 0;
    if (ProcessIdToSessionId(GetCurrentProcessId(), &id))
        out->session = (long)id;
    DWORD console = WTSGetActiveConsoleSessionId();
    if (console != 0xFFFFFFFF)
        out->console_session = (long)console;
    out->remote = GetSystemMetrics(SM_REMOTESESSION) != 0;
    HDESK d = OpenInputDesktop(0, FALSE, DESKTOP_READOBJECTS);
    if (!d) {
        if (GetLastError() == ERROR_ACCESS_DENIED)
            snprintf(out->input_desktop, sizeof out->input_desktop, "Winlogon");
        return;
    }
    wchar_t name[64] = L"";
    DWORD got = 0;
    if (GetUserObjectInformationW(d, UOI_NAME, name, sizeof name, &got))
        wide_to_text(name, out->input_desktop, sizeof out->input_desktop);
    CloseDesktop(d);
}

static void read_token(struct wa_system_info *out)
{
    HANDLE token = NULL;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        return;
    out->integrity = win_token_integrity(token);
    DWORD v = 0, len = 0;
    TOKEN_ELEVATION el = {0};
    if (GetTokenInformation(token, TokenElevation, &el, sizeof el, &len))
        out->elevated = el.TokenIsElevated != 0;
    if (GetTokenInformation(token, TokenUIAccess, &v, sizeof v, &len))
        out->uiaccess = v != 0;
    CloseHandle(token);
}

typedef HANDLE(WINAPI *thread_dpi_context_fn)(void);
typedef int(WINAPI *awareness_from_context_fn)(HANDLE);
typedef BOOL(WINAPI *contexts_equal_fn)(HANDLE, HANDLE);
typedef HRESULT(WINAPI *process_dpi_awareness_fn)(HANDLE, int *);

/* The thread's DPI awareness context (Windows 10 1607+), else the process's (8.1+,
 * shcore), else Vista's yes or no. */
static void read_dpi(struct wa_system_info *out)
{
    HMODULE user32 = GetModuleHandleW(L"user32.dll");
    thread_dpi_context_fn context =
        (thread_dpi_context_fn)(void *)GetProcAddress(user32, "GetThreadDpiAwarenessContext");
    awareness_from_context_fn from = (awareness_from_context_fn)(void *)GetProcAddress(
        user32, "GetAwarenessFromDpiAwarenessContext");
    contexts_equal_fn equal =
        (contexts_equal_fn)(void *)GetProcAddress(user32, "AreDpiAwarenessContextsEqual");
    if (context && from) {
        HANDLE c = context();
        int a = from(c); /* DPI_AWARENESS: 0 unaware, 1 system, 2 per monitor */
        if (a >= 0 && a <= 2) {
            out->dpi_awareness = (enum wa_dpi_awareness)(WA_DPI_UNAWARE + a);
            if (a == 2 && equal && equal(c, (HANDLE)-4 /* PER_MONITOR_AWARE_V2 */))
                out->dpi_awareness = WA_DPI_PER_MONITOR_V2;
            return;
        }
    }
    HMODULE shcore = LoadLibraryW(L"shcore.dll");
    process_dpi_awareness_fn process =
        shcore ? (process_dpi_awareness_fn)(void *)GetProcAddress(shcore, "GetProcessDpiAwareness")
               : NULL;
    int a = -1;
    if (process && SUCCEEDED(process(NULL, &a)) && a >= 0 && a <= 2)
        out->dpi_awareness = (enum wa_dpi_awareness)(WA_DPI_UNAWARE + a);
    else
        out->dpi_awareness = IsProcessDPIAware() ? WA_DPI_SYSTEM : WA_DPI_UNAWARE;
}

static void read_uac(struct wa_system_info *out)
{
    static const wchar_t key[] = L"SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Policies\\System";
    out->uac_enabled = reg_dword(HKEY_LOCAL_MACHINE, key, L"EnableLUA");
    out->consent_prompt_admin = reg_dword(HKEY_LOCAL_MACHINE, key, L"ConsentPromptBehaviorAdmin");
    out->prompt_on_secure_desktop = reg_dword(HKEY_LOCAL_MACHINE, key, L"PromptOnSecureDesktop");
}

struct uia_probe {
    int reachable;
    char detail[160];
};

/* On a worker in the MTA, as the tree walks meet it: the client object, and a cache
 * request from it (the first thing every walk asks of it). */
static wa_err probe_uia(void *arg, struct win_gate *gate)
{
    struct uia_probe *p = arg;
    IUIAutomation *uia = NULL;
    IUIAutomationCacheRequest *req = NULL;
    win_gate_leave(gate);
    HRESULT hr = CoCreateInstance(&CLSID_CUIAutomation, NULL, CLSCTX_INPROC_SERVER,
                                  &IID_IUIAutomation, (void **)&uia);
    HRESULT hr2 = SUCCEEDED(hr) && uia ? IUIAutomation_CreateCacheRequest(uia, &req) : hr;
    win_gate_enter(gate);
    if (FAILED(hr) || !uia)
        snprintf(p->detail, sizeof p->detail,
                 "CoCreateInstance(CUIAutomation) failed: HRESULT 0x%08lx%s", (unsigned long)hr,
                 hr == REGDB_E_CLASSNOTREG ? " (class not registered)" : "");
    else if (FAILED(hr2))
        snprintf(p->detail, sizeof p->detail, "CreateCacheRequest failed: HRESULT 0x%08lx",
                 (unsigned long)hr2);
    else
        snprintf(p->detail, sizeof p->detail, "CUIAutomation answers");
    p->reachable = SUCCEEDED(hr) && uia && SUCCEEDED(hr2);
    WIN_RELEASE(req);
    WIN_RELEASE(uia);
    return WA_E_OK;
}

static void read_uia(struct wa_system_info *out)
{
    struct uia_probe *p = calloc(1, sizeof *p);
    struct win_job *job = NULL;
    if (!p || win_job_start(probe_uia, p, free, &job)) {
        snprintf(out->uia_detail, sizeof out->uia_detail, "no worker thread for the check");
        return;
    }
    wa_err result = WA_E_OK;
    bool captured = false;
    if (win_job_wait(job, UIA_WAIT_MS, &result, &captured) == WA_E_OK) {
        out->uia = p->reachable;
        snprintf(out->uia_detail, sizeof out->uia_detail, "%s", p->detail);
    } else {
        out->uia = 0;
        snprintf(out->uia_detail, sizeof out->uia_detail, "no answer within %d s",
                 UIA_WAIT_MS / 1000);
    }
    win_job_release(job);
}

wa_err win_system_info(struct wa_system_info *out)
{
    read_version(out);
    read_session(out);
    read_token(out);
    read_dpi(out);
    read_uac(out);
    read_uia(out);
    return WA_E_OK;
}
