/* The LLM layer's HTTP transport (libcurl): one request at a time with headers and a
 * body, connect and total timeouts, TLS verification, the proxy from the environment,
 * a capped response and interruption by os_interrupted(). */
#ifndef WINAGENT_LLM_HTTP_H
#define WINAGENT_LLM_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/dynbuf.h"
#include "base/wa_err.h"

/* Receives the body of a 2xx response as it arrives. A non-OK return aborts the
 * transfer and becomes http_perform's result (its detail line is kept). */
typedef wa_err (*http_body_fn)(void *ctx, const char *data, size_t len);

struct http_request {
    const char *url;            /* must not hold secrets: it may be logged */
    const char *const *headers; /* "Name: value" lines */
    size_t n_headers;
    const char *body; /* POST body; NULL sends a GET */
    size_t body_len;
    int connect_timeout_s;
    int timeout_s;        /* the whole transfer */
    size_t max_bytes;     /* cap on the response body, streamed or not */
    http_body_fn on_body; /* NULL: 2xx bodies are collected in the response */
    void *ctx;
};

struct http_response {
    long status;        /* 0 when no response arrived */
    struct dynbuf body; /* non-2xx bodies always; 2xx bodies without on_body */
    size_t received;    /* body bytes seen, streamed or not */
    char *content_type; /* header values (heap), NULL when absent */
    char *retry_after;
    char *retry_after_ms;
    bool transient; /* a failed transfer may work when tried again */
};

void http_response_init(struct http_response *r, size_t max_bytes);
void http_response_cleanup(struct http_response *r);

struct http_client;

wa_err http_client_new(struct http_client **out);
/* Closes the connections it kept alive; accepts NULL. */
void http_client_free(struct http_client *h);

/* Performs one request. WA_E_OK when a complete response arrived, whatever its status.
 * Otherwise WA_E_NETWORK (no connection, connection dropped, body cut short),
 * WA_E_TIMEOUT, WA_E_TOO_LARGE (body over max_bytes), WA_E_INTERRUPTED, WA_E_NOMEM, or
 * the error an on_body callback returned; resp->transient says whether trying again
 * makes sense. The detail line names what failed, never header values. */
wa_err http_perform(struct http_client *h, const struct http_request *req,
                    struct http_response *resp);

#endif
