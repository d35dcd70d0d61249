/* The model's tools, built from the operation table: `desktop` (every operation with
 * a model name, chosen by "action") and `powershell` (the shell operation). */
#include "agent/run/tools.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/request/op_schema.h"
#include "base/dynbuf.h"
#include "base/str.h"

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

/* ask_user: the operation's argument as the model takes it. */
static const char ask_description[] =
    "Ask the person at this computer a question when you cannot decide on your own (a choice "
    "only they can make, something missing from the task) and get their answer. When nobody "
    "is there, it says so at once: then decide on your own.";

/* `ask_user` (the ask_user operation), for every protocol. */
static struct llm_tool ask_tool(void)
{
    static cJSON *schema;
    if (!schema)
        schema = op_schema_input(op_def(OP_ASK_USER), SCHEMA_MODEL);
    return (struct llm_tool){op_def(OP_ASK_USER)->model, ask_description, schema, NULL};
}

const struct llm_tool *tools_functions(bool with_shell, size_t *count)
{
    /* Built once; they live as long as the process: desktop, powershell, ask_user, and
     * without the shell desktop and ask_user. */
    static struct llm_tool tools[3], no_shell[2];
    static char shell_description[400];
    if (!tools[0].name) {
        snprintf(shell_description, sizeof shell_description,
                 "Run a PowerShell command on this computer and get its exit code, stdout and "
                 "stderr (long output is shortened, keeping its start and end). No window is "
                 "shown; do not start interactive programs with it.");
        tools[0] = (struct llm_tool){"desktop", desktop_description, op_schema_desktop(), NULL};
        tools[1] =
            (struct llm_tool){op_def(OP_SHELL)->model, shell_description, shell_schema(), NULL};
        tools[2] = ask_tool();
        no_shell[0] = tools[0];
        no_shell[1] = tools[2];
    }
    *count = with_shell ? 3 : 2;
    return with_shell ? tools : no_shell;
}

/* The computer protocol's custom functions beside the provider's computer tool: what a
 * screenshot cannot do. */
static const char tree_description[] =
    "Read the accessibility tree of the window in front: its controls with their names, "
    "values and states, as text. Use it to read text exactly; act with the computer tool.";
static const char launch_description[] =
    "Start a program by name or path (notepad, calc, C:\\path\\app.exe) and bring its "
    "window to the front.";

const struct llm_tool *tools_computer(const struct llm_computer_tool *computer, bool with_shell,
                                      size_t *count)
{
    static struct llm_tool tools[5];
    static cJSON *launch, *empty;
    size_t n_shell;
    const struct llm_tool *shell = tools_functions(true, &n_shell) + 1;
    if (!launch) {
        launch = op_schema_input(op_def(OP_LAUNCH), SCHEMA_MODEL);
        empty = cJSON_CreateObject();
        cJSON_AddStringToObject(empty, "type", "object");
        cJSON_AddObjectToObject(empty, "properties");
    }
    tools[0] = (struct llm_tool){"computer", NULL, NULL, computer};
    tools[1] = (struct llm_tool){AGENT_TOOL_LAUNCH, launch_description, launch, NULL};
    tools[2] = (struct llm_tool){AGENT_TOOL_TREE, tree_description, empty, NULL};
    tools[3] = ask_tool();
    tools[4] = *shell;
    *count = with_shell ? 5 : 4;
    return tools;
}

extern const char prompt_system[];
extern const char prompt_text_calls[];
extern const char prompt_uitars10[];
extern const char prompt_uitars15[];
extern const char prompt_computer[];

char *tools_system_prompt(const struct llm_protocol_choice *p, bool with_shell)
{
    /* a grounding model knows its own grammar only: UI-TARS-1.5 (pixels) writes
     * point='<point>x y</point>', 1.0 (0-1000) start_box='(x,y)' */
    if (p->protocol == LLM_PROTO_TEXT && p->grammar == LLM_TEXT_UITARS)
        return str_dup(p->coords == LLM_COORDS_PIXELS ? prompt_uitars15 : prompt_uitars10);
    if (p->protocol == LLM_PROTO_COMPUTER) /* the provider's tool: no desktop function */
        return str_dup(prompt_computer);
    if (p->protocol != LLM_PROTO_TEXT)
        return str_dup(prompt_system);
    struct dynbuf b;
    dynbuf_init(&b, 1u << 20);
    wa_err e = dynbuf_adds(&b, prompt_system);
    if (!e)
        e = dynbuf_addf(&b, "\n%s", prompt_text_calls);
    size_t n;
    const struct llm_tool *tools = tools_functions(with_shell, &n);
    for (size_t i = 0; !e && i < n; i++) {
        cJSON *t = cJSON_CreateObject();
        char *json = NULL;
        if (t && cJSON_AddStringToObject(t, "name", tools[i].name) &&
            cJSON_AddStringToObject(t, "description", tools[i].description) &&
            cJSON_AddItemToObject(t, "parameters", cJSON_Duplicate(tools[i].parameters, true)))
            json = cJSON_PrintUnformatted(t);
        cJSON_Delete(t);
        e = json ? dynbuf_addf(&b, "\n%s\n", json) : WA_E_NOMEM;
        cJSON_free(json);
    }
    if (e) {
        dynbuf_cleanup(&b);
        return NULL;
    }
    return dynbuf_take(&b);
}
