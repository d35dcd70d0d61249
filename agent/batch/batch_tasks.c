/* A batch's tasks: the tasks file read and checked, the shard of them a machine runs,
 * and where each task stands (what --resume finds in results.jsonl, the state file,
 * the JUnit XML). */
#include "agent/batch/batch_tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/request/exit.h"
#include "agent/core/host.h"
#include "agent/run/budget.h"
#include "agent/run/config.h"
#include "agent/report/junit.h"
#include "agent/report/report_index.h"
#include "agent/report/results.h"
#include "base/args.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

#define TASKS_MAX_BYTES   (16u << 20)
#define DEFAULT_TIMEOUT_S 900 /* a task's wall time when its line gives none */

/* ---- the tasks file ---- */

static void tasks_free_one(struct batch_task *t)
{
    free(t->id);
    free(t->prompt);
    free(t->check);
    free(t->setup);
    free(t->apps);
}

void batch_tasks_free(struct batch_task *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tasks_free_one(&t[i]);
    free(t);
}

static wa_err task_string(const cJSON *o, const char *key, bool required, char **out,
                          const char *file, int line)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && !required)
        return WA_E_OK;
    if (!cJSON_IsString(v) || !*v->valuestring)
        return wa_fail(WA_E_USAGE, "%s line %d: \"%s\" must be a non-empty string", file, line,
                       key);
    *out = str_dup(v->valuestring);
    return *out ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

/* The entry of a comma-separated list at *p, blanks around it dropped, into out; *p moves
 * past it. False at the end of the list. */
static bool next_entry(const char **p, char *out, size_t cap)
{
    if (!**p)
        return false;
    size_t n = strcspn(*p, ",");
    const char *s = *p, *e = *p + n;
    *p = *e ? e + 1 : e;
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    snprintf(out, cap, "%.*s", (int)(e - s), s);
    return true;
}

/* Whether every entry of the comma-separated list narrow is one of wide's. */
static bool apps_within(const char *narrow, const char *wide)
{
    char entry[300], other[300];
    for (const char *p = narrow; next_entry(&p, entry, sizeof entry);) {
        bool found = !*entry;
        for (const char *q = wide; !found && next_entry(&q, other, sizeof other);)
            found = str_ieq(entry, other);
        if (!found)
            return false;
    }
    return true;
}

static wa_err parse_task(const cJSON *o, struct batch_task *t, const char *file, int line)
{
    static const char *const known[] = {"id",    "prompt",        "check",
                                        "setup", "max_steps",     "timeout_s",
                                        "apps",  "budget_tokens", "budget_seconds"};
    if (!cJSON_IsObject(o))
        return wa_fail(WA_E_USAGE, "%s line %d: not a JSON object", file, line);
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++)
            ok = ok || strcmp(v->string, known[k]) == 0;
        if (!ok) /* a misspelt "check" must not quietly pass every task */
            return wa_fail(WA_E_USAGE,
                           "%s line %d: unknown key \"%.40s\" (a task has id, prompt, check, "
                           "setup, max_steps, timeout_s, apps, budget_tokens, budget_seconds)",
                           file, line, v->string);
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    char num[32];
    if (cJSON_IsNumber(id)) {
        snprintf(num, sizeof num, "%.0f", id->valuedouble);
        t->id = str_dup(num);
    } else if (cJSON_IsString(id) && *id->valuestring) {
        t->id = str_dup(id->valuestring);
    } else {
        return wa_fail(WA_E_USAGE, "%s line %d: a task needs an \"id\" (string or number)", file,
                       line);
    }
    wa_err e;
    if ((e = task_string(o, "prompt", true, &t->prompt, file, line)) ||
        (e = task_string(o, "check", false, &t->check, file, line)) ||
        (e = task_string(o, "setup", false, &t->setup, file, line)) ||
        (e = task_string(o, "apps", false, &t->apps, file, line)))
        return e;
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "max_steps");
    if (ms && (!cJSON_IsNumber(ms) || ms->valuedouble < 1 || ms->valuedouble > 10000 ||
               ms->valuedouble != (int)ms->valuedouble))
        return wa_fail(WA_E_USAGE, "%s line %d: \"max_steps\" must be a whole number 1-10000", file,
                       line);
    t->max_steps = ms ? ms->valueint : 0;
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(o, "timeout_s");
    if (to && (!cJSON_IsNumber(to) || !(to->valuedouble >= 1 && to->valuedouble <= 86400)))
        return wa_fail(WA_E_USAGE, "%s line %d: \"timeout_s\" must be seconds, 1-86400", file,
                       line);
    t->timeout_s = to ? to->valuedouble : DEFAULT_TIMEOUT_S;
    const cJSON *bt = cJSON_GetObjectItemCaseSensitive(o, "budget_tokens");
    if (bt && (!cJSON_IsNumber(bt) || !(bt->valuedouble >= 1 && bt->valuedouble <= 1e12) ||
               bt->valuedouble != (double)(long long)bt->valuedouble))
        return wa_fail(WA_E_USAGE,
                       "%s line %d: \"budget_tokens\" must be a whole number of tokens, "
                       "1-1000000000000",
                       file, line);
    t->budget.tokens = bt ? (long long)bt->valuedouble : 0;
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(o, "budget_seconds");
    if (bs && (!cJSON_IsNumber(bs) || !(bs->valuedouble >= 1 && bs->valuedouble <= 31536000)))
        return wa_fail(WA_E_USAGE, "%s line %d: \"budget_seconds\" must be seconds, 1-31536000",
                       file, line);
    t->budget.seconds = bs ? bs->valuedouble : 0;
    return WA_E_OK;
}

