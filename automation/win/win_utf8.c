/* UTF-8 <-> UTF-16 conversions used wherever winagent calls a W API. */
#include <windows.h>
#include <stdlib.h>

#include "automation/win/win_utf8.h"

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
