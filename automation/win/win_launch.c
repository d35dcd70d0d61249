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

#include "automation/win/win_place.h"
#include "automation/win/win_program.h"
#include "automation/win/desktop/win_window.h"
#include "base/win/win_utf8.h"
#include "base/netpath.h"
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

/* CreateProcessW of a command line, or with image set of exactly that file (its
 * command line is its quoted path); an existing file path with spaces is quoted first.
 * Returns the process handle (NULL on failure, *err set). */
static HANDLE start_process(const wchar_t *cmd, bool image, DWORD *pid, DWORD *err)
{
    size_t n = wcslen(cmd);
    wchar_t *line = malloc((n + 3) * sizeof *line); /* CreateProcessW may write to it */
    if (!line) {
        *err = ERROR_NOT_ENOUGH_MEMORY;
        return NULL;
    }
    DWORD attr = image ? 0 : GetFileAttributesW(cmd);
    if (image || (attr != INVALID_FILE_ATTRIBUTES && !(attr & FILE_ATTRIBUTE_DIRECTORY) &&
                  cmd[0] != L'"' && wcschr(cmd, L' ')))
        swprintf(line, n + 3, L"\"%ls\"", cmd);
    else
        wcscpy(line, cmd);
    STARTUPINFOW si = {
        .cb = sizeof si, .dwFlags = STARTF_USESHOWWINDOW, .wShowWindow = SW_SHOWNORMAL};
    PROCESS_INFORMATION pi;
    /* A console program gets a console of its own, not ours. */
    BOOL ok = CreateProcessW(image ? cmd : NULL, line, NULL, NULL, FALSE,
                             CREATE_NEW_CONSOLE | CREATE_UNICODE_ENVIRONMENT, NULL, NULL, &si, &pi);
    *err = ok ? 0 : GetLastError();
    free(line);
    if (!ok)
        return NULL;
    CloseHandle(pi.hThread);
    *pid = pi.dwProcessId;
    return pi.hProcess;
}

/* ShellExecuteExW by name: App Paths registrations ("winword"), documents, URLs; with
 * whole set, cmd is one file (a document's whole path), never split. */
