/* The agent loop: ask the model, run its tool calls through the one dispatcher,
 * answer with results and fresh observations, keep the history bounded, log it all. */
#include "agent/run/loop.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/exit.h"
#include "agent/core/host.h"
#include "agent/core/wire.h"
#include "agent/run/budget.h"
#include "agent/run/calltrace.h"
#include "agent/run/computer.h"
#include "agent/run/seen.h"
#include "agent/run/steplog.h"
#include "agent/run/tools.h"
#include "agent/run/trace.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term.h"
#include "llm/textcalls.h"

#define MAX_CALLS_PER_REPLY 16 /* more in one reply are answered with an error */
#define SAME_FAILURE_WARN   3  /* identical failing calls in a row before the model is told */
#define SAME_FAILURE_STOP   5  /* ... before the run ends */
#define UNCHANGED_WARN      3  /* acting calls in a row that left the observation unchanged */
#define SAME_CALL_STOP      8  /* identical calls in a row with no change, before the run ends */

/* The run's token count so far plus a reply's, saturating: each reply's counts are
 * range-checked (llm_json_long), but many of them could add up past a 32-bit long. */
static long add_tokens(long sum, long more)
{
    return more > LONG_MAX - sum ? LONG_MAX : sum + more;
}

/* A message that carries an observation, and what it becomes when trimmed. */
struct obs_ref {
    size_t msg;
    char *trimmed;
    bool done;
};

struct run {
    const struct agent_config *cfg;
    const struct wa_backend *be;
    struct steplog log;
    struct llm_client *llm;
    struct llm_conversation conv;
    struct core *core;
    struct session *ses;
    struct obs_ref *obs;
    size_t n_obs;
    int image_w, image_h; /* size of the latest image sent, pixels (0: none yet) */
    /* loop detection */
    char *last_sig;
    int same_failures;
    int same_calls;
    int unchanged;
    uint64_t last_obs_hash;
    bool have_obs_hash;
    const char *stop_reason; /* set when a repetition or a refused action ends the run */
    int stop_code;           /* its exit code (0: EXIT_ACTION) */
    char stop_text[700];     /* what stop_reason points to when it is made up */
    int bad_text_calls;      /* replies whose call written as text could not be read */
    /* The protocol spoken now: the configured one, until a server that takes no tools
     * turns auto's functions into text for the rest of the run. */
    struct llm_protocol_choice proto;
    /* totals */
    struct llm_usage usage;
    double llm_ms, agent_ms;
    int64_t start_ms;
    struct run_outcome *out; /* NULL: nobody asked */
    /* The computer tool protocol: the provider's computer tool, its protocol, the one
     * display the model is told of (what its coordinates are in, fixed by the first
     * screenshot) and whether a person can be asked to confirm what a safety check
     * flags. */
    bool computer;
    enum computer_proto cu_proto;
    struct llm_computer_tool computer_tool;
    struct computer_view view;
    bool can_confirm;
};

static uint64_t hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t observation_hash(const struct observation *o)
{
    if (o->kind == OBS_TREE)
        return hash_bytes(o->text, strlen(o->text));
    if (o->kind == OBS_IMAGE)
        return hash_bytes(o->png.data, o->png.len);
    return 0;
}

/* ---- history ---- */

static void remember_observation(struct run *r, const char *trimmed)
{
    struct obs_ref *p = wa_reallocarray(r->obs, r->n_obs + 1, sizeof *p);
    if (!p)
        return;
    r->obs = p;
    r->obs[r->n_obs].msg = r->conv.n_messages - 1;
    r->obs[r->n_obs].trimmed = str_dup(trimmed);
    r->obs[r->n_obs].done = false;
    r->n_obs++;
}

/* Keeps the last history_images observations whole; older ones become one line, so
 * the request at step 50 is not much larger than at step 5. */
static void trim_history(struct run *r)
{
    size_t keep = (size_t)r->cfg->history_images;
    for (size_t i = 0; i + keep < r->n_obs; i++) {
        if (r->obs[i].done)
            continue;
        llm_message_replace_content(&r->conv.messages[r->obs[i].msg], r->obs[i].trimmed);
        r->obs[i].done = true;
    }
}

/* The observation as the model gets it: text to append, and an image if any (whose
 * size is remembered: calls written in pixels refer to it). */
static void observation_for_model(struct run *r, const struct observation *o, struct dynbuf *text,
                                  struct llm_image *img, bool *has_img)
{
    *has_img = false;
    if (o->kind == OBS_IMAGE && r->computer && r->view.width > 0 &&
        (o->width != r->view.width || o->height != r->view.height)) {
        /* the model is told one display: an image of a window (a tree that could not be
         * read) would be another */
        dynbuf_adds(text, "\n\nObservation: no tree could be read (the image is not sent: "
                          "take a screenshot).");
        return;
    }
    if (o->kind == OBS_IMAGE && (r->computer || r->cfg->protocol.grammar == LLM_TEXT_UITARS)) {
        /* the computer tool and grounding models place points in their own space: no
         * 0-999 here */
        if (r->computer)
            dynbuf_addf(text, "\n\nObservation: a screenshot is attached (%dx%d).", o->width,
                        o->height);
        else
            dynbuf_adds(text, "\n\nA screenshot of the screen is attached.");
        img->mime = "image/png";
        img->base64 = o->png_base64;
        *has_img = true;
        r->image_w = o->width;
        r->image_h = o->height;
        return;
    }
    if (o->kind == OBS_TREE) {
        dynbuf_adds(text, "\n\nObservation (accessibility tree; coordinates 0-999):\n");
        dynbuf_adds(text, o->text);
    } else if (o->kind == OBS_IMAGE) {
        dynbuf_addf(text,
                    "\n\nObservation: a screenshot is attached (%dx%d image of the frame "
                    "[%d,%d][%d,%d]; coordinates 0-999 over the image).",
                    o->width, o->height, o->frame.left, o->frame.top, o->frame.right,
                    o->frame.bottom);
        /* why an image and not the tree, when auto chose: an open menu whose items cannot
         * be read, unnamed buttons... so the model knows what the tree would lack */
        if (strstr(o->verdict, "tree rejected"))
            dynbuf_addf(text, " Why not the tree: %s.", o->verdict);
        if (o->marked && o->text) { /* the numbered elements, by id */
            dynbuf_adds(text, "\n");
            dynbuf_adds(text, o->text);
        }
        img->mime = "image/png";
        img->base64 = o->png_base64;
        *has_img = true;
        r->image_w = o->width;
        r->image_h = o->height;
    }
}

