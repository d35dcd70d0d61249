/* A run's configuration (the loop, replay, batch): the task, and the settings it reads,
 * from the one resolution every subcommand uses (core/settings.h); the command line
 * fills it (agent/front/run_cli.c). */
#ifndef WINAGENT_AGENT_RUN_CONFIG_H
#define WINAGENT_AGENT_RUN_CONFIG_H

#include <stdbool.h>

#include "agent/core/observe.h"
#include "agent/core/settings.h"
#include "agent/run/budget.h"
#include "base/wa_err.h"
#include "llm/llm.h"
#include "llm/protocol.h"

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
    int history_images;
    const char *log_dir;
    bool dry_run;
    bool stream;
    bool store;           /* openai-responses: "store" (llm_config.store) */
    int llm_retries;      /* retries after the first attempt (-1: the client's default) */
    int llm_max_wait_ms;  /* longest single backoff (0: default) */
    int llm_timeout_s;    /* one whole request (0: default) */
    struct budget budget; /* --budget-tokens, --budget-seconds (0: none) */
};

/* Frees what c owns (it is filled by the command line, agent/front/run_cli.c) and
 * zeroes it. */
void config_cleanup(struct agent_config *c);

#endif
