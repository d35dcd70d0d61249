/* The one JSON-Schema generator of the operation table: the model's tools, MCP's tool
 * list and any other protocol's declarations take their argument schemas from here.
 * Where front ends differ, the table's flags say how (ARGF_*, OPA_*). */
#ifndef WINAGENT_AGENT_CORE_REQUEST_OP_SCHEMA_H
#define WINAGENT_AGENT_CORE_REQUEST_OP_SCHEMA_H

#include <cjson/cJSON.h>

#include "agent/core/request/ops.h"

/* Whose schema: the model's (its argument names, element ids as integers) or the
 * CLI's, which MCP and serve share (refs or selectors, names such as "ref", "x2"). */
enum schema_for { SCHEMA_MODEL, SCHEMA_CLI };

/* The property of argument a as op takes it: type, description (unit and limits),
 * enum, minimum and maximum (for numbers refused outside them). A new object. */
cJSON *op_schema_property(const struct op_def *op, enum op_arg a, enum schema_for who);
/* The object schema of op's arguments for a front end, with "required" where any is.
 * A new object. */
cJSON *op_schema_input(const struct op_def *op, enum schema_for who);
/* The model's desktop tool: "action" (every operation with a model name but the
 * shell) and the union of their arguments (the first operation's words win). */
cJSON *op_schema_desktop(void);

#endif
