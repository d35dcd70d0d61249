/* Unit tests: the security gate (restricted processes, rate limit, dry-run, audit log)
 * on the scripted fake desktop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/gate.h"
#include "automation/fake/fake_backend.h"
#include "base/os.h"

static const char scene[] =
    "{\"monitors\":[{\"rect\":[0,0,1920,1080],\"primary\":true}],"
    " \"windows\":["
    "  {\"hwnd\":256,\"title\":\"Untitled - Notepad\",\"process\":\"notepad.exe\",\"pid\":7,"
    "   \"rect\":[0,0,800,600],\"foreground\":true},"
    "  {\"hwnd\":512,\"title\":\"Passwords.kdbx - KeePass\",\"process\":\"KeePass.EXE\","
    "   \"pid\":8,\"rect\":[100,100,900,700]},"
    "  {\"hwnd\":768,\"title\":\"User Account Control\",\"process\":\"consent.exe\",\"pid\":9,"
    "   \"rect\":[400,300,900,600]},"
    "  {\"hwnd\":1024,\"title\":\"winagent testapp\",\"process\":\"testapp.exe\",\"pid\":10,"
    "   \"rect\":[40,40,940,700]}]}";

static int setup(void **state)
{
    (void)state;
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    os_setenv("WINAGENT_RESTRICTED", NULL);
    os_setenv("WINAGENT_MAX_ACTIONS_PER_S", NULL);
    os_setenv("WINAGENT_AUDIT_LOG", NULL);
    return 0;
}

static struct gate *make_gate(const struct gate_opts *o)
{
    struct gate *g = NULL;
    assert_int_equal(gate_new(o, &g), WA_E_OK);
    assert_non_null(g);
    return g;
}

/* A generous rate so the restriction tests never wait for a slot. */
static const struct gate_opts fast = {.max_actions_per_s = 1000};

static void test_default_list_refuses_credential_windows(void **state)
{
    (void)state;
    const struct wa_backend *be = backend_default();
    struct gate *g = make_gate(&fast);
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    wa_err_clear();
    assert_int_equal(gate_check(g, be, "type", 512), WA_E_DENIED); /* case-insensitive */
    assert_non_null(strstr(wa_err_detail(), "KeePass.EXE"));
    assert_non_null(strstr(wa_err_detail(), "restricted"));
    assert_int_equal(gate_check(g, be, "click", 768), WA_E_DENIED);
    assert_non_null(strstr(wa_err_detail(), "consent.exe"));
    assert_int_equal(gate_check(g, be, "click", 1024), WA_E_OK);
    gate_free(g);
}

static void test_stale_handle_and_no_window(void **state)
{
    (void)state;
    const struct wa_backend *be = backend_default();
    struct gate *g = make_gate(&fast);
    assert_int_equal(gate_check(g, be, "click", 0x999), WA_E_WINDOW_NOT_FOUND);
    assert_non_null(strstr(wa_err_detail(), "0x999"));
    assert_int_equal(gate_check(g, be, "launch", 0), WA_E_OK); /* nothing to check yet */
    gate_free(g);
}

static void test_environment_extends_the_default_list(void **state)
{
    (void)state;
    const struct wa_backend *be = backend_default();
    os_setenv("WINAGENT_RESTRICTED", " notepad.exe , TestApp ");
    struct gate *g = make_gate(&fast);
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_DENIED);
    assert_int_equal(gate_check(g, be, "click", 1024), WA_E_DENIED); /* without ".exe" */
    assert_non_null(strstr(wa_err_detail(), "testapp.exe"));
    assert_int_equal(gate_check(g, be, "click", 512), WA_E_DENIED); /* defaults still hold */
    gate_free(g);
    os_setenv("WINAGENT_RESTRICTED", NULL);
}

static void test_explicit_list_replaces_defaults(void **state)
{
    (void)state;
    const struct wa_backend *be = backend_default();
    os_setenv("WINAGENT_RESTRICTED", "notepad.exe"); /* ignored: the list is explicit */
    struct gate_opts o = fast;
    o.restricted = "*test*";
    struct gate *g = make_gate(&o);
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    assert_int_equal(gate_check(g, be, "click", 512), WA_E_OK);
    assert_int_equal(gate_check(g, be, "click", 1024), WA_E_DENIED);
    gate_free(g);

    o.restricted = ""; /* the list turned off */
    g = make_gate(&o);
    assert_int_equal(gate_check(g, be, "click", 768), WA_E_OK);
    gate_free(g);
    os_setenv("WINAGENT_RESTRICTED", NULL);
}

