/* A client that adapts when a service names what it takes: one table of refusals (an HTTP
 * 400 whose message names a setting, a tool version, a parameter, a limit) and what each
 * changes in the client's settings for the rest of its life, so the request can be sent
 * again at once; and a reply cut at the output-token cap asked again with more. Internal
 * to llm/ (llm/client.c calls it). */
#ifndef WINAGENT_LLM_ADAPT_H
#define WINAGENT_LLM_ADAPT_H

#include <stdbool.h>
#include <stddef.h>

#include "llm/provider.h"

/* A refusal (status, the service's message) of a request that had n_tools tools: when a
 * rule of the table recognises it, the settings are changed, what changed is written
 * into what (a sentence for the log, cap bytes) and true is returned; false when no rule
 * applies (the refusal stands). */
bool adapt_refusal(struct llm_settings *s, long status, const char *message, size_t n_tools,
                   char *what, size_t cap);

/* A reply that ended at the output-token cap (asking for more may complete it): the
 * settings ask for more, up to what the model takes (its documented cap, else 128000);
 * true with what changed in what, false when nothing more can be asked for. */
bool adapt_output_cap(struct llm_settings *s, char *what, size_t cap);

#endif
