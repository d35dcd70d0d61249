/* Unit tests: a batch's results read back (rounds of attempts, the tally, pass@1 and
 * pass@N), the outcome of each exit code, budgets, shards and the JUnit XML. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/request/exit.h"
#include "agent/batch/batch.h"
#include "agent/batch/batch_tasks.h"
#include "agent/run/budget.h"
#include "agent/report/junit.h"
#include "agent/report/results.h"

static const char lines[] =
    /* a: fails, then passes at its second attempt */
    "{\"id\":\"a\",\"outcome\":\"fail\",\"attempts\":1,\"tokens\":100,\"time_s\":1.5}\n"
    "{\"id\":\"b\",\"outcome\":\"pass\",\"attempts\":1,\"tokens\":10,\"time_s\":1}\n"
    "{\"id\":\"a\",\"outcome\":\"pass\",\"attempts\":2,\"tokens\":200,\"time_s\":2.5}\n"
    /* c: errored in an earlier round, then ran anew and timed out */
    "{\"id\":\"c\",\"outcome\":\"error\",\"attempts\":1,\"tokens\":7}\n"
    "not json: a torn line\n"
    "{\"id\":\"c\",\"outcome\":\"fail\",\"attempts\":2,\"tokens\":5}\n"
    "{\"id\":\"c\",\"outcome\":\"timeout\",\"attempts\":1,\"tokens\":1}\n"
    "{\"id\":\"d\",\"outcome\":\"needs_confirmation\"}\n"
    "{\"id\":\"e\",\"outcome\":\"no such outcome\"}\n"
    "{\"id\":\"f\",\"outcome\":\"pass\"} trailing\n"
    "{\"outcome\":\"pass\"}\n"
    "{\"id\":\"g\",\"outcome\":\"budget\",\"attempts\":1,\"reason\":\"budget spent\"}";

static void rounds_of_attempts_and_the_tally(void **state)
{
    (void)state;
    struct results r;
    results_init(&r);
    assert_int_equal(results_parse(&r, lines), WA_E_OK);
    assert_int_equal(r.n, 8); /* the torn, unknown, trailed and id-less lines are skipped */
    struct task_state s;
    assert_true(results_task(&r, "a", &s));
    assert_int_equal(s.outcome, OUT_PASS);
    assert_int_equal(s.first->outcome, OUT_FAIL);
    assert_int_equal(s.passed->attempt, 2);
    assert_int_equal(s.tokens, 300);
    assert_true(results_task(&r, "c", &s));
    assert_int_equal(s.outcome, OUT_TIMEOUT); /* the latest round only */
    assert_int_equal(s.tokens, 1);
    assert_int_equal(s.first, s.last);
    assert_true(results_task(&r, "d", &s));
    assert_int_equal(s.last->attempt, 1);    /* a line without attempts: its first */
    assert_int_equal(s.last->exit_code, -1); /* and without an exit code */
    assert_false(results_task(&r, "e", &s));

    struct task_state *tasks;
    size_t n;
    assert_int_equal(results_tasks(&r, &tasks, &n), WA_E_OK);
    assert_int_equal(n, 5);
    const char *order[] = {"a", "b", "c", "d", "g"}; /* by first line */
    struct tally t = {0};
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(tasks[i].id, order[i]);
        tally_add(&t, &tasks[i]);
    }
    free(tasks);
    assert_int_equal(t.tasks, 5);
    assert_int_equal(t.outcome[OUT_PASS], 2);
    assert_int_equal(t.pass_first, 1); /* b */
    assert_int_equal(t.attempts, 2);
    char line[256];
    tally_line(&t, line, sizeof line);
    assert_string_equal(line, "pass 2 fail 0 error 0 timeout 1 budget 1 needs_confirmation 1");
    tally_pass_at(&t, line, sizeof line);
    assert_string_equal(line, "pass@1 1/5, pass@2 2/5");
    results_cleanup(&r);
}

static void exit_codes_become_outcomes(void **state)
{
    (void)state;
    assert_int_equal(outcome_of_exit(EXIT_OK), OUT_PASS);
    assert_int_equal(outcome_of_exit(EXIT_STEPS), OUT_FAIL);
    assert_int_equal(outcome_of_exit(EXIT_ACTION), OUT_FAIL);
    assert_int_equal(outcome_of_exit(EXIT_LLM), OUT_ERROR);
    assert_int_equal(outcome_of_exit(EXIT_USAGE), OUT_ERROR);
    assert_int_equal(outcome_of_exit(EXIT_BUDGET), OUT_BUDGET);
    assert_int_equal(outcome_of_exit(EXIT_CONFIRM), OUT_NEEDS_CONFIRMATION);
    for (int o = OUT_NONE + 1; o < OUT__COUNT; o++)
        assert_int_equal(outcome_by_name(outcome_name((enum outcome)o)), o);
    assert_string_equal(outcome_name(OUT_NEEDS_CONFIRMATION), "needs_confirmation");
    assert_int_equal(outcome_by_name("passed"), OUT_NONE);
}

