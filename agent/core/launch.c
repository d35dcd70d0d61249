/* Launch classification: what will run, and whether it needs the shell permission. */
#include "agent/core/launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"

/* Shells, script hosts, interpreters, terminals and the system's indirections that run
 * code given to them: the one list for launching (each needs the shell permission) and
 * for typing (with the shell off, the windows of those marked TYPES receive no input:
 * what is typed there runs). Matched on the file name without its extension, and as a
 * prefix for versioned names ("python3.12"). */
enum { LAUNCH_ONLY, TYPES };

static const struct {
    const char *name;
    int kind;
} interpreters[] = {
    /* shells and interpreters with a prompt: typing there runs commands */
    {"cmd", TYPES},
    {"command", TYPES},
    {"powershell", TYPES},
    {"powershell_ise", TYPES},
    {"pwsh", TYPES},
    {"wsl", TYPES},
    {"wslhost", TYPES},
    {"bash", TYPES},
    {"sh", TYPES},
    {"zsh", TYPES},
    {"dash", TYPES},
    {"busybox", TYPES},
    {"python", TYPES},
    {"pythonw", TYPES},
    {"py", TYPES},
    {"pyw", TYPES},
    {"node", TYPES},
    {"deno", TYPES},
    {"bun", TYPES},
    {"perl", TYPES},
    {"ruby", TYPES},
    {"php", TYPES},
    {"lua", TYPES},
    {"tclsh", TYPES},
    {"wish", TYPES},
    {"conhost", TYPES},
    {"wt", TYPES},
    {"dotnet", TYPES},
    {"csi", TYPES},
    {"fsi", TYPES},
    /* terminal hosts: windows that run a shell */
    {"windowsterminal", TYPES},
    {"openconsole", TYPES},
    {"putty", TYPES},
    {"kitty", TYPES},
    {"mobaxterm", TYPES},
    {"git-bash", TYPES},
    {"terminus", TYPES},
    {"conemu", TYPES},
    {"conemu64", TYPES},
    {"alacritty", TYPES},
    {"wezterm", TYPES},
    {"wezterm-gui", TYPES},
    {"mintty", TYPES},
    {"hyper", TYPES},
    {"tabby", TYPES},
    {"fluent terminal", TYPES},
    {"cmder", TYPES},
    {"wineconsole", TYPES},
    /* script hosts and indirections: their own windows take text, not commands */
    {"wscript", LAUNCH_ONLY},
    {"cscript", LAUNCH_ONLY},
    {"mshta", LAUNCH_ONLY},
    {"rundll32", LAUNCH_ONLY},
    {"rundll", LAUNCH_ONLY},
    {"regsvr32", LAUNCH_ONLY},
    {"regsvcs", LAUNCH_ONLY},
    {"regasm", LAUNCH_ONLY},
    {"java", LAUNCH_ONLY},
    {"javaw", LAUNCH_ONLY},
    {"msiexec", LAUNCH_ONLY},
    {"wmic", LAUNCH_ONLY},
    {"schtasks", LAUNCH_ONLY},
    {"at", LAUNCH_ONLY},
    {"forfiles", LAUNCH_ONLY},
    {"certutil", LAUNCH_ONLY},
    {"bitsadmin", LAUNCH_ONLY},
    {"installutil", LAUNCH_ONLY},
    {"msbuild", LAUNCH_ONLY},
    {"runas", LAUNCH_ONLY},
    {"hh", LAUNCH_ONLY},
    {"cmstp", LAUNCH_ONLY},
    {"control", LAUNCH_ONLY},
    {"mmc", LAUNCH_ONLY},
    {"pcalua", LAUNCH_ONLY},
    {"scriptrunner", LAUNCH_ONLY},
    {"odbcconf", LAUNCH_ONLY},
    {"msxsl", LAUNCH_ONLY},
    {"ieexec", LAUNCH_ONLY},
    {"winrm", LAUNCH_ONLY},
};

/* Extensions that run code or point elsewhere. */
static const char *const scripts[] = {
    "bat",
    "cmd",
    "btm",
    "ps1",
    "psm1",
    "psd1",
    "vbs",
    "vbe",
    "js",
    "jse",
    "wsf",
    "wsh",
    "wsc",
    "hta",
    "lnk",
    "url",
    "website",
    "scf",
    "pif",
    "scr",
    "msc",
    "msi",
    "msp",
    "cpl",
    "reg",
    "inf",
    "py",
    "pyw",
    "pyz",
    "pl",
    "rb",
    "php",
    "sh",
    "jar",
    "application",
    "appref-ms",
    "settingcontent-ms",
    "library-ms",
    "search-ms",
    "chm",
    "xll",
    "xbap",
};

