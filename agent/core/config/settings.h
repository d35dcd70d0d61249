/* Every setting winagent has, resolved once and the same way for every subcommand:
 * a command-line flag, else the environment, else a .env file (the one --env-file or
 * WINAGENT_ENV_FILE names, else the one beside the exe, else the working folder's, from
 * which the settings marked SK_TRUSTED are not taken), else the default. `winagent
 * config` prints them all with where each came from. Secret settings are masked when
 * printed and are removed from the process environment once read, so programs winagent
 * starts never inherit them. */
#ifndef WINAGENT_AGENT_CORE_CONFIG_SETTINGS_H
#define WINAGENT_AGENT_CORE_CONFIG_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/args.h"
#include "base/wa_err.h"

/* Which subcommands take a setting's flag. */
enum {
    SG_RUN = 1u << 0,  /* the loop, replay and batch */
    SG_DESK = 1u << 1, /* act, the CLI commands, mcp and serve */
};

/* What kind of value; how the flag is written. */
enum {
    SK_VALUE = 0,        /* --flag VALUE */
    SK_SWITCH = 1u << 0, /* --flag alone means "on" */
    SK_NEGATE = 1u << 1, /* --flag alone means "off" (--no-stream) */
    SK_SECRET = 1u << 2, /* masked, never on the command line, removed from the environment */
    /* It changes what runs, where the key and the screens go, or where files are written:
     * from a .env in the working folder (which anyone who hands over a folder wrote)
     * only when the user names that file (--env-file, WINAGENT_ENV_FILE). */
    SK_TRUSTED = 1u << 3,
};

