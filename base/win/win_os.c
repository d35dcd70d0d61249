/* base/os.h for Windows: UTF-8 paths through the W APIs, console control events,
 * and parent-death detection through the stdin pipe. */
#include <windows.h>
#include <aclapi.h>
#include <bcrypt.h>
#include <fcntl.h>
#include <io.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/win/win_utf8.h"
#include "base/os.h"
#include "base/str.h"

static HANDLE interrupt_event; /* manual-reset; set on any interrupt, wakes os_sleep_ms */

static void interrupt_set(int reason)
{
    os_interrupt_mark(reason);
    if (interrupt_event)
        SetEvent(interrupt_event);
}

/* QueryPerformanceCounter: GetTickCount64 moves in 10-16 ms steps, too coarse for the
 * per-phase timings of a step. */
double os_clock_ms(void)
{
    static LARGE_INTEGER freq;
    LARGE_INTEGER now;
    if (!freq.QuadPart)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    return (double)now.QuadPart * 1000.0 / (double)freq.QuadPart;
}

int64_t os_now_ms(void)
{
    return (int64_t)os_clock_ms();
}

int64_t os_time_ms(void)
{
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    ULARGE_INTEGER u = {.LowPart = ft.dwLowDateTime, .HighPart = ft.dwHighDateTime};
    return (int64_t)(u.QuadPart / 10000ULL) - 11644473600000LL;
}

/* Splits ms into fields, in local time or UTC. */
static void split_time(int64_t ms, bool local, struct os_tm *out)
{
    ULARGE_INTEGER u;
    u.QuadPart = (ULONGLONG)(ms + 11644473600000LL) * 10000ULL;
    FILETIME ft = {.dwLowDateTime = u.LowPart, .dwHighDateTime = u.HighPart}, lt;
    SYSTEMTIME st;
    if (local && FileTimeToLocalFileTime(&ft, &lt))
        ft = lt;
    FileTimeToSystemTime(&ft, &st);
    out->year = st.wYear;
    out->month = st.wMonth;
    out->day = st.wDay;
    out->hour = st.wHour;
    out->min = st.wMinute;
    out->sec = st.wSecond;
    out->msec = st.wMilliseconds;
}

void os_local_time(int64_t ms, struct os_tm *out)
{
    split_time(ms, true, out);
}

void os_utc_time(int64_t ms, struct os_tm *out)
{
    split_time(ms, false, out);
}

wa_err os_sleep_ms(int ms)
{
    if (os_interrupted())
        return WA_E_INTERRUPTED;
    if (!interrupt_event) {
        Sleep(ms > 0 ? (DWORD)ms : 0);
        return os_interrupted() ? WA_E_INTERRUPTED : WA_E_OK;
    }
    DWORD rc = WaitForSingleObject(interrupt_event, ms > 0 ? (DWORD)ms : 0);
    return rc == WAIT_OBJECT_0 ? WA_E_INTERRUPTED : WA_E_OK;
}

static BOOL WINAPI on_console_ctrl(DWORD type)
{
    (void)type; /* Ctrl+C, Ctrl+Break, console close, logoff, shutdown */
    interrupt_set(OS_INTERRUPT_CTRL_C);
    return TRUE;
}

static DWORD WINAPI stdin_watch(LPVOID arg)
{
    HANDLE in = (HANDLE)arg;
    char buf[256];
    DWORD got;
    for (;;) {
        if (ReadFile(in, buf, sizeof buf, &got, NULL) && got > 0)
            continue;
        /* End of file or an error: the parent is gone unless the pipe can still be
         * peeked (a read cut short while the writer still holds its end). */
        if (GetLastError() == ERROR_BROKEN_PIPE || !PeekNamedPipe(in, NULL, 0, NULL, NULL, NULL))
            break;
        Sleep(10);
    }
    interrupt_set(OS_INTERRUPT_STDIN);
    return 0;
}