wa_err batch_tasks_parse(char *text, const char *file, struct batch *b)
{
    wa_err e = WA_E_OK;
    int line_no = 0;
    for (char *line = text, *next; !e && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        const char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            continue;
        if (line_no == 1 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb &&
            (unsigned char)p[2] == 0xbf)
            p += 3; /* a BOM */
        cJSON *o = cJSON_Parse(p);
        if (!o) {
            e = wa_fail(WA_E_USAGE, "%s line %d: not valid JSON: %.80s", file, line_no, p);
            break;
        }
        struct batch_task *grown = wa_reallocarray(b->tasks, b->n + 1, sizeof *grown);
        if (!grown) {
            cJSON_Delete(o);
            e = wa_fail(WA_E_NOMEM, "out of memory");
            break;
        }
        b->tasks = grown;
        memset(&b->tasks[b->n], 0, sizeof *b->tasks);
        e = parse_task(o, &b->tasks[b->n], file, line_no);
        const char *batch_apps = b->cfg ? settings_get(&b->cfg->settings, SET_APPS) : NULL;
        if (!e && b->tasks[b->n].apps && batch_apps &&
            !apps_within(b->tasks[b->n].apps, batch_apps))
            e = wa_fail(WA_E_USAGE,
                        "%s line %d: \"apps\" names a program --apps does not allow (%.200s): a "
                        "task narrows the batch's allow-list, never widens it",
                        file, line_no, batch_apps);
        b->n++;
        cJSON_Delete(o);
        for (size_t i = 0; !e && i + 1 < b->n; i++)
            if (strcmp(b->tasks[i].id, b->tasks[b->n - 1].id) == 0)
                e = wa_fail(WA_E_USAGE, "%s line %d: the id \"%.60s\" is used twice", file, line_no,
                            b->tasks[i].id);
    }
    if (!e && b->n == 0)
        e = wa_fail(WA_E_USAGE, "%s holds no tasks (one JSON object per line)", file);
    return e;
}

wa_err batch_tasks_load(const char *file, struct batch *b)
{
    char *text = NULL;
    wa_err e = os_read_file(file, TASKS_MAX_BYTES, &text, NULL);
    if (e)
        return e;
    e = batch_tasks_parse(text, file, b);
    free(text);
    return e;
}

/* ---- shards ---- */

int batch_shard_of(const char *id, int n)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a of the id's bytes: the same everywhere */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    return n > 0 ? (int)(h % (uint64_t)n) + 1 : 1;
}

void batch_tasks_select_shard(struct batch *b, int i, int n)
{
    size_t kept = 0;
    for (size_t k = 0; k < b->n; k++) {
        if (batch_shard_of(b->tasks[k].id, n) == i)
            b->tasks[kept++] = b->tasks[k];
        else
            tasks_free_one(&b->tasks[k]);
    }
    b->n = kept;
}

/* ---- where each task stands (--resume) ---- */

static int by_id(const void *a, const void *b)
{
    return strcmp((*(const struct batch_task *const *)a)->id,
                  (*(const struct batch_task *const *)b)->id);
}

/* The tasks by id, for looking them up: an array of n pointers (free() it), NULL when out of
 * memory. */
