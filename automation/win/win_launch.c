/* Programs started: a command line run (CreateProcess, else ShellExecute) and its new
 * window found, and what a name would run (App Paths, file and protocol associations). */
#include "automation/win/win_launch.h"

#include <dwmapi.h>
#include <objbase.h>
#include <shellapi.h>
#include <shlwapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/win/win_utf8.h"
#include "automation/win/win_window.h"
#include "base/os.h"
#include "base/str.h"

/* ---- launch ---- */

/* Splits a command line into its program (quotes removed) and the rest. */
static void split_command(const wchar_t *cmd, wchar_t **prog, const wchar_t **rest)
{
    while (*cmd == L' ' || *cmd == L'\t')
        cmd++;
    const wchar_t *start = cmd, *end;
    if (*cmd == L'"') {
        start = ++cmd;
        while (*cmd && *cmd != L'"')
            cmd++;
        end = cmd;
        if (*cmd)
            cmd++;
    } else {
        while (*cmd && *cmd != L' ' && *cmd != L'\t')
            cmd++;
        end = cmd;
    }
    while (*cmd == L' ' || *cmd == L'\t')
        cmd++;
    *rest = cmd;
    size_t n = (size_t)(end - start);
    *prog = malloc((n + 1) * sizeof **prog);
    if (*prog) {
        memcpy(*prog, start, n * sizeof **prog);
        (*prog)[n] = L'\0';
    }
}

/* CreateProcessW of a path or command line; an existing file path with spaces is
 * quoted first. Returns the process handle (NULL on failure, *err set). */
static HANDLE start_process(const wchar_t *cmd, DWORD *pid, DWORD *err)
{
    size_t n = wcslen(cmd);
    wchar_t *line = malloc((n + 3) * sizeof *line); /* CreateProcessW may write to it */
    if (!line) {
        *err = ERROR_NOT_ENOUGH_MEMORY;
        return NULL;
    }
    DWORD attr = GetFileAttributesW(cmd);
    if (attr != INVALID_FILE_ATTRIBUTES && !(attr & FILE_ATTRIBUTE_DIRECTORY) && cmd[0] != L'"' &&
        wcschr(cmd, L' '))
        swprintf(line, n + 3, L"\"%ls\"", cmd);
    else
        wcscpy(line, cmd);
    STARTUPINFOW si = {
        .cb = sizeof si, .dwFlags = STARTF_USESHOWWINDOW, .wShowWindow = SW_SHOWNORMAL};
    PROCESS_INFORMATION pi;
    /* A console program gets a console of its own, not ours. */
    BOOL ok = CreateProcessW(NULL, line, NULL, NULL, FALSE,
                             CREATE_NEW_CONSOLE | CREATE_UNICODE_ENVIRONMENT, NULL, NULL, &si, &pi);
    *err = ok ? 0 : GetLastError();
    free(line);
    if (!ok)
        return NULL;
    CloseHandle(pi.hThread);
    *pid = pi.dwProcessId;
    return pi.hProcess;
}

/* ShellExecuteExW by name: App Paths registrations ("winword"), documents, URLs. */
static HANDLE shell_execute(const wchar_t *cmd, DWORD *pid, DWORD *err, bool *started)
{
    wchar_t *prog;
    const wchar_t *rest;
    split_command(cmd, &prog, &rest);
    *started = false;
    if (!prog) {
        *err = ERROR_NOT_ENOUGH_MEMORY;
        return NULL;
    }
    /* Shell extensions may use COM; initialise it on this thread if nobody has. */
    HRESULT co = CoInitializeEx(NULL, COINIT_APARTMENTTHREADED | COINIT_DISABLE_OLE1DDE);
    SHELLEXECUTEINFOW sei = {.cbSize = sizeof sei,
                             .fMask =
                                 SEE_MASK_NOCLOSEPROCESS | SEE_MASK_FLAG_NO_UI | SEE_MASK_NOASYNC,
                             .lpFile = prog,
                             .lpParameters = *rest ? rest : NULL,
                             .nShow = SW_SHOWNORMAL};
    BOOL ok = ShellExecuteExW(&sei);
    *err = ok ? 0 : GetLastError();
    if (SUCCEEDED(co))
        CoUninitialize();
    free(prog);
    if (!ok)
        return NULL;
    *started = true;
    *pid = sei.hProcess ? GetProcessId(sei.hProcess) : 0;
    return sei.hProcess; /* NULL when the shell handed over to a running program */
}

