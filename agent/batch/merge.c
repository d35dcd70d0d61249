/* Batch folders merged into one: results, index and JUnit file. */
#include "agent/batch/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/report/html.h"
#include "agent/report/junit.h"
#include "agent/report/report_index.h"
#include "base/dynbuf.h"
#include "base/os.h"
#include "base/str.h"

#define MERGED_MAX_BYTES (256u << 20)
#define PATH_CAP         4096

/* path with "/" for "\\", no repeated, "." or trailing separators ("." for nothing). */
static void path_norm(const char *path, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = path; *p && o + 1 < cap;) {
        size_t n = strcspn(p, "/\\");
        bool dot = n == 1 && p[0] == '.';
        if (n == 0 && p == path && o == 0)
            out[o++] = '/'; /* absolute */
        else if (n && !dot) {
            if (o && out[o - 1] != '/' && o + 1 < cap)
                out[o++] = '/';
            for (size_t i = 0; i < n && o + 1 < cap; i++)
                out[o++] = p[i];
        }
        p += n;
        while (*p == '/' || *p == '\\')
            p++;
    }
    if (o == 0)
        out[o++] = '.';
    out[o] = '\0';
}

/* The path of child (normalised) below parent (normalised), or NULL when it is not below. */
static const char *path_below(const char *parent, const char *child)
{
    if (strcmp(parent, ".") == 0)
        return child[0] != '/' && strcmp(child, ".") != 0 ? child : NULL;
    size_t n = strlen(parent);
    if (strcmp(parent, "/") == 0)
        return child[0] == '/' && child[1] ? child + 1 : NULL;
    return strncmp(child, parent, n) == 0 && child[n] == '/' && child[n + 1] ? child + n + 1 : NULL;
}

/* The deepest folder that holds every one of the normalised paths. */
static void common_parent(char paths[][PATH_CAP], size_t n, char *out, size_t cap)
{
    snprintf(out, cap, "%s", paths[0]);
    for (;;) {
        char *slash = strrchr(out, '/');
        if (!slash)
            snprintf(out, cap, ".");
        else if (slash == out)
            out[1] = '\0';
        else
            *slash = '\0';
        bool all = true;
        for (size_t i = 0; i < n && all; i++)
            all = path_below(out, paths[i]) != NULL;
        if (all || strcmp(out, ".") == 0 || strcmp(out, "/") == 0)
            return;
    }
}

void merge_suite_name(const char *const *dirs, size_t n, char *out, size_t cap)
{
    snprintf(out, cap, "batch");
    char first[128] = "";
    for (size_t i = 0; i < n; i++) {
        char norm[PATH_CAP], name[128];
        path_norm(dirs[i], norm, sizeof norm);
        const char *base = str_path_base(norm);
        /* batch-yyyymmdd-hhmmss-<name>[-shard-I-of-N] */
        if (strncmp(base, "batch-", 6) != 0 || strlen(base) <= 22)
            return;
        snprintf(name, sizeof name, "%s", base + 22);
        char *shard = strstr(name, "-shard-");
        int si, sn;
        char tail;
        if (shard && sscanf(shard, "-shard-%d-of-%d%c", &si, &sn, &tail) == 2)
            *shard = '\0';
        if (i == 0)
            snprintf(first, sizeof first, "%s", name);
        else if (strcmp(first, name) != 0)
            return;
    }
    if (*first)
        snprintf(out, cap, "%s", first);
}

/* The lines of the batch folder dir, whose path below the merged folder is rel, into all
 * (run folders made relative to the merged folder) and text. */
static wa_err take_folder(const char *dir, const char *rel, struct results *all,
                          struct dynbuf *text)
{
    struct results one;
    results_init(&one);
    wa_err e = results_load(&one, dir, NULL);
    for (size_t i = 0; !e && i < one.n; i++) {
        cJSON *line = cJSON_Duplicate(one.lines[i].json, true);
        if (!line) {
            e = wa_fail(WA_E_NOMEM, "out of memory");
            break;
        }
        if (*one.lines[i].run_folder) {
            char folder[PATH_CAP * 2];
            snprintf(folder, sizeof folder, "%s/%s", rel, one.lines[i].run_folder);
            cJSON_ReplaceItemInObjectCaseSensitive(line, RESULT_RUN_FOLDER,
                                                   cJSON_CreateString(folder));
        }
        cJSON_DeleteItemFromObjectCaseSensitive(line, RESULT_BATCH);
        cJSON_AddStringToObject(line, RESULT_BATCH, rel);
        char *printed = cJSON_PrintUnformatted(line);
        if (!printed || dynbuf_adds(text, printed) || dynbuf_addc(text, '\n'))
            e = printed ? wa_fail(WA_E_TOO_LARGE, "the merged results.jsonl is too large")
                        : wa_fail(WA_E_NOMEM, "out of memory");
        free(printed);
        if (!e)
            e = results_add(all, line);
        cJSON_Delete(line);
    }
    results_cleanup(&one);
    return e;
}

