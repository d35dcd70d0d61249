/* A server-sent-events parser: bytes in, in whatever pieces the network delivers them;
 * one callback per complete event out. Handles LF, CRLF and CR line ends (also split
 * between reads), ":" comments, multi-line data and "event:" names. */
#ifndef WINAGENT_LLM_SSE_H
#define WINAGENT_LLM_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/dynbuf.h"
#include "base/wa_err.h"

/* One event: its name ("" when the stream gave none) and its data lines joined by
 * "\n" (NUL-terminated, len bytes; the callee may modify it in place, e.g. to scrub
 * it). A non-OK return stops the parser and is returned by sse_feed / sse_finish. */
typedef wa_err (*sse_event_fn)(void *ctx, const char *event, char *data, size_t len);

struct sse_parser {
    struct dynbuf line;  /* the line being read */
    struct dynbuf data;  /* data lines of the event being read */
    struct dynbuf event; /* its event name */
    bool have_data;      /* a data line was seen (an event with empty data still counts) */
    bool after_cr;       /* the last byte was CR: a following LF belongs to it */
    bool started;        /* past a possible byte-order mark */
    bool failed;
    sse_event_fn fn;
    void *ctx;
};

/* max caps one line and one event's data, in bytes (WA_E_TOO_LARGE past it). */
void sse_init(struct sse_parser *p, size_t max, sse_event_fn fn, void *ctx);
void sse_cleanup(struct sse_parser *p);
wa_err sse_feed(struct sse_parser *p, const char *buf, size_t n);
/* End of stream: a last line without its line end and a last event without its blank
 * line are still delivered (servers that close right after the data). */
wa_err sse_finish(struct sse_parser *p);

#endif