/* ---- tools ---- */

/* --shell confirm: the command as it will run (control characters already escaped). */
static bool confirm_on_console(void *ctx, const char *what, const char *command)
{
    (void)ctx;
    /* Only escaped text reaches the console: nothing the model wrote can move the
     * cursor, hide or recolour the question. One too long to show whole is declined. */
    char shown_what[1024], shown[8192];
    term_escape(what, shown_what, sizeof shown_what);
    if (!term_escape(command, shown, sizeof shown)) {
        fprintf(stderr, "\nwinagent declined %s: it is too long to be shown whole\n", shown_what);
        return false;
    }
    fprintf(stderr, "\nwinagent wants to run %s:\n  %s\nRun it? [y/N] ", shown_what, shown);
    fflush(stderr);
    char answer[16];
    if (!fgets(answer, sizeof answer, stdin))
        return false;
    return answer[0] == 'y' || answer[0] == 'Y';
}

/* Tracks repetition; returns a note for the model (static text) or NULL. */
static const char *repetition_note(struct run *r, const struct llm_tool_call *call, bool failed,
                                   bool acted, const struct observation *obs)
{
    char *sig = malloc(strlen(call->name) + strlen(call->arguments) + 2);
    if (sig)
        sprintf(sig, "%s:%s", call->name, call->arguments);
    bool same = sig && r->last_sig && strcmp(sig, r->last_sig) == 0;
    free(r->last_sig);
    r->last_sig = sig;
    r->same_failures = failed ? (same ? r->same_failures + 1 : 1) : 0;
    bool changed = true;
    if (acted && obs->kind != OBS_NONE) {
        uint64_t h = observation_hash(obs);
        changed = !r->have_obs_hash || h != r->last_obs_hash;
        r->last_obs_hash = h;
        r->have_obs_hash = true;
        r->unchanged = changed ? 0 : r->unchanged + 1;
    }
    r->same_calls = same && !changed ? r->same_calls + 1 : 1;
    if (r->same_failures >= SAME_FAILURE_STOP) {
        r->stop_reason = "the same call failed 5 times in a row";
        return NULL;
    }
    if (r->same_calls >= SAME_CALL_STOP) {
        r->stop_reason = "the same call was repeated 8 times without changing anything";
        return NULL;
    }
    if (r->same_failures >= SAME_FAILURE_WARN)
        return "Note: this exact call has failed several times in a row. Do not repeat it; "
               "try a different approach.";
    if (r->unchanged >= UNCHANGED_WARN)
        return "Note: the window has not changed after your last few actions. Check that "
               "they are reaching the right place, or try another way.";
    return NULL;
}

/* The request of a tool call from its arguments, parsed once (args NULL: they were no
 * JSON): the desktop tool's action, or the shell. */
static wa_err tool_request(struct run *r, const struct llm_tool_call *call, const cJSON *args,
                           struct op_request *q)
{
    bool desktop = strcmp(call->name, "desktop") == 0;
    bool shell = strcmp(call->name, op_def(OP_SHELL)->model) == 0;
    bool launch = r->computer && strcmp(call->name, AGENT_TOOL_LAUNCH) == 0;
    if ((desktop || shell || launch) && !args) {
        op_request_init(q, NULL);
        return wa_fail(WA_E_INVALID_ARGS, "arguments are not valid JSON: %.200s",
                       call->arguments ? call->arguments : "(none)");
    }
    if (shell)
        return wire_request(args, WIRE_MODEL, op_def(OP_SHELL), q);
    if (r->computer && strcmp(call->name, AGENT_TOOL_LAUNCH) == 0)
        return wire_request(args, WIRE_MODEL, op_def(OP_LAUNCH), q);
    if (r->computer && strcmp(call->name, AGENT_TOOL_TREE) == 0) {
        op_request_init(q, op_def(OP_OBSERVE));
        return op_request_set_text(q, ARG_MODE, "a11y");
    }
    if (desktop && !r->computer)
        return wire_request(args, WIRE_MODEL, NULL, q);
    op_request_init(q, NULL);
    return wa_fail(WA_E_INVALID_ARGS, "there is no tool \"%s\"; the tools are %s%s", call->name,
                   r->computer ? "computer, " AGENT_TOOL_LAUNCH ", " AGENT_TOOL_TREE : "desktop",
                   core_shell(r->core) == SHELL_DENIED ? "" : " and powershell");
}

/* The progress line's part for one call: "click (512,300) -> ok, 2 new, 0 changed". */
static void summary_line(const struct llm_tool_call *call, const struct op_request *q,
                         const struct op_result *res, char *out, size_t cap)
{
    const cJSON *raw = cJSON_GetObjectItemCaseSensitive(call->parsed, "action");
    bool unknown = !q->op && cJSON_IsString(raw) && strcmp(call->name, "desktop") == 0;
    const char *action = q->op && q->op->model ? q->op->model : call->name;
    if (res->summary[0])
        snprintf(out, cap, "%s", res->summary);
    else if (unknown)
        snprintf(out, cap, "%.40s", raw->valuestring);
    else
        snprintf(out, cap, "%.40s%s", action, q->op ? "" : " (bad arguments)");
    size_t len = strlen(out);
    if (unknown)
        snprintf(out + len, cap - len, " -> error: unknown action");
    else if (res->err)
        snprintf(out + len, cap - len, " -> error: %s", wa_err_code(res->err));
    else if (res->has_changes && res->nothing_changed)
        snprintf(out + len, cap - len, " -> ok, nothing changed");
    else if (res->has_changes)
        snprintf(out + len, cap - len, " -> ok, %zu new, %zu changed, %zu gone", res->n_new,
                 res->n_changed, res->n_vanished);
    else
        snprintf(out + len, cap - len, res->dry_run ? " -> dry-run" : " -> ok");
}

static wa_err first_observation(struct run *r, struct op_result *res);

/* A call that is the computer tool's (else one of the functions beside it). */
static bool is_computer_call(const struct run *r, const struct llm_tool_call *call)
{
    return r->computer && strcmp(call->name, AGENT_TOOL_LAUNCH) != 0 &&
           strcmp(call->name, AGENT_TOOL_TREE) != 0 &&
           strcmp(call->name, op_def(OP_SHELL)->model) != 0;
}