static HANDLE shell_execute(const wchar_t *cmd, bool whole, DWORD *pid, DWORD *err, bool *started)
{
    wchar_t *prog;
    const wchar_t *rest = L"";
    if (whole)
        prog = _wcsdup(cmd);
    else
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

/* Starts what kind says: exactly the image at a whole path (held open so that no one
 * changes it between the core's judgement and the start, and read again: still an
 * image), a document through its association only, or a command line. *proc is the
 * process (NULL when the shell handed the document to a running program). */
static wa_err start(enum wa_launch_kind kind, const char *what, const wchar_t *cmd, DWORD *pid,
                    HANDLE *proc)
{
    DWORD cp_err = 0, se_err = 0;
    bool started = false;
    char m1[300], m2[300];
    *proc = NULL;
    if (kind == WA_LAUNCH_PROGRAM) {
        bool image = false;
        HANDLE held = win_program_open(cmd, &image);
        if (!held)
            return wa_fail(WA_E_ACTION_FAILED, "cannot open '%s': %s", what,
                           win_error_text(GetLastError(), m1, sizeof m1));
        if (image)
            *proc = start_process(cmd, true, pid, &cp_err);
        CloseHandle(held);
        if (!image)
            return wa_fail(WA_E_DENIED,
                           "'%s' is no longer an executable image (it changed after it was "
                           "judged); nothing was started",
                           what);
        return *proc ? WA_E_OK
                     : wa_fail(WA_E_ACTION_FAILED, "cannot start '%s': CreateProcess %s", what,
                               win_error_text(cp_err, m1, sizeof m1));
    }
    if (kind == WA_LAUNCH_DOCUMENT) {
        if (win_program_is_image(cmd))
            return wa_fail(WA_E_DENIED,
                           "'%s' has become an executable image since it was judged a "
                           "document; nothing was started",
                           what);
        *proc = shell_execute(cmd, true, pid, &se_err, &started);
        return started ? WA_E_OK
                       : wa_fail(WA_E_ACTION_FAILED, "cannot open '%s': ShellExecuteEx %s", what,
                                 win_error_text(se_err, m2, sizeof m2));
    }
    if ((*proc = start_process(cmd, false, pid, &cp_err)))
        return WA_E_OK;
    *proc = shell_execute(cmd, false, pid, &se_err, &started);
    return started ? WA_E_OK
                   : wa_fail(WA_E_ACTION_FAILED,
                             "cannot start '%s': CreateProcess %s; ShellExecuteEx %s", what,
                             win_error_text(cp_err, m1, sizeof m1),
                             win_error_text(se_err, m2, sizeof m2));
}

wa_err win_launch(enum wa_launch_kind kind, const char *command, int timeout_ms, uint64_t *hwnd)
{
    *hwnd = 0;
    if (!command || !*command)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a command");
    if (kind != WA_LAUNCH_LINE && !strpbrk(command, "\\/"))
        return wa_fail(WA_E_INVALID_ARGS, "a program or document is started by its whole path");
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
    DWORD pid = 0;
    HANDLE proc = NULL;
    e = start(kind, command, cmd, &pid, &proc);
    free(cmd);
    if (e)
        goto out;
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

/* Why the whole path w (or its drive) is on a share, or NULL: asked of its spelling and
 * of its drive's device, never of the share. */
static const char *remote_path(const wchar_t *w)
{
    char *u = win_wide_to_utf8(w);
    const char *why = u ? netpath_remote(u) : "a path that cannot be read";
    free(u);
    if (!why && win_place_remote_drive(w))
        why = "a network drive";
    return why;
}

/* Appends dir (expanded, made whole) to the search list out (n used of cap) unless it is
 * on a share. */
static void add_local_dir(wchar_t *out, size_t *n, size_t cap, const wchar_t *dir)
{
    wchar_t ex[MAX_PATH * 2], full[MAX_PATH * 2];
    if (!*dir || !ExpandEnvironmentStringsW(dir, ex, MAX_PATH * 2) || remote_path(ex) ||
        !GetFullPathNameW(ex, MAX_PATH * 2, full, NULL) || remote_path(full))
        return;
    size_t m = wcslen(full);
    if (*n + m + 2 >= cap)
        return;
    if (*n)
        out[(*n)++] = L';';
    wcscpy(out + *n, full);
    *n += m;
}

/* The folders a bare name is searched in, in SearchPath's default order (this
 * program's folder, the current folder, the system folders, PATH), each only where it
 * is no share: a search is a lookup in every folder it tries. NULL: out of memory. */
static wchar_t *local_search_path(void)
{
    size_t cap = 32768, n = 0;
    wchar_t *out = malloc(cap * sizeof *out), dir[MAX_PATH * 2];
    if (!out)
        return NULL;
    out[0] = 0;
    DWORD m = GetModuleFileNameW(NULL, dir, MAX_PATH * 2);
    wchar_t *slash = m && m < MAX_PATH * 2 ? wcsrchr(dir, L'\\') : NULL;
    if (slash) {
        *slash = 0;
        add_local_dir(out, &n, cap, dir);
    }
    if (GetCurrentDirectoryW(MAX_PATH * 2, dir))
        add_local_dir(out, &n, cap, dir);
    if (GetSystemDirectoryW(dir, MAX_PATH * 2))
        add_local_dir(out, &n, cap, dir);
    if (GetWindowsDirectoryW(dir, MAX_PATH * 2))
        add_local_dir(out, &n, cap, dir);
    DWORD need = GetEnvironmentVariableW(L"PATH", NULL, 0);
    wchar_t *path = need ? malloc((need + 1) * sizeof *path) : NULL;
    if (path && GetEnvironmentVariableW(L"PATH", path, need + 1)) {
        for (wchar_t *d = path; d;) {
            wchar_t *semi = wcschr(d, L';');
            if (semi)
                *semi = 0;
            add_local_dir(out, &n, cap, d);
            d = semi ? semi + 1 : NULL;
        }
    }
    free(path);
    return out;
}

/* What the file found runs as: a folder in a file window, an executable image itself
 * (by its content, whatever its name), any other file through its association: the
 * associated program, or the file itself where the association runs it as a program
 * ("%1"); NULL when nothing is associated with it. */
static wchar_t *what_runs(const wchar_t *found, wchar_t *prog, DWORD cap)
{
    DWORD attr = GetFileAttributesW(found);
    if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
        return L"explorer.exe"; /* a folder opens in a file window */
    if (win_program_is_image(found))
        return (wchar_t *)found;
    const wchar_t *ext = wcsrchr(found, L'.');
    if (ext && wcschr(ext, L'\\'))
        ext = NULL;
    if (!ext || !associated_program(ext, false, prog, cap))
        return NULL;
    return prog[0] == L'%' ? (wchar_t *)found : prog;
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
    /* A share, spelled or reached once expanded and made whole, is never looked up. */
    bool bare = !wcschr(w, L'\\') && !wcschr(w, L'/') && !(w[0] && w[1] == L':');
    const char *remote = remote_path(w);
    found[0] = 0;
    if (!remote && !bare && GetFullPathNameW(w, sizeof found / sizeof found[0], found, NULL))
        remote = remote_path(found);
    if (remote)
        return wa_fail(WA_E_DENIED, "%ls is %s", found[0] ? found : w, remote);
    wa_err e = WA_E_OK;
    bool have = false;
    if (bare) {
        wchar_t *dirs = local_search_path();
        have = (dirs &&
                SearchPathW(dirs, w, L".exe", sizeof found / sizeof found[0], found, NULL) > 0) ||
               app_path(w, found, sizeof found / sizeof found[0]);
        free(dirs);
        if (have && (remote = remote_path(found))) /* an App Paths entry on a share */
            return wa_fail(WA_E_DENIED, "it is registered at %ls, %s", found, remote);
        wchar_t whole[2048];
        if (have && GetFullPathNameW(found, sizeof whole / sizeof whole[0], whole, NULL))
            wcscpy(found, whole);
        else
            have = false;
    } else {
        have = found[0] && GetFileAttributesW(found) != INVALID_FILE_ATTRIBUTES;
    }
    const wchar_t *colon = wcschr(w, L':');
    bool protocol = !have && colon && colon - w >= 2;
    if (have) {
        const wchar_t *r = what_runs(found, prog, sizeof prog / sizeof prog[0]);
        if (r == prog && (remote = remote_path(prog)))
            return wa_fail(WA_E_DENIED, "it opens with %ls, %s", prog, remote);
        *path = wide_to_heap_utf8(found);
        *runs = r ? wide_to_heap_utf8(r) : NULL;
        if (!r && *path)
            return WA_E_OK; /* a file nothing opens */
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
