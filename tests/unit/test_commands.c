/* winagent's commands and `winagent --help` come from two tables: every row of the
 * command table is dispatched and shown, no word names two commands, and every setting
 * with a flag is in the help with its value and its help text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/commands.h"
#include "agent/core/config/settings.h"
#include "agent/core/request/ops.h"
#include "agent/front/cli.h"
#include "agent/front/run_cli.h"
#include "base/dynbuf.h"

/* The usage text, and the same with every run of blanks and newlines made one space
 * (what wrapping changed undone). */
static char *usage, *flat;

static char *flatten(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    for (; *s; s++)
        if (*s != ' ' && *s != '\n')
            *o++ = *s;
        else if (o > out && o[-1] != ' ')
            *o++ = ' ';
    *o = '\0';
    return out;
}

static int setup(void **state)
{
    (void)state;
    struct dynbuf b;
    dynbuf_init(&b, 1 << 16);
    if (commands_usage(&b) != WA_E_OK)
        return -1;
    usage = dynbuf_take(&b);
    flat = usage ? flatten(usage) : NULL;
    return flat ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(usage);
    free(flat);
    return 0;
}

static bool in_flat(const char *text)
{
    char *f = flatten(text);
    bool found = strstr(flat, f) != NULL;
    free(f);
    return found;
}

static void rows_are_whole_and_no_word_names_two(void **state)
{
    (void)state;
    int ops = 0, rest = 0;
    const char *words[64];
    size_t n_words = 0;
    for (size_t i = 0; command_at(i); i++) {
        const struct command *c = command_at(i);
        assert_non_null(c->run);
        assert_non_null(c->forms[0].what);
        ops += c->takes == COMMAND_OPS;
        rest += c->takes == COMMAND_REST;
        if (c->takes == COMMAND_NAME) {
            assert_non_null(c->name);
            const char *own[2] = {c->name, c->alias};
            for (int k = 0; k < 2 && own[k]; k++) {
                if (cli_is_command(own[k]))
                    fail_msg("`%s` is a row and an operation's command", own[k]);
                for (size_t j = 0; j < n_words; j++)
                    if (strcmp(words[j], own[k]) == 0)
                        fail_msg("`%s` names two rows", own[k]);
                assert_true(n_words < sizeof words / sizeof *words);
                words[n_words++] = own[k];
            }
        }
        for (int k = 0; k < COMMAND_FORMS && c->forms[k].what; k++) {
            const char *syn = c->forms[k].synopsis;
            /* only the desktop commands' synopsis is made (from the operation table) */
            assert_true((syn == NULL) == (c->takes == COMMAND_OPS));
            /* a named command's usage line starts with the word that picks it */
            if (c->takes == COMMAND_NAME) {
                size_t len = strlen(c->name);
                if (strncmp(syn, c->name, len) != 0 || (syn[len] && syn[len] != ' '))
                    fail_msg("the usage line '%s' does not start with `%s`", syn, c->name);
            }
        }
    }
    assert_int_equal(ops, 1);
    assert_int_equal(rest, 1);
}

static void the_dispatch_takes_every_command(void **state)
{
    (void)state;
    for (size_t i = 0; command_at(i); i++) {
        const struct command *c = command_at(i);
        if (c->takes != COMMAND_NAME)
            continue;
        assert_ptr_equal(commands_find(c->name), c);
        if (c->alias)
            assert_ptr_equal(commands_find(c->alias), c);
    }
    int desktop = 0;
    for (int i = 0; i < OP__COUNT; i++) {
        const char *cli = op_def((enum op_id)i)->cli;
        if (!cli)
            continue;
        const struct command *c = commands_find(cli);
        assert_int_equal(c->takes, COMMAND_OPS);
        assert_ptr_equal(c->run, cli_main);
        desktop++;
    }
    assert_true(desktop > 30);
    /* the run takes the rest: its options, a prompt, a word no row has */
    const char *rest[] = {"--replay", "--model", "open notepad", "no-such-command", "", "-x"};
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) {
        const struct command *c = commands_find(rest[i]);
        assert_int_equal(c->takes, COMMAND_REST);
        assert_ptr_equal(c->run, cmd_run);
    }
    /* the words that used to be cli.c's own are the table's now, once */
    assert_string_equal(commands_find("act")->name, "act");
    assert_string_equal(commands_find("config")->name, "config");
    assert_string_equal(commands_find("help")->name, "help");
    assert_ptr_equal(commands_find("-h"), commands_find("--help"));
}

