/* report.html of a run, from its trace lines. */
#include "agent/report/report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/report/html.h"
#include "agent/report/trace.h"
#include "base/dynbuf.h"
#include "base/os.h"
#include "base/str.h"

#define PAGE_MAX_BYTES  (128u << 20) /* the whole page; a step beyond it is left out */
#define STEP_MAX_BYTES  (16u << 20)  /* one step element */
#define TREE_MAX_BYTES  (4u << 20)   /* one tree observation read back from its file */
#define TRACE_MAX_BYTES (512u << 20) /* trace.jsonl read by a rebuild */

/* ---- reading trace lines ---- */

static const cJSON *field(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

static const char *str_field(const cJSON *o, const char *name)
{
    const cJSON *v = field(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_field(const cJSON *o, const char *name, double def)
{
    const cJSON *v = field(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static bool is_one_of(const char *name, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(name, *names) == 0)
            return true;
    return false;
}

/* A tool call that failed, could not be read, or was not run. */
static bool call_failed(const cJSON *call)
{
    const cJSON *res = field(call, TRACE_RESULT);
    return !str_field(call, TRACE_NAME) || field(call, TRACE_ARGUMENTS_RAW) ||
           cJSON_IsFalse(field(res, "success")) || cJSON_IsFalse(field(res, "ok")) ||
           field(res, TRACE_ERROR);
}

static bool step_failed(const cJSON *line)
{
    const cJSON *call;
    cJSON_ArrayForEach(call, field(line, TRACE_TOOL_CALLS))
    {
        if (call_failed(call))
            return true;
    }
    return field(line, TRACE_ERROR) != NULL;
}

/* "click" for a desktop call, the tool's name otherwise. */
static const char *call_label(const cJSON *call)
{
    const char *action = str_field(field(call, TRACE_ARGUMENTS), "action");
    const char *name = str_field(call, TRACE_NAME);
    if (name && strcmp(name, "desktop") == 0 && action)
        return action;
    return name ? name : "(not run)";
}

/* Any JSON value, generically: short text inline, long text and structures in <pre>. */
/* Whether v is a list of lines (the changes an action made): every item a string. */
static bool is_lines(const cJSON *v)
{
    if (!cJSON_IsArray(v) || !v->child)
        return false;
    const cJSON *item;
    cJSON_ArrayForEach(item, v)
    {
        if (!cJSON_IsString(item))
            return false;
    }
    return true;
}

static void put_value(struct html *h, const cJSON *v)
{
    if (is_lines(v)) { /* as text, one a line: no JSON quoting of what they quote */
        html_put(h, "<pre class=\"value lines\">");
        const cJSON *item;
        cJSON_ArrayForEach(item, v)
        {
            html_text(h, item->valuestring);
            html_put(h, "\n");
        }
        html_put(h, "</pre>");
    } else if (cJSON_IsString(v)) {
        bool block = strchr(v->valuestring, '\n') || strlen(v->valuestring) > 100;
        html_put(h, block ? "<pre class=\"value\">" : "<span class=\"value\">");
        html_text(h, v->valuestring);
        html_put(h, block ? "</pre>" : "</span>");
    } else if (cJSON_IsNumber(v)) {
        html_putf(h, "<span class=\"value\">%.15g</span>", v->valuedouble);
    } else if (cJSON_IsBool(v) || cJSON_IsNull(v)) {
        html_putf(h, "<span class=\"value\">%s</span>",
                  cJSON_IsNull(v)   ? "null"
                  : cJSON_IsTrue(v) ? "true"
                                    : "false");
    } else {
        /* Short structures on one line; longer ones indented, "key": value. */
        char *s = cJSON_PrintUnformatted(v);
        if (s && strlen(s) > 72) {
            free(s);
            s = cJSON_Print(v);
            for (char *t = s; t && (t = strstr(t, ":\t")) != NULL; t++)
                t[1] = ' ';
        }
        html_put(h, "<pre class=\"value json\">");
        html_text(h, s ? s : "");
        html_put(h, "</pre>");
        free(s);
    }
}

/* The members of o not named in known, as a definition list. */
static void put_other_fields(struct html *h, const cJSON *o, const char *const *known,
                             const char *cls)
{
    bool any = false;
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        if (!v->string || is_one_of(v->string, known))
            continue;
        if (!any)
            html_putf(h, "<dl class=\"%s\">", cls);
        any = true;
        html_put(h, "<dt>");
        html_text(h, v->string);
        html_put(h, "</dt><dd>");
        put_value(h, v);
        html_put(h, "</dd>");
    }
    if (any)
        html_put(h, "</dl>\n");
}

/* ---- one step element ---- */

struct report {
    char *dir;
    char *secret;
    char *task;          /* from step 0 */
    char *final_answer;  /* from the step that gave it */
    cJSON *summary;      /* the summary object, once its line came */
    struct dynbuf steps; /* the step elements so far */
    struct dynbuf nav;   /* their entries in the list of steps */
    int n_steps;
    int n_failed;     /* steps with an error */
    int n_unreadable; /* trace lines a rebuild could not parse */
    int n_left_out;   /* steps that did not fit */
    double max_ms;    /* the longest phase so far: the scale of every timing bar */
    /* A step under way: its calls done so far (TRACE_CALL_DONE lines), shown after the
     * steps until the step's own line comes; a run killed mid-step keeps it. */
    cJSON *unfinished;
};

/* Timings per phase: the model's, then the tool calls' phases summed over the calls,
 * in the order they first appear, then other per-step "<phase>_ms" timings. */
#define MAX_PHASES 16
struct phases {
    char name[MAX_PHASES][32];
    double ms[MAX_PHASES];
    int n;
};

static void phase_add(struct phases *p, const char *name, double ms)
{
    int i = 0;
    while (i < p->n && strcmp(p->name[i], name) != 0)
        i++;
    if (i == p->n) {
        if (p->n == MAX_PHASES)
            return;
        snprintf(p->name[i], sizeof p->name[i], "%s", name);
        p->ms[i] = 0;
        p->n++;
    }
    p->ms[i] += ms;
}

static void collect_phases(const cJSON *line, struct phases *p)
{
    static const char *const totals[] = {TRACE_LLM_MS, TRACE_AGENT_MS, TRACE_TOOLS_MS,
                                         TRACE_TOTAL_MS, NULL};
    const cJSON *timings = field(line, TRACE_TIMINGS), *call, *v;
    p->n = 0;
    if (cJSON_IsNumber(field(timings, TRACE_LLM_MS)))
        phase_add(p, "llm", field(timings, TRACE_LLM_MS)->valuedouble);
    cJSON_ArrayForEach(call, field(line, TRACE_TOOL_CALLS))
    {
        cJSON_ArrayForEach(v, field(call, TRACE_CALL_MS))
        {
            if (cJSON_IsNumber(v) && v->string)
                phase_add(p, v->string, v->valuedouble);
        }
    }
    cJSON_ArrayForEach(v, timings)
    {
        size_t n = v->string ? strlen(v->string) : 0;
        if (cJSON_IsNumber(v) && n > 3 && strcmp(v->string + n - 3, "_ms") == 0 &&
            !is_one_of(v->string, totals)) {
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)(n - 3), v->string);
            phase_add(p, name, v->valuedouble);
        }
    }
}

/* The phase as a CSS class: letters, digits and '_' only. */
static void put_phase_class(struct html *h, const char *name)
{
    html_put(h, "phase-");
    for (const char *c = name; *c; c++)
        html_putf(h, "%c", (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ? *c : '_');
}

static void put_timings(struct report *r, struct html *h, const cJSON *line)
{
    struct phases p;
    collect_phases(line, &p);
    if (!p.n)
        return;
    html_put(h, "<div class=\"timings\">");
    for (int i = 0; i < p.n; i++) {
        if (p.ms[i] > r->max_ms)
            r->max_ms = p.ms[i];
        html_put(h, "<div class=\"phase ");
        put_phase_class(h, p.name[i]);
        html_put(h, "\"><span class=\"name\">");
        html_text(h, p.name[i]);
        html_putf(
            h,
            "</span><span class=\"track\"><span class=\"bar\" style=\"--ms:%.0f\"></span></span>"
            "<span class=\"ms\">",
            p.ms[i] < 0 ? 0 : p.ms[i]);
        html_ms(h, p.ms[i]);
        html_put(h, "</span></div>");
    }
    html_put(h, "</div>\n");
}

static void put_image(struct html *h, const char *file, const cJSON *w, const cJSON *ht,
                      const char *alt)
{
    html_put(h, "<a href=\"");
    html_url(h, file);
    html_put(h, "\"><img src=\"");
    html_url(h, file);
    html_putf(h, "\" alt=\"%s\"", alt);
    if (cJSON_IsNumber(w) && cJSON_IsNumber(ht))
        html_putf(h, " width=\"%d\" height=\"%d\"", w->valueint, ht->valueint);
    html_put(h, "></a>");
}

/* The observation exactly as it was sent: the image, or the tree text from its file. */
static void put_observation(struct report *r, struct html *h, const cJSON *obs)
{
    static const char *const known[] = {TRACE_OBS_KIND,
                                        TRACE_OBS_FILE,
                                        TRACE_OBS_VERDICT,
                                        TRACE_OBS_FRAME,
                                        TRACE_OBS_WIDTH,
                                        TRACE_OBS_HEIGHT,
                                        NULL};
    const char *kind = str_field(obs, TRACE_OBS_KIND);
    const char *file = str_field(obs, TRACE_OBS_FILE);
    const char *verdict = str_field(obs, TRACE_OBS_VERDICT);
    bool tree = kind && strcmp(kind, "tree") == 0;
    html_putf(h, "<figure class=\"observation %s\"><figcaption>Observation sent: <b>",
              tree ? "tree" : "image");
    html_text(h, kind ? kind : "?");
    html_put(h, "</b>");
    const cJSON *frame = field(obs, TRACE_OBS_FRAME);
    if (cJSON_GetArraySize(frame) == 4) {
        int f[4];
        for (int i = 0; i < 4; i++)
            f[i] = cJSON_GetArrayItem(frame, i)->valueint;
        html_putf(h, " of the frame [%d,%d][%d,%d]", f[0], f[1], f[2], f[3]);
    }
    if (cJSON_IsNumber(field(obs, TRACE_OBS_WIDTH)) && cJSON_IsNumber(field(obs, TRACE_OBS_HEIGHT)))
        html_putf(h, ", %dx%d", field(obs, TRACE_OBS_WIDTH)->valueint,
                  field(obs, TRACE_OBS_HEIGHT)->valueint);
    if (verdict) {
        bool rejected = strstr(verdict, "rejected") || strstr(verdict, "fell back");
        html_putf(h, "<br><span class=\"verdict %s\">", rejected ? "rejected" : "accepted");
        html_text(h, verdict);
        html_put(h, "</span>");
    }
    html_put(h, "</figcaption>");
    if (!html_is_local_name(file)) {
        html_put(h, "<p class=\"missing\">no file recorded for this observation</p>");
    } else if (tree) {
        char path[4200], *text = NULL;
        snprintf(path, sizeof path, "%s/%s", r->dir, file);
        if (os_read_file(path, TREE_MAX_BYTES, &text, NULL) == WA_E_OK) {
            html_put(h, "<pre class=\"tree\">");
            html_text(h, text);
            html_put(h, "</pre>");
        } else {
            html_put(h, "<p class=\"missing\">cannot read ");
            html_text(h, file);
            html_put(h, "</p>");
        }
        free(text);
        html_put(h, "<a class=\"file\" href=\"");
        html_url(h, file);
        html_put(h, "\">");
        html_text(h, file);
        html_put(h, "</a>");
    } else {
        put_image(h, file, field(obs, TRACE_OBS_WIDTH), field(obs, TRACE_OBS_HEIGHT),
                  "the image sent");
    }
    put_other_fields(h, obs, known, "more");
    html_put(h, "</figure>\n");
}

static void put_result(struct html *h, const cJSON *res)
{
    static const char *const known[] = {"success", "ok", TRACE_ERROR, NULL};
    const cJSON *err = field(res, TRACE_ERROR);
    bool failed = cJSON_IsFalse(field(res, "success")) || cJSON_IsFalse(field(res, "ok")) || err;
    html_putf(h, "<div class=\"result %s\">", failed ? "failed" : "ok");
    if (!res) {
        html_put(h, "<span class=\"status\">no result recorded</span>");
    } else if (failed) {
        html_put(h, "<span class=\"status\">error</span> ");
        const char *code = str_field(err, "code"), *msg = str_field(err, "message");
        if (code || msg) {
            html_put(h, "<span class=\"error-text\"><b>");
            html_text(h, code ? code : "");
            html_put(h, code && msg ? ":</b> " : "</b>");
            html_text(h, msg ? msg : "");
            html_put(h, "</span>");
        } else if (err) {
            put_value(h, err);
        }
    } else {
        html_put(h, "<span class=\"status\">ok</span>");
    }
    put_other_fields(h, res, known, "fields");
    html_put(h, "</div>\n");
}

static void put_call(struct report *r, struct html *h, const cJSON *call)
{
    static const char *const known[] = {
        TRACE_ID,          TRACE_NAME,     TRACE_ARGUMENTS, TRACE_ARGUMENTS_RAW, TRACE_ELEMENT_REF,
        TRACE_OBSERVATION, TRACE_ANNOTATE, TRACE_RESULT,    TRACE_CALL_MS,       NULL};
    const char *name = str_field(call, TRACE_NAME);
    html_putf(h, "<div class=\"call%s\"><h4>", call_failed(call) ? " failed" : "");
    html_text(h, name ? name : "call not run (interrupted)");
    if (name && strcmp(call_label(call), name) != 0) {
        html_put(h, " &middot; ");
        html_text(h, call_label(call));
    }
    const char *id = str_field(call, TRACE_ID);
    if (id) {
        html_put(h, " <span class=\"call-id\">");
        html_text(h, id);
        html_put(h, "</span>");
    }
    html_put(h, "</h4>");
    const cJSON *args = field(call, TRACE_ARGUMENTS);
    const char *raw = str_field(call, TRACE_ARGUMENTS_RAW);
    if (args) {
        html_put(h, "<div class=\"arguments\">");
        put_value(h, args);
        html_put(h, "</div>");
    } else if (raw) {
        html_put(h,
                 "<div class=\"arguments failed\"><span class=\"status\">arguments are not valid "
                 "JSON</span><pre class=\"value\">");
        html_text(h, raw);
        html_put(h, "</pre></div>");
    }
    const cJSON *ref = field(call, TRACE_ELEMENT_REF);
    if (str_field(ref, "type")) {
        html_put(h, "<p class=\"element-ref\">element: ");
        html_text(h, str_field(ref, "type"));
        html_put(h, " &ldquo;");
        html_text(h, str_field(ref, TRACE_NAME) ? str_field(ref, TRACE_NAME) : "");
        html_put(h, "&rdquo;</p>");
    }
    if (name)
        put_result(h, field(call, TRACE_RESULT));
    put_other_fields(h, call, known, "more");

    const cJSON *obs = field(call, TRACE_OBSERVATION);
    const char *annotate = str_field(call, TRACE_ANNOTATE);
    if (obs || annotate) {
        html_put(h, "<div class=\"pictures\">");
        if (obs)
            put_observation(r, h, obs);
        if (html_is_local_name(annotate)) {
            html_put(h, "<figure class=\"annotate\"><figcaption>Where it acted (annotated, not "
                        "sent)</figcaption>");
            put_image(h, annotate, NULL, NULL, "the target of the action, marked");
            html_put(h, "</figure>");
        }
        html_put(h, "</div>\n");
    }
    html_put(h, "</div>\n");
}

static void put_prose(struct html *h, const char *cls, const char *title, const char *text,
                      const char *id)
{
    html_putf(h, "<div class=\"%s\"%s%s%s><h3>%s</h3><pre class=\"prose\">", cls,
              id ? " id=\"" : "", id ? id : "", id ? "\"" : "", title);
    html_text(h, text);
    html_put(h, "</pre></div>\n");
}

/* The element's id: "step-N", or "line-N" (N its place) for a line without a step. */
static void step_id(const cJSON *line, int ordinal, char *out, size_t cap)
{
    const cJSON *num = field(line, TRACE_STEP);
    if (cJSON_IsNumber(num))
        snprintf(out, cap, "step-%d", num->valueint);
    else
        snprintf(out, cap, "line-%d", ordinal);
}

/* The step's heading: its number, what it did (its calls, the answer), failure. */
static void step_heading(struct html *h, const cJSON *line, int ordinal)
{
    const cJSON *num = field(line, TRACE_STEP);
    char id[32];
    step_id(line, ordinal, id, sizeof id);
    bool failed = step_failed(line);
    html_putf(h, "<section class=\"step%s\" id=\"%s\" tabindex=\"-1\">\n<h2><a href=\"#%s\">",
              failed ? " failed" : "", id, id);
    if (cJSON_IsNumber(num))
        html_putf(h, "Step %d", num->valueint);
    else
        html_put(h, "Trace line");
    html_put(h, "</a>");
    const cJSON *calls = field(line, TRACE_TOOL_CALLS), *call;
    if (str_field(line, TRACE_TASK))
        html_put(h, " <span class=\"what\">the task and the first observation</span>");
    else if (str_field(line, TRACE_FINAL_ANSWER))
        html_put(h, " <span class=\"what\">final answer</span>");
    else if (cJSON_GetArraySize(calls) > 0) {
        html_put(h, " <span class=\"what\">");
        bool first = true;
        cJSON_ArrayForEach(call, calls)
        {
            html_put(h, first ? "" : ", ");
            html_text(h, call_label(call));
            first = false;
        }
        html_put(h, "</span>");
    } else if (field(line, TRACE_USAGE))
        html_put(h, " <span class=\"what\">no call, no answer</span>");
    if (failed)
        html_put(h, " <span class=\"badge\">error</span>");
    html_put(h, "</h2>\n");
}

/* One line of numbers: tokens, the tools' time, the finish reason, attempts. */
static void step_numbers(struct html *h, const cJSON *line)
{
    const cJSON *usage = field(line, TRACE_USAGE), *timings = field(line, TRACE_TIMINGS);
    html_put(h, "<p class=\"numbers\">");
    if (usage) {
        html_put(h, "<span class=\"tokens\">");
        html_count(h, num_field(usage, TRACE_TOTAL_TOKENS, 0));
        html_put(h, " tokens (");
        html_count(h, num_field(usage, TRACE_PROMPT_TOKENS, 0));
        html_put(h, " prompt, ");
        html_count(h, num_field(usage, TRACE_COMPLETION_TOKENS, 0));
        html_put(h, " completion)</span>");
    }
    if (cJSON_IsNumber(field(timings, TRACE_TOOLS_MS))) {
        html_put(h, " &middot; tools ");
        html_ms(h, field(timings, TRACE_TOOLS_MS)->valuedouble);
    }
    const char *finish = str_field(line, TRACE_FINISH_REASON);
    if (finish && *finish) {
        html_put(h, " &middot; finish: ");
        html_text(h, finish);
    }
    double attempts = num_field(line, TRACE_ATTEMPTS, 1);
    if (attempts > 1)
        html_putf(h, " &middot; <span class=\"attempts\">%.0f attempts</span>", attempts);
    html_put(h, "</p>\n");
}

static void render_step(struct report *r, struct html *h, const cJSON *line, int ordinal)
{
    static const char *const known[] = {TRACE_STEP,       TRACE_TASK,         TRACE_OBSERVATION,
                                        TRACE_MODEL_TEXT, TRACE_REASONING,    TRACE_FINISH_REASON,
                                        TRACE_USAGE,      TRACE_ATTEMPTS,     TRACE_TOOL_CALLS,
                                        TRACE_TIMINGS,    TRACE_FINAL_ANSWER, NULL};
    step_heading(h, line, ordinal);
    step_numbers(h, line);
    put_timings(r, h, line);
    if (str_field(line, TRACE_TASK))
        put_prose(h, TRACE_TASK, "Task", str_field(line, TRACE_TASK), NULL);
    if (str_field(line, TRACE_REASONING)) {
        html_put(h,
                 "<details class=\"reasoning\"><summary>Reasoning</summary><pre class=\"prose\">");
        html_text(h, str_field(line, TRACE_REASONING));
        html_put(h, "</pre></details>\n");
    }
    const char *said = str_field(line, TRACE_MODEL_TEXT);
    const char *answer = str_field(line, TRACE_FINAL_ANSWER);
    /* the model's text is shown unless it is the answer alone (the loop drops the
     * answer's leading blank); text before calls that an answer followed is kept */
    const char *bare = said;
    while (bare && (*bare == ' ' || *bare == '\n'))
        bare++;
    if (said && !(answer && strcmp(bare, answer) == 0))
        put_prose(h, "model-text", "Model", said, NULL);
    if (answer)
        put_prose(h, "answer", "Final answer", answer, NULL);
    if (field(line, TRACE_OBSERVATION)) {
        html_put(h, "<div class=\"pictures\">");
        put_observation(r, h, field(line, TRACE_OBSERVATION));
        html_put(h, "</div>\n");
    }
    const cJSON *call;
    cJSON_ArrayForEach(call, field(line, TRACE_TOOL_CALLS))
    {
        put_call(r, h, call);
    }
    put_other_fields(h, line, known, "more");
    html_put(h, "</section>\n");
}

static void render_nav(struct html *h, const cJSON *line, int ordinal)
{
    const cJSON *num = field(line, TRACE_STEP);
    char id[32];
    step_id(line, ordinal, id, sizeof id);
    html_putf(h, "<li%s><a href=\"#%s\">", step_failed(line) ? " class=\"failed\"" : "", id);
    if (cJSON_IsNumber(num))
        html_putf(h, "%d ", num->valueint);
    const cJSON *calls = field(line, TRACE_TOOL_CALLS);
    if (str_field(line, TRACE_TASK))
        html_put(h, TRACE_TASK);
    else if (str_field(line, TRACE_FINAL_ANSWER))
        html_put(h, "answer");
    else if (cJSON_GetArraySize(calls) > 0)
        html_text(h, call_label(cJSON_GetArrayItem(calls, 0)));
    if (cJSON_GetArraySize(calls) > 1)
        html_putf(h, " +%d", cJSON_GetArraySize(calls) - 1);
    html_put(h, "</a></li>\n");
}

/* ---- the page ---- */

static const char report_style[] =
    ".keys kbd{border:1px solid var(--line);border-radius:3px;padding:0 4px;background:#fff}\n"
    ".layout{display:flex;align-items:flex-start}\n"
    "nav{position:sticky;top:0;max-height:100vh;overflow:auto;width:190px;flex:none;"
    "padding:10px 8px;font-size:13px}\n"
    "nav ol{list-style:none;margin:0;padding:0}\n"
    "nav a{display:block;padding:2px 6px;border-radius:3px;color:var(--fg);text-decoration:none;"
    "white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\n"
    "nav a:hover{background:#e9ecef}nav li.failed a{color:var(--err);font-weight:600}\n"
    "main{flex:1;min-width:0;padding:10px 20px 40px 8px}\n"
    ".step,.summary{background:#fff;border:1px solid var(--line);border-left:5px solid "
    "var(--line);border-radius:4px;margin:0 0 14px;padding:10px 14px}\n"
    ".step:focus{outline:none}.step.current{box-shadow:0 0 0 2px #4c6ef5}\n"
    ".step.failed{border-left-color:var(--err);background:var(--errbg)}\n"
    ".step h2{margin:0 0 4px;font-size:16px}.step h2 a{color:inherit;text-decoration:none}\n"
    ".what{font-weight:400;color:var(--muted)}\n"
    ".badge{background:var(--err);color:#fff;border-radius:3px;padding:0 6px;font-size:12px;"
    "vertical-align:2px}\n"
    ".numbers{margin:0 0 6px;color:var(--muted)}\n"
    "h3,h4{margin:8px 0 4px;font-size:13px}\n"
    "pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.4 ui-monospace,"
    "Consolas,monospace;tab-size:2}\n"
    "pre.prose{font:14px/1.45 system-ui,sans-serif}\n"
    ".task pre,.answer pre{font-size:15px}.answer{border-left:3px solid var(--ok);"
    "padding-left:8px}\n"
    ".call{border-top:1px dashed var(--line);margin-top:8px;padding-top:4px}\n"
    ".call-id{color:var(--muted);font-weight:400}\n"
    ".arguments pre,pre.value{background:#f1f3f5;padding:4px 6px;border-radius:3px}\n"
    ".result{margin:4px 0;padding:4px 6px;border-radius:3px;background:#ebfbee}\n"
    ".result .status{font-weight:700;color:var(--ok)}\n"
    ".result.failed,.arguments.failed{background:#ffe3e3;border:1px solid var(--err)}\n"
    ".result.failed .status,.arguments.failed .status,.error-text{color:var(--err);"
    "font-weight:700}\n"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:4px 0}\n"
    "dt{color:var(--muted)}dd{margin:0;min-width:0}\n"
    ".pictures{display:flex;flex-wrap:wrap;gap:12px;margin-top:6px}\n"
    "figure{margin:0;max-width:100%}\n"
    "figcaption{color:var(--muted);font-size:12px;margin-bottom:3px}\n"
    "figure img{max-width:min(640px,100%);height:auto;border:1px solid var(--line);"
    "display:block}\n"
    "pre.tree{max-height:420px;overflow:auto;background:#f8f9fa;border:1px solid var(--line);"
    "padding:4px 6px;white-space:pre;max-width:900px}\n"
    ".verdict.accepted{color:var(--ok)}.verdict.rejected{color:#e67700}\n"
    ".missing{color:var(--err)}a.file{font-size:12px}\n"
    ".timings{display:grid;grid-template-columns:max-content minmax(120px,360px) max-content;"
    "gap:1px 8px;align-items:center;font-size:12px;margin:2px 0 6px}\n"
    ".phase{display:contents}.phase .name{color:var(--muted)}\n"
    ".track{height:9px;background:#f1f3f5;border-radius:2px}\n"
    ".bar{display:block;height:100%;min-width:1px;border-radius:2px;background:#868e96;"
    "width:calc(100% * var(--ms) / var(--max,1))}\n"
    ".phase-llm .bar{background:#7048e8}.phase-action .bar{background:#e8590c}"
    ".phase-capture .bar{background:#1c7ed6}.phase-encode .bar{background:#0ca678}"
    ".phase-tree .bar{background:#f59f00}.phase-settle .bar{background:#d6336c}\n"
    ".summary.ok{border-left-color:var(--ok)}\n"
    ".summary.failed{border-left-color:var(--err);background:var(--errbg)}\n"
    ".summary.pending{border-left-color:#f59f00}\n"
    ".summary h2{margin:0 0 6px;font-size:17px}\n"
    ".summary .reason{color:var(--err);font-weight:600}\n"
    "table.totals{border-collapse:collapse;margin-top:6px}\n"
    ".totals th{text-align:left;font-weight:400;color:var(--muted);padding:1px 14px 1px 0}\n"
    ".totals td{text-align:right;font-variant-numeric:tabular-nums}\n";

/* Keyboard: j/k or the arrow keys step through the steps, e jumps to the next error,
 * g/G to the first/last step. */
static const char page_script[] =
    "(function(){\n"
    "var steps=Array.prototype.slice.call(document.querySelectorAll('section.step'));\n"
    "var cur=-1;\n"
    "function go(i){if(!steps.length)return;i=Math.max(0,Math.min(steps.length-1,i));\n"
    "if(cur>=0)steps[cur].classList.remove('current');cur=i;var s=steps[i];\n"
    "s.classList.add('current');s.focus({preventScroll:true});s.scrollIntoView({block:'start'});}\n"
    "function nextError(){for(var k=1;k<=steps.length;k++){var i=(cur+k)%steps.length;\n"
    "if(steps[i].classList.contains('failed')){go(i);return;}}}\n"
    "document.addEventListener('keydown',function(e){\n"
    "if(e.ctrlKey||e.metaKey||e.altKey)return;var k=e.key;\n"
    "if(k==='j'||k==='ArrowRight'||k==='ArrowDown'&&e.shiftKey)go(cur+1);\n"
    "else if(k==='k'||k==='ArrowLeft'||k==='ArrowUp'&&e.shiftKey)go(cur-1);\n"
    "else if(k==='g'||k==='Home')go(0);\n"
    "else if(k==='G'||k==='End')go(steps.length-1);\n"
    "else if(k==='e')nextError();\n"
    "else return;e.preventDefault();});\n"
    "steps.forEach(function(s,i){s.addEventListener('click',function(){\n"
    "if(cur>=0)steps[cur].classList.remove('current');cur=i;s.classList.add('current');});});\n"
    "})();\n";

/* "20261123-225137-slug" -> "2026-11-23 22:51:37"; false when the name has no time. */
bool report_run_time(const char *folder, char *out, size_t cap)
{
    int y, mo, d, hh, mm, ss;
    char dash;
    if (sscanf(folder, "%4d%2d%2d%c%2d%2d%2d", &y, &mo, &d, &dash, &hh, &mm, &ss) != 7 ||
        dash != '-')
        return false;
    snprintf(out, cap, "%04d-%02d-%02d %02d:%02d:%02d", y, mo, d, hh, mm, ss);
    return true;
}

/* The outcome in a word, and whether it is a failure. */
const char *report_outcome(const cJSON *summary, bool *failed)
{
    double code = num_field(summary, TRACE_EXIT_CODE, -1);
    const char *word = str_field(summary, TRACE_OUTCOME);
    *failed = code != 0;
    if (!summary) {
        *failed = false;
        return "no summary";
    }
    return word ? word : code == 0 ? "finished" : "failed";
}

static void put_summary(struct report *r, struct html *h)
{
    static const char *const known[] = {TRACE_STEPS,
                                        TRACE_EXIT_CODE,
                                        TRACE_OUTCOME,
                                        TRACE_ERROR,
                                        TRACE_PROMPT_TOKENS,
                                        TRACE_COMPLETION_TOKENS,
                                        TRACE_TOTAL_TOKENS,
                                        TRACE_LLM_MS,
                                        TRACE_AGENT_MS,
                                        TRACE_TOTAL_MS,
                                        NULL};
    const cJSON *s = r->summary;
    bool failed;
    const char *outcome = report_outcome(s, &failed);
    if (!s) {
        html_putf(h,
                  "<section id=\"summary\" class=\"summary pending\" data-exit-code=\"\">"
                  "<h2>No summary yet</h2><p>The run is still going, or it stopped before "
                  "writing its last line (killed or crashed). Steps so far: %d.</p>",
                  r->n_steps);
    } else {
        html_putf(h, "<section id=\"summary\" class=\"summary %s\" data-exit-code=\"%.0f\"><h2>",
                  failed ? "failed" : "ok", num_field(s, TRACE_EXIT_CODE, -1));
        html_text(h, outcome);
        html_putf(h, " &middot; exit code %.0f</h2>", num_field(s, TRACE_EXIT_CODE, -1));
        if (str_field(s, TRACE_ERROR)) {
            html_put(h, "<p class=\"reason\">");
            html_text(h, str_field(s, TRACE_ERROR));
            html_put(h, "</p>");
        }
    }
    if (r->final_answer)
        put_prose(h, "answer", "Final answer", r->final_answer, "final-answer");
    if (s) {
        html_put(h, "<table class=\"totals\">");
        html_putf(h, "<tr><th>steps</th><td>%.0f</td></tr>", num_field(s, TRACE_STEPS, r->n_steps));
        static const char *const times[][2] = {{TRACE_TOTAL_MS, "total time"},
                                               {TRACE_LLM_MS, "model time"},
                                               {TRACE_AGENT_MS, "agent time"}};
        for (size_t i = 0; i < 3; i++)
            if (cJSON_IsNumber(field(s, times[i][0]))) {
                html_putf(h, "<tr><th>%s</th><td>", times[i][1]);
                html_ms(h, field(s, times[i][0])->valuedouble);
                html_put(h, "</td></tr>");
            }
        static const char *const tokens[][2] = {{TRACE_TOTAL_TOKENS, "tokens"},
                                                {TRACE_PROMPT_TOKENS, "prompt tokens"},
                                                {TRACE_COMPLETION_TOKENS, "completion tokens"}};
        for (size_t i = 0; i < 3; i++)
            if (cJSON_IsNumber(field(s, tokens[i][0]))) {
                html_putf(h, "<tr><th>%s</th><td>", tokens[i][1]);
                html_count(h, field(s, tokens[i][0])->valuedouble);
                html_put(h, "</td></tr>");
            }
        html_put(h, "</table>\n");
        put_other_fields(h, s, known, "more");
    }
    if (r->n_unreadable)
        html_putf(h, "<p class=\"reason\">%d line%s of trace.jsonl could not be read.</p>",
                  r->n_unreadable, r->n_unreadable == 1 ? "" : "s");
    if (r->n_left_out)
        html_putf(h, "<p class=\"reason\">%d step%s too large for this page left out.</p>",
                  r->n_left_out, r->n_left_out == 1 ? "" : "s");
    html_put(h, "</section>\n");
}

static wa_err write_page(struct report *r)
{
    struct html h;
    html_init(&h, PAGE_MAX_BYTES + (16u << 20), r->secret);
    const char *folder = str_path_base(r->dir);
    html_head(&h, r->task ? r->task : folder, report_style);
    html_put(&h, "<body>\n<header><h1>");
    html_text(&h, r->task ? r->task : "winagent run");
    html_put(&h, "</h1><p class=\"meta\">");
    char when[32];
    if (report_run_time(folder, when, sizeof when))
        html_putf(&h, "started %s &middot; ", when);
    html_text(&h, folder);
    bool failed;
    const char *outcome = report_outcome(r->summary, &failed);
    html_putf(&h, " &middot; <span class=\"outcome%s\">", failed ? " failed" : "");
    html_text(&h, r->summary ? outcome : "running or stopped early");
    html_put(&h, "</span>");
    html_putf(&h, " &middot; %d step%s", r->n_steps, r->n_steps == 1 ? "" : "s");
    if (r->n_failed)
        html_putf(&h, " &middot; %d with errors", r->n_failed);
    if (cJSON_IsNumber(field(r->summary, TRACE_TOTAL_TOKENS))) {
        html_put(&h, " &middot; ");
        html_count(&h, num_field(r->summary, TRACE_TOTAL_TOKENS, 0));
        html_put(&h, " tokens");
    }
    if (cJSON_IsNumber(field(r->summary, TRACE_TOTAL_MS))) {
        html_put(&h, " &middot; ");
        html_ms(&h, num_field(r->summary, TRACE_TOTAL_MS, 0));
    }
    html_put(&h, "</p><p class=\"keys\">Keys: <kbd>j</kbd>/<kbd>k</kbd> or <kbd>&rarr;</kbd>/"
                 "<kbd>&larr;</kbd> next/previous step, <kbd>e</kbd> next error, <kbd>g</kbd>/"
                 "<kbd>G</kbd> first/last</p></header>\n<div class=\"layout\">\n<nav><ol>\n");
    html_put(&h, dynbuf_str(&r->nav));
    html_put(&h, "<li><a href=\"#summary\">end</a></li>\n</ol></nav>\n");
    html_putf(&h, "<main id=\"steps\" style=\"--max:%.0f\">\n",
              r->max_ms > 1 ? ceil(r->max_ms) : 1);
    html_put(&h, dynbuf_str(&r->steps));
    if (r->unfinished)
        render_step(r, &h, r->unfinished, r->n_steps);
    put_summary(r, &h);
    html_put(&h, "</main>\n</div>\n<script>\n");
    html_put(&h, page_script);
    html_put(&h, "</script>\n</body>\n</html>\n");
    wa_err e = WA_E_OK;
    if (h.full)
        e = wa_fail(WA_E_TOO_LARGE, "the report of %s does not fit in memory", r->dir);
    else {
        char path[4200];
        snprintf(path, sizeof path, "%s/report.html", r->dir);
        e = os_write_file(path, h.b.data, h.b.len);
    }
    html_cleanup(&h);
    return e;
}

/* ---- the report of one run ---- */

static struct report *report_new(const char *dir, const char *secret)
{
    struct report *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->dir = str_dup(dir);
    r->secret = secret && *secret ? str_dup(secret) : NULL;
    dynbuf_init(&r->steps, PAGE_MAX_BYTES);
    dynbuf_init(&r->nav, 4u << 20);
    if (!r->dir || (secret && *secret && !r->secret)) {
        report_free(r);
        return NULL;
    }
    return r;
}

void report_free(struct report *r)
{
    if (!r)
        return;
    free(r->dir);
    if (r->secret)
        memset(r->secret, 0, strlen(r->secret));
    free(r->secret);
    free(r->task);
    free(r->final_answer);
    cJSON_Delete(r->summary);
    cJSON_Delete(r->unfinished);
    dynbuf_cleanup(&r->steps);
    dynbuf_cleanup(&r->nav);
    free(r);
}

/* Takes one trace line into the report without writing the page. */
/* A call done in a step whose line has not come yet. */
static void take_call_done(struct report *r, const cJSON *line, const cJSON *call)
{
    const cJSON *num = field(line, TRACE_STEP);
    int step = cJSON_IsNumber(num) ? num->valueint : -1;
    const cJSON *had = field(r->unfinished, TRACE_STEP);
    if (!r->unfinished || !cJSON_IsNumber(had) || had->valueint != step) {
        cJSON_Delete(r->unfinished);
        r->unfinished = cJSON_CreateObject();
        cJSON_AddNumberToObject(r->unfinished, TRACE_STEP, step);
        cJSON_AddStringToObject(r->unfinished, TRACE_MODEL_TEXT,
                                "(this step's line was not written: the run stopped during "
                                "it, or is still in it; the calls done so far)");
        cJSON_AddArrayToObject(r->unfinished, TRACE_TOOL_CALLS);
    }
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(r->unfinished, TRACE_TOOL_CALLS),
                         cJSON_Duplicate(call, true));
}

