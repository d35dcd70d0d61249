/* Replay of a recorded run: the same core and gate, no model. Each recorded call is
 * checked against the desktop of now before it is sent again, by its kind: an element
 * action is re-aimed at the element of the same identity, input at a point or to the
 * foreground must reach the window that received it then, a window operation needs its
 * window. The first call that does not fit stops the replay with a report saying what
 * differed; nothing is clicked into the wrong place. */
#include "agent/run/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/request/exit.h"
#include "agent/core/host.h"
#include "agent/core/request/wire.h"
#include "agent/run/calltrace.h"
#include "agent/run/steplog.h"
#include "agent/report/trace.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

struct replay {
    const struct agent_config *cfg;
    struct steplog log;
    struct core *core;
    struct session *ses;
    int calls;   /* calls replayed so far: the replay's own step numbers */
    int skipped; /* shell calls not run: the shell is off unless --shell was given */
    int64_t start_ms;
    double agent_ms;
};

static const char *str_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The id of the element with this identity (type, name, AutomationId) in the
 * session's latest tree; 0 when none. */
static int find_element(const struct session *s, const cJSON *ref)
{
    const struct wa_tree *t = session_tree(s);
    const char *type = str_of(ref, "type"), *name = str_of(ref, TRACE_NAME);
    const char *aid = str_of(ref, "automation_id");
    for (size_t i = 0; t && i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        if (strcmp(n->type, type) == 0 && strcmp(n->name, name) == 0 &&
            (!aid || (n->automation_id && strcmp(n->automation_id, aid) == 0)))
            return (int)i + 1;
    }
    return 0;
}

/* Aims the request at the element the recorded call acted on, in the tree of now;
 * WA_E_DIVERGED when there is none. */
static wa_err reaim(struct session *s, struct op_request *q, const cJSON *ref)
{
    const char *type = str_of(ref, "type"), *name = str_of(ref, TRACE_NAME);
    if (!type || !name)
        return wa_fail(WA_E_PARSE, "the recorded element_ref has no type and name");
    int id = find_element(s, ref);
    if (!id) { /* look again: the window may have changed since the last observation */
        struct op_request look;
        struct op_result r;
        op_request_init(&look, op_def(OP_OBSERVE));
        op_request_set_text(&look, ARG_MODE, "a11y");
        op_result_init(&r);
        wa_err e = core_perform(s, &look, &r);
        op_result_cleanup(&r);
        op_request_cleanup(&look);
        if (e) /* the window cannot be looked at (gone, or refused) */
            return e;
        id = find_element(s, ref);
    }
    if (!id) {
        const char *aid = str_of(ref, "automation_id");
        return wa_fail(WA_E_DIVERGED,
                       "the recorded element %s \"%.80s\"%s%.80s%s is not in the tree "
                       "of the window now",
                       type, name, aid ? " (AutomationId " : "", aid ? aid : "", aid ? ")" : "");
    }
    return op_request_set_number(q, ARG_ELEMENT, id);
}

/* The request of a recorded call. */
static wa_err recorded_request(const cJSON *call, struct op_request *q)
{
    const char *name = str_of(call, TRACE_NAME);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, TRACE_ARGUMENTS);
    if (!cJSON_IsObject(args)) {
        op_request_init(q, NULL);
        return wa_fail(WA_E_PARSE, "the recorded call has no arguments object");
    }
    if (name && strcmp(name, "desktop") == 0)
        return wire_request(args, WIRE_MODEL, NULL, q);
    if (name && strcmp(name, op_def(OP_SHELL)->model) == 0)
        return wire_request(args, WIRE_MODEL, op_def(OP_SHELL), q);
    op_request_init(q, NULL);
    return wa_fail(WA_E_PARSE, "the recorded call names no known tool (\"%.60s\")",
                   name ? name : "");
}

/* Whether an error means the desktop is not the recorded one (the replay diverged),
 * rather than that an action failed on it. */
