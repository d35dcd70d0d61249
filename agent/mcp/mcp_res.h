/* The MCP server's resources, completion and prompts (mcp_res.c). */
#ifndef WINAGENT_AGENT_MCP_MCP_RES_H
#define WINAGENT_AGENT_MCP_MCP_RES_H

#include <cjson/cJSON.h>

#include "agent/mcp/mcp_req.h"

/* The methods' handlers: resources/list, resources/templates/list, resources/read,
 * completion/complete, prompts/list and prompts/get. */
void mcp_res_list(struct req *rq, struct reply *rep);

void mcp_res_templates_list(struct req *rq, struct reply *rep);

void mcp_res_read(struct req *rq, const cJSON *params, struct reply *rep);

/* completion/complete: window titles for the {window} of the templates. */
void mcp_res_complete(struct req *rq, const cJSON *params, struct reply *rep);

void mcp_res_prompts_list(struct req *rq, struct reply *rep);

void mcp_res_prompts_get(const cJSON *params, struct reply *rep);

#endif