static void take_line(struct report *r, const cJSON *line)
{
    const cJSON *done = field(line, TRACE_CALL_DONE);
    if (cJSON_IsObject(done)) {
        take_call_done(r, line, done);
        return;
    }
    const cJSON *summary = field(line, TRACE_SUMMARY);
    if (cJSON_IsObject(summary)) {
        cJSON_Delete(r->summary);
        r->summary = cJSON_Duplicate(summary, 1);
        return;
    }
    cJSON_Delete(r->unfinished); /* the step's own line holds its calls */
    r->unfinished = NULL;
    if (!r->task && str_field(line, TRACE_TASK))
        r->task = str_dup(str_field(line, TRACE_TASK));
    if (str_field(line, TRACE_FINAL_ANSWER))
        str_set(&r->final_answer, str_field(line, TRACE_FINAL_ANSWER));
    struct html h;
    html_init(&h, STEP_MAX_BYTES, r->secret);
    render_step(r, &h, line, r->n_steps);
    if (h.full) {
        r->n_left_out++;
    } else if (dynbuf_add(&r->steps, h.b.data, h.b.len)) {
        r->n_left_out++;
    } else {
        struct html nav;
        html_init(&nav, 64u << 10, r->secret);
        render_nav(&nav, line, r->n_steps);
        if (!nav.full)
            dynbuf_add(&r->nav, nav.b.data, nav.b.len);
        html_cleanup(&nav);
        if (step_failed(line))
            r->n_failed++;
    }
    r->n_steps++;
    html_cleanup(&h);
}

