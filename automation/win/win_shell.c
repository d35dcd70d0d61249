/* The shell tool on Windows: one command through WINAGENT_SHELL in a job object, its
 * stdout and stderr read over overlapped named pipes, capped and decoded to UTF-8. */
#include <windows.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "automation/win/win_shell.h"
#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_window.h"
#include "base/dynbuf.h"
#include "base/os.h"

#define DEFAULT_SHELL      "powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command"
#define DEFAULT_CAP        (64 * 1024)
#define DEFAULT_TIMEOUT_MS 60000
/* After the shell exits, how long its pipes may stay open (a program it started in
 * the background inherited them) before we stop reading. */
#define DRAIN_MS   500
#define READ_CHUNK 16384

/* ---- capped collection: the first half of cap bytes and a ring of the last half ---- */

struct capture {
    HANDLE pipe; /* our (server) end, overlapped */
    OVERLAPPED ov;
    bool open, pending;
    char chunk[READ_CHUNK];
    char *head, *tail;
    size_t head_cap, head_len, tail_cap, tail_pos, tail_len;
    unsigned long long total;
};

static void capture_add(struct capture *c, const char *p, size_t n)
{
    c->total += n;
    size_t take = c->head_cap - c->head_len < n ? c->head_cap - c->head_len : n;
    memcpy(c->head + c->head_len, p, take);
    c->head_len += take;
    p += take;
    n -= take;
    if (n == 0 || c->tail_cap == 0)
        return;
    if (n > c->tail_cap) { /* only the last tail_cap bytes can survive */
        p += n - c->tail_cap;
        n = c->tail_cap;
    }
    while (n > 0) {
        size_t room = c->tail_cap - c->tail_pos, k = n < room ? n : room;
        memcpy(c->tail + c->tail_pos, p, k);
        c->tail_pos = (c->tail_pos + k) % c->tail_cap;
        c->tail_len = c->tail_len + k > c->tail_cap ? c->tail_cap : c->tail_len + k;
        p += k;
        n -= k;
    }
}

/* The ring in order, into buf (tail_len bytes). */
static void capture_tail(const struct capture *c, char *buf)
{
    if (c->tail_len < c->tail_cap) {
        memcpy(buf, c->tail, c->tail_len);
        return;
    }
    size_t first = c->tail_cap - c->tail_pos;
    memcpy(buf, c->tail + c->tail_pos, first);
    memcpy(buf + first, c->tail, c->tail_pos);
}

/* ---- decoding ---- */

/* Length of the valid UTF-8 prefix of s[0..n). */
static size_t utf8_valid_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        unsigned cp = c & (0xFF >> (len + 1));
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += len;
    }
    return n;
}

/* Whether a piece cut out of a longer stream is UTF-8: cut_start lets it begin inside
 * a character (up to 3 continuation bytes are skipped), cut_end lets it end inside
 * one. *from / *to give the part to decode. */
static bool utf8_piece(const char *s, size_t n, bool cut_start, bool cut_end, size_t *from,
                       size_t *to)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t a = 0;
    while (cut_start && a < 3 && a < n && (u[a] & 0xC0) == 0x80)
        a++;
    size_t valid = a + utf8_valid_prefix(u + a, n - a);
    *from = a;
    *to = valid;
    return valid == n || (cut_end && n - valid < 4 && u[valid] >= 0xC2);
}

/* UTF-16LE output (wmic, cmd /u, .NET writers set to Unicode) has a BOM or NULs in
 * most odd positions. */
static bool looks_utf16(const char *s, size_t n)
{
    if (n >= 2 && (unsigned char)s[0] == 0xFF && (unsigned char)s[1] == 0xFE)
        return true;
    size_t zeros = 0;
    for (size_t i = 1; i < n; i += 2)
        zeros += s[i] == 0;
    return n >= 4 && zeros * 4 >= n;
}