static void the_usage_shows_every_command(void **state)
{
    (void)state;
    char line[300];
    for (size_t i = 0; command_at(i); i++) {
        const struct command *c = command_at(i);
        for (int k = 0; k < COMMAND_FORMS && c->forms[k].what; k++) {
            const char *syn = c->forms[k].synopsis;
            if (syn) {
                /* its first line at a line's start */
                snprintf(line, sizeof line, "\n  winagent %.*s", (int)strcspn(syn, "\n"), syn);
                if (!strstr(usage, line))
                    fail_msg("the usage lacks the line '%s'", line + 1);
                snprintf(line, sizeof line, "winagent %s", syn);
                assert_true(in_flat(line));
            }
            if (!in_flat(c->forms[k].what))
                fail_msg("the usage lacks '%s'", c->forms[k].what);
        }
    }
    /* every desktop command, in the operation table's order */
    struct dynbuf names;
    dynbuf_init(&names, 4096);
    for (int i = 0; i < OP__COUNT; i++)
        if (op_def((enum op_id)i)->cli)
            assert_int_equal(dynbuf_addf(&names, "%s%s", names.len ? " | " : "  winagent ",
                                         op_def((enum op_id)i)->cli),
                             WA_E_OK);
    assert_true(in_flat(dynbuf_str(&names)));
    /* its first line */
    snprintf(line, sizeof line, "\n%.*s", (int)strcspn(dynbuf_str(&names), "|"),
             dynbuf_str(&names));
    assert_non_null(strstr(usage, line));
    dynbuf_cleanup(&names);
}

static void the_usage_shows_every_setting(void **state)
{
    (void)state;
    char text[1200];
    int shown = 0;
    for (int i = 0; i < SET__COUNT; i++) {
        const struct setting_def *d = setting_def((enum setting_id)i);
        /* a flag that takes a value says how it is written; a switch takes none */
        if (d->flag)
            assert_true((d->value == NULL) == ((d->kind & (SK_SWITCH | SK_NEGATE)) != 0));
        if (!d->flag || !(d->groups & (SG_RUN | SG_DESK)))
            continue;
        /* the flag, its value's form and its help, together */
        snprintf(text, sizeof text, "\n  --%s%s%s", d->flag, d->value ? " " : "",
                 d->value ? d->value : "");
        const char *at = strstr(usage, text);
        if (!at || (at[strlen(text)] != ' ' && at[strlen(text)] != '\n'))
            fail_msg("winagent --help lacks the line of --%s", d->flag);
        snprintf(text, sizeof text, "--%s%s%s %s", d->flag, d->value ? " " : "",
                 d->value ? d->value : "", d->help);
        if (!in_flat(text))
            fail_msg("winagent --help lacks --%s's help: %s", d->flag, d->help);
        /* a run option the desktop's front ends take too is named among their options */
        if ((d->groups & SG_RUN) && (d->groups & SG_DESK)) {
            const char *desk = strstr(usage, "\noptions of act,");
            snprintf(text, sizeof text, " --%s", d->flag);
            assert_non_null(desk);
            if (!strstr(desk, text))
                fail_msg("the desktop commands' options lack --%s", d->flag);
        }
        shown++;
    }
    assert_true(shown > 20);
    /* the one option that is no setting */
    assert_non_null(strstr(usage, "\n  --env-file FILE "));
}

static void the_usage_fits_the_width(void **state)
{
    (void)state;
    int lines = 0;
    for (const char *p = usage; *p; lines++) {
        size_t n = strcspn(p, "\n");
        if (n > 88)
            fail_msg("a line of %zu columns: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }
    assert_true(lines > 40);
    assert_string_equal(usage + strlen(usage) - 1, "\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_are_whole_and_no_word_names_two),
        cmocka_unit_test(the_dispatch_takes_every_command),
        cmocka_unit_test(the_usage_shows_every_command),
        cmocka_unit_test(the_usage_shows_every_setting),
        cmocka_unit_test(the_usage_fits_the_width),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