static void test_rate_limit_waits_then_refuses(void **state)
{
    (void)state;
    const struct wa_backend *be = backend_default();
    struct gate_opts o = {.max_actions_per_s = 2};
    struct gate *g = make_gate(&o);
    int64_t t0 = os_now_ms();
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    assert_true(os_now_ms() - t0 < 200); /* the bucket starts full */
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    int64_t waited = os_now_ms() - t0;
    assert_true(waited >= 450 && waited < 900); /* one slot every 500 ms */
    gate_free(g);

    /* Slower than one per second: the next slot is too far away to wait for. */
    o.max_actions_per_s = 0.5;
    g = make_gate(&o);
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    t0 = os_now_ms();
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_DENIED);
    assert_true(os_now_ms() - t0 < 200);
    assert_non_null(strstr(wa_err_detail(), "rate limit of 0.5 actions per second exceeded"));
    gate_free(g);
}

static void test_rate_from_environment_and_refusals_cost_nothing(void **state)
{
    (void)state;
    const struct wa_backend *be = backend_default();
    os_setenv("WINAGENT_MAX_ACTIONS_PER_S", "3");
    struct gate *g = make_gate(NULL);
    int64_t t0 = os_now_ms();
    /* Refused windows do not use up slots. */
    for (int i = 0; i < 5; i++)
        assert_int_equal(gate_check(g, be, "click", 512), WA_E_DENIED);
    for (int i = 0; i < 3; i++)
        assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    assert_true(os_now_ms() - t0 < 200);
    assert_int_equal(gate_check(g, be, "click", 256), WA_E_OK);
    assert_true(os_now_ms() - t0 >= 300);
    gate_free(g);
    os_setenv("WINAGENT_MAX_ACTIONS_PER_S", NULL);
}

static void test_dry_run_flag(void **state)
{
    (void)state;
    struct gate_opts o = {.dry_run = true};
    struct gate *g = make_gate(&o);
    assert_true(gate_dry_run(g));
    gate_free(g);
    g = make_gate(NULL);
    assert_false(gate_dry_run(g));
    gate_free(g);
    assert_false(gate_dry_run(NULL));
}

static char *temp_path(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "/tmp/test_gate-%lu-%s", (unsigned long)getpid(), name);
    remove(buf);
    return buf;
}