wa_err report_open(const char *dir, const char *secret, struct report **out)
{
    *out = NULL;
    struct report *r = report_new(dir, secret);
    if (!r)
        return wa_fail(WA_E_NOMEM, "out of memory");
    *out = r;
    return write_page(r);
}

wa_err report_add(struct report *r, const cJSON *line)
{
    if (!r)
        return WA_E_OK;
    take_line(r, line);
    return write_page(r);
}

wa_err report_read_trace(const char *dir, void (*fn)(void *, const cJSON *), void *ctx,
                         int *unreadable)
{
    char path[4200], *text = NULL;
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    *unreadable = 0;
    wa_err e = os_read_file(path, TRACE_MAX_BYTES, &text, NULL);
    if (e)
        return e;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strspn(line, " \t\r") == strlen(line))
            continue;
        cJSON *obj = cJSON_Parse(line);
        if (cJSON_IsObject(obj))
            fn(ctx, obj);
        else
            (*unreadable)++;
        cJSON_Delete(obj);
    }
    free(text);
    return WA_E_OK;
}

static void rebuild_line(void *ctx, const cJSON *line)
{
    take_line(ctx, line);
}

wa_err report_rebuild(const char *dir)
{
    struct report *r = report_new(dir, NULL);
    if (!r)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = report_read_trace(dir, rebuild_line, r, &r->n_unreadable);
    if (!e)
        e = write_page(r);
    report_free(r);
    return e;
}
