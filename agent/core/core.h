/* The desktop core: one function performs every operation for every front end (the
 * loop's tool calls, `act`, replay, the CLI, MCP, serve). The security gate, the rate
 * limit, dry run, the audit log and the serialisation of input live inside it, so no
 * front end can go around them.
 *
 * A core is one per process (the backend, the gate, the shell permission); a session
 * is one per client: it holds what the client last observed (the frame its 0-999
 * coordinates span, the tree its element ids index). */
#ifndef WINAGENT_AGENT_CORE_CORE_H
#define WINAGENT_AGENT_CORE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/core/request.h"
#include "agent/core/settings.h"

enum shell_permission {
    SHELL_DENIED, /* shell commands and command-line launches are refused */
    SHELL_ALLOWED,
    SHELL_ASK, /* each one is confirmed through core_config.confirm */
};

struct core_config {
    const struct wa_backend *be;
    enum shell_permission shell;
    /* SHELL_ASK: shows what would run (control characters escaped) and returns
     * whether to run it. */
    bool (*confirm)(void *ctx, const char *what, const char *command);
    void *confirm_ctx;
    bool dry_run;                /* describe acting operations, perform none */
    const char *restricted;      /* more restricted processes (the built-in list stays) */
    const char *restricted_only; /* tests: replaces the built-in list */
    double max_actions_per_s;    /* 0: 10 */
    const char *audit_path;      /* NULL: none */
    const char *state_dir;       /* refs of `state` between processes; NULL: the default */
};

struct core;

wa_err core_new(const struct core_config *c, struct core **out);
void core_free(struct core *c);
const struct wa_backend *core_backend(const struct core *c);
bool core_dry_run(const struct core *c);
enum shell_permission core_shell(const struct core *c);

/* The core configuration of a front end from the resolved settings: the shell
 * permission from --shell (the loop: on, off, confirm) or --allow-shell (the rest). */
wa_err core_config_from_settings(const struct settings *s, bool loop, struct core_config *out);

/* What an acting call returns besides its own result. */
enum after_action {
    AFTER_NONE,    /* nothing (the CLI without --screenshot / --return-state) */
    AFTER_OBSERVE, /* an observation of the target window in the session's mode (the loop) */
    AFTER_IMAGE,   /* an image of the window acted on (MCP) */
};

struct session_opts {
    const char *front;           /* "loop", "act", "cli", "mcp", "serve", "replay" */
    bool model_names;            /* results and errors use the model's names */
    struct observe_opts observe; /* mode, image size, tree budget */
    enum after_action after;
    bool annotate; /* a debug image with a crosshair for coordinate actions */
    int settle_ms; /* pause before the observation after acting */
    /* Element ids are refs of `state`, kept in the state folder between processes and
     * found again in a fresh tree before every use (the CLI, MCP, serve). Otherwise
     * they index the session's latest tree (the loop, act). */
    bool refs;
};

void session_opts_default(struct session_opts *o);

struct session;

wa_err session_new(struct core *c, const struct session_opts *o, struct session **out);
void session_free(struct session *s);
/* --window: every call of the session targets this window. */
wa_err session_pin_window(struct session *s, const struct window_ref *w);
uint64_t session_pinned_window(const struct session *s);
struct core *session_core(const struct session *s);
/* The tree of the latest observation (element ids index it), or NULL. */
const struct wa_tree *session_tree(const struct session *s);
/* The window of the latest observation (0: a monitor, or none yet). */
uint64_t session_target(const struct session *s);

/* Performs one request. The result is always filled: r->err is the return value, and
 * r->message its detail. Thread-safe across sessions; calls on one session are
 * serialised. Acting operations pass the rate limit, are serialised with every other
 * input on the desktop (in this process and others), and are audited. */
wa_err core_perform(struct session *s, const struct op_request *q, struct op_result *r);

#endif