/* The system's OEM code page, which console programs use for redirected output. Read
 * from the registry: our manifest makes GetOEMCP() answer UTF-8 for this process. */
static UINT system_oem_cp(void)
{
    wchar_t buf[16];
    DWORD size = sizeof buf;
    if (RegGetValueW(HKEY_LOCAL_MACHINE, L"SYSTEM\\CurrentControlSet\\Control\\Nls\\CodePage",
                     L"OEMCP", RRF_RT_REG_SZ, NULL, buf, &size) == ERROR_SUCCESS) {
        UINT cp = (UINT)wcstoul(buf, NULL, 10);
        if (cp && IsValidCodePage(cp))
            return cp;
    }
    return GetOEMCP();
}

enum encoding { ENC_UTF8, ENC_UTF16, ENC_OEM };

/* Appends s[0..n) decoded from enc as UTF-8, NULs dropped. */
static wa_err add_decoded(struct dynbuf *out, const char *s, size_t n, enum encoding enc, UINT cp)
{
    if (n == 0)
        return WA_E_OK;
    if (enc == ENC_UTF8) {
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j < n && s[j])
                j++;
            wa_err e = dynbuf_add(out, s + i, j - i);
            if (e)
                return e;
            i = j + 1;
        }
        return WA_E_OK;
    }
    wchar_t *w;
    int wn;
    if (enc == ENC_UTF16) {
        size_t off = n >= 2 && (unsigned char)s[0] == 0xFF && (unsigned char)s[1] == 0xFE ? 2 : 0;
        wn = (int)((n - off) / 2);
        w = malloc((size_t)wn * sizeof *w + 1);
        if (w)
            memcpy(w, s + off, (size_t)wn * sizeof *w);
    } else {
        wn = MultiByteToWideChar(cp, 0, s, (int)n, NULL, 0);
        w = malloc((size_t)(wn > 0 ? wn : 0) * sizeof *w + 1);
        if (w && wn > 0)
            MultiByteToWideChar(cp, 0, s, (int)n, w, wn);
    }
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory decoding output");
    int k = 0;
    for (int i = 0; i < wn; i++)
        if (w[i])
            w[k++] = w[i];
    char *u = win_wide_to_utf8_n(w, k);
    free(w);
    if (!u)
        return wa_fail(WA_E_NOMEM, "out of memory decoding output");
    wa_err e = dynbuf_adds(out, u);
    free(u);
    return e;
}

/* The collected output as a UTF-8 heap string. */
static wa_err capture_text(const struct capture *c, char **text)
{
    *text = NULL;
    char *tail = malloc(c->tail_len + 1);
    if (!tail)
        return wa_fail(WA_E_NOMEM, "out of memory");
    capture_tail(c, tail);
    unsigned long long omitted = c->total - c->head_len - c->tail_len;
    bool cut = omitted > 0;
    struct dynbuf out;
    dynbuf_init(&out, c->head_len * 3 + c->tail_len * 3 + 128);
    wa_err e = WA_E_OK;
    /* Without a gap, head and tail are one stream: join them so a character split
     * between the two buffers survives. */
    char *joined = NULL;
    const char *a = c->head, *b = tail;
    size_t an = c->head_len, bn = c->tail_len;
    if (!cut && bn > 0) {
        joined = malloc(an + bn + 1);
        if (!joined) {
            e = wa_fail(WA_E_NOMEM, "out of memory");
            goto out;
        }
        memcpy(joined, a, an);
        memcpy(joined + an, b, bn);
        a = joined;
        an += bn;
        bn = 0;
    }
    size_t af, at, bf = 0, bt = 0;
    enum encoding enc = ENC_OEM;
    if (looks_utf16(a, an))
        enc = ENC_UTF16;
    else if (utf8_piece(a, an, false, cut, &af, &at) &&
             (!cut || utf8_piece(b, bn, true, false, &bf, &bt)))
        enc = ENC_UTF8;
    UINT cp = system_oem_cp();
    if (enc == ENC_UTF8) {
        e = add_decoded(&out, a + af, at - af, enc, cp);
    } else {
        /* UTF-16 pieces must keep their 2-byte alignment; the tail ring's start is. */
        size_t odd = enc == ENC_UTF16 && cut ? (size_t)((c->total - c->tail_len) % 2) : 0;
        e = add_decoded(&out, a, an, enc, cp);
        bf = odd;
        bt = bn;
    }
    if (!e && cut) {
        e = dynbuf_addf(&out, "\n\xE2\x80\xA6[%llu bytes omitted]\xE2\x80\xA6\n", omitted);
        if (!e)
            e = add_decoded(&out, b + bf, bt > bf ? bt - bf : 0, enc, cp);
    }
    if (!e) {
        *text = dynbuf_take(&out);
        if (!*text)
            e = wa_fail(WA_E_NOMEM, "out of memory");
    }
out:
    dynbuf_cleanup(&out);
    free(joined);
    free(tail);
    return e;
}

