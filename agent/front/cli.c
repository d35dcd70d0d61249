/* The command line: every CLI-named operation of the table as a subcommand, parsed
 * and described from the table, plus `act`, `config` and `help`. */
#include "agent/front/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/args.h"
#include "agent/core/request/wire.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"
#include "agent/run/config.h"
#include "llm/models.h"
#include "llm/protocol.h"

extern const char prompt_skill[];

/* ---- the table as options ---- */

static const struct {
    const char *letter;
    enum op_arg arg;
} short_options[] = {
    {"o", ARG_PATH},  {"w", ARG_WINDOW}, {"i", ARG_INTERACTIVE}, {"c", ARG_COMPACT},
    {"d", ARG_DEPTH}, {"s", ARG_SCOPE},  {"v", ARG_VERBOSE},     {"a", ARG_ALL},
};

static const char *short_option(enum op_arg a)
{
    for (size_t i = 0; i < sizeof short_options / sizeof short_options[0]; i++)
        if (short_options[i].arg == a)
            return short_options[i].letter;
    return NULL;
}

/* "return_state" -> "return-state". */
static void flag_name(const char *name, char *out, size_t cap)
{
    size_t i = 0;
    for (; name[i] && i + 1 < cap; i++)
        out[i] = name[i] == '_' ? '-' : name[i];
    out[i] = '\0';
}

static bool cli_takes(const struct op_arg_use *u)
{
    return !(u->flags & OPA_MODEL);
}