static void fail_result(struct op_result *res, wa_err e)
{
    res->err = e;
    snprintf(res->message, sizeof res->message, "%s",
             *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
}

/* Ends the run after this call (its answer is not sent): code and the reason. */
static void stop_run(struct run *r, int code, const char *fmt, ...) WA_PRINTF(3, 4);
static void stop_run(struct run *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->stop_text, sizeof r->stop_text, fmt, ap);
    va_end(ap);
    r->stop_reason = r->stop_text;
    r->stop_code = code;
}

/* The service's safety check of a computer call. A flagged action runs only after a
 * person agreed (asked as the shell's confirmation asks: --shell confirm, or a console
 * attached), and its answer then acknowledges the check. Nobody there, a person who says
 * no, or a check that blocks it: the action is not performed and the run ends here,
 * since both services refuse any answer to that call but an acknowledged one. False
 * when the call must not run. */
static bool computer_allowed(struct run *r, const struct llm_tool_call *call, bool *acknowledged)
{
    char why[400];
    enum computer_safety safety = computer_safety_check(r->cu_proto, call->parsed, why, sizeof why);
    const char *action = computer_action_name(r->cu_proto, call->name, call->parsed);
    if (safety == COMPUTER_SAFE)
        return true;
    if (safety == COMPUTER_BLOCKED) {
        stop_run(r, EXIT_ACTION,
                 "the service's safety check blocked %.60s (\"%.300s\"); it was not performed",
                 action, why);
        return false;
    }
    if (!r->can_confirm) {
        stop_run(r, EXIT_CONFIRM,
                 "%.60s needs a person's confirmation (the model's safety check: \"%.300s\"), "
                 "and nobody is here to confirm it in this unattended run; it was not performed",
                 action, why);
        return false;
    }
    char what[500];
    snprintf(what, sizeof what, "%.60s, which the model's safety check flagged (%.300s)", action,
             why);
    if (!confirm_on_console(NULL, what, call->arguments ? call->arguments : "{}")) {
        stop_run(r, EXIT_CONFIRM,
                 "the person declined %.60s (the model's safety check: \"%.300s\"); it was not "
                 "performed",
                 action, why);
        return false;
    }
    steplog_note(&r->log, "  safety check confirmed by the person: %s", why);
    *acknowledged = true;
    return true;
}

/* A fresh screenshot into res->obs when the action left none: the computer tool's
 * every answer carries one. */
static void ensure_screenshot(struct run *r, struct op_result *res)
{
    if (res->obs.kind == OBS_IMAGE || os_interrupted())
        return;
    struct op_result shot;
    op_result_init(&shot);
    wa_err e = first_observation(r, &shot);
    if (!e && shot.obs.kind == OBS_IMAGE) {
        observation_cleanup(&res->obs);
        res->obs = shot.obs;
        observation_init(&shot.obs);
    }
    op_result_cleanup(&shot);
}

/* Performs the plan's steps in order into res, stopping at the first failure but for
 * the steps that let go of what the call pressed; q gets the last step performed (or
 * the one that failed), res its result. */
static void perform_plan(struct run *r, struct computer_plan *plan, struct op_request *q,
                         struct op_result *res, cJSON *steps)
{
    size_t last = plan->n;
    bool failed = false;
    for (size_t i = 0; i < plan->n; i++) {
        if (failed && !plan->release[i])
            continue;
        cJSON_AddItemToArray(steps, wire_request_args(&plan->steps[i], WIRE_MODEL, 0));
        if (failed) { /* its own result: the failure stays the call's */
            struct op_result scratch;
            op_result_init(&scratch);
            core_perform(r->ses, &plan->steps[i], &scratch);
            op_result_cleanup(&scratch);
            continue;
        }
        if (last < plan->n)
            op_result_cleanup(res);
        last = i;
        failed = core_perform(r->ses, &plan->steps[i], res) || os_interrupted();
    }
    if (last < plan->n) {
        *q = plan->steps[last];
        op_request_init(&plan->steps[last], NULL);
    }
}

/* cursor_position's answer: where the pointer is, in pixels of the screenshot. */
static void note_pointer(struct run *r, const struct op_request *q, struct op_result *res)
{
    int x, y;
    if (!q->op || q->op->id != OP_POINTER || res->err)
        return;
    if (computer_screen_to_pixel(&r->view, res->px, res->py, &x, &y))
        op_result_note(res, "X=%d,Y=%d (the pointer, in pixels of the screenshot)", x, y);
    else
        op_result_note(res, "the pointer is off the screenshot, at screen pixel (%d,%d)", res->px,
                       res->py);
}

/* Performs a call of the computer tool: its safety check first, then its action as
 * core requests in order; q and res are the last request performed and its result.
 * The trace has what the model sent and the requests it became. False when the call
 * was not performed and the run ends without answering it (a safety check nobody
 * agreed to). */
static bool perform_computer(struct run *r, const struct llm_tool_call *call, struct op_request *q,
                             struct op_result *res, cJSON *trace, bool *acknowledged)
{
    *acknowledged = false;
    op_request_init(q, NULL);
    if (call->parsed)
        cJSON_AddItemToObject(trace, TRACE_ARGUMENTS, cJSON_Duplicate(call->parsed, true));
    else
        cJSON_AddStringToObject(trace, TRACE_ARGUMENTS_RAW, call->arguments);
    if (call->parsed && !computer_allowed(r, call, acknowledged)) {
        cJSON_AddItemToObject(trace, TRACE_RESULT, wire_error(NULL, WA_E_DENIED, r->stop_reason));
        return false;
    }
    struct computer_plan plan;
    computer_plan_init(&plan);
    wa_err e = WA_E_OK;
    if (!call->parsed)
        e = wa_fail(WA_E_INVALID_ARGS, "arguments are not valid JSON: %.200s",
                    call->arguments ? call->arguments : "(none)");
    if (!e)
        e = computer_plan_call(r->cu_proto, call->name, call->parsed, &r->view, &plan);
    if (e)
        fail_result(res, e);
    else
        perform_plan(r, &plan, q, res, cJSON_AddArrayToObject(trace, "steps"));
    computer_plan_cleanup(&plan);
    note_pointer(r, q, res);
    const char *action = call->name;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(call->parsed, "action");
    if (cJSON_IsString(a))
        action = a->valuestring;
    else if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(a, "type")))
        action = cJSON_GetObjectItemCaseSensitive(a, "type")->valuestring;
    if (!res->summary[0] || !q->op) {
        char was[sizeof res->summary];
        snprintf(was, sizeof was, "%s", res->summary);
        snprintf(res->summary, sizeof res->summary, "%.60s%s%.180s", action, was[0] ? ": " : "",
                 was);
    }
    ensure_screenshot(r, res);
    return true;
}