bool os_stdin_is_console(void)
{
    DWORD mode;
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
    return in && in != INVALID_HANDLE_VALUE && GetFileType(in) == FILE_TYPE_CHAR &&
           GetConsoleMode(in, &mode);
}

void os_interrupt_install(bool watch_stdin)
{
    static atomic_int installed;
    if (atomic_exchange(&installed, 1))
        return;
    interrupt_event = CreateEventW(NULL, TRUE, FALSE, NULL);
    SetConsoleCtrlHandler(on_console_ctrl, TRUE);
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
    if (watch_stdin && in && in != INVALID_HANDLE_VALUE && GetFileType(in) == FILE_TYPE_PIPE) {
        HANDLE t = CreateThread(NULL, 0, stdin_watch, in, 0, NULL);
        if (t)
            CloseHandle(t);
    }
}

void os_interrupt_request(void)
{
    interrupt_set(OS_INTERRUPT_REQUESTED);
}

void os_interrupt_raise(int reason)
{
    interrupt_set(reason);
}

bool os_interrupt_withdraw(void)
{
    if (!os_interrupt_unmark(OS_INTERRUPT_REQUESTED))
        return false;
    if (interrupt_event) {
        ResetEvent(interrupt_event);
        if (os_interrupted()) /* a Ctrl+C in between keeps its wake-up */
            SetEvent(interrupt_event);
    }
    return true;
}

void os_nap_ms(int ms)
{
    Sleep(ms > 0 ? (DWORD)ms : 0);
}

FILE *os_fopen(const char *path, const char *mode)
{
    wchar_t *wp = win_utf8_to_wide(path), *wm = win_utf8_to_wide(mode);
    FILE *f = wp && wm ? _wfopen(wp, wm) : NULL;
    free(wp);
    free(wm);
    return f;
}

static DWORD attributes(const char *path)
{
    wchar_t *wp = win_utf8_to_wide(path);
    DWORD a = wp ? GetFileAttributesW(wp) : INVALID_FILE_ATTRIBUTES;
    free(wp);
    return a;
}

bool os_path_exists(const char *path)
{
    return attributes(path) != INVALID_FILE_ATTRIBUTES;
}

