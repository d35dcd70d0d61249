/* Unattended batches of tasks: each task a run of the loop, judged by its check. */
#include "agent/run/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/exit.h"
#include "agent/core/host.h"
#include "agent/run/config.h"
#include "agent/run/loop.h"
#include "agent/run/report_index.h"
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
};

/* dry_run: a --dry-run batch ran its task without acting and judged nothing (no setup,
 * no check): it is no pass. */
enum outcome { OUT_NONE, OUT_PASS, OUT_FAIL, OUT_ERROR, OUT_TIMEOUT, OUT_DRY_RUN, OUT__COUNT };
static const char *const outcome_names[] = {"", "pass", "fail", "error", "timeout", "dry_run"};

struct batch {
    struct agent_config *cfg;
    struct task *tasks;
    size_t n;
    char *dir;          /* LOGDIR/batch-... */
    enum outcome *done; /* the latest outcome of each task (resume) */
    int tally[OUT__COUNT];
    struct core *core; /* setup and check commands */
    struct session *ses;
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

static void tasks_free(struct task *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].id);
        free(t[i].prompt);
        free(t[i].check);
        free(t[i].setup);
        free(t[i].apps);
    }
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
    static const char *const known[] = {"id",        "prompt",    "check", "setup",
                                        "max_steps", "timeout_s", "apps"};
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
                           "setup, max_steps, timeout_s, apps)",
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

/* ---- the batch folder ---- */

