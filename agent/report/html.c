/* Writing winagent's HTML pages: escaped and scrubbed text, relative URLs, numbers. */
#include "agent/report/html.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every page starts its style sheet with: colours and the header. */
static const char common_style[] =
    ":root{color-scheme:light;--fg:#1d2127;--muted:#5f6b7a;--line:#d8dde3;--bg:#f6f7f9;"
    "--err:#c92a2a;--errbg:#fff0f0;--ok:#2b8a3e}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);"
    "background:var(--bg)}\n"
    "header{padding:14px 20px;background:#fff;border-bottom:1px solid var(--line)}\n"
    "header h1{margin:0 0 4px;font-size:19px}\n"
    ".meta,.keys{margin:2px 0;color:var(--muted)}\n";

void html_cleanup(struct html *h)
{
    dynbuf_cleanup(&h->b);
}

void html_init(struct html *h, size_t max, const char *secret)
{
    dynbuf_init(&h->b, max);
    h->full = false;
    h->secret = secret;
}

void html_put(struct html *h, const char *s)
{
    if (dynbuf_adds(&h->b, s))
        h->full = true;
}

void html_putf(struct html *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (dynbuf_vaddf(&h->b, fmt, ap))
        h->full = true;
    va_end(ap);
}

/* Text from the trace or a step file: scrubbed of the secret, then escaped. */
void html_text(struct html *h, const char *s)
{
    struct dynbuf clean;
    dynbuf_init(&clean, h->b.max);
    if (h->secret && *h->secret) {
        if (dynbuf_add_redacted(&clean, s, strlen(s), h->secret))
            h->full = true;
        s = dynbuf_str(&clean);
    }
    while (*s) {
        size_t n = strcspn(s, "&<>\"'");
        if (dynbuf_add(&h->b, s, n))
            h->full = true;
        s += n;
        if (!*s)
            break;
        const char *entity = *s == '&'   ? "&amp;"
                             : *s == '<' ? "&lt;"
                             : *s == '>' ? "&gt;"
                             : *s == '"' ? "&quot;"
                                         : "&#39;";
        if (dynbuf_adds(&h->b, entity))
            h->full = true;
        s++;
    }
    dynbuf_cleanup(&clean);
}

/* A file name beside the page, as a relative URL inside an attribute. */
void html_url(struct html *h, const char *name)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || strchr("-._~+", *p);
        if (plain)
            html_putf(h, "%c", *p);
        else
            html_putf(h, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
    }
}

/* Only plain names of files in the run folder are linked: never a path elsewhere. */
bool html_is_local_name(const char *name)
{
    return name && *name && name[0] != '.' && !strpbrk(name, "/\\:");
}

bool html_is_local_path(const char *path)
{
    if (!path || !*path)
        return false;
    for (const char *p = path;;) {
        size_t n = strcspn(p, "/");
        char name[256];
        if (n == 0 || n >= sizeof name)
            return false;
        memcpy(name, p, n);
        name[n] = '\0';
        if (!html_is_local_name(name))
            return false;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

void html_url_path(struct html *h, const char *path)
{
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
        html_url(h, name);
        p += n;
        if (*p == '/') {
            html_put(h, "/");
            p++;
        }
    }
}

/* 1234 -> "1,234" (tokens). */
void html_count(struct html *h, double v)
{
    char digits[32], out[48];
    snprintf(digits, sizeof digits, "%.0f", v < 0 ? 0 : v);
    size_t n = strlen(digits), j = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            out[j++] = ',';
        out[j++] = digits[i];
    }
    out[j] = '\0';
    html_put(h, out);
}

/* Milliseconds as "312 ms", "4.2 s" or "3 min 05 s". */
void html_ms(struct html *h, double ms)
{
    if (ms < 1000)
        html_putf(h, "%.0f ms", ms < 0 ? 0 : ms);
    else if (ms < 60000)
        html_putf(h, "%.1f s", ms / 1000);
    else
        /* in doubles: a trace's time can be any number, too large for an int */
        html_putf(h, "%.0f min %02.0f s", floor(ms / 60000), floor(fmod(ms / 1000, 60)));
}

/* The opening of a page: no request may leave the folder (images beside it only). */
void html_head(struct html *h, const char *title, const char *style)
{
    html_put(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                "img-src 'self' file:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>");
    html_text(h, title);
    html_put(h, "</title>\n<style>\n");
    html_put(h, common_style);
    html_put(h, style);
    html_put(h, "</style>\n</head>\n");
}
