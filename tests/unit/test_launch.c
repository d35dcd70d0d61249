/* Launch is not a shell: which commands start a program as it is, and which need the
 * shell permission (arguments, interpreters, scripts, protocols, associations). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "agent/core/launch.h"
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
    "   \"pwsh\": {\"path\": \"C:\\\\pwsh\\\\pwsh.exe\"}"
    " }}";

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
    assert_string_equal(p.command, "\"C:\\Windows\\notepad.exe\""); /* quoted: no arguments */
    launch_plan_cleanup(&p);

    /* an unquoted path with spaces that names a file is that file */
    assert_false(needs_shell("C:\\Program Files\\Tool\\tool.exe", &p));
    assert_null(p.args);
    assert_string_equal(p.command, "\"C:\\Program Files\\Tool\\tool.exe\"");
    launch_plan_cleanup(&p);

    assert_false(needs_shell("  \"notepad\"  ", &p));
    launch_plan_cleanup(&p);

    /* a document whose association is a plain program */
    assert_false(needs_shell("notes.txt", &p));
    launch_plan_cleanup(&p);
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
        cmocka_unit_test(shell_lines_need_the_permission),
        cmocka_unit_test(bad_commands_are_refused),
        cmocka_unit_test(interpreters_and_scripts_by_name),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