/* ---- the command line ---- */

/* Appends arg quoted for CommandLineToArgvW: backslashes double only before a quote. */
static wa_err add_quoted(struct dynbuf *b, const char *arg)
{
    wa_err e = dynbuf_addc(b, '"');
    for (const char *p = arg; !e; p++) {
        size_t slashes = 0;
        while (*p == '\\') {
            slashes++;
            p++;
        }
        if (*p == '\0') {
            for (size_t i = 0; i < 2 * slashes && !e; i++)
                e = dynbuf_addc(b, '\\');
            break;
        }
        size_t n = *p == '"' ? 2 * slashes + 1 : slashes;
        for (size_t i = 0; i < n && !e; i++)
            e = dynbuf_addc(b, '\\');
        if (!e)
            e = dynbuf_addc(b, *p);
    }
    return e ? e : dynbuf_addc(b, '"');
}

/* Whether the shell prefix's program is cmd.exe. */
static bool shell_is_cmd(const char *shell)
{
    while (*shell == ' ' || *shell == '\t')
        shell++;
    char prog[MAX_PATH];
    size_t n = 0;
    bool quoted = *shell == '"';
    for (const char *p = shell + quoted; *p && n + 1 < sizeof prog; p++) {
        if (quoted ? *p == '"' : (*p == ' ' || *p == '\t'))
            break;
        prog[n++] = *p;
    }
    prog[n] = '\0';
    const char *base = prog;
    for (const char *p = prog; *p; p++)
        if (*p == '\\' || *p == '/')
            base = p + 1;
    return _stricmp(base, "cmd") == 0 || _stricmp(base, "cmd.exe") == 0;
}