/* X(ID, name, flag, groups, env, default, kind, help) */
#define SETTING_MAP(X)                                                                             \
    X(PROVIDER, "provider", "provider", SG_RUN, "LLM_PROVIDER", "openai-compatible",               \
      SK_VALUE | SK_TRUSTED, "openai-compatible, openai-responses, google or anthropic")           \
    X(BASE_URL, "base_url", "base-url", SG_RUN, "LLM_BASE_URL", NULL, SK_VALUE | SK_TRUSTED,       \
      "the model server's base URL (required for openai-compatible)")                              \
    X(MODEL, "model", "model", SG_RUN, "LLM_MODEL", NULL, SK_VALUE, "the model's name")            \
    X(TOOL_PROTOCOL, "tool_protocol", "tool-protocol", SG_RUN, "WINAGENT_TOOL_PROTOCOL", "auto",   \
      SK_VALUE, "how the model acts: auto, functions, computer or text")                           \
    X(COORDS, "coords", "coords", SG_RUN, "WINAGENT_COORDS", "auto", SK_VALUE,                     \
      "coordinates of calls written as text by grounding models: auto, pixels or 1000")            \
    X(API_KEY, "api_key", NULL, 0, "LLM_API_KEY", NULL, SK_SECRET | SK_TRUSTED,                    \
      "the model server's key")                                                                    \
    X(MAX_STEPS, "max_steps", "max-steps", SG_RUN, "WINAGENT_MAX_STEPS", "30", SK_VALUE,           \
      "steps before the run gives up (1-10000)")                                                   \
    X(MODE, "mode", "mode", SG_RUN, "WINAGENT_MODE", "auto", SK_VALUE,                             \
      "observations: auto, a11y or pixel")                                                         \
    X(MAX_EDGE, "max_edge", "max-edge", SG_RUN, "WINAGENT_MAX_EDGE", "1280", SK_VALUE,             \
      "longest edge of images sent to the model, pixels (64-8192)")                                \
    X(HISTORY_IMAGES, "history_images", "history-images", SG_RUN, "WINAGENT_HISTORY_IMAGES", "3",  \
      SK_VALUE, "observations kept whole in the conversation (0-100)")                             \
    X(HISTORY, "history", "history", SG_RUN, "WINAGENT_HISTORY", "auto", SK_VALUE,                 \
      "how older observations are kept: auto (trim; server or append for a model whose "           \
      "service binds its replayed thinking to the history), trim (each becomes a line), append "   \
      "(nothing sent changes), server (nothing sent changes; the service clears older tool "       \
      "results itself: Anthropic's context editing), drop-thinking (trim; the service drops the "  \
      "thinking that no longer fits: Anthropic's binding control)")                                \
    X(MAX_OUTPUT_TOKENS, "max_output_tokens", "max-output-tokens", SG_RUN,                         \
      "WINAGENT_MAX_OUTPUT_TOKENS", NULL, SK_VALUE,                                                \
      "output tokens a reply may take, thinking included (1-1000000; default: the model "          \
      "family's, see winagent models)")                                                            \
    X(BUDGET_TOKENS, "budget_tokens", "budget-tokens", SG_RUN, NULL, NULL, SK_VALUE,               \
      "tokens a run may spend: it stops before the model call that would pass them")               \
    X(BUDGET_SECONDS, "budget_seconds", "budget-seconds", SG_RUN, NULL, NULL, SK_VALUE,            \
      "seconds a run may take: it stops before the model call that would pass them")               \
    X(LOG_DIR, "log_dir", "log-dir", SG_RUN, "WINAGENT_LOG_DIR", "logs", SK_VALUE | SK_TRUSTED,    \
      "where run folders are written")                                                             \
    X(SHELL, "shell", "shell", SG_RUN, "WINAGENT_SHELL_POLICY", "on", SK_VALUE | SK_TRUSTED,       \
      "the loop's powershell tool and command-line launches: on, off or confirm")                  \
    X(ALLOW_SHELL, "allow_shell", "allow-shell", SG_DESK, "WINAGENT_ALLOW_SHELL", "off",           \
      SK_SWITCH | SK_TRUSTED, "the shell permission of act, the CLI, mcp and serve")               \
    X(DRY_RUN, "dry_run", "dry-run", SG_RUN | SG_DESK, NULL, "off", SK_SWITCH,                     \
      "describe acting operations, perform none")                                                  \
    X(DELIVERY, "delivery", "delivery", SG_RUN | SG_DESK, "WINAGENT_DELIVERY", "foreground",       \
      SK_VALUE,                                                                                    \
      "how input reaches windows: foreground (brought to the front, the real mouse and "           \
      "keyboard), background (patterns and window messages; the cursor, the foreground and "       \
      "the focus stay the user's) or auto (background, else foreground)")                          \
    X(STREAM, "stream", "no-stream", SG_RUN, NULL, "on", SK_NEGATE,                                \
      "server-sent events from the model server")                                                  \
    X(STORE, "store", "store", SG_RUN, "WINAGENT_STORE", "off", SK_SWITCH,                         \
      "openai-responses: the server keeps the responses (store: true); off sends store: false "    \
      "and the reasoning back whole, encrypted, as zero data retention requires")                  \
    X(TAKEOVER, "takeover", "takeover", SG_RUN | SG_DESK, "WINAGENT_TAKEOVER", "pause",            \
      SK_VALUE | SK_TRUSTED,                                                                       \
      "what a person's own mouse or keyboard input does: pause (the loop waits until they are "    \
      "idle, other front ends refuse acting with user_active), stop (the run ends) or off; off "   \
      "by default with background delivery")                                                       \
    X(IDLE_SECONDS, "idle_seconds", "idle-seconds", SG_RUN | SG_DESK, NULL, "3", SK_VALUE,         \
      "how long the person must have been idle before winagent acts again, seconds (0.1-3600)")    \
    X(UNATTENDED, "unattended", "unattended", SG_RUN, NULL, "off", SK_SWITCH,                      \
      "nobody is at the console: confirmations are declined and ask_user answers that no "         \
      "person is available (also when stdin is not a terminal, and in a batch)")                   \
    X(AUDIT_LOG, "audit_log", "audit-log", SG_RUN | SG_DESK, "WINAGENT_AUDIT_LOG", NULL,           \
      SK_VALUE | SK_TRUSTED, "append one JSON line per acting operation to this file")             \
    X(RESTRICTED, "restricted", NULL, 0, "WINAGENT_RESTRICTED", NULL, SK_VALUE,                    \
      "more restricted processes, comma-separated (the built-in list always applies)")             \
    X(APPS, "apps", "apps", SG_RUN | SG_DESK, "WINAGENT_APPS", NULL, SK_VALUE,                     \
      "the only programs whose windows winagent sees, acts on and launches: file names or "        \
      "whole paths, comma-separated (default: every program but the restricted)")                  \
    X(MAX_ACTIONS, "max_actions_per_s", NULL, 0, "WINAGENT_MAX_ACTIONS_PER_S", "10", SK_VALUE,     \
      "the rate limit of acting operations")                                                       \
    X(STATE_DIR, "state_dir", NULL, 0, "WINAGENT_STATE_DIR", NULL, SK_VALUE | SK_TRUSTED,          \
      "where the refs of `state` are kept between processes (default: TEMP\\winagent-state)")      \
    X(SHELL_PROGRAM, "shell_program", NULL, 0, "WINAGENT_SHELL", NULL, SK_VALUE | SK_TRUSTED,      \
      "the shell that runs commands (default: PowerShell)")                                        \
    X(LLM_RETRIES, "llm_retries", NULL, 0, "WINAGENT_LLM_RETRIES", NULL, SK_VALUE,                 \
      "retries of a failed model request (0-20)")                                                  \
    X(LLM_MAX_WAIT_MS, "llm_max_wait_ms", NULL, 0, "WINAGENT_LLM_MAX_WAIT_MS", NULL, SK_VALUE,     \
      "longest single backoff between retries, ms")                                                \
    X(LLM_TIMEOUT_S, "llm_timeout_s", NULL, 0, "WINAGENT_LLM_TIMEOUT_S", NULL, SK_VALUE,           \
      "time limit of one model request, seconds")                                                  \
    X(MCP_TOKEN, "mcp_token", NULL, 0, "WINAGENT_MCP_TOKEN", NULL, SK_SECRET | SK_TRUSTED,         \
      "the bearer token of `mcp --http` (default: generated)")                                     \
    X(MCP_IMAGE_MAX_BYTES, "mcp_image_max_bytes", NULL, 0, "WINAGENT_MCP_IMAGE_MAX_BYTES",         \
      "1048576", SK_VALUE, "largest image an MCP client gets, bytes of base64 (1024-67108864)")    \
    X(MCP_IMAGE_MAX_PX, "mcp_image_max_px", NULL, 0, "WINAGENT_MCP_IMAGE_MAX_PX", "2000",          \
      SK_VALUE, "longest edge of an image an MCP client gets, pixels (16-16384)")

