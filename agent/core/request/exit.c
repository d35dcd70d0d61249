/* Exit codes' words, and the one way a command reports an error it cannot go on from. */
#include "agent/core/request/exit.h"

#include <stdio.h>

#include "base/os.h"
#include "base/term_text.h"

const char *exit_word(int code)
{
    switch (code) {
#define X_CASE(name, value, word)                                                                  \
    case value:                                                                                    \
        return word;
        EXIT_MAP(X_CASE)
#undef X_CASE
    default:
        return "error";
    }
}

int exit_interrupted(void)
{
    return os_interrupted_by_person() ? EXIT_STOPPED : EXIT_INTERRUPTED;
}

int exit_fail(wa_err e)
{
    const char *d = wa_err_detail();
    if (*d) /* a detail can quote a title, a path or a command */
        term_line(stderr, "winagent: %s: %s", wa_err_message(e), d);
    else
        term_line(stderr, "winagent: %s", wa_err_message(e));
    return EXIT_USAGE;
}