static bool is_choice(enum op_arg a, const char *word)
{
    const char *choices = arg_def(a)->choices;
    size_t n = strlen(word);
    for (const char *p = choices; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/* Options (--name VALUE, --flag, -x) and positional arguments into q. */
static wa_err parse_args(const struct op_def *op, struct args *a, struct op_request *q)
{
    wa_err e = WA_E_OK;
    for (int i = 0; !e && i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++) {
        const struct op_arg_use *u = &op->args[i];
        if (!cli_takes(u))
            continue;
        const struct arg_def *d = arg_def(u->arg);
        char flag[48];
        flag_name(d->name, flag, sizeof flag);
        if (d->type == ARG_T_BOOL) {
            if (args_flag(a, flag, short_option(u->arg)))
                e = op_request_set_bool(q, u->arg, true);
            continue;
        }
        const char *v = args_value(a, flag, short_option(u->arg));
        if (!v && u->arg == ARG_PATH)
            v = args_value(a, "output", NULL);
        if (v)
            e = op_request_set_text(q, u->arg, v);
    }
    if (e || (e = a->err) || (e = args_check_unknown(a)))
        return e;
    int n = args_positional_count(a), used = 0;
    for (int i = 0; !e && i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++) {
        const struct op_arg_use *u = &op->args[i];
        if (!(u->flags & OPA_POS) || !cli_takes(u) || op_request_has(q, u->arg))
            continue;
        const char *v = args_positional(a, used);
        if (!v)
            break;
        /* "scroll up 3": an optional element before a word of the next argument's list */
        const struct op_arg_use *next = i + 1 < OP_MAX_ARGS ? &op->args[i + 1] : NULL;
        if (!op_arg_required(u->flags, false) && arg_def(u->arg)->type == ARG_T_ELEMENT && next &&
            arg_def(next->arg)->type == ARG_T_ENUM && is_choice(next->arg, v))
            continue;
        e = op_request_set_text(q, u->arg, v);
        used++;
    }
    if (!e && used < n)
        e = wa_fail(WA_E_USAGE, "%s: unexpected argument '%s' (quote text with spaces)", op->cli,
                    args_positional(a, used));
    return e ? e : op_request_check(q, false);
}

void cli_usage(const struct op_def *op, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s", op->cli);
    for (int i = 0; i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE && len < cap; i++) {
        const struct op_arg_use *u = &op->args[i];
        if (!cli_takes(u))
            continue;
        const struct arg_def *d = arg_def(u->arg);
        char upper[48], flag[48];
        flag_name(d->name, flag, sizeof flag);
        /* the placeholder: REF for elements, SEL for windows, else the name in capitals */
        const char *shown = d->type == ARG_T_ELEMENT  ? "ref"
                            : d->type == ARG_T_WINDOW ? "sel"
                                                      : d->name;
        size_t j = 0;
        for (; shown[j] && j + 1 < sizeof upper; j++)
            upper[j] = (char)(shown[j] >= 'a' && shown[j] <= 'z' ? shown[j] - 32 : shown[j]);
        upper[j] = '\0';
        bool req = op_arg_required(u->flags, false);
        const char *fmt = (u->flags & OPA_POS)    ? (req ? " %s" : " [%s]")
                          : d->type == ARG_T_BOOL ? " [--%s]"
                                                  : " [--%s %s]";
        if (u->flags & OPA_POS)
            len += (size_t)snprintf(out + len, cap - len, fmt, upper);
        else if (d->type == ARG_T_BOOL)
            len += (size_t)snprintf(out + len, cap - len, fmt, flag);
        else
            len += (size_t)snprintf(out + len, cap - len, fmt, flag, upper);
    }
}

static void print_help(const struct op_def *op)
{
    char usage[600];
    cli_usage(op, usage, sizeof usage);
    printf("usage: winagent %s [--json]\n  %s\n", usage, op->help);
    for (int i = 0; i < OP_MAX_ARGS && op->args[i].arg != ARG_NONE; i++) {
        const struct op_arg_use *u = &op->args[i];
        if (!cli_takes(u))
            continue;
        const struct arg_def *d = arg_def(u->arg);
        bool req = op_arg_required(u->flags, false);
        printf("  %-14s %s%s\n", d->name, op_arg_help(op, u->arg),
               d->choices || !req ? "" : " (required)");
        if (d->choices)
            printf("  %-14s one of: %s%s\n", "", d->choices, req ? " (required)" : "");
    }
}

/* ---- text output ---- */

static char *save_png(const char *command, struct op_result *r)
{
    if (r->saved_path)
        return r->saved_path;
    char *tmp = os_temp_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/winagent-shots", tmp ? tmp : ".");
    free(tmp);
    if (os_mkdir_p(path) != WA_E_OK)
        return NULL;
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/%s-%lld.png", command, (long long)os_time_ms());
    if (os_write_file(path, r->png.data, r->png.len) != WA_E_OK)
        return NULL;
    r->saved_path = str_dup(path);
    return r->saved_path;
}

static const char *state_word(enum wa_window_state s)
{
    return s == WA_WINDOW_MINIMIZED   ? "minimized"
           : s == WA_WINDOW_MAXIMIZED ? "maximized"
                                      : "normal";
}

static void print_elements(const struct op_result *r)
{
    for (size_t i = 0; i < r->n_elements; i++) {
        const struct op_elem *e = &r->elements[i];
        term_line(stdout, "[%d] %s \"%s\" [%d,%d][%d,%d]", e->id, e->type, e->name, e->bounds.left,
                  e->bounds.top, e->bounds.right, e->bounds.bottom);
    }
}

static void print_inspect(const struct op_elem *e)
{
    cJSON *j = wire_element(e, true);
    const cJSON *v;
    cJSON_ArrayForEach(v, j)
    {
        char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
        term_line(stdout, "%-14s %s", v->string, text ? text : v->valuestring);
        free(text);
    }
    cJSON_Delete(j);
}

static void print_text(const struct op_def *op, struct op_result *r)
{
    switch (op->id) {
    case OP_LIST_WINDOWS:
        for (size_t i = 0; i < r->windows.count; i++) {
            const struct wa_window *w = &r->windows.items[i];
            term_line(stdout, "0x%-10llx %-22s pid=%-6lu [%d,%d][%d,%d] %s%s \"%s\"",
                      (unsigned long long)w->hwnd, w->process, w->pid, w->rect.left, w->rect.top,
                      w->rect.right, w->rect.bottom, state_word(w->state),
                      w->foreground ? " foreground" : "", w->title);
        }
        break;
    case OP_TREE:
    case OP_STATE:
        term_text(stdout, r->text);
        break;
    case OP_SCREENSHOT:
        printf("%s %dx%d frame=[%d,%d][%d,%d] %zu bytes\n", r->saved_path ? r->saved_path : "",
               r->img_w, r->img_h, r->frame.left, r->frame.top, r->frame.right, r->frame.bottom,
               r->png.len);
        return;
    case OP_GET:
        if (r->has_text)
            term_line(stdout, "%s", r->text ? r->text : "");
        else if (op->id == OP_GET)
            printf("[%d,%d][%d,%d]\n", r->element.bounds.left, r->element.bounds.top,
                   r->element.bounds.right, r->element.bounds.bottom);
        break;
    case OP_FIND:
        print_elements(r);
        break;
    case OP_INSPECT:
        print_inspect(&r->element);
        break;
    case OP_SHELL:
        fputs(r->shell.out ? r->shell.out : "", stdout);
        fputs(r->shell.err ? r->shell.err : "", stderr);
        printf("exit code %d%s\n", r->shell.exit_code, r->shell.timed_out ? " (timed out)" : "");
        break;
    default: {
        char element[600] = "", window[400] = "", waited[120] = "";
        if (r->has_element)
            snprintf(element, sizeof element, " [%d] %s \"%s\"", r->element.id, r->element.type,
                     r->element.name);
        if (r->has_window)
            snprintf(window, sizeof window, " window 0x%llx \"%s\"",
                     (unsigned long long)r->window.hwnd, r->window.title);
        if (r->condition)
            snprintf(waited, sizeof waited, " %s after %.1f s", r->condition, r->waited_s);
        term_line(stdout, "ok: %s%s%s%s%s%s%s%s", op->cli, element, r->via ? " via " : "",
                  r->via ? r->via : "",
                  r->delivery && strcmp(r->delivery, "background") == 0 ? " (background)" : "",
                  r->dry_run ? " (dry run: nothing done)" : "", window, waited);
        if (r->has_text)
            term_text(stdout, r->text);
        break;
    }
    }
    for (size_t i = 0; i < r->n_notes; i++)
        term_line(stdout, "note: %s", r->notes[i]);
    if (r->has_image && r->saved_path)
        printf("screenshot: %s\n", r->saved_path);
}

/* ---- the commands ---- */

static void open_session(struct core *c, const char *front, bool refs, struct session **out)
{
    struct session_opts so;
    session_opts_default(&so);
    so.front = front;
    so.refs = refs;
    so.refs_on_disk = true;  /* each command is a process of its own */
    so.files_allowed = true; /* the user typed the path */
    so.settle_ms = 150;
    so.observe.max_edge = 16384; /* images as they are unless --max-edge says otherwise */
    session_new(c, &so, out);
}

static int run_op(const struct op_def *op, int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    if (args_flag(&a, "help", "h")) {
        print_help(op);
        return EXIT_OK;
    }
    struct settings s;
    struct op_request q;
    op_request_init(&q, op);
    bool json = false;
    wa_err e = settings_load(&s, &a, SG_DESK);
    if (!e) {
        json = args_flag(&a, "json", NULL);
        e = parse_args(op, &a, &q);
    }
    if (e) {
        int rc = exit_fail(e);
        char usage[600];
        cli_usage(op, usage, sizeof usage);
        fprintf(stderr, "usage: winagent %s\n", usage);
        op_request_cleanup(&q);
        settings_cleanup(&s);
        return rc;
    }
    struct core *c = host_core(&s, false);
    settings_cleanup(&s);
    if (!c) {
        op_request_cleanup(&q);
        return EXIT_USAGE;
    }
    if (op_acts(op)) /* what the person does while the command starts counts too */
        core_watch_person(c);
    struct session *ses = NULL;
    open_session(c, "cli", true, &ses);
    struct op_result r;
    op_result_init(&r);
    e = ses ? core_perform(ses, &q, &r) : wa_fail(WA_E_NOMEM, "out of memory");
    if (r.has_image)
        save_png(op->cli, &r);
    if (!e && (op->id == OP_TREE || op->id == OP_STATE)) /* the verdict, on stderr */
        term_line(stderr, "%s; %zu nodes from %s in %.0f ms", r.verdict, r.n_elements,
                  r.source ? r.source : "?", r.walk_ms);
    if (json) {
        struct wire_opts wo = {.names = WIRE_CLI};
        cJSON *j = wire_result(&r, &wo);
        char *text = cJSON_PrintUnformatted(j);
        if (text)
            term_json(stdout, text);
        free(text);
        cJSON_Delete(j);
    } else if (e) {
        term_line(stderr, "winagent: %s: %s", wa_err_code(e), r.message);
    } else {
        print_text(op, &r);
    }
    op_result_cleanup(&r);
    op_request_cleanup(&q);
    session_free(ses);
    core_free(c);
    return e ? EXIT_USAGE : EXIT_OK;
}

static void print_json(cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    if (s)
        term_json(stdout, s);
    free(s);
    cJSON_Delete(j);
}

/* `winagent act '<desktop tool JSON>' [--window SEL] [-o FILE.png]`: one call as the
 * model makes it, its result JSON printed. */
static int cmd_act(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    struct settings s;
    wa_err e = settings_load(&s, &a, SG_DESK);
    const char *sel = args_value(&a, "window", "w");
    const char *png_path = args_value(&a, "output", "o");
    if (!e)
        e = args_check_unknown(&a);
    const char *json = args_positional(&a, 0);
    if (!e && (!json || args_positional(&a, 1)))
        e = wa_fail(WA_E_USAGE, "act takes one desktop tool call as JSON, e.g. "
                                "winagent act '{\"action\":\"click\",\"x\":500,\"y\":300}'");
    if (e) {
        settings_cleanup(&s);
        return exit_fail(e);
    }
    struct core *c = host_core(&s, false);
    settings_cleanup(&s);
    if (!c) { /* said on stderr; the result, in its one shape, says it too */
        print_json(wire_error(NULL, WA_E_CONFIG,
                              *wa_err_detail() ? wa_err_detail() : "the desktop cannot be had"));
        return EXIT_USAGE;
    }
    core_watch_person(c); /* what the person does while the call starts counts too */
    struct session_opts so;
    session_opts_default(&so);
    so.front = "act";
    so.model_names = true;
    so.files_allowed = true; /* the user typed the call */
    so.after = AFTER_OBSERVE;
    struct session *ses = NULL;
    struct op_request q;
    op_request_init(&q, NULL);
    if ((e = session_new(c, &so, &ses)))
        goto fail;
    if (sel) {
        struct op_request w;
        op_request_init(&w, op_def(OP_FOCUS_WINDOW));
        e = op_request_set_text(&w, ARG_WINDOW, sel);
        if (!e)
            e = session_pin_window(ses, &w.window);
        op_request_cleanup(&w);
        if (e)
            goto fail;
    }
    if ((e = wire_request_text(json, WIRE_MODEL, NULL, &q)))
        goto fail;
    struct op_result r;
    op_result_init(&r);
    e = core_perform(ses, &q, &r);
    if (png_path && r.obs.kind == OBS_IMAGE &&
        os_write_file(png_path, r.obs.png.data, r.obs.png.len) == WA_E_OK)
        r.saved_path = str_dup(png_path);
    struct wire_opts wo = {.names = WIRE_MODEL, .observation = true};
    print_json(wire_result(&r, &wo));
    op_result_cleanup(&r);
    goto out;
fail:
    /* the same JSON shape as a failed call, so scripts parse one thing */
    print_json(wire_error(q.op && q.op->model ? q.op->model : NULL, e,
                          *wa_err_detail() ? wa_err_detail() : wa_err_message(e)));
out:
    op_request_cleanup(&q);
    session_free(ses);
    core_free(c);
    return e ? EXIT_USAGE : EXIT_OK;
}

static void print_line(void *ctx, const char *text)
{
    (void)ctx;
    term_line(stdout, "%s", text);
}

/* The provider and the tool protocol a run would speak with these settings. */
static void print_protocol(const struct settings *s)
{
    enum llm_provider_kind provider;
    enum llm_tool_protocol proto;
    enum llm_coords_choice coords;
    struct llm_protocol_choice ch;
    const char *model = settings_get(s, SET_MODEL);
    if (llm_provider_from_name(settings_get(s, SET_PROVIDER), &provider) ||
        llm_tool_protocol_from_name(settings_get(s, SET_TOOL_PROTOCOL), &proto) ||
        llm_coords_choice_from_name(settings_get(s, SET_COORDS), &coords) ||
        llm_protocol_choose(provider, model, proto, coords, &ch)) {
        term_line(stdout, "run: %s", wa_err_detail());
        wa_err_clear();
        return;
    }
    term_line(stdout, "run: provider %s, model %s, tool protocol %s (%s)",
              llm_provider_name(provider), model ? model : "(unset)",
              llm_tool_protocol_name(ch.protocol), ch.why);
    struct agent_config c = {.provider = provider, .model = model};
    const char *why;
    if (config_history_parse(settings_get(s, SET_HISTORY), &c.history)) {
        term_line(stdout, "run: %s", wa_err_detail());
        wa_err_clear();
        return;
    }
    c.history = config_history_settle(&c, &why);
    term_line(stdout, "run: model family %s (winagent models); history %s (%s)",
              model_family(model)->name, config_history_name(c.history), why);
}

/* `winagent config`: every setting, its value (keys masked) and where it came from. */
static int cmd_config(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    struct settings s;
    wa_err e = settings_load(&s, &a, SG_RUN | SG_DESK);
    if (!e)
        e = args_check_unknown(&a);
    if (!e && args_positional(&a, 0))
        e = wa_fail(WA_E_USAGE, "config takes no arguments");
    if (!e) {
        term_line(stdout, ".env: %s", s.dotenv_path ? s.dotenv_path : "(none found)");
        settings_print(&s, print_line, NULL);
        print_protocol(&s);
    }
    settings_cleanup(&s);
    return e ? exit_fail(e) : EXIT_OK;
}

bool cli_is_command(const char *name)
{
    return op_by_cli(name) || strcmp(name, "act") == 0 || strcmp(name, "config") == 0 ||
           strcmp(name, "help") == 0;
}

int cli_main(int argc, char **argv)
{
    const char *name = argv[0];
    if (strcmp(name, "help") == 0) {
        fputs(prompt_skill, stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "act") == 0)
        return cmd_act(argc, argv);
    if (strcmp(name, "config") == 0)
        return cmd_config(argc, argv);
    const struct op_def *op = op_by_cli(name);
    return op ? run_op(op, argc, argv)
              : exit_fail(wa_fail(WA_E_USAGE, "unknown command '%s'", name));
}
