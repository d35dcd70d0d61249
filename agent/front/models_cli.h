/* `winagent models`: the table of model families (llm/models.h) and what the configured
 * model resolves to (docs/contract.md §2). */
#ifndef WINAGENT_AGENT_FRONT_MODELS_CLI_H
#define WINAGENT_AGENT_FRONT_MODELS_CLI_H

/* argv[0] is "models". Prints every family, then the configured --model's (or the one
 * named with --model); --markdown prints the table of docs/providers.md, --json the
 * rows as JSON. Returns the exit code. */
int cmd_models(int argc, char **argv);

#endif
