/* Settings resolve one way for every subcommand: a flag, else the environment, else
 * .env, else the default; secrets are masked and leave the environment once read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/core/config/settings.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/winagent-settings-XXXXXX");
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return -1;
    FILE *f = fopen(".env", "wb");
    if (!f)
        return -1;
    fputs("\xef\xbb\xbf# a .env with a BOM\n"
          "LLM_MODEL=from-dotenv\n"
          "WINAGENT_MAX_STEPS=7\n"
          "LLM_BASE_URL=http://127.0.0.1:9/v1\n"
          "LLM_API_KEY=sk-dotenv-secret-123456\n",
          f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(".env");
    if (chdir("/") == 0)
        rmdir(dir);
    return 0;
}

static void flag_over_env_over_dotenv_over_default(void **state)
{
    (void)state;
    setenv("WINAGENT_MAX_STEPS", "12", 1);
    setenv("LLM_MODEL", "", 1); /* empty counts as unset */
    char *argv[] = {"winagent", "--mode", "pixel", "run"};
    struct args a;
    args_init(&a, 4, argv, 1);
    struct settings s;
    assert_int_equal(settings_load(&s, &a, SG_RUN), WA_E_OK);
    assert_string_equal(settings_get(&s, SET_MODE), "pixel");
    assert_string_equal(setting_source_name(&s, SET_MODE), "flag --mode");
    assert_string_equal(settings_get(&s, SET_MAX_STEPS), "12");
    assert_string_equal(setting_source_name(&s, SET_MAX_STEPS), "environment WINAGENT_MAX_STEPS");
    assert_string_equal(settings_get(&s, SET_MODEL), "from-dotenv");
    assert_non_null(strstr(setting_source_name(&s, SET_MODEL), ".env (LLM_MODEL)"));
    assert_string_equal(settings_get(&s, SET_HISTORY_IMAGES), "3");
    assert_string_equal(setting_source_name(&s, SET_HISTORY_IMAGES), "default");
    int steps = 0;
    assert_int_equal(settings_int(&s, SET_MAX_STEPS, 1, 10000, 30, &steps), WA_E_OK);
    assert_int_equal(steps, 12);
    settings_cleanup(&s);
    unsetenv("WINAGENT_MAX_STEPS");
    unsetenv("LLM_MODEL");
}

static void keys_are_masked_and_leave_the_environment(void **state)
{
    (void)state;
    setenv("LLM_API_KEY", "sk-env-secret-abcdef", 1);
    setenv("OTHER_API_KEY", "sk-other", 1);
    setenv("WINAGENT_MCP_TOKEN", "tok-secret-xyz", 1);
    struct settings s;
    assert_int_equal(settings_load(&s, NULL, SG_DESK), WA_E_OK);
    assert_string_equal(settings_get(&s, SET_API_KEY), "sk-env-secret-abcdef");
    assert_string_equal(settings_get(&s, SET_MCP_TOKEN), "tok-secret-xyz");
    /* programs winagent starts inherit none of them */
    assert_null(getenv("LLM_API_KEY"));
    assert_null(getenv("OTHER_API_KEY"));
    assert_null(getenv("WINAGENT_MCP_TOKEN"));
    char shown[128];
    setting_display(&s, SET_API_KEY, shown, sizeof shown);
    assert_null(strstr(shown, "secret"));
    setting_display(&s, SET_MCP_TOKEN, shown, sizeof shown);
    assert_null(strstr(shown, "secret"));
    settings_cleanup(&s);

    /* from a .env the user named, the key is found and masked just the same */
    char *argv[] = {"winagent", "--env-file", ".env", "run"};
    struct args a;
    args_init(&a, 4, argv, 1);
    assert_int_equal(settings_load(&s, &a, SG_RUN), WA_E_OK);
    assert_string_equal(settings_get(&s, SET_API_KEY), "sk-dotenv-secret-123456");
    setting_display(&s, SET_API_KEY, shown, sizeof shown);
    assert_null(strstr(shown, "dotenv-secret"));
    settings_cleanup(&s);
}

/* A .env in the working folder was written by whoever handed over the folder: what
 * decides where the key and the screens go or what runs is taken from it only when the
 * user names it (--env-file or WINAGENT_ENV_FILE); the rest is. */