/* "tasks" from "C:\\x\\tasks.jsonl", as a slug. */
static void batch_name(const char *file, char *out, size_t cap)
{
    char stem[200];
    snprintf(stem, sizeof stem, "%s", str_path_base(file));
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = '\0';
    steplog_slug(stem, out, cap);
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

static enum outcome outcome_by_name(const char *s)
{
    for (int i = OUT_PASS; i <= OUT_TIMEOUT; i++)
        if (strcmp(s, outcome_names[i]) == 0)
            return (enum outcome)i;
    return OUT_NONE;
}

/* What the text of results.jsonl (modified in place) says of each task: the latest
 * whole line of an id wins. A line that is not one JSON object, such as the torn last
 * line of a batch killed while writing it, says nothing. */
static void parse_results(struct batch *b, char *text)
{
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        cJSON *o = cJSON_ParseWithOpts(line, NULL, true); /* nothing may follow it */
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
        const cJSON *out = cJSON_GetObjectItemCaseSensitive(o, "outcome");
        for (size_t i = 0; cJSON_IsString(id) && cJSON_IsString(out) && i < b->n; i++)
            if (strcmp(b->tasks[i].id, id->valuestring) == 0)
                b->done[i] = outcome_by_name(out->valuestring);
        cJSON_Delete(o);
    }
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

/* results.jsonl of the batch being resumed. A last line without its line end (torn) is
 * ended, so that the next record starts a line of its own; what it holds counts only if
 * it is a whole record. */
static void read_results(struct batch *b)
{
    char path[4200], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s" OS_SEP "results.jsonl", b->dir);
    if (os_read_file(path, 64u << 20, &text, &len) != WA_E_OK)
        return;
    if (len && text[len - 1] != '\n') {
        fprintf(stderr,
                "batch: the last line of %s has no line end (the batch stopped while writing "
                "it): it counts only if whole, and the next result starts a line of its own\n",
                path);
        append_line(b->dir, "results.jsonl", "\n", 1);
    }
    parse_results(b, text);
    free(text);
}

/* o as one line of results.jsonl. */
static void append_result(const char *dir, const cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    size_t n = text ? strlen(text) : 0;
    char *line = text ? realloc(text, n + 2) : NULL;
    if (!line) {
        free(text);
        return;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    append_line(dir, "results.jsonl", line, n + 1);
    free(line);
}

wa_err batch_check_tasks(char *text, const char *results, size_t *n_tasks)
{
    struct batch b = {0};
    wa_err e = parse_tasks(text, "tasks", &b);
    *n_tasks = b.n;
    if (!e && results) {
        char *copy = str_dup(results);
        if (!copy || !(b.done = calloc(b.n, sizeof *b.done)))
            e = wa_fail(WA_E_NOMEM, "out of memory");
        else
            parse_results(&b, copy);
        free(copy);
    }
    tasks_free(b.tasks, b.n);
    free(b.done);
    return e;
}

/* batch.json: the tasks file and where the batch stood. */
static void write_state(const struct batch *b, const char *file, const char *state, const char *at)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tasks_file", file);
    cJSON_AddNumberToObject(o, "tasks", (double)b->n);
    cJSON_AddStringToObject(o, "state", state);
    if (at)
        cJSON_AddStringToObject(o, "stopped_at", at);
    for (int i = OUT_PASS; i < OUT__COUNT; i++)
        cJSON_AddNumberToObject(o, outcome_names[i], b->tally[i]);
    char path[4200];
    snprintf(path, sizeof path, "%s" OS_SEP "batch.json", b->dir);
    char *text = cJSON_Print(o);
    if (text)
        os_write_file(path, text, strlen(text));
    free(text);
    cJSON_Delete(o);
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
                          char *why, size_t cap)
{
    if (code == EXIT_INTERRUPTED && timed_out) {
        snprintf(why, cap, "wall time of %.0f s ran out", t->timeout_s);
        return OUT_TIMEOUT;
    }
    if (code == EXIT_OK && b->cfg->dry_run) {
        snprintf(why, cap, "dry run: nothing was done, so no check was run");
        return OUT_DRY_RUN;
    }
    if (code == EXIT_OK) {
        int rc = t->check ? run_shell(b, t->check, why, cap) : 0;
        if (rc > 0)
            snprintf(why, cap, "check exited with %d", rc);
        return rc == 0 ? OUT_PASS : rc < 0 ? OUT_ERROR : OUT_FAIL;
    }
    if (code == EXIT_STEPS || code == EXIT_ACTION) {
        snprintf(why, cap, "the run ended without a final answer (exit code %d)", code);
        return OUT_FAIL;
    }
    snprintf(why, cap, "the run failed (exit code %d)", code);
    return OUT_ERROR;
}

/* Appends the task's line to results.jsonl, renews index.html and says the tally. */
static void record_task(struct batch *b, size_t i, enum outcome out, int code,
                        const struct run_outcome *run, const char *why, double secs)
{
    const struct task *t = &b->tasks[i];
    b->done[i] = out;
    b->tally[out]++;
    cJSON *line = cJSON_CreateObject();
    cJSON_AddStringToObject(line, "id", t->id);
    cJSON_AddStringToObject(line, "outcome", outcome_names[out]);
    if (code >= 0)
        cJSON_AddNumberToObject(line, "exit_code", code);
    else
        cJSON_AddNullToObject(line, "exit_code");
    cJSON_AddNumberToObject(line, "steps", run->steps);
    cJSON_AddNumberToObject(line, "tokens", (double)run->total_tokens);
    cJSON_AddNumberToObject(line, "time_s", (double)(int64_t)(secs * 10.0 + 0.5) / 10.0);
    cJSON_AddStringToObject(line, "run_folder", run->dir[0] ? str_path_base(run->dir) : "");
    if (*why)
        cJSON_AddStringToObject(line, "reason", why);
    append_result(b->dir, line);
    cJSON_Delete(line);
    int runs;
    report_index(b->dir, &runs); /* index.html after every task */
    term_line(stderr, "[task %zu/%zu] pass %d fail %d error %d timeout %d | %s: %s%s%s (%.1f s)",
              i + 1, b->n, b->tally[OUT_PASS], b->tally[OUT_FAIL], b->tally[OUT_ERROR],
              b->tally[OUT_TIMEOUT], t->id, outcome_names[out], *why ? ", " : "", why, secs);
}

/* Runs task i; false when the batch must stop (interrupted). */
static bool run_task(struct batch *b, size_t i)
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
        if (t->apps) { /* the only programs of its run (the copy's settings are not freed) */
            c.settings.value[SET_APPS] = t->apps;
            c.settings.source[SET_APPS] = SRC_FLAG;
        }
        watch_arm(t->timeout_s);
        code = agent_run(&c, &run);
        bool timed_out = watch_disarm();
        if (code == EXIT_INTERRUPTED && !timed_out) {
            fprintf(stderr,
                    "[task %zu/%zu] %s interrupted (%s): the batch stops here; "
                    "--resume runs it again\n",
                    i + 1, b->n, t->id, os_interrupt_reason() ? os_interrupt_reason() : "");
            return false;
        }
        out = judge(b, t, code, timed_out, why, sizeof why);
    }
    if (os_interrupted()) { /* Ctrl+C during its setup or check: not judged */
        fprintf(stderr,
                "[task %zu/%zu] %s interrupted: the batch stops here; --resume runs it "
                "again\n",
                i + 1, b->n, t->id);
        return false;
    }
    record_task(b, i, out, code, &run, why, (double)(os_now_ms() - t0) / 1000.0);
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

