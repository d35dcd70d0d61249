/* The desktop as commands for other agents (`winagent state`, `click 3`, ...): one
 * transport-free command layer that the CLI, the MCP server and `winagent serve` all
 * call. Commands take their parameters as a JSON object with the CLI's names and use
 * the desktop dispatcher (agent/desktop.h) to act. Refs from `state` survive between
 * processes in a small state file per window. */
#ifndef WINAGENT_AGENT_CTL_H
#define WINAGENT_AGENT_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "agent/gate.h"
#include "automation/backend.h"
#include "base/dynbuf.h"

struct ctl_opts {
    bool dry_run;             /* describe mutating commands, perform none */
    bool allow_shell;         /* the powershell command exists only when set */
    const char *state_dir;    /* where refs are kept (NULL: WINAGENT_STATE_DIR, else the
                               * temp folder's winagent-state) */
    /* Whether mutating commands return a post-action image when the "screenshot"
     * parameter is absent: off for the CLI, on for MCP. */
    bool screenshot_by_default;
    struct gate_opts gate;    /* restricted processes, rate limit, audit log */
};

/* One parameter of a command, for help texts and MCP schemas. */
struct ctl_param {
    const char *name;        /* "ref", "window", "text", "x", ... */
    const char *type;        /* JSON schema type: "string", "integer", "number", "boolean" */
    const char *description;
    bool required;
};

struct ctl_command {
    const char *name;        /* "click", "state", ... */
    const char *description;
    bool mutating;           /* changes the desktop (gate, window_state, post-action image) */
    bool destructive;        /* may lose data (close, keys, powershell) */
    bool takes_window;       /* --window: focus, verify, act, verify, retry */
    const struct ctl_param *params;
    size_t n_params;
};

struct ctl_result {
    bool success;
    wa_err err;              /* WA_E_OK on success */
    char message[512];       /* the error's message (never a secret) */
    cJSON *data;             /* the command's data (owned), or NULL */
    cJSON *window_state;     /* {"hwnd","title","is_foreground","rect"} (owned), or NULL */
    /* A post-action image when asked for ("screenshot": true on mutating commands, or
     * the screenshot command): PNG bytes, the scale image/screen and the origin so
     * image pixels map to screen pixels: screen = origin + image / scale. */
    struct dynbuf png;
    double scale;
    int origin_x, origin_y;
};

struct ctl;

wa_err ctl_new(const struct wa_backend *be, const struct ctl_opts *o, struct ctl **out);
void ctl_free(struct ctl *c);

/* The commands, in help order; powershell is listed only when allow_shell is set. */
const struct ctl_command *ctl_commands(const struct ctl *c, size_t *count);
const struct ctl_command *ctl_find_command(const struct ctl *c, const char *name);

void ctl_result_init(struct ctl_result *r);
void ctl_result_cleanup(struct ctl_result *r);

/* Runs one command. params is a JSON object (NULL = {}). The result is always filled;
 * the return value is r->err. Common parameters of mutating commands: "window" (SEL),
 * "screenshot" (bool), "screenshot_delay_ms" (default 150), "return_state" (bool). */
wa_err ctl_run(struct ctl *c, const char *command, const cJSON *params, struct ctl_result *r);

/* {"success":true,"data":...,"window_state":...} or
 * {"success":false,"error":{"code":...,"message":...}} (a new object). */
cJSON *ctl_result_json(const struct ctl_result *r);

#endif
