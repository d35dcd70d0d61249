/* The LLM client's retry policy: which failures are worth another attempt, the
 * server's message and requested wait, and exponential backoff with jitter. */
#ifndef WINAGENT_LLM_RETRY_H
#define WINAGENT_LLM_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/wa_err.h"

/* What one failed HTTP response means. */
struct retry_verdict {
    wa_err err;        /* the error to report if no attempt follows */
    bool retry;        /* another attempt may succeed */
    long wait_ms;      /* the wait the server asked for; -1 when it named none */
    char kind[40];     /* "rate limited", "server error", ... for log lines */
    char message[320]; /* the server's message, one line, "" when it sent none */
};

/* 408, 409, 429, 500, 502, 503, 504, and 529 (Anthropic's "overloaded"). */
bool retry_status_transient(long status);

/* Classifies a non-2xx response from its status, body and headers. A quota that
 * waiting will not clear (daily, billing) is WA_E_QUOTA with retry false; other 429s
 * are WA_E_RATE_LIMITED; everything else WA_E_HTTP. now_ms is the wall clock
 * (os_time_ms) for Retry-After dates. */
void retry_classify_http(long status, const char *body, size_t len, const char *retry_after,
                         const char *retry_after_ms, int64_t now_ms, struct retry_verdict *out);

/* The server's message from an error body: OpenAI {"error":{"message"}}, Gemini
 * {"error":{"message","status"}} (also inside an array), {"error":"text"},
 * {"message"}, {"detail"}, else the start of the raw text. One line, cut to fit. */
void retry_error_message(const char *body, size_t len, char *out, size_t outsz);
/* The same for a parsed document (NULL gives ""). */
void retry_error_message_json(const cJSON *root, char *out, size_t outsz);

/* The wait in ms from retry-after-ms, else Retry-After (seconds or an HTTP date);
 * -1 when neither is usable. */
long retry_after_header_ms(const char *retry_after, const char *retry_after_ms, int64_t now_ms);
/* An HTTP date (IMF-fixdate, RFC 850 or asctime form) in ms since the epoch; -1 if bad. */
int64_t retry_parse_http_date(const char *s);
/* A protobuf duration as JSON writes it ("2s", "1.5s", also "300ms"); -1 if bad. */
long retry_parse_duration_ms(const char *s);

/* The wait before retry number n (1 = the first retry): base_ms * 2^(n-1) capped at
 * cap_ms, then "equal jitter" (half fixed, half random) so clients spread out. */
int retry_backoff_ms(int n, int base_ms, int cap_ms, uint32_t random);

#endif
