/* index.html of a folder of runs: one row per run, linking to its report.html. */
#include "agent/run/report_index.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/run/html.h"
#include "agent/run/report.h"
#include "agent/run/trace.h"
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
    ".runs tr.ok td.outcome{color:var(--ok)}.runs tr.pending td.outcome{color:#e67700}\n";

wa_err report_index(const char *log_dir, int *runs)
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
