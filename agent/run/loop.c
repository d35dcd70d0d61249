/* The agent loop: ask the model, run its tool calls through the one dispatcher,
 * answer with results and fresh observations, keep the history bounded, log it all.
 * The calls themselves, and the run's state, are loop_call.c. */
#include "agent/run/loop.h"

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
#include "agent/run/loop_call.h"
#include "agent/run/computer.h"
#include "agent/run/desk.h"
#include "agent/run/seen.h"
#include "agent/run/steplog.h"
#include "agent/run/tools.h"
#include "agent/report/trace.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"
#include "llm/models.h"
#include "llm/textcalls.h"

#define MAX_CALLS_PER_REPLY 16 /* more in one reply are answered with an error */

/* The run's token count so far plus a reply's, saturating: each reply's counts are
 * range-checked (provider_json_long), but many of them could add up past a 32-bit long. */
static long add_tokens(long sum, long more)
{
    return more > LONG_MAX - sum ? LONG_MAX : sum + more;
}

/* ---- history ---- */

/* Keeps the last history_images observations whole; older ones become one line, so
 * the request at step 50 is not much larger than at step 5. With --history append or
 * server nothing sent before changes (the service binds replayed thinking to it, or
 * clears older results itself). */
static void trim_history(struct run *r)
{
    if (r->history != HISTORY_TRIM && r->history != HISTORY_DROP_THINKING)
        return;
    size_t keep = (size_t)r->cfg->history_images;
    for (size_t i = 0; i + keep < r->n_obs; i++) {
        if (r->obs[i].done)
            continue;
        llm_message_replace_content(&r->conv.messages[r->obs[i].msg], r->obs[i].trimmed);
        r->obs[i].done = true;
    }
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
    return e == WA_E_INTERRUPTED ? exit_interrupted() : EXIT_LLM;
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
    wa_err e = loop_call_first_observation(r, &res);
    r->agent_ms += (double)(os_now_ms() - t0);
    struct llm_image img;
    bool has_img = false;
    cJSON *trace = cJSON_CreateObject();
    cJSON_AddNumberToObject(trace, TRACE_STEP, 0);
    cJSON_AddStringToObject(trace, TRACE_TASK, r->cfg->prompt);
    if (!e && res.obs.kind != OBS_NONE) {
        calltrace_observation(&r->log, 0, res.op, &res.obs, session_tree(r->ses), trace);
        steplog_progress(&r->log, "[step 0/%d] observe -> %s", r->cfg->max_steps, res.obs.verdict);
        loop_call_observation_for_model(r, &res.obs, &text, &img, &has_img);
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
        loop_call_remember_observation(r, trimmed);
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

/* What the rest of a turn of computer toolset actions is answered with after one failed,
 * word for word as the service wants it. */
#define TOOLSET_HALT "Not executed: an earlier computer action in this turn failed."

/* A call not run (interrupted, past the calls one reply may make, or its elements
 * renumbered) is still answered, with its error as the call's result (as_text: that
 * text itself instead of winagent's error object): every call must be before the next
 * request. */
static void refuse_call_as(struct run *r, const struct llm_tool_call *call, wa_err code,
                           const char *message, bool as_text, cJSON *trace)
{
    cJSON *err = wire_error(NULL, code, message);
    char *text = as_text ? NULL : cJSON_PrintUnformatted(err);
    const char *said = as_text ? message : text ? text : "{}";
    if (!llm_conversation_add_tool_result(&r->conv, call->id, call->name, said, NULL))
        llm_conversation_mark_failed(&r->conv);
    cJSON_AddStringToObject(trace, TRACE_NAME, call->name);
    if (call->parsed)
        cJSON_AddItemToObject(trace, TRACE_ARGUMENTS, cJSON_Duplicate(call->parsed, true));
    cJSON_AddItemToObject(trace, TRACE_RESULT, err);
    free(text);
}

static void refuse_call(struct run *r, const struct llm_tool_call *call, wa_err code,
                        const char *message, cJSON *trace)
{
    refuse_call_as(r, call, code, message, false, trace);
}

/* Whether a later call of the reply names an id that the calls before it renumbered:
 * the message then says which call changed what. */
static bool refs_moved(struct run *r, const struct seen_tree *seen, const struct llm_reply *reply,
                       size_t next, size_t ran, char *msg, size_t cap)
{
    for (size_t j = next; j < reply->n_calls && j < MAX_CALLS_PER_REPLY; j++) {
        struct op_request q;
        char why[256];
        bool moved =
            loop_call_request(r, &reply->calls[j], reply->calls[j].parsed, &q) == WA_E_OK &&
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
 * rest are skipped once a call renumbered the elements a later one names, and the rest
 * of a turn of computer toolset actions once one of them failed (answered as the
 * service wants: TOOLSET_HALT). True when every call ran and succeeded (none refused,
 * failed or skipped). */
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
    bool all_ok = true, halted = false;
    for (size_t i = 0; i < reply->n_calls; i++) {
        cJSON *ct = cJSON_CreateObject();
        cJSON_AddItemToArray(calls, ct);
        bool member = reply->calls[i].toolset != NULL;
        if (os_interrupted() || i >= MAX_CALLS_PER_REPLY || *skip || (halted && member))
            all_ok = false;
        if (halted && member) {
            refuse_call_as(r, &reply->calls[i], WA_E_CANCELLED, TOOLSET_HALT, true, ct);
            continue;
        }
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
        if (!loop_call_run(r, step, &reply->calls[i], i == 0 ? stats : "", ct)) {
            all_ok = false;
            halted = halted || member;
        }
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
    char *system = tools_system_prompt(&text, core_shell(r->core) != SHELL_DENIED);
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

/* Requests that grew past what the service takes (HTTP 413) while nothing older was
 * shortened: older observations are trimmed from now on, the service dropping the thinking
 * that no longer fits where it binds it to the history. False when they already were. */
static bool shorten_history(struct run *r)
{
    if (r->history != HISTORY_APPEND && r->history != HISTORY_SERVER)
        return false;
    llm_client_history_shortened(r->llm);
    r->history = model_family(r->cfg->model)->binding != MODEL_BIND_NONE &&
                         r->cfg->provider == LLM_PROVIDER_ANTHROPIC
                     ? HISTORY_DROP_THINKING
                     : HISTORY_TRIM;
    steplog_progress(&r->log,
                     "the requests grew past what the service takes: older observations are "
                     "trimmed from now on (--history %s)",
                     config_history_name(r->history));
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
    if (e && reply.http_status == 413 && shorten_history(r)) {
        llm_reply_cleanup(&reply);
        return run_step(r, step, tools, n_tools, nudged); /* the same step, shorter */
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
    const struct llm_tool *tools = tools_functions(with_shell, &n_tools);
    if (r->computer) { /* the display declared is the first screenshot's, for the whole run */
        r->computer_tool.display_width = r->view.width;
        r->computer_tool.display_height = r->view.height;
        tools = tools_computer(&r->computer_tool, with_shell, &n_tools);
    }
    bool nudged = false;
    struct budget_use use = {0};
    for (int step = 1; step <= r->cfg->max_steps; step++) {
        if (os_interrupted())
            return fail_run(r, exit_interrupted(), wa_fail(WA_E_INTERRUPTED, "between steps"),
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
            return fail_run(r, exit_interrupted(),
                            wa_fail(WA_E_INTERRUPTED, "after the tool calls"),
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
    r->can_confirm =
        !r->out && !settings_on(&cfg->settings, SET_UNATTENDED) &&
        (str_ieq(settings_get(&cfg->settings, SET_SHELL), "confirm") || os_stdin_is_console());
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
    bool attended = desk_attended(&cfg->settings, r->out != NULL);
    /* --unattended: nobody confirms (--shell confirm then declines) */
    if (!settings_on(&cfg->settings, SET_UNATTENDED))
        cc.confirm = loop_call_confirm_on_console;
    cc.watch_person = true; /* the stop gesture works from the start */
    if ((e = core_new(&cc, &r->core)))
        return e;
    struct session_opts so;
    session_opts_default(&so);
    so.front = "loop";
    so.model_names = true;
    so.observe.mode = r->computer ? OBS_PIXEL : cfg->mode; /* the computer tool sees pixels */
    so.observe.max_edge = cfg->max_edge;
    if (r->computer) { /* one display, within what the model takes as sent */
        so.one_display = true;
        computer_image_limits(llm_client_family(r->llm), cfg->max_edge_set ? cfg->max_edge : 0,
                              config_images_per_request(cfg), &so.observe.max_edge,
                              &so.observe.max_pixels, &so.observe.max_short_edge);
    }
    so.after = AFTER_OBSERVE;
    so.annotate = true;
    desk_session(&so, attended, &r->log);
    return session_new(r->core, &so, &r->ses);
}

int agent_run(const struct agent_config *cfg, struct run_outcome *out)
{
    struct run r;
    memset(&r, 0, sizeof r);
    r.cfg = cfg;
    r.proto = cfg->protocol;
    r.history = cfg->history;
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
                 "config: provider=%s model=%s (%s) tool_protocol=%s (%s) base_url=%s key=%s "
                 "mode=%s max_steps=%d max_edge=%d history_images=%d history=%s shell=%s "
                 "dry_run=%s stream=%s store=%s env=%s",
                 llm_provider_name(cfg->provider), cfg->model, model_family(cfg->model)->name,
                 llm_tool_protocol_name(cfg->protocol.protocol), cfg->protocol.why,
                 cfg->base_url ? cfg->base_url : "(default)", cfg->api_key ? "set" : "none",
                 obs_mode_name(cfg->mode), cfg->max_steps, cfg->max_edge, cfg->history_images,
                 config_history_name(cfg->history), shell, cfg->dry_run ? "yes" : "no",
                 cfg->stream ? "yes" : "no", cfg->store ? "yes" : "no",
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
        .max_tokens = cfg->max_output_tokens,
        .server_clears = cfg->history == HISTORY_SERVER,
        .server_keep = cfg->history_images,
        .drop_stale_thinking = cfg->history == HISTORY_DROP_THINKING,
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
    char *system = tools_system_prompt(&cfg->protocol, core_shell(r.core) != SHELL_DENIED);
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
    steplog_close(&r.log);
    return code;
}
