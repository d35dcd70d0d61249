/* Escaping of text bound for a terminal. */
#include "base/term_text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TERM_LINE_MAX (64u << 10) /* one line's bytes before escaping */

/* The code point of the UTF-8 character at p and its length in *n; -1 (with *n 1)
 * for a byte that starts no valid character (overlong forms and surrogates too). */
static long decode(const unsigned char *p, size_t *n)
{
    *n = 1;
    if (p[0] < 0x80)
        return p[0];
    int len = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (p[0] >= 0xF5 || !len)
        return -1;
    long cp = p[0] & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *n = (size_t)len;
    return cp;
}

/* Characters that reorder or break text without being control characters. */
static bool reorders(long cp)
{
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

/* The escape of the character at p into esc ("" when it stays), its length in *n. */
static void escape_of(const unsigned char *p, bool keep_newlines, char esc[16], size_t *n)
{
    long cp = decode(p, n);
    esc[0] = '\0';
    if (cp < 0)
        snprintf(esc, 16, "\\x%02x", p[0]);
    else if ((cp == '\n' || cp == '\t') && keep_newlines)
        return;
    else if (cp == '\n' || cp == '\r' || cp == '\t')
        snprintf(esc, 16, cp == '\n' ? "\\n" : cp == '\r' ? "\\r" : "\\t");
    else if (cp < 0x20 || cp == 0x7F)
        snprintf(esc, 16, "\\x%02x", (unsigned)cp);
    else if ((cp >= 0x80 && cp <= 0x9F) || reorders(cp))
        snprintf(esc, 16, "\\u{%04X}", (unsigned)cp);
}

bool term_escape(const char *in, char *out, size_t cap)
{
    if (!cap)
        return false;
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p;) {
        char esc[16];
        size_t n;
        escape_of(p, false, esc, &n);
        size_t need = esc[0] ? strlen(esc) : n;
        if (j + need + 1 > cap) {
            out[j] = '\0';
            return false;
        }
        memcpy(out + j, esc[0] ? esc : (const char *)p, need);
        j += need;
        p += n;
    }
    out[j] = '\0';
    return true;
}

wa_err term_escape_buf(struct dynbuf *b, const char *in, bool keep_newlines)
{
    const unsigned char *p = (const unsigned char *)(in ? in : ""), *run = p;
    wa_err e = WA_E_OK;
    while (!e && *p) {
        char esc[16];
        size_t n;
        escape_of(p, keep_newlines, esc, &n);
        if (esc[0]) {
            if (!(e = dynbuf_add(b, run, (size_t)(p - run))))
                e = dynbuf_adds(b, esc);
            run = p + n;
        }
        p += n;
    }
    return e ? e : dynbuf_add(b, run, (size_t)(p - run));
}

wa_err term_json_buf(struct dynbuf *b, const char *json)
{
    const unsigned char *p = (const unsigned char *)(json ? json : ""), *run = p;
    wa_err e = WA_E_OK;
    while (!e && *p) {
        size_t n;
        long cp = decode(p, &n);
        if (cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || reorders(cp)) {
            if (!(e = dynbuf_add(b, run, (size_t)(p - run))))
                e = dynbuf_addf(b, "\\u%04x", (unsigned)cp);
            run = p + n;
        }
        p += n;
    }
    return e ? e : dynbuf_add(b, run, (size_t)(p - run));
}

static void put(FILE *f, struct dynbuf *b)
{
    fputs(dynbuf_str(b), f);
    dynbuf_cleanup(b);
}

void term_line(FILE *f, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < TERM_LINE_MAX ? (size_t)n : TERM_LINE_MAX;
    char *raw = malloc(len + 1);
    if (raw)
        vsnprintf(raw, len + 1, fmt, again); /* cut at the cap: a line, not a flood */
    va_end(again);
    struct dynbuf b;
    dynbuf_init(&b, TERM_LINE_MAX * 8);
    term_escape_buf(&b, raw ? raw : "(out of memory)", false);
    dynbuf_addc(&b, '\n');
    free(raw);
    put(f, &b);
}

void term_text(FILE *f, const char *text)
{
    struct dynbuf b;
    dynbuf_init(&b, (size_t)-1 / 2);
    term_escape_buf(&b, text, true);
    put(f, &b);
}

void term_json(FILE *f, const char *json)
{
    struct dynbuf b;
    dynbuf_init(&b, (size_t)-1 / 2);
    term_json_buf(&b, json);
    dynbuf_addc(&b, '\n');
    put(f, &b);
}
