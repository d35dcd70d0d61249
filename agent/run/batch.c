/* Unattended batches of tasks: each task a run of the loop, judged by its check. */
#include "agent/run/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/exit.h"
#include "agent/core/host.h"
#include "agent/run/budget.h"
#include "agent/run/config.h"
#include "agent/run/junit.h"
#include "agent/run/loop.h"
#include "agent/run/report_index.h"
#include "agent/run/results.h"
#include "agent/run/steplog.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term.h"

#define TASKS_MAX_BYTES   (16u << 20)
#define DEFAULT_TIMEOUT_S 900 /* a task's wall time when its line gives none */
#define SHELL_TIMEOUT_S   300 /* a setup or check command */
#define WATCH_TICK_MS     100

struct task {
    char *id, *prompt, *check, *setup;
    char *apps;    /* its allow-list (within the batch's), or NULL */
    int max_steps; /* 0: the batch's */
    double timeout_s;
    struct budget budget; /* its line's; 0: the run setting's */
};

struct batch {
    struct agent_config *cfg;
    struct batch_opts opt;
    struct task *tasks; /* the tasks of this shard */
    size_t n;
    size_t in_file;     /* tasks in the file, every shard's */
    char *dir;          /* LOGDIR/batch-... */
    char suite[96];     /* the JUnit suite: the file's name, and the shard */
    struct results res; /* every line of results.jsonl, read and written */
    int *next_attempt;  /* per task: the attempt it starts at; 0 when it is done (resume) */
    struct core *core;  /* setup and check commands */
    struct session *ses;
    int64_t started_ms;     /* this batch's start: the time of its budget */
    long long spent_tokens; /* by this batch's runs: the tokens of its budget */
};

/* ---- the wall-time watchdog: interrupts the running task when its time is up ---- */

struct watchdog {
    struct os_mutex *mu;
    int64_t deadline; /* 0: disarmed */
    bool fired;
};

static void watch(void *p)
{
    struct watchdog *w = p;
    for (;;) {
        os_mutex_lock(w->mu);
        if (w->deadline && !w->fired && os_now_ms() >= w->deadline) {
            w->fired = true;
            os_interrupt_request();
        }
        os_mutex_unlock(w->mu);
        os_nap_ms(WATCH_TICK_MS);
    }
}

static struct watchdog watchdog;

static void watch_arm(double seconds)
{
    os_mutex_lock(watchdog.mu);
    watchdog.fired = false;
    watchdog.deadline = os_now_ms() + (int64_t)(seconds * 1000.0);
    os_mutex_unlock(watchdog.mu);
}

/* Disarms; true when the time ran out (and its interrupt is taken back). */
static bool watch_disarm(void)
{
    os_mutex_lock(watchdog.mu);
    bool fired = watchdog.fired;
    watchdog.deadline = 0;
    watchdog.fired = false;
    if (fired)
        os_interrupt_withdraw();
    os_mutex_unlock(watchdog.mu);
    return fired;
}

/* ---- the tasks file ---- */

static void tasks_free_one(struct task *t)
{
    free(t->id);
    free(t->prompt);
    free(t->check);
    free(t->setup);
    free(t->apps);
}

static void tasks_free(struct task *t, size_t n)
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

static wa_err parse_task(const cJSON *o, struct task *t, const char *file, int line)
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

/* The tasks of a tasks file's text (modified in place) into b; file names it in errors. */
static wa_err parse_tasks(char *text, const char *file, struct batch *b)
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
        struct task *grown = wa_reallocarray(b->tasks, b->n + 1, sizeof *grown);
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

