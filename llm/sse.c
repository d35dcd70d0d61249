/* Server-sent events, parsed incrementally. */
#include "llm/sse.h"

#include <string.h>

void sse_init(struct sse_parser *p, size_t max, sse_event_fn fn, void *ctx)
{
    memset(p, 0, sizeof *p);
    dynbuf_init(&p->line, max);
    dynbuf_init(&p->data, max);
    dynbuf_init(&p->event, 256);
    p->fn = fn;
    p->ctx = ctx;
}

void sse_cleanup(struct sse_parser *p)
{
    dynbuf_cleanup(&p->line);
    dynbuf_cleanup(&p->data);
    dynbuf_cleanup(&p->event);
}

static wa_err dispatch(struct sse_parser *p)
{
    char empty[1] = "";
    wa_err e = WA_E_OK;
    if (p->have_data)
        e = p->fn(p->ctx, dynbuf_str(&p->event), p->data.data ? p->data.data : empty, p->data.len);
    dynbuf_reset(&p->data);
    dynbuf_reset(&p->event);
    p->have_data = false;
    return e;
}

static wa_err too_large(wa_err e, const struct dynbuf *b)
{
    if (e == WA_E_TOO_LARGE)
        return wa_fail(e, "server-sent event exceeds the %zu-byte limit", b->max);
    return e;
}

/* One complete line (without its end). */
static wa_err process_line(struct sse_parser *p, const char *s, size_t n)
{
    if (n == 0)
        return dispatch(p);
    if (s[0] == ':')
        return WA_E_OK;
    const char *colon = memchr(s, ':', n);
    size_t flen = colon ? (size_t)(colon - s) : n;
    const char *v = colon ? colon + 1 : s + n;
    size_t vlen = (size_t)(s + n - v);
    if (vlen && v[0] == ' ') {
        v++;
        vlen--;
    }
    if (flen == 4 && memcmp(s, "data", 4) == 0) {
        wa_err e = WA_E_OK;
        if (p->have_data)
            e = dynbuf_addc(&p->data, '\n');
        if (!e)
            e = dynbuf_add(&p->data, v, vlen);
        p->have_data = true;
        return too_large(e, &p->data);
    }
    if (flen == 5 && memcmp(s, "event", 5) == 0) {
        dynbuf_reset(&p->event);
        return too_large(dynbuf_add(&p->event, v, vlen), &p->event);
    }
    return WA_E_OK; /* id, retry and unknown fields mean nothing to us */
}

wa_err sse_feed(struct sse_parser *p, const char *buf, size_t n)
{
    if (p->failed)
        return wa_fail(WA_E_INVALID_ARGS, "event parser used after an error");
    size_t i = 0;
    if (!p->started) {
        /* A UTF-8 byte-order mark may open the stream; it can arrive split too. */
        static const char bom[] = "\xEF\xBB\xBF";
        while (i < n && p->line.len + i < 3 && buf[i] == bom[p->line.len + i])
            i++;
        if (p->line.len + i < 3 && i == n) {
            wa_err e = dynbuf_add(&p->line, buf, n); /* maybe a BOM: decide later */
            return e;
        }
        if (p->line.len + i == 3) {
            dynbuf_reset(&p->line);
        } else {
            i = 0; /* not a BOM: those bytes are ordinary text */
        }
        p->started = true;
    }
    size_t start = i;
    wa_err e = WA_E_OK;
    for (; i < n && !e; i++) {
        char ch = buf[i];
        if (ch != '\n' && ch != '\r') {
            p->after_cr = false;
            continue;
        }
        if (ch == '\n' && p->after_cr) { /* the LF of a CRLF */
            p->after_cr = false;
            start = i + 1;
            continue;
        }
        p->after_cr = ch == '\r';
        if (p->line.len) {
            e = too_large(dynbuf_add(&p->line, buf + start, i - start), &p->line);
            if (!e)
                e = process_line(p, p->line.data, p->line.len);
            dynbuf_reset(&p->line);
        } else {
            e = process_line(p, buf + start, i - start);
        }
        start = i + 1;
    }
    if (!e && start < n)
        e = too_large(dynbuf_add(&p->line, buf + start, n - start), &p->line);
    if (e)
        p->failed = true;
    return e;
}

wa_err sse_finish(struct sse_parser *p)
{
    if (p->failed)
        return wa_fail(WA_E_INVALID_ARGS, "event parser used after an error");
    wa_err e = WA_E_OK;
    if (p->line.len) {
        e = process_line(p, p->line.data, p->line.len);
        dynbuf_reset(&p->line);
    }
    if (!e)
        e = dispatch(p);
    if (e)
        p->failed = true;
    return e;
}
