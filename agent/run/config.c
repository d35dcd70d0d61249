/* The run's configuration: what it owns. */
#include "agent/run/config.h"

#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "llm/models.h"

static const char *const history_names[] = {"auto", "trim", "append", "server", "drop-thinking"};

wa_err config_history_parse(const char *name, enum history_policy *out)
{
    for (size_t i = 0; name && i < sizeof history_names / sizeof history_names[0]; i++)
        if (str_ieq(name, history_names[i])) {
            *out = (enum history_policy)i;
            return WA_E_OK;
        }
    return wa_fail(WA_E_CONFIG,
                   "history must be auto, trim, append, server or drop-thinking, "
                   "not '%s'",
                   name ? name : "");
}

const char *config_history_name(enum history_policy h)
{
    return (size_t)h < sizeof history_names / sizeof history_names[0] ? history_names[h] : "?";
}

enum history_policy config_history_settle(const struct agent_config *c, const char **why)
{
    const struct model_family *f = model_family(c->model);
    bool anthropic = c->provider == LLM_PROVIDER_ANTHROPIC;
    bool bound = f->binding != MODEL_BIND_NONE && f->provider == c->provider;
    switch (c->history) {
    case HISTORY_AUTO:
        if (!bound) {
            *why = "the service keeps no thinking bound to the history: older observations "
                   "become a line";
            return HISTORY_TRIM;
        }
        *why = anthropic ? "the service binds replayed thinking to the history: nothing sent "
                           "changes, and it clears older tool results itself"
                         : "the service binds replayed thinking to the history: nothing sent "
                           "changes";
        return anthropic ? HISTORY_SERVER : HISTORY_APPEND;
    case HISTORY_SERVER:
        *why = anthropic ? "as configured"
                         : "as configured, but only Anthropic clears results "
                           "itself: nothing sent changes";
        return anthropic ? HISTORY_SERVER : HISTORY_APPEND;
    case HISTORY_DROP_THINKING:
        *why = anthropic && bound ? "as configured"
                                  : "as configured, but the service binds no thinking: trim";
        return anthropic && bound ? HISTORY_DROP_THINKING : HISTORY_TRIM;
    case HISTORY_TRIM:
    case HISTORY_APPEND:
        break;
    }
    *why = "as configured";
    return c->history;
}

int config_images_per_request(const struct agent_config *c)
{
    bool whole = c->history == HISTORY_APPEND || c->history == HISTORY_SERVER;
    return 1 + (whole ? c->max_steps : c->history_images);
}

void config_cleanup(struct agent_config *c)
{
    free(c->prompt);
    free(c->replay);
    settings_cleanup(&c->settings);
    memset(c, 0, sizeof *c);
}
