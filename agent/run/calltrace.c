/* What a run records of one performed call (the loop's steps, replay's steps). */
#include "agent/run/calltrace.h"
#include "agent/report/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/image.h"
#include "automation/image/png.h"
#include "base/dynbuf.h"

/* agent.log's DEBUG lines behind a window observation's verdict: the interactive
 * elements of its tree that have no name. */
static void log_unnamed_elements(struct steplog *log, const struct observation *o,
                                 const struct wa_tree *t)
{
    if (!t || !o->hwnd || t->hwnd != o->hwnd)
        return; /* a monitor, or no tree of this window */
    struct dynbuf lines;
    dynbuf_init(&lines, 1u << 20);
    if (observe_unnamed_lines(t, &lines) == WA_E_OK) {
        for (const char *line = dynbuf_str(&lines), *end; *line; line = end + 1) {
            end = strchr(line, '\n');
            steplog_note(log, "%.*s", (int)(end - line), line);
        }
    }
    dynbuf_cleanup(&lines);
}

/* The name a step's files carry: the operation's, from the table only. */
static const char *file_action(const struct op_def *op)
{
    return !op ? "call" : op->model ? op->model : op->name;
}

void calltrace_observation(struct steplog *log, int step, const struct op_def *op,
                           const struct observation *o, const struct wa_tree *tree, cJSON *trace)
{
    if (o->kind == OBS_NONE)
        return;
    const char *action = file_action(op);
    char name[160];
    char *file = NULL;
    if (o->kind == OBS_TREE) {
        snprintf(name, sizeof name, "step-%02d-%s+a11y.txt", step, action);
        file = steplog_save(log, name, o->text, strlen(o->text));
    } else if (o->kind == OBS_IMAGE) {
        snprintf(name, sizeof name, "step-%02d-%s.png", step, action);
        file = steplog_save(log, name, o->png.data, o->png.len);
    }
    cJSON *j = cJSON_AddObjectToObject(trace, TRACE_OBSERVATION);
    cJSON_AddStringToObject(j, TRACE_OBS_KIND, o->kind == OBS_TREE ? "tree" : "image");
    if (file)
        cJSON_AddStringToObject(j, TRACE_OBS_FILE, file);
    cJSON_AddStringToObject(j, TRACE_OBS_VERDICT, o->verdict);
    int f[4] = {o->frame.left, o->frame.top, o->frame.right, o->frame.bottom};
    cJSON_AddItemToObject(j, TRACE_OBS_FRAME, cJSON_CreateIntArray(f, 4));
    if (o->kind == OBS_IMAGE) {
        cJSON_AddNumberToObject(j, TRACE_OBS_WIDTH, o->width);
        cJSON_AddNumberToObject(j, TRACE_OBS_HEIGHT, o->height);
    }
    if (o->tree_reused) /* nothing had changed: the tree of the look before, not walked again */
        cJSON_AddBoolToObject(j, TRACE_TREE_REUSED, true);
    free(file);
    steplog_note(log, "observation: %s", o->verdict);
    log_unnamed_elements(log, o, tree);
}

/* The identity of the element a call acted on, as it was before acting: what replay
 * needs to find it again in a fresh tree. */
static void add_element_ref(cJSON *trace, const struct op_result *res)
{
    if (!res->has_element)
        return;
    cJSON *ref = cJSON_AddObjectToObject(trace, TRACE_ELEMENT_REF);
    cJSON_AddStringToObject(ref, "type", res->element.type ? res->element.type : "");
    cJSON_AddStringToObject(ref, TRACE_NAME, res->element.name ? res->element.name : "");
    if (res->element.automation_id)
        cJSON_AddStringToObject(ref, "automation_id", res->element.automation_id);
}

/* The window that received the input at the moment of sending: what replay compares
 * before sending input there again. */
static void add_receiver(cJSON *trace, const struct op_result *res)
{
    if (!res->has_receiver)
        return;
    const struct wa_window *w = &res->receiver;
    cJSON *o = cJSON_AddObjectToObject(trace, TRACE_RECEIVER);
    char h[24];
    snprintf(h, sizeof h, "0x%llx", (unsigned long long)w->hwnd);
    cJSON_AddStringToObject(o, "hwnd", h);
    cJSON_AddStringToObject(o, "title", w->title ? w->title : "");
    cJSON_AddStringToObject(o, "class", w->class_name ? w->class_name : "");
    cJSON_AddStringToObject(o, "process", w->process ? w->process : "");
}

/* The debug image of a coordinate action (never sent to the model). */
static void add_annotation(struct steplog *log, int step, const char *action,
                           const struct wa_image *img, cJSON *trace)
{
    struct dynbuf png;
    dynbuf_init(&png, 64u << 20);
    if (png_encode(img, &png) == WA_E_OK) {
        char name[160];
        snprintf(name, sizeof name, "step-%02d-%s+annotate.png", step, action);
        char *file = steplog_save(log, name, png.data, png.len);
        if (file)
            cJSON_AddStringToObject(trace, TRACE_ANNOTATE, file);
        free(file);
    }
    dynbuf_cleanup(&png);
}

void calltrace_result(struct steplog *log, int step, const struct op_def *op,
                      const struct op_result *res, const struct wa_tree *tree, double total_ms,
                      cJSON *trace)
{
    add_element_ref(trace, res);
    add_receiver(trace, res);
    calltrace_observation(log, step, op, &res->obs, tree, trace);
    if (res->has_annotate)
        add_annotation(log, step, file_action(op), &res->annotate, trace);
    /* Every phase of the call, so that no time goes unaccounted for. */
    double known = res->wait_ms + res->before_ms + res->action_ms + res->annotate_ms +
                   res->settle_ms + res->after_ms + res->obs.capture_ms + res->obs.encode_ms +
                   res->obs.tree_ms + res->diff_ms + res->record_ms;
    cJSON *ms = cJSON_AddObjectToObject(trace, TRACE_CALL_MS);
    cJSON_AddNumberToObject(ms, "wait", res->wait_ms);
    cJSON_AddNumberToObject(ms, "before", res->before_ms);
    cJSON_AddNumberToObject(ms, "action", res->action_ms ? res->action_ms : total_ms);
    cJSON_AddNumberToObject(ms, TRACE_ANNOTATE, res->annotate_ms);
    cJSON_AddNumberToObject(ms, "settle", res->settle_ms);
    cJSON_AddNumberToObject(ms, "capture", res->obs.capture_ms);
    cJSON_AddNumberToObject(ms, "encode", res->obs.encode_ms);
    cJSON_AddNumberToObject(ms, "tree", res->obs.tree_ms);
    cJSON_AddNumberToObject(ms, "after", res->after_ms);
    cJSON_AddNumberToObject(ms, "diff", res->diff_ms);
    cJSON_AddNumberToObject(ms, "record", res->record_ms);
    cJSON_AddNumberToObject(ms, "other", total_ms > known ? total_ms - known : 0);
}