static bool diverged(wa_err e)
{
    return e == WA_E_DIVERGED || e == WA_E_WINDOW_NOT_FOUND || e == WA_E_ELEMENT_NOT_FOUND ||
           e == WA_E_STALE_REF;
}

/* Replay acts only where the recording acted: input needs the window that received it
 * then (or the element it acted on), and a launch the recording's word that it started.
 * Why a call is not performed (it sent nothing in the recording: skipped), or NULL; *e
 * is set when it cannot be checked at all (the replay stops there). */
static const char *not_performed(const cJSON *call, const struct op_request *q, const cJSON *ref,
                                 const cJSON *recv, wa_err *e)
{
    const cJSON *was = cJSON_GetObjectItemCaseSensitive(call, TRACE_RESULT);
    bool succeeded = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(was, "success")) ||
                     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(was, "ok")); /* older runs */
    if ((q->op->flags & OPF_LAUNCH) && !succeeded)
        return "the recording did not see this program launched";
    if (!(q->op->flags & OPF_INPUT) || cJSON_IsObject(recv) ||
        (cJSON_IsObject(ref) && q->element.kind == EREF_ID))
        return NULL;
    if (!succeeded)
        return "it failed in the recording before it reached any window";
    *e = wa_fail(WA_E_DIVERGED,
                 "the recording does not name the window that received this %s, so replay "
                 "cannot tell where it would go; nothing was sent",
                 q->op->model ? q->op->model : q->op->name);
    return NULL;
}

/* One recorded call, checked and performed again; its trace line is written. */
static wa_err replay_call(struct replay *rp, int stepn, const cJSON *step, const cJSON *call)
{
    rp->calls++;
    struct op_request q;
    struct op_result res;
    op_result_init(&res);
    int64_t t0 = os_now_ms();
    wa_err e = recorded_request(call, &q);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(call, TRACE_ELEMENT_REF);
    const cJSON *recv = cJSON_GetObjectItemCaseSensitive(call, TRACE_RECEIVER);
    struct window_expect expect = {str_of(recv, "title"), str_of(recv, "class"),
                                   str_of(recv, "process")};
    const char *not_done = e ? NULL : not_performed(call, &q, ref, recv, &e);
    if (!e && !not_done && cJSON_IsObject(ref) && q.element.kind == EREF_ID)
        e = reaim(rp->ses, &q, ref); /* the element's identity is the check */
    else if (!e && !not_done && (q.op->flags & OPF_INPUT))
        q.expect = &expect; /* checked at the moment of sending */
    if (!e && !not_done) {
        e = core_perform(rp->ses, &q, &res);
    } else {
        res.op = q.op;
        op_result_set_error(&res, e);
    }
    bool skip = not_done || (e == WA_E_SHELL_DISABLED && core_shell(rp->core) == SHELL_DENIED);
    if (skip) { /* a trace is no script: its shell commands are not run, and it goes on */
        rp->skipped += !not_done;
        op_result_note(&res, "skipped: %s",
                       not_done ? not_done
                                : "replay runs no shell command unless --shell on|confirm is "
                                  "given");
        e = WA_E_OK;
    }
    if (!e && res.has_shell && res.shell.exit_code != 0) {
        e = res.err = WA_E_ACTION_FAILED;
        snprintf(res.message, sizeof res.message, "exit code %d: %.200s", res.shell.exit_code,
                 res.shell.err ? res.shell.err : "");
    }
    double ms = (double)(os_now_ms() - t0);
    rp->agent_ms += ms;

    const char *tool = str_of(call, TRACE_NAME);
    const char *action = q.op && q.op->model ? q.op->model : tool ? tool : "call";
    cJSON *line = cJSON_CreateObject();
    cJSON_AddNumberToObject(line, TRACE_STEP, rp->calls);
    cJSON_AddNumberToObject(line, TRACE_RECORDED_STEP, stepn);
    const char *said = str_of(step, TRACE_MODEL_TEXT);
    char text[700];
    snprintf(text, sizeof text, "Replay of recorded step %d%s%.600s", stepn, said ? ": " : "",
             said ? said : "");
    cJSON_AddStringToObject(line, TRACE_MODEL_TEXT, text);
    cJSON *calls = cJSON_AddArrayToObject(line, TRACE_TOOL_CALLS);
    cJSON *t = cJSON_CreateObject();
    cJSON_AddItemToArray(calls, t);
    cJSON_AddStringToObject(t, TRACE_ID, str_of(call, TRACE_ID) ? str_of(call, TRACE_ID) : "");
    cJSON_AddStringToObject(t, TRACE_NAME, tool ? tool : "");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, TRACE_ARGUMENTS);
    if (args)
        cJSON_AddItemToObject(t, TRACE_ARGUMENTS, cJSON_Duplicate(args, true));
    struct wire_opts wo = {.names = WIRE_MODEL};
    cJSON_AddItemToObject(t, TRACE_RESULT, wire_result(&res, &wo));
    calltrace_result(&rp->log, rp->calls, q.op, &res, session_tree(rp->ses), ms, t);
    if (e && diverged(e))
        cJSON_AddStringToObject(line, TRACE_DIVERGED, res.message);
    steplog_trace(&rp->log, line);
    cJSON_Delete(line);

    if (rp->cfg->dry_run) {
        char *a = cJSON_PrintUnformatted(args);
        term_line(stdout, "%d. step %d: %s %s", rp->calls, stepn, tool ? tool : "?", a ? a : "");
        free(a);
    }
    steplog_progress(&rp->log, "[replay %d] step %d: %s -> %s%s", rp->calls, stepn,
                     res.summary[0] ? res.summary : action,
                     not_done      ? "skipped: "
                     : skip        ? "skipped (shell)"
                     : e           ? wa_err_code(e)
                     : res.dry_run ? "dry-run"
                                   : "ok",
                     not_done ? not_done : "");
    if (e)
        steplog_note(&rp->log, "  error: %s", res.message);
    op_request_cleanup(&q);
    op_result_cleanup(&res);
    return e;
}