/* Performs the call's request (or says why there is none) into res; the trace records
 * the typed request, or what the model wrote when it is none. */
static void perform_call(struct run *r, const struct llm_tool_call *call, struct op_request *q,
                         struct op_result *res, cJSON *trace)
{
    cJSON *moved = NULL; /* a grounding model's coordinates, moved to 0-999 */
    wa_err e = WA_E_OK;
    if (call->coords != LLM_COORDS_FRAME_999 && call->parsed) {
        e = textcalls_args_to_999(call, r->image_w, r->image_h, &moved);
        if (e)
            op_request_init(q, NULL);
    }
    if (!e)
        e = tool_request(r, call, moved ? moved : call->parsed, q);
    cJSON_Delete(moved);
    if (!e)
        cJSON_AddItemToObject(trace, TRACE_ARGUMENTS, wire_request_args(q, WIRE_MODEL, 0));
    else if (call->parsed)
        cJSON_AddItemToObject(trace, TRACE_ARGUMENTS, cJSON_Duplicate(call->parsed, true));
    else
        cJSON_AddStringToObject(trace, TRACE_ARGUMENTS_RAW, call->arguments);
    if (!e) {
        core_perform(r->ses, q, res);
    } else {
        res->err = e;
        res->op = q->op;
        snprintf(res->message, sizeof res->message, "%s",
                 *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    }
}

/* The call's answer to the model: the result, its note and the observation (text, and
 * the image as an attachment); the result text is returned for the history. */
static char *answer_call(struct run *r, const struct llm_tool_call *call,
                         const struct op_result *res, const char *note, bool acknowledged,
                         cJSON *trace)
{
    struct wire_opts wo = {.names = WIRE_MODEL};
    cJSON *result = wire_result(res, &wo);
    if (note)
        cJSON_AddStringToObject(result, "note", note);
    char *result_text = cJSON_PrintUnformatted(result);
    cJSON_AddItemToObject(trace, TRACE_RESULT, result);
    struct dynbuf text;
    dynbuf_init(&text, 16u << 20);
    dynbuf_adds(&text, result_text ? result_text : "{}");
    struct llm_image img;
    bool has_img;
    wa_err added;
    if (is_computer_call(r, call)) { /* the screenshot is the answer; the report beside it */
        has_img = res->obs.kind == OBS_IMAGE;
        img.mime = "image/png";
        img.base64 = res->obs.png_base64;
        added = llm_conversation_add_computer_result(
            &r->conv, call->id, call->name, dynbuf_str(&text), has_img ? &img : NULL, acknowledged);
    } else {
        observation_for_model(r, &res->obs, &text, &img, &has_img);
        added = llm_conversation_add_tool_result(&r->conv, call->id, call->name, dynbuf_str(&text),
                                                 has_img ? &img : NULL);
    }
    if (!added && res->err) /* said as the wire says a failure (is_error, "error") */
        llm_conversation_mark_failed(&r->conv);
    struct wa_rect f = res->obs.frame, d = r->view.frame; /* a zoom shows another one */
    bool display = f.left == d.left && f.top == d.top && f.right == d.right && f.bottom == d.bottom;
    if (has_img && is_computer_call(r, call) && display &&
        (res->obs.width != r->view.width || res->obs.height != r->view.height))
        steplog_note(&r->log, "  note: a screenshot of %dx%d, not the display's %dx%d",
                     res->obs.width, res->obs.height, r->view.width, r->view.height);
    dynbuf_cleanup(&text);
    return result_text;
}

/* Runs one tool call and appends its result to the conversation; fills the call's
 * trace object. The arguments were parsed once, when the reply was read. True when the
 * call succeeded (performed, and no error in its result). */
static bool run_tool_call(struct run *r, int step, const struct llm_tool_call *call,
                          const char *step_stats, cJSON *trace)
{
    cJSON_AddStringToObject(trace, TRACE_ID, call->id);
    cJSON_AddStringToObject(trace, TRACE_NAME, call->name);
    struct op_request q;
    struct op_result res;
    op_result_init(&res);
    int64_t t0 = os_now_ms();
    bool acknowledged = false;
    if (is_computer_call(r, call)) {
        if (!perform_computer(r, call, &q, &res, trace, &acknowledged)) {
            steplog_progress(
                &r->log, "[step %d/%d] %s -> not performed: %s", step, r->cfg->max_steps,
                computer_action_name(r->cu_proto, call->name, call->parsed), r->stop_reason);
            op_request_cleanup(&q);
            op_result_cleanup(&res);
            return false;
        }
    } else {
        perform_call(r, call, &q, &res, trace);
    }
    double action_ms = (double)(os_now_ms() - t0);
    r->agent_ms += action_ms;
    bool acted = q.op && op_acts(q.op);
    char summary[320];
    summary_line(call, &q, &res, summary, sizeof summary);
    calltrace_result(&r->log, step, q.op ? q.op : res.op, &res, session_tree(r->ses), action_ms,
                     trace);
    const char *note = repetition_note(r, call, res.err != WA_E_OK, acted, &res.obs);
    char *result_text = answer_call(r, call, &res, note, acknowledged, trace);
    if (res.obs.kind != OBS_NONE) {
        char trimmed[512];
        snprintf(trimmed, sizeof trimmed, "%.400s\n[observation of step %d omitted]",
                 result_text ? result_text : "{}", step);
        remember_observation(r, trimmed);
        steplog_progress(&r->log, "[step %d/%d] %s%s  | %s", step, r->cfg->max_steps, summary,
                         step_stats, res.obs.verdict);
    } else {
        steplog_progress(&r->log, "[step %d/%d] %s%s", step, r->cfg->max_steps, summary,
                         step_stats);
    }
    if (res.err)
        steplog_note(&r->log, "  error: %s", res.message);
    for (size_t i = 0; i < res.n_notes; i++)
        steplog_note(&r->log, "  note: %s", res.notes[i]);
    bool ok = res.err == WA_E_OK;
    free(result_text);
    op_request_cleanup(&q);
    op_result_cleanup(&res);
    return ok;
}

/* ---- the run ---- */

/* reason: why a run that did not finish ended (NULL when it finished). */
static void finish(struct run *r, int code, int steps, const char *reason)
{
    double total = (double)(os_now_ms() - r->start_ms);
    cJSON *s = cJSON_CreateObject();
    cJSON *sum = cJSON_AddObjectToObject(s, TRACE_SUMMARY);
    cJSON_AddNumberToObject(sum, TRACE_STEPS, steps);
    cJSON_AddNumberToObject(sum, TRACE_EXIT_CODE, code);
    cJSON_AddStringToObject(sum, TRACE_OUTCOME, exit_word(code));
    if (reason)
        cJSON_AddStringToObject(sum, TRACE_ERROR, reason);
    cJSON_AddNumberToObject(sum, TRACE_PROMPT_TOKENS, (double)r->usage.prompt_tokens);
    cJSON_AddNumberToObject(sum, TRACE_COMPLETION_TOKENS, (double)r->usage.completion_tokens);
    cJSON_AddNumberToObject(sum, TRACE_TOTAL_TOKENS, (double)r->usage.total_tokens);
    cJSON_AddNumberToObject(sum, TRACE_LLM_MS, r->llm_ms);
    cJSON_AddNumberToObject(sum, TRACE_AGENT_MS, r->agent_ms);
    cJSON_AddNumberToObject(sum, TRACE_TOTAL_MS, total);
    steplog_trace(&r->log, s);
    cJSON_Delete(s);
    if (r->out) {
        r->out->steps = steps;
        r->out->total_tokens = (long long)r->usage.total_tokens;
        r->out->total_ms = total;
    }
    steplog_progress(
        &r->log, "%s after %d step%s: %.1fk tokens, llm %.1fs, agent %.1fs, total %.1fs",
        exit_word(code), steps, steps == 1 ? "" : "s", (double)r->usage.total_tokens / 1000.0,
        r->llm_ms / 1000.0, r->agent_ms / 1000.0, total / 1000.0);
    steplog_progress(&r->log, "log: %s", r->log.dir);
}

static int fail_run(struct run *r, int code, wa_err e, const char *what, int steps)
{
    const char *detail = *wa_err_detail() ? wa_err_detail() : wa_err_message(e);
    steplog_progress(&r->log, "%s: %s", what, detail);
    char reason[640];
    snprintf(reason, sizeof reason, "%s: %s", what, detail);
    finish(r, code, steps, reason);
    return code;
}

static int exit_for_llm_error(wa_err e)
{
    return e == WA_E_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_LLM;
}

/* Observes the window in front (else the monitor) for the first turn; the computer
 * tool's display (the monitor in front, the first time). */
static wa_err first_observation(struct run *r, struct op_result *res)
{
    struct op_request q;
    op_request_init(&q, op_def(r->computer ? OP_SCREENSHOT : OP_OBSERVE));
    wa_err e = core_perform(r->ses, &q, res);
    if (e) { /* no window in front: show the monitor instead */
        op_request_init(&q, op_def(OP_SCREENSHOT));
        e = core_perform(r->ses, &q, res);
    }
    op_request_cleanup(&q);
    return e;
}

/* The first user turn: the task with an observation of the window in front. */
static void first_turn(struct run *r)
{
    struct op_result res;
    op_result_init(&res);
    struct dynbuf text;
    dynbuf_init(&text, 16u << 20);
    dynbuf_adds(&text, r->cfg->prompt);
    int64_t t0 = os_now_ms();
    wa_err e = first_observation(r, &res);
    r->agent_ms += (double)(os_now_ms() - t0);
    struct llm_image img;
    bool has_img = false;
    cJSON *trace = cJSON_CreateObject();
    cJSON_AddNumberToObject(trace, TRACE_STEP, 0);
    cJSON_AddStringToObject(trace, TRACE_TASK, r->cfg->prompt);
    if (!e && res.obs.kind != OBS_NONE) {
        calltrace_observation(&r->log, 0, res.op, &res.obs, session_tree(r->ses), trace);
        steplog_progress(&r->log, "[step 0/%d] observe -> %s", r->cfg->max_steps, res.obs.verdict);
        observation_for_model(r, &res.obs, &text, &img, &has_img);
        if (has_img && r->computer) /* the one display of the run */
            r->view = (struct computer_view){res.obs.frame, res.obs.width, res.obs.height};
    } else {
        steplog_progress(&r->log, "[step 0/%d] no first observation: %s", r->cfg->max_steps,
                         res.message);
    }
    steplog_trace(&r->log, trace);
    cJSON_Delete(trace);
    llm_conversation_add_user(&r->conv, dynbuf_str(&text), has_img ? &img : NULL, has_img ? 1 : 0);
    if (!e) {
        char trimmed[600];
        snprintf(trimmed, sizeof trimmed, "%.500s\n[first observation omitted]", r->cfg->prompt);
        remember_observation(r, trimmed);
    }
    dynbuf_cleanup(&text);
    op_result_cleanup(&res);
}

static void log_llm_line(void *ctx, const char *line)
{
    steplog_note(ctx, "%s", line);
}

/* The step's trace line from the model's reply: its text, reasoning and tokens. */
static cJSON *trace_reply(struct run *r, int step, const struct llm_reply *reply)
{
    cJSON *trace = cJSON_CreateObject();
    cJSON_AddNumberToObject(trace, TRACE_STEP, step);
    if (reply->reasoning) {
        cJSON_AddStringToObject(trace, TRACE_REASONING, reply->reasoning);
        steplog_note(&r->log, "reasoning: %s", reply->reasoning);
    }
    if (reply->text) {
        cJSON_AddStringToObject(trace, TRACE_MODEL_TEXT, reply->text);
        steplog_note(&r->log, "model: %s", reply->text);
    }
    cJSON_AddStringToObject(trace, TRACE_FINISH_REASON,
                            reply->finish_reason ? reply->finish_reason : "");
    cJSON *usage = cJSON_AddObjectToObject(trace, TRACE_USAGE);
    cJSON_AddNumberToObject(usage, TRACE_PROMPT_TOKENS, (double)reply->usage.prompt_tokens);
    cJSON_AddNumberToObject(usage, TRACE_COMPLETION_TOKENS, (double)reply->usage.completion_tokens);
    cJSON_AddNumberToObject(usage, TRACE_TOTAL_TOKENS, (double)reply->usage.total_tokens);
    cJSON_AddNumberToObject(trace, TRACE_ATTEMPTS, reply->attempts);
    return trace;
}

/* A reply without calls (text: its text), or text after calls that all succeeded: the
 * final answer (EXIT_OK), or, for an empty first one, a request for a call or an answer
 * (-1: the run goes on). */
static int answer(struct run *r, int step, const char *text, cJSON *trace, const char *stats,
                  bool *nudged)
{
    text = text ? text : "";
    while (*text == ' ' || *text == '\n')
        text++;
    if (!*text && !*nudged) { /* an empty turn: ask once for a call or an answer */
        *nudged = true;
        llm_conversation_add_user(
            &r->conv, "Continue: call a tool, or give your final answer as plain text.", NULL, 0);
        steplog_progress(&r->log, "[step %d/%d] (empty reply, asked again)%s", step,
                         r->cfg->max_steps, stats);
        steplog_trace(&r->log, trace);
        return -1;
    }
    steplog_progress(&r->log, "[step %d/%d] final answer%s", step, r->cfg->max_steps, stats);
    cJSON_AddStringToObject(trace, TRACE_FINAL_ANSWER, text);
    steplog_trace(&r->log, trace);
    struct dynbuf shown; /* scrubbed like the logs; lines kept, no terminal sequence */
    dynbuf_init(&shown, 16u << 20);
    term_escape_buf(&shown, text, true);
    steplog_print(&r->log, stdout, dynbuf_str(&shown));
    dynbuf_cleanup(&shown);
    fputc('\n', stdout);
    fflush(stdout);
    finish(r, EXIT_OK, step, NULL);
    return EXIT_OK;
}

/* A call not run (interrupted, past the calls one reply may make, or its elements
 * renumbered) is still answered, with its error as the call's result: every call must
 * be before the next request. */
static void refuse_call(struct run *r, const struct llm_tool_call *call, wa_err code,
                        const char *message, cJSON *trace)
{
    cJSON *err = wire_error(NULL, code, message);
    char *text = cJSON_PrintUnformatted(err);
    if (!llm_conversation_add_tool_result(&r->conv, call->id, call->name, text ? text : "{}", NULL))
        llm_conversation_mark_failed(&r->conv);
    cJSON_AddStringToObject(trace, TRACE_NAME, call->name);
    if (call->parsed)
        cJSON_AddItemToObject(trace, TRACE_ARGUMENTS, cJSON_Duplicate(call->parsed, true));
    cJSON_AddItemToObject(trace, TRACE_RESULT, err);
    free(text);
}

/* Whether a later call of the reply names an id that the calls before it renumbered:
 * the message then says which call changed what. */
static bool refs_moved(struct run *r, const struct seen_tree *seen, const struct llm_reply *reply,
                       size_t next, size_t ran, char *msg, size_t cap)
{
    for (size_t j = next; j < reply->n_calls && j < MAX_CALLS_PER_REPLY; j++) {
        struct op_request q;
        char why[256];
        bool moved = tool_request(r, &reply->calls[j], reply->calls[j].parsed, &q) == WA_E_OK &&
                     seen_changed(seen, session_tree(r->ses), &q, why, sizeof why);
        op_request_cleanup(&q);
        if (moved) {
            const cJSON *action =
                cJSON_GetObjectItemCaseSensitive(reply->calls[ran].parsed, "action");
            snprintf(msg, cap,
                     "not run: call %zu of this reply (%s) changed the window before it: %s. "
                     "This call and the ones after it were skipped; choose again from the "
                     "latest observation",
                     ran + 1, cJSON_IsString(action) ? action->valuestring : reply->calls[ran].name,
                     why);
            return true;
        }
    }
    return false;
}

/* Runs the reply's calls in order into the step's trace, with the step's timings. The
 * rest are skipped once a call renumbered the elements a later one names. True when
 * every call ran and succeeded (none refused, failed or skipped). */
static bool run_calls(struct run *r, int step, const struct llm_reply *reply, cJSON *trace,
                      const char *stats)
{
    cJSON *calls = cJSON_AddArrayToObject(trace, TRACE_TOOL_CALLS);
    int64_t t0 = os_now_ms();
    double agent_before = r->agent_ms;
    struct seen_tree seen = {0}; /* nothing to check with a single call */
    if (reply->n_calls > 1)
        seen_take(&seen, session_tree(r->ses));
    char skip[512] = "";
    bool all_ok = true;
    for (size_t i = 0; i < reply->n_calls; i++) {
        cJSON *ct = cJSON_CreateObject();
        cJSON_AddItemToArray(calls, ct);
        if (os_interrupted() || i >= MAX_CALLS_PER_REPLY || *skip)
            all_ok = false;
        if (os_interrupted()) {
            refuse_call(r, &reply->calls[i], WA_E_INTERRUPTED, "interrupted", ct);
            continue;
        }
        if (i >= MAX_CALLS_PER_REPLY) {
            refuse_call(r, &reply->calls[i], WA_E_INVALID_ARGS,
                        "not run: more than 16 tool calls in one reply; make fewer at a time", ct);
            continue;
        }
        if (*skip) {
            refuse_call(r, &reply->calls[i], WA_E_STALE_REF, skip, ct);
            continue;
        }
        if (r->stop_reason) { /* the run ends: no answer goes back for the rest */
            all_ok = false;
            cJSON_AddStringToObject(ct, TRACE_NAME, reply->calls[i].name);
            cJSON_AddItemToObject(
                ct, TRACE_RESULT,
                wire_error(NULL, WA_E_CANCELLED, "not run: the run ended before it"));
            continue;
        }
        if (!run_tool_call(r, step, &reply->calls[i], i == 0 ? stats : "", ct))
            all_ok = false;
        cJSON *done = cJSON_CreateObject();
        cJSON_AddNumberToObject(done, TRACE_STEP, step);
        cJSON_AddItemReferenceToObject(done, TRACE_CALL_DONE, ct);
        steplog_trace(&r->log, done);
        cJSON_Delete(done);
        if (refs_moved(r, &seen, reply, i + 1, i, skip, sizeof skip))
            steplog_progress(&r->log, "[step %d/%d] skipping the rest of the reply (%zu calls): %s",
                             step, r->cfg->max_steps, reply->n_calls - i - 1,
                             skip + strlen("not run: "));
    }
    seen_cleanup(&seen);
    cJSON *timings = cJSON_AddObjectToObject(trace, TRACE_TIMINGS);
    cJSON_AddNumberToObject(timings, TRACE_LLM_MS, reply->elapsed_ms);
    cJSON_AddNumberToObject(timings, TRACE_AGENT_MS, r->agent_ms - agent_before);
    cJSON_AddNumberToObject(timings, TRACE_TOOLS_MS, (double)(os_now_ms() - t0));
    return all_ok;
}

/* A server that refuses tools under auto's functions: the tools are declared in the
 * system prompt and the calls read from the replies' text for the rest of the run.
 * False when the protocol was not auto's or the prompt cannot be made. */
static bool speak_text_instead(struct run *r)
{
    if (r->proto.protocol != LLM_PROTO_FUNCTIONS || !r->proto.text_calls)
        return false;
    struct llm_protocol_choice text = r->proto;
    text.protocol = LLM_PROTO_TEXT;
    text.grammar = LLM_TEXT_HERMES;
    text.why = "the server takes no tools";
    char *system = agent_system_prompt(&text, core_shell(r->core) != SHELL_DENIED);
    if (!system || llm_conversation_set_system(&r->conv, system)) {
        free(system);
        return false;
    }
    free(system);
    r->proto = text;
    steplog_progress(&r->log, "the server takes no tools: declaring them in the prompt and "
                              "reading calls from the text from now on");
    return true;
}

/* One step: ask the model, then answer or run its calls. Returns the run's exit code
 * when the run ends here, -1 when it goes on. */
static int run_step(struct run *r, int step, const struct llm_tool *tools, size_t n_tools,
                    bool *nudged)
{
    trim_history(r);
    struct llm_reply reply;
    memset(&reply, 0, sizeof reply);
    wa_err e = llm_complete(r->llm, &r->conv, tools, n_tools, &reply);
    r->llm_ms += reply.elapsed_ms;
    r->usage.prompt_tokens = add_tokens(r->usage.prompt_tokens, reply.usage.prompt_tokens);
    r->usage.completion_tokens =
        add_tokens(r->usage.completion_tokens, reply.usage.completion_tokens);
    r->usage.total_tokens = add_tokens(r->usage.total_tokens, reply.usage.total_tokens);
    if (e && reply.tools_refused && n_tools && speak_text_instead(r)) {
        llm_reply_cleanup(&reply);
        return run_step(r, step, tools, 0, nudged); /* the same step, asked without tools */
    }
    if (e) {
        llm_reply_cleanup(&reply);
        char what[48];
        snprintf(what, sizeof what, "interrupted (%s)",
                 os_interrupt_reason() ? os_interrupt_reason() : "request");
        return fail_run(r, exit_for_llm_error(e), e, e == WA_E_INTERRUPTED ? what : "LLM error",
                        step - 1);
    }
    cJSON *trace = trace_reply(r, step, &reply);
    llm_conversation_add_reply(&r->conv, &reply);
    char stats[96];
    snprintf(stats, sizeof stats, "  llm %.1fs  %.1fk tok", reply.elapsed_ms / 1000.0,
             (double)reply.usage.total_tokens / 1000.0);
    int code = -1;
    if (reply.n_calls == 0 && reply.text_call_error && r->bad_text_calls++ < SAME_FAILURE_STOP) {
        /* a call written as text that cannot be read is no final answer: say why */
        char msg[700];
        snprintf(msg, sizeof msg,
                 "Your tool call could not be read: %.500s. Write it again, well-formed, or "
                 "give your final answer as plain text.",
                 reply.text_call_error);
        llm_conversation_add_user(&r->conv, msg, NULL, 0);
        steplog_progress(&r->log,
                         "[step %d/%d] (a call written as text could not be read, asked "
                         "again)%s",
                         step, r->cfg->max_steps, stats);
        steplog_trace(&r->log, trace);
    } else if (reply.n_calls == 0) {
        code = answer(r, step, reply.text, trace, stats, nudged);
    } else if (run_calls(r, step, &reply, trace, stats) && reply.after_calls && !os_interrupted() &&
               !r->stop_reason) {
        /* the answer the model gave after its calls stands now that they all succeeded:
         * no turn is spent to hear it again */
        code = answer(r, step, reply.after_calls, trace, "", nudged);
    } else {
        steplog_trace(&r->log, trace);
    }
    cJSON_Delete(trace);
    llm_reply_cleanup(&reply);
    return code;
}

static int run_steps(struct run *r)
{
    size_t n_tools;
    bool with_shell = core_shell(r->core) != SHELL_DENIED;
    const struct llm_tool *tools = agent_tools(with_shell, &n_tools);
    if (r->computer) { /* the display declared is the first screenshot's, for the whole run */
        r->computer_tool.display_width = r->view.width;
        r->computer_tool.display_height = r->view.height;
        tools = agent_computer_tools(&r->computer_tool, with_shell, &n_tools);
    }
    bool nudged = false;
    struct budget_use use = {0};
    for (int step = 1; step <= r->cfg->max_steps; step++) {
        if (os_interrupted())
            return fail_run(r, EXIT_INTERRUPTED, wa_fail(WA_E_INTERRUPTED, "between steps"),
                            os_interrupt_reason(), step - 1);
        char why[160];
        use.tokens = r->usage.total_tokens;
        use.seconds = (double)(os_now_ms() - r->start_ms) / 1000.0;
        if (budget_spent(&r->cfg->budget, &use, why, sizeof why)) {
            steplog_progress(&r->log, "%s", why);
            finish(r, EXIT_BUDGET, step - 1, why);
            return EXIT_BUDGET;
        }
        int64_t turn_start = os_now_ms();
        /* with text, the tools are declared in the system prompt: the server gets none */
        int code =
            run_step(r, step, tools, r->proto.protocol == LLM_PROTO_TEXT ? 0 : n_tools, &nudged);
        use.turns++;
        use.last_tokens = r->usage.total_tokens - use.tokens;
        use.last_seconds = (double)(os_now_ms() - turn_start) / 1000.0;
        if (code >= 0)
            return code;
        if (os_interrupted())
            return fail_run(r, EXIT_INTERRUPTED, wa_fail(WA_E_INTERRUPTED, "after the tool calls"),
                            os_interrupt_reason(), step);
        if (r->stop_reason) {
            int stop = r->stop_code ? r->stop_code : EXIT_ACTION;
            steplog_progress(&r->log, "stopping: %s", r->stop_reason);
            finish(r, stop, step, r->stop_reason);
            return stop;
        }
    }
    char reason[96];
    snprintf(reason, sizeof reason, "step limit of %d reached without a final answer",
             r->cfg->max_steps);
    steplog_progress(&r->log, "%s", reason);
    finish(r, EXIT_STEPS, r->cfg->max_steps, reason);
    return EXIT_STEPS;
}

/* The computer tool protocol: which provider's, the Gemini environment the model takes,
 * and whether a person can confirm what a safety check flags (a console or --shell
 * confirm, never in a batch). */
static void setup_computer(struct run *r, bool computer)
{
    const struct agent_config *cfg = r->cfg;
    r->computer = computer;
    r->cu_proto = cfg->provider == LLM_PROVIDER_GOOGLE      ? COMPUTER_GEMINI
                  : cfg->provider == LLM_PROVIDER_ANTHROPIC ? COMPUTER_ANTHROPIC
                                                            : COMPUTER_OPENAI;
    r->computer_tool.desktop = computer_gemini_desktop(cfg->model);
    r->computer_tool.excluded = r->computer_tool.desktop ? NULL : computer_gemini_browser_only;
    r->can_confirm = !r->out && (str_ieq(settings_get(&cfg->settings, SET_SHELL), "confirm") ||
                                 os_stdin_is_console());
}

/* The run's core and session: the shell policy, its confirmation on the console, the
 * observation after every acting call, the debug crosshairs. */
static wa_err open_desktop(struct run *r)
{
    const struct agent_config *cfg = r->cfg;
    struct core_config cc;
    wa_err e = core_config_from_settings(&cfg->settings, true, &cc);
    if (e)
        return e;
    cc.be = r->be;
    cc.confirm = confirm_on_console;
    if ((e = core_new(&cc, &r->core)))
        return e;
    struct session_opts so;
    session_opts_default(&so);
    so.front = "loop";
    so.model_names = true;
    so.observe.mode = r->computer ? OBS_PIXEL : cfg->mode; /* the computer tool sees pixels */
    so.observe.max_edge = cfg->max_edge;
    if (r->computer) { /* one display, within what the service takes without scaling it */
        so.one_display = true;
        computer_image_limits(r->cu_proto, cfg->max_edge, &so.observe.max_edge,
                              &so.observe.max_pixels, &so.observe.max_short_edge);
    }
    so.after = AFTER_OBSERVE;
    so.annotate = true;
    return session_new(r->core, &so, &r->ses);
}

int agent_run(const struct agent_config *cfg, struct run_outcome *out)
{
    struct run r;
    memset(&r, 0, sizeof r);
    r.cfg = cfg;
    r.proto = cfg->protocol;
    r.out = out;
    if (out)
        memset(out, 0, sizeof *out);
    r.start_ms = os_now_ms();
    const char *shell = settings_get(&cfg->settings, SET_SHELL);
    /* --shell confirm reads answers from stdin, so stdin cannot also signal parent death. */
    os_interrupt_install(!str_ieq(shell, "confirm"));
    r.be = host_backend();
    if (!r.be)
        return EXIT_ACTION;
    wa_err e = steplog_open(&r.log, cfg->log_dir, cfg->prompt, cfg->api_key);
    if (e)
        return exit_fail(e);
    if (out)
        snprintf(out->dir, sizeof out->dir, "%s", r.log.dir);
    steplog_note(&r.log, "winagent: task: %s", cfg->prompt);
    steplog_note(&r.log,
                 "config: provider=%s model=%s tool_protocol=%s (%s) base_url=%s key=%s mode=%s "
                 "max_steps=%d max_edge=%d history_images=%d shell=%s dry_run=%s stream=%s "
                 "store=%s env=%s",
                 llm_provider_name(cfg->provider), cfg->model,
                 llm_tool_protocol_name(cfg->protocol.protocol), cfg->protocol.why,
                 cfg->base_url ? cfg->base_url : "(default)", cfg->api_key ? "set" : "none",
                 obs_mode_name(cfg->mode), cfg->max_steps, cfg->max_edge, cfg->history_images,
                 shell, cfg->dry_run ? "yes" : "no", cfg->stream ? "yes" : "no",
                 cfg->store ? "yes" : "no",
                 cfg->settings.dotenv_path ? cfg->settings.dotenv_path : "(none)");

    struct llm_config lc = {
        .provider = cfg->provider,
        .base_url = cfg->base_url,
        .model = cfg->model,
        .api_key = cfg->api_key,
        .stream = cfg->stream,
        .store = cfg->store,
        .temperature = -1,
        /* the client reads 0 as "default" and a negative count as "no retries" */
        .max_retries = cfg->llm_retries < 0    ? 0
                       : cfg->llm_retries == 0 ? -1
                                               : cfg->llm_retries,
        .max_backoff_ms = cfg->llm_max_wait_ms,
        .timeout_s = cfg->llm_timeout_s,
        .text_calls = cfg->protocol.text_calls,
        .text_coords = cfg->protocol.coords,
        .log = log_llm_line,
        .ctx = &r.log,
    };
    int code;
    setup_computer(&r, cfg->protocol.protocol == LLM_PROTO_COMPUTER);
    if ((e = llm_client_new(&lc, &r.llm))) {
        code = fail_run(&r, EXIT_USAGE, e, "cannot set up the LLM client", 0);
        goto out;
    }
    if ((e = open_desktop(&r))) {
        code = fail_run(&r, EXIT_USAGE, e, "cannot set up the desktop", 0);
        goto out;
    }
    llm_conversation_init(&r.conv);
    char *system = agent_system_prompt(&cfg->protocol, core_shell(r.core) != SHELL_DENIED);
    if (!system) {
        code = fail_run(&r, EXIT_USAGE, wa_fail(WA_E_NOMEM, "out of memory"),
                        "cannot set up the system prompt", 0);
        goto out;
    }
    llm_conversation_set_system(&r.conv, system);
    free(system);
    first_turn(&r);
    if (r.computer && r.view.width <= 0)
        code = fail_run(&r, EXIT_ACTION,
                        wa_fail(WA_E_ACTION_FAILED, "the computer tool needs a screenshot of the "
                                                    "screen to tell the model its display"),
                        "no first screenshot", 0);
    else
        code = run_steps(&r);
    llm_conversation_cleanup(&r.conv);
out:
    session_free(r.ses);
    core_free(r.core);
    llm_client_free(r.llm);
    for (size_t i = 0; i < r.n_obs; i++)
        free(r.obs[i].trimmed);
    free(r.obs);
    free(r.last_sig);
    steplog_close(&r.log);
    return code;
}
