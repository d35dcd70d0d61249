/* The command-line front of the command layer: `winagent state`, `click 3`, `fill 4
 * "text"`, ... Arguments become the same JSON parameters MCP and serve send. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/args.h"
#include "agent/cli.h"
#include "agent/ctl.h"
#include "base/os.h"
#include "base/str.h"

extern const char prompt_skill[];

/* Positional names per command, in order ("?" marks optional ones). */
static const struct {
    const char *command;
    const char *positional[4];
} shapes[] = {
    {"state", {NULL}},
    {"click", {"ref"}},
    {"dblclick", {"ref"}},
    {"rightclick", {"ref"}},
    {"click-at", {"x", "y"}},
    {"fill", {"ref", "text"}},
    {"type", {"text"}},
    {"keys", {"keys"}},
    {"invoke", {"ref"}},
    {"toggle", {"ref"}},
    {"expand", {"ref"}},
    {"collapse", {"ref"}},
    {"select", {"ref"}},
    {"scroll", {"?ref", "direction", "?amount"}},
    {"drag", {"ref", "x2", "y2"}},
    {"drag-at", {"x1", "y1", "x2", "y2"}},
    {"get", {"what", "ref"}},
    {"wait", {"?seconds"}},
    {"focus", {"window"}},
    {"launch", {"command"}},
    {"close", {"?window"}},
    {"find", {"selector"}},
};

bool cli_ctl_is_command(const char *name)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (strcmp(shapes[i].command, name) == 0)
            return true;
    return strcmp(name, "help") == 0;
}

static bool is_direction(const char *s)
{
    return str_ieq(s, "up") || str_ieq(s, "down") || str_ieq(s, "left") || str_ieq(s, "right");
}

/* Adds a positional value: numbers for the numeric parameters, else strings. */
static void add_param(cJSON *p, const char *name, const char *value)
{
    static const char *const numeric[] = {"x", "y", "x1", "y1", "x2", "y2", "amount", "seconds"};
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++)
        if (strcmp(name, numeric[i]) == 0) {
            char *end;
            double d = strtod(value, &end);
            if (end != value && *end == '\0') {
                cJSON_AddNumberToObject(p, name, d);
                return;
            }
        }
    cJSON_AddStringToObject(p, name, value);
}

static wa_err build_params(const char *command, struct args *a, cJSON *p)
{
    size_t si = 0;
    while (strcmp(shapes[si].command, command) != 0)
        si++;
    const char *const *names = shapes[si].positional;
    int n = args_positional_count(a), used = 0;
    /* scroll REF up [N] or scroll up [N]: a direction first means no ref. */
    bool skip_ref = strcmp(command, "scroll") == 0 && n > 0 && is_direction(args_positional(a, 0));
    for (int i = 0; i < 4 && names[i]; i++) {
        const char *name = names[i];
        bool optional = name[0] == '?';
        if (optional)
            name++;
        if (skip_ref && strcmp(name, "ref") == 0)
            continue;
        const char *v = args_positional(a, used);
        if (!v) {
            if (optional)
                continue;
            return wa_fail(WA_E_USAGE, "%s needs <%s>; see winagent help", command, name);
        }
        add_param(p, name, v);
        used++;
    }
    if (used < n)
        return wa_fail(WA_E_USAGE, "%s: unexpected argument '%s' (quote text with spaces)", command,
                       args_positional(a, used));
    return WA_E_OK;
}

static void print_text_result(const char *command, const struct ctl_result *r)
{
    const cJSON *d = r->data;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(d, "tree")) && cJSON_IsString(v)) {
        fputs(v->valuestring, stdout);
        return;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(d, "matches"))) {
        const cJSON *m;
        cJSON_ArrayForEach(m, v)
        {
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(m, "bounds");
            printf("[%d] %s \"%s\" [%d,%d][%d,%d]\n",
                   cJSON_GetObjectItemCaseSensitive(m, "id")->valueint,
                   cJSON_GetObjectItemCaseSensitive(m, "type")->valuestring,
                   cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring,
                   cJSON_GetArrayItem(b, 0)->valueint, cJSON_GetArrayItem(b, 1)->valueint,
                   cJSON_GetArrayItem(b, 2)->valueint, cJSON_GetArrayItem(b, 3)->valueint);
        }
        return;
    }
    if (strcmp(command, "get") == 0) {
        if ((v = cJSON_GetObjectItemCaseSensitive(d, "text")) && cJSON_IsString(v))
            puts(v->valuestring);
        else if ((v = cJSON_GetObjectItemCaseSensitive(d, "value")))
            puts(cJSON_IsString(v) ? v->valuestring : "");
        else if ((v = cJSON_GetObjectItemCaseSensitive(d, "rect")))
            printf("[%d,%d][%d,%d]\n", cJSON_GetArrayItem(v, 0)->valueint,
                   cJSON_GetArrayItem(v, 1)->valueint, cJSON_GetArrayItem(v, 2)->valueint,
                   cJSON_GetArrayItem(v, 3)->valueint);
        return;
    }
    printf("ok: %s", command);
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(d, "element");
    if (el)
        printf(" [%d] %s \"%s\"", cJSON_GetObjectItemCaseSensitive(el, "ref")->valueint,
               cJSON_GetObjectItemCaseSensitive(el, "type")->valuestring,
               cJSON_GetObjectItemCaseSensitive(el, "name")->valuestring);
    if ((v = cJSON_GetObjectItemCaseSensitive(d, "via")) && cJSON_IsString(v))
        printf(" via %s", v->valuestring);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "dry_run")))
        fputs(" (dry run: nothing done)", stdout);
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(d, "focus_held")))
        fputs(" (warning: the window lost focus afterwards)", stdout);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(d, "window");
    if (w)
        printf(" window %s \"%s\"", cJSON_GetObjectItemCaseSensitive(w, "hwnd")->valuestring,
               cJSON_GetObjectItemCaseSensitive(w, "title")->valuestring);
    fputc('\n', stdout);
    if ((v = cJSON_GetObjectItemCaseSensitive(d, "state")) && cJSON_IsString(v))
        fputs(v->valuestring, stdout);
}

