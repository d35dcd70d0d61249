/* The Windows entry point: UTF-16 command line in, UTF-8 argv to winagent_main. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/entry.h"
#include "automation/win/win_utf8.h"

int wmain(int argc, wchar_t **wargv)
{
    /* Console output is UTF-8 bytes; tell an attached console so. Pipes are untouched. */
    SetConsoleOutputCP(CP_UTF8);
    char **argv = calloc((size_t)argc + 1, sizeof *argv);
    if (!argv) {
        fputs("winagent: out of memory\n", stderr);
        return 1;
    }
    for (int i = 0; i < argc; i++) {
        argv[i] = win_wide_to_utf8(wargv[i]);
        if (!argv[i]) {
            fputs("winagent: out of memory\n", stderr);
            return 1;
        }
    }
    int rc = winagent_main(argc, argv);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
    return rc;
}
