/* The agent loop: ask the model, run its tool calls through the one dispatcher,
 * answer with results and fresh observations, keep the history bounded, log it all. */
#include "agent/loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/cli.h"
#include "agent/desktop.h"
#include "agent/replay.h"
#include "agent/steplog.h"
#include "agent/tools.h"
#include "base/os.h"
#include "base/str.h"

extern const char prompt_system[];

#define SHELL_CAP_BYTES         (16u << 10)
#define SHELL_DEFAULT_TIMEOUT_S 60
#define SHELL_MAX_TIMEOUT_S     600
#define SAME_FAILURE_WARN       3 /* identical failing calls in a row before the model is told */
#define SAME_FAILURE_STOP       5 /* ... before the run ends */
#define UNCHANGED_WARN          3 /* acting calls in a row that left the observation unchanged */
#define SAME_CALL_STOP          8 /* identical calls in a row with no change, before the run ends */

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
    struct desktop_session ds;
    struct obs_ref *obs;
    size_t n_obs;
    /* loop detection */
    char *last_sig;
    int same_failures;
    int same_calls;
    int unchanged;
    uint64_t last_obs_hash;
    bool have_obs_hash;
    const char *stop_reason; /* set when a repetition ends the run */
    /* totals */
    struct llm_usage usage;
    double llm_ms, agent_ms;
    int64_t start_ms;
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
    struct obs_ref *p = realloc(r->obs, (r->n_obs + 1) * sizeof *p);
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

/* The observation as the model gets it: text to append, and an image if any. */
static void observation_for_model(const struct observation *o, struct dynbuf *text,
                                  struct llm_image *img, bool *has_img)
{
    *has_img = false;
    if (o->kind == OBS_TREE) {
        dynbuf_adds(text, "\n\nObservation (accessibility tree; coordinates 0-999):\n");
        dynbuf_adds(text, o->text);
    } else if (o->kind == OBS_IMAGE) {
        dynbuf_addf(text,
                    "\n\nObservation: a screenshot is attached (%dx%d image of the frame "
                    "[%d,%d][%d,%d]; coordinates 0-999 over the image).",
                    o->width, o->height, o->frame.left, o->frame.top, o->frame.right,
                    o->frame.bottom);
        img->mime = "image/png";
        img->base64 = o->png_base64;
        *has_img = true;
    }
}

/* agent.log's DEBUG lines behind a window observation's verdict: the interactive
 * elements of its tree that have no name. */
static void log_unnamed_elements(struct run *r, const struct observation *o)
{
    const struct wa_tree *t = &r->ds.tree;
    if (!o->hwnd || t->hwnd != o->hwnd)
        return; /* a monitor, or no tree of this window */
    struct dynbuf lines;
    dynbuf_init(&lines, 1u << 20);
    if (observe_unnamed_lines(t, &lines) == WA_E_OK) {
        for (const char *line = dynbuf_str(&lines), *end; *line; line = end + 1) {
            end = strchr(line, '\n');
            steplog_note(&r->log, "%.*s", (int)(end - line), line);
        }
    }
    dynbuf_cleanup(&lines);
}

/* Saves an observation's files; returns the file name (heap) or NULL. */
static char *save_observation(struct run *r, int step, const char *action,
                              const struct observation *o)
{
    char name[160];
    if (o->kind == OBS_TREE) {
        snprintf(name, sizeof name, "step-%02d-%s+a11y.txt", step, action);
        return steplog_save(&r->log, name, o->text, strlen(o->text));
    }
    if (o->kind == OBS_IMAGE) {
        snprintf(name, sizeof name, "step-%02d-%s.png", step, action);
        return steplog_save(&r->log, name, o->png.data, o->png.len);
    }
    return NULL;
}

static cJSON *observation_trace(const struct observation *o, const char *file)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kind", o->kind == OBS_TREE ? "tree" : "image");
    if (file)
        cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "verdict", o->verdict);
    int f[4] = {o->frame.left, o->frame.top, o->frame.right, o->frame.bottom};
    cJSON_AddItemToObject(j, "frame", cJSON_CreateIntArray(f, 4));
    if (o->kind == OBS_IMAGE) {
        cJSON_AddNumberToObject(j, "width", o->width);
        cJSON_AddNumberToObject(j, "height", o->height);
    }
    return j;
}

/* ---- tools ---- */

