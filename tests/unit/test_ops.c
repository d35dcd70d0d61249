/* The one vocabulary: every front end's list of operations comes from the operation
 * table, and SKILL.md's command list is checked against it, so they cannot drift. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/core/request/op_schema.h"
#include "agent/core/request/ops.h"
#include "agent/front/cli.h"
#include "agent/mcp/mcp.h"
#include "agent/run/tools.h"
#include "automation/backend.h"

/* ---- the table itself ---- */

/* The names OP_MAP gives (the core's perform_<name> functions are declared from it). */
static const char *const map_names[OP__COUNT] = {
#define X_NAME(id, fn) [OP_##id] = #fn,
    OP_MAP(X_NAME)
#undef X_NAME
};

static void rows_are_complete_and_names_unique(void **state)
{
    (void)state;
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *a = op_def((enum op_id)i);
        assert_non_null(a);
        assert_int_equal(a->id, i);
        assert_non_null(a->name);
        assert_string_equal(a->name, map_names[i]);
        assert_true(a->help && strlen(a->help) > 10);
        assert_true(a->model || a->cli); /* reachable from some front end */
        for (int k = 0; k < OP_MAX_ARGS && a->args[k].arg != ARG_NONE; k++) {
            const struct arg_def *d = arg_def(a->args[k].arg);
            assert_non_null(d);
            assert_non_null(d->name);
            assert_true(d->help && *d->help);
            for (int m = k + 1; m < OP_MAX_ARGS && a->args[m].arg != ARG_NONE; m++)
                assert_int_not_equal(a->args[k].arg, a->args[m].arg);
        }
        for (int j = i + 1; j < OP__COUNT; j++) {
            const struct op_def *b = op_def((enum op_id)j);
            assert_string_not_equal(a->name, b->name);
            if (a->cli && b->cli)
                assert_string_not_equal(a->cli, b->cli);
            if (a->model && b->model)
                assert_string_not_equal(a->model, b->model);
        }
        if (a->cli)
            assert_ptr_equal(op_by_cli(a->cli), a);
    }
    assert_null(op_by_cli("no-such-command"));
}

/* The model's aliases and misspellings land on the table's rows; unknown names are
 * refused with the list of valid ones. */
static void model_names_and_aliases(void **state)
{
    (void)state;
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *d = op_def((enum op_id)i), *got = NULL;
        if (!d->model ||
            (d->flags & OPF_OWN_TOOL)) /* the shell and ask_user are tools of their own */
            continue;
        assert_int_equal(op_by_model(d->model, &got), WA_E_OK);
        assert_ptr_equal(got, d);
    }
    const struct op_def *got = NULL;
    assert_int_equal(op_by_model("left_click", &got), WA_E_OK);
    assert_int_equal(got->id, OP_CLICK);
    assert_int_equal(op_by_model("Double-Click", &got), WA_E_OK);
    assert_int_equal(got->id, OP_DOUBLE_CLICK);
    assert_int_equal(op_by_model("fly_to_the_moon", &got), WA_E_INVALID_ARGS);
    const char *list = op_model_action_list();
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *d = op_def((enum op_id)i);
        if (d->model && !(d->flags & OPF_OWN_TOOL))
            assert_non_null(strstr(list, d->model));
    }
}

/* ---- the model's tools ---- */

static const cJSON *prop(const cJSON *schema, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema, "properties"),
                                            name);
}

static void model_schema_is_the_table(void **state)
{
    (void)state;
    size_t n = 0;
    const struct llm_tool *tools = tools_functions(true, &n);
    assert_int_equal(n, 3);
    const struct llm_tool *desk = NULL, *shell = NULL, *ask = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(tools[i].name, "desktop") == 0)
            desk = &tools[i];
        else if (strcmp(tools[i].name, "powershell") == 0)
            shell = &tools[i];
        else if (strcmp(tools[i].name, "ask_user") == 0)
            ask = &tools[i];
    }
    assert_non_null(desk);
    assert_non_null(shell);
    assert_non_null(ask); /* a tool of its own, its argument from the table */
    assert_non_null(prop(ask->parameters, "question"));
    const cJSON *actions =
        cJSON_GetObjectItemCaseSensitive(prop(desk->parameters, "action"), "enum");
    assert_true(cJSON_IsArray(actions));
    int model_ops = 0;
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *d = op_def((enum op_id)i);
        if (!d->model || (d->flags & OPF_OWN_TOOL))
            continue;
        model_ops++;
        bool found = false;
        const cJSON *a;
        cJSON_ArrayForEach(a, actions) found = found || strcmp(a->valuestring, d->model) == 0;
        assert_true(found);
        /* every argument the model may pass is a property of the schema */
        for (int k = 0; k < OP_MAX_ARGS && d->args[k].arg != ARG_NONE; k++)
            if (!(d->args[k].flags & OPA_CLI))
                assert_non_null(prop(desk->parameters, arg_name(d->args[k].arg, true)));
    }
    assert_int_equal(cJSON_GetArraySize(actions), model_ops);

    tools = tools_functions(false, &n); /* no shell: the desktop and ask_user */
    assert_int_equal(n, 2);
    assert_string_equal(tools[0].name, "desktop");
    assert_string_equal(tools[1].name, "ask_user");
}