/* The summary line (as the loop writes it, so report.html and the index show it). */
static void finish(struct replay *rp, int code, const char *outcome, const char *error)
{
    double total = (double)(os_now_ms() - rp->start_ms);
    cJSON *s = cJSON_CreateObject();
    cJSON *sum = cJSON_AddObjectToObject(s, TRACE_SUMMARY);
    cJSON_AddNumberToObject(sum, TRACE_STEPS, rp->calls);
    cJSON_AddNumberToObject(sum, TRACE_EXIT_CODE, code);
    cJSON_AddStringToObject(sum, TRACE_OUTCOME, outcome);
    if (error)
        cJSON_AddStringToObject(sum, TRACE_ERROR, error);
    cJSON_AddNumberToObject(sum, TRACE_TOTAL_TOKENS, 0);
    cJSON_AddNumberToObject(sum, TRACE_AGENT_MS, rp->agent_ms);
    cJSON_AddNumberToObject(sum, TRACE_TOTAL_MS, total);
    steplog_trace(&rp->log, s);
    cJSON_Delete(s);
}

/* The recorded task, for the first trace line and the folder's name. */
static const char *recorded_task(char *text)
{
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    cJSON *first = cJSON_Parse(text);
    if (nl)
        *nl = '\n';
    static char task[400];
    const char *t = str_of(first, TRACE_TASK);
    snprintf(task, sizeof task, "%s", t ? t : "");
    cJSON_Delete(first);
    return task;
}

/* The next line of a trace's text at *at (cut off in place; blank lines skipped): false
 * at the end, else true with *step the line's JSON, NULL when it is not JSON. *line_no
 * counts the lines. */
static bool next_step(char **at, int *line_no, cJSON **step)
{
    *step = NULL;
    for (char *line = *at, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        *at = next;
        ++*line_no;
        if (!*line || *line == '\r')
            continue;
        *step = cJSON_Parse(line);
        return true;
    }
    *at = NULL;
    return false;
}

