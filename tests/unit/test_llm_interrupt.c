/* Tests: an interrupt (Ctrl+C) cuts a slow LLM transfer, or a wait between attempts,
 * short promptly. Its own executable: the interrupt flag is process-wide and sticky. */
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
    struct session s;
    /* a reply 20 s away, and a retry behind it that must not be tried */
    session_open(&s, "{'steps':[{'fault':'slow','delay_s':20},{'text':'late'}]}",
                 LLM_PROVIDER_OPENAI, true);
    static int delay_ms = 300;
    assert_int_equal(os_thread_start(interrupt_later, &delay_ms), WA_E_OK);
    int64_t t0 = os_now_ms();
    struct llm_reply r;
    assert_int_equal(session_complete(&s, &r), WA_E_INTERRUPTED);
    int64_t took = os_now_ms() - t0;
    print_message("interrupted after %lld ms\n", (long long)took);
    assert_true(took >= 250 && took < 1000);
    assert_int_equal(r.attempts, 1);
    llm_reply_cleanup(&r);
    /* once interrupted, a new call gives up before sending anything */
    assert_int_equal(session_complete(&s, &r), WA_E_INTERRUPTED);
    llm_reply_cleanup(&r);
    assert_int_equal(fake_llm_count(&s.f), 1);
    session_close(&s);
}

/* The same for a wait between attempts: in a child process, so the sticky flag
 * stays clear for the test above. The child's exit status says what happened. */
static void retry_wait_interrupted(void **state)
{
    (void)state;
    struct fake_llm f;
    assert_true(fake_llm_start(&f, "{'steps':[{'status':503,'headers':{'Retry-After':'20'}},"
                                   "{'text':'late'}]}"));
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct capture cap;
        capture_init(&cap);
        char url[128];
        struct llm_config cfg = test_config(&f, LLM_PROVIDER_GOOGLE, false, &cap, url, sizeof url);
        cfg.max_backoff_ms = 60000;
        struct llm_client *c;
        if (llm_client_new(&cfg, &c))
            _exit(10);
        struct llm_conversation conv;
        test_conversation(&conv);
        static int delay_ms = 300;
        os_thread_start(interrupt_later, &delay_ms);
        int64_t t0 = os_now_ms();
        struct llm_reply r;
        wa_err e = llm_complete(c, &conv, NULL, 0, &r);
        int64_t took = os_now_ms() - t0;
        if (e != WA_E_INTERRUPTED)
            _exit(11);
        if (took > 1000 || r.attempts != 1 || !strstr(dynbuf_str(&cap.log), "retry 1/3 in 20.0s"))
            _exit(12);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(fake_llm_count(&f), 1); /* the second attempt never happened */
    fake_llm_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retry_wait_interrupted),
        cmocka_unit_test(slow_server_interrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