/* A window a launch may have produced. */
static bool launch_candidate(HWND h)
{
    if (!IsWindowVisible(h) || win_window_cloaked(h) || win_window_is_ours(h) ||
        win_window_is_shell(h))
        return false;
    LONG_PTR ex = GetWindowLongPtrW(h, GWL_EXSTYLE);
    if ((ex & WS_EX_TOOLWINDOW) && !(ex & WS_EX_APPWINDOW))
        return false;
    RECT r;
    return win_window_frame(h, &r) && r.right > r.left && r.bottom > r.top;
}

/* One look for the launched program's window: one of its process first; else, once
 * the process is gone or had a second to show one (launchers that hand over to
 * another process, console programs whose window belongs to conhost), a titled window
 * that was not there before the launch. */
static HWND find_launched(DWORD pid, HANDLE proc, const struct hwnd_vec *before, int64_t elapsed_ms)
{
    struct hwnd_vec now;
    if (win_window_top_level(&now))
        return NULL;
    HWND own = NULL, fresh = NULL;
    for (size_t i = 0; i < now.n && !own; i++) {
        HWND h = now.v[i];
        if (!launch_candidate(h))
            continue;
        DWORD wpid = 0;
        GetWindowThreadProcessId(h, &wpid);
        if (pid && wpid == pid)
            own = h;
        else if (!fresh && !win_window_vec_has(before, h) && win_window_listable(h))
            fresh = h;
    }
    free(now.v);
    if (own)
        return own;
    bool gone = !proc || WaitForSingleObject(proc, 0) == WAIT_OBJECT_0;
    return gone || elapsed_ms >= 1000 ? fresh : NULL;
}

wa_err win_launch(const char *command, int timeout_ms, uint64_t *hwnd)
{
    *hwnd = 0;
    if (!command || !*command)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a command");
    wchar_t *cmd = win_utf8_to_wide(command);
    if (!cmd)
        return wa_fail(WA_E_NOMEM, "out of memory");
    struct hwnd_vec before;
    wa_err e = win_window_top_level(&before);
    if (e) {
        free(cmd);
        return e;
    }
    /* Let whatever we start take the foreground even though we may not hold it. */
    AllowSetForegroundWindow(ASFW_ANY);
    int64_t t0 = os_now_ms();
    DWORD pid = 0, cp_err = 0, se_err = 0;
    bool started = false;
    HANDLE proc = start_process(cmd, &pid, &cp_err);
    if (proc)
        started = true;
    else
        proc = shell_execute(cmd, &pid, &se_err, &started);
    free(cmd);
    if (!started) {
        char m1[300], m2[300];
        e = wa_fail(WA_E_ACTION_FAILED, "cannot start '%s': CreateProcess %s; ShellExecuteEx %s",
                    command, win_error_text(cp_err, m1, sizeof m1),
                    win_error_text(se_err, m2, sizeof m2));
        goto out;
    }
    for (;;) {
        int64_t elapsed = os_now_ms() - t0;
        HWND h = find_launched(pid, proc, &before, elapsed);
        if (h) {
            *hwnd = win_handle(h);
            break;
        }
        if (elapsed >= timeout_ms)
            break;
        if (os_sleep_ms(50) == WA_E_INTERRUPTED) {
            e = wa_fail(WA_E_INTERRUPTED, "interrupted while waiting for '%s'", command);
            break;
        }
    }
out:
    if (proc)
        CloseHandle(proc);
    free(before.v);
    return e;
}

/* ---- what a launch would run ---- */

static char *wide_to_heap_utf8(const wchar_t *w)
{
    return w ? win_wide_to_utf8(w) : NULL;
}