/* ---- MCP and the CLI ---- */

static void mcp_tools_are_the_cli_commands(void **state)
{
    (void)state;
    for (int shell = 0; shell < 2; shell++) {
        struct core_config cfg = {.be = backend_default(),
                                  .shell = shell ? SHELL_ALLOWED : SHELL_DENIED};
        struct core *c = NULL;
        assert_int_equal(core_new(&cfg, &c), WA_E_OK);
        cJSON *list = mcp_tools_list(c);
        const cJSON *tools = cJSON_GetObjectItemCaseSensitive(list, "tools");
        int expected = 0;
        for (int i = 0; i < OP__COUNT; i++) {
            const struct op_def *d = op_def((enum op_id)i);
            bool offered = d->cli && (shell || !(d->flags & OPF_SHELL));
            expected += offered;
            const cJSON *t, *hit = NULL;
            cJSON_ArrayForEach(t, tools)
            {
                const cJSON *nm = cJSON_GetObjectItemCaseSensitive(t, "name");
                if (d->cli && strcmp(nm->valuestring, d->cli) == 0)
                    hit = t;
            }
            assert_true(offered ? hit != NULL : hit == NULL);
            if (!hit)
                continue;
            const cJSON *schema = cJSON_GetObjectItemCaseSensitive(hit, "inputSchema");
            for (int k = 0; k < OP_MAX_ARGS && d->args[k].arg != ARG_NONE; k++) {
                const struct arg_def *ad = arg_def(d->args[k].arg);
                if (d->args[k].flags & OPA_MODEL)
                    continue;
                /* a file to write is the command line's alone: never offered to MCP */
                if (ad->flags & ARGF_WRITES_FILE)
                    assert_null(prop(schema, ad->name));
                else
                    assert_non_null(prop(schema, ad->name));
            }
            const cJSON *ann = cJSON_GetObjectItemCaseSensitive(hit, "annotations");
            assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ann, "readOnlyHint")),
                             !op_acts(d));
        }
        assert_int_equal(cJSON_GetArraySize(tools), expected);
        cJSON_Delete(list);
        core_free(c);
    }
}

/* The model's tools and MCP's tool list come from the one generator and agree: for every
 * operation and every argument both take, the same enum, limits and description (but
 * for the model's own words), and types that differ only where the table says so. */
static void model_and_mcp_schemas_agree(void **state)
{
    (void)state;
    size_t n;
    const struct llm_tool *tools = tools_functions(true, &n);
    const cJSON *model_props = cJSON_GetObjectItemCaseSensitive(tools[0].parameters, "properties");
    const cJSON *shell_props = cJSON_GetObjectItemCaseSensitive(tools[1].parameters, "properties");
    const cJSON *ask_props = cJSON_GetObjectItemCaseSensitive(tools[2].parameters, "properties");
    struct core_config cfg = {.be = backend_default(), .shell = SHELL_ALLOWED};
    struct core *c = NULL;
    assert_int_equal(core_new(&cfg, &c), WA_E_OK);
    cJSON *list = mcp_tools_list(c);
    int compared = 0;
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *op = op_def((enum op_id)i);
        if (!op->model || !op->cli)
            continue;
        const cJSON *mcp_props = NULL, *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(list, "tools"))
        {
            if (strcmp(cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring, op->cli) == 0)
                mcp_props = cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(t, "inputSchema"), "properties");
        }
        if (!mcp_props) /* the shell is listed only when allowed */
            continue;
        for (int j = 0; j < OP_MAX_ARGS && op->args[j].arg != ARG_NONE; j++) {
            const struct op_arg_use *u = &op->args[j];
            if (u->flags & (OPA_MODEL | OPA_CLI))
                continue;
            const struct arg_def *d = arg_def(u->arg);
            const cJSON *mp =
                cJSON_GetObjectItemCaseSensitive((op->flags & OPF_SHELL)    ? shell_props
                                                 : (op->flags & OPF_PERSON) ? ask_props
                                                                            : model_props,
                                                 arg_name(u->arg, true));
            const cJSON *cp = cJSON_GetObjectItemCaseSensitive(mcp_props, d->name);
            assert_non_null(mp);
            assert_non_null(cp);
            /* each is exactly what the generator makes */
            cJSON *gen_c = op_schema_property(op, u->arg, SCHEMA_CLI);
            assert_true(cJSON_Compare(gen_c, cp, true));
            cJSON_Delete(gen_c);
            /* the same words where the table gives no other */
            const char *keys[] = {"enum", "minimum", "maximum"};
            for (size_t k = 0; k < 3; k++) {
                const cJSON *a = cJSON_GetObjectItemCaseSensitive(mp, keys[k]);
                const cJSON *b = cJSON_GetObjectItemCaseSensitive(cp, keys[k]);
                assert_true((!a && !b) || (a && b && cJSON_Compare(a, b, true)));
            }
            if (!(d->flags & (ARGF_MODEL_ID | ARGF_MODEL_TEXT)))
                assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(mp, "type"),
                                          cJSON_GetObjectItemCaseSensitive(cp, "type"), true));
            compared++;
        }
    }
    assert_true(compared > 30);
    cJSON_Delete(list);
    core_free(c);
}