static wa_err build_command_line(const char *shell, const char *command, wchar_t **line)
{
    *line = NULL;
    struct dynbuf b;
    dynbuf_init(&b, 64 * 1024);
    wa_err e = dynbuf_adds(&b, shell);
    if (!e)
        e = dynbuf_addc(&b, ' ');
    if (!e && shell_is_cmd(shell))
        e = command[0] == '"' ? dynbuf_addf(&b, "\"%s\"", command) : dynbuf_adds(&b, command);
    else if (!e)
        e = add_quoted(&b, command);
    if (e) {
        dynbuf_cleanup(&b);
        return e == WA_E_TOO_LARGE ? wa_fail(e, "command is longer than a command line allows") : e;
    }
    *line = win_utf8_to_wide(dynbuf_str(&b));
    dynbuf_cleanup(&b);
    return *line ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

/* ---- pipes and the process ---- */

/* An overlapped inbound named pipe (ours) and its inheritable write end (the
 * child's). Anonymous pipes cannot do overlapped I/O. */
static wa_err make_pipe(struct capture *c, HANDLE *child_end)
{
    static atomic_ulong serial;
    wchar_t name[96];
    swprintf(name, sizeof name / sizeof name[0], L"\\\\.\\pipe\\winagent-%lu-%lu",
             (unsigned long)GetCurrentProcessId(), (unsigned long)atomic_fetch_add(&serial, 1));
    DWORD mode = PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE;
    c->pipe = CreateNamedPipeW(name, mode, PIPE_TYPE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
                               1, 0, 64 * 1024, 0, NULL);
    if (c->pipe == INVALID_HANDLE_VALUE) /* systems without PIPE_REJECT_REMOTE_CLIENTS */
        c->pipe =
            CreateNamedPipeW(name, mode, PIPE_TYPE_BYTE | PIPE_WAIT, 1, 0, 64 * 1024, 0, NULL);
    if (c->pipe == INVALID_HANDLE_VALUE) {
        c->pipe = NULL;
        goto fail;
    }
    SECURITY_ATTRIBUTES sa = {.nLength = sizeof sa, .bInheritHandle = TRUE};
    *child_end =
        CreateFileW(name, GENERIC_WRITE, 0, &sa, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (*child_end == INVALID_HANDLE_VALUE) {
        *child_end = NULL;
        goto fail;
    }
    c->ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!c->ov.hEvent)
        goto fail;
    c->open = true;
    return WA_E_OK;
fail:;
    char msg[300];
    return wa_fail(WA_E_ACTION_FAILED, "cannot create an output pipe (%s)",
                   win_error_text(GetLastError(), msg, sizeof msg));
}

static void capture_close(struct capture *c)
{
    if (c->pending) { /* the buffer must not be written after we let go of it */
        DWORD got;
        CancelIoEx(c->pipe, &c->ov);
        GetOverlappedResult(c->pipe, &c->ov, &got, TRUE);
        c->pending = false;
    }
    if (c->pipe)
        CloseHandle(c->pipe);
    if (c->ov.hEvent)
        CloseHandle(c->ov.hEvent);
    c->pipe = NULL;
    c->ov.hEvent = NULL;
    c->open = false;
}

/* Starts reads until one is pending or the pipe closes (at most a few rounds, so a
 * flood of output cannot starve the timeout check). */
static void capture_pump(struct capture *c)
{
    for (int round = 0; round < 16 && c->open && !c->pending; round++) {
        if (ReadFile(c->pipe, c->chunk, sizeof c->chunk, NULL, &c->ov) ||
            GetLastError() == ERROR_IO_PENDING) {
            c->pending = true;
            return;
        }
        c->open = false; /* ERROR_BROKEN_PIPE: every writer closed */
    }
}

/* A read finished (its event is set): take the bytes. */
static void capture_complete(struct capture *c)
{
    DWORD got = 0;
    c->pending = false;
    if (GetOverlappedResult(c->pipe, &c->ov, &got, FALSE)) {
        capture_add(c, c->chunk, got);
        return;
    }
    DWORD err = GetLastError();
    if (err == ERROR_MORE_DATA) /* not for byte pipes, but harmless */
        capture_add(c, c->chunk, got);
    else
        c->open = false;
}

/* Creates the job that kills the whole tree; NULL when jobs are unavailable (Windows
 * 7 inside another job), in which case only the shell itself can be killed. */
static HANDLE make_job(HANDLE process)
{
    HANDLE job = CreateJobObjectW(NULL, NULL);
    if (!job)
        return NULL;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
    memset(&li, 0, sizeof li);
    li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof li) ||
        !AssignProcessToJobObject(job, process)) {
        CloseHandle(job);
        return NULL;
    }
    return job;
}

/* Lets the job's remaining processes outlive it (a program the command started in the
 * background), then closes it. */
static void release_job(HANDLE job)
{
    if (!job)
        return;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
    memset(&li, 0, sizeof li);
    SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof li);
    CloseHandle(job);
}

static double now_ms_precise(void)
{
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
}

/* CreateProcessW with exactly the three handles inherited (where the system lets us
 * say so), suspended so it joins the job before it can start anything. */
