/* Retry policy: status classes, server messages and waits, backoff with jitter. */
#include "llm/retry.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/text.h"

bool retry_status_transient(long status)
{
    switch (status) {
    case 408:
    case 409:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
    case 529: /* Anthropic: overloaded, clears by itself */
        return true;
    default:
        return false;
    }
}

static const char *status_kind(long status)
{
    switch (status) {
    case 400:
        return "bad request";
    case 401:
        return "unauthorized: check LLM_API_KEY";
    case 403:
        return "forbidden";
    case 404:
        return "not found: check the base URL and model";
    case 408:
        return "request timeout";
    case 409:
        return "conflict";
    case 413:
        return "request too large";
    case 429:
        return "rate limited";
    case 500:
        return "server error";
    case 502:
        return "bad gateway";
    case 503:
        return "unavailable";
    case 504:
        return "gateway timeout";
    case 529:
        return "overloaded";
    default:
        return status >= 500   ? "server error"
               : status >= 400 ? "client error"
                               : "unexpected status";
    }
}

static const cJSON *unwrap(const cJSON *root)
{
    /* Gemini's streamed (non-SSE) errors come as a one-element array. */
    if (cJSON_IsArray(root))
        root = cJSON_GetArrayItem(root, 0);
    return root;
}

void retry_error_message_json(const cJSON *root, char *out, size_t outsz)
{
    out[0] = '\0';
    root = unwrap(root);
    if (!cJSON_IsObject(root))
        return;
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
    const char *msg = NULL, *code = NULL;
    if (cJSON_IsString(err)) {
        msg = err->valuestring;
    } else if (cJSON_IsObject(err)) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(err, "status");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(err, "code");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(err, "type");
        msg = cJSON_IsString(m) ? m->valuestring : NULL;
        code = cJSON_IsString(st)  ? st->valuestring
               : cJSON_IsString(c) ? c->valuestring
               : cJSON_IsString(t) ? t->valuestring
                                   : NULL;
    }
    if (!msg) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "message");
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "detail");
        msg = cJSON_IsString(m) ? m->valuestring : cJSON_IsString(d) ? d->valuestring : NULL;
    }
    if (!msg)
        return;
    char one[300];
    text_snippet(one, sizeof one, msg, strlen(msg), sizeof one - 1);
    if (code && code[0] && !strstr(one, code))
        snprintf(out, outsz, "%s [%s]", one, code);
    else
        snprintf(out, outsz, "%s", one);
}

void retry_error_message(const char *body, size_t len, char *out, size_t outsz)
{
    out[0] = '\0';
    if (!body || !len)
        return;
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (root) {
        retry_error_message_json(root, out, outsz);
        cJSON_Delete(root);
        if (out[0])
            return;
    }
    text_snippet(out, outsz, body, len, 200);
}

static bool all_digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* "12", "1.5" -> milliseconds (times scale); -1 when not a plain number. */
static long parse_number_ms(const char *s, size_t n, double scale)
{
    char buf[32];
    if (!n || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (end == buf || *end || !(v >= 0) || buf[0] == '-' || buf[0] == '+')
        return -1;
    v *= scale;
    if (v > 86400000.0 * 7)
        v = 86400000.0 * 7;
    return (long)(v + 0.5);
}

long retry_parse_duration_ms(const char *s)
{
    if (!s)
        return -1;
    size_t n = strlen(s);
    if (n > 2 && strcmp(s + n - 2, "ms") == 0)
        return parse_number_ms(s, n - 2, 1.0);
    if (n > 1 && s[n - 1] == 's')
        return parse_number_ms(s, n - 1, 1000.0);
    return -1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static int month_number(const char *m)
{
    static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    for (int i = 0; i < 12; i++)
        if (strncmp(names + 3 * i, m, 3) == 0)
            return i + 1;
    return 0;
}

int64_t retry_parse_http_date(const char *s)
{
    int day, year, hh, mm, ss;
    char mon[4] = {0};
    const char *comma = s ? strchr(s, ',') : NULL;
    bool ok = false;
    if (comma) {
        /* "Sun, 06 Nov 1994 08:49:37 GMT" or "Sunday, 06-Nov-94 08:49:37 GMT" */
        ok = sscanf(comma + 1, " %2d %3[A-Za-z] %4d %2d:%2d:%2d", &day, mon, &year, &hh, &mm,
                    &ss) == 6 ||
             sscanf(comma + 1, " %2d-%3[A-Za-z]-%4d %2d:%2d:%2d", &day, mon, &year, &hh, &mm,
                    &ss) == 6;
        if (ok && year < 100)
            year += year < 70 ? 2000 : 1900;
    } else if (s) {
        /* "Sun Nov  6 08:49:37 1994" */
        ok = sscanf(s, "%*3[A-Za-z] %3[A-Za-z] %2d %2d:%2d:%2d %4d", mon, &day, &hh, &mm, &ss,
                    &year) == 6;
    }
    /* Field widths keep sscanf's numbers in range; the year is bounded so the
       milliseconds below cannot overflow. */
    int m = ok ? month_number(mon) : 0;
    if (!m || year < 1900 || year > 9999 || day < 1 || day > 31 || hh < 0 || hh > 23 || mm < 0 ||
        mm > 59 || ss < 0 || ss > 60)
        return -1;
    int64_t days = days_from_civil(year, (unsigned)m, (unsigned)day);
    return ((days * 24 + hh) * 60 + mm) * 60000 + (int64_t)ss * 1000;
}

long retry_after_header_ms(const char *retry_after, const char *retry_after_ms, int64_t now_ms)
{
    if (retry_after_ms) {
        long v = parse_number_ms(retry_after_ms, strlen(retry_after_ms), 1.0);
        if (v >= 0)
            return v;
    }
    if (!retry_after || !retry_after[0])
        return -1;
    size_t n = strlen(retry_after);
    const char *dot = memchr(retry_after, '.', n);
    if (all_digits(retry_after, dot ? (size_t)(dot - retry_after) : n))
        return parse_number_ms(retry_after, n, 1000.0);
    int64_t when = retry_parse_http_date(retry_after);
    if (when < 0)
        return -1;
    int64_t wait = when - now_ms;
    if (wait < 0)
        return 0;
    return wait > 86400000L ? 86400000L : (long)wait;
}

/* The "@type" of a google.rpc detail ends with name ("...google.rpc.RetryInfo"). */
static bool detail_is(const cJSON *d, const char *name)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "@type");
    if (!cJSON_IsString(t))
        return false;
    size_t n = strlen(t->valuestring), k = strlen(name);
    return n >= k && strcmp(t->valuestring + n - k, name) == 0;
}

