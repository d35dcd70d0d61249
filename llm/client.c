/* The LLM client: the provider's table, the transport and the retry loop.
 * Backoff, server-requested waits and interruption live here. The API key goes only
 * into a header and is scrubbed from every message and log line that leaves this file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"
#include "llm/adapt.h"
#include "llm/http.h"
#include "llm/llm.h"
#include "llm/provider.h"
#include "llm/retry.h"
#include "llm/sse.h"
#include "llm/text.h"
#include "llm/textcalls.h"

#define BACKOFF_BASE_MS 500
#define DETAIL_MAX      512

struct llm_client {
    struct llm_settings s;
    const struct llm_provider_ops *ops;
    struct http_client *http;
    struct llm_ids ids;
    int connect_timeout_s;
    int timeout_s;
    int max_retries;
    int max_backoff_ms;
    size_t max_response_bytes;
    unsigned text_calls;
    enum llm_coords text_coords;
    bool text_calls_logged; /* the fallback to calls written as text was logged */
    llm_log_fn log;
    llm_delta_fn on_delta;
    void *ctx;
};

/* Writes a log line with the key scrubbed out. */
static void client_log(const struct llm_client *c, const char *fmt, ...) WA_PRINTF(2, 3);
static void client_log(const struct llm_client *c, const char *fmt, ...)
{
    if (!c->log)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    text_redact(line, sizeof line, c->s.api_key);
    c->log(c->ctx, line);
}

/* Scrubs the key out of the current detail line (server text can echo it). */
static wa_err scrubbed(const struct llm_client *c, wa_err e)
{
    char d[DETAIL_MAX];
    snprintf(d, sizeof d, "%s", wa_err_detail());
    if (text_redact(d, sizeof d, c->s.api_key))
        wa_fail(e, "%s", d);
    return e;
}

void llm_client_free(struct llm_client *c)
{
    if (!c)
        return;
    http_client_free(c->http);
    free(c->s.base_url);
    free(c->s.model);
    free(c->s.tool_choice);
    if (c->s.api_key) /* do not leave the key lying in freed memory */
        memset(c->s.api_key, 0, strlen(c->s.api_key));
    free(c->s.api_key);
    free(c);
}

/* "https://user:secret@host/...": credentials in a URL would reach logs. */
static bool has_userinfo(const char *url)
{
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t n = strcspn(host, "/?#");
    return memchr(host, '@', n) != NULL;
}

/* What the model's family takes (llm/models.h), where the provider is the family's own
 * service: the computer tool, the output tokens, forced tool choice, the history controls. */
static void settle_family(struct llm_client *c, const struct llm_config *cfg)
{
    const struct model_family *f = model_family(cfg->model);
    c->s.family = f;
    bool own = f->provider == cfg->provider;
    const char *tool = NULL;
    if (cfg->provider == LLM_PROVIDER_ANTHROPIC)
        tool = own && model_claude_tool(f->computer) ? f->computer : model_claude_tool_row(0)->type;
    else if (cfg->provider == LLM_PROVIDER_OPENAI_RESPONSES)
        tool = own && f->computer ? f->computer : "computer";
    snprintf(c->s.computer_tool, sizeof c->s.computer_tool, "%s", tool ? tool : "");
    if (c->s.max_tokens <= 0 && own)
        c->s.max_tokens = f->max_tokens;
    if (c->s.max_tokens > 0 && own && f->output_cap && c->s.max_tokens > f->output_cap)
        c->s.max_tokens = f->output_cap;
    c->s.server_keep = cfg->provider == LLM_PROVIDER_ANTHROPIC && cfg->server_clears
                           ? (cfg->server_keep > 0 ? cfg->server_keep : 0)
                           : -1;
    c->s.drop_stale_thinking = cfg->provider == LLM_PROVIDER_ANTHROPIC &&
                               cfg->drop_stale_thinking && f->binding != MODEL_BIND_NONE;
}

