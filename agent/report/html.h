/* Writing winagent's HTML pages (agent/report/report.c, report_index.c): a capped
 * buffer that remembers when something did not fit, text escaped and scrubbed of the
 * secret, relative URLs, token counts and durations. */
#ifndef WINAGENT_AGENT_REPORT_HTML_H
#define WINAGENT_AGENT_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "base/dynbuf.h"
#include "base/wa_err.h"

/* A buffer that remembers whether anything failed to fit, so a step element is
 * either whole or replaced by a note, never cut in the middle of a tag. */
struct html {
    struct dynbuf b;
    bool full;
    const char *secret; /* replaced by "[redacted]" in every text; NULL for none */
};

/* max: bytes the page may take. secret (may be NULL) must outlive h. */
void html_init(struct html *h, size_t max, const char *secret);
void html_cleanup(struct html *h);

/* Markup, as it is. */
void html_put(struct html *h, const char *s);
void html_putf(struct html *h, const char *fmt, ...) WA_PRINTF(2, 3);
/* Text: the secret replaced, then & < > " ' escaped (for content and attributes). */
void html_text(struct html *h, const char *s);
/* A file name beside the page as a relative URL (percent-encoded) for an attribute. */
void html_url(struct html *h, const char *name);
/* True for a plain file name in the page's folder: never a path that leads elsewhere. */
bool html_is_local_name(const char *name);
/* True for a path below the page's folder: "/"-separated names, each a local name. */
bool html_is_local_path(const char *path);
/* Such a path as a relative URL: each name percent-encoded, the "/" kept. */
void html_url_path(struct html *h, const char *path);
/* 1234 -> "1,234". */
void html_count(struct html *h, double v);
/* Milliseconds as "312 ms", "4.2 s" or "3 min 05 s". */
void html_ms(struct html *h, double ms);
/* <!DOCTYPE html> to </head>: a content security policy that lets the page load
 * nothing but images beside it, the title, and the common style followed by style. */
void html_head(struct html *h, const char *title, const char *style);

#endif
