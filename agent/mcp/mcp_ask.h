/* The MCP server asks the client's user: ask_user's question as an elicitation
 * (elicitation/create, protocol 2025-06-18 and later) when the client declared the
 * capability, and the client's response routed back to the question waiting for it. */
#ifndef WINAGENT_AGENT_MCP_MCP_ASK_H
#define WINAGENT_AGENT_MCP_MCP_ASK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "agent/core/config/core_config.h"

/* The session's asker (struct person_asker; ctx: the struct mcp_server): nobody when the
 * client declared no elicitation; else the question goes to the client, on the sink of
 * the request being served, and the answer is waited for (a cancelled request, an
 * interrupt or ten minutes end the wait: declined). */
enum person_answer mcp_ask_person(void *ctx, const char *question, bool confirm,
                                  const volatile bool *cancel, char **answer);

/* A response from the client (a message with "result" or "error" and no "method"): when
 * it answers the question waiting, it is handed over (true); else it is ignored. */
bool mcp_ask_response(void *server, const cJSON *msg);

#endif