static const cJSON *error_details(const cJSON *root)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(unwrap(root), "error");
    const cJSON *details = cJSON_GetObjectItemCaseSensitive(err, "details");
    return cJSON_IsArray(details) ? details : NULL;
}

/* Gemini's google.rpc.RetryInfo.retryDelay from an error document; -1 when none. */
static long retry_gemini_delay_ms(const cJSON *root)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, error_details(root))
    {
        if (!detail_is(d, "RetryInfo"))
            continue;
        const cJSON *delay = cJSON_GetObjectItemCaseSensitive(d, "retryDelay");
        if (cJSON_IsString(delay))
            return retry_parse_duration_ms(delay->valuestring);
    }
    return -1;
}

static bool says_daily(const char *s)
{
    return s && (text_stristr(s, "perday") || text_stristr(s, "per_day") ||
                 text_stristr(s, "per day") || text_stristr(s, "daily"));
}

/* Whether an error document (and its message) says the quota will not come back by
 * waiting: daily limits, billing, a limit of 0. has_wait: the server named a wait. */
static bool retry_quota_is_hard(const cJSON *root, const char *message, bool has_wait)
{
    static const char *const hard_codes[] = {"insufficient_quota", "billing_hard_limit_reached",
                                             "billing_not_active", "access_terminated"};
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(unwrap(root), "error");
    const char *fields[] = {"code", "type", "status"};
    for (size_t f = 0; f < 3; f++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(err, fields[f]);
        for (size_t i = 0; cJSON_IsString(v) && i < sizeof hard_codes / sizeof *hard_codes; i++)
            if (strcmp(v->valuestring, hard_codes[i]) == 0)
                return true;
    }
    const cJSON *d;
    bool per_period = false; /* the server named its quotas, none of them hard */
    cJSON_ArrayForEach(d, error_details(root))
    {
        if (!detail_is(d, "QuotaFailure"))
            continue;
        per_period = true;
        const cJSON *v;
        cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(d, "violations"))
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(v, "quotaId");
            const cJSON *metric = cJSON_GetObjectItemCaseSensitive(v, "quotaMetric");
            const cJSON *value = cJSON_GetObjectItemCaseSensitive(v, "quotaValue");
            if ((cJSON_IsString(id) && says_daily(id->valuestring)) ||
                (cJSON_IsString(metric) && says_daily(metric->valuestring)) ||
                (cJSON_IsString(value) && strcmp(value->valuestring, "0") == 0))
                return true;
        }
    }
    if (message && (text_stristr(message, "limit: 0") || says_daily(message)))
        return true;
    if (per_period)
        return false;
    /* "check your plan and billing details" also appears on per-minute limits that
     * come with a wait; without one it means the account is out of credit. */
    return message && !has_wait && text_stristr(message, "billing");
}

void retry_classify_http(long status, const char *body, size_t len, const char *retry_after,
                         const char *retry_after_ms, int64_t now_ms, struct retry_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->err = WA_E_HTTP;
    out->retry = retry_status_transient(status);
    snprintf(out->kind, sizeof out->kind, "%s", status_kind(status));
    cJSON *root = body && len ? cJSON_ParseWithLength(body, len) : NULL;
    if (root)
        retry_error_message_json(root, out->message, sizeof out->message);
    if (!out->message[0])
        text_snippet(out->message, sizeof out->message, body, len, 200);
    out->wait_ms = retry_after_header_ms(retry_after, retry_after_ms, now_ms);
    if (out->wait_ms < 0)
        out->wait_ms = retry_gemini_delay_ms(root);
    if (status == 429 || status == 403) {
        bool hard = (root || out->message[0]) &&
                    retry_quota_is_hard(root, out->message, out->wait_ms >= 0) &&
                    (status == 429 || text_stristr(out->message, "quota") ||
                     text_stristr(out->message, "billing"));
        if (hard) {
            out->err = WA_E_QUOTA;
            out->retry = false;
            snprintf(out->kind, sizeof out->kind, "quota exhausted");
        } else if (status == 429) {
            out->err = WA_E_RATE_LIMITED;
        }
    }
    cJSON_Delete(root);
}

int retry_backoff_ms(int n, int base_ms, int cap_ms, uint32_t random)
{
    if (n < 1)
        n = 1;
    if (base_ms < 1)
        base_ms = 1;
    int64_t wait = base_ms;
    for (int i = 1; i < n && wait < cap_ms; i++)
        wait *= 2;
    if (wait > cap_ms)
        wait = cap_ms;
    int64_t half = wait / 2;
    return (int)(wait - half + (int64_t)(random % (uint32_t)(half + 1)));
}
