/* Launch is not a shell: which commands start a program as it is, and which need the
 * shell permission (arguments, interpreters, scripts, protocols, associations). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/core/gate/launch.h"
#include "automation/fake/fake_backend.h"

static const char scene[] =
    "{\"windows\": [],"
    " \"programs\": {"
    "   \"notepad\": {\"path\": \"C:\\\\Windows\\\\notepad.exe\"},"
    "   \"C:\\\\Program Files\\\\Tool\\\\tool.exe\": {\"path\": \"C:\\\\Program "
    "Files\\\\Tool\\\\tool.exe\"},"
    "   \"report.py\": {\"path\": \"C:\\\\x\\\\report.py\", \"runs\": "
    "\"C:\\\\Python\\\\python.exe\"},"
    "   \"notes.txt\": {\"path\": \"C:\\\\x\\\\notes.txt\", \"runs\": "
    "\"C:\\\\Windows\\\\notepad.exe\"},"
    "   \"cmd.exe\": {\"path\": \"C:\\\\Windows\\\\system32\\\\cmd.exe\"},"
    "   \"pwsh\": {\"path\": \"C:\\\\pwsh\\\\pwsh.exe\"},"
    /* programs in a document's name, and documents */
    "   \"C:\\\\Users\\\\Public\\\\Downloads\\\\invoice.ini\": {\"path\": "
    "\"C:\\\\Users\\\\Public\\\\Downloads\\\\invoice.ini\", \"runs\": "
    "\"C:\\\\Windows\\\\notepad.exe\", "
    "\"executable\": true},"
    "   \"C:\\\\Users\\\\Public\\\\Downloads\\\\notes.ini\": {\"path\": "
    "\"C:\\\\Users\\\\Public\\\\Downloads\\\\notes.ini\", \"runs\": "
    "\"C:\\\\Windows\\\\notepad.exe\", "
    "\"executable\": true, \"console\": true, \"original_name\": \"Cmd.Exe\"},"
    "   \"C:\\\\Program Files\\\\Tool\\\\report.ini\": {\"path\": \"C:\\\\Program "
    "Files\\\\Tool\\\\report.ini\", \"runs\": \"C:\\\\Windows\\\\notepad.exe\", \"executable\": "
    "true},"
    "   \"C:\\\\Program Files\\\\Tool\\\\helper.ini\": {\"path\": \"C:\\\\Program "
    "Files\\\\Tool\\\\helper.ini\", \"runs\": \"C:\\\\Windows\\\\notepad.exe\", \"executable\": "
    "true, "
    "\"original_name\": \"pwsh.dll\"},"
    "   \"loose\": {\"path\": \"C:\\\\Program Files\\\\Loose\\\\loose.exe\"},"
    "   \"readme.xyz\": {\"path\": \"C:\\\\x\\\\readme.xyz\", \"runs\": \"C:\\\\x\\\\readme.xyz\"},"
    "   \"fake.exe\": {\"path\": \"C:\\\\Program Files\\\\Tool\\\\fake.exe\", \"executable\": "
    "false,"
    "               \"runs\": \"C:\\\\Program Files\\\\Tool\\\\fake.exe\"},"
    "   \"\\\\\\\\?\\\\C:\\\\Windows\\\\notepad.exe\": {\"path\": \"C:\\\\Windows\\\\notepad.exe\"}"
    " },"
    " \"writable\": [\"C:\\\\Program Files\\\\Loose\"]}";

static int setup(void **state)
{
    (void)state;
    return fake_load_scene(scene, NULL) == WA_E_OK ? 0 : -1;
}

/* Plans command; returns whether it needs the shell (and checks it was planned). */
static bool needs_shell(const char *command, struct launch_plan *p)
{
    wa_err e = launch_plan_make(backend_default(), command, p);
    if (e)
        fail_msg("'%s' was not planned: %s", command, wa_err_detail());
    return p->needs_shell;
}

