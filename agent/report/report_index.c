/* index.html of a folder of runs: one row per run, linking to its report.html; of a batch
 * folder, one row per attempt of its results.jsonl under the tally. */
#include "agent/report/report_index.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/report/html.h"
#include "agent/report/report.h"
#include "agent/report/results.h"
#include "agent/report/trace.h"
#include "base/os.h"
#include "base/str.h"

#define INDEX_MAX_BYTES (64u << 20)

static const cJSON *field(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

static double num_field(const cJSON *o, const char *name, double def)
{
    const cJSON *v = field(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

struct run_row {
    char *folder;
    char *task;
    cJSON *summary;
    int steps;
};

static void row_line(void *ctx, const cJSON *line)
{
    struct run_row *row = ctx;
    const cJSON *summary = field(line, TRACE_SUMMARY);
    if (cJSON_IsObject(summary)) {
        cJSON_Delete(row->summary);
        row->summary = cJSON_Duplicate(summary, 1);
        return;
    }
    row->steps++;
    const cJSON *task = field(line, TRACE_TASK);
    if (!row->task && cJSON_IsString(task))
        row->task = str_dup(task->valuestring);
}

static void put_row(struct html *h, const struct run_row *row)
{
    bool failed;
    const char *outcome = report_outcome(row->summary, &failed);
    html_putf(h, "<tr class=\"run %s\"><td class=\"time\">",
              !row->summary ? "pending"
              : failed      ? "failed"
                            : "ok");
    char when[32];
    html_text(h, report_run_time(row->folder, when, sizeof when) ? when : "");
    html_put(h, "</td><td class=\"prompt\"><a href=\"");
    html_url(h, row->folder);
    html_put(h, "/report.html\">");
    html_text(h, row->task ? row->task : row->folder);
    html_put(h, "</a></td><td class=\"outcome\">");
    html_text(h, row->summary ? outcome : "no summary (running or stopped early)");
    if (row->summary)
        html_putf(h, " (%.0f)", num_field(row->summary, TRACE_EXIT_CODE, -1));
    html_putf(h, "</td><td class=\"num\">%.0f</td><td class=\"num\">",
              num_field(row->summary, TRACE_STEPS, row->steps));
    if (cJSON_IsNumber(field(row->summary, TRACE_TOTAL_MS)))
        html_ms(h, num_field(row->summary, TRACE_TOTAL_MS, 0));
    html_put(h, "</td><td class=\"num\">");
    if (cJSON_IsNumber(field(row->summary, TRACE_TOTAL_TOKENS)))
        html_count(h, num_field(row->summary, TRACE_TOTAL_TOKENS, 0));
    html_put(h, "</td></tr>\n");
}

static const char index_style[] =
    "table.runs{border-collapse:collapse;background:#fff;margin:14px 20px;"
    "border:1px solid var(--line)}\n"
    ".runs th,.runs td{padding:5px 10px;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}\n"
    ".runs th{background:#f1f3f5}.runs td.num{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    ".runs td.time{white-space:nowrap;color:var(--muted)}\n"
    ".runs tr.failed td.outcome{color:var(--err);font-weight:600}\n"
    ".runs tr.ok td.outcome{color:var(--ok)}.runs tr.pending td.outcome{color:#e67700}\n"
    ".runs tr.skipped td.outcome{color:var(--muted)}.runs td.reason{color:var(--muted)}\n";

static wa_err runs_index(const char *log_dir, int *runs)
{
    *runs = 0;
    struct os_dir_list list;
    wa_err e = os_list_dir(log_dir, &list);
    if (e)
        return e;
    struct run_row *rows = calloc(list.count ? list.count : 1, sizeof *rows);
    if (!rows) {
        os_dir_list_cleanup(&list);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    size_t n = 0;
    char path[4200];
    /* Newest first: run folders start with their time. */
    for (size_t i = list.count; i-- > 0 && !e;) {
        snprintf(path, sizeof path, "%s/%s/trace.jsonl", log_dir, list.names[i]);
        if (!os_path_exists(path))
            continue;
        struct run_row *row = &rows[n++];
        row->folder = list.names[i];
        snprintf(path, sizeof path, "%s/%s", log_dir, list.names[i]);
        int unreadable;
        e = report_read_trace(path, row_line, row, &unreadable);
        snprintf(path, sizeof path, "%s/%s/report.html", log_dir, list.names[i]);
        if (!e && !os_path_exists(path)) {
            snprintf(path, sizeof path, "%s/%s", log_dir, list.names[i]);
            e = report_rebuild(path);
        }
    }
    if (!e && n == 0)
        e = wa_fail(WA_E_USAGE,
                    "%s is neither a run folder (it has no trace.jsonl) nor a folder of runs "
                    "(none of its folders has one)",
                    log_dir);
    if (!e) {
        struct html h;
        html_init(&h, INDEX_MAX_BYTES, NULL);
        html_head(&h, "winagent runs", index_style);
        html_put(&h, "<body>\n<header><h1>winagent runs</h1><p class=\"meta\">");
        int ok = 0;
        for (size_t i = 0; i < n; i++)
            ok += rows[i].summary && num_field(rows[i].summary, TRACE_EXIT_CODE, -1) == 0;
        html_putf(&h, "%zu run%s, %d finished</p></header>\n", n, n == 1 ? "" : "s", ok);
        html_put(&h, "<table class=\"runs\"><thead><tr><th>time</th><th>task</th><th>outcome (exit "
                     "code)</th><th>steps</th><th>duration</th><th>tokens</th></tr></thead>\n"
                     "<tbody>\n");
        for (size_t i = 0; i < n; i++)
            put_row(&h, &rows[i]);
        html_put(&h, "</tbody></table>\n</body>\n</html>\n");
        snprintf(path, sizeof path, "%s/index.html", log_dir);
        e = h.full ? wa_fail(WA_E_TOO_LARGE, "the index of %s is too large", log_dir)
                   : os_write_file(path, h.b.data, h.b.len);
        html_cleanup(&h);
    }
    for (size_t i = 0; i < n; i++) {
        free(rows[i].task);
        cJSON_Delete(rows[i].summary);
    }
    free(rows);
    os_dir_list_cleanup(&list);
    if (!e)
        *runs = (int)n;
    return e;
}

/* ---- the index of a batch folder: its results ---- */

/* The trace of the run folder dir/name (its report.html built when it has none) into row;
 * false when there is no such run. */
static bool read_run(const char *dir, const char *name, struct run_row *row)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/trace.jsonl", dir, name);
    if (!os_path_exists(path))
        return false;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int unreadable;
    if (report_read_trace(path, row_line, row, &unreadable) != WA_E_OK)
        return false;
    snprintf(path, sizeof path, "%s/%s/report.html", dir, name);
    if (!os_path_exists(path)) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        report_rebuild(path);
    }
    return true;
}

static void clear_row(struct run_row *row)
{
    free(row->task);
    cJSON_Delete(row->summary);
    memset(row, 0, sizeof *row);
}

static const char *outcome_class(enum outcome o)
{
    return o == OUT_PASS                                                         ? "ok"
           : o == OUT_DRY_RUN || o == OUT_NEEDS_CONFIRMATION || o == OUT_STOPPED ? "skipped"
                                                                                 : "failed";
}

/* The task's prompt linked to its run's report, when the run is there; else text. */
static void put_task_link(struct html *h, const char *folder, const struct run_row *row,
                          bool have_run, const char *fallback)
{
    html_put(h, "<td class=\"prompt\">");
    if (have_run && html_is_local_path(folder)) {
        html_put(h, "<a href=\"");
        html_url_path(h, folder);
        html_put(h, "/report.html\">");
        html_text(h, row->task ? row->task : folder);
        html_put(h, "</a>");
    } else {
        html_text(h, row->task ? row->task : fallback);
    }
    html_put(h, "</td>");
}

static void put_result_row(struct html *h, const char *dir, const struct result_line *l)
{
    struct run_row row = {0};
    bool have =
        *l->run_folder && html_is_local_path(l->run_folder) && read_run(dir, l->run_folder, &row);
    html_putf(h, "<tr class=\"run %s\"><td class=\"id\">", outcome_class(l->outcome));
    html_text(h, l->id);
    html_put(h, "</td>");
    put_task_link(h, l->run_folder, &row, have, *l->run_folder ? l->run_folder : "(no run)");
    html_put(h, "<td class=\"outcome\">");
    html_text(h, outcome_name(l->outcome));
    html_putf(h, "</td><td class=\"num\">%d</td><td class=\"reason\">", l->attempt);
    html_text(h, l->reason ? l->reason : "");
    html_put(h, "</td><td class=\"num\">");
    if (l->exit_code >= 0)
        html_putf(h, "%d", l->exit_code);
    html_putf(h, "</td><td class=\"num\">%d</td><td class=\"num\">", l->steps);
    html_ms(h, l->time_s * 1000.0);
    html_put(h, "</td><td class=\"num\">");
    html_count(h, (double)l->tokens);
    html_put(h, "</td></tr>\n");
    clear_row(&row);
}

/* A run folder of dir that no result names: a run the batch stopped during. */
static void put_unjudged_row(struct html *h, const char *dir, const char *name)
{
    struct run_row row = {0};
    if (!read_run(dir, name, &row))
        return;
    html_put(h, "<tr class=\"run pending\"><td class=\"id\"></td>");
    put_task_link(h, name, &row, true, name);
    html_put(h, "<td class=\"outcome\">not judged</td><td class=\"num\"></td>"
                "<td class=\"reason\">the batch stopped during this run</td><td class=\"num\">");
    if (row.summary)
        html_putf(h, "%.0f", num_field(row.summary, TRACE_EXIT_CODE, -1));
    html_putf(h, "</td><td class=\"num\">%.0f</td><td class=\"num\">",
              num_field(row.summary, TRACE_STEPS, row.steps));
    if (cJSON_IsNumber(field(row.summary, TRACE_TOTAL_MS)))
        html_ms(h, num_field(row.summary, TRACE_TOTAL_MS, 0));
    html_put(h, "</td><td class=\"num\">");
    if (cJSON_IsNumber(field(row.summary, TRACE_TOTAL_TOKENS)))
        html_count(h, num_field(row.summary, TRACE_TOTAL_TOKENS, 0));
    html_put(h, "</td></tr>\n");
    clear_row(&row);
}

static bool named_by_a_result(const struct results *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->lines[i].run_folder, name) == 0)
            return true;
    return false;
}

