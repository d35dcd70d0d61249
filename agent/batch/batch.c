/* Unattended batches of tasks: each task a run of the loop, judged by its check. The
 * tasks file, shards and where each task stands are batch_tasks.c. */
#include "agent/batch/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/request/exit.h"
#include "agent/core/host.h"
#include "agent/batch/batch_tasks.h"
#include "agent/run/budget.h"
#include "agent/run/config.h"
#include "agent/report/junit.h"
#include "agent/run/loop.h"
#include "agent/report/report_index.h"
#include "agent/report/results.h"
#include "agent/run/steplog.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

#define SHELL_TIMEOUT_S 300 /* a setup or check command */
#define WATCH_TICK_MS   100

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

wa_err batch_check_tasks(char *text, const char *results, const struct batch_check_opts *o,
                         struct batch_check *out)
{
    memset(out, 0, sizeof *out);
    struct batch b = {.opt.attempts = o->attempts > 0 ? o->attempts : 1};
    results_init(&b.res);
    wa_err e = batch_tasks_parse(text, "tasks", &b);
    out->in_file = b.n;
    if (!e && o->shard_n > 0)
        batch_tasks_select_shard(&b, o->shard_i, o->shard_n);
    out->tasks = b.n;
    if (!e && !(b.next_attempt = calloc(b.n ? b.n : 1, sizeof *b.next_attempt)))
        e = wa_fail(WA_E_NOMEM, "out of memory");
    if (!e && results)
        e = results_parse(&b.res, results);
    if (!e)
        e = batch_tasks_place(&b);
    for (size_t i = 0; !e && i < b.n; i++)
        out->done += b.next_attempt[i] == 0;
    if (!e)
        batch_tasks_tally(&b, &out->tally);
    if (!e && o->junit) {
        e = junit_render(&b.res, "tasks", b.opt.attempts, o->junit);
    }
    batch_tasks_free(b.tasks, b.n);
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
static enum outcome judge(struct batch *b, const struct batch_task *t, int code, bool timed_out,
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
    case OUT_STOPPED:
        snprintf(why, cap, "the person stopped it (%s); the batch stops here",
                 os_interrupt_reason() ? os_interrupt_reason() : "exit code 8");
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
    batch_tasks_tally(b, &t);
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
    const struct batch_task *t = &b->tasks[i];
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
    if (os_interrupted() && out != OUT_STOPPED) { /* Ctrl+C during its setup or check */
        fprintf(stderr,
                "[task %zu/%zu] %s interrupted: the batch stops here; --resume runs it "
                "again\n",
                i + 1, b->n, t->id);
        return OUT_NONE;
    }
    double secs = (double)(os_now_ms() - t0) / 1000.0;
    record_attempt(b, i, attempt, out, code, &run, why, secs);
    bool again =
        out != OUT_PASS && out != OUT_DRY_RUN && out != OUT_STOPPED && attempt < b->opt.attempts;
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
        if (out == OUT_NONE || out == OUT_STOPPED)
            return false;
        if (out == OUT_PASS || out == OUT_DRY_RUN)
            break;
    }
    return true;
}

/* The shell policy allows checks only when nobody needs to answer: "on". */
static wa_err check_shell_policy(const struct batch *b, const char *file)
{
    const struct batch_task *uses = NULL;
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
    wa_err e = batch_tasks_load(file, b);
    b->in_file = b->n;
    if (!e && b->opt.shard_n)
        batch_tasks_select_shard(b, b->opt.shard_i, b->opt.shard_n);
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
    if ((e = batch_tasks_place(b)))
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
    batch_tasks_write_state(b, file, "running", NULL);
    if (b->n == 0) {
        int runs;
        report_index(b->dir, &runs);
    }
    for (size_t i = 0; i < b->n; i++) {
        if (b->next_attempt[i] == 0)
            continue;
        if (os_interrupted() || !run_task(b, i)) {
            int code = exit_interrupted(); /* the person's stop: the task is recorded stopped */
            batch_tasks_write_state(b, file, code == EXIT_STOPPED ? "stopped" : "interrupted",
                                    b->tasks[i].id);
            batch_tasks_write_junit(b);
            return code;
        }
    }
    batch_tasks_write_state(b, file, "finished", NULL);
    batch_tasks_write_junit(b);
    struct tally t;
    batch_tasks_tally(b, &t);
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
    batch_tasks_free(b.tasks, b.n);
    free(b.next_attempt);
    results_cleanup(&b.res);
    free(b.dir);
    return code;
}