static BOOL spawn(wchar_t *line, HANDLE in, HANDLE out, HANDLE err, PROCESS_INFORMATION *pi)
{
    STARTUPINFOEXW si;
    memset(&si, 0, sizeof si);
    si.StartupInfo.cb = sizeof si;
    si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    si.StartupInfo.hStdInput = in;
    si.StartupInfo.hStdOutput = out;
    si.StartupInfo.hStdError = err;
    DWORD flags = CREATE_NO_WINDOW | CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT;
    HANDLE handles[3] = {in, out, err};
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(NULL, 1, 0, &size);
    LPPROC_THREAD_ATTRIBUTE_LIST list = size ? malloc(size) : NULL;
    if (list && InitializeProcThreadAttributeList(list, 1, 0, &size)) {
        if (UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles,
                                      sizeof handles, NULL, NULL)) {
            si.lpAttributeList = list;
            flags |= EXTENDED_STARTUPINFO_PRESENT;
        } else {
            DeleteProcThreadAttributeList(list);
            free(list);
            list = NULL;
        }
    } else {
        free(list);
        list = NULL;
    }
    BOOL ok = CreateProcessW(NULL, line, NULL, NULL, TRUE, flags, NULL, NULL, &si.StartupInfo, pi);
    DWORD saved = GetLastError();
    if (list) {
        DeleteProcThreadAttributeList(list);
        free(list);
    }
    SetLastError(saved);
    return ok;
}

static wa_err capture_init(struct capture *c, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->head_cap = cap / 2;
    c->tail_cap = cap - c->head_cap;
    c->head = malloc(c->head_cap + 1);
    c->tail = malloc(c->tail_cap + 1);
    return c->head && c->tail ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

static void capture_cleanup(struct capture *c)
{
    capture_close(c);
    free(c->head);
    free(c->tail);
}

/* A running shell: its process and job, and what it writes. */
struct shell_run {
    PROCESS_INFORMATION pi;
    HANDLE job;
    struct capture cs[2]; /* stdout, stderr */
};

/* Reads the shell's output until it ends (and its pipes close, or DRAIN_MS after it
 * ended while something it started holds them open), killing the whole tree at the
 * deadline or on Ctrl+C. WA_E_INTERRUPTED for the latter. */
static wa_err pump_until_done(struct shell_run *sr, int timeout_ms, struct wa_shell_result *out,
                              bool *killed)
{
    wa_err e = WA_E_OK;
    bool done = false;
    int64_t deadline = os_now_ms() + timeout_ms, drain_until = 0;
    for (;;) {
        HANDLE waits[3];
        struct capture *owner[3];
        DWORD n = 0;
        if (!done) {
            waits[n] = sr->pi.hProcess;
            owner[n++] = NULL;
        }
        for (int i = 0; i < 2; i++) {
            capture_pump(&sr->cs[i]);
            if (sr->cs[i].pending) {
                waits[n] = sr->cs[i].ov.hEvent;
                owner[n++] = &sr->cs[i];
            }
        }
        if (n == 0)
            break;
        int64_t now = os_now_ms(), limit = done ? drain_until : deadline;
        bool interrupted = os_interrupted();
        if (!done && (now >= limit || interrupted)) {
            /* The whole tree, not just the shell: `ping` under `cmd /c` would live on. */
            if (sr->job)
                TerminateJobObject(sr->job, 1);
            else
                TerminateProcess(sr->pi.hProcess, 1);
            WaitForSingleObject(sr->pi.hProcess, 5000);
            *killed = true;
            out->timed_out = !interrupted;
            done = true;
            drain_until = os_now_ms() + DRAIN_MS;
            if (interrupted)
                e = wa_fail(WA_E_INTERRUPTED, "interrupted: the shell was stopped");
            continue;
        }
        if (done && now >= limit)
            break; /* a background program keeps the pipes open: stop reading */
        DWORD slice = (DWORD)(limit - now < 100 ? limit - now : 100);
        DWORD r = WaitForMultipleObjects(n, waits, FALSE, slice);
        if (r >= WAIT_OBJECT_0 + n)
            continue; /* timeout slice (or a failed wait: the limits still apply) */
        struct capture *c = owner[r - WAIT_OBJECT_0];
        if (c) {
            capture_complete(c);
        } else {
            done = true;
            drain_until = os_now_ms() + DRAIN_MS;
        }
    }
    return e;
}

/* Starts the shell suspended with NUL for input and the captures' pipes for output,
 * then lets it run in its job. */
static wa_err start_shell(const char *shell, const char *command, struct shell_run *sr)
{
    wchar_t *line = NULL;
    HANDLE in = INVALID_HANDLE_VALUE, out_w = NULL, err_w = NULL;
    wa_err e = build_command_line(shell, command, &line);
    if (!e && !(e = make_pipe(&sr->cs[0], &out_w)))
        e = make_pipe(&sr->cs[1], &err_w);
    SECURITY_ATTRIBUTES sa = {.nLength = sizeof sa, .bInheritHandle = TRUE};
    if (!e && (in = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                                OPEN_EXISTING, 0, NULL)) == INVALID_HANDLE_VALUE)
        e = wa_fail(WA_E_ACTION_FAILED, "cannot open NUL for the shell's input");
    if (!e && !spawn(line, in, out_w, err_w, &sr->pi)) {
        char msg[300];
        e = wa_fail(WA_E_ACTION_FAILED,
                    "cannot start the shell \"%s\" (%s); set WINAGENT_SHELL "
                    "to another, e.g. \"cmd.exe /c\"",
                    shell, win_error_text(GetLastError(), msg, sizeof msg));
    }
    if (!e) {
        sr->job = make_job(sr->pi.hProcess);
        ResumeThread(sr->pi.hThread);
    }
    /* Only the child holds the write ends now: the reads end when it (and whatever it
     * started that inherited them) closes them. */
    if (in != INVALID_HANDLE_VALUE)
        CloseHandle(in);
    if (out_w)
        CloseHandle(out_w);
    if (err_w)
        CloseHandle(err_w);
    free(line);
    return e;
}

