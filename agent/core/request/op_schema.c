/* JSON Schemas of operations from the table, for every front end alike. */
#include "agent/core/request/op_schema.h"

#include <stdio.h>
#include <string.h>

#include "agent/core/request/request.h"

/* Whether the front end takes the argument: file-writing ones are the command line's
 * alone, which has no schema. */
static bool takes(const struct op_arg_use *u, enum schema_for who)
{
    return !(u->flags & (who == SCHEMA_MODEL ? OPA_CLI : OPA_MODEL)) &&
           !(arg_def(u->arg)->flags & ARGF_WRITES_FILE);
}

static void add_type(cJSON *p, const struct arg_def *d, enum schema_for who)
{
    static const char *const names[] = {
        [ARG_T_INT] = "integer",   [ARG_T_NUM] = "number",  [ARG_T_STR] = "string",
        [ARG_T_BOOL] = "boolean",  [ARG_T_ENUM] = "string", [ARG_T_ELEMENT] = "string",
        [ARG_T_WINDOW] = "string",
    };
    bool either = d->type == ARG_T_ELEMENT || d->type == ARG_T_WINDOW;
    if (who == SCHEMA_MODEL && (d->flags & ARGF_MODEL_ID)) {
        cJSON_AddStringToObject(p, "type", "integer");
    } else if (who == SCHEMA_MODEL && (d->flags & ARGF_MODEL_TEXT)) {
        cJSON_AddStringToObject(p, "type", "string");
    } else if (either) { /* 3 or "e3"; a handle or a title */
        cJSON *types = cJSON_AddArrayToObject(p, "type");
        cJSON_AddItemToArray(types, cJSON_CreateString("string"));
        cJSON_AddItemToArray(types, cJSON_CreateString("integer"));
    } else {
        cJSON_AddStringToObject(p, "type", names[d->type]);
    }
}

static void add_choices(cJSON *p, const char *choices)
{
    cJSON *arr = cJSON_AddArrayToObject(p, "enum");
    char word[64];
    for (const char *c = choices; c && *c;) {
        const char *end = strchr(c, ',');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        snprintf(word, sizeof word, "%.*s", (int)n, c);
        cJSON_AddItemToArray(arr, cJSON_CreateString(word));
        c = end ? end + 1 : NULL;
    }
}

cJSON *op_schema_property(const struct op_def *op, enum op_arg a, enum schema_for who)
{
    const struct arg_def *d = arg_def(a);
    cJSON *p = cJSON_CreateObject();
    add_type(p, d, who);
    const char *help = who == SCHEMA_MODEL && d->model_help ? d->model_help : op_arg_help(op, a);
    cJSON_AddStringToObject(p, "description", help);
    if (d->choices)
        add_choices(p, d->choices);
    /* Limits that refuse: said in the schema. Clamped ones accept anything. */
    if ((d->type == ARG_T_INT || d->type == ARG_T_NUM) && (d->min != 0 || d->max != 0) &&
        d->range == RANGE_REJECT) {
        cJSON_AddNumberToObject(p, "minimum", d->min);
        cJSON_AddNumberToObject(p, "maximum", d->max);
    }
    return p;
}

cJSON *op_schema_input(const struct op_def *op, enum schema_for who)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *required = cJSON_CreateArray();
    bool model = who == SCHEMA_MODEL;
    for (int i = 0; i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++) {
        const struct op_arg_use *u = &op->args[i];
        if (!takes(u, who))
            continue;
        const char *name = arg_name(u->arg, model);
        cJSON_AddItemToObject(props, name, op_schema_property(op, u->arg, who));
        if (op_arg_required(u->flags, model))
            cJSON_AddItemToArray(required, cJSON_CreateString(name));
    }
    if (cJSON_GetArraySize(required) > 0)
        cJSON_AddItemToObject(s, "required", required);
    else
        cJSON_Delete(required);
    return s;
}

cJSON *op_schema_desktop(void)
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
        if (!op->model || (op->flags & OPF_OWN_TOOL))
            continue;
        cJSON_AddItemToArray(names, cJSON_CreateString(op->model));
        for (int j = 0; j < OP_MAX_ARGS && op->args[j].arg != ARG_NONE; j++) {
            const struct op_arg_use *u = &op->args[j];
            const char *name = arg_name(u->arg, true);
            if (takes(u, SCHEMA_MODEL) && !cJSON_GetObjectItemCaseSensitive(props, name))
                cJSON_AddItemToObject(props, name, op_schema_property(op, u->arg, SCHEMA_MODEL));
        }
    }
    cJSON *req = cJSON_AddArrayToObject(s, "required");
    cJSON_AddItemToArray(req, cJSON_CreateString("action"));
    return s;
}