/* The audit log's lines, parsed. */
static cJSON *read_audit(const char *path, int expect_lines)
{
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(os_read_file(path, 1 << 20, &text, &len), WA_E_OK);
    assert_true(len > 0 && text[len - 1] == '\n'); /* every line ends */
    cJSON *lines = cJSON_CreateArray();
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        cJSON *o = cJSON_Parse(l);
        assert_non_null(o);
        cJSON_AddItemToArray(lines, o);
    }
    assert_int_equal(cJSON_GetArraySize(lines), expect_lines);
    free(text);
    return lines;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_audit_log_records_outcomes_without_secrets(void **state)
{
    (void)state;
    const struct wa_backend *be = backend_default();
    const char *path = temp_path("audit.jsonl");
    struct gate_opts o = fast;
    o.audit_path = path;
    struct gate *g = make_gate(&o);

    cJSON *typed = cJSON_Parse("{\"window\":\"Notepad\",\"text\":\"hunter2 secret\","
                               "\"keys\":\"ctrl+s\",\"nested\":{\"value\":\"pin 1234\"}}");
    assert_int_equal(gate_check(g, be, "type", 256), WA_E_OK);
    gate_audit(g, "type", typed, 256, WA_E_OK, NULL);
    cJSON *click = cJSON_Parse("{\"ref\":\"3\"}");
    assert_int_equal(gate_check(g, be, "click", 512), WA_E_DENIED);
    gate_audit(g, "click", click, 512, WA_E_DENIED, wa_err_detail());
    cJSON *shell = cJSON_Parse("{\"command\":\"Get-Secret -Name x\"}");
    gate_audit(g, "powershell", shell, 0, WA_E_OK, NULL);
    gate_free(g);

    char *raw = NULL;
    assert_int_equal(os_read_file(path, 1 << 20, &raw, NULL), WA_E_OK);
    assert_null(strstr(raw, "hunter2"));
    assert_null(strstr(raw, "1234"));
    assert_null(strstr(raw, "Get-Secret"));
    free(raw);

    cJSON *lines = read_audit(path, 3);
    const cJSON *l0 = cJSON_GetArrayItem(lines, 0), *l1 = cJSON_GetArrayItem(lines, 1),
                *l2 = cJSON_GetArrayItem(lines, 2);
    const char *time = str_of(l0, "time");
    assert_non_null(time);
    assert_int_equal(strlen(time), 24); /* 2026-01-02T03:04:05.678Z */
    assert_int_equal(time[10], 'T');
    assert_int_equal(time[23], 'Z');
    assert_string_equal(str_of(l0, "command"), "type");
    assert_string_equal(str_of(l0, "window"), "0x100");
    assert_string_equal(str_of(l0, "process"), "notepad.exe");
    assert_string_equal(str_of(l0, "outcome"), "ok");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(l0, "error")));
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(l0, "pid")));
    const cJSON *p0 = cJSON_GetObjectItemCaseSensitive(l0, "params");
    assert_string_equal(str_of(p0, "keys"), "ctrl+s");
    assert_string_equal(str_of(p0, "window"), "Notepad");
    const cJSON *len =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p0, "text"), "length");
    assert_true(cJSON_IsNumber(len));
    assert_int_equal(len->valueint, 14);

    assert_string_equal(str_of(l1, "outcome"), "denied");
    assert_string_equal(str_of(l1, "process"), "KeePass.EXE");
    assert_non_null(strstr(str_of(l1, "error"), "restricted"));
    assert_string_equal(str_of(cJSON_GetObjectItemCaseSensitive(l1, "params"), "ref"), "3");

    assert_string_equal(str_of(l2, "command"), "powershell");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(l2, "window")));

    cJSON_Delete(lines);
    cJSON_Delete(typed);
    cJSON_Delete(click);
    cJSON_Delete(shell);
    remove(path);
}

static void test_audit_log_appends_and_follows_the_environment(void **state)
{
    (void)state;
    const char *path = temp_path("env-audit.jsonl");
    os_setenv("WINAGENT_AUDIT_LOG", path);
    for (int i = 0; i < 2; i++) { /* two processes' worth: lines are appended */
        struct gate *g = make_gate(NULL);
        gate_audit(g, "wait", NULL, 0, WA_E_OK, NULL);
        gate_free(g);
    }
    os_setenv("WINAGENT_AUDIT_LOG", NULL);
    cJSON_Delete(read_audit(path, 2));
    remove(path);

    /* No path anywhere: no log, and auditing is harmless. */
    struct gate *g = make_gate(NULL);
    gate_audit(g, "click", NULL, 256, WA_E_OK, NULL);
    gate_free(g);
    gate_audit(NULL, "click", NULL, 256, WA_E_OK, NULL);

    struct gate_opts o = {.audit_path = "/nonexistent-dir/audit.jsonl"};
    struct gate *bad = (struct gate *)1;
    assert_int_equal(gate_new(&o, &bad), WA_E_IO);
    assert_null(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_default_list_refuses_credential_windows, setup),
        cmocka_unit_test_setup(test_stale_handle_and_no_window, setup),
        cmocka_unit_test_setup(test_environment_extends_the_default_list, setup),
        cmocka_unit_test_setup(test_explicit_list_replaces_defaults, setup),
        cmocka_unit_test_setup(test_rate_limit_waits_then_refuses, setup),
        cmocka_unit_test_setup(test_rate_from_environment_and_refusals_cost_nothing, setup),
        cmocka_unit_test_setup(test_dry_run_flag, setup),
        cmocka_unit_test_setup(test_audit_log_records_outcomes_without_secrets, setup),
        cmocka_unit_test_setup(test_audit_log_appends_and_follows_the_environment, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
