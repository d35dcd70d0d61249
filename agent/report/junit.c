/* JUnit XML of a batch's results, for CI systems. */
#include "agent/report/junit.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"

#define JUNIT_MAX_BYTES (64u << 20)

/* The document being written; err is the first add that failed (the text is then cut). */
struct xml {
    struct dynbuf *b;
    wa_err err;
};

static void put(struct xml *x, const void *p, size_t n)
{
    wa_err e = x->err ? x->err : dynbuf_add(x->b, p, n);
    x->err = e;
}

static void puts_(struct xml *x, const char *s)
{
    put(x, s, strlen(s));
}

static void putf(struct xml *x, const char *fmt, ...) WA_PRINTF(2, 3);
static void putf(struct xml *x, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    put(x, text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

/* The length of the valid UTF-8 sequence at p that XML 1.0 allows as a character, or 0
 * (a stray or overlong byte, a surrogate, past U+10FFFF, U+FFFE or U+FFFF). */
static size_t xml_char_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return p[0] >= 0x20 || p[0] == '\t' || p[0] == '\n' || p[0] == '\r' ? 1 : 0;
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || (n == 3 && p[0] > 0xef))
        return 0;
    unsigned long cp = p[0] & (0xff >> (n + 1));
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
        cp == 0xffff)
        return 0;
    return n;
}

/* s as XML character data; in an attribute (attr), line ends and tabs as references so
 * that they survive its normalisation. What XML cannot hold becomes U+FFFD. */
static void xml_text(struct xml *x, const char *s, bool attr)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        size_t n = xml_char_len(p);
        if (n == 0) {
            puts_(x, "\xef\xbf\xbd");
            p++;
            continue;
        }
        switch (*p) {
        case '&':
            puts_(x, "&amp;");
            break;
        case '<':
            puts_(x, "&lt;");
            break;
        case '>':
            puts_(x, "&gt;");
            break;
        case '"':
            puts_(x, "&quot;");
            break;
        case '\'':
            puts_(x, "&apos;");
            break;
        case '\n':
        case '\r':
        case '\t':
            if (attr) {
                putf(x, "&#%d;", *p);
                break;
            }
            /* fall through */
        default:
            put(x, p, n);
        }
        p += n;
    }
}

static void property(struct xml *x, const char *id, const char *name, const char *value)
{
    puts_(x, "      <property name=\"");
    if (id) {
        xml_text(x, id, true);
        puts_(x, ".");
    }
    xml_text(x, name, true);
    puts_(x, "\" value=\"");
    xml_text(x, value, true);
    puts_(x, "\"/>\n");
}

static void property_num(struct xml *x, const char *id, const char *name, double value)
{
    char text[40];
    snprintf(text, sizeof text, "%.15g", value);
    property(x, id, name, text);
}

static void properties(struct xml *x, const struct tally *t, const struct task_state *tasks,
                       size_t n)
{
    puts_(x, "    <properties>\n");
    for (int i = OUT_NONE + 1; i < OUT__COUNT; i++)
        property_num(x, NULL, outcome_name((enum outcome)i), t->outcome[i]);
    char text[64], name[32];
    snprintf(text, sizeof text, "%d/%d", t->pass_first, t->tasks);
    property(x, NULL, "pass@1", text);
    snprintf(name, sizeof name, "pass@%d", t->attempts > 1 ? t->attempts : 1);
    snprintf(text, sizeof text, "%d/%d", t->outcome[OUT_PASS], t->tasks);
    if (t->attempts > 1)
        property(x, NULL, name, text);
    property_num(x, NULL, "tokens", (double)t->tokens);
    for (size_t i = 0; i < n; i++) {
        const struct task_state *s = &tasks[i];
        const struct result_line *decided = s->passed ? s->passed : s->last;
        property_num(x, s->id, "steps", decided->steps);
        property_num(x, s->id, "tokens", (double)s->tokens);
        snprintf(text, sizeof text, "%.1f", s->time_s);
        property(x, s->id, "time_s", text);
        property_num(x, s->id, "attempts", decided->attempt);
        property(x, s->id, "run_folder", decided->run_folder);
    }
    puts_(x, "    </properties>\n");
}