/* Saves the post-action image to the temp folder; returns the path (heap) or NULL. */
static char *save_screenshot(const char *command, const struct ctl_result *r)
{
    char *tmp = os_temp_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/winagent-shots", tmp ? tmp : ".");
    free(tmp);
    if (os_mkdir_p(path) != WA_E_OK)
        return NULL;
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/%s-%lld.png", command, (long long)os_time_ms());
    return os_write_file(path, r->png.data, r->png.len) == WA_E_OK ? str_dup(path) : NULL;
}

int cmd_ctl(int argc, char **argv)
{
    const char *command = argv[0];
    if (strcmp(command, "help") == 0) {
        fputs(prompt_skill, stdout);
        return EXIT_OK;
    }
    struct args a;
    args_init(&a, argc, argv, 1);
    cJSON *p = cJSON_CreateObject();
    const char *window = args_value(&a, "window", "w");
    if (window)
        cJSON_AddStringToObject(p, "window", window);
    bool json = args_flag(&a, "json", NULL);
    bool want_shot = args_flag(&a, "screenshot", NULL);
    if (want_shot)
        cJSON_AddBoolToObject(p, "screenshot", true);
    if (args_flag(&a, "return-state", NULL))
        cJSON_AddBoolToObject(p, "return_state", true);
    int delay = args_int(&a, "screenshot-delay", NULL, -1);
    if (delay >= 0)
        cJSON_AddNumberToObject(p, "screenshot_delay_ms", delay);
    struct ctl_opts o = {0};
    o.dry_run = args_flag(&a, "dry-run", NULL);
    o.gate.audit_path = args_value(&a, "audit-log", NULL);
    if (strcmp(command, "state") == 0) {
        if (args_flag(&a, "interactive", "i"))
            cJSON_AddBoolToObject(p, "interactive", true);
        if (args_flag(&a, "compact", "c"))
            cJSON_AddBoolToObject(p, "compact", true);
        if (args_flag(&a, "verbose", "v"))
            cJSON_AddBoolToObject(p, "verbose", true);
        int depth = args_int(&a, "depth", "d", -1);
        if (depth >= 0)
            cJSON_AddNumberToObject(p, "depth", depth);
        const char *scope = args_value(&a, "scope", "s");
        if (scope)
            cJSON_AddStringToObject(p, "scope", scope);
    } else if (strcmp(command, "wait") == 0) {
        static const char *const conds[] = {"visible", "enabled", "gone"};
        for (int i = 0; i < 3; i++) {
            const char *v = args_value(&a, conds[i], NULL);
            if (v)
                cJSON_AddStringToObject(p, conds[i], v);
        }
        const char *t = args_value(&a, "timeout", NULL);
        if (t)
            cJSON_AddNumberToObject(p, "timeout", strtod(t, NULL));
    } else if (strcmp(command, "find") == 0 && args_flag(&a, "all", NULL)) {
        cJSON_AddBoolToObject(p, "all", true);
    }
    wa_err e = args_check_unknown(&a);
    if (!e)
        e = build_params(command, &a, p);
    if (e) {
        cJSON_Delete(p);
        return cli_fail(e);
    }
    const struct wa_backend *b = cli_backend();
    if (!b) {
        cJSON_Delete(p);
        return EXIT_USAGE;
    }
    struct ctl *c;
    if ((e = ctl_new(b, &o, &c))) {
        cJSON_Delete(p);
        return cli_fail(e);
    }
    struct ctl_result r;
    ctl_result_init(&r);
    e = ctl_run(c, command, p, &r);
    char *shot = r.png.len ? save_screenshot(command, &r) : NULL;
    if (shot)
        cJSON_AddStringToObject(r.data, "screenshot", shot);
    if (json) {
        cJSON *j = ctl_result_json(&r);
        char *s = cJSON_PrintUnformatted(j);
        if (s)
            puts(s);
        free(s);
        cJSON_Delete(j);
    } else if (e) {
        fprintf(stderr, "winagent: %s: %s\n", wa_err_code(e), r.message);
    } else {
        print_text_result(command, &r);
        if (shot)
            printf("screenshot: %s\n", shot);
        const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(r.data, "verdict");
        if (strcmp(command, "state") == 0 && cJSON_IsString(verdict))
            fprintf(stderr, "%s\n", verdict->valuestring);
    }
    free(shot);
    ctl_result_cleanup(&r);
    ctl_free(c);
    cJSON_Delete(p);
    return e ? EXIT_USAGE : EXIT_OK;
}
