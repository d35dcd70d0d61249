/* results.jsonl read back: its lines typed, each task's state and the tally. */
#include "agent/report/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/request/exit.h"
#include "base/os.h"
#include "base/str.h"

#define RESULTS_MAX_BYTES (64u << 20)

static const char *const outcome_names[OUT__COUNT] = {"",
#define X_NAME(id, name) name,
                                                      OUTCOME_MAP(X_NAME)
#undef X_NAME
};

const char *outcome_name(enum outcome o)
{
    return o > OUT_NONE && o < OUT__COUNT ? outcome_names[o] : "";
}

enum outcome outcome_by_name(const char *s)
{
    for (int i = OUT_NONE + 1; s && i < OUT__COUNT; i++)
        if (strcmp(s, outcome_names[i]) == 0)
            return (enum outcome)i;
    return OUT_NONE;
}

enum outcome outcome_of_exit(int code)
{
    switch (code) {
    case EXIT_OK:
        return OUT_PASS;
    case EXIT_STEPS:
    case EXIT_ACTION:
        return OUT_FAIL;
    case EXIT_BUDGET:
        return OUT_BUDGET;
    case EXIT_CONFIRM:
        return OUT_NEEDS_CONFIRMATION;
    case EXIT_STOPPED:
        return OUT_STOPPED;
    default:
        return OUT_ERROR;
    }
}

void results_init(struct results *r)
{
    memset(r, 0, sizeof *r);
}

void results_cleanup(struct results *r)
{
    for (size_t i = 0; i < r->n; i++)
        cJSON_Delete(r->lines[i].json);
    free(r->lines);
    memset(r, 0, sizeof *r);
}

/* A whole number field within [lo, hi], else def. */
static double number(const cJSON *o, const char *name, double lo, double hi, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi ? v->valuedouble : def;
}

/* Takes json (a record, owned either way) as the next line; WA_E_USAGE when it is none. */
static wa_err add_owned(struct results *r, cJSON *json)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(json, RESULT_ID);
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(json, RESULT_OUTCOME);
    enum outcome o = cJSON_IsString(out) ? outcome_by_name(out->valuestring) : OUT_NONE;
    if (!cJSON_IsString(id) || !*id->valuestring || o == OUT_NONE) {
        cJSON_Delete(json);
        return WA_E_USAGE;
    }
    struct result_line *grown = wa_reallocarray(r->lines, r->n + 1, sizeof *grown);
    if (!grown) {
        cJSON_Delete(json);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    r->lines = grown;
    struct result_line *l = &r->lines[r->n++];
    memset(l, 0, sizeof *l);
    l->json = json;
    l->id = id->valuestring;
    l->outcome = o;
    l->attempt = (int)number(json, RESULT_ATTEMPTS, 1, 1000, 1);
    l->exit_code = (int)number(json, RESULT_EXIT_CODE, 0, 255, -1);
    l->steps = (int)number(json, RESULT_STEPS, 0, 1e6, 0);
    l->tokens = (long long)number(json, RESULT_TOKENS, 0, 1e15, 0);
    l->time_s = number(json, RESULT_TIME_S, 0, 1e9, 0);
    const cJSON *folder = cJSON_GetObjectItemCaseSensitive(json, RESULT_RUN_FOLDER);
    l->run_folder = cJSON_IsString(folder) ? folder->valuestring : "";
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(json, RESULT_REASON);
    l->reason = cJSON_IsString(reason) && *reason->valuestring ? reason->valuestring : NULL;
    return WA_E_OK;
}

wa_err results_add(struct results *r, const cJSON *line)
{
    cJSON *copy = cJSON_Duplicate(line, true);
    if (!copy)
        return wa_fail(WA_E_NOMEM, "out of memory");
    return add_owned(r, copy) == WA_E_NOMEM ? WA_E_NOMEM : WA_E_OK;
}

wa_err results_parse(struct results *r, const char *text)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        char *copy = str_ndup(line, end ? (size_t)(end - line) : strlen(line));
        if (!copy)
            return wa_fail(WA_E_NOMEM, "out of memory");
        cJSON *o = cJSON_ParseWithOpts(copy, NULL, true); /* nothing may follow it */
        free(copy);
        if (o && add_owned(r, o) == WA_E_NOMEM)
            return WA_E_NOMEM;
        line = end ? end + 1 : NULL;
    }
    return WA_E_OK;
}

wa_err results_load(struct results *r, const char *dir, bool *unended)
{
    char path[4200], *text = NULL;
    size_t len = 0;
    if (unended)
        *unended = false;
    snprintf(path, sizeof path, "%s" OS_SEP "results.jsonl", dir);
    if (!os_path_exists(path))
        return wa_fail(WA_E_USAGE, "%s is not a batch folder: it has no results.jsonl", dir);
    wa_err e = os_read_file(path, RESULTS_MAX_BYTES, &text, &len);
    if (e)
        return e;
    if (unended && len && text[len - 1] != '\n')
        *unended = true;
    e = results_parse(r, text);
    free(text);
    return e;
}