static wa_err load_tasks(const char *file, struct batch *b)
{
    char *text = NULL;
    wa_err e = os_read_file(file, TASKS_MAX_BYTES, &text, NULL);
    if (e)
        return e;
    e = parse_tasks(text, file, b);
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

/* Keeps the tasks of shard i of n, in their order; the others are freed. */
static void select_shard(struct batch *b, int i, int n)
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

/* ---- the batch folder ---- */

/* "tasks" from "C:\\x\\tasks.jsonl", as a slug, and "-shard-2-of-3" for a shard. */
static void batch_name(const char *file, const struct batch_opts *o, char *out, size_t cap)
{
    char stem[200];
    snprintf(stem, sizeof stem, "%s", str_path_base(file));
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = '\0';
    steplog_slug(stem, out, cap);
    size_t len = strlen(out);
    if (o->shard_n && len < cap)
        snprintf(out + len, cap - len, "-shard-%d-of-%d", o->shard_i, o->shard_n);
}

/* The newest LOGDIR/batch-<stamp>-<name> folder, or NULL. */
static char *latest_batch(const char *log_dir, const char *name)
{
    struct os_dir_list l;
    if (os_list_dir(log_dir, &l) != WA_E_OK)
        return NULL;
    os_dir_list_sort(&l);
    char *found = NULL;
    size_t nlen = strlen(name);
    for (size_t i = l.count; i-- > 0 && !found;) {
        const char *d = l.names[i];
        size_t len = strlen(d);
        /* batch-yyyymmdd-hhmmss-<name> */
        if (strncmp(d, "batch-", 6) == 0 && len == 6 + 16 + nlen && strcmp(d + 6 + 16, name) == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s" OS_SEP "%s", log_dir, d);
            if (os_is_dir(path))
                found = str_dup(path);
        }
    }
    os_dir_list_cleanup(&l);
    return found;
}

static char *new_batch_dir(const char *log_dir, const char *name)
{
    struct os_tm t;
    os_local_time(os_time_ms(), &t);
    char path[4096];
    snprintf(path, sizeof path, "%s" OS_SEP "batch-%04d%02d%02d-%02d%02d%02d-%s", log_dir, t.year,
             t.month, t.day, t.hour, t.min, t.sec, name);
    os_path_native(path);
    for (int i = 0; os_path_exists(path) && i < 60; i++) { /* two batches in one second */
        os_sleep_ms(1000);
        os_local_time(os_time_ms(), &t);
        snprintf(path, sizeof path, "%s" OS_SEP "batch-%04d%02d%02d-%02d%02d%02d-%s", log_dir,
                 t.year, t.month, t.day, t.hour, t.min, t.sec, name);
        os_path_native(path);
    }
    if (os_mkdir_p(path) != WA_E_OK)
        return NULL;
    return str_dup(path);
}

/* One whole line appended to DIR/FILE in a single write, so that a batch killed meanwhile
 * leaves at worst a torn last line, never two records run into each other. */
static void append_line(const char *dir, const char *file, const char *text, size_t len)
{
    char path[4200];
    snprintf(path, sizeof path, "%s" OS_SEP "%s", dir, file);
    FILE *f = os_fopen(path, "ab");
    if (!f)
        return;
    setvbuf(f, NULL, _IONBF, 0); /* unbuffered: the fwrite below is the one write */
    fwrite(text, 1, len, f);
    fclose(f);
}

/* o as one line of results.jsonl, and into the batch's results. */
static void append_result(struct batch *b, const cJSON *o)
{
    results_add(&b->res, o);
    char *text = cJSON_PrintUnformatted(o);
    size_t n = text ? strlen(text) : 0;
    char *line = text ? realloc(text, n + 2) : NULL;
    if (!line) {
        free(text);
        return;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    append_line(b->dir, "results.jsonl", line, n + 1);
    free(line);
}

/* ---- where each task stands (--resume) ---- */

static int by_id(const void *a, const void *b)
{
    return strcmp((*(const struct task *const *)a)->id, (*(const struct task *const *)b)->id);
}

/* The tasks by id, for looking them up: an array of n pointers (free() it), NULL when out of
 * memory. */
static struct task **tasks_by_id(const struct batch *b)
{
    struct task **sorted = malloc((b->n ? b->n : 1) * sizeof *sorted);
    if (!sorted)
        return NULL;
    for (size_t i = 0; i < b->n; i++)
        sorted[i] = &b->tasks[i];
    qsort(sorted, b->n, sizeof *sorted, by_id);
    return sorted;
}

static const struct task *task_named(struct task *const *sorted, size_t n, const char *id)
{
    struct task key = {.id = (char *)id}, *k = &key;
    struct task *const *found = bsearch(&k, sorted, n, sizeof *sorted, by_id);
    return found ? *found : NULL;
}

/* Where each task starts, from the results read: a task that passed, or failed with every
 * attempt made, is done (0); one that failed with attempts left goes on with the next;
 * every other (errored, timed out, never judged) starts again from its first attempt. */
static wa_err place_tasks(struct batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        b->next_attempt[i] = 1;
    struct task_state *states;
    size_t n;
    struct task **sorted = tasks_by_id(b);
    wa_err e = sorted ? results_tasks(&b->res, &states, &n) : wa_fail(WA_E_NOMEM, "out of memory");
    if (e) {
        free(sorted);
        return e;
    }
    for (size_t k = 0; k < n; k++) {
        const struct task *t = task_named(sorted, b->n, states[k].id);
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

/* The tally of this batch's tasks (those of the file and shard) from its results. */
static void batch_tally(const struct batch *b, struct tally *t)
{
    memset(t, 0, sizeof *t);
    struct task_state *states;
    size_t n;
    struct task **sorted = tasks_by_id(b);
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

/* batch.json: the tasks file and where the batch stood. */
static void write_state(const struct batch *b, const char *file, const char *state, const char *at)
{
    struct tally t;
    batch_tally(b, &t);
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

/* The JUnit file of --junit, from every result so far. */
static void write_junit(const struct batch *b)
{
    if (!b->opt.junit)
        return;
    /* only this batch's tasks: results of tasks since dropped from the file stay out */
    struct results mine;
    results_init(&mine);
    struct task **sorted = tasks_by_id(b);
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

wa_err batch_check_tasks(char *text, const char *results, const struct batch_check_opts *o,
                         struct batch_check *out)
{
    memset(out, 0, sizeof *out);
    struct batch b = {.opt.attempts = o->attempts > 0 ? o->attempts : 1};
    results_init(&b.res);
    wa_err e = parse_tasks(text, "tasks", &b);
    out->in_file = b.n;
    if (!e && o->shard_n > 0)
        select_shard(&b, o->shard_i, o->shard_n);
    out->tasks = b.n;
    if (!e && !(b.next_attempt = calloc(b.n ? b.n : 1, sizeof *b.next_attempt)))
        e = wa_fail(WA_E_NOMEM, "out of memory");
    if (!e && results)
        e = results_parse(&b.res, results);
    if (!e)
        e = place_tasks(&b);
    for (size_t i = 0; !e && i < b.n; i++)
        out->done += b.next_attempt[i] == 0;
    if (!e)
        batch_tally(&b, &out->tally);
    if (!e && o->junit) {
        e = junit_render(&b.res, "tasks", b.opt.attempts, o->junit);
    }
    tasks_free(b.tasks, b.n);
    free(b.next_attempt);
    results_cleanup(&b.res);
    return e;
}

/* ---- running ---- */

/* Runs a setup or check command in the shell; its exit code, or -1 when it could not
 * run (why in *why). */
static int run_shell(struct batch *b, const char *command, char *why, size_t cap)
{
    struct op_request q;
    struct op_result r;
    op_request_init(&q, op_def(OP_SHELL));
    op_result_init(&r);
    wa_err e = op_request_set_text(&q, ARG_COMMAND, command);
    if (!e)
        e = op_request_set_number(&q, ARG_TIMEOUT_S, SHELL_TIMEOUT_S);
    if (!e)
        e = core_perform(b->ses, &q, &r);
    int code = -1;
    if (e)
        snprintf(why, cap, "%s", r.message[0] ? r.message : wa_err_detail());
    else if (r.shell.timed_out)
        snprintf(why, cap, "timed out after %d s", SHELL_TIMEOUT_S);
    else
        code = r.shell.exit_code;
    op_request_cleanup(&q);
    op_result_cleanup(&r);
    return code;
}

/* The outcome of a run that ended with code (not interrupted by Ctrl+C): a finished run
 * passes when its check does; a dry run judges nothing. why says what decided it. */
static enum outcome judge(struct batch *b, const struct task *t, int code, bool timed_out,
                          const struct budget *budget, const struct run_outcome *run, char *why,
                          size_t cap)
{
    if (code == EXIT_INTERRUPTED && timed_out) {
        snprintf(why, cap, "wall time of %.0f s ran out", t->timeout_s);
        return OUT_TIMEOUT;
    }
    if (code == EXIT_OK && b->cfg->dry_run) {
        snprintf(why, cap, "dry run: nothing was done, so no check was run");
        return OUT_DRY_RUN;
    }
    enum outcome out = outcome_of_exit(code);
    char limit[64];
    switch (out) {
    case OUT_PASS: {
        int rc = t->check ? run_shell(b, t->check, why, cap) : 0;
        if (rc > 0)
            snprintf(why, cap, "check exited with %d", rc);
        return rc == 0 ? OUT_PASS : rc < 0 ? OUT_ERROR : OUT_FAIL;
    }
    case OUT_FAIL:
        snprintf(why, cap, "the run ended without a final answer (exit code %d)", code);
        break;
    case OUT_BUDGET:
        budget_describe(budget, limit, sizeof limit);
        snprintf(why, cap, "budget spent: %lld tokens, %.1f s of a budget of %s", run->total_tokens,
                 run->total_ms / 1000.0, limit);
        break;
    case OUT_NEEDS_CONFIRMATION:
        snprintf(why, cap,
                 "an action needed a person's confirmation and nobody was there to give it "
                 "(exit code %d)",
                 code);
        break;
    default:
        snprintf(why, cap, "the run failed (exit code %d)", code);
    }
    return out;
}

/* Appends one attempt's line to results.jsonl and renews index.html. */
static void record_attempt(struct batch *b, size_t i, int attempt, enum outcome out, int code,
                           const struct run_outcome *run, const char *why, double secs)
{
    cJSON *line = cJSON_CreateObject();
    cJSON_AddStringToObject(line, RESULT_ID, b->tasks[i].id);
    cJSON_AddStringToObject(line, RESULT_OUTCOME, outcome_name(out));
    cJSON_AddNumberToObject(line, RESULT_ATTEMPTS, attempt);
    if (code >= 0)
        cJSON_AddNumberToObject(line, RESULT_EXIT_CODE, code);
    else
        cJSON_AddNullToObject(line, RESULT_EXIT_CODE);
    cJSON_AddNumberToObject(line, RESULT_STEPS, run->steps);
    cJSON_AddNumberToObject(line, RESULT_TOKENS, (double)run->total_tokens);
    cJSON_AddNumberToObject(line, RESULT_TIME_S, (double)(int64_t)(secs * 10.0 + 0.5) / 10.0);
    cJSON_AddStringToObject(line, RESULT_RUN_FOLDER, run->dir[0] ? str_path_base(run->dir) : "");
    if (*why)
        cJSON_AddStringToObject(line, RESULT_REASON, why);
    append_result(b, line);
    cJSON_Delete(line);
    int runs;
    report_index(b->dir, &runs); /* index.html after every attempt */
}

/* The tally after task i, with how it ended. */
static void say_task(const struct batch *b, size_t i, int attempt, enum outcome out,
                     const char *why, double secs)
{
    struct tally t;
    char counts[256], at[48] = "";
    batch_tally(b, &t);
    tally_line(&t, counts, sizeof counts);
    if (b->opt.attempts > 1)
        snprintf(at, sizeof at, " at attempt %d/%d", attempt, b->opt.attempts);
    term_line(stderr, "[task %zu/%zu] %s | %s: %s%s%s%s (%.1f s)", i + 1, b->n, counts,
              b->tasks[i].id, outcome_name(out), at, *why ? ", " : "", why, secs);
}

/* What the batch's own budget leaves for the next run; false (why said) when nothing. */
static bool batch_budget_left(const struct batch *b, struct budget *left, char *why, size_t cap)
{
    double elapsed = (double)(os_now_ms() - b->started_ms) / 1000.0;
    *left = (struct budget){0};
    if (b->opt.whole.tokens > 0) {
        left->tokens = b->opt.whole.tokens - b->spent_tokens;
        if (left->tokens <= 0) {
            snprintf(why, cap, "not run: the batch's budget of %lld tokens was spent (%lld)",
                     b->opt.whole.tokens, b->spent_tokens);
            return false;
        }
    }
    if (b->opt.whole.seconds > 0) {
        left->seconds = b->opt.whole.seconds - elapsed;
        if (left->seconds < 1) {
            snprintf(why, cap, "not run: the batch's budget of %g s was spent (%.0f s)",
                     b->opt.whole.seconds, elapsed);
            return false;
        }
    }
    return true;
}

/* One attempt at task i: setup, run, check. Its outcome, OUT_NONE when the batch must
 * stop (interrupted). */
static enum outcome run_attempt(struct batch *b, size_t i, int attempt, const struct budget *left)
{
    const struct task *t = &b->tasks[i];
    int64_t t0 = os_now_ms();
    enum outcome out = OUT_NONE;
    char why[600] = "";
    int code = -1;
    struct run_outcome run = {0};
    if (t->setup && !b->cfg->dry_run) {
        int rc = run_shell(b, t->setup, why, sizeof why);
        if (rc != 0) {
            out = OUT_ERROR;
            if (rc > 0)
                snprintf(why, sizeof why, "setup exited with %d", rc);
        }
    }
    if (out == OUT_NONE) {
        struct agent_config c = *b->cfg; /* the batch's settings, this task's prompt */
        c.prompt = t->prompt;
        c.log_dir = b->dir;
        if (t->max_steps)
            c.max_steps = t->max_steps;
        /* the task line's limits, else the run options'; at most what the batch has left */
        struct budget own = {t->budget.tokens ? t->budget.tokens : b->cfg->budget.tokens,
                             t->budget.seconds ? t->budget.seconds : b->cfg->budget.seconds};
        c.budget = budget_min(own, *left);
        if (t->apps) { /* the only programs of its run (the copy's settings are not freed) */
            c.settings.value[SET_APPS] = t->apps;
            c.settings.source[SET_APPS] = SRC_FLAG;
        }
        watch_arm(t->timeout_s);
        code = agent_run(&c, &run);
        bool timed_out = watch_disarm();
        b->spent_tokens += run.total_tokens;
        if (code == EXIT_INTERRUPTED && !timed_out) {
            fprintf(stderr,
                    "[task %zu/%zu] %s interrupted (%s): the batch stops here; "
                    "--resume runs it again\n",
                    i + 1, b->n, t->id, os_interrupt_reason() ? os_interrupt_reason() : "");
            return OUT_NONE;
        }
        out = judge(b, t, code, timed_out, &c.budget, &run, why, sizeof why);
    }
    if (os_interrupted()) { /* Ctrl+C during its setup or check: not judged */
        fprintf(stderr,
                "[task %zu/%zu] %s interrupted: the batch stops here; --resume runs it "
                "again\n",
                i + 1, b->n, t->id);
        return OUT_NONE;
    }
    double secs = (double)(os_now_ms() - t0) / 1000.0;
    record_attempt(b, i, attempt, out, code, &run, why, secs);
    bool again = out != OUT_PASS && out != OUT_DRY_RUN && attempt < b->opt.attempts;
    if (again)
        fprintf(stderr, "[task %zu/%zu] %s: %s at attempt %d/%d%s%s; trying again\n", i + 1, b->n,
                t->id, outcome_name(out), attempt, b->opt.attempts, *why ? ", " : "", why);
    else
        say_task(b, i, attempt, out, why, secs);
    return out;
}

/* Task i from its next attempt until one passes or none is left; false when the batch
 * must stop (interrupted). */
static bool run_task(struct batch *b, size_t i)
{
    for (int attempt = b->next_attempt[i]; attempt <= b->opt.attempts; attempt++) {
        struct budget left;
        char why[200];
        if (!batch_budget_left(b, &left, why, sizeof why)) {
            if (attempt == b->next_attempt[i] && b->next_attempt[i] == 1) {
                struct run_outcome none = {0};
                record_attempt(b, i, attempt, OUT_BUDGET, -1, &none, why, 0);
                say_task(b, i, attempt, OUT_BUDGET, why, 0);
            }
            return true;
        }
        enum outcome out = run_attempt(b, i, attempt, &left);
        if (out == OUT_NONE)
            return false;
        if (out == OUT_PASS || out == OUT_DRY_RUN)
            break;
    }
    return true;
}

/* The shell policy allows checks only when nobody needs to answer: "on". */
static wa_err check_shell_policy(const struct batch *b, const char *file)
{
    const struct task *uses = NULL;
    for (size_t i = 0; i < b->n && !uses; i++)
        if (b->tasks[i].check || b->tasks[i].setup)
            uses = &b->tasks[i];
    const char *policy = settings_get(&b->cfg->settings, SET_SHELL);
    if (!uses || str_ieq(policy, "on"))
        return WA_E_OK;
    return wa_fail(WA_E_USAGE,
                   "%s has setup or check commands (task \"%.60s\"), which run in the shell, but "
                   "the shell policy is '%s' (from %s); a batch runs unattended, so nobody can "
                   "confirm them: use --shell on",
                   file, uses->id, policy, setting_source_name(&b->cfg->settings, SET_SHELL));
}

static int start(struct batch *b, const char *file)
{
    wa_err e = load_tasks(file, b);
    b->in_file = b->n;
    if (!e && b->opt.shard_n)
        select_shard(b, b->opt.shard_i, b->opt.shard_n);
    if (!e)
        e = check_shell_policy(b, file);
    if (e) {
        exit_fail(e);
        return EXIT_USAGE;
    }
    char name[64];
    batch_name(file, &b->opt, name, sizeof name);
    snprintf(b->suite, sizeof b->suite, "%s", name);
    if (b->opt.resume) {
        if (!(b->dir = latest_batch(b->cfg->log_dir, name))) {
            exit_fail(wa_fail(WA_E_USAGE, "--resume: no earlier batch of %s%s in %s", file,
                              b->opt.shard_n ? " (this shard)" : "", b->cfg->log_dir));
            return EXIT_USAGE;
        }
    } else if (os_mkdir_p(b->cfg->log_dir) != WA_E_OK ||
               !(b->dir = new_batch_dir(b->cfg->log_dir, name))) {
        exit_fail(wa_fail(WA_E_IO, "cannot create a batch folder in %s", b->cfg->log_dir));
        return EXIT_USAGE;
    }
    if (!(b->next_attempt = calloc(b->n ? b->n : 1, sizeof *b->next_attempt)))
        return exit_fail(wa_fail(WA_E_NOMEM, "out of memory"));
    bool unended = false;
    if (b->opt.resume && (e = results_load(&b->res, b->dir, &unended)) && e != WA_E_USAGE)
        return exit_fail(e);
    if (unended) {
        fprintf(stderr,
                "batch: the last line of %s" OS_SEP "results.jsonl has no line end (the batch "
                "stopped while writing it): it counts only if whole, and the next result starts "
                "a line of its own\n",
                b->dir);
        append_line(b->dir, "results.jsonl", "\n", 1);
    }
    append_line(b->dir, "results.jsonl", "", 0); /* there even when nothing runs */
    if ((e = place_tasks(b)))
        return exit_fail(e);
    struct core_config cc;
    if ((e = core_config_from_settings(&b->cfg->settings, true, &cc)) ||
        (cc.be = host_backend(), !cc.be) || (e = core_new(&cc, &b->core))) {
        exit_fail(e ? e : wa_fail(WA_E_UNSUPPORTED, "no desktop backend"));
        return EXIT_USAGE;
    }
    struct session_opts so;
    session_opts_default(&so);
    so.front = "batch";
    so.after = AFTER_NONE;
    if ((e = session_new(b->core, &so, &b->ses)))
        return exit_fail(e);
    return EXIT_OK;
}

static int run_batch(struct batch *b, const char *file)
{
    int code = start(b, file);
    if (code != EXIT_OK)
        return code;
    if (!watchdog.mu && (!(watchdog.mu = os_mutex_new()) || os_thread_start(watch, &watchdog)))
        return exit_fail(wa_fail(WA_E_IO, "cannot start the wall-time watchdog"));
    b->started_ms = os_now_ms();
    size_t kept = 0;
    for (size_t i = 0; i < b->n; i++)
        kept += b->next_attempt[i] == 0;
    fprintf(stderr, "batch: %zu task%s from %s", b->n, b->n == 1 ? "" : "s", file);
    if (b->opt.shard_n)
        fprintf(stderr, " (shard %d/%d of its %zu)", b->opt.shard_i, b->opt.shard_n, b->in_file);
    fprintf(stderr, "; folder %s\n", b->dir);
    if (b->opt.resume)
        fprintf(stderr, "batch: resuming: %zu task%s kept (pass or fail), %zu to run\n", kept,
                kept == 1 ? "" : "s", b->n - kept);
    write_state(b, file, "running", NULL);
    if (b->n == 0) {
        int runs;
        report_index(b->dir, &runs);
    }
    for (size_t i = 0; i < b->n; i++) {
        if (b->next_attempt[i] == 0)
            continue;
        if (os_interrupted() || !run_task(b, i)) {
            write_state(b, file, "interrupted", b->tasks[i].id);
            write_junit(b);
            return EXIT_INTERRUPTED;
        }
    }
    write_state(b, file, "finished", NULL);
    write_junit(b);
    struct tally t;
    batch_tally(b, &t);
    char counts[256], pass_at[96];
    tally_line(&t, counts, sizeof counts);
    tally_pass_at(&t, pass_at, sizeof pass_at);
    bool all = t.outcome[OUT_PASS] == (int)b->n;
    bool dry = b->n && t.outcome[OUT_DRY_RUN] == (int)b->n;
    fprintf(stderr, "batch %s: %s of %zu; %s; results: %s" OS_SEP "results.jsonl%s%s\n",
            all   ? "passed"
            : dry ? "dry run"
                  : "did not pass",
            counts, b->n, pass_at, b->dir, b->opt.junit ? ", JUnit: " : "",
            b->opt.junit ? b->opt.junit : "");
    return all || dry ? EXIT_OK : EXIT_BATCH;
}

int batch_run(const struct batch_opts *o, struct agent_config *cfg)
{
    os_interrupt_install(true);
    struct batch b = {.opt = *o, .cfg = cfg};
    results_init(&b.res);
    char *file = cfg->prompt; /* the positional argument */
    int code = run_batch(&b, file);
    session_free(b.ses);
    core_free(b.core);
    tasks_free(b.tasks, b.n);
    free(b.next_attempt);
    results_cleanup(&b.res);
    free(b.dir);
    return code;
}