static void programs_start_as_they_are(void **state)
{
    (void)state;
    struct launch_plan p;
    assert_false(needs_shell("notepad", &p));
    /* exactly that file, by its whole path: no arguments */
    assert_string_equal(p.command, "C:\\Windows\\notepad.exe");
    assert_int_equal(p.kind, WA_LAUNCH_PROGRAM);
    launch_plan_cleanup(&p);

    /* an unquoted path with spaces that names a file is that file */
    assert_false(needs_shell("C:\\Program Files\\Tool\\tool.exe", &p));
    assert_null(p.args);
    assert_string_equal(p.command, "C:\\Program Files\\Tool\\tool.exe");
    launch_plan_cleanup(&p);

    assert_false(needs_shell("  \"notepad\"  ", &p));
    launch_plan_cleanup(&p);

    /* a document whose association is a plain program: opened through it */
    assert_false(needs_shell("notes.txt", &p));
    assert_int_equal(p.kind, WA_LAUNCH_DOCUMENT);
    assert_string_equal(p.command, "C:\\x\\notes.txt");
    assert_string_equal(p.runs, "C:\\Windows\\notepad.exe");
    launch_plan_cleanup(&p);

    /* a drive, spelled as a device, is a drive */
    assert_false(needs_shell("\\\\?\\C:\\Windows\\notepad.exe", &p));
    assert_false(p.network);
    launch_plan_cleanup(&p);
}

/* A file is judged as what it is, read before anything starts: an executable image in a
 * document's name is that program to every check (its place, its console, its version
 * resource) and is started as exactly that file; a document is opened through its
 * association; a file that would run itself without being an image needs the shell. */
static void a_file_is_judged_as_what_it_is(void **state)
{
    (void)state;
    struct launch_plan p;
    /* a copy of a program named invoice.ini: the program, where users write */
    assert_false(needs_shell("C:\\Users\\Public\\Downloads\\invoice.ini", &p));
    assert_int_equal(p.kind, WA_LAUNCH_PROGRAM);
    assert_string_equal(p.runs, "C:\\Users\\Public\\Downloads\\invoice.ini");
    assert_string_equal(p.file, "C:\\Users\\Public\\Downloads\\invoice.ini");
    assert_true(p.far);
    assert_non_null(strstr(p.far_reason, "not installed"));
    launch_plan_cleanup(&p);
    /* a copy of cmd.exe named notes.ini: a console program, cmd by its version resource */
    assert_true(needs_shell("C:\\Users\\Public\\Downloads\\notes.ini", &p));
    assert_non_null(strstr(p.reason, "Cmd.Exe"));
    assert_int_equal(p.kind, WA_LAUNCH_LINE);
    launch_plan_cleanup(&p);
    /* installed, in a document's name: a program, started as that file, not opened */
    assert_false(needs_shell("C:\\Program Files\\Tool\\report.ini", &p));
    assert_false(p.far);
    assert_int_equal(p.kind, WA_LAUNCH_PROGRAM);
    assert_string_equal(p.command, "C:\\Program Files\\Tool\\report.ini");
    launch_plan_cleanup(&p);
    /* its version resource says an interpreter whatever its names */
    assert_true(needs_shell("C:\\Program Files\\Tool\\helper.ini", &p));
    assert_non_null(strstr(p.reason, "version resource"));
    launch_plan_cleanup(&p);
    /* no image, but its association runs it as a program; an .exe that is no image */
    assert_true(needs_shell("readme.xyz", &p));
    assert_non_null(strstr(p.reason, "no program image"));
    launch_plan_cleanup(&p);
    assert_true(needs_shell("fake.exe", &p));
    assert_non_null(strstr(p.reason, "no program image"));
    launch_plan_cleanup(&p);
    /* a Program Files folder users may write is no installed place */
    assert_false(needs_shell("loose", &p));
    assert_true(p.far);
    assert_non_null(strstr(p.far_reason, "not installed"));
    launch_plan_cleanup(&p);
}

/* A share is refused by its spelling, before anything is resolved or read: the fake
 * backend records every path it was asked to look up, and none names the server. */
