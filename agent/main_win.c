/* The Windows entry point (-municode): the UTF-16 command line in, UTF-8 argv to
 * winagent_main (agent/main.c); the conversions are base/win's. */
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#include "base/entry.h"
#include "base/win/win_utf8.h"

int wmain(int argc, wchar_t **wargv)
{
    win_console_utf8();
    char **argv = win_argv_to_utf8(argc, wargv);
    if (!argv) {
        fputs("winagent: out of memory\n", stderr);
        return 1;
    }
    int rc = winagent_main(argc, argv);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
    return rc;
}
