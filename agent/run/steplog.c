/* The run's log folder: progress and diagnostics, the trace, and step files. */
#include "agent/run/steplog.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent/report/report.h"
#include "base/dynbuf.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

void steplog_slug(const char *title, char *out, size_t cap)
{
    size_t j = 0;
    bool dash = false;
    for (const char *p = title ? title : ""; *p && j + 1 < cap && j < 40; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && j > 0)
                out[j++] = '-';
            dash = false;
            if (j + 1 < cap)
                out[j++] = c;
        } else {
            dash = true;
        }
    }
    while (j > 0 && out[j - 1] == '-')
        j--;
    if (j == 0 && cap > 4)
        j = (size_t)snprintf(out, cap, "run");
    out[j] = '\0';
}

wa_err steplog_open(struct steplog *l, const char *log_dir, const char *title, const char *secret)
{
    memset(l, 0, sizeof *l);
    l->echo = true;
    struct os_tm t;
    os_local_time(os_time_ms(), &t);
    char slug[48];
    steplog_slug(title, slug, sizeof slug);
    char path[4096];
    int n = snprintf(path, sizeof path, "%s" OS_SEP "%04d%02d%02d-%02d%02d%02d-%s", log_dir, t.year,
                     t.month, t.day, t.hour, t.min, t.sec, slug);
    os_path_native(path); /* one kind of separator in every path a run prints */
    for (int i = 2; os_path_exists(path) && i < 1000; i++)
        snprintf(path + n, sizeof path - (size_t)n, "-%d", i);
    wa_err e = os_mkdir_p(path);
    if (e)
        return e;
    l->dir = str_dup(path);
    l->secret = secret && *secret ? str_dup(secret) : NULL;
    char file[4200];
    snprintf(file, sizeof file, "%s" OS_SEP "agent.log", path);
    l->log = os_fopen(file, "ab");
    snprintf(file, sizeof file, "%s" OS_SEP "trace.jsonl", path);
    l->trace = os_fopen(file, "ab");
    if (!l->dir || !l->log || !l->trace) {
        steplog_close(l);
        return wa_fail(WA_E_IO, "cannot create the log files in %s", path);
    }
    if (report_open(path, l->secret, &l->report)) /* the run goes on without its page */
        steplog_note(l, "report.html: %s", wa_err_detail());
    return WA_E_OK;
}

void steplog_close(struct steplog *l)
{
    if (l->log)
        fclose(l->log);
    if (l->trace)
        fclose(l->trace);
    report_free(l->report);
    free(l->dir);
    if (l->secret)
        memset(l->secret, 0, strlen(l->secret));
    free(l->secret);
    memset(l, 0, sizeof *l);
}

/* Writes text to f with every occurrence of the secret replaced. */
void steplog_print(struct steplog *l, FILE *f, const char *text)
{
    if (!f)
        return;
    const char *p = text;
    size_t n = l->secret ? strlen(l->secret) : 0;
    const char *hit;
    while (n && (hit = strstr(p, l->secret))) {
        fwrite(p, 1, (size_t)(hit - p), f);
        fputs("[redacted]", f);
        p = hit + n;
    }
    fputs(p, f);
}

static void line(struct steplog *l, bool progress, const char *fmt, va_list ap)
{
    struct dynbuf b;
    dynbuf_init(&b, 1u << 20);
    struct os_tm t;
    os_local_time(os_time_ms(), &t);
    dynbuf_addf(&b, "%02d:%02d:%02d.%03d ", t.hour, t.min, t.sec, t.msec);
    size_t stamp = b.len;
    struct dynbuf raw;
    dynbuf_init(&raw, 1u << 20);
    dynbuf_vaddf(&raw, fmt, ap);
    /* Titles, model text and commands end up here: none becomes a terminal sequence,
     * on stderr or in agent.log (read with a pager or tail -f). */
    term_escape_buf(&b, dynbuf_str(&raw), false);
    dynbuf_cleanup(&raw);
    dynbuf_addc(&b, '\n');
    steplog_print(l, l->log, dynbuf_str(&b));
    if (l->log)
        fflush(l->log);
    if (progress && l->echo) {
        steplog_print(l, stderr, dynbuf_str(&b) + stamp);
        fflush(stderr);
    }
    dynbuf_cleanup(&b);
}

void steplog_progress(struct steplog *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line(l, true, fmt, ap);
    va_end(ap);
}

void steplog_note(struct steplog *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line(l, false, fmt, ap);
    va_end(ap);
}

void steplog_trace(struct steplog *l, const cJSON *obj)
{
    char *s = cJSON_PrintUnformatted(obj);
    if (!s)
        return;
    steplog_print(l, l->trace, s);
    if (l->trace) {
        fputc('\n', l->trace);
        fflush(l->trace);
    }
    free(s);
    if (report_add(l->report, obj))
        steplog_note(l, "report.html: %s", wa_err_detail());
}

/* A plain file name of the run's folder: letters, digits and "-_+.", not starting with
 * a dot; a name of any other shape could reach outside it. */
static bool plain_name(const char *name)
{
    if (!*name || *name == '.')
        return false;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("-_+.", *c)))
            return false;
    return !strstr(name, "..");
}

char *steplog_save(struct steplog *l, const char *name, const void *data, size_t len)
{
    if (!l->dir || !plain_name(name))
        return NULL;
    char path[4600], unique[400];
    snprintf(unique, sizeof unique, "%s", name);
    const char *dot = strrchr(name, '.');
    size_t stem = dot ? (size_t)(dot - name) : strlen(name);
    for (int i = 2;; i++) {
        snprintf(path, sizeof path, "%s" OS_SEP "%s", l->dir, unique);
        if (!os_path_exists(path) || i > 999)
            break;
        snprintf(unique, sizeof unique, "%.*s-%d%s", (int)stem, name, i, dot ? dot : "");
    }
    /* Text files are scrubbed like every other text (a window could show the key). */
    struct dynbuf clean;
    dynbuf_init(&clean, len + 64 + len / 4);
    bool text = dot && strcmp(dot, ".txt") == 0;
    if (text && l->secret) {
        dynbuf_add_redacted(&clean, data, len, l->secret);
        data = dynbuf_str(&clean);
        len = clean.len;
    }
    wa_err e = os_write_file(path, data, len);
    dynbuf_cleanup(&clean);
    return e ? NULL : str_dup(unique);
}