/* The step number a trace line gives, else its line number. */
static int step_number(const cJSON *step, int line_no)
{
    const cJSON *num = cJSON_GetObjectItemCaseSensitive(step, TRACE_STEP);
    return cJSON_IsNumber(num) ? num->valueint : line_no;
}

/* Replays one recorded call: -1 when the replay goes on, else its exit code (the
 * replay is finished). */
static int replay_one(struct replay *rp, int stepn, const cJSON *step, const cJSON *call)
{
    if (os_interrupted()) {
        int code = exit_interrupted();
        finish(rp, code, exit_word(code), os_interrupt_reason());
        return code;
    }
    wa_err e = replay_call(rp, stepn, step, call);
    if (!e)
        return -1;
    char why[700];
    snprintf(why, sizeof why, "%s at recorded step %d (replay step %d): %s",
             diverged(e) ? "diverged" : "failed", stepn, rp->calls,
             *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    steplog_progress(&rp->log, "replay stopped: %s", why);
    finish(rp, EXIT_ACTION, diverged(e) ? "diverged" : "desktop failure", why);
    return EXIT_ACTION;
}

/* The calls of a step whose own line never came (the recorded run was killed during
 * it): they were done, so they are replayed. */
struct unfinished {
    int step;
    cJSON *calls; /* an array; NULL when none */
};

static void unfinished_take(struct unfinished *u, int stepn, const cJSON *line)
{
    const cJSON *call = cJSON_GetObjectItemCaseSensitive(line, TRACE_CALL_DONE);
    if (!cJSON_IsObject(call)) { /* a step's own line: its calls are in it */
        cJSON_Delete(u->calls);
        u->calls = NULL;
        return;
    }
    if (!u->calls || u->step != stepn) {
        cJSON_Delete(u->calls);
        u->calls = cJSON_CreateArray();
        u->step = stepn;
    }
    cJSON_AddItemToArray(u->calls, cJSON_Duplicate(call, true));
}

static int replay_unfinished(struct replay *rp, const struct unfinished *u)
{
    const cJSON *call;
    cJSON_ArrayForEach(call, u->calls)
    {
        int code = replay_one(rp, u->step, NULL, call);
        if (code >= 0)
            return code;
    }
    if (u->calls)
        steplog_progress(&rp->log,
                         "recorded step %d has no line of its own (the run stopped during it): "
                         "replayed the %d call%s it had done",
                         u->step, cJSON_GetArraySize(u->calls),
                         cJSON_GetArraySize(u->calls) == 1 ? "" : "s");
    return -1;
}

static int replay_lines(struct replay *rp, char *text)
{
    int line_no = 0, code = -1;
    struct unfinished u = {0, NULL};
    cJSON *step;
    for (char *at = text; code < 0 && next_step(&at, &line_no, &step);) {
        if (!step) {
            char why[160];
            snprintf(why, sizeof why, "line %d of the trace is not JSON", line_no);
            steplog_progress(&rp->log, "replay stopped: %s", why);
            finish(rp, EXIT_USAGE, "error", why);
            code = EXIT_USAGE;
            break;
        }
        int stepn = step_number(step, line_no);
        unfinished_take(&u, stepn, step);
        const cJSON *call;
        cJSON_ArrayForEach(call, cJSON_GetObjectItemCaseSensitive(step, TRACE_TOOL_CALLS))
        {
            if ((code = replay_one(rp, stepn, step, call)) >= 0)
                break;
        }
        cJSON_Delete(step);
    }
    if (code < 0)
        code = replay_unfinished(rp, &u);
    cJSON_Delete(u.calls);
    if (code >= 0)
        return code;
    steplog_progress(&rp->log, "replay finished: %d call%s", rp->calls, rp->calls == 1 ? "" : "s");
    if (rp->skipped)
        steplog_progress(&rp->log,
                         "skipped %d shell call%s: replay runs none unless --shell on|confirm "
                         "is given",
                         rp->skipped, rp->skipped == 1 ? "" : "s");
    finish(rp, EXIT_OK, "finished", NULL);
    if (!rp->cfg->dry_run)
        printf("replayed %d call%s\n", rp->calls, rp->calls == 1 ? "" : "s");
    return EXIT_OK;
}

/* The replay's core: the shell is off unless --shell on|confirm was given on this
 * command line (not the environment's or .env's policy): a trace shared for debugging
 * must not become a script. */
static struct core *replay_core(const struct settings *s)
{
    struct core_config cc;
    wa_err e = core_config_from_settings(s, true, &cc);
    if (e) {
        exit_fail(e);
        return NULL;
    }
    if (s->source[SET_SHELL] != SRC_FLAG)
        cc.shell = SHELL_DENIED;
    cc.watch_person = true; /* the stop gesture works from the start */
    if (!(cc.be = host_backend()))
        return NULL;
    struct core *c;
    if ((e = core_new(&cc, &c))) {
        exit_fail(e);
        return NULL;
    }
    return c;
}

int replay_parse_trace(char *text)
{
    recorded_task(text);
    int line_no = 0, calls = 0;
    cJSON *step;
    for (char *at = text; next_step(&at, &line_no, &step);) {
        if (!step)
            return -1;
        const cJSON *call;
        cJSON_ArrayForEach(call, cJSON_GetObjectItemCaseSensitive(step, TRACE_TOOL_CALLS))
        {
            /* what replay_call makes of a call before it checks and performs it */
            struct op_request q;
            recorded_request(call, &q);
            op_request_cleanup(&q);
            calls++;
        }
        cJSON_Delete(step);
    }
    return calls;
}

int replay_run(const struct agent_config *cfg)
{
    char *text = NULL;
    wa_err e = os_read_file(cfg->replay, 256u << 20, &text, NULL);
    if (e)
        return exit_fail(e);
    os_interrupt_install(true);
    struct replay rp = {.cfg = cfg, .start_ms = os_now_ms()};
    if (!(rp.core = replay_core(&cfg->settings))) {
        free(text);
        return EXIT_ACTION;
    }
    char title[480];
    const char *task = recorded_task(text);
    snprintf(title, sizeof title, "replay %s", task);
    if ((e = steplog_open(&rp.log, cfg->log_dir, title, cfg->api_key))) {
        free(text);
        core_free(rp.core);
        return exit_fail(e);
    }
    char *source = str_dup(cfg->replay);
    if (source)
        os_path_native(source);
    steplog_note(&rp.log, "replaying %s%s", source ? source : cfg->replay,
                 cfg->dry_run ? " (dry run)" : "");
    cJSON *first = cJSON_CreateObject();
    cJSON_AddNumberToObject(first, TRACE_STEP, 0);
    char what[700];
    snprintf(what, sizeof what, "Replay of %s%s%s", source ? source : cfg->replay,
             *task ? ": " : "", task);
    cJSON_AddStringToObject(first, TRACE_TASK, what);
    steplog_trace(&rp.log, first);
    cJSON_Delete(first);
    free(source);

    struct session_opts so;
    session_opts_default(&so);
    so.front = "replay";
    so.model_names = true;
    so.observe.mode = cfg->mode;
    so.observe.max_edge = cfg->max_edge;
    so.after = AFTER_OBSERVE;
    so.annotate = true;
    int code;
    if ((e = session_new(rp.core, &so, &rp.ses))) {
        code = exit_fail(e);
        finish(&rp, EXIT_USAGE, "error", wa_err_detail());
    } else {
        code = replay_lines(&rp, text);
    }
    steplog_progress(&rp.log, "log: %s", rp.log.dir);
    session_free(rp.ses);
    core_free(rp.core);
    steplog_close(&rp.log);
    free(text);
    return code;
}