/* The file name of a path (after the last \ or /). */
static const char *base_name(const char *path)
{
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '\\' || *p == '/')
            b = p + 1;
    return b;
}

/* The extension without its dot ("" when none). */
static const char *extension(const char *path)
{
    const char *b = base_name(path);
    const char *dot = strrchr(b, '.');
    return dot && dot != b ? dot + 1 : "";
}

/* The entry of the list that program names (its file name, with or without ".exe" or
 * ".com", or with a version), or -1. */
static int interpreter_of(const char *program)
{
    if (!program)
        return -1;
    const char *b = base_name(program);
    char stem[128];
    snprintf(stem, sizeof stem, "%s", b);
    size_t n = strlen(stem);
    if (n > 4 && (str_ieq(stem + n - 4, ".exe") || str_ieq(stem + n - 4, ".com")))
        stem[n - 4] = '\0';
    n = strlen(stem);
    for (size_t i = 0; i < sizeof interpreters / sizeof interpreters[0]; i++) {
        size_t m = strlen(interpreters[i].name);
        if (n < m)
            continue;
        char head[128];
        memcpy(head, stem, m);
        head[m] = '\0';
        if (!str_ieq(head, interpreters[i].name))
            continue;
        char next = stem[m];
        /* the name itself, or the name with a version: "python3.12", "pwsh-preview" */
        if (next == '\0' ||
            (m > 2 && ((next >= '0' && next <= '9') || next == '.' || next == '-' || next == '_')))
            return (int)i;
    }
    return -1;
}

bool launch_is_interpreter(const char *program)
{
    return interpreter_of(program) >= 0;
}

bool launch_takes_commands(const char *program)
{
    int i = interpreter_of(program);
    return i >= 0 && interpreters[i].kind == TYPES;
}

bool launch_is_script(const char *program)
{
    const char *ext = program ? extension(program) : "";
    for (size_t i = 0; *ext && i < sizeof scripts / sizeof scripts[0]; i++)
        if (str_ieq(ext, scripts[i]))
            return true;
    return false;
}

/* "https://x", "ms-settings:", "mailto:a@b": a scheme of two or more letters (one is a
 * drive letter). */
static bool is_protocol(const char *s)
{
    size_t n = 0;
    while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
           (n > 0 && ((s[n] >= '0' && s[n] <= '9') || s[n] == '+' || s[n] == '-' || s[n] == '.')))
        n++;
    return n >= 2 && s[n] == ':';
}

void launch_plan_cleanup(struct launch_plan *p)
{
    free(p->program);
    free(p->args);
    free(p->path);
    free(p->runs);
    free(p->command);
    memset(p, 0, sizeof *p);
}

static void needs(struct launch_plan *p, const char *fmt, ...) WA_PRINTF(2, 3);
static void needs(struct launch_plan *p, const char *fmt, ...)
{
    if (p->needs_shell)
        return;
    p->needs_shell = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->reason, sizeof p->reason, fmt, ap);
    va_end(ap);
}

/* Splits command into program and arguments. */
static wa_err split(const struct wa_backend *be, const char *command, struct launch_plan *p)
{
    const char *s = command;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    if (n == 0)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a program name or path");
    const char *rest;
    if (*s == '"') {
        const char *close = memchr(s + 1, '"', n - 1);
        if (!close)
            return wa_fail(WA_E_INVALID_ARGS, "unbalanced quote in the command: %.200s", command);
        p->program = str_ndup(s + 1, (size_t)(close - s - 1));
        rest = close + 1;
    } else {
        char *whole = str_ndup(s, n);
        if (!whole)
            return wa_fail(WA_E_NOMEM, "out of memory");
        /* An unquoted path with spaces that names a file is that file. */
        char *path = NULL, *runs = NULL;
        bool file = memchr(whole, ' ', n) &&
                    backend_resolve_program(be, whole, &path, &runs) == WA_E_OK && path;
        free(path);
        free(runs);
        if (file) {
            p->program = whole;
            return WA_E_OK;
        }
        free(whole);
        const char *sp = s;
        while (sp < s + n && *sp != ' ' && *sp != '\t')
            sp++;
        p->program = str_ndup(s, (size_t)(sp - s));
        rest = sp;
    }
    if (!p->program)
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (!*p->program)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a program name or path");
    while (rest < s + n && (*rest == ' ' || *rest == '\t'))
        rest++;
    if (rest < s + n && !(p->args = str_ndup(rest, (size_t)(s + n - rest))))
        return wa_fail(WA_E_NOMEM, "out of memory");
    return WA_E_OK;
}