static void cli_usage_names_every_argument(void **state)
{
    (void)state;
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *d = op_def((enum op_id)i);
        if (!d->cli)
            continue;
        assert_true(cli_is_command(d->cli));
        char usage[600];
        cli_usage(d, usage, sizeof usage);
        assert_memory_equal(usage, d->cli, strlen(d->cli));
        for (int k = 0; k < OP_MAX_ARGS && d->args[k].arg != ARG_NONE; k++) {
            if (d->args[k].flags & (OPA_MODEL | OPA_POS))
                continue;
            const struct arg_def *a = arg_def(d->args[k].arg);
            /* options appear as --name (underscores as dashes) */
            char flag[64];
            size_t j = 0;
            for (; a->name[j] && j + 1 < sizeof flag; j++)
                flag[j] = a->name[j] == '_' ? '-' : a->name[j];
            flag[j] = '\0';
            if (!strstr(usage, flag))
                fail_msg("usage of %s lacks --%s: %s", d->cli, flag, usage);
        }
    }
}

/* ---- SKILL.md ---- */

static char *read_skill(void)
{
    const char *src = getenv("WINAGENT_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/SKILL.md", src ? src : ".");
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* The end of a table row's first cell: its first '|' that is not written "\|". */
static const char *cell_end(const char *row)
{
    const char *p = row + 1;
    while ((p = strchr(p, '|')) && p[-1] == '\\')
        p++;
    return p;
}

/* Whether the command table of SKILL.md names cmd as the first word of a `code` span in
 * a row's first column. Every such word must be a real command, too. */
static bool skill_lists(const char *table, const char *cmd)
{
    for (const char *row = table; row && *row == '|';
         row = strchr(row, '\n'), row = row ? row + 1 : NULL) {
        const char *end = cell_end(row);
        for (const char *p = strchr(row + 1, '`'); p && end && p < end; p = strchr(p + 1, '`')) {
            const char *q = strchr(p + 1, '`');
            if (!q || q > end)
                break;
            size_t n = strcspn(p + 1, " `");
            if (n == strlen(cmd) && strncmp(p + 1, cmd, n) == 0)
                return true;
            p = q;
        }
    }
    return false;
}

static void skill_commands_match_the_table(void **state)
{
    (void)state;
    char *skill = read_skill();
    assert_non_null(skill);
    const char *sec = strstr(skill, "## Commands");
    assert_non_null(sec);
    const char *table = strstr(sec, "\n|");
    assert_non_null(table);
    table++;
    table = strchr(table, '\n') + 1; /* the header */
    table = strchr(table, '\n') + 1; /* the rule */

    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_def *d = op_def((enum op_id)i);
        if (d->cli && !skill_lists(table, d->cli))
            fail_msg("SKILL.md's command table lacks `%s`", d->cli);
    }
    /* and every command it lists exists */
    for (const char *row = table; *row == '|'; row = strchr(row, '\n') + 1) {
        const char *end = cell_end(row);
        for (const char *p = strchr(row + 1, '`'); p && p < end; p = strchr(p + 1, '`')) {
            const char *q = strchr(p + 1, '`');
            size_t n = strcspn(p + 1, " `");
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)n, p + 1);
            if (!cli_is_command(word))
                fail_msg("SKILL.md lists `%s`, which is no command", word);
            p = q;
        }
        if (!strchr(row, '\n'))
            break;
    }
    free(skill);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_are_complete_and_names_unique),
        cmocka_unit_test(model_names_and_aliases),
        cmocka_unit_test(model_schema_is_the_table),
        cmocka_unit_test(mcp_tools_are_the_cli_commands),
        cmocka_unit_test(model_and_mcp_schemas_agree),
        cmocka_unit_test(cli_usage_names_every_argument),
        cmocka_unit_test(skill_commands_match_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