enum setting_id {
#define X_ENUM(id, name, flag, groups, env, def, kind, help) SET_##id,
    SETTING_MAP(X_ENUM)
#undef X_ENUM
        SET__COUNT
};

enum setting_source { SRC_DEFAULT, SRC_FLAG, SRC_ENV, SRC_DOTENV };

struct settings {
    char *value[SET__COUNT]; /* resolved; NULL when unset and without a default */
    enum setting_source source[SET__COUNT];
    char *dotenv_path; /* the .env that was read, or NULL */
    /* The settings a working folder's .env set and was not trusted with (SK_TRUSTED),
     * comma-separated, "" when none. */
    char ignored[400];
};

/* Takes the flags of the settings whose groups meet `groups` out of a (and --env-file),
 * then reads the environment and .env. Refuses a key given on the command line
 * (WA_E_USAGE), and a named .env that cannot be read (WA_E_CONFIG). What a working
 * folder's .env was not trusted with is said once on stderr and kept in s->ignored.
 * Removes the secret variables (and any *_API_KEY) from the process environment.
 * s must be cleaned up either way. */
wa_err settings_load(struct settings *s, struct args *a, unsigned groups);
void settings_cleanup(struct settings *s);

const char *settings_get(const struct settings *s, enum setting_id id);
/* "on", "true", "yes", "1" (any case). */
bool settings_on(const struct settings *s, enum setting_id id);
/* An on/off setting: "on", "true", "yes", "1" or "off", "false", "no", "0" (any case);
 * anything else is WA_E_CONFIG naming the setting and where its value came from. */
wa_err settings_switch(const struct settings *s, enum setting_id id, bool *out);
/* Whole number in [lo, hi]; def when unset; WA_E_CONFIG naming the setting and where
 * its value came from. */
wa_err settings_int(const struct settings *s, enum setting_id id, int lo, int hi, int def,
                    int *out);
wa_err settings_num(const struct settings *s, enum setting_id id, double lo, double hi, double def,
                    double *out);

/* For `winagent config`: one line per setting, "name = value  (source)". */
void settings_print(const struct settings *s, void (*line)(void *ctx, const char *text), void *ctx);
const char *setting_source_name(const struct settings *s, enum setting_id id);
/* The value as it may be shown: secrets masked ("sk-t…(21 chars)"). */
void setting_display(const struct settings *s, enum setting_id id, char *out, size_t cap);

#endif
