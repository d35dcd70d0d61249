/* String helpers of the LLM layer: copies, snippets, key scrubbing. */
#include "llm/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *text_strndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *text_strdup(const char *s)
{
    return s ? text_strndup(s, strlen(s)) : NULL;
}

wa_err text_set_str(char **dst, const char *s)
{
    char *copy = NULL;
    if (s && !(copy = text_strdup(s)))
        return wa_fail(WA_E_NOMEM, "out of memory copying a string");
    free(*dst);
    *dst = copy;
    return WA_E_OK;
}

char *text_snippet(char *out, size_t outsz, const char *s, size_t n, size_t max)
{
    size_t o = 0;
    bool space = false, cut = false;
    if (!outsz)
        return out;
    if (max > outsz - 4)
        max = outsz > 4 ? outsz - 4 : 0;
    for (size_t i = 0; s && i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || ch == ' ') {
            space = o > 0;
            continue;
        }
        size_t need = (space ? 1 : 0) + 1;
        if (o + need > max) {
            cut = true;
            break;
        }
        if (space)
            out[o++] = ' ';
        space = false;
        out[o++] = (char)ch;
    }
    if (cut) {
        /* Back up to the start of a UTF-8 sequence so the text stays valid. */
        while (o > 0 && ((unsigned char)out[o - 1] & 0xC0) == 0x80)
            o--;
        if (o > 0 && ((unsigned char)out[o - 1] & 0x80))
            o--;
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

bool text_redact(char *s, size_t size, const char *secret)
{
    static const char mark[] = "[redacted]";
    size_t klen = secret ? strlen(secret) : 0;
    bool hit = false;
    if (!s || klen < 4)
        return false;
    char *p = s;
    while ((p = strstr(p, secret)) != NULL) {
        size_t tail = strlen(p + klen);
        size_t room = size - (size_t)(p - s) - 1; /* bytes available from p on */
        size_t mlen = sizeof mark - 1;
        if (mlen > room)
            mlen = room;
        if (mlen + tail > room)
            tail = room - mlen;
        memmove(p + mlen, p + klen, tail);
        memcpy(p, mark, mlen);
        p[mlen + tail] = '\0';
        p += mlen;
        hit = true;
    }
    return hit;
}

const char *text_stristr(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; hay && *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return hay;
    }
    return n == 0 ? hay : NULL;
}
