/* Unit tests: the backend slot behind `winagent doctor` (backend_system_info): a backend
 * without it, or none at all, answers WA_E_UNSUPPORTED with every fact unknown; the fake
 * desktop reads its scene's "system", its integrity and its secure desktop, and leaves
 * what the scene does not say unknown. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "automation/backend.h"
#include "automation/fake/fake_backend.h"

static void assert_unknown(const struct wa_system_info *s)
{
    assert_string_equal(s->os_name, "");
    assert_string_equal(s->wine, "");
    assert_string_equal(s->input_desktop, "");
    assert_int_equal(s->os_major, -1);
    assert_int_equal(s->os_build, -1);
    assert_int_equal(s->session, -1);
    assert_int_equal(s->integrity, -1);
    assert_int_equal(s->elevated, -1);
    assert_int_equal(s->uiaccess, -1);
    assert_int_equal(s->remote, -1);
    assert_int_equal(s->uac_enabled, -1);
    assert_int_equal(s->consent_prompt_admin, -1);
    assert_int_equal(s->prompt_on_secure_desktop, -1);
    assert_int_equal(s->uia, -1);
    assert_int_equal(s->dpi_awareness, WA_DPI_UNKNOWN);
}

static void a_missing_slot_is_unsupported_and_says_nothing(void **state)
{
    (void)state;
    struct wa_backend none = {.name = "bare"};
    struct wa_system_info s;
    memset(&s, 0x5a, sizeof s); /* whatever was there before is cleared */
    assert_int_equal(backend_system_info(&none, &s), WA_E_UNSUPPORTED);
    assert_unknown(&s);
    memset(&s, 0x5a, sizeof s);
    assert_int_equal(backend_system_info(NULL, &s), WA_E_UNSUPPORTED);
    assert_unknown(&s);
}

static void the_fake_desktop_reads_its_scene(void **state)
{
    (void)state;
    assert_int_equal(
        fake_load_scene(
            "{\"monitors\": [{\"rect\": [0,0,800,600], \"primary\": true}], \"windows\": [],"
            " \"secure_desktop\": true, \"winagent_integrity\": \"high\","
            " \"system\": {\"product\": \"Windows 11 Pro\", \"release\": \"24H2\","
            "  \"version\": [10, 0, 26100, 2605], \"session\": 0, \"console_session\": 1,"
            "  \"elevated\": true, \"dpi_awareness\": \"system\","
            "  \"uac\": {\"EnableLUA\": 1, \"PromptOnSecureDesktop\": 0},"
            "  \"uia\": \"CoCreateInstance failed\"}}",
            NULL),
        WA_E_OK);
    struct wa_system_info s;
    assert_int_equal(backend_system_info(backend_default(), &s), WA_E_OK);
    assert_string_equal(s.os_name, "Windows 11 Pro");
    assert_string_equal(s.os_release, "24H2");
    assert_int_equal(s.os_build, 26100);
    assert_int_equal(s.os_revision, 2605);
    assert_int_equal(s.session, 0);
    assert_int_equal(s.console_session, 1);
    assert_string_equal(s.input_desktop, "Winlogon");
    assert_int_equal(s.integrity, 0x3000);
    assert_int_equal(s.elevated, 1);
    assert_int_equal(s.uiaccess, -1); /* not in the scene: unknown, not "no" */
    assert_int_equal(s.dpi_awareness, WA_DPI_SYSTEM);
    assert_int_equal(s.uac_enabled, 1);
    assert_int_equal(s.consent_prompt_admin, -1);
    assert_int_equal(s.prompt_on_secure_desktop, 0);
    assert_int_equal(s.uia, 0);
    assert_string_equal(s.uia_detail, "CoCreateInstance failed");
    assert_string_equal(s.wine, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_missing_slot_is_unsupported_and_says_nothing),
        cmocka_unit_test(the_fake_desktop_reads_its_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
