/* Test: an interrupt (Ctrl+C) cuts a slow LLM transfer short promptly. Its own
 * executable because the interrupt flag is process-wide and stays set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_llm_proc.c"
#include "llm_test_client.h"

static void interrupt_later(void *arg)
{
    os_sleep_ms(*(int *)arg);
    os_interrupt_request();
}

static void slow_server_interrupted(void **state)
{
    (void)state;
    struct fake_llm f;
    /* a reply 20 s away, and a retry behind it that must not be tried */
    assert_true(fake_llm_start(&f, "{'steps':[{'fault':'slow','delay_s':20},{'text':'late'}]}"));
    struct capture cap;
    capture_init(&cap);
    char url[128];
    struct llm_config cfg = test_config(&f, LLM_PROVIDER_OPENAI, true, &cap, url, sizeof url);
    struct llm_client *c;
    assert_int_equal(llm_client_new(&cfg, &c), WA_E_OK);
    struct llm_conversation conv;
    test_conversation(&conv);
    static int delay_ms = 300;
    assert_int_equal(os_thread_start(interrupt_later, &delay_ms), WA_E_OK);
    int64_t t0 = os_now_ms();
    struct llm_reply r;
    assert_int_equal(llm_complete(c, &conv, test_tools, N_TEST_TOOLS, &r), WA_E_INTERRUPTED);
    int64_t took = os_now_ms() - t0;
    print_message("interrupted after %lld ms\n", (long long)took);
    assert_true(took >= 250 && took < 1000);
    assert_int_equal(r.attempts, 1);
    llm_reply_cleanup(&r);
    /* once interrupted, a new call gives up before sending anything */
    assert_int_equal(llm_complete(c, &conv, test_tools, N_TEST_TOOLS, &r), WA_E_INTERRUPTED);
    llm_reply_cleanup(&r);
    assert_int_equal(fake_llm_count(&f), 1);
    llm_conversation_cleanup(&conv);
    llm_client_free(c);
    capture_cleanup(&cap);
    fake_llm_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slow_server_interrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
