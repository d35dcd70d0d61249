/* The agent loop's tool calls: each call of a reply turned into a request, checked
 * (the computer tool's safety checks, repetitions), performed through core_perform and
 * answered with its result and a fresh observation, which the history remembers. */
#include "agent/run/loop_call.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/request/exit.h"
#include "agent/core/host.h"
#include "agent/core/request/wire.h"
#include "agent/run/budget.h"
#include "agent/run/calltrace.h"
#include "agent/run/computer.h"
#include "agent/run/replay.h"
#include "agent/run/seen.h"
#include "agent/run/steplog.h"
#include "agent/run/tools.h"
#include "agent/report/trace.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"
#include "llm/textcalls.h"

/* ---- history ---- */

void loop_call_remember_observation(struct run *r, const char *trimmed)
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

void loop_call_observation_for_model(struct run *r, const struct observation *o,
                                     struct dynbuf *text, struct llm_image *img, bool *has_img)
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

bool loop_call_confirm_on_console(void *ctx, const char *what, const char *command)
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

wa_err loop_call_request(struct run *r, const struct llm_tool_call *call, const cJSON *args,
                         struct op_request *q)
{
    bool desktop = strcmp(call->name, "desktop") == 0;
    bool shell = strcmp(call->name, op_def(OP_SHELL)->model) == 0;
    bool launch = r->computer && strcmp(call->name, AGENT_TOOL_LAUNCH) == 0;
    bool ask = strcmp(call->name, op_def(OP_ASK_USER)->model) == 0;
    if ((desktop || shell || launch || ask) && !args) {
        op_request_init(q, NULL);
        return wa_fail(WA_E_INVALID_ARGS, "arguments are not valid JSON: %.200s",
                       call->arguments ? call->arguments : "(none)");
    }
    if (shell || ask)
        return wire_request(args, WIRE_MODEL, op_def(shell ? OP_SHELL : OP_ASK_USER), q);
    if (r->computer && strcmp(call->name, AGENT_TOOL_LAUNCH) == 0)
        return wire_request(args, WIRE_MODEL, op_def(OP_LAUNCH), q);
    if (r->computer && strcmp(call->name, AGENT_TOOL_TREE) == 0) {
        op_request_init(q, op_def(OP_OBSERVE));
        return op_request_set_text(q, ARG_MODE, "a11y");
    }
    if (desktop && !r->computer)
        return wire_request(args, WIRE_MODEL, NULL, q);
    op_request_init(q, NULL);
    return wa_fail(WA_E_INVALID_ARGS, "there is no tool \"%s\"; the tools are %s, ask_user%s",
                   call->name,
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

/* A call that is the computer tool's (else one of the functions beside it). */
static bool is_computer_call(const struct run *r, const struct llm_tool_call *call)
{
    return r->computer && strcmp(call->name, AGENT_TOOL_LAUNCH) != 0 &&
           strcmp(call->name, AGENT_TOOL_TREE) != 0 &&
           strcmp(call->name, op_def(OP_SHELL)->model) != 0 &&
           strcmp(call->name, op_def(OP_ASK_USER)->model) != 0;
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
    if (!loop_call_confirm_on_console(NULL, what, call->arguments ? call->arguments : "{}")) {
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
    wa_err e = loop_call_first_observation(r, &shot);
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
        e = loop_call_request(r, call, moved ? moved : call->parsed, q);
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
        loop_call_observation_for_model(r, &res->obs, &text, &img, &has_img);
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

bool loop_call_run(struct run *r, int step, const struct llm_tool_call *call,
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
    bool stuck;
    const char *note = guards_after_call(&r->guards, step, call->name, call->arguments, summary,
                                         &res, acted, &stuck, r->stop_text, sizeof r->stop_text);
    if (stuck)
        r->stop_reason = r->stop_text;
    char *result_text = answer_call(r, call, &res, note, acknowledged, trace);
    if (res.obs.kind != OBS_NONE) {
        char trimmed[512];
        snprintf(trimmed, sizeof trimmed, "%.400s\n[observation of step %d omitted]",
                 result_text ? result_text : "{}", step);
        loop_call_remember_observation(r, trimmed);
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

wa_err loop_call_first_observation(struct run *r, struct op_result *res)
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
