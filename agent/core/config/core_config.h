/* What a core and a session are made with: the core's configuration (backend, shell
 * permission, dry run, gate settings) and a session's options (its front end, what an
 * acting call returns after acting, refs or ids). */
#ifndef WINAGENT_AGENT_CORE_CONFIG_CORE_CONFIG_H
#define WINAGENT_AGENT_CORE_CONFIG_CORE_CONFIG_H

#include <stdbool.h>

#include "agent/core/request/observe.h"
#include "agent/core/request/ops.h"
#include "agent/core/config/settings.h"
#include "automation/backend.h"

enum shell_permission {
    SHELL_DENIED, /* shell commands and command-line launches are refused */
    SHELL_ALLOWED,
    SHELL_ASK, /* each one is confirmed through core_config.confirm */
};

/* What a person's own mouse or keyboard input does to acting operations (--takeover). */
enum takeover {
    TAKEOVER_OFF,   /* nothing: background delivery, which never touches their input */
    TAKEOVER_PAUSE, /* the loop waits until they are idle; other front ends refuse */
    TAKEOVER_STOP,  /* the loop's run ends (EXIT_STOPPED); other front ends refuse */
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
    const char *apps;            /* the allow-list (--apps); NULL or "": none */
    double max_actions_per_s;    /* 0: 10 */
    const char *audit_path;      /* NULL: none */
    const char *state_dir;       /* refs of `state` between processes; NULL: the default */
    const char *shell_program;   /* the shell's command-line prefix; NULL: the backend's */
    enum delivery delivery;      /* input operations without their own "delivery" */
    enum takeover takeover;
    int idle_ms; /* how long the person must be idle before winagent acts (0: 3000) */
    /* Watch the person from the start (runs and servers: the stop gesture works at any
     * moment); otherwise the watch starts with the first acting operation. */
    bool watch_person;
};

/* The core configuration of a front end from the resolved settings: the shell
 * permission from --shell (the loop: on, off, confirm) or --allow-shell (the rest). */
wa_err core_config_from_settings(const struct settings *s, bool loop, struct core_config *out);

/* What an acting call returns besides its own result. */
enum after_action {
    AFTER_NONE,    /* nothing (the CLI without --screenshot / --return-state) */
    AFTER_OBSERVE, /* an observation of the target window in the session's mode (the loop) */
    AFTER_IMAGE,   /* an image of the window acted on (MCP) */
};

/* How a person answered a question put to them (struct person_asker). */
enum person_answer {
    PERSON_NOBODY,   /* no person is there to ask */
    PERSON_ANSWERED, /* *answer holds their words (a confirmation: "yes") */
    PERSON_DECLINED, /* they said no, or would not answer */
};

/* Who answers the questions a session's calls put to a person: ask_user's, and the
 * confirmation of a shell command (--shell confirm). ask shows question (confirm: a
 * yes/no question) where the person is (the console, an MCP client's elicitation) and
 * waits for the answer, polling cancel (may be NULL) and the process's interrupt;
 * *answer is a heap string when PERSON_ANSWERED. A NULL ask: nobody is there. */
struct person_asker {
    enum person_answer (*ask)(void *ctx, const char *question, bool confirm,
                              const volatile bool *cancel, char **answer);
    void *ctx;
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
    /* Where refs are kept: the state folder, shared by every process of the user (the
     * CLI: each command is a process of its own); else the session's own memory, so
     * that refs belong to the client that observed them (an MCP session, a serve
     * connection, an ipc folder). A ref of another client's observation is stale. */
    bool refs_on_disk;
    /* Arguments that write files (screenshot's path) are taken: the command line,
     * where the user typed them. Every other front end (the model, MCP, serve, the ipc
     * folder, replay) is refused them with invalid_args. */
    bool files_allowed;
    /* One display for the whole session (the computer-use protocols): the first
     * screenshot of a monitor fixes its screen rectangle, and from then on every
     * observation (after acting, a screenshot without a monitor, window or region) is an
     * image of that rectangle at one size, whatever window is in front. */
    bool one_display;
    /* A person at the desk (core_config.takeover): while they use the mouse or keyboard,
     * an acting call waits until they have been idle (wait_for_person: the loop), then
     * observes again and fails with WA_E_USER_ACTIVE without sending anything; otherwise
     * it is refused with WA_E_USER_ACTIVE at once. paused(ctx, -1) says the wait begins,
     * paused(ctx, ms) that it ended after ms. */
    bool wait_for_person;
    void (*paused)(void *ctx, double ms);
    void *paused_ctx;
    /* Who answers ask_user and confirmations; ask NULL: nobody. */
    struct person_asker person;
};

void session_opts_default(struct session_opts *o);

#endif
