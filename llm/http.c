/* libcurl transport for the LLM layer: capped bodies, timeouts, interruption. */
#include "llm/http.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"
#include "llm/text.h"

struct http_client {
    CURL *easy;   /* reused so kept-alive connections and TLS sessions carry over */
    CURLM *multi; /* drives the transfer in short slices so an interrupt is seen fast */
};

/* State of one transfer, shared by the callbacks. */
struct xfer {
    const struct http_request *req;
    struct http_response *resp;
    CURL *easy;
    bool checked;   /* the status was looked at (first body bytes) */
    bool to_caller; /* the body goes to req->on_body */
    wa_err cb_err;  /* why a callback stopped the transfer */
};

void http_response_init(struct http_response *r, size_t max_bytes)
{
    memset(r, 0, sizeof *r);
    dynbuf_init(&r->body, max_bytes);
}

static void clear_headers(struct http_response *r)
{
    free(r->content_type);
    free(r->retry_after);
    free(r->retry_after_ms);
    r->content_type = r->retry_after = r->retry_after_ms = NULL;
}

void http_response_cleanup(struct http_response *r)
{
    dynbuf_cleanup(&r->body);
    clear_headers(r);
}

wa_err http_client_new(struct http_client **out)
{
    *out = NULL;
    /* Reference-counted by libcurl; balanced in http_client_free. */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return wa_fail(WA_E_NETWORK, "libcurl failed to initialise");
    struct http_client *h = calloc(1, sizeof *h);
    if (!h) {
        curl_global_cleanup();
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    h->easy = curl_easy_init();
    h->multi = curl_multi_init();
    if (!h->easy || !h->multi) {
        http_client_free(h);
        return wa_fail(WA_E_NETWORK, "libcurl could not create a handle");
    }
    *out = h;
    return WA_E_OK;
}

void http_client_free(struct http_client *h)
{
    if (!h)
        return;
    if (h->easy)
        curl_easy_cleanup(h->easy);
    if (h->multi)
        curl_multi_cleanup(h->multi);
    free(h);
    curl_global_cleanup();
}

/* Keeps the value of a header we care about; a new status line (a redirect or an
 * interim response) forgets the earlier ones. */
static size_t on_header(char *buf, size_t size, size_t nitems, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nitems;
    if (n >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        clear_headers(x->resp);
        return n;
    }
    const char *colon = memchr(buf, ':', n);
    if (!colon)
        return n;
    size_t nlen = (size_t)(colon - buf);
    const char *v = colon + 1, *end = buf + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    static const struct {
        const char *name;
        size_t off;
    } wanted[] = {
        {"content-type", offsetof(struct http_response, content_type)},
        {"retry-after", offsetof(struct http_response, retry_after)},
        {"retry-after-ms", offsetof(struct http_response, retry_after_ms)},
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        if (strlen(wanted[i].name) != nlen)
            continue;
        size_t k = 0;
        while (k < nlen && (buf[k] | 0x20) == wanted[i].name[k])
            k++;
        if (k != nlen)
            continue;
        char **slot = (char **)((char *)x->resp + wanted[i].off);
        free(*slot);
        *slot = text_strndup(v, (size_t)(end - v) > 256 ? 256 : (size_t)(end - v));
    }
    return n;
}

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb;
    struct http_response *r = x->resp;
    if (!x->checked) {
        /* The status line has arrived by now: 2xx bodies go to the caller, error
         * bodies are kept whole for the message they carry. */
        long status = 0;
        curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
        r->status = status;
        x->to_caller = x->req->on_body && status >= 200 && status < 300;
        x->checked = true;
    }
    if (n > x->req->max_bytes || r->received > x->req->max_bytes - n) {
        x->cb_err =
            wa_fail(WA_E_TOO_LARGE, "response body exceeds the %zu-byte limit", x->req->max_bytes);
        return 0;
    }
    r->received += n;
    wa_err e = x->to_caller ? x->req->on_body(x->req->ctx, ptr, n) : dynbuf_add(&r->body, ptr, n);
    if (e) {
        x->cb_err = e;
        return 0;
    }
    return n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)ud;
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    return os_interrupted() ? 1 : 0;
}

/* Translates a failed transfer into our error, with a detail line for the log. */
static wa_err transfer_error(struct xfer *x, CURLcode rc, const char *errbuf)
{
    struct http_response *r = x->resp;
    const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    const char *what = r->status ? "connection dropped mid-response" : "connection failed";
    r->transient = false;
    switch (rc) {
    case CURLE_WRITE_ERROR:
        if (x->cb_err)
            return x->cb_err; /* its detail line is already set */
        return wa_fail(WA_E_IO, "could not store the response: %s", why);
    case CURLE_ABORTED_BY_CALLBACK:
        return wa_fail(WA_E_INTERRUPTED, "request interrupted");
    case CURLE_OPERATION_TIMEDOUT:
        r->transient = true;
        return wa_fail(WA_E_TIMEOUT, "request timed out: %s", why);
    case CURLE_OUT_OF_MEMORY:
        return wa_fail(WA_E_NOMEM, "libcurl ran out of memory");
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return wa_fail(WA_E_CONFIG, "bad URL: %s", why);
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return wa_fail(WA_E_NETWORK, "could not resolve the host: %s", why);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
        return wa_fail(WA_E_NETWORK, "TLS certificate check failed: %s", why);
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
        r->transient = true;
        return wa_fail(WA_E_NETWORK, "%s: %s", what, why);
    default:
        return wa_fail(WA_E_NETWORK, "%s: %s", what, why);
    }
}