/* A registered application name ("winword"): App Paths in HKCU, then HKLM. */
static bool app_path(const wchar_t *name, wchar_t *out, DWORD cap)
{
    wchar_t key[600];
    const wchar_t *dot = wcsrchr(name, L'.');
    swprintf(key, sizeof key / sizeof key[0],
             L"Software\\Microsoft\\Windows\\CurrentVersion\\App Paths\\%ls%ls", name,
             dot && _wcsicmp(dot, L".exe") == 0 ? L"" : L".exe");
    HKEY roots[2] = {HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE};
    for (int i = 0; i < 2; i++) {
        DWORD n = cap * sizeof *out;
        if (RegGetValueW(roots[i], key, NULL, RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ, NULL, out,
                         &n) == ERROR_SUCCESS)
            return true;
    }
    return false;
}

/* The program that opens a file (by its extension) or a protocol ("http"). */
static bool associated_program(const wchar_t *what, bool protocol, wchar_t *out, DWORD cap)
{
    DWORD n = cap;
    HRESULT hr = AssocQueryStringW(protocol ? ASSOCF_IS_PROTOCOL | ASSOCF_NOTRUNCATE
                                            : ASSOCF_INIT_IGNOREUNKNOWN | ASSOCF_NOTRUNCATE,
                                   ASSOCSTR_EXECUTABLE, what, NULL, out, &n);
    return SUCCEEDED(hr) && out[0];
}

static bool is_executable(const wchar_t *path)
{
    const wchar_t *dot = wcsrchr(path, L'.');
    return dot && (_wcsicmp(dot, L".exe") == 0 || _wcsicmp(dot, L".com") == 0);
}

wa_err win_resolve_program(const char *name, char **path, char **runs)
{
    *path = *runs = NULL;
    wchar_t *raw = win_utf8_to_wide(name);
    if (!raw)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wchar_t w[2048], found[2048], prog[2048];
    if (!ExpandEnvironmentStringsW(raw, w, sizeof w / sizeof w[0]))
        wcsncpy(w, raw, sizeof w / sizeof w[0] - 1), w[sizeof w / sizeof w[0] - 1] = 0;
    free(raw);
    wa_err e = WA_E_OK;
    DWORD attr = GetFileAttributesW(w);
    bool have = false;
    if (attr != INVALID_FILE_ATTRIBUTES) {
        have = GetFullPathNameW(w, sizeof found / sizeof found[0], found, NULL) > 0;
    } else if (!wcschr(w, L'\\') && !wcschr(w, L'/')) {
        have = SearchPathW(NULL, w, L".exe", sizeof found / sizeof found[0], found, NULL) > 0 ||
               app_path(w, found, sizeof found / sizeof found[0]);
    }
    const wchar_t *colon = wcschr(w, L':');
    bool protocol = !have && colon && colon - w >= 2;
    if (have) {
        *path = wide_to_heap_utf8(found);
        if ((attr = GetFileAttributesW(found)) != INVALID_FILE_ATTRIBUTES &&
            (attr & FILE_ATTRIBUTE_DIRECTORY))
            *runs = str_dup("explorer.exe"); /* a folder opens in a file window */
        else if (is_executable(found))
            *runs = wide_to_heap_utf8(found);
        else {
            const wchar_t *ext = wcsrchr(found, L'.');
            *runs = wide_to_heap_utf8(
                ext && associated_program(ext, false, prog, sizeof prog / sizeof prog[0]) ? prog
                                                                                          : found);
        }
    } else if (protocol) {
        wchar_t scheme[64];
        size_t n = (size_t)(colon - w) < 63 ? (size_t)(colon - w) : 63;
        wcsncpy(scheme, w, n);
        scheme[n] = 0;
        if (associated_program(scheme, true, prog, sizeof prog / sizeof prog[0]))
            *runs = wide_to_heap_utf8(prog);
        else
            e = wa_fail(WA_E_ELEMENT_NOT_FOUND, "nothing handles '%s' links here", name);
    } else {
        e = wa_fail(WA_E_ELEMENT_NOT_FOUND,
                    "no program or file named '%s' (not a path, not on the PATH, not a "
                    "registered application)",
                    name);
    }
    if (!e && ((have && !*path) || !*runs)) {
        free(*path);
        free(*runs);
        *path = *runs = NULL;
        e = wa_fail(WA_E_NOMEM, "out of memory");
    }
    return e;
}
