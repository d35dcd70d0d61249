/* The model's tools, built from the operation table: `desktop` (every operation with
 * a model name, chosen by "action") and `powershell` (the shell operation). */
#include "agent/run/tools.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/ops.h"

static const char desktop_description[] =
    "See and act on the Windows desktop. Coordinates are integers 0-999 over the latest "
    "observation (0,0 top-left, 999,999 bottom-right). Element ids come from the latest "
    "accessibility tree. Acting calls return a fresh observation of the window in front.";

static const char *json_type(const struct arg_def *d)
{
    switch (d->type) {
    case ARG_T_INT:
        return "integer";
    case ARG_T_NUM:
        return "number";
    case ARG_T_BOOL:
        return "boolean";
    case ARG_T_ELEMENT:
        return "integer"; /* the model names elements by their tree id */
    default:
        return "string";
    }
}

/* The model's words for an argument: element ids, not refs and selectors. */
static const char *model_help(const struct op_def *op, enum op_arg a)
{
    if (a == ARG_ELEMENT)
        return "An element id from the latest tree (instead of x,y).";
    if (a == ARG_TO_ELEMENT)
        return "drag: an element id from the latest tree to release on (instead of to_x,to_y).";
    if (a == ARG_TEXT)
        return "type: the text to type; set_value: the new value.";
    return op_arg_help(op, a);
}

static void add_choices(cJSON *prop, const char *choices)
{
    cJSON *arr = cJSON_AddArrayToObject(prop, "enum");
    char word[64];
    for (const char *p = choices; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        cJSON_AddItemToArray(arr, cJSON_CreateString(word));
        p = end ? end + 1 : NULL;
    }
}

/* The property of argument a as the model sees it in op (first use wins). */
static void add_property(cJSON *props, const struct op_def *op, enum op_arg a)
{
    const char *name = arg_name(a, true);
    if (cJSON_GetObjectItemCaseSensitive(props, name))
        return;
    const struct arg_def *d = arg_def(a);
    cJSON *p = cJSON_AddObjectToObject(props, name);
    cJSON_AddStringToObject(p, "type", json_type(d));
    cJSON_AddStringToObject(p, "description", model_help(op, a));
    if (d->choices)
        add_choices(p, d->choices);
}

static bool for_model(const struct op_arg_use *u)
{
    return !(u->flags & OPA_CLI);
}

static cJSON *desktop_schema(void)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *action = cJSON_AddObjectToObject(props, "action");
    cJSON_AddStringToObject(action, "type", "string");
    cJSON *names = cJSON_AddArrayToObject(action, "enum");
    cJSON_AddStringToObject(action, "description", "What to do.");
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *op = op_def((enum op_id)i);
        if (!op->model || (op->flags & OPF_SHELL))
            continue;
        cJSON_AddItemToArray(names, cJSON_CreateString(op->model));
        for (int j = 0; j < OP_MAX_ARGS && op->args[j].arg != ARG_NONE; j++)
            if (for_model(&op->args[j]))
                add_property(props, op, op->args[j].arg);
    }
    cJSON *req = cJSON_AddArrayToObject(s, "required");
    cJSON_AddItemToArray(req, cJSON_CreateString("action"));
    return s;
}

static cJSON *shell_schema(void)
{
    const struct op_def *op = op_def(OP_SHELL);
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *req = cJSON_AddArrayToObject(s, "required");
    for (int j = 0; j < OP_MAX_ARGS && op->args[j].arg != ARG_NONE; j++) {
        const struct op_arg_use *u = &op->args[j];
        add_property(props, op, u->arg);
        if (u->flags & OPA_REQ)
            cJSON_AddItemToArray(req, cJSON_CreateString(arg_name(u->arg, true)));
    }
    cJSON *cmd = cJSON_GetObjectItemCaseSensitive(props, "command");
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
        tools[0] = (struct llm_tool){"desktop", desktop_description, desktop_schema()};
        tools[1] = (struct llm_tool){op_def(OP_SHELL)->model, shell_description, shell_schema()};
    }
    *count = with_shell ? 2 : 1;
    return tools;
}