static void shares_are_refused_before_any_lookup(void **state)
{
    (void)state;
    static const char *const shares[] = {
        "\\\\evil\\share\\a b",
        "\\\\evil\\share\\x.exe",
        "\"\\\\evil\\share\\x.exe\" /quiet",
        "  //evil/share/x.exe",
        "\\\\.\\UNC\\evil\\share\\x.exe",
        "//?/UNC/evil/share/x.exe",
        "\\\\?\\UNC\\evil\\share\\x.exe",
        "\\\\?\\GLOBALROOT\\Device\\Mup\\evil\\share\\x.exe",
        "\\??\\UNC\\evil\\share\\x.exe",
        "\\\\.\\C:\\..\\UNC\\evil\\share\\x.exe",
    };
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    for (size_t i = 0; i < sizeof shares / sizeof *shares; i++) {
        struct launch_plan p;
        if (!needs_shell(shares[i], &p) || !p.network || !p.far)
            fail_msg("'%s' was not refused as a share", shares[i]);
        assert_non_null(strstr(p.reason, "not looked up"));
        assert_int_equal(p.kind, WA_LAUNCH_LINE);
        launch_plan_cleanup(&p);
    }
    char *lookups = fake_lookups_json();
    if (strstr(lookups, "evil"))
        fail_msg("a share was looked up: %s", lookups);
    free(lookups);
}

static void shell_lines_need_the_permission(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "cmd.exe /c del x",       /* a shell, with arguments */
        "cmd.exe",                /* a shell alone */
        "C:\\pwsh\\pwsh.exe",     /* by path */
        "powershell -c calc",     /* unknown to the machine, still a shell */
        "notepad C:\\secret.txt", /* arguments */
        "\"notepad\" /p x",       /* arguments after a quoted program */
        "report.py",              /* its association is an interpreter */
        "run.bat",                /* scripts */
        "x.ps1",
        "link.lnk",
        "https://example.com/", /* URLs and protocol handlers */
        "ms-settings:privacy",
        "wscript.exe",
        "python3.12",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        struct launch_plan p;
        if (!needs_shell(lines[i], &p))
            fail_msg("'%s' would start without the shell permission", lines[i]);
        assert_true(*p.reason);
        assert_string_equal(p.command, lines[i]); /* handed to the shell only as typed */
        launch_plan_cleanup(&p);
    }
}

static void bad_commands_are_refused(void **state)
{
    (void)state;
    struct launch_plan p;
    assert_int_equal(launch_plan_make(backend_default(), "", &p), WA_E_INVALID_ARGS);
    assert_int_equal(launch_plan_make(backend_default(), "   ", &p), WA_E_INVALID_ARGS);
    assert_int_equal(launch_plan_make(backend_default(), NULL, &p), WA_E_INVALID_ARGS);
    assert_int_equal(launch_plan_make(backend_default(), "\"notepad", &p), WA_E_INVALID_ARGS);
    assert_int_equal(launch_plan_make(backend_default(), "\"\"", &p), WA_E_INVALID_ARGS);
    assert_int_equal(launch_plan_make(backend_default(), "nosuchprogram", &p),
                     WA_E_ELEMENT_NOT_FOUND);
}

static void interpreters_and_scripts_by_name(void **state)
{
    (void)state;
    assert_true(launch_is_interpreter("cmd.exe"));
    assert_true(launch_is_interpreter("CMD"));
    assert_true(launch_is_interpreter("C:\\x\\PowerShell.EXE"));
    assert_true(launch_is_interpreter("python3.12"));
    assert_true(launch_is_interpreter("mshta.exe"));
    assert_false(launch_is_interpreter("notepad.exe"));
    assert_false(launch_is_interpreter("calc"));
    assert_true(launch_is_script("a.BAT"));
    assert_true(launch_is_script("C:\\x\\y.vbs"));
    assert_true(launch_is_script("page.hta"));
    assert_false(launch_is_script("notepad.exe"));
    assert_false(launch_is_script("readme.txt"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(programs_start_as_they_are),
        cmocka_unit_test(a_file_is_judged_as_what_it_is),
        cmocka_unit_test(shares_are_refused_before_any_lookup),
        cmocka_unit_test(shell_lines_need_the_permission),
        cmocka_unit_test(bad_commands_are_refused),
        cmocka_unit_test(interpreters_and_scripts_by_name),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