static bool confirm_on_console(const char *command)
{
    fprintf(stderr, "\nwinagent wants to run this PowerShell command:\n  %s\nRun it? [y/N] ",
            command);
    fflush(stderr);
    char answer[16];
    if (!fgets(answer, sizeof answer, stdin))
        return false;
    return answer[0] == 'y' || answer[0] == 'Y';
}

static wa_err run_powershell(struct run *r, const char *arguments, cJSON *result, char *summary,
                             size_t summary_size)
{
    size_t len;
    cJSON *args = cJSON_Parse(arguments);
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(args, "command");
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(args, "timeout_s");
    wa_err e = WA_E_OK;
    if (!cJSON_IsString(cmd) || !*cmd->valuestring) {
        e = wa_fail(WA_E_INVALID_ARGS,
                    args ? "powershell needs \"command\"" : "arguments are not valid JSON: %.200s",
                    arguments);
        snprintf(summary, summary_size, "powershell -> error: invalid_args");
        goto out;
    }
    int timeout = cJSON_IsNumber(to) ? to->valueint : SHELL_DEFAULT_TIMEOUT_S;
    if (timeout < 1)
        timeout = 1;
    if (timeout > SHELL_MAX_TIMEOUT_S)
        timeout = SHELL_MAX_TIMEOUT_S;
    snprintf(summary, summary_size, "powershell %.60s", cmd->valuestring);
    if (r->cfg->shell == SHELL_OFF) {
        e = wa_fail(WA_E_DENIED, "the powershell tool is turned off (--shell off)");
    } else if (r->cfg->dry_run) {
        cJSON_AddBoolToObject(result, "dry_run", true);
    } else if (r->cfg->shell == SHELL_CONFIRM && !confirm_on_console(cmd->valuestring)) {
        e = wa_fail(WA_E_DENIED, "the user declined to run this command");
    } else {
        struct wa_shell_result sr;
        e = backend_run_shell(r->be, cmd->valuestring, timeout * 1000, SHELL_CAP_BYTES, &sr);
        if (!e) {
            cJSON_AddNumberToObject(result, "exit_code", sr.exit_code);
            cJSON_AddBoolToObject(result, "timed_out", sr.timed_out);
            cJSON_AddStringToObject(result, "stdout", sr.out ? sr.out : "");
            cJSON_AddStringToObject(result, "stderr", sr.err ? sr.err : "");
            cJSON_AddNumberToObject(result, "ms", sr.elapsed_ms);
        }
        wa_shell_result_cleanup(&sr);
    }
out:
    len = strlen(summary);
    snprintf(summary + len, summary_size - len, " -> %s",
             e                 ? wa_err_code(e)
             : r->cfg->dry_run ? "dry-run"
                               : "ok");
    cJSON_Delete(args);
    return e;
}

