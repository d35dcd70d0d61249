/* Replay of a recorded run: the same dispatcher, no model. */
#include "agent/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/cli.h"
#include "agent/desktop.h"
#include "agent/steplog.h"
#include "base/os.h"
#include "base/str.h"

/* Finds the node of type/name in the session's current tree; 0 when none. */
static int find_element(const struct desktop_session *s, const char *type, const char *name)
{
    for (size_t i = 0; i < s->tree.count; i++)
        if (strcmp(s->tree.nodes[i].type, type) == 0 && strcmp(s->tree.nodes[i].name, name) == 0)
            return (int)i + 1;
    return 0;
}

/* Rewrites args' element id to the matching element of a fresh tree. */
static wa_err refind_element(struct desktop_session *s, cJSON *args, const cJSON *ref)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ref, "type");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(ref, "name");
    if (!cJSON_IsString(type) || !cJSON_IsString(name))
        return WA_E_OK;
    int id = s->have_tree ? find_element(s, type->valuestring, name->valuestring) : 0;
    if (!id) { /* look again: the window may have changed since the last observation */
        struct desktop_result r;
        desktop_result_init(&r);
        desktop_call_text(s, "{\"action\":\"window_screenshot\",\"mode\":\"a11y\"}", &r);
        desktop_result_cleanup(&r);
        id = s->have_tree ? find_element(s, type->valuestring, name->valuestring) : 0;
    }
    if (!id)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "%s \"%s\" is not in the current tree",
                       type->valuestring, name->valuestring);
    cJSON_DeleteItemFromObjectCaseSensitive(args, "element");
    cJSON_AddNumberToObject(args, "element", id);
    return WA_E_OK;
}

static wa_err replay_shell(const struct agent_config *cfg, const struct wa_backend *be,
                           const cJSON *args, char *summary, size_t size)
{
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(args, "command");
    if (!cJSON_IsString(cmd))
        return wa_fail(WA_E_INVALID_ARGS, "recorded powershell call has no command");
    snprintf(summary, size, "powershell %.60s", cmd->valuestring);
    if (cfg->dry_run)
        return WA_E_OK;
    if (cfg->shell != SHELL_ON)
        return wa_fail(WA_E_DENIED, "the shell is %s; not re-running commands",
                       shell_policy_name(cfg->shell));
    struct wa_shell_result sr;
    wa_err e = backend_run_shell(be, cmd->valuestring, 60000, 4096, &sr);
    if (!e && sr.exit_code != 0)
        e = wa_fail(WA_E_ACTION_FAILED, "exit code %d: %.200s", sr.exit_code, sr.err ? sr.err : "");
    wa_shell_result_cleanup(&sr);
    return e;
}

int replay_run(const struct agent_config *cfg)
{
    char *text = NULL;
    wa_err e = os_read_file(cfg->replay, 256u << 20, &text, NULL);
    if (e)
        return cli_fail(e);
    os_interrupt_install(true);
    const struct wa_backend *be = cli_backend();
    if (!be) {
        free(text);
        return EXIT_ACTION;
    }
    struct steplog log;
    if ((e = steplog_open(&log, cfg->log_dir, "replay", NULL))) {
        free(text);
        return cli_fail(e);
    }
    steplog_note(&log, "replaying %s%s", cfg->replay, cfg->dry_run ? " (dry run)" : "");
    struct desktop_opts o;
    desktop_opts_default(&o);
    o.observe.mode = cfg->mode;
    o.observe.max_edge = cfg->max_edge;
    o.dry_run = cfg->dry_run;
    o.observe_after = true;
    struct desktop_session s;
    desktop_session_init(&s, be, &o);

    int code = EXIT_OK, calls = 0, line_no = 0;
    for (char *line = text, *next; line && *line && code == EXIT_OK; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        cJSON *step = cJSON_Parse(line);
        const cJSON *tc = cJSON_GetObjectItemCaseSensitive(step, "tool_calls");
        const cJSON *call;
        cJSON_ArrayForEach(call, tc)
        {
            if (os_interrupted()) {
                code = EXIT_INTERRUPTED;
                break;
            }
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
            cJSON *args = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(call, "arguments"), 1);
            const cJSON *num = cJSON_GetObjectItemCaseSensitive(step, "step");
            int stepn = cJSON_IsNumber(num) ? num->valueint : line_no;
            char summary[300] = "";
            calls++;
            if (!args) {
                e = wa_fail(WA_E_INVALID_ARGS, "the recorded call had malformed arguments");
            } else if (cJSON_IsString(name) && strcmp(name->valuestring, "powershell") == 0) {
                e = replay_shell(cfg, be, args, summary, sizeof summary);
            } else {
                e = WA_E_OK;
                const cJSON *ref = cJSON_GetObjectItemCaseSensitive(call, "element_ref");
                if (ref && cJSON_GetObjectItemCaseSensitive(args, "element"))
                    e = refind_element(&s, args, ref);
                struct desktop_result r;
                desktop_result_init(&r);
                if (!e) {
                    e = desktop_call(&s, args, &r);
                    snprintf(summary, sizeof summary, "%s", r.summary);
                }
                desktop_result_cleanup(&r);
            }
            if (!summary[0])
                snprintf(summary, sizeof summary, "%s",
                         cJSON_IsString(name) ? name->valuestring : "?");
            if (cfg->dry_run) {
                char *a = args ? cJSON_PrintUnformatted(args) : NULL;
                printf("%d. step %d: %s %s\n", calls, stepn,
                       cJSON_IsString(name) ? name->valuestring : "?", a ? a : "");
                free(a);
            }
            steplog_progress(&log, "[replay %d] step %d: %s", calls, stepn, summary);
            cJSON_Delete(args);
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
    desktop_session_cleanup(&s);
    steplog_close(&log);
    free(text);
    return code;
}
