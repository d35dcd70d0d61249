/* The model's tools, built from the operation table: `desktop` (every operation with
 * a model name, chosen by "action") and `powershell` (the shell operation). */
#include "agent/run/tools.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/op_schema.h"

static const char desktop_description[] =
    "See and act on the Windows desktop. Coordinates are integers 0-999 over the latest "
    "observation (0,0 top-left, 999,999 bottom-right). Element ids come from the latest "
    "accessibility tree. Acting calls return a fresh observation of the window in front.";

/* The powershell tool: the shell operation's arguments as the model takes them. */
static cJSON *shell_schema(void)
{
    cJSON *s = op_schema_input(op_def(OP_SHELL), SCHEMA_MODEL);
    cJSON *cmd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "properties"),
                                                  "command");
    cJSON_ReplaceItemInObjectCaseSensitive(cmd, "description",
                                           cJSON_CreateString("The PowerShell command."));
    return s;
}

const struct llm_tool *agent_tools(bool with_shell, size_t *count)
{
    /* Built once; they live as long as the process. */
    static struct llm_tool tools[2];
    static char shell_description[400];
    if (!tools[0].name) {
        snprintf(shell_description, sizeof shell_description,
                 "Run a PowerShell command on this computer and get its exit code, stdout and "
                 "stderr (long output is shortened, keeping its start and end). No window is "
                 "shown; do not start interactive programs with it.");
        tools[0] = (struct llm_tool){"desktop", desktop_description, op_schema_desktop(), NULL};
        tools[1] =
            (struct llm_tool){op_def(OP_SHELL)->model, shell_description, shell_schema(), NULL};
    }
    *count = with_shell ? 2 : 1;
    return tools;
}

/* The computer protocol's custom functions beside the provider's computer tool: what a
 * screenshot cannot do. */
static const char tree_description[] =
    "Read the accessibility tree of the window in front: its controls with their names, "
    "values and states, as text. Use it to read text exactly; act with the computer tool.";
static const char launch_description[] =
    "Start a program by name or path (notepad, calc, C:\\path\\app.exe) and bring its "
    "window to the front.";

const struct llm_tool *agent_computer_tools(const struct llm_computer_tool *computer,
                                            bool with_shell, size_t *count)
{
    static struct llm_tool tools[4];
    static cJSON *launch, *empty;
    size_t n_shell;
    const struct llm_tool *shell = agent_tools(true, &n_shell) + 1;
    if (!launch) {
        launch = op_schema_input(op_def(OP_LAUNCH), SCHEMA_MODEL);
        empty = cJSON_CreateObject();
        cJSON_AddStringToObject(empty, "type", "object");
        cJSON_AddObjectToObject(empty, "properties");
    }
    tools[0] = (struct llm_tool){"computer", NULL, NULL, computer};
    tools[1] = (struct llm_tool){AGENT_TOOL_LAUNCH, launch_description, launch, NULL};
    tools[2] = (struct llm_tool){AGENT_TOOL_TREE, tree_description, empty, NULL};
    tools[3] = *shell;
    *count = with_shell ? 4 : 3;
    return tools;
}
