/* Replay of a recorded run: the same core, no model. */
#include "agent/run/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/front/cli.h"
#include "agent/front/wire.h"
#include "agent/run/steplog.h"
#include "base/os.h"
#include "base/str.h"

/* The id of the element with this identity in the session's latest tree; 0 when none. */
static int find_element(const struct session *s, const cJSON *ref)
{
    const struct wa_tree *t = session_tree(s);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ref, "type");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(ref, "name");
    const cJSON *aid = cJSON_GetObjectItemCaseSensitive(ref, "automation_id");
    for (size_t i = 0; t && i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        if (strcmp(n->type, type->valuestring) == 0 && strcmp(n->name, name->valuestring) == 0 &&
            (!cJSON_IsString(aid) ||
             (n->automation_id && strcmp(n->automation_id, aid->valuestring) == 0)))
            return (int)i + 1;
    }
    return 0;
}

/* Aims the request at the element the recorded call acted on, in the tree of now. */
static wa_err reaim(struct session *s, struct op_request *q, const cJSON *ref)
{
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(ref, "type")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(ref, "name")))
        return WA_E_OK;
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
    if (!id)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "%s \"%s\" is not in the current tree",
                       cJSON_GetObjectItemCaseSensitive(ref, "type")->valuestring,
                       cJSON_GetObjectItemCaseSensitive(ref, "name")->valuestring);
    return op_request_set_number(q, ARG_ELEMENT, id);
}

/* One recorded call, performed again. */
static wa_err replay_call(struct session *s, const cJSON *call, struct op_result *res)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
    struct op_request q;
    wa_err e;
    if (!cJSON_IsObject(args)) {
        op_request_init(&q, NULL);
        e = wa_fail(WA_E_INVALID_ARGS, "the recorded call had malformed arguments");
    } else if (cJSON_IsString(name) && strcmp(name->valuestring, "desktop") == 0) {
        e = wire_request(args, WIRE_MODEL, NULL, &q);
    } else if (cJSON_IsString(name) && strcmp(name->valuestring, op_def(OP_SHELL)->model) == 0) {
        e = wire_request(args, WIRE_MODEL, op_def(OP_SHELL), &q);
    } else {
        op_request_init(&q, NULL);
        e = wa_fail(WA_E_INVALID_ARGS, "unknown tool in the trace");
    }
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(call, "element_ref");
    if (!e && ref && q.element.kind == EREF_ID)
        e = reaim(s, &q, ref);
    if (!e)
        e = core_perform(s, &q, res);
    if (!e && res->has_shell && res->shell.exit_code != 0)
        e = wa_fail(WA_E_ACTION_FAILED, "exit code %d: %.200s", res->shell.exit_code,
                    res->shell.err ? res->shell.err : "");
    op_request_cleanup(&q);
    return e;
}

int replay_run(const struct agent_config *cfg)
{
    char *text = NULL;
    wa_err e = os_read_file(cfg->replay, 256u << 20, &text, NULL);
    if (e)
        return cli_fail(e);
    os_interrupt_install(true);
    struct core *c = cli_core(&cfg->settings, true);
    if (!c) {
        free(text);
        return EXIT_ACTION;
    }
    struct steplog log;
    if ((e = steplog_open(&log, cfg->log_dir, "replay", NULL))) {
        free(text);
        core_free(c);
        return cli_fail(e);
    }
    steplog_note(&log, "replaying %s%s", cfg->replay, cfg->dry_run ? " (dry run)" : "");
    struct session_opts so;
    session_opts_default(&so);
    so.front = "replay";
    so.model_names = true;
    so.observe.mode = cfg->mode;
    so.observe.max_edge = cfg->max_edge;
    so.after = AFTER_OBSERVE;
    struct session *s = NULL;
    if ((e = session_new(c, &so, &s))) {
        free(text);
        steplog_close(&log);
        core_free(c);
        return cli_fail(e);
    }

    int code = EXIT_OK, calls = 0, line_no = 0;
    for (char *line = text, *next; line && *line && code == EXIT_OK; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        cJSON *step = cJSON_Parse(line);
        const cJSON *num = cJSON_GetObjectItemCaseSensitive(step, "step");
        int stepn = cJSON_IsNumber(num) ? num->valueint : line_no;
        const cJSON *call;
        cJSON_ArrayForEach(call, cJSON_GetObjectItemCaseSensitive(step, "tool_calls"))
        {
            if (os_interrupted()) {
                code = EXIT_INTERRUPTED;
                break;
            }
            calls++;
            struct op_result res;
            op_result_init(&res);
            e = replay_call(s, call, &res);
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
            if (cfg->dry_run) {
                char *a =
                    cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(call, "arguments"));
                printf("%d. step %d: %s %s\n", calls, stepn,
                       cJSON_IsString(name) ? name->valuestring : "?", a ? a : "");
                free(a);
            }
            steplog_progress(&log, "[replay %d] step %d: %s -> %s", calls, stepn,
                             res.summary[0]         ? res.summary
                             : cJSON_IsString(name) ? name->valuestring
                                                    : "?",
                             e             ? wa_err_code(e)
                             : res.dry_run ? "dry-run"
                                           : "ok");
            op_result_cleanup(&res);
            if (e) {
                steplog_progress(&log, "replay stopped at recorded step %d: %s%s%s", stepn,
                                 wa_err_message(e), *wa_err_detail() ? ": " : "", wa_err_detail());
                code = EXIT_ACTION;
                break;
            }
        }
        cJSON_Delete(step);
    }
    if (code == EXIT_OK) {
        steplog_progress(&log, "replay finished: %d call%s", calls, calls == 1 ? "" : "s");
        if (!cfg->dry_run)
            printf("replayed %d call%s\n", calls, calls == 1 ? "" : "s");
    }
    steplog_progress(&log, "log: %s", log.dir);
    session_free(s);
    core_free(c);
    steplog_close(&log);
    free(text);
    return code;
}
