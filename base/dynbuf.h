/* A growing byte buffer with a hard size cap, always NUL-terminated. */
#ifndef WINAGENT_BASE_DYNBUF_H
#define WINAGENT_BASE_DYNBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/wa_err.h"

struct dynbuf {
    char *data; /* NULL until the first add; always NUL-terminated after one */
    size_t len; /* bytes held, not counting the terminator */
    size_t cap; /* bytes allocated */
    size_t max; /* hard limit on len; adding past it fails with WA_E_TOO_LARGE */
};

/* Caller-owned storage: init before use, cleanup after. max is in bytes. */
void dynbuf_init(struct dynbuf *b, size_t max);
void dynbuf_cleanup(struct dynbuf *b);
/* Empties the buffer, keeping its allocation. */
void dynbuf_reset(struct dynbuf *b);
/* Keeps the first len bytes (a buffer that holds no more is left as it is), keeping
 * the allocation: how a failed series of adds puts back what was there before it. */
void dynbuf_truncate(struct dynbuf *b, size_t len);

/* Makes room for extra more bytes, so that adds up to that size allocate nothing: one
 * allocation for a size known ahead instead of a series of doublings and copies (costly
 * under Wine, where each large block is fresh pages). Fails as dynbuf_add would. */
wa_err dynbuf_reserve(struct dynbuf *b, size_t extra);
/* Appends n bytes. On failure (WA_E_TOO_LARGE, WA_E_NOMEM) the buffer is unchanged. */
wa_err dynbuf_add(struct dynbuf *b, const void *p, size_t n);
wa_err dynbuf_adds(struct dynbuf *b, const char *s);
wa_err dynbuf_addc(struct dynbuf *b, char c);
wa_err dynbuf_addf(struct dynbuf *b, const char *fmt, ...) WA_PRINTF(2, 3);
wa_err dynbuf_vaddf(struct dynbuf *b, const char *fmt, va_list ap);
/* Appends n bytes with every occurrence of secret replaced by "[redacted]" (the
 * scrubber of logs and reports; a NULL or empty secret appends the bytes as they are).
 * On failure the buffer may hold part of the text. */
wa_err dynbuf_add_redacted(struct dynbuf *b, const void *p, size_t n, const char *secret);

/* The contents ("" when empty; never NULL). */
const char *dynbuf_str(const struct dynbuf *b);
/* Hands the heap string to the caller (free() it) and leaves the buffer empty.
 * Returns an empty heap string for an empty buffer, NULL only when out of memory. */
char *dynbuf_take(struct dynbuf *b);

#endif