/* The decision on the file that will start, not its name: a console program (a shell
 * or interpreter renamed, a terminal's command) or a renamed copy of an interpreter
 * (its version resource names it) needs the shell permission like the original. */
static void judge_the_file(const struct wa_backend *be, const char *prog, const char *file,
                           struct launch_plan *out)
{
    struct wa_program_info info;
    if (backend_program_info(be, file, &info) != WA_E_OK) {
        wa_err_clear(); /* nothing to read: the name's verdict stands */
        return;
    }
    if (info.original_name && launch_is_interpreter(info.original_name))
        needs(out, "%.80s is %.80s by its version resource, a shell, script host or interpreter",
              base_name(prog), info.original_name);
    else if (info.executable && info.console)
        needs(out, "%.80s is a console program: it runs in a terminal like a shell",
              base_name(prog));
    wa_program_info_cleanup(&info);
}

/* "\\\\server\\share\\x.exe", "//server/share", "\\\\?\\UNC\\server\\...": a network path by its
 * form, whatever the backend can read of it. */
static bool network_path(const char *p)
{
    return str_ieq_n("\\\\?\\UNC\\", p, 8) ||
           ((p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/') && p[2] != '?' &&
            p[2] != '.');
}

/* Where the file that will start lies: a network share, or anywhere but the system's
 * program folders (where only an administrator installs), is far. */
static void judge_the_place(const struct wa_backend *be, struct launch_plan *out)
{
    const char *f = out->runs && strpbrk(out->runs, "\\/") ? out->runs : out->path;
    if (!f)
        f = strpbrk(out->program, "\\/") ? out->program : NULL;
    out->file = f;
    if (!f)
        return; /* a name nothing resolved: nothing starts */
    struct wa_program_info info;
    enum wa_program_place place = WA_PLACE_ELSEWHERE;
    if (backend_program_info(be, f, &info) == WA_E_OK) {
        place = info.place;
        wa_program_info_cleanup(&info);
    } else {
        wa_err_clear();
    }
    if (network_path(f) || place == WA_PLACE_NETWORK) {
        out->far = true;
        snprintf(out->far_reason, sizeof out->far_reason, "%.120s lies on a network share", f);
    } else if (place != WA_PLACE_SYSTEM) {
        out->far = true;
        snprintf(out->far_reason, sizeof out->far_reason,
                 "%.120s lies outside the system's program folders (Windows, Program Files)", f);
    }
}

wa_err launch_plan_make(const struct wa_backend *be, const char *command, struct launch_plan *out)
{
    memset(out, 0, sizeof *out);
    if (!command)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a program name or path");
    wa_err e = split(be, command, out);
    if (e)
        goto fail;
    const char *prog = out->program;
    if (out->args)
        needs(out, "it is a command line with arguments (\"%.60s\" ...)", out->args);
    if (is_protocol(prog))
        needs(out, "%.80s is a URL or protocol handler", prog);
    if (launch_is_interpreter(prog))
        needs(out, "%.80s is a shell, script host or interpreter", base_name(prog));
    if (launch_is_script(prog))
        needs(out, "%.80s is a script, shortcut or indirection", base_name(prog));
    if (network_path(prog)) { /* not even looked up: a lookup sends the user's credentials */
        needs(out, "%.120s lies on a network share", prog);
        out->far = true;
        snprintf(out->far_reason, sizeof out->far_reason, "%s", out->reason);
        out->command = str_dup(command);
        return out->command ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
    }
    e = backend_resolve_program(be, prog, &out->path, &out->runs);
    if (e == WA_E_ELEMENT_NOT_FOUND && out->needs_shell)
        e = WA_E_OK; /* the shell is refused anyway, or will say so itself */
    if (e)
        goto fail;
    if (out->runs && (launch_is_interpreter(out->runs) || launch_is_script(out->runs)))
        needs(out, "%.80s opens with %.80s, a shell, script host or interpreter", base_name(prog),
              base_name(out->runs));
    if (out->runs || out->path)
        judge_the_file(be, prog, out->runs ? out->runs : out->path, out);
    judge_the_place(be, out);
    if (out->needs_shell) {
        out->command = str_dup(command);
    } else {
        /* Exactly that file, quoted so that nothing of it is read as an argument. */
        const char *what = out->path ? out->path : prog;
        size_t len = strlen(what) + 3;
        if ((out->command = malloc(len)))
            snprintf(out->command, len, "\"%s\"", what);
    }
    if (!out->command) {
        e = wa_fail(WA_E_NOMEM, "out of memory");
        goto fail;
    }
    return WA_E_OK;
fail:
    launch_plan_cleanup(out);
    return e;
}