bool os_is_dir(const char *path)
{
    DWORD a = attributes(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

bool os_is_plain_file(const char *path)
{
    DWORD a = attributes(path);
    return a != INVALID_FILE_ATTRIBUTES &&
           !(a & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DEVICE));
}

static wa_err mkdir_one(const wchar_t *w)
{
    if (CreateDirectoryW(w, NULL) || GetLastError() == ERROR_ALREADY_EXISTS)
        return WA_E_OK;
    char *u = win_wide_to_utf8(w);
    wa_err e = wa_fail(WA_E_IO, "cannot create folder %s (error %lu)", u ? u : "?",
                       (unsigned long)GetLastError());
    free(u);
    return e;
}

wa_err os_mkdir_p(const char *path)
{
    wchar_t *w = win_utf8_to_wide(path);
    if (!w || !*w) {
        free(w);
        return wa_fail(WA_E_INVALID_ARGS, "bad folder path");
    }
    wa_err e = WA_E_OK;
    /* Skip a drive ("C:\") or UNC prefix ("\\server\share\"); create the rest in order. */
    wchar_t *p = w;
    if (p[0] && p[1] == L':')
        p += 2;
    else if (p[0] == L'\\' && p[1] == L'\\') {
        p += 2;
        for (int seps = 0; *p && seps < 2; p++)
            if (*p == L'\\' || *p == L'/')
                seps++;
    }
    while (*p == L'\\' || *p == L'/')
        p++;
    for (; *p; p++) {
        if (*p != L'\\' && *p != L'/')
            continue;
        wchar_t c = *p;
        *p = L'\0';
        e = mkdir_one(w);
        *p = c;
        if (e)
            goto out;
    }
    e = mkdir_one(w);
out:
    free(w);
    return e;
}

wa_err os_read_file(const char *path, size_t max, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    wchar_t *w = win_utf8_to_wide(path);
    HANDLE h =
        w ? CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL)
          : INVALID_HANDLE_VALUE;
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return wa_fail(WA_E_IO, "cannot open %s (error %lu)", path, (unsigned long)GetLastError());
    wa_err e = WA_E_OK;
    LARGE_INTEGER size;
    char *buf = NULL;
    if (!GetFileSizeEx(h, &size)) {
        e = wa_fail(WA_E_IO, "cannot size %s", path);
        goto out;
    }
    if ((unsigned long long)size.QuadPart > max) {
        e = wa_fail(WA_E_TOO_LARGE, "%s is larger than %zu bytes", path, max);
        goto out;
    }
    size_t n = (size_t)size.QuadPart, done = 0;
    buf = malloc(n + 1);
    if (!buf) {
        e = wa_fail(WA_E_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    while (done < n) {
        DWORD got = 0;
        if (!ReadFile(h, buf + done, (DWORD)(n - done), &got, NULL) || got == 0)
            break;
        done += got;
    }
    buf[done] = '\0';
    *out = buf;
    buf = NULL;
    if (len)
        *len = done;
out:
    free(buf);
    CloseHandle(h);
    return e;
}

/* Whether sid is this user, the system, the administrators or the creator-owner. */
static bool trusted_sid(PSID sid, PSID self)
{
    return (self && EqualSid(sid, self)) || IsWellKnownSid(sid, WinLocalSystemSid) ||
           IsWellKnownSid(sid, WinBuiltinAdministratorsSid) ||
           IsWellKnownSid(sid, WinCreatorOwnerSid);
}

wa_err os_dir_others_write(const char *path, bool *others)
{
    *others = true;
    wchar_t *w = win_utf8_to_wide(path);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    DWORD attr = GetFileAttributesW(w);
    if (attr == INVALID_FILE_ATTRIBUTES || !(attr & FILE_ATTRIBUTE_DIRECTORY) ||
        (attr & FILE_ATTRIBUTE_REPARSE_POINT)) {
        free(w);
        return wa_fail(WA_E_INVALID_ARGS, "%s is not a folder", path);
    }
    PSID owner = NULL;
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD rc = GetNamedSecurityInfoW(w, SE_FILE_OBJECT,
                                     OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner,
                                     NULL, &dacl, NULL, &sd);
    free(w);
    if (rc != ERROR_SUCCESS)
        return wa_fail(WA_E_UNSUPPORTED, "cannot read who may write %s (error %lu)", path,
                       (unsigned long)rc);
    union {
        TOKEN_USER user;
        char room[256];
    } me;
    HANDLE token;
    DWORD got = 0;
    PSID self = NULL;
    if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) {
        if (GetTokenInformation(token, TokenUser, &me, sizeof me, &got))
            self = me.user.User.Sid;
        CloseHandle(token);
    }
    /* No DACL lets everyone in; an owner who is someone else may change the DACL. */
    bool open = !dacl || (owner && !trusted_sid(owner, self));
    const DWORD writes = FILE_ADD_FILE | FILE_WRITE_DATA | FILE_APPEND_DATA |
                         FILE_ADD_SUBDIRECTORY | FILE_DELETE_CHILD | DELETE | WRITE_DAC |
                         WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL;
    for (DWORD i = 0; !open && dacl && i < dacl->AceCount; i++) {
        ACE_HEADER *ace = NULL;
        if (!GetAce(dacl, i, (void **)&ace) || ace->AceType != ACCESS_ALLOWED_ACE_TYPE)
            continue;
        ACCESS_ALLOWED_ACE *allow = (ACCESS_ALLOWED_ACE *)ace;
        open = (allow->Mask & writes) && !trusted_sid((PSID)&allow->SidStart, self);
    }
    LocalFree(sd);
    *others = open;
    return WA_E_OK;
}

wa_err os_write_file(const char *path, const void *data, size_t len)
{
    wchar_t *w = win_utf8_to_wide(path);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    size_t n = wcslen(w);
    wchar_t *tmp = malloc((n + 48) * sizeof(wchar_t));
    wa_err e = WA_E_OK;
    if (!tmp) {
        e = wa_fail(WA_E_NOMEM, "out of memory");
        goto out;
    }
    /* unique per writer: threads of one process (two MCP sessions) write at once too */
    static volatile LONG serial;
    swprintf(tmp, n + 48, L"%ls.tmp%lu-%lu-%ld", w, (unsigned long)GetCurrentProcessId(),
             (unsigned long)GetCurrentThreadId(), (long)InterlockedIncrement(&serial));
    /* CREATE_NEW: created anew, never through a link planted at its name */
    HANDLE h = CreateFileW(tmp, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        e = wa_fail(WA_E_IO, "cannot write %s (error %lu)", path, (unsigned long)GetLastError());
        goto out;
    }
    size_t done = 0;
    while (done < len) {
        DWORD put = 0;
        DWORD chunk = len - done > 0x40000000 ? 0x40000000 : (DWORD)(len - done);
        if (!WriteFile(h, (const char *)data + done, chunk, &put, NULL) || put == 0)
            break;
        done += put;
    }
    CloseHandle(h);
    if (done != len) {
        DeleteFileW(tmp);
        e = wa_fail(WA_E_IO, "cannot write %s", path);
        goto out;
    }
    /* a reader or another writer may hold the target for a moment: try again briefly */
    BOOL moved = FALSE;
    for (int i = 0;
         i < 50 &&
         !(moved = MoveFileExW(tmp, w, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH));
         i++) {
        DWORD err = GetLastError();
        if (err != ERROR_ACCESS_DENIED && err != ERROR_SHARING_VIOLATION)
            break;
        Sleep(10);
    }
    if (!moved) {
        e = wa_fail(WA_E_IO, "cannot rename into %s (error %lu)", path,
                    (unsigned long)GetLastError());
        DeleteFileW(tmp);
    }
out:
    free(tmp);
    free(w);
    return e;
}

wa_err os_remove(const char *path)
{
    wchar_t *w = win_utf8_to_wide(path);
    BOOL ok = w && DeleteFileW(w);
    DWORD err = GetLastError();
    free(w);
    if (!ok && err != ERROR_FILE_NOT_FOUND && err != ERROR_PATH_NOT_FOUND)
        return wa_fail(WA_E_IO, "cannot remove %s (error %lu)", path, (unsigned long)err);
    return WA_E_OK;
}

char *os_exe_dir(void)
{
    wchar_t buf[32768];
    DWORD n = GetModuleFileNameW(NULL, buf, sizeof buf / sizeof buf[0]);
    if (n == 0 || n >= sizeof buf / sizeof buf[0])
        return NULL;
    wchar_t *slash = wcsrchr(buf, L'\\');
    if (slash)
        *slash = L'\0';
    return win_wide_to_utf8(buf);
}

char *os_temp_dir(void)
{
    wchar_t buf[MAX_PATH + 2];
    DWORD n = GetTempPathW(MAX_PATH + 1, buf);
    if (n == 0 || n > MAX_PATH + 1)
        return win_wide_to_utf8(L"C:\\Windows\\Temp");
    while (n > 3 && (buf[n - 1] == L'\\' || buf[n - 1] == L'/'))
        buf[--n] = L'\0';
    return win_wide_to_utf8(buf);
}

char *os_getenv(const char *name)
{
    wchar_t *wn = win_utf8_to_wide(name);
    if (!wn)
        return NULL;
    DWORD n = GetEnvironmentVariableW(wn, NULL, 0);
    char *out = NULL;
    if (n > 0) {
        wchar_t *v = malloc(n * sizeof(wchar_t));
        if (v && GetEnvironmentVariableW(wn, v, n) < n)
            out = win_wide_to_utf8(v);
        free(v);
    }
    free(wn);
    return out;
}

wa_err os_setenv(const char *name, const char *value)
{
    wchar_t *wn = win_utf8_to_wide(name), *wv = value ? win_utf8_to_wide(value) : NULL;
    BOOL ok = wn && (!value || wv) && SetEnvironmentVariableW(wn, wv);
    free(wn);
    free(wv);
    return ok ? WA_E_OK : wa_fail(WA_E_INVALID_ARGS, "cannot set %s", name);
}

struct thread_start {
    void (*fn)(void *);
    void *arg;
};

static DWORD WINAPI thread_main(LPVOID p)
{
    struct thread_start ts = *(struct thread_start *)p;
    free(p);
    ts.fn(ts.arg);
    return 0;
}

wa_err os_thread_start(void (*fn)(void *), void *arg)
{
    struct thread_start *ts = malloc(sizeof *ts);
    if (!ts)
        return wa_fail(WA_E_NOMEM, "out of memory");
    ts->fn = fn;
    ts->arg = arg;
    HANDLE t = CreateThread(NULL, 0, thread_main, ts, 0, NULL);
    if (!t) {
        free(ts);
        return wa_fail(WA_E_IO, "cannot start a thread (error %lu)", (unsigned long)GetLastError());
    }
    CloseHandle(t);
    return WA_E_OK;
}

unsigned long os_pid(void)
{
    return (unsigned long)GetCurrentProcessId();
}

wa_err os_list_dir(const char *path, struct os_dir_list *out)
{
    out->names = NULL;
    out->count = 0;
    wchar_t *w = win_utf8_to_wide(path);
    size_t n = w ? wcslen(w) : 0;
    wchar_t *pattern = w ? malloc((n + 3) * sizeof(wchar_t)) : NULL;
    if (!pattern) {
        free(w);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    swprintf(pattern, n + 3, L"%ls%ls*", w,
             n && (w[n - 1] == L'\\' || w[n - 1] == L'/') ? L"" : L"\\");
    free(w);
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileExW(pattern, FindExInfoBasic, &fd, FindExSearchNameMatch, NULL, 0);
    free(pattern);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD err = GetLastError();
        if (err == ERROR_FILE_NOT_FOUND) /* an empty folder (not even . and ..) */
            return WA_E_OK;
        return wa_fail(WA_E_IO, "cannot list %s (error %lu)", path, (unsigned long)err);
    }
    wa_err e = WA_E_OK;
    size_t cap = 0;
    do {
        if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
            continue;
        if (out->count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **p = wa_reallocarray(out->names, ncap, sizeof *p);
            if (!p) {
                e = wa_fail(WA_E_NOMEM, "out of memory listing %s", path);
                break;
            }
            out->names = p;
            cap = ncap;
        }
        if (!(out->names[out->count] = win_wide_to_utf8(fd.cFileName))) {
            e = wa_fail(WA_E_NOMEM, "out of memory listing %s", path);
            break;
        }
        out->count++;
    } while (FindNextFileW(h, &fd));
    FindClose(h);
    if (e) {
        os_dir_list_cleanup(out);
        return e;
    }
    os_dir_list_sort(out);
    return WA_E_OK;
}

wa_err os_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ULONG chunk = n > 0x10000000 ? 0x10000000 : (ULONG)n;
        NTSTATUS st = BCryptGenRandom(NULL, p, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG);
        if (st < 0)
            return wa_fail(WA_E_IO, "no random bytes from the system (status 0x%lx)",
                           (unsigned long)st);
        p += chunk;
        n -= chunk;
    }
    return WA_E_OK;
}

