/* Launch classification: what will run, and whether it needs the shell permission. */
#include "agent/core/gate/launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/netpath.h"
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
        wa_err_clear(); /* no such file: the first word is the program */
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
static void judge_the_file(const struct launch_plan *p, const struct wa_program_info *info,
                           struct launch_plan *out)
{
    const char *name = base_name(p->runs ? p->runs : p->program);
    if (info->original_name && launch_is_interpreter(info->original_name))
        needs(out, "%.80s is %.80s by its version resource, a shell, script host or interpreter",
              name, info->original_name);
    else if (info->executable && info->console)
        needs(out, "%.80s is a console program: it runs in a terminal like a shell", name);
}

/* Refuses what lies on a share before it is looked up: why says what spelling or
 * resolution made it remote. */
static void on_a_share(struct launch_plan *out, const char *what, const char *why)
{
    out->network = out->far = true;
    snprintf(out->far_reason, sizeof out->far_reason,
             "%.100s lies on a network share (%.200s); it was not looked up", what, why);
    needs(out, "%s", out->far_reason);
}

/* Where the file that will start lies: on a network share, or where ordinary users can
 * write (not installed), it is far. */
static void judge_the_place(const struct wa_program_info *info, struct launch_plan *out)
{
    if (!out->file)
        return; /* a name nothing resolved: nothing starts */
    if (info->place == WA_PLACE_NETWORK) {
        on_a_share(out, out->file, info->place_why[0] ? info->place_why : "a remote drive");
    } else if (info->place != WA_PLACE_SYSTEM) {
        out->far = true;
        snprintf(out->far_reason, sizeof out->far_reason, "%.120s is not installed: %.100s",
                 out->file,
                 info->place_why[0] ? info->place_why : "ordinary users can write where it lies");
    }
}

/* Whether a and b name the same file (the association runs the file itself). */
static bool same_file(const char *a, const char *b)
{
    return a && b && str_ieq(a, b);
}

/* What the file the command names is: an executable image is the program that runs
 * (whatever its name or its association says), anything else a document opened through
 * its association. Then everything about the file that will start: its own file, its
 * place. */
static wa_err judge(const struct wa_backend *be, struct launch_plan *out)
{
    struct wa_program_info named = {0}, runs = {0};
    wa_err e = WA_E_OK;
    bool have_named = out->path && backend_program_info(be, out->path, &named) == WA_E_OK;
    wa_err_clear(); /* nothing to read: the name's verdict stands */
    if (have_named && named.place == WA_PLACE_NETWORK) {
        on_a_share(out, out->path, named.place_why[0] ? named.place_why : "a remote drive");
        goto out;
    }
    if (have_named && named.executable) {
        out->kind = WA_LAUNCH_PROGRAM;
        if (!same_file(out->runs, out->path)) { /* a program in a document's name */
            free(out->runs);
            if (!(out->runs = str_dup(out->path))) {
                e = wa_fail(WA_E_NOMEM, "out of memory");
                goto out;
            }
        }
    } else if (out->path) {
        out->kind = WA_LAUNCH_DOCUMENT;
        if (!out->runs && !out->needs_shell) {
            e = wa_fail(WA_E_ELEMENT_NOT_FOUND,
                        "nothing opens %.200s: it is no program image, and no program is "
                        "associated with its kind of file",
                        out->path);
            goto out;
        }
        if (same_file(out->runs, out->path))
            needs(out, "%.80s is no program image, yet it would run as a program itself",
                  base_name(out->path));
    } else {
        out->kind = WA_LAUNCH_PROGRAM; /* a name the backend starts as it is */
    }
    if (out->runs && (launch_is_interpreter(out->runs) || launch_is_script(out->runs)))
        needs(out, "%.80s opens with %.80s, a shell, script host or interpreter",
              base_name(out->program), base_name(out->runs));
    const char *f = out->runs && strpbrk(out->runs, "\\/") ? out->runs : out->path;
    if (!f)
        f = strpbrk(out->program, "\\/") ? out->program : NULL;
    out->file = f;
    bool have_runs = false;
    if (f && same_file(f, out->path) && have_named) {
        runs = named; /* the same file: read once */
        memset(&named, 0, sizeof named);
        have_runs = true;
    } else if (f) {
        have_runs = backend_program_info(be, f, &runs) == WA_E_OK;
        wa_err_clear();
    }
    if (have_runs) {
        judge_the_file(out, &runs, out);
    } else if (f) {
        runs.place = WA_PLACE_ELSEWHERE;
        snprintf(runs.place_why, sizeof runs.place_why, "its place cannot be read");
    }
    judge_the_place(&runs, out);
out:
    wa_program_info_cleanup(&runs);
    wa_program_info_cleanup(&named);
    return e;
}

wa_err launch_plan_make(const struct wa_backend *be, const char *command, struct launch_plan *out)
{
    memset(out, 0, sizeof *out);
    if (!command)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a program name or path");
    /* A share by its spelling is refused before anything is resolved: the command's
     * start is its program, or (unquoted, with spaces) the path split looks up whole. */
    const char *lead = command + strspn(command, " \t");
    const char *remote = netpath_remote(*lead == '"' ? lead + 1 : lead);
    wa_err e = WA_E_OK;
    if (remote) {
        char what[128];
        snprintf(what, sizeof what, "%.*s", (int)strcspn(*lead == '"' ? lead + 1 : lead, "\""),
                 *lead == '"' ? lead + 1 : lead);
        on_a_share(out, what, remote);
        out->kind = WA_LAUNCH_LINE;
        if (!(out->program = str_dup(what)) || !(out->command = str_dup(command)))
            goto nomem;
        return WA_E_OK;
    }
    if ((e = split(be, command, out)))
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
    e = backend_resolve_program(be, prog, &out->path, &out->runs);
    if (e == WA_E_DENIED) { /* it is, or became, a path on a share: not looked up */
        char why[300];
        snprintf(why, sizeof why, "%s", wa_err_detail());
        wa_err_clear();
        on_a_share(out, prog, why);
        e = WA_E_OK;
    } else if (e == WA_E_ELEMENT_NOT_FOUND && out->needs_shell) {
        e = WA_E_OK; /* the shell is refused anyway, or will say so itself */
    }
    if (e)
        goto fail;
    if ((remote = netpath_remote(out->path)) || (remote = netpath_remote(out->runs)))
        on_a_share(out, netpath_remote(out->path) ? out->path : out->runs, remote);
    else if (!out->network && (e = judge(be, out)))
        goto fail;
    if (out->needs_shell) {
        out->kind = WA_LAUNCH_LINE;
        out->command = str_dup(command);
    } else {
        /* Exactly that file: its whole path (a program or document), else the name. */
        out->command = str_dup(out->path ? out->path : prog);
    }
    if (!out->command)
        goto nomem;
    return WA_E_OK;
nomem:
    e = wa_fail(WA_E_NOMEM, "out of memory");
fail:
    launch_plan_cleanup(out);
    return e;
}