/* The element that says how the task ended, if it did not pass. */
static void verdict(struct xml *x, const struct task_state *s)
{
    const char *reason = s->last->reason ? s->last->reason : outcome_name(s->outcome);
    const char *element = NULL;
    switch (s->outcome) {
    case OUT_FAIL:
        element = "failure";
        break;
    case OUT_ERROR:
    case OUT_TIMEOUT:
    case OUT_BUDGET:
        element = "error";
        break;
    case OUT_DRY_RUN:
    case OUT_NEEDS_CONFIRMATION:
    case OUT_STOPPED: /* the schema's <skipped> holds text only */
        puts_(x, "      <skipped>");
        xml_text(x, outcome_name(s->outcome), false);
        if (s->last->reason) {
            puts_(x, ": ");
            xml_text(x, s->last->reason, false);
        }
        puts_(x, "</skipped>\n");
        return;
    default:
        return;
    }
    putf(x, "      <%s type=\"%s\" message=\"", element, outcome_name(s->outcome));
    xml_text(x, reason, true);
    puts_(x, "\"/>\n");
}

/* Each attempt of the task's latest round, a line each. */
static void attempts_out(struct xml *x, const struct task_state *s)
{
    puts_(x, "      <system-out>");
    for (const struct result_line *l = s->first; l <= s->last; l++) {
        if (l != s->first && (strcmp(l->id, s->id) != 0 || l->attempt == 1))
            continue; /* another task's line */
        putf(x, "attempt %d: %s", l->attempt, outcome_name(l->outcome));
        if (l->reason) {
            puts_(x, " (");
            xml_text(x, l->reason, false);
            puts_(x, ")");
        }
        if (l->exit_code >= 0)
            putf(x, ", exit code %d", l->exit_code);
        putf(x, ", %d step%s, %lld tokens, %.1f s", l->steps, l->steps == 1 ? "" : "s", l->tokens,
             l->time_s);
        if (*l->run_folder) {
            puts_(x, ", run folder ");
            xml_text(x, l->run_folder, false);
        }
        puts_(x, "\n");
    }
    puts_(x, "</system-out>\n");
}

wa_err junit_render(const struct results *r, const char *suite, int attempts, struct dynbuf *out)
{
    struct task_state *tasks;
    size_t n;
    wa_err e = results_tasks(r, &tasks, &n);
    if (e)
        return e;
    struct tally t = {0};
    for (size_t i = 0; i < n; i++)
        tally_add(&t, &tasks[i]);
    if (attempts > t.attempts)
        t.attempts = attempts;
    int errors = t.outcome[OUT_ERROR] + t.outcome[OUT_TIMEOUT] + t.outcome[OUT_BUDGET];
    int skipped =
        t.outcome[OUT_DRY_RUN] + t.outcome[OUT_NEEDS_CONFIRMATION] + t.outcome[OUT_STOPPED];
    struct xml x = {out, WA_E_OK};
    puts_(&x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
    xml_text(&x, suite, true);
    putf(&x, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.1f\">\n", t.tasks,
         t.outcome[OUT_FAIL], errors, t.time_s);
    puts_(&x, "  <testsuite name=\"");
    xml_text(&x, suite, true);
    putf(&x, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.1f\">\n",
         t.tasks, t.outcome[OUT_FAIL], errors, skipped, t.time_s);
    properties(&x, &t, tasks, n);
    for (size_t i = 0; i < n; i++) {
        puts_(&x, "    <testcase name=\"");
        xml_text(&x, tasks[i].id, true);
        puts_(&x, "\" classname=\"");
        xml_text(&x, suite, true);
        putf(&x, "\" time=\"%.1f\">\n", tasks[i].time_s);
        verdict(&x, &tasks[i]);
        attempts_out(&x, &tasks[i]);
        puts_(&x, "    </testcase>\n");
    }
    puts_(&x, "  </testsuite>\n</testsuites>\n");
    free(tasks);
    return x.err ? wa_fail(x.err, "the JUnit file of %zu tasks is too large", n) : WA_E_OK;
}

wa_err junit_write(const struct results *r, const char *suite, int attempts, const char *path)
{
    struct dynbuf b;
    dynbuf_init(&b, JUNIT_MAX_BYTES);
    wa_err e = junit_render(r, suite, attempts, &b);
    if (!e)
        e = os_write_file(path, dynbuf_str(&b), b.len);
    dynbuf_cleanup(&b);
    return e;
}