const struct model_family *llm_client_family(const struct llm_client *c)
{
    return c->s.family;
}

void llm_client_history_shortened(struct llm_client *c)
{
    if (c->s.provider == LLM_PROVIDER_ANTHROPIC && c->s.family->binding != MODEL_BIND_NONE)
        c->s.drop_stale_thinking = true;
}

wa_err llm_client_new(const struct llm_config *cfg, struct llm_client **out)
{
    *out = NULL;
    if (!cfg->model || !cfg->model[0])
        return wa_fail(WA_E_CONFIG, "no model configured (LLM_MODEL)");
    const char *base = cfg->base_url;
    if (cfg->provider == LLM_PROVIDER_OPENAI && (!base || !base[0]))
        return wa_fail(WA_E_CONFIG, "no base URL configured for the openai-compatible provider "
                                    "(LLM_BASE_URL)");
    if (base && base[0] && strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0)
        return wa_fail(WA_E_CONFIG, "base URL must start with http:// or https://");
    if (base && has_userinfo(base))
        return wa_fail(WA_E_CONFIG, "base URL must not carry credentials: use LLM_API_KEY");
    struct llm_client *c = calloc(1, sizeof *c);
    if (!c)
        return wa_fail(WA_E_NOMEM, "out of memory");
    c->s.provider = cfg->provider;
    c->ops = provider_ops_for(cfg->provider);
    c->s.base_url = text_strdup(base && base[0] ? base : "");
    c->s.model = text_strdup(cfg->model);
    c->s.api_key = cfg->api_key && cfg->api_key[0] ? text_strdup(cfg->api_key) : NULL;
    c->s.stream = cfg->stream;
    c->s.max_tokens = cfg->max_tokens;
    c->s.temperature = cfg->temperature;
    c->s.tool_choice = text_strdup(cfg->tool_choice);
    c->s.store = cfg->store;
    c->s.stream_options = true;
    settle_family(c, cfg);
    c->connect_timeout_s = cfg->connect_timeout_s > 0 ? cfg->connect_timeout_s : 20;
    c->timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : 300;
    c->max_retries = cfg->max_retries > 0 ? cfg->max_retries : cfg->max_retries < 0 ? 0 : 5;
    c->max_backoff_ms = cfg->max_backoff_ms > 0 ? cfg->max_backoff_ms : 60000;
    c->max_response_bytes = cfg->max_response_bytes ? cfg->max_response_bytes : 32u << 20;
    c->text_calls = cfg->text_calls;
    c->text_coords = cfg->text_coords;
    c->log = cfg->log;
    c->on_delta = cfg->on_delta;
    c->ctx = cfg->ctx;
    asm_ids_init(&c->ids,
                 (uint32_t)os_time_ms() ^ (uint32_t)(os_pid() << 16) ^ (uint32_t)(uintptr_t)c);
    if (!c->s.base_url || !c->s.model || (cfg->tool_choice && !c->s.tool_choice) ||
        (cfg->api_key && cfg->api_key[0] && !c->s.api_key)) {
        llm_client_free(c);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    wa_err e = http_client_new(&c->http);
    if (e) {
        llm_client_free(c);
        return e;
    }
    if (c->s.tool_choice && strcmp(c->s.tool_choice, "required") == 0 &&
        !c->s.family->forced_choice) {
        c->s.dropped |= LLM_PARAM_TOOL_CHOICE;
        client_log(c, "llm: %s takes no forced tool choice; asking without one", c->s.model);
    }
    *out = c;
    return WA_E_OK;
}

/* ---- one attempt ---- */

struct attempt {
    struct llm_client *c;
    struct reply_asm a;
    struct sse_parser sse;
    struct http_response resp;
    bool decided; /* whether the 2xx body is an event stream was settled */
    bool is_sse;
};

static wa_err on_event(void *ctx, const char *event, char *data, size_t len)
{
    struct attempt *t = ctx;
    (void)event;
    text_redact(data, len + 1, t->c->s.api_key);
    return t->c->ops->parse_event(&t->a, data, strlen(data));
}

static wa_err on_body(void *ctx, const char *data, size_t len)
{
    struct attempt *t = ctx;
    if (!t->decided) {
        /* Some servers ignore "stream": a JSON body is parsed whole. */
        const char *ct = t->resp.content_type;
        t->is_sse = t->c->s.stream && !(ct && text_stristr(ct, "json"));
        t->decided = true;
    }
    if (t->is_sse)
        return sse_feed(&t->sse, data, len);
    return dynbuf_add(&t->resp.body, data, len);
}

/* The verdict on a failed attempt, for the loop. */
struct outcome {
    bool retry;
    bool cut;          /* the reply ended at the output-token cap */
    long wait_ms;      /* server-requested wait, -1 when none */
    long status;       /* HTTP status of a non-2xx answer, else 0 */
    char message[320]; /* the server's message with it, "" when none */
};

static wa_err attempt_once(struct llm_client *c, const struct llm_wire *w, struct llm_reply *out,
                           struct outcome *oc)
{
    /* is_sse starts as requested: an empty streamed body is a stream that never ended */
    struct attempt t = {.c = c, .is_sse = c->s.stream};
    oc->retry = false;
    oc->cut = false;
    oc->wait_ms = -1;
    oc->status = 0;
    oc->message[0] = '\0';
    asm_init(&t.a, c->max_response_bytes, &c->ids, c->on_delta, c->ctx);
    t.a.ordered = c->ops->ordered;
    t.a.verbatim_wire = c->ops->verbatim ? c->ops->name : NULL;
    sse_init(&t.sse, c->max_response_bytes, on_event, &t);
    http_response_init(&t.resp, c->max_response_bytes);
    struct http_request req = {
        .url = w->url,
        .headers = (const char *const *)w->headers,
        .n_headers = w->n_headers,
        .body = w->body,
        .body_len = w->body_len,
        .connect_timeout_s = c->connect_timeout_s,
        .timeout_s = c->timeout_s,
        .max_bytes = c->max_response_bytes,
        .on_body = on_body,
        .ctx = &t,
    };
    wa_err e = http_perform(c->http, &req, &t.resp);
    out->http_status = t.resp.status;
    bool ok_status = t.resp.status >= 200 && t.resp.status < 300;
    if (e) {
        /* A transport failure, or the reply's own parser stopped the transfer. */
        oc->retry = ok_status && t.decided ? t.a.retryable || t.resp.transient : t.resp.transient;
        if (e == WA_E_TOO_LARGE || e == WA_E_INTERRUPTED)
            oc->retry = false;
        goto out;
    }
    if (!ok_status) {
        struct retry_verdict v;
        text_redact(t.resp.body.data, t.resp.body.len + 1, c->s.api_key);
        t.resp.body.len = t.resp.body.data ? strlen(t.resp.body.data) : 0;
        retry_classify_http(t.resp.status, dynbuf_str(&t.resp.body), t.resp.body.len,
                            t.resp.retry_after, t.resp.retry_after_ms, os_time_ms(), &v);
        oc->retry = v.retry;
        oc->wait_ms = v.wait_ms;
        oc->status = t.resp.status;
        snprintf(oc->message, sizeof oc->message, "%s", v.message);
        e = wa_fail(v.err, "HTTP %ld (%s%s%s)", t.resp.status, v.kind, v.message[0] ? ": " : "",
                    v.message);
        goto out;
    }
    if (t.is_sse) {
        e = sse_finish(&t.sse);
    } else {
        text_redact(t.resp.body.data, t.resp.body.len + 1, c->s.api_key);
        t.resp.body.len = t.resp.body.data ? strlen(t.resp.body.data) : 0;
        e = c->ops->parse_body(&t.a, dynbuf_str(&t.resp.body), t.resp.body.len);
    }
    if (!e)
        e = c->ops->finish(&t.a, t.is_sse);
    oc->cut = t.a.cut_by_cap;
    if (!e) {
        e = asm_take_reply(&t.a, out);
    } else {
        oc->retry = t.a.retryable;
    }
out:
    asm_cleanup(&t.a);
    sse_cleanup(&t.sse);
    http_response_cleanup(&t.resp);
    return e;
}

/* A reply without tool calls whose text holds calls written as text (when the client
 * was asked to look): the calls are taken from the text. A malformed call leaves the
 * reply as sent, with the reason in text_call_error. Fails only for want of memory. */
static wa_err take_text_calls(struct llm_client *c, struct llm_reply *r)
{
    if (!c->text_calls || r->n_calls || !r->text)
        return WA_E_OK;
    struct textcalls t;
    textcalls_init(&t);
    wa_err e = textcalls_parse(r->text, c->text_calls, c->text_coords, &c->ids, &t);
    if (e == WA_E_PARSE) {
        client_log(c, "llm: %s", wa_err_detail());
        e = text_set_str(&r->text_call_error, wa_err_detail());
        wa_err_clear();
        return e;
    }
    if (e || (!t.n_calls && !t.final_answer)) {
        textcalls_cleanup(&t);
        return e;
    }
    if (!c->text_calls_logged) {
        client_log(c, "llm: the model wrote its tool calls as text; reading them from the text "
                      "(said once)");
        c->text_calls_logged = true;
    }
    if (t.n_calls) { /* the history keeps what the model wrote */
        r->written = r->text;
        r->text = NULL;
    } else {
        free(r->text);
        r->text = NULL;
    }
    if (t.final_answer) { /* UI-TARS finished(): the answer; its Thought as reasoning */
        r->text = t.final_answer;
        t.final_answer = NULL;
        if (!r->reasoning) {
            r->reasoning = t.text;
            t.text = NULL;
        }
    } else {
        r->text = t.text;
        t.text = NULL;
    }
    r->after_calls = t.after_calls; /* the end of r->text, which is t.text */
    t.after_calls = NULL;
    r->calls = t.calls;
    r->n_calls = t.n_calls;
    t.calls = NULL;
    t.n_calls = 0;
    r->calls_from_text = r->n_calls > 0;
    for (size_t i = 0; i < r->n_calls; i++) /* parsed once, as calls from the wire are */
        if (!r->calls[i].parsed)
            r->calls[i].parsed = llm_parse_arguments(r->calls[i].arguments);
    textcalls_cleanup(&t);
    return WA_E_OK;
}

/* "POST <url> [Content-Type: application/json, Authorization: (redacted)]" */
static void describe_request(const struct llm_wire *w, char *out, size_t outsz)
{
    size_t n = (size_t)snprintf(out, outsz, "POST %s [", w->url);
    for (size_t i = 0; i < w->n_headers && n < outsz; i++) {
        const char *h = w->headers[i];
        const char *colon = strchr(h, ':');
        int nlen = colon ? (int)(colon - h) : (int)strlen(h);
        bool secret = text_stristr(h, "authorization:") == h || text_stristr(h, "api-key:") == h ||
                      text_stristr(h, "x-goog-api-key:") == h || text_stristr(h, "x-api-key:") == h;
        n += (size_t)snprintf(out + n, outsz - n, "%s%.*s: %s", i ? ", " : "", nlen, h,
                              secret  ? "(redacted)"
                              : colon ? colon + 2
                                      : "");
    }
    if (n < outsz)
        snprintf(out + n, outsz - n, "]");
}

wa_err llm_complete(struct llm_client *c, const struct llm_conversation *conv,
                    const struct llm_tool *tools, size_t n_tools, struct llm_reply *out)
{
    memset(out, 0, sizeof *out);
    int64_t t0 = os_now_ms();
    struct llm_wire w;
    memset(&w, 0, sizeof w);
    wa_err e = c->ops->build(&c->s, conv, tools, n_tools, &w);
    char detail[DETAIL_MAX] = "";
    if (e)
        goto out;

    for (int attempt = 1;; attempt++) {
        struct outcome oc;
        out->attempts = attempt;
        struct llm_reply fresh;
        memset(&fresh, 0, sizeof fresh);
        wa_err_clear();
        e = attempt_once(c, &w, &fresh, &oc);
        char what[320];
        if (oc.cut && adapt_output_cap(&c->s, what, sizeof what)) {
            /* cut before it could act or finish: asked again with room for the rest */
            client_log(c, "llm: %s", what);
            llm_reply_cleanup(&fresh);
            provider_wire_cleanup(&w);
            if ((e = c->ops->build(&c->s, conv, tools, n_tools, &w))) {
                detail[0] = '\0';
                goto out;
            }
            continue;
        }
        if (!e) {
            fresh.attempts = out->attempts;
            *out = fresh;
            e = take_text_calls(c, out);
            break;
        }
        out->http_status = fresh.http_status;
        llm_reply_cleanup(&fresh);
        snprintf(detail, sizeof detail, "%s", wa_err_detail());
        text_redact(detail, sizeof detail, c->s.api_key);
        if (attempt == 1) {
            char req[600];
            describe_request(&w, req, sizeof req);
            client_log(c, "llm: request %s failed: %s", req, detail);
        }
        if (e == WA_E_INTERRUPTED)
            break;
        /* A setting the service refuses, naming what it takes instead, is changed and the
         * request built again at once. */
        if (adapt_refusal(&c->s, oc.status, oc.message, n_tools, what, sizeof what)) {
            client_log(c, "llm: %s (%s)", what, oc.message);
            provider_wire_cleanup(&w);
            if ((e = c->ops->build(&c->s, conv, tools, n_tools, &w))) {
                detail[0] = '\0'; /* the build's own detail stands */
                goto out;
            }
            continue;
        }
        /* vLLM without a tool parser refuses every request with tools, whatever
         * tool_choice says: the caller may declare its tools in text instead. */
        if (oc.status == 400 && n_tools &&
            (!c->s.tool_choice || (c->s.dropped & LLM_PARAM_TOOL_CHOICE)) &&
            (text_stristr(oc.message, "tool choice") || text_stristr(oc.message, "tool_choice") ||
             text_stristr(oc.message, "tool-call-parser")))
            out->tools_refused = true;
        if (!oc.retry) {
            client_log(c, "llm: %s, not retried", detail);
            break;
        }
        if (attempt > c->max_retries) {
            client_log(c, "llm: %s, giving up after %d attempts", detail, attempt);
            size_t len = strlen(detail);
            snprintf(detail + len, sizeof detail - len, " (gave up after %d attempts)", attempt);
            break;
        }
        long wait = oc.wait_ms;
        if (wait > c->max_backoff_ms) {
            client_log(c, "llm: %s, server asks to wait %.1fs (over the %.1fs limit), not retried",
                       detail, wait / 1000.0, c->max_backoff_ms / 1000.0);
            size_t len = strlen(detail);
            snprintf(detail + len, sizeof detail - len, " (server asks to wait %.0fs)",
                     wait / 1000.0);
            break;
        }
        if (wait < 0)
            wait = retry_backoff_ms(attempt, BACKOFF_BASE_MS, c->max_backoff_ms,
                                    asm_ids_random(&c->ids));
        client_log(c, "llm: %s, retry %d/%d in %.1fs", detail, attempt, c->max_retries,
                   wait / 1000.0);
        if (os_sleep_ms((int)wait) == WA_E_INTERRUPTED) {
            e = WA_E_INTERRUPTED;
            snprintf(detail, sizeof detail, "interrupted while waiting to retry");
            break;
        }
    }
out:
    provider_wire_cleanup(&w);
    out->elapsed_ms = (double)(os_now_ms() - t0);
    if (e) {
        if (detail[0])
            wa_fail(e, "%s", detail);
        return scrubbed(c, e);
    }
    return WA_E_OK;
}