static void a_working_folders_env_decides_nothing_it_was_not_trusted_with(void **state)
{
    (void)state;
    struct settings s;
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_OK);
    assert_null(settings_get(&s, SET_BASE_URL));
    assert_null(settings_get(&s, SET_API_KEY));
    assert_string_equal(settings_get(&s, SET_MODEL), "from-dotenv"); /* harmless: taken */
    assert_non_null(strstr(s.ignored, "LLM_BASE_URL"));
    assert_non_null(strstr(s.ignored, "LLM_API_KEY"));
    assert_null(strstr(s.ignored, "LLM_MODEL"));
    settings_cleanup(&s);

    setenv("WINAGENT_ENV_FILE", ".env", 1);
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_OK);
    assert_string_equal(settings_get(&s, SET_BASE_URL), "http://127.0.0.1:9/v1");
    assert_string_equal(s.ignored, "");
    settings_cleanup(&s);
    setenv("WINAGENT_ENV_FILE", "no-such.env", 1);
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_CONFIG);
    assert_non_null(strstr(wa_err_detail(), "no-such.env"));
    settings_cleanup(&s);
    unsetenv("WINAGENT_ENV_FILE");
}

static void keys_never_come_from_the_command_line(void **state)
{
    (void)state;
    char *argv[] = {"winagent", "--api-key", "sk-x", "run"};
    struct args a;
    args_init(&a, 4, argv, 1);
    struct settings s;
    assert_int_equal(settings_load(&s, &a, SG_RUN), WA_E_USAGE);
    settings_cleanup(&s);
}

static void numbers_out_of_range_are_refused(void **state)
{
    (void)state;
    setenv("WINAGENT_HISTORY_IMAGES", "500", 1);
    struct settings s;
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_OK);
    int n = 0;
    assert_int_not_equal(settings_int(&s, SET_HISTORY_IMAGES, 0, 100, 3, &n), WA_E_OK);
    assert_non_null(strstr(wa_err_detail(), "WINAGENT_HISTORY_IMAGES"));
    settings_cleanup(&s);
    setenv("WINAGENT_HISTORY_IMAGES", "three", 1);
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_OK);
    assert_int_not_equal(settings_int(&s, SET_HISTORY_IMAGES, 0, 100, 3, &n), WA_E_OK);
    settings_cleanup(&s);
    unsetenv("WINAGENT_HISTORY_IMAGES");
}

/* Storage of Responses: off unless the user says otherwise (--store, WINAGENT_STORE);
 * a value that is neither on nor off is refused, naming where it came from. */
static void store_is_off_unless_set(void **state)
{
    (void)state;
    struct settings s;
    bool store = true;
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_OK);
    assert_int_equal(settings_switch(&s, SET_STORE, &store), WA_E_OK);
    assert_false(store);
    assert_string_equal(setting_source_name(&s, SET_STORE), "default");
    settings_cleanup(&s);
    char *argv[] = {"winagent", "--store", "run"};
    struct args a;
    args_init(&a, 3, argv, 1);
    assert_int_equal(settings_load(&s, &a, SG_RUN), WA_E_OK);
    assert_int_equal(settings_switch(&s, SET_STORE, &store), WA_E_OK);
    assert_true(store);
    assert_string_equal(setting_source_name(&s, SET_STORE), "flag --store");
    settings_cleanup(&s);
    setenv("WINAGENT_STORE", "off", 1);
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_OK);
    assert_int_equal(settings_switch(&s, SET_STORE, &store), WA_E_OK);
    assert_false(store);
    settings_cleanup(&s);
    setenv("WINAGENT_STORE", "sometimes", 1);
    assert_int_equal(settings_load(&s, NULL, SG_RUN), WA_E_OK);
    assert_int_equal(settings_switch(&s, SET_STORE, &store), WA_E_CONFIG);
    assert_non_null(strstr(wa_err_detail(), "WINAGENT_STORE must be on or off"));
    settings_cleanup(&s);
    unsetenv("WINAGENT_STORE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flag_over_env_over_dotenv_over_default),
        cmocka_unit_test(keys_are_masked_and_leave_the_environment),
        cmocka_unit_test(a_working_folders_env_decides_nothing_it_was_not_trusted_with),
        cmocka_unit_test(keys_never_come_from_the_command_line),
        cmocka_unit_test(numbers_out_of_range_are_refused),
        cmocka_unit_test(store_is_off_unless_set),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