static wa_err batch_index(const char *dir, int *rows)
{
    *rows = 0;
    struct results res;
    results_init(&res);
    struct task_state *tasks = NULL;
    size_t n_tasks = 0;
    wa_err e = results_load(&res, dir, NULL);
    if (!e)
        e = results_tasks(&res, &tasks, &n_tasks);
    struct os_dir_list list = {0};
    if (!e)
        e = os_list_dir(dir, &list);
    if (e) {
        free(tasks);
        results_cleanup(&res);
        return e;
    }
    os_dir_list_sort(&list);
    struct tally t = {0};
    for (size_t i = 0; i < n_tasks; i++)
        tally_add(&t, &tasks[i]);
    int allowed = results_attempts_allowed(dir);
    if (allowed > t.attempts)
        t.attempts = allowed;
    char counts[256], pass_at[96];
    tally_line(&t, counts, sizeof counts);
    tally_pass_at(&t, pass_at, sizeof pass_at);
    struct html h;
    html_init(&h, INDEX_MAX_BYTES, NULL);
    html_head(&h, "winagent batch", index_style);
    html_put(&h, "<body>\n<header><h1>winagent batch ");
    html_text(&h, str_path_base(dir));
    html_putf(&h, "</h1><p class=\"meta tally\">%d task%s: ", t.tasks, t.tasks == 1 ? "" : "s");
    html_text(&h, counts);
    html_put(&h, "</p><p class=\"meta\">");
    html_text(&h, pass_at);
    html_put(&h, "; ");
    html_count(&h, (double)t.tokens);
    html_put(&h, " tokens; ");
    html_ms(&h, t.time_s * 1000.0);
    html_put(&h, "</p></header>\n");
    html_put(&h, "<table class=\"runs\"><thead><tr><th>task</th><th>prompt</th><th>outcome</th>"
                 "<th>attempt</th><th>reason</th><th>exit code</th><th>steps</th><th>duration</th>"
                 "<th>tokens</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < res.n; i++)
        put_result_row(&h, dir, &res.lines[i]);
    for (size_t i = 0; i < list.count; i++)
        if (!named_by_a_result(&res, list.names[i]))
            put_unjudged_row(&h, dir, list.names[i]);
    html_put(&h, "</tbody></table>\n</body>\n</html>\n");
    char path[4200];
    snprintf(path, sizeof path, "%s/index.html", dir);
    e = h.full ? wa_fail(WA_E_TOO_LARGE, "the index of %s is too large", dir)
               : os_write_file(path, h.b.data, h.b.len);
    html_cleanup(&h);
    os_dir_list_cleanup(&list);
    free(tasks);
    *rows = (int)res.n;
    results_cleanup(&res);
    return e;
}

bool report_is_batch(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    return os_path_exists(path);
}

wa_err report_index(const char *dir, int *rows)
{
    return report_is_batch(dir) ? batch_index(dir, rows) : runs_index(dir, rows);
}
