/* UTF-8 <-> UTF-16 conversions used wherever winagent calls a W API, and for its
 * command line and console. */
#include <windows.h>
#include <stdlib.h>

#include "base/win/win_utf8.h"

wchar_t *win_utf8_to_wide(const char *s)
{
    if (!s)
        return NULL;
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    if (n <= 0)
        return calloc(1, sizeof(wchar_t));
    wchar_t *w = malloc((size_t)n * sizeof(wchar_t));
    if (w && MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n) <= 0)
        w[0] = L'\0';
    return w;
}

char *win_wide_to_utf8_n(const wchar_t *w, int n)
{
    if (!w)
        return NULL;
    int len = n == 0 ? 0 : WideCharToMultiByte(CP_UTF8, 0, w, n, NULL, 0, NULL, NULL);
    if (len < 0)
        len = 0;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return NULL;
    if (len > 0)
        WideCharToMultiByte(CP_UTF8, 0, w, n, s, len, NULL, NULL);
    s[len] = '\0';
    return s;
}

char *win_wide_to_utf8(const wchar_t *w)
{
    return w ? win_wide_to_utf8_n(w, (int)wcslen(w)) : NULL;
}

char **win_argv_to_utf8(int argc, wchar_t **wargv)
{
    char **argv = calloc((size_t)argc + 1, sizeof *argv);
    for (int i = 0; argv && i < argc; i++) {
        argv[i] = win_wide_to_utf8(wargv[i]);
        if (!argv[i]) {
            while (i--)
                free(argv[i]);
            free(argv);
            argv = NULL;
        }
    }
    return argv;
}

void win_console_utf8(void)
{
    SetConsoleOutputCP(CP_UTF8);
}