wa_err os_protocol_stdio(FILE **out)
{
    *out = NULL;
    fflush(stdout);
    _setmode(_fileno(stdin), _O_BINARY);
    int fd = _dup(_fileno(stdout));
    if (fd < 0)
        return wa_fail(WA_E_IO, "cannot duplicate stdout");
    _setmode(fd, _O_BINARY);
    FILE *f = _fdopen(fd, "wb");
    if (!f) {
        _close(fd);
        return wa_fail(WA_E_IO, "cannot open the protocol stream");
    }
    /* fd 1 and the inherited standard output handle now lead to stderr. */
    _dup2(_fileno(stderr), _fileno(stdout));
    SetStdHandle(STD_OUTPUT_HANDLE, GetStdHandle(STD_ERROR_HANDLE));
    *out = f;
    return WA_E_OK;
}

/* ---- environment, mutexes, the input lock ---- */

wa_err os_env_names(struct os_dir_list *out)
{
    out->names = NULL;
    out->count = 0;
    wchar_t *block = GetEnvironmentStringsW();
    if (!block)
        return wa_fail(WA_E_IO, "cannot read the environment");
    size_t n = 0;
    for (const wchar_t *p = block; *p; p += wcslen(p) + 1)
        n++;
    out->names = calloc(n + 1, sizeof *out->names);
    wa_err e = out->names ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
    for (const wchar_t *p = block; !e && *p; p += wcslen(p) + 1) {
        /* "=C:=C:\\dir" entries (per-drive folders) start with '=': not variables */
        const wchar_t *eq = wcschr(p + 1, L'=');
        if (*p == L'=' || !eq)
            continue;
        char *name = win_wide_to_utf8_n(p, (int)(eq - p));
        if (!name)
            e = wa_fail(WA_E_NOMEM, "out of memory");
        else
            out->names[out->count++] = name;
    }
    FreeEnvironmentStringsW(block);
    if (e)
        os_dir_list_cleanup(out);
    return e;
}

