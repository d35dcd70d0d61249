/* Unit tests: report.html from trace lines the loop does not write (yet): unknown and
 * missing fields, hostile text, the secret, and the rebuild from trace.jsonl. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/report/report.h"
#include "agent/report/report_index.h"
#include "base/os.h"

#define SECRET "sk-unit-SECRET-42"

static char *make_run_dir(void)
{
    char tmpl[] = "/tmp/wa-report-unit-XXXXXX";
    char *base = mkdtemp(tmpl);
    assert_non_null(base);
    char *dir = malloc(strlen(base) + 40);
    sprintf(dir, "%s/20260102-030405-a-task", base);
    assert_int_equal(os_mkdir_p(dir), WA_E_OK);
    return dir;
}

static char *read_page(const char *dir)
{
    char path[512], *text = NULL;
    snprintf(path, sizeof path, "%s/report.html", dir);
    assert_int_equal(os_read_file(path, 64u << 20, &text, NULL), WA_E_OK);
    return text;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(os_write_file(path, text, strlen(text)), WA_E_OK);
}

/* Feeds lines to a live report and writes them to trace.jsonl as the step log does. */
static void feed(struct report *r, const char *dir, const char *const *lines)
{
    char path[512];
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    for (; *lines; lines++) {
        cJSON *o = cJSON_Parse(*lines);
        assert_non_null(o);
        assert_int_equal(report_add(r, o), WA_E_OK);
        fprintf(f, "%s\n", *lines);
        cJSON_Delete(o);
    }
    fclose(f);
}

static void first_page_is_whole_before_any_step(void **state)
{
    (void)state;
    char *dir = make_run_dir();
    struct report *r;
    assert_int_equal(report_open(dir, SECRET, &r), WA_E_OK);
    char *page = read_page(dir);
    assert_non_null(strstr(page, "No summary yet"));
    assert_non_null(strstr(page, "started 2026-01-02 03:04:05"));
    assert_non_null(strstr(page, "</html>\n"));
    free(page);
    report_free(r);
    free(dir);
}