static const char batch_usage[] =
    "usage: winagent batch TASKS.jsonl [--resume] [run options]\n"
    "  one task per line: {\"id\", \"prompt\", \"check\"?, \"setup\"?, \"max_steps\"?, "
    "\"timeout_s\"?}\n"
    "  --resume  continue the latest batch of that file: tasks that passed or failed are\n"
    "            kept, the others run again\n";

static int start(struct batch *b, const char *file, bool resume)
{
    wa_err e = load_tasks(file, b);
    if (!e)
        e = check_shell_policy(b, file);
    if (e) {
        exit_fail(e);
        return EXIT_USAGE;
    }
    char name[48];
    batch_name(file, name, sizeof name);
    if (resume) {
        if (!(b->dir = latest_batch(b->cfg->log_dir, name))) {
            exit_fail(wa_fail(WA_E_USAGE, "--resume: no earlier batch of %s in %s", file,
                              b->cfg->log_dir));
            return EXIT_USAGE;
        }
    } else if (os_mkdir_p(b->cfg->log_dir) != WA_E_OK ||
               !(b->dir = new_batch_dir(b->cfg->log_dir, name))) {
        exit_fail(wa_fail(WA_E_IO, "cannot create a batch folder in %s", b->cfg->log_dir));
        return EXIT_USAGE;
    }
    if (!(b->done = calloc(b->n, sizeof *b->done)))
        return exit_fail(wa_fail(WA_E_NOMEM, "out of memory"));
    if (resume)
        read_results(b);
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

static int run_batch(struct batch *b, const char *file, bool resume)
{
    int code = start(b, file, resume);
    if (code != EXIT_OK)
        return code;
    if (!watchdog.mu && (!(watchdog.mu = os_mutex_new()) || os_thread_start(watch, &watchdog)))
        return exit_fail(wa_fail(WA_E_IO, "cannot start the wall-time watchdog"));
    size_t kept = 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->done[i] == OUT_PASS || b->done[i] == OUT_FAIL) {
            b->tally[b->done[i]]++;
            kept++;
        }
    fprintf(stderr, "batch: %zu task%s from %s; folder %s\n", b->n, b->n == 1 ? "" : "s", file,
            b->dir);
    if (resume)
        fprintf(stderr, "batch: resuming: %zu task%s kept (pass or fail), %zu to run\n", kept,
                kept == 1 ? "" : "s", b->n - kept);
    write_state(b, file, "running", NULL);
    for (size_t i = 0; i < b->n; i++) {
        if (resume && (b->done[i] == OUT_PASS || b->done[i] == OUT_FAIL))
            continue;
        if (os_interrupted() || !run_task(b, i)) {
            write_state(b, file, "interrupted", b->tasks[i].id);
            return EXIT_INTERRUPTED;
        }
    }
    write_state(b, file, "finished", NULL);
    bool all = b->tally[OUT_PASS] == (int)b->n;
    bool dry = b->tally[OUT_DRY_RUN] == (int)b->n;
    fprintf(stderr,
            "batch %s: pass %d fail %d error %d timeout %d dry_run %d of %zu; results: %s" OS_SEP
            "results.jsonl\n",
            all   ? "passed"
            : dry ? "dry run"
                  : "did not pass",
            b->tally[OUT_PASS], b->tally[OUT_FAIL], b->tally[OUT_ERROR], b->tally[OUT_TIMEOUT],
            b->tally[OUT_DRY_RUN], b->n, b->dir);
    return all || dry ? EXIT_OK : EXIT_BATCH;
}

int cmd_batch(int argc, char **argv)
{
    /* argv: "batch" FILE [--resume] [run options]; the file takes the prompt's place. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return exit_fail(wa_fail(WA_E_NOMEM, "out of memory"));
    int n = 0;
    bool resume = false, help = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--resume") == 0)
            resume = true;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            help = true;
        else
            rest[n++] = argv[i];
    }
    if (help) {
        free(rest);
        fputs(batch_usage, stdout);
        return EXIT_OK;
    }
    struct agent_config cfg;
    wa_err e = config_load(n, rest, &cfg);
    free(rest);
    if (e) {
        config_cleanup(&cfg);
        exit_fail(e);
        fputs(batch_usage, stderr);
        return EXIT_USAGE;
    }
    os_interrupt_install(true);
    struct batch b = {.cfg = &cfg};
    char *file = cfg.prompt; /* the positional argument */
    int code = run_batch(&b, file, resume);
    session_free(b.ses);
    core_free(b.core);
    tasks_free(b.tasks, b.n);
    free(b.done);
    free(b.dir);
    config_cleanup(&cfg);
    return code;
}
