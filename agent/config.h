/* The run's configuration: flag > environment > .env (beside the exe or in the
 * working folder), with errors that name what is missing and where to set it. */
#ifndef WINAGENT_AGENT_CONFIG_H
#define WINAGENT_AGENT_CONFIG_H

#include <stdbool.h>

#include "agent/observe.h"
#include "base/error.h"
#include "llm/llm.h"

enum shell_policy {
    SHELL_ON,      /* the powershell tool runs commands */
    SHELL_OFF,     /* the tool is not offered */
    SHELL_CONFIRM, /* each command is confirmed on the console first */
};

struct agent_config {
    char *prompt; /* the task; NULL with --replay */
    char *replay; /* --replay DIR/trace.jsonl */
    enum llm_provider_kind provider;
    char *base_url;
    char *model;
    char *api_key; /* never printed or logged */
    int max_steps;
    enum obs_mode mode;
    int max_edge;
    int history_images;
    char *log_dir;
    enum shell_policy shell;
    bool dry_run;
    bool stream;
    int llm_retries;      /* WINAGENT_LLM_RETRIES: retries after the first attempt (-1: default) */
    int llm_max_wait_ms;  /* WINAGENT_LLM_MAX_WAIT_MS: longest single backoff (0: default) */
    int llm_timeout_s;    /* WINAGENT_LLM_TIMEOUT_S: one whole request (0: default) */
    char *env_file; /* the .env that was read, or NULL */
};

/* Parses the run's command line (argv[0] is the program) and fills c. On a usage or
 * configuration error returns WA_E_USAGE / WA_E_CONFIG with the detail saying what
 * to fix. c must be cleaned up either way. */
wa_err config_load(int argc, char **argv, struct agent_config *c);
void config_cleanup(struct agent_config *c);

const char *shell_policy_name(enum shell_policy p);

#endif
