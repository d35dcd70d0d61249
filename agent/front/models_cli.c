/* `winagent models`: the model families as a table, and the configured model's. */
#include "agent/front/models_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/request/exit.h"
#include "agent/core/config/settings.h"
#include "base/args.h"
#include "base/term_text.h"
#include "llm/models.h"
#include "llm/protocol.h"

/* One family as JSON. */
static cJSON *family_json(const struct model_family *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "family", f->name);
    cJSON_AddStringToObject(o, "id", f->id);
    cJSON_AddStringToObject(o, "provider", llm_provider_name(f->provider));
    if (f->computer)
        cJSON_AddStringToObject(o, "computer_tool", f->computer);
    else
        cJSON_AddNullToObject(o, "computer_tool");
    if (f->computer_also)
        cJSON_AddStringToObject(o, "computer_tool_also", f->computer_also);
    cJSON_AddStringToObject(o, "thinks", model_thinking_name(f->thinking));
    cJSON_AddStringToObject(o, "thinking_bound_to_history", model_binding_name(f->binding));
    cJSON *img = cJSON_AddObjectToObject(o, "images");
    cJSON_AddNumberToObject(img, "edge", f->image_edge);
    cJSON_AddNumberToObject(img, "pixels", (double)f->image_pixels);
    cJSON_AddNumberToObject(img, "short_edge", f->image_short_edge);
    cJSON_AddNumberToObject(img, "many_images", f->many_images);
    cJSON_AddNumberToObject(img, "many_edge", f->many_edge);
    cJSON_AddBoolToObject(o, "forced_tool_choice", f->forced_choice);
    cJSON_AddNumberToObject(o, "max_tokens", f->max_tokens);
    cJSON_AddNumberToObject(o, "output_cap", f->output_cap);
    cJSON_AddStringToObject(o, "source", f->source);
    return o;
}

/* The family as one line of the text table. */
static void family_line(const struct model_family *f)
{
    char images[48] = "-";
    if (f->image_edge)
        snprintf(images, sizeof images, "%d px", f->image_edge);
    term_line(stdout, "  %-34s %-24s %-27s %-10s %-13s %-8s %s", f->name, f->id[0] ? f->id : "-",
              f->computer ? f->computer : "-", model_thinking_name(f->thinking),
              model_binding_name(f->binding), images, f->forced_choice ? "yes" : "refused");
}

int cmd_models(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    bool markdown = args_flag(&a, "markdown", NULL), json = args_flag(&a, "json", NULL);
    struct settings s;
    wa_err e = settings_load(&s, &a, SG_RUN);
    if (!e)
        e = args_check_unknown(&a);
    if (!e && args_positional(&a, 0))
        e = wa_fail(WA_E_USAGE, "models takes no arguments (use --model NAME)");
    if (e) {
        settings_cleanup(&s);
        return exit_fail(e);
    }
    const char *model = settings_get(&s, SET_MODEL);
    const struct model_family *mine = model_family(model);
    if (markdown) {
        static char table[1 << 16];
        if (!model_table_markdown(table, sizeof table)) {
            settings_cleanup(&s);
            return exit_fail(wa_fail(WA_E_TOO_LARGE, "the table does not fit"));
        }
        fputs(table, stdout);
    } else if (json) {
        cJSON *root = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(root, "families");
        const struct model_family *f;
        for (size_t i = 0; (f = model_row(i)) != NULL; i++)
            cJSON_AddItemToArray(rows, family_json(f));
        if (model) {
            cJSON *m = cJSON_AddObjectToObject(root, "model");
            cJSON_AddStringToObject(m, "name", model);
            cJSON_AddItemToObject(m, "resolves_to", family_json(mine));
        }
        char *text = cJSON_PrintUnformatted(root);
        if (text)
            puts(text);
        cJSON_free(text);
        cJSON_Delete(root);
    } else {
        term_line(stdout, "  %-34s %-24s %-27s %-10s %-13s %-8s %s", "family", "API id",
                  "computer tool", "thinks", "bound", "images", "forced choice");
        const struct model_family *f;
        for (size_t i = 0; (f = model_row(i)) != NULL; i++)
            family_line(f);
        if (model) {
            term_line(stdout, "model %s: %s", model, mine->name);
            term_line(stdout,
                      "  computer tool %s%s%s; thinks %s; replayed thinking bound to "
                      "the history: %s; max tokens %d",
                      mine->computer ? mine->computer : "none", mine->computer_also ? ", " : "",
                      mine->computer_also ? mine->computer_also : "",
                      model_thinking_name(mine->thinking), model_binding_name(mine->binding),
                      mine->max_tokens);
            term_line(stdout, "  source: %s", mine->source);
        } else {
            term_line(stdout, "model: (unset; --model NAME or LLM_MODEL shows what it resolves "
                              "to)");
        }
    }
    settings_cleanup(&s);
    return EXIT_OK;
}