static void unknown_fields_and_phases_are_shown(void **state)
{
    (void)state;
    char *dir = make_run_dir();
    write_file(dir, "step-00-window_screenshot+a11y.txt", "[1] Window \"w\" @(1,1)\n");
    static const char *const lines[] = {
        "{\"step\":0,\"task\":\"a <task>\",\"observation\":{\"kind\":\"tree\",\"file\":"
        "\"step-00-window_screenshot+a11y.txt\",\"verdict\":\"auto: tree accepted\"}}",
        "{\"step\":1,\"model_text\":\"<script>alert(1)</script> key " SECRET "\","
        "\"usage\":{\"total_tokens\":1200},\"timings\":{\"llm_ms\":900,\"verify_ms\":40,"
        "\"tools_ms\":70},\"verification\":{\"passed\":false,\"why\":\"value differs\"},"
        "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"desktop\",\"arguments\":{\"action\":"
        "\"type\",\"text\":\"x\"},\"changes\":[\"new Button OK\"],\"result\":{\"ok\":true,"
        "\"verified\":true,\"window_state\":{\"title\":\"t\"}},\"ms\":{\"action\":20,"
        "\"settle\":30}},{}]}",
        "{\"step\":2,\"tool_calls\":[{\"name\":\"desktop\",\"arguments_raw\":\"{oops\","
        "\"result\":{\"ok\":false,\"error\":{\"code\":\"invalid_args\",\"message\":\"bad\"}},"
        "\"observation\":{\"kind\":\"image\",\"file\":\"../../etc/passwd\"}}]}",
        "{\"note\":\"a line without a step\"}",
        "{\"summary\":{\"steps\":2,\"exit_code\":2,\"outcome\":\"LLM error\",\"error\":"
        "\"LLM error: HTTP 500\",\"total_ms\":65000,\"cost_usd\":0.25}}",
        NULL,
    };
    struct report *r;
    assert_int_equal(report_open(dir, SECRET, &r), WA_E_OK);
    feed(r, dir, lines);
    report_free(r);
    char *page = read_page(dir);
    /* Steps: one element per line but the summary; a line without a step still shows. */
    size_t steps = 0;
    for (const char *p = page; (p = strstr(p, "<section class=\"step")) != NULL; p++)
        steps++;
    assert_int_equal(steps, 4);
    assert_non_null(strstr(page, "id=\"line-3\""));
    assert_non_null(strstr(page, "a line without a step"));
    /* The tree text is inline; text is escaped; the secret is replaced. */
    assert_non_null(strstr(page, "[1] Window &quot;w&quot; @(1,1)"));
    assert_null(strstr(page, "<script>alert"));
    assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt; key [redacted]"));
    assert_null(strstr(page, SECRET));
    /* New phases get bars, unknown fields are listed with their values. */
    assert_non_null(strstr(page, "phase-settle"));
    assert_non_null(strstr(page, "phase-verify"));
    assert_non_null(strstr(page, "<dt>verification</dt>"));
    assert_non_null(strstr(page, "value differs"));
    assert_non_null(strstr(page, "<dt>changes</dt>"));
    assert_non_null(strstr(page, "<dt>verified</dt>"));
    assert_non_null(strstr(page, "<dt>cost_usd</dt>"));
    assert_non_null(strstr(page, "--max:900"));
    /* A call that was not run, malformed arguments, a path outside the folder. */
    assert_non_null(strstr(page, "call not run (interrupted)"));
    assert_non_null(strstr(page, "arguments are not valid JSON"));
    assert_null(strstr(page, "etc/passwd\""));
    assert_non_null(strstr(page, "no file recorded"));
    /* The end: failed, with its reason. */
    assert_non_null(strstr(page, "class=\"summary failed\" data-exit-code=\"2\""));
    assert_non_null(strstr(page, "LLM error: HTTP 500"));
    assert_non_null(strstr(page, "1 min 05 s"));

    /* The rebuild from trace.jsonl is the same page up to the key: the step log writes
     * trace.jsonl scrubbed already, this test's trace is not. */
    char *path = malloc(strlen(dir) + 20);
    sprintf(path, "%s/report.html", dir);
    assert_int_equal(os_remove(path), WA_E_OK);
    assert_int_equal(report_rebuild(dir), WA_E_OK);
    char *again = read_page(dir);
    char *mark = strstr(page, "[redacted]");
    assert_non_null(mark);
    assert_int_equal(strncmp(again, page, (size_t)(mark - page)), 0);
    free(again);
    free(path);
    free(page);
    free(dir);
}

static void index_lists_runs_and_rejects_other_folders(void **state)
{
    (void)state;
    char *dir = make_run_dir();
    char *log_dir = strdup(dir);
    *strrchr(log_dir, '/') = '\0';
    int runs = -1;
    assert_int_equal(report_index(log_dir, &runs), WA_E_USAGE); /* no trace yet */
    write_file(dir, "trace.jsonl", "{\"step\":0,\"task\":\"index me\"}\n");
    assert_int_equal(report_index(log_dir, &runs), WA_E_OK);
    assert_int_equal(runs, 1);
    char path[512], *index = NULL;
    snprintf(path, sizeof path, "%s/index.html", log_dir);
    assert_int_equal(os_read_file(path, 1u << 20, &index, NULL), WA_E_OK);
    assert_non_null(strstr(index, "href=\"20260102-030405-a-task/report.html\">index me</a>"));
    assert_non_null(strstr(index, "no summary (running or stopped early)"));
    snprintf(path, sizeof path, "%s/report.html", dir);
    assert_true(os_path_exists(path)); /* built because it was missing */
    free(index);
    free(log_dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_page_is_whole_before_any_step),
        cmocka_unit_test(unknown_fields_and_phases_are_shown),
        cmocka_unit_test(index_lists_runs_and_rejects_other_folders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
