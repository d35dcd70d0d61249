/* The tools declared to the model, generated from the operation table: `desktop`
 * (docs/contract.md §3) and `powershell`. */
#ifndef WINAGENT_AGENT_RUN_TOOLS_H
#define WINAGENT_AGENT_RUN_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "llm/llm.h"
#include "llm/protocol.h"

/* The declarations: `desktop`, `powershell` and `ask_user`; with_shell false leaves
 * `powershell` out (--shell off). Built once and kept for the life of the process. */
const struct llm_tool *tools_functions(bool with_shell, size_t *count);

/* Names of the computer protocol's custom functions. */
#define AGENT_TOOL_LAUNCH "launch"
#define AGENT_TOOL_TREE   "window_tree"

/* The computer protocol's tools: the provider's computer tool (computer is kept by
 * pointer), then launch, window_tree, ask_user and (with_shell) powershell as
 * functions. */
const struct llm_tool *tools_computer(const struct llm_computer_tool *computer, bool with_shell,
                                      size_t *count);
/* The system prompt for the protocol: winagent's own; with `text`, plus how to write
 * calls and the tools' schemas (Hermes blocks), or a grounding model's own prompt and
 * action grammar (UI-TARS). Heap string; NULL when out of memory. */
char *tools_system_prompt(const struct llm_protocol_choice *p, bool with_shell);

#endif
