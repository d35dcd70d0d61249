/* A run's configuration (the loop, replay, batch): the task, and the settings it reads,
 * from the one resolution every subcommand uses (core/settings.h); the command line
 * fills it (agent/front/run_cli.c). */
#ifndef WINAGENT_AGENT_RUN_CONFIG_H
#define WINAGENT_AGENT_RUN_CONFIG_H

#include <stdbool.h>

#include "agent/core/request/observe.h"
#include "agent/core/config/settings.h"
#include "agent/run/budget.h"
#include "base/wa_err.h"
#include "llm/llm.h"
#include "llm/protocol.h"

/* How the conversation keeps older observations (--history). */
enum history_policy {
    HISTORY_AUTO,          /* settled by config_history_settle */
    HISTORY_TRIM,          /* older observations become a line each, on the client */
    HISTORY_APPEND,        /* nothing sent before changes: every observation stays whole */
    HISTORY_SERVER,        /* nothing sent changes; the service clears older results itself */
    HISTORY_DROP_THINKING, /* trim; the service drops replayed thinking that no longer fits */
};

struct agent_config {
    char *prompt;             /* the task; NULL with --replay */
    char *replay;             /* --replay DIR/trace.jsonl */
    struct settings settings; /* everything resolved; the strings below point into it */
    enum llm_provider_kind provider;
    const char *base_url;
    const char *model;
    const char *api_key; /* never printed or logged */
    /* How the model acts, settled from --tool-protocol, --coords and the model's name
     * (llm/protocol.h); replay leaves it zeroed. */
    enum llm_tool_protocol tool_protocol; /* as set */
    enum llm_coords_choice coords;        /* as set */
    struct llm_protocol_choice protocol;
    int max_steps;
    enum obs_mode mode; /* auto becomes pixel for a model that reads only screenshots */
    int max_edge;
    bool max_edge_set; /* --max-edge was given (else the model's own limit for its tools) */
    int history_images;
    enum history_policy history; /* never HISTORY_AUTO once loaded */
    int max_output_tokens;       /* 0: the model family's */
    const char *log_dir;
    bool dry_run;
    bool stream;
    bool store;           /* openai-responses: "store" (llm_config.store) */
    int llm_retries;      /* retries after the first attempt (-1: the client's default) */
    int llm_max_wait_ms;  /* longest single backoff (0: default) */
    int llm_timeout_s;    /* one whole request (0: default) */
    struct budget budget; /* --budget-tokens, --budget-seconds (0: none) */
};

/* "auto", "trim", "append", "server", "drop-thinking". WA_E_CONFIG otherwise. */
wa_err config_history_parse(const char *name, enum history_policy *out);
const char *config_history_name(enum history_policy h);

/* Settles --history auto for the model and provider of c: where the service binds replayed
 * thinking to the history before it (llm/models.h), nothing sent may change: the service
 * clears older results itself on Anthropic (server), else append; trim for the others. A
 * policy the provider cannot keep (server, drop-thinking without Anthropic) becomes
 * append and trim; *why says why (static text). */
enum history_policy config_history_settle(const struct agent_config *c, const char **why);

/* The most images one request of the run carries: the first observation and the
 * observations kept whole. */
int config_images_per_request(const struct agent_config *c);

/* Frees what c owns (it is filled by the command line, agent/front/run_cli.c) and
 * zeroes it. */
void config_cleanup(struct agent_config *c);

#endif