static CURLcode setup(CURL *c, const struct http_request *req, struct curl_slist *headers,
                      struct xfer *x, char *errbuf)
{
    CURLcode rc = CURLE_OK;
#define SET(opt, val)                                                                              \
    do {                                                                                           \
        if (!rc)                                                                                   \
            rc = curl_easy_setopt(c, opt, val);                                                    \
    } while (0)
    SET(CURLOPT_URL, req->url);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_ERRORBUFFER, errbuf);
    SET(CURLOPT_CONNECTTIMEOUT, (long)(req->connect_timeout_s > 0 ? req->connect_timeout_s : 20));
    SET(CURLOPT_TIMEOUT, (long)(req->timeout_s > 0 ? req->timeout_s : 300));
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    SET(CURLOPT_TCP_KEEPALIVE, 1L);
    SET(CURLOPT_USERAGENT, "winagent");
    SET(CURLOPT_HTTPHEADER, headers);
    if (req->body) {
        SET(CURLOPT_POST, 1L);
        SET(CURLOPT_POSTFIELDS, req->body);
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, x);
    SET(CURLOPT_WRITEFUNCTION, on_write);
    SET(CURLOPT_WRITEDATA, x);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, x);
#undef SET
    /* The proxy comes from the environment (https_proxy, no_proxy...): libcurl's
     * default, deliberately left alone. */
    return rc;
}

/* The request's headers, and "Expect:" (no 100-continue round trip for large bodies:
 * not every server answers it). */
static wa_err request_headers(const struct http_request *req, struct curl_slist **out)
{
    struct curl_slist *headers = NULL;
    for (size_t i = 0; i <= req->n_headers; i++) {
        const char *line = i < req->n_headers ? req->headers[i] : "Expect:";
        struct curl_slist *n = curl_slist_append(headers, line);
        if (!n) {
            curl_slist_free_all(headers);
            return wa_fail(WA_E_NOMEM, "out of memory");
        }
        headers = n;
    }
    *out = headers;
    return WA_E_OK;
}

/* Runs the added transfer to its end in short slices: an interrupt is noticed within
 * 100 ms even on a silent server. */
static wa_err run_transfer(struct http_client *h)
{
    int running = 1;
    while (running) {
        CURLMcode mc = curl_multi_perform(h->multi, &running);
        if (mc != CURLM_OK)
            return wa_fail(WA_E_NETWORK, "libcurl: %s", curl_multi_strerror(mc));
        if (!running)
            break;
        if (os_interrupted())
            return wa_fail(WA_E_INTERRUPTED, "request interrupted");
        mc = curl_multi_poll(h->multi, NULL, 0, 100, NULL);
        if (mc != CURLM_OK)
            return wa_fail(WA_E_NETWORK, "libcurl: %s", curl_multi_strerror(mc));
    }
    return WA_E_OK;
}

wa_err http_perform(struct http_client *h, const struct http_request *req,
                    struct http_response *resp)
{
    char errbuf[CURL_ERROR_SIZE];
    struct xfer x = {.req = req, .resp = resp, .easy = h->easy};
    struct curl_slist *headers = NULL;
    bool added = false;
    errbuf[0] = '\0';
    resp->status = 0;
    resp->received = 0;
    resp->transient = false;
    dynbuf_reset(&resp->body);
    clear_headers(resp);
    if (os_interrupted())
        return wa_fail(WA_E_INTERRUPTED, "request interrupted");
    wa_err e = request_headers(req, &headers);
    if (e)
        return e;
    curl_easy_reset(h->easy);
    if (setup(h->easy, req, headers, &x, errbuf) != CURLE_OK) {
        e = wa_fail(WA_E_NETWORK, "libcurl refused an option: %s", errbuf);
    } else if (curl_multi_add_handle(h->multi, h->easy) != CURLM_OK) {
        e = wa_fail(WA_E_NETWORK, "libcurl could not start the transfer");
    } else {
        added = true;
        e = run_transfer(h);
    }
    if (!e) {
        CURLcode rc = CURLE_OK;
        int left = 0;
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(h->multi, &left)) != NULL)
            if (msg->msg == CURLMSG_DONE && msg->easy_handle == h->easy)
                rc = msg->data.result;
        long status = 0;
        curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
        resp->status = status;
        if (rc != CURLE_OK)
            e = transfer_error(&x, rc, errbuf);
    }
    if (added)
        curl_multi_remove_handle(h->multi, h->easy);
    /* The handle outlives this call: drop its pointers to our stack and to headers. */
    curl_easy_setopt(h->easy, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(h->easy, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(headers);
    return e;
}