/* The state of the task whose lines are lines[0..n) (in file order). */
static void task_of(const struct result_line *const *lines, size_t n, struct task_state *s)
{
    memset(s, 0, sizeof *s);
    size_t start = 0; /* the latest round begins at its latest first attempt */
    for (size_t k = 0; k < n; k++)
        if (lines[k]->attempt == 1)
            start = k;
    s->id = lines[0]->id;
    s->first = lines[start];
    s->last = lines[n - 1];
    for (size_t k = start; k < n; k++) {
        if (lines[k]->outcome == OUT_PASS && !s->passed)
            s->passed = lines[k];
        s->tokens += lines[k]->tokens;
        s->time_s += lines[k]->time_s;
    }
    s->outcome = s->passed ? OUT_PASS : s->last->outcome;
}

bool results_task(const struct results *r, const char *id, struct task_state *out)
{
    const struct result_line **lines = NULL;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->lines[i].id, id) != 0)
            continue;
        const struct result_line **grown = wa_reallocarray(lines, n + 1, sizeof *grown);
        if (!grown)
            break;
        lines = grown;
        lines[n++] = &r->lines[i];
    }
    if (n)
        task_of(lines, n, out);
    free(lines);
    return n > 0;
}

/* Lines by id, then by place in the file (they are one array). */
static int by_id_then_place(const void *a, const void *b)
{
    const struct result_line *x = *(const struct result_line *const *)a;
    const struct result_line *y = *(const struct result_line *const *)b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x > y) - (x < y);
}

/* The lines of one task: sorted[start..start+count), the first of them at first. */
struct group {
    const struct result_line *first;
    size_t start, count;
};

static int by_first_line(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

wa_err results_tasks(const struct results *r, struct task_state **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = r->n ? r->n : 1;
    const struct result_line **sorted = malloc(cap * sizeof *sorted);
    struct group *groups = malloc(cap * sizeof *groups);
    struct task_state *tasks = calloc(cap, sizeof *tasks);
    if (!sorted || !groups || !tasks) {
        free(sorted);
        free(groups);
        free(tasks);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < r->n; i++)
        sorted[i] = &r->lines[i];
    qsort(sorted, r->n, sizeof *sorted, by_id_then_place);
    size_t count = 0;
    for (size_t i = 0, j; i < r->n; i = j) {
        for (j = i + 1; j < r->n && strcmp(sorted[j]->id, sorted[i]->id) == 0; j++)
            ;
        groups[count++] = (struct group){sorted[i], i, j - i};
    }
    qsort(groups, count, sizeof *groups, by_first_line);
    for (size_t t = 0; t < count; t++)
        task_of(sorted + groups[t].start, groups[t].count, &tasks[t]);
    free(sorted);
    free(groups);
    *out = tasks;
    *n = count;
    return WA_E_OK;
}

void tally_add(struct tally *t, const struct task_state *s)
{
    t->tasks++;
    t->outcome[s->outcome]++;
    t->pass_first += s->first->outcome == OUT_PASS;
    if (s->last->attempt > t->attempts)
        t->attempts = s->last->attempt;
    t->tokens += s->tokens;
    t->time_s += s->time_s;
}

int results_attempts_allowed(const char *dir)
{
    char path[4200], *text = NULL;
    snprintf(path, sizeof path, "%s" OS_SEP "batch.json", dir);
    if (!os_path_exists(path) || os_read_file(path, 1u << 20, &text, NULL) != WA_E_OK)
        return 0;
    cJSON *o = cJSON_Parse(text);
    free(text);
    int n = (int)number(o, "attempts", 1, 1000, 0);
    cJSON_Delete(o);
    return n;
}

void tally_line(const struct tally *t, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = OUT_NONE + 1; i < OUT__COUNT && len < cap; i++)
        if (i <= OUT_TIMEOUT || t->outcome[i])
            len += (size_t)snprintf(out + len, cap - len, "%s%s %d", i > OUT_PASS ? " " : "",
                                    outcome_names[i], t->outcome[i]);
}

void tally_pass_at(const struct tally *t, char *out, size_t cap)
{
    int n = snprintf(out, cap, "pass@1 %d/%d", t->pass_first, t->tasks);
    if (n > 0 && (size_t)n < cap && t->attempts > 1)
        snprintf(out + n, cap - (size_t)n, ", pass@%d %d/%d", t->attempts, t->outcome[OUT_PASS],
                 t->tasks);
}