struct os_event {
    HANDLE h;
};

struct os_event *os_event_new(void)
{
    struct os_event *e = malloc(sizeof *e);
    if (e && !(e->h = CreateEventW(NULL, FALSE, FALSE, NULL))) {
        free(e);
        e = NULL;
    }
    return e;
}

void os_event_free(struct os_event *e)
{
    if (!e)
        return;
    CloseHandle(e->h);
    free(e);
}

void os_event_set(struct os_event *e)
{
    SetEvent(e->h);
}

bool os_event_wait(struct os_event *e, int timeout_ms)
{
    return WaitForSingleObject(e->h, timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms) ==
           WAIT_OBJECT_0;
}

struct os_mutex {
    CRITICAL_SECTION cs;
};

struct os_mutex *os_mutex_new(void)
{
    struct os_mutex *m = malloc(sizeof *m);
    if (m)
        InitializeCriticalSection(&m->cs);
    return m;
}

void os_mutex_free(struct os_mutex *m)
{
    if (!m)
        return;
    DeleteCriticalSection(&m->cs);
    free(m);
}

void os_mutex_lock(struct os_mutex *m)
{
    EnterCriticalSection(&m->cs);
}

void os_mutex_unlock(struct os_mutex *m)
{
    LeaveCriticalSection(&m->cs);
}

/* A named mutex of the user's session: the system releases it when its holder dies
 * (WAIT_ABANDONED, which still gives it to us). */
wa_err os_input_lock(int timeout_ms, intptr_t *handle)
{
    *handle = 0;
    HANDLE m = CreateMutexW(NULL, FALSE, L"Local\\winagent-desktop-input");
    if (!m)
        return wa_fail(WA_E_IO, "cannot open the input lock (error %lu)",
                       (unsigned long)GetLastError());
    DWORD r = WaitForSingleObject(m, timeout_ms < 0 ? 0 : (DWORD)timeout_ms);
    if (r == WAIT_OBJECT_0 || r == WAIT_ABANDONED) {
        *handle = (intptr_t)m;
        return WA_E_OK;
    }
    CloseHandle(m);
    if (r == WAIT_TIMEOUT)
        return wa_fail(WA_E_TIMEOUT, "another winagent kept the desktop's input for %d ms",
                       timeout_ms);
    return wa_fail(WA_E_IO, "cannot take the input lock (error %lu)",
                   (unsigned long)GetLastError());
}

void os_input_unlock(intptr_t handle)
{
    if (!handle)
        return;
    ReleaseMutex((HANDLE)handle);
    CloseHandle((HANDLE)handle);
}
