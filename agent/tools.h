/* The tools declared to the model: `desktop` (SPEC §3) and `powershell`. */
#ifndef WINAGENT_AGENT_TOOLS_H
#define WINAGENT_AGENT_TOOLS_H

#include <stddef.h>

#include "llm/llm.h"

/* The declarations; with_shell false leaves `powershell` out (--shell off). */
const struct llm_tool *agent_tools(int with_shell, size_t *count);

#endif
