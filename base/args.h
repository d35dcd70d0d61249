/* A small command-line scanner: options may stand before or after positional
 * arguments, as --name VALUE, --name=VALUE or -n VALUE. */
#ifndef WINAGENT_BASE_ARGS_H
#define WINAGENT_BASE_ARGS_H

#include <stdbool.h>

#include "base/wa_err.h"

struct args {
    int argc;
    char **argv;
    bool used[256]; /* argv entries consumed by an option */
    wa_err err;     /* first error met (a missing value) */
};

/* Scans argv[first..argc). At most 255 arguments. */
void args_init(struct args *a, int argc, char **argv, int first);
/* True when --long_name or -short_name (short may be NULL) is present; consumes it. */
bool args_flag(struct args *a, const char *long_name, const char *short_name);
/* The value of --long_name VALUE / --long_name=VALUE / -short VALUE, or NULL. A
 * missing value sets a->err. The last occurrence wins. */
const char *args_value(struct args *a, const char *long_name, const char *short_name);
/* Integer value; def when absent; a->err on garbage. */
int args_int(struct args *a, const char *long_name, const char *short_name, int def);
/* The n-th (0-based) argument not consumed by an option, or NULL. Call after all
 * options have been taken. "--" ends options: everything after it is positional. */
const char *args_positional(struct args *a, int n);
int args_positional_count(struct args *a);
/* WA_E_USAGE naming the first unconsumed argument that looks like an option. */
wa_err args_check_unknown(struct args *a);

#endif