/* Says each task that more than one folder holds. */
static void warn_twice(const struct results *all)
{
    struct task_state *tasks;
    size_t n;
    if (results_tasks(all, &tasks, &n) != WA_E_OK)
        return;
    for (size_t k = 0; k < n; k++) {
        const char *seen = NULL;
        for (size_t i = 0; i < all->n; i++) {
            const struct result_line *l = &all->lines[i];
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(l->json, RESULT_BATCH);
            if (strcmp(l->id, tasks[k].id) != 0 || !cJSON_IsString(b))
                continue;
            if (!seen) {
                seen = b->valuestring;
            } else if (strcmp(seen, b->valuestring) != 0) {
                fprintf(stderr,
                        "report: task \"%.60s\" is in both %s and %s (the same shard twice?): "
                        "its lines are all kept, and it counts once, by its latest\n",
                        tasks[k].id, seen, b->valuestring);
                break;
            }
        }
    }
    free(tasks);
}

/* out/batch.json of the merged folder: the folders it holds and the tally. */
static wa_err write_state(const char *out, char norm[][PATH_CAP], size_t n, const struct tally *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "state", "merged");
    cJSON *from = cJSON_AddArrayToObject(o, "merged");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(from, cJSON_CreateString(path_below(out, norm[i])));
    cJSON_AddNumberToObject(o, "tasks", t->tasks);
    cJSON_AddNumberToObject(o, "attempts", t->attempts);
    for (int i = OUT_NONE + 1; i < OUT__COUNT; i++)
        cJSON_AddNumberToObject(o, outcome_name((enum outcome)i), t->outcome[i]);
    cJSON_AddNumberToObject(o, "pass@1", t->pass_first);
    cJSON_AddNumberToObject(o, "tokens", (double)t->tokens);
    char path[PATH_CAP + 64], *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (!text)
        return wa_fail(WA_E_NOMEM, "out of memory");
    snprintf(path, sizeof path, "%s/batch.json", out);
    wa_err e = os_write_file(path, text, strlen(text));
    free(text);
    return e;
}

wa_err merge_batches(const char *const *dirs, size_t n, const char *out_dir, const char *junit_path,
                     char **out_path, char **junit_out, struct tally *t)
{
    *out_path = NULL;
    *junit_out = NULL;
    memset(t, 0, sizeof *t);
    char(*norm)[PATH_CAP] = calloc(n ? n : 1, sizeof *norm);
    char out[PATH_CAP];
    if (!norm)
        return wa_fail(WA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        path_norm(dirs[i], norm[i], PATH_CAP);
    if (out_dir)
        path_norm(out_dir, out, sizeof out);
    else
        common_parent(norm, n, out, sizeof out);
    wa_err e = WA_E_OK;
    for (size_t i = 0; !e && i < n; i++) {
        const char *rel = path_below(out, norm[i]);
        if (strcmp(out, norm[i]) == 0)
            e = wa_fail(WA_E_USAGE,
                        "the merged folder %s cannot be one of the batch folders: give --out "
                        "another one above them",
                        out);
        else if (!rel || !html_is_local_path(rel))
            e = wa_fail(WA_E_USAGE,
                        "%s is not inside %s: the merged folder must hold every batch folder "
                        "(its index links to their runs), so give --out a folder above them all",
                        dirs[i], out);
        else if (!report_is_batch(norm[i]))
            e = wa_fail(WA_E_USAGE, "%s is not a batch folder: it has no results.jsonl", dirs[i]);
    }
    struct results all;
    results_init(&all);
    struct dynbuf text;
    dynbuf_init(&text, MERGED_MAX_BYTES);
    for (size_t i = 0; !e && i < n; i++)
        e = take_folder(norm[i], path_below(out, norm[i]), &all, &text);
    int allowed = 0;
    for (size_t i = 0; !e && i < n; i++) {
        int a = results_attempts_allowed(norm[i]);
        allowed = a > allowed ? a : allowed;
    }
    struct task_state *tasks = NULL;
    size_t n_tasks = 0;
    if (!e)
        e = results_tasks(&all, &tasks, &n_tasks);
    for (size_t k = 0; !e && k < n_tasks; k++)
        tally_add(t, &tasks[k]);
    free(tasks);
    if (allowed > t->attempts)
        t->attempts = allowed;
    char path[PATH_CAP + 64];
    if (!e) {
        warn_twice(&all);
        e = os_mkdir_p(out);
    }
    if (!e) {
        snprintf(path, sizeof path, "%s/results.jsonl", out);
        e = os_write_file(path, dynbuf_str(&text), text.len);
    }
    if (!e)
        e = write_state(out, norm, n, t);
    int rows;
    if (!e)
        e = report_index(out, &rows);
    char suite[128];
    merge_suite_name(dirs, n, suite, sizeof suite);
    if (junit_path)
        snprintf(path, sizeof path, "%s", junit_path);
    else
        snprintf(path, sizeof path, "%s/junit.xml", out);
    if (!e)
        e = junit_write(&all, suite, t->attempts, path);
    if (!e && (!(*out_path = str_dup(out)) || !(*junit_out = str_dup(path)))) {
        free(*out_path);
        *out_path = NULL;
        e = wa_fail(WA_E_NOMEM, "out of memory");
    }
    dynbuf_cleanup(&text);
    results_cleanup(&all);
    free(norm);
    return e;
}
