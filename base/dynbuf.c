/* Capped growing buffer: a broken or hostile peer cannot make winagent allocate
 * without bound. */
#include "base/dynbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dynbuf_init(struct dynbuf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void dynbuf_cleanup(struct dynbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void dynbuf_reset(struct dynbuf *b)
{
    dynbuf_truncate(b, 0);
}

void dynbuf_truncate(struct dynbuf *b, size_t len)
{
    if (len >= b->len)
        return;
    b->len = len;
    b->data[len] = '\0';
}

wa_err dynbuf_reserve(struct dynbuf *b, size_t extra)
{
    if (extra > b->max || b->len > b->max - extra)
        return wa_fail(WA_E_TOO_LARGE, "buffer limit of %zu bytes reached", b->max);
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return WA_E_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
    if (cap > b->max + 1)
        cap = b->max + 1;
    char *p = realloc(b->data, cap);
    if (!p)
        return wa_fail(WA_E_NOMEM, "cannot grow buffer to %zu bytes", cap);
    b->data = p;
    b->cap = cap;
    b->data[b->len] = '\0'; /* a first allocation holds a string too */
    return WA_E_OK;
}

wa_err dynbuf_add(struct dynbuf *b, const void *p, size_t n)
{
    wa_err e = dynbuf_reserve(b, n);
    if (e)
        return e;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return WA_E_OK;
}

wa_err dynbuf_adds(struct dynbuf *b, const char *s)
{
    return dynbuf_add(b, s, strlen(s));
}

wa_err dynbuf_addc(struct dynbuf *b, char c)
{
    return dynbuf_add(b, &c, 1);
}

wa_err dynbuf_vaddf(struct dynbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return wa_fail(WA_E_INVALID_ARGS, "bad format string");
    wa_err e = dynbuf_reserve(b, (size_t)n);
    if (e)
        return e;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return WA_E_OK;
}

wa_err dynbuf_addf(struct dynbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wa_err e = dynbuf_vaddf(b, fmt, ap);
    va_end(ap);
    return e;
}

const char *dynbuf_str(const struct dynbuf *b)
{
    return b->data ? b->data : "";
}

char *dynbuf_take(struct dynbuf *b)
{
    char *s = b->data;
    if (!s)
        s = calloc(1, 1);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return s;
}

wa_err dynbuf_add_redacted(struct dynbuf *b, const void *p, size_t n, const char *secret)
{
    size_t k = secret ? strlen(secret) : 0;
    const char *s = p, *end = s + n, *from = s;
    wa_err e = WA_E_OK;
    for (const char *q = s; k && q + k <= end && !e; q++) {
        if (memcmp(q, secret, k) != 0)
            continue;
        if (!(e = dynbuf_add(b, from, (size_t)(q - from))))
            e = dynbuf_adds(b, "[redacted]");
        from = q + k;
        q = from - 1;
    }
    return e ? e : dynbuf_add(b, from, (size_t)(end - from));
}
