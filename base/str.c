/* Small string helpers: copies, ASCII case folding, wildcards. */
#include "base/str.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *str_dup(const char *s)
{
    return s ? str_ndup(s, strlen(s)) : NULL;
}

char *str_ndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    size_t len = strnlen(s, n);
    char *d = malloc(len + 1);
    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

static int fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* ASCII case-insensitive ordering, like strcmp's. */
static int str_icmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    while (*p && fold(*p) == fold(*q)) {
        p++;
        q++;
    }
    return fold(*p) - fold(*q);
}

bool str_ieq(const char *a, const char *b)
{
    return a && b && str_icmp(a, b) == 0;
}

bool str_ieq_n(const char *a, const char *b, size_t n)
{
    if (!a || !b || strlen(a) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (fold((unsigned char)a[i]) != fold((unsigned char)b[i]))
            return false;
    return true;
}

bool str_icontains(const char *haystack, const char *needle)
{
    if (!haystack || !needle)
        return false;
    size_t n = strlen(needle);
    for (const char *h = haystack; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && fold((unsigned char)h[i]) == fold((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

bool str_starts_with(const char *s, const char *prefix)
{
    return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_wildcard(const char *pattern, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*pattern == '*') {
            star = pattern++;
            resume = s;
        } else if (*pattern == '?' || fold((unsigned char)*pattern) == fold((unsigned char)*s)) {
            pattern++;
            s++;
        } else if (star) {
            pattern = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

bool str_set(char **dst, const char *src)
{
    char *copy = NULL;
    if (src && !(copy = str_dup(src)))
        return false;
    free(*dst);
    *dst = copy;
    return true;
}

void *wa_reallocarray(void *ptr, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    return realloc(ptr, bytes > 0 ? bytes : 1);
}

const char *str_path_base(const char *path)
{
    const char *b = path;
    for (const char *p = path; *p; p++)
        if ((*p == '/' || *p == '\\') && p[1] && p[1] != '/' && p[1] != '\\')
            b = p + 1;
    return b;
}

bool str_equal_secret(const char *expected, const char *given)
{
    if (!expected || !given)
        return false;
    size_t n = strlen(expected), m = strlen(given);
    unsigned char diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)expected[i] ^ (unsigned char)(i < m ? given[i] : 0);
    return diff == 0;
}
