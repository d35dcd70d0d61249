/* Command-line scanning with options anywhere among the positional arguments. */
#include "base/args.h"

#include <stdlib.h>
#include <string.h>

void args_init(struct args *a, int argc, char **argv, int first)
{
    memset(a, 0, sizeof *a);
    a->argc = argc > 256 ? 256 : argc;
    a->argv = argv;
    for (int i = 0; i < first && i < a->argc; i++)
        a->used[i] = true;
}

/* Index of "--" (everything after it is positional), or argc. */
static int options_end(const struct args *a)
{
    for (int i = 0; i < a->argc; i++)
        if (!a->used[i] && strcmp(a->argv[i], "--") == 0)
            return i;
    return a->argc;
}

/* Matches argv[i] against --long / -short; *inline_value gets the text after '='. */
static bool matches(const char *s, const char *long_name, const char *short_name,
                    const char **inline_value)
{
    *inline_value = NULL;
    if (s[0] != '-')
        return false;
    if (s[1] == '-' && long_name) {
        size_t n = strlen(long_name);
        if (strncmp(s + 2, long_name, n) == 0) {
            if (s[2 + n] == '\0')
                return true;
            if (s[2 + n] == '=') {
                *inline_value = s + 3 + n;
                return true;
            }
        }
        return false;
    }
    return short_name && s[1] != '-' && strcmp(s + 1, short_name) == 0;
}

bool args_flag(struct args *a, const char *long_name, const char *short_name)
{
    bool found = false;
    int end = options_end(a);
    for (int i = 0; i < end; i++) {
        const char *v;
        if (!a->used[i] && matches(a->argv[i], long_name, short_name, &v) && !v) {
            a->used[i] = true;
            found = true;
        }
    }
    return found;
}

const char *args_value(struct args *a, const char *long_name, const char *short_name)
{
    const char *value = NULL;
    int end = options_end(a);
    for (int i = 0; i < end; i++) {
        const char *v;
        if (a->used[i] || !matches(a->argv[i], long_name, short_name, &v))
            continue;
        a->used[i] = true;
        if (v) {
            value = v;
        } else if (i + 1 < end) {
            a->used[++i] = true;
            value = a->argv[i];
        } else if (!a->err) {
            a->err = wa_fail(WA_E_USAGE, "option --%s needs a value", long_name);
        }
    }
    return value;
}

int args_int(struct args *a, const char *long_name, const char *short_name, int def)
{
    const char *v = args_value(a, long_name, short_name);
    if (!v)
        return def;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < -1000000000L || n > 1000000000L) {
        if (!a->err)
            a->err =
                wa_fail(WA_E_USAGE, "option --%s needs a whole number, not '%s'", long_name, v);
        return def;
    }
    return (int)n;
}

const char *args_positional(struct args *a, int n)
{
    int end = options_end(a);
    for (int i = 0; i < a->argc; i++) {
        if (a->used[i] || i == end)
            continue;
        if (n-- == 0)
            return a->argv[i];
    }
    return NULL;
}

int args_positional_count(struct args *a)
{
    int n = 0;
    while (args_positional(a, n))
        n++;
    return n;
}

wa_err args_check_unknown(struct args *a)
{
    if (a->err)
        return a->err;
    int end = options_end(a);
    for (int i = 0; i < end; i++) {
        const char *s = a->argv[i];
        /* "-5" is a number (a negative coordinate), not an option */
        if (!a->used[i] && s[0] == '-' && s[1] && !(s[1] >= '0' && s[1] <= '9'))
            return wa_fail(WA_E_USAGE, "unknown option '%s'", s);
    }
    return WA_E_OK;
}