wa_err win_run_shell(const char *shell_program, const char *command, int timeout_ms, size_t cap,
                     struct wa_shell_result *out)
{
    memset(out, 0, sizeof *out);
    out->exit_code = -1;
    if (!command)
        return wa_fail(WA_E_INVALID_ARGS, "no command");
    if (cap == 0)
        cap = DEFAULT_CAP;
    if (timeout_ms <= 0)
        timeout_ms = DEFAULT_TIMEOUT_MS;
    double t0 = now_ms_precise();
    const char *shell = shell_program && *shell_program ? shell_program : DEFAULT_SHELL;
    struct shell_run sr = {0};
    wa_err e = capture_init(&sr.cs[0], cap);
    wa_err e2 = capture_init(&sr.cs[1], cap);
    if (!e && !e2 && !(e = start_shell(shell, command, &sr))) {
        bool killed = false;
        e = pump_until_done(&sr, timeout_ms, out, &killed);
        DWORD code = 0;
        if (!killed && GetExitCodeProcess(sr.pi.hProcess, &code))
            out->exit_code = (int)code;
        for (int i = 0; i < 2; i++)
            capture_close(&sr.cs[i]);
        out->elapsed_ms = now_ms_precise() - t0;
        wa_err te = capture_text(&sr.cs[0], &out->out);
        if (!te)
            te = capture_text(&sr.cs[1], &out->err);
        if (te) {
            wa_shell_result_cleanup(out);
            e = te;
        }
    }
    e = e ? e : e2;
    release_job(sr.job);
    if (sr.pi.hProcess)
        CloseHandle(sr.pi.hProcess);
    if (sr.pi.hThread)
        CloseHandle(sr.pi.hThread);
    capture_cleanup(&sr.cs[0]);
    capture_cleanup(&sr.cs[1]);
    return e;
}