static struct batch_task **tasks_by_id(const struct batch *b)
{
    struct batch_task **sorted = malloc((b->n ? b->n : 1) * sizeof *sorted);
    if (!sorted)
        return NULL;
    for (size_t i = 0; i < b->n; i++)
        sorted[i] = &b->tasks[i];
    qsort(sorted, b->n, sizeof *sorted, by_id);
    return sorted;
}

static const struct batch_task *task_named(struct batch_task *const *sorted, size_t n,
                                           const char *id)
{
    struct batch_task key = {.id = (char *)id}, *k = &key;
    struct batch_task *const *found = bsearch(&k, sorted, n, sizeof *sorted, by_id);
    return found ? *found : NULL;
}

wa_err batch_tasks_place(struct batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        b->next_attempt[i] = 1;
    struct task_state *states;
    size_t n;
    struct batch_task **sorted = tasks_by_id(b);
    wa_err e = sorted ? results_tasks(&b->res, &states, &n) : wa_fail(WA_E_NOMEM, "out of memory");
    if (e) {
        free(sorted);
        return e;
    }
    for (size_t k = 0; k < n; k++) {
        const struct batch_task *t = task_named(sorted, b->n, states[k].id);
        if (!t)
            continue; /* a task no longer in the file, or in another shard */
        int *next = &b->next_attempt[t - b->tasks];
        const struct task_state *s = &states[k];
        if (s->outcome == OUT_PASS ||
            (s->outcome == OUT_FAIL && s->last->attempt >= b->opt.attempts))
            *next = 0;
        else if (s->outcome == OUT_FAIL)
            *next = s->last->attempt + 1;
    }
    free(states);
    free(sorted);
    return WA_E_OK;
}

void batch_tasks_tally(const struct batch *b, struct tally *t)
{
    memset(t, 0, sizeof *t);
    struct task_state *states;
    size_t n;
    struct batch_task **sorted = tasks_by_id(b);
    if (!sorted || results_tasks(&b->res, &states, &n) != WA_E_OK) {
        free(sorted);
        return;
    }
    for (size_t k = 0; k < n; k++)
        if (task_named(sorted, b->n, states[k].id))
            tally_add(t, &states[k]);
    if (b->opt.attempts > t->attempts)
        t->attempts = b->opt.attempts;
    free(states);
    free(sorted);
}

void batch_tasks_write_state(const struct batch *b, const char *file, const char *state,
                             const char *at)
{
    struct tally t;
    batch_tasks_tally(b, &t);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tasks_file", file);
    cJSON_AddNumberToObject(o, "tasks", (double)b->n);
    if (b->opt.shard_n) {
        char shard[32];
        snprintf(shard, sizeof shard, "%d/%d", b->opt.shard_i, b->opt.shard_n);
        cJSON_AddStringToObject(o, "shard", shard);
        cJSON_AddNumberToObject(o, "tasks_in_file", (double)b->in_file);
    }
    cJSON_AddNumberToObject(o, "attempts", b->opt.attempts);
    cJSON_AddStringToObject(o, "state", state);
    if (at)
        cJSON_AddStringToObject(o, "stopped_at", at);
    for (int i = OUT_NONE + 1; i < OUT__COUNT; i++)
        cJSON_AddNumberToObject(o, outcome_name((enum outcome)i), t.outcome[i]);
    cJSON_AddNumberToObject(o, "pass@1", t.pass_first);
    cJSON_AddNumberToObject(o, "tokens", (double)t.tokens);
    char path[4200];
    snprintf(path, sizeof path, "%s" OS_SEP "batch.json", b->dir);
    char *text = cJSON_Print(o);
    if (text)
        os_write_file(path, text, strlen(text));
    free(text);
    cJSON_Delete(o);
}

void batch_tasks_write_junit(const struct batch *b)
{
    if (!b->opt.junit)
        return;
    /* only this batch's tasks: results of tasks since dropped from the file stay out */
    struct results mine;
    results_init(&mine);
    struct batch_task **sorted = tasks_by_id(b);
    for (size_t i = 0; sorted && i < b->res.n; i++)
        if (task_named(sorted, b->n, b->res.lines[i].id))
            results_add(&mine, b->res.lines[i].json);
    free(sorted);
    wa_err e = junit_write(&mine, b->suite, b->opt.attempts, b->opt.junit);
    if (e)
        fprintf(stderr, "batch: cannot write the JUnit file %s: %s\n", b->opt.junit,
                *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    results_cleanup(&mine);
}