static void set_json_error(cJSON *j, wa_err e)
{
    cJSON_DeleteItemFromObjectCaseSensitive(j, "ok");
    cJSON_AddBoolToObject(j, "ok", false);
    cJSON *err = cJSON_AddObjectToObject(j, "error");
    cJSON_AddStringToObject(err, "code", wa_err_code(e));
    cJSON_AddStringToObject(err, "message", *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
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

/* Runs one tool call and appends its result to the conversation; fills the call's
 * trace object. */
static void run_tool_call(struct run *r, int step, const struct llm_tool_call *call,
                          const char *step_stats, cJSON *trace)
{
    cJSON_AddStringToObject(trace, "id", call->id);
    cJSON_AddStringToObject(trace, "name", call->name);
    cJSON *parsed_args = cJSON_Parse(call->arguments);
    if (parsed_args)
        cJSON_AddItemToObject(trace, "arguments", parsed_args);
    else
        cJSON_AddStringToObject(trace, "arguments_raw", call->arguments);

    struct desktop_result dr;
    desktop_result_init(&dr);
    cJSON *result = NULL;
    char summary[256];
    wa_err e;
    int64_t t0 = os_now_ms();
    bool acted = false;
    const char *action = call->name;
    if (strcmp(call->name, "desktop") == 0) {
        e = desktop_call_text(&r->ds, call->arguments, &dr);
        result = dr.json;
        dr.json = NULL;
        snprintf(summary, sizeof summary, "%s", dr.summary);
        acted = dr.action_known && desktop_action_acts(dr.action);
        if (dr.action_known)
            action = desktop_action_name(dr.action);
        /* What replay needs to find the element again in a fresh tree. */
        const cJSON *el = cJSON_GetObjectItemCaseSensitive(result, "element");
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(result, "type");
        if (cJSON_IsNumber(el) && !cJSON_IsString(ty)) {
            const struct wa_node *n = tree_node_by_id(&r->ds.tree, el->valueint);
            if (n) {
                cJSON *ref = cJSON_AddObjectToObject(trace, "element_ref");
                cJSON_AddStringToObject(ref, "type", n->type);
                cJSON_AddStringToObject(ref, "name", n->name);
            }
        } else if (cJSON_IsNumber(el)) {
            cJSON *ref = cJSON_AddObjectToObject(trace, "element_ref");
            cJSON_AddStringToObject(ref, "type", ty->valuestring);
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(result, "name");
            cJSON_AddStringToObject(ref, "name", cJSON_IsString(nm) ? nm->valuestring : "");
        }
    } else if (strcmp(call->name, "powershell") == 0) {
        result = cJSON_CreateObject();
        cJSON_AddBoolToObject(result, "ok", true);
        e = run_powershell(r, call->arguments, result, summary, sizeof summary);
        if (e)
            set_json_error(result, e);
        acted = true;
    } else {
        result = cJSON_CreateObject();
        e = wa_fail(WA_E_INVALID_ARGS, "there is no tool \"%s\"; the tools are desktop%s",
                    call->name, r->cfg->shell == SHELL_OFF ? "" : " and powershell");
        cJSON_AddBoolToObject(result, "ok", true);
        set_json_error(result, e);
        snprintf(summary, sizeof summary, "%.40s -> error: unknown tool", call->name);
    }
    double action_ms = (double)(os_now_ms() - t0);
    r->agent_ms += action_ms;

    const char *note = repetition_note(r, call, e != WA_E_OK, acted, &dr.obs);
    if (note)
        cJSON_AddStringToObject(result, "note", note);

    /* Files: the observation exactly as sent, and the debug crosshair. */
    cJSON *files = cJSON_CreateObject();
    if (dr.obs.kind != OBS_NONE) {
        char *file = save_observation(r, step, action, &dr.obs);
        cJSON_AddItemToObject(trace, "observation", observation_trace(&dr.obs, file));
        steplog_note(&r->log, "observation: %s", dr.obs.verdict);
        log_unnamed_elements(r, &dr.obs);
        free(file);
    }
    if (dr.has_annotate) {
        struct dynbuf png;
        dynbuf_init(&png, 64u << 20);
        if (png_encode(&dr.annotate, &png) == WA_E_OK) {
            char name[160];
            snprintf(name, sizeof name, "step-%02d-%s+annotate.png", step, action);
            char *file = steplog_save(&r->log, name, png.data, png.len);
            if (file)
                cJSON_AddStringToObject(trace, "annotate", file);
            free(file);
        }
        dynbuf_cleanup(&png);
    }
    cJSON_Delete(files);

    char *result_text = cJSON_PrintUnformatted(result);
    cJSON_AddItemToObject(trace, "result", result);
    cJSON *ms = cJSON_AddObjectToObject(trace, "ms");
    cJSON_AddNumberToObject(ms, "action", dr.action_ms ? dr.action_ms : action_ms);
    cJSON_AddNumberToObject(ms, "capture", dr.obs.capture_ms);
    cJSON_AddNumberToObject(ms, "encode", dr.obs.encode_ms);
    cJSON_AddNumberToObject(ms, "tree", dr.obs.tree_ms);

    struct dynbuf text;
    dynbuf_init(&text, 16u << 20);
    dynbuf_adds(&text, result_text ? result_text : "{}");
    struct llm_image img;
    bool has_img;
    observation_for_model(&dr.obs, &text, &img, &has_img);
    llm_conversation_add_tool_result(&r->conv, call->id, call->name, dynbuf_str(&text),
                                     has_img ? &img : NULL);
    if (dr.obs.kind != OBS_NONE) {
        char trimmed[512];
        snprintf(trimmed, sizeof trimmed, "%.400s\n[observation of step %d omitted]",
                 result_text ? result_text : "{}", step);
        remember_observation(r, trimmed);
    }
    if (dr.obs.kind != OBS_NONE)
        steplog_progress(&r->log, "[step %d/%d] %s%s  | %s", step, r->cfg->max_steps, summary,
                         step_stats, dr.obs.verdict);
    else
        steplog_progress(&r->log, "[step %d/%d] %s%s", step, r->cfg->max_steps, summary,
                         step_stats);
    if (e)
        steplog_note(&r->log, "  error: %s",
                     *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
    dynbuf_cleanup(&text);
    free(result_text);
    desktop_result_cleanup(&dr);
}

/* ---- the run ---- */

static const char *exit_word(int code)
{
    switch (code) {
    case EXIT_OK:
        return "finished";
    case EXIT_LLM:
        return "LLM error";
    case EXIT_STEPS:
        return "step limit reached";
    case EXIT_ACTION:
        return "desktop failure";
    case EXIT_INTERRUPTED:
        return "interrupted";
    default:
        return "error";
    }
}

static void finish(struct run *r, int code, int steps)
{
    double total = (double)(os_now_ms() - r->start_ms);
    cJSON *s = cJSON_CreateObject();
    cJSON *sum = cJSON_AddObjectToObject(s, "summary");
    cJSON_AddNumberToObject(sum, "steps", steps);
    cJSON_AddNumberToObject(sum, "exit_code", code);
    cJSON_AddStringToObject(sum, "outcome", exit_word(code));
    cJSON_AddNumberToObject(sum, "prompt_tokens", (double)r->usage.prompt_tokens);
    cJSON_AddNumberToObject(sum, "completion_tokens", (double)r->usage.completion_tokens);
    cJSON_AddNumberToObject(sum, "total_tokens", (double)r->usage.total_tokens);
    cJSON_AddNumberToObject(sum, "llm_ms", r->llm_ms);
    cJSON_AddNumberToObject(sum, "agent_ms", r->agent_ms);
    cJSON_AddNumberToObject(sum, "total_ms", total);
    steplog_trace(&r->log, s);
    cJSON_Delete(s);
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
    finish(r, code, steps);
    return code;
}

static int exit_for_llm_error(wa_err e)
{
    return e == WA_E_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_LLM;
}

/* The first user turn: the task with an observation of the window in front. */
static void first_turn(struct run *r)
{
    struct desktop_result dr;
    desktop_result_init(&dr);
    struct dynbuf text;
    dynbuf_init(&text, 16u << 20);
    dynbuf_adds(&text, r->cfg->prompt);
    int64_t t0 = os_now_ms();
    wa_err e = desktop_call_text(&r->ds, "{\"action\":\"window_screenshot\"}", &dr);
    if (e) /* no window in front: show the monitor instead */
        e = desktop_call_text(&r->ds, "{\"action\":\"screenshot\"}", &dr);
    r->agent_ms += (double)(os_now_ms() - t0);
    struct llm_image img;
    bool has_img = false;
    cJSON *trace = cJSON_CreateObject();
    cJSON_AddNumberToObject(trace, "step", 0);
    cJSON_AddStringToObject(trace, "task", r->cfg->prompt);
    if (!e) {
        char *file = save_observation(r, 0, desktop_action_name(dr.action), &dr.obs);
        cJSON_AddItemToObject(trace, "observation", observation_trace(&dr.obs, file));
        free(file);
        steplog_progress(&r->log, "[step 0/%d] observe -> %s", r->cfg->max_steps, dr.obs.verdict);
        log_unnamed_elements(r, &dr.obs);
        observation_for_model(&dr.obs, &text, &img, &has_img);
    } else {
        steplog_note(&r->log, "no first observation: %s", wa_err_detail());
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
    desktop_result_cleanup(&dr);
}

static void log_llm_line(void *ctx, const char *line)
{
    steplog_note(ctx, "%s", line);
}

static int run_steps(struct run *r)
{
    size_t n_tools;
    const struct llm_tool *tools = agent_tools(r->cfg->shell != SHELL_OFF, &n_tools);
    bool nudged = false;
    for (int step = 1; step <= r->cfg->max_steps; step++) {
        if (os_interrupted())
            return fail_run(r, EXIT_INTERRUPTED, wa_fail(WA_E_INTERRUPTED, "between steps"),
                            os_interrupt_reason(), step - 1);
        trim_history(r);
        struct llm_reply reply;
        memset(&reply, 0, sizeof reply);
        wa_err e = llm_complete(r->llm, &r->conv, tools, n_tools, &reply);
        r->llm_ms += reply.elapsed_ms;
        r->usage.prompt_tokens += reply.usage.prompt_tokens;
        r->usage.completion_tokens += reply.usage.completion_tokens;
        r->usage.total_tokens += reply.usage.total_tokens;
        if (e) {
            llm_reply_cleanup(&reply);
            char what[48];
            snprintf(what, sizeof what, "interrupted (%s)",
                     os_interrupt_reason() ? os_interrupt_reason() : "request");
            return fail_run(r, exit_for_llm_error(e), e, e == WA_E_INTERRUPTED ? what : "LLM error",
                            step - 1);
        }
        cJSON *trace = cJSON_CreateObject();
        cJSON_AddNumberToObject(trace, "step", step);
        if (reply.reasoning) {
            cJSON_AddStringToObject(trace, "reasoning", reply.reasoning);
            steplog_note(&r->log, "reasoning: %s", reply.reasoning);
        }
        if (reply.text) {
            cJSON_AddStringToObject(trace, "model_text", reply.text);
            steplog_note(&r->log, "model: %s", reply.text);
        }
        cJSON_AddStringToObject(trace, "finish_reason",
                                reply.finish_reason ? reply.finish_reason : "");
        cJSON *usage = cJSON_AddObjectToObject(trace, "usage");
        cJSON_AddNumberToObject(usage, "prompt_tokens", (double)reply.usage.prompt_tokens);
        cJSON_AddNumberToObject(usage, "completion_tokens", (double)reply.usage.completion_tokens);
        cJSON_AddNumberToObject(usage, "total_tokens", (double)reply.usage.total_tokens);
        cJSON_AddNumberToObject(trace, "attempts", reply.attempts);
        llm_conversation_add_reply(&r->conv, &reply);

        char stats[96];
        snprintf(stats, sizeof stats, "  llm %.1fs  %.1fk tok", reply.elapsed_ms / 1000.0,
                 (double)reply.usage.total_tokens / 1000.0);
        if (reply.n_calls == 0) {
            const char *answer = reply.text ? reply.text : "";
            while (*answer == ' ' || *answer == '\n')
                answer++;
            if (!*answer && !nudged) { /* an empty turn: ask once for a call or an answer */
                nudged = true;
                llm_conversation_add_user(&r->conv,
                                          "Continue: call a tool, or give your final "
                                          "answer as plain text.",
                                          NULL, 0);
                steplog_progress(&r->log, "[step %d/%d] (empty reply, asked again)%s", step,
                                 r->cfg->max_steps, stats);
                steplog_trace(&r->log, trace);
                cJSON_Delete(trace);
                llm_reply_cleanup(&reply);
                continue;
            }
            steplog_progress(&r->log, "[step %d/%d] final answer%s", step, r->cfg->max_steps,
                             stats);
            cJSON_AddStringToObject(trace, "final_answer", answer);
            steplog_trace(&r->log, trace);
            cJSON_Delete(trace);
            fputs(answer, stdout);
            fputc('\n', stdout);
            fflush(stdout);
            llm_reply_cleanup(&reply);
            finish(r, EXIT_OK, step);
            return EXIT_OK;
        }
        cJSON *calls = cJSON_AddArrayToObject(trace, "tool_calls");
        int64_t t0 = os_now_ms();
        double agent_before = r->agent_ms;
        for (size_t i = 0; i < reply.n_calls; i++) {
            cJSON *ct = cJSON_CreateObject();
            cJSON_AddItemToArray(calls, ct);
            if (os_interrupted()) {
                /* Every call must be answered before the next request; this one is not
                 * run. */
                llm_conversation_add_tool_result(&r->conv, reply.calls[i].id, reply.calls[i].name,
                                                 "{\"ok\":false,\"error\":{\"code\":"
                                                 "\"interrupted\",\"message\":\"interrupted\"}}",
                                                 NULL);
                continue;
            }
            run_tool_call(r, step, &reply.calls[i], i == 0 ? stats : "", ct);
        }
        cJSON *timings = cJSON_AddObjectToObject(trace, "timings");
        cJSON_AddNumberToObject(timings, "llm_ms", reply.elapsed_ms);
        cJSON_AddNumberToObject(timings, "agent_ms", r->agent_ms - agent_before);
        cJSON_AddNumberToObject(timings, "tools_ms", (double)(os_now_ms() - t0));
        steplog_trace(&r->log, trace);
        cJSON_Delete(trace);
        llm_reply_cleanup(&reply);
        if (os_interrupted())
            return fail_run(r, EXIT_INTERRUPTED, wa_fail(WA_E_INTERRUPTED, "after the tool calls"),
                            os_interrupt_reason(), step);
        if (r->stop_reason) {
            steplog_progress(&r->log, "stopping: %s", r->stop_reason);
            finish(r, EXIT_ACTION, step);
            return EXIT_ACTION;
        }
    }
    steplog_progress(&r->log, "step limit of %d reached without a final answer", r->cfg->max_steps);
    finish(r, EXIT_STEPS, r->cfg->max_steps);
    return EXIT_STEPS;
}

int agent_run(const struct agent_config *cfg)
{
    struct run r;
    memset(&r, 0, sizeof r);
    r.cfg = cfg;
    r.start_ms = os_now_ms();
    /* --shell confirm reads answers from stdin, so stdin cannot also signal parent death. */
    os_interrupt_install(cfg->shell != SHELL_CONFIRM);
    r.be = cli_backend();
    if (!r.be)
        return EXIT_ACTION;
    wa_err e = steplog_open(&r.log, cfg->log_dir, cfg->prompt, cfg->api_key);
    if (e)
        return cli_fail(e);
    steplog_note(&r.log, "winagent: task: %s", cfg->prompt);
    steplog_note(&r.log,
                 "config: provider=%s model=%s base_url=%s key=%s mode=%s max_steps=%d "
                 "max_edge=%d history_images=%d shell=%s dry_run=%s stream=%s env=%s",
                 cfg->provider == LLM_PROVIDER_GOOGLE ? "google" : "openai-compatible", cfg->model,
                 cfg->base_url ? cfg->base_url : "(default)", cfg->api_key ? "set" : "none",
                 obs_mode_name(cfg->mode), cfg->max_steps, cfg->max_edge, cfg->history_images,
                 shell_policy_name(cfg->shell), cfg->dry_run ? "yes" : "no",
                 cfg->stream ? "yes" : "no", cfg->env_file ? cfg->env_file : "(none)");

    struct llm_config lc = {
        .provider = cfg->provider,
        .base_url = cfg->base_url,
        .model = cfg->model,
        .api_key = cfg->api_key,
        .stream = cfg->stream,
        .temperature = -1,
        /* the client reads 0 as "default" and a negative count as "no retries" */
        .max_retries = cfg->llm_retries < 0    ? 0
                       : cfg->llm_retries == 0 ? -1
                                               : cfg->llm_retries,
        .max_backoff_ms = cfg->llm_max_wait_ms,
        .timeout_s = cfg->llm_timeout_s,
        .log = log_llm_line,
        .ctx = &r.log,
    };
    int code;
    if ((e = llm_client_new(&lc, &r.llm))) {
        code = fail_run(&r, EXIT_USAGE, e, "cannot set up the LLM client", 0);
        goto out;
    }
    struct desktop_opts dopts;
    desktop_opts_default(&dopts);
    dopts.observe.mode = cfg->mode;
    dopts.observe.max_edge = cfg->max_edge;
    dopts.dry_run = cfg->dry_run;
    dopts.observe_after = true;
    dopts.annotate = true;
    desktop_session_init(&r.ds, r.be, &dopts);
    llm_conversation_init(&r.conv);
    llm_conversation_set_system(&r.conv, prompt_system);
    first_turn(&r);
    code = run_steps(&r);
    desktop_session_cleanup(&r.ds);
    llm_conversation_cleanup(&r.conv);
out:
    llm_client_free(r.llm);
    for (size_t i = 0; i < r.n_obs; i++)
        free(r.obs[i].trimmed);
    free(r.obs);
    free(r.last_sig);
    steplog_close(&r.log);
    return code;
}

int cmd_run(int argc, char **argv)
{
    struct agent_config cfg;
    wa_err e = config_load(argc, argv, &cfg);
    int code;
    if (e)
        code = cli_fail(e);
    else if (cfg.replay)
        code = replay_run(&cfg);
    else
        code = agent_run(&cfg);
    config_cleanup(&cfg);
    return code;
}