static void a_budget_stops_before_the_turn_that_would_pass_it(void **state)
{
    (void)state;
    struct budget b = {.tokens = 1000};
    char why[160];
    struct budget_use u = {0};
    assert_false(budget_spent(&b, &u, why, sizeof why)); /* the first call is always made */
    int turns = 0;
    while (!budget_spent(&b, &u, why, sizeof why)) {
        u.turns++;
        u.last_tokens = 300;
        u.tokens += 300;
        turns++;
    }
    assert_int_equal(turns, 3);
    assert_string_equal(why, "budget spent: 900 tokens of 1000 (a turn takes about 300)");
    struct budget s = {.seconds = 10};
    u = (struct budget_use){.turns = 2, .seconds = 6, .last_seconds = 3};
    assert_false(budget_spent(&s, &u, why, sizeof why));
    u.seconds = 7.5;
    assert_true(budget_spent(&s, &u, why, sizeof why));
    assert_non_null(strstr(why, "7.5 s of 10 s"));
    struct budget m = budget_min((struct budget){.tokens = 500}, (struct budget){100, 30});
    assert_int_equal(m.tokens, 100);
    assert_true(m.seconds == 30);
    budget_describe(&m, why, sizeof why);
    assert_string_equal(why, "100 tokens, 30 s");
}

static void shards_split_every_task_once(void **state)
{
    (void)state;
    int count[3] = {0};
    for (int i = 0; i < 900; i++) {
        char id[32];
        snprintf(id, sizeof id, "task-%d", i);
        int s = batch_shard_of(id, 3);
        assert_true(s >= 1 && s <= 3);
        assert_int_equal(batch_shard_of(id, 3), s);
        count[s - 1]++;
    }
    for (int s = 0; s < 3; s++) /* a fair split, give or take */
        assert_true(count[s] > 240 && count[s] < 360);
    assert_int_equal(batch_shard_of("anything", 1), 1);
    /* FNV-1a: the values another implementation computes (tests/native/test_batch.py) */
    assert_int_equal(batch_shard_of("", 7), (int)(14695981039346656037ULL % 7) + 1);
}

static void junit_escapes_what_xml_cannot_hold(void **state)
{
    (void)state;
    struct results r;
    results_init(&r);
    assert_int_equal(results_parse(&r, "{\"id\":\"x<&>\\\"'\",\"outcome\":\"fail\",\"reason\":"
                                       "\"bad \\u0001 \\n line\"}\n"
                                       "{\"id\":\"\xff\xc0\x80\xed\xa0\x80\",\"outcome\":"
                                       "\"dry_run\"}\n"),
                     WA_E_OK);
    struct dynbuf b;
    dynbuf_init(&b, 1u << 20);
    assert_int_equal(junit_render(&r, "s&s", 0, &b), WA_E_OK);
    const char *x = dynbuf_str(&b);
    assert_non_null(
        strstr(x, "<testcase name=\"x&lt;&amp;&gt;&quot;&apos;\" classname=\"s&amp;s\""));
    assert_non_null(strstr(x, "<failure type=\"fail\" message=\"bad \xef\xbf\xbd &#10; line\"/>"));
    assert_non_null(strstr(x, "name=\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf"
                              "\xbd\xef\xbf\xbd\""));
    assert_non_null(strstr(x, "<skipped>dry_run</skipped>"));
    assert_non_null(strstr(x, "tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\""));
    dynbuf_cleanup(&b);
    results_cleanup(&r);
}

static void resume_keeps_what_is_done(void **state)
{
    (void)state;
    char tasks[] = "{\"id\":\"a\",\"prompt\":\"p\"}\n{\"id\":\"b\",\"prompt\":\"p\"}\n"
                   "{\"id\":\"c\",\"prompt\":\"p\",\"budget_tokens\":50}\n";
    const char *results = "{\"id\":\"a\",\"outcome\":\"fail\",\"attempts\":1}\n"
                          "{\"id\":\"b\",\"outcome\":\"fail\",\"attempts\":2}\n"
                          "{\"id\":\"c\",\"outcome\":\"pass\",\"attempts\":1}\n"
                          "{\"id\":\"gone\",\"outcome\":\"pass\",\"attempts\":1}\n";
    struct batch_check_opts o = {.attempts = 2};
    struct batch_check c;
    char copy[sizeof tasks];
    memcpy(copy, tasks, sizeof tasks);
    assert_int_equal(batch_check_tasks(copy, results, &o, &c), WA_E_OK);
    assert_int_equal(c.tasks, 3);
    assert_int_equal(c.done, 2);        /* b failed both attempts, c passed; a has one left */
    assert_int_equal(c.tally.tasks, 3); /* "gone" is no task of the file */
    o.attempts = 1;
    memcpy(copy, tasks, sizeof tasks);
    assert_int_equal(batch_check_tasks(copy, results, &o, &c), WA_E_OK);
    assert_int_equal(c.done, 3);
    char bad[] = "{\"id\":\"a\",\"prompt\":\"p\",\"budget_seconds\":0}\n";
    assert_int_equal(batch_check_tasks(bad, NULL, &o, &c), WA_E_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rounds_of_attempts_and_the_tally),
        cmocka_unit_test(exit_codes_become_outcomes),
        cmocka_unit_test(a_budget_stops_before_the_turn_that_would_pass_it),
        cmocka_unit_test(shards_split_every_task_once),
        cmocka_unit_test(junit_escapes_what_xml_cannot_hold),
        cmocka_unit_test(resume_keeps_what_is_done),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
