/* MCP over Streamable HTTP (protocol 2025-03-26 and later), served by civetweb. Each
 * session is an MCP server of its own on the shared core; requests of one session are
 * served one at a time (mcp.c), sessions side by side on civetweb's threads. */
#include "agent/mcp/mcp_http.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <civetweb.h>
#include <cjson/cJSON.h>

#include "agent/front/cli.h"
#include "agent/mcp/mcp.h"
#include "base/version.h"
#include "base/dynbuf.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

#define MAX_SESSIONS    64
#define BODY_MAX_BYTES  (4u << 20)
#define SESSION_IDLE_MS (30 * 60 * 1000) /* a session nobody used this long ends */
#define KEEPALIVE_MS    15000            /* a comment line on an idle GET stream */
#define QUEUE_MAX       256              /* messages waiting for a GET stream */
/* Room for legitimate requests beside clients that dribble their headers: each of those
 * holds a thread at most HTTP_REQUEST_TIMEOUT_MS, and there are more threads than a
 * handful of them can hold. */
#define HTTP_THREADS            64
#define HTTP_REQUEST_TIMEOUT_MS "5000"
/* Connections from one client address at once, counted from the moment they are
 * accepted: past it a connection is answered 429 and closed before its headers are read,
 * so one address can keep every thread neither in long calls and event streams nor in
 * idle sockets. 16 busy clients of one address fit, with room for a client's next
 * connection while its last one is closing. */
#define PER_ADDRESS_MAX 24
#define SHARE_WAIT_MS   100 /* how long a connection past the share waits for room */
#define STRINGIFY_(x)   #x
#define STRINGIFY(x)    STRINGIFY_(x)

struct queued {
    struct queued *next;
    size_t len;
    char text[];
};

struct http_session {
    struct os_mutex *lock; /* the server's */
    bool used, ended;
    char id[65];
    struct mcp_server *srv;
    int refs; /* handlers using it; freed when ended and 0 */
    int64_t last_ms;
    /* the GET stream: messages of no request wait here for it */
    bool streaming;
    struct os_event *wake;
    struct queued *head, *tail;
    int queued;
};

/* Connections of one client address being served; civetweb serves at most
 * HTTP_THREADS at once, so that many rows always suffice. */
struct peer {
    char addr[48];
    int conns;
};

struct http_server {
    struct core *core;
    const struct mcp_http_opts *o;
    char token[160];
    bool auth;
    bool loopback, wildcard;
    char addr[64]; /* the address listened on */
    int port;
    struct os_mutex *lock; /* the sessions */
    struct http_session sessions[MAX_SESSIONS];
    struct os_mutex *peers_lock; /* never held while calling civetweb */
    struct peer peers[HTTP_THREADS];
    volatile bool stopping;
};

/* ---- sessions ---- */

static void session_drop(struct http_session *h)
{
    mcp_server_free(h->srv);
    os_event_free(h->wake);
    for (struct queued *q = h->head, *n; q; q = n) {
        n = q->next;
        free(q);
    }
    memset(h, 0, sizeof *h);
}

static void release(struct http_server *hs, struct http_session *h)
{
    os_mutex_lock(hs->lock);
    if (--h->refs == 0 && h->ended)
        session_drop(h);
    os_mutex_unlock(hs->lock);
}

/* The session of id, held (release it); NULL when unknown or ended. */
static struct http_session *acquire(struct http_server *hs, const char *id)
{
    struct http_session *found = NULL;
    os_mutex_lock(hs->lock);
    for (int i = 0; i < MAX_SESSIONS && !found; i++) {
        struct http_session *h = &hs->sessions[i];
        if (h->used && !h->ended && strcmp(h->id, id) == 0) {
            h->refs++;
            h->last_ms = os_now_ms();
            found = h;
        }
    }
    os_mutex_unlock(hs->lock);
    return found;
}

static void end_session(struct http_server *hs, struct http_session *h)
{
    os_mutex_lock(hs->lock);
    h->ended = true;
    if (h->wake)
        os_event_set(h->wake); /* its GET stream ends */
    os_mutex_unlock(hs->lock);
}

/* A message of no request (a log notification): to the session's GET stream if one is
 * open, else dropped, as the protocol allows. */
static void to_stream(void *ctx, const char *json, size_t len)
{
    struct http_session *h = ctx;
    struct queued *q = malloc(sizeof *q + len + 1);
    if (!q)
        return;
    q->next = NULL;
    q->len = len;
    memcpy(q->text, json, len);
    q->text[len] = '\0';
    os_mutex_lock(h->lock); /* the server's lock; mcp.c calls this without it held */
    if (!h->streaming || h->queued >= QUEUE_MAX) {
        os_mutex_unlock(h->lock);
        free(q);
        return;
    }
    if (h->tail)
        h->tail->next = q;
    else
        h->head = q;
    h->tail = q;
    h->queued++;
    os_event_set(h->wake);
    os_mutex_unlock(h->lock);
}

/* A new session with a fresh random id, held; NULL when all are in use. */
static struct http_session *create(struct http_server *hs)
{
    unsigned char rnd[32];
    if (os_random_bytes(rnd, sizeof rnd) != WA_E_OK)
        return NULL;
    struct mcp_server *srv = NULL;
    if (mcp_server_new(hs->core, &srv) != WA_E_OK)
        return NULL;
    mcp_server_set_image_limits(srv, hs->o->image_max_bytes, hs->o->image_max_px);
    struct http_session *h = NULL;
    int64_t now = os_now_ms();
    os_mutex_lock(hs->lock);
    for (int i = 0; i < MAX_SESSIONS; i++) { /* idle ones make room */
        struct http_session *s = &hs->sessions[i];
        if (s->used && !s->ended && s->refs == 0 && now - s->last_ms > SESSION_IDLE_MS)
            session_drop(s);
    }
    for (int i = 0; i < MAX_SESSIONS && !h; i++)
        if (!hs->sessions[i].used)
            h = &hs->sessions[i];
    if (!h) { /* all taken: the one unused the longest gives way */
        struct http_session *lru = NULL;
        for (int i = 0; i < MAX_SESSIONS; i++) {
            struct http_session *s = &hs->sessions[i];
            if (s->refs == 0 && !s->ended && (!lru || s->last_ms < lru->last_ms))
                lru = s;
        }
        if (lru) {
            fprintf(stderr, "winagent mcp: session %.8s... ended to make room\n", lru->id);
            session_drop(lru);
            h = lru;
        }
    }
    if (h) {
        h->used = true;
        h->lock = hs->lock;
        h->srv = srv;
        h->refs = 1;
        h->last_ms = now;
        h->wake = os_event_new();
        for (size_t i = 0; i < sizeof rnd; i++)
            snprintf(h->id + 2 * i, 3, "%02x", rnd[i]);
        struct mcp_sink sink = {to_stream, h};
        mcp_server_set_sink(srv, &sink);
    }
    os_mutex_unlock(hs->lock);
    if (!h)
        mcp_server_free(srv);
    return h;
}

/* ---- replies ---- */

static int send_status(struct mg_connection *conn, int status, const char *extra_name,
                       const char *extra_value, const char *type, const char *body)
{
    size_t len = body ? strlen(body) : 0;
    char clen[32];
    snprintf(clen, sizeof clen, "%zu", len);
    mg_response_header_start(conn, status);
    if (type)
        mg_response_header_add(conn, "Content-Type", type, -1);
    mg_response_header_add(conn, "Content-Length", clen, -1);
    mg_response_header_add(conn, "Cache-Control", "no-store", -1);
    if (extra_name)
        mg_response_header_add(conn, extra_name, extra_value, -1);
    mg_response_header_send(conn);
    if (len)
        mg_write(conn, body, len);
    return status;
}

/* An HTTP error with a JSON-RPC error body (what MCP clients show). */
static int fail(struct mg_connection *conn, int status, const char *fmt, ...) WA_PRINTF(3, 4);

static int fail(struct mg_connection *conn, int status, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "jsonrpc", "2.0");
    cJSON_AddNullToObject(o, "id");
    cJSON *err = cJSON_AddObjectToObject(o, "error");
    cJSON_AddNumberToObject(err, "code", status == 404 ? -32001 : -32000);
    cJSON_AddStringToObject(err, "message", msg);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    const char *extra = status == 401 ? "WWW-Authenticate" : status == 429 ? "Retry-After" : NULL;
    send_status(conn, status, extra, status == 401 ? "Bearer realm=\"winagent\"" : "1",
                "application/json", text ? text : "{}");
    free(text);
    return status;
}

struct sse {
    struct mg_connection *conn;
    bool broken;
};

static void sse_event(struct sse *s, const char *json, size_t len)
{
    if (s->broken)
        return; /* the client went away: the call finishes, its output is dropped */
    if (mg_write(s->conn, "event: message\ndata: ", 21) <= 0 || mg_write(s->conn, json, len) <= 0 ||
        mg_write(s->conn, "\n\n", 2) <= 0)
        s->broken = true;
}

static void sse_sink(void *ctx, const char *json, size_t len)
{
    sse_event(ctx, json, len);
}

static void sse_headers(struct mg_connection *conn, const char *session)
{
    mg_response_header_start(conn, 200);
    mg_response_header_add(conn, "Content-Type", "text/event-stream", -1);
    mg_response_header_add(conn, "Cache-Control", "no-cache", -1);
    if (session)
        mg_response_header_add(conn, "Mcp-Session-Id", session, -1);
    mg_response_header_send(conn);
}

/* ---- checks ---- */

static bool loopback_name(const char *host)
{
    return str_ieq(host, "127.0.0.1") || str_ieq(host, "localhost") || str_ieq(host, "[::1]") ||
           str_ieq(host, "::1");
}

/* Splits "host:port" / "[v6]:port"; port -1 when absent. */
static void split_host(const char *in, char *host, size_t cap, int *port)
{
    *port = -1;
    const char *colon = NULL;
    if (in[0] == '[') {
        const char *close = strchr(in, ']');
        colon = close && close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = strrchr(in, ':');
    }
    size_t n = colon ? (size_t)(colon - in) : strlen(in);
    snprintf(host, cap, "%.*s", (int)n, in);
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        *port = *end || p <= 0 || p > 65535 ? 0 : (int)p;
    }
}

/* Whether host is one of --allow-host's names. */
static bool given_host(const struct http_server *hs, const char *host)
{
    const char *p = hs->o->allow_hosts;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t'))
            p++, n--;
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n < 255 ? n : 255), p);
        if (n && str_ieq(name, host))
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/* Whether a request naming host (and port, -1 for none) may reach this server: a
 * DNS-rebinding page names its own host, so the names are the loopback names, the
 * address listened on and the names the user gave (never "any", even on 0.0.0.0). */
static bool allowed_host(const struct http_server *hs, const char *host, int port)
{
    if (port == 0 || (port > 0 && port != hs->port))
        return false;
    return loopback_name(host) || (!hs->loopback && !hs->wildcard && str_ieq(host, hs->addr)) ||
           given_host(hs, host);
}

/* Whether an Accept header takes type ("application/json"): by its name, its type's
 * wildcard ("application" with a star) or the star of every type, with no q=0. A
 * missing header takes nothing. */
static bool accepts(const char *accept, const char *type)
{
    char family[64]; /* "application/" and a star */
    snprintf(family, sizeof family, "%.*s/*", (int)strcspn(type, "/"), type);
    for (const char *p = accept; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(n < 127 ? n : 127), p);
        p = end ? end + 1 : NULL;
        char *semi = strchr(item, ';'), *q = semi ? strstr(semi, "q=") : NULL;
        if (q && strtod(q + 2, NULL) <= 0)
            continue;
        if (semi)
            *semi = '\0';
        char *range = item + strspn(item, " \t");
        for (size_t m = strlen(range); m && (range[m - 1] == ' ' || range[m - 1] == '\t'); m--)
            range[m - 1] = '\0';
        if (str_ieq(range, type) || str_ieq(range, family) || strcmp(range, "*/*") == 0)
            return true;
    }
    return false;
}

/* Whether a Content-Type header is application/json (any parameters). */
static bool json_content(const char *type)
{
    size_t n = type ? strcspn(type, "; \t") : 0;
    return n == 16 && str_ieq_n("application/json", type, 16);
}

/* ---- connections per client address ---- */

static struct http_server *server_of(const struct mg_connection *conn)
{
    return mg_get_user_data(mg_get_context(conn));
}

/* Counts one more connection of addr, unless it has its share already: its row, or NULL. */
static struct peer *count_in(struct http_server *hs, const char *addr)
{
    struct peer *mine = NULL, *free_row = NULL;
    os_mutex_lock(hs->peers_lock);
    for (int i = 0; i < HTTP_THREADS && !mine; i++) {
        struct peer *p = &hs->peers[i];
        if (p->conns && strcmp(p->addr, addr) == 0)
            mine = p;
        else if (!p->conns && !free_row)
            free_row = p;
    }
    if (!mine && free_row) {
        mine = free_row;
        snprintf(mine->addr, sizeof mine->addr, "%s", addr);
    }
    if (mine && mine->conns < PER_ADDRESS_MAX)
        mine->conns++;
    else
        mine = NULL;
    os_mutex_unlock(hs->peers_lock);
    return mine;
}

/* A connection is accepted: it counts against its address until it closes, from before
 * its headers are read, so that idle or dribbling connections of one address hold no
 * more than their share of the threads. Past the cap it is answered 429 at once and
 * closed unread (civetweb as cmake/civetweb.patch has it), holding no thread: other
 * addresses are served meanwhile. */
static int on_connection(const struct mg_connection *c, void **conn_data)
{
    struct mg_connection *conn = (struct mg_connection *)c; /* to write the refusal */
    struct http_server *hs = server_of(conn);
    const char *addr = mg_get_request_info(conn)->remote_addr;
    struct peer *mine = NULL;
    /* A client that opens a new connection per request may be back before its last
     * connection closed: the count gets a moment to go down. */
    for (int64_t until = os_now_ms() + SHARE_WAIT_MS; !(mine = count_in(hs, addr));) {
        if (os_now_ms() >= until || hs->stopping)
            break;
        os_sleep_ms(5);
    }
    *conn_data = mine;
    if (mine)
        return 0;
    /* Its request is not read: the answer is written whole, as fail() would. */
    char body[300], head[300];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":"
             "\"Too Many Requests: %d connections from %s are being served\"}}",
             PER_ADDRESS_MAX, addr);
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nCache-Control: no-store\r\nRetry-After: 1\r\n"
                     "Connection: close\r\n\r\n",
                     strlen(body));
    mg_write(conn, head, (size_t)n);
    mg_write(conn, body, strlen(body));
    return 1;
}

static void on_close(const struct mg_connection *conn)
{
    struct http_server *hs = server_of(conn);
    struct peer *p = mg_get_user_connection_data(conn);
    if (!p)
        return;
    os_mutex_lock(hs->peers_lock);
    p->conns--;
    os_mutex_unlock(hs->peers_lock);
}

/* Host and Origin: 0 when the request may go on, else the status it got. */
static int check_origin(struct http_server *hs, struct mg_connection *conn)
{
    const char *host = mg_get_header(conn, "Host");
    char name[256];
    int port;
    if (!host || !*host)
        return fail(conn, 403, "Forbidden: a Host header is required");
    split_host(host, name, sizeof name, &port);
    if (!allowed_host(hs, name, port))
        return fail(conn, 403, "Forbidden: Host '%.100s' is not this server", host);
    const char *origin = mg_get_header(conn, "Origin");
    if (origin) {
        const char *rest = strncmp(origin, "http://", 7) == 0    ? origin + 7
                           : strncmp(origin, "https://", 8) == 0 ? origin + 8
                                                                 : NULL;
        if (rest) {
            split_host(rest, name, sizeof name, &port);
            if (port < 0)
                port = origin[4] == 's' ? 443 : 80;
        }
        if (!rest || !allowed_host(hs, name, port))
            return fail(conn, 403, "Forbidden: Origin '%.100s' may not use this server", origin);
    }
    return 0;
}

/* A CORS preflight of an Origin check_origin let through (a page of this server's own
 * names): it may send what MCP clients send. Any other Origin was refused before. */
static int preflight(struct mg_connection *conn)
{
    const char *origin = mg_get_header(conn, "Origin");
    mg_response_header_start(conn, 204);
    if (origin) {
        mg_response_header_add(conn, "Access-Control-Allow-Origin", origin, -1);
        mg_response_header_add(conn, "Access-Control-Allow-Methods", "POST, GET, DELETE", -1);
        mg_response_header_add(conn, "Access-Control-Allow-Headers",
                               "Content-Type, Accept, Authorization, Mcp-Session-Id, "
                               "MCP-Protocol-Version, Last-Event-ID",
                               -1);
        mg_response_header_add(conn, "Access-Control-Max-Age", "60", -1);
        mg_response_header_add(conn, "Vary", "Origin", -1);
    }
    mg_response_header_add(conn, "Content-Length", "0", -1);
    mg_response_header_send(conn);
    return 204;
}

/* The token and the protocol version: 0 when the request may go on, else the status it
 * got. */
static int check_request(struct http_server *hs, struct mg_connection *conn)
{
    if (hs->auth) {
        const char *a = mg_get_header(conn, "Authorization");
        const char *given = a && strncmp(a, "Bearer ", 7) == 0 ? a + 7 : "";
        if (!str_equal_secret(hs->token, given))
            return fail(conn, 401, "Unauthorized: send Authorization: Bearer <token>");
    }
    const char *v = mg_get_header(conn, "MCP-Protocol-Version");
    if (v && !mcp_version_known(v))
        return fail(conn, 400, "Bad Request: unsupported MCP-Protocol-Version '%.40s'", v);
    return 0;
}

/* ---- POST: client messages ---- */

static wa_err read_body(struct mg_connection *conn, struct dynbuf *body)
{
    const struct mg_request_info *ri = mg_get_request_info(conn);
    if (ri->content_length > (long long)BODY_MAX_BYTES)
        return WA_E_TOO_LARGE;
    char buf[16384];
    for (;;) {
        int n = mg_read(conn, buf, sizeof buf);
        if (n < 0)
            return WA_E_IO;
        if (n == 0)
            return WA_E_OK;
        if (dynbuf_add(body, buf, (size_t)n) != WA_E_OK)
            return WA_E_TOO_LARGE;
    }
}

/* What a POSTed message is: an initialize request, whether it holds any request, and
 * whether a request asks for progress (then the reply is an SSE stream). */
struct post_kind {
    bool json, initialize, has_request, progress;
};

static void classify_one(const cJSON *m, struct post_kind *k)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    if (!cJSON_IsString(method) || !cJSON_GetObjectItemCaseSensitive(m, "id"))
        return;
    k->has_request = true;
    k->initialize = k->initialize || strcmp(method->valuestring, "initialize") == 0;
    const cJSON *meta =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "params"), "_meta");
    k->progress = k->progress || cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
}

static struct post_kind classify(const char *body, size_t len)
{
    struct post_kind k = {0};
    cJSON *m = cJSON_ParseWithLength(body, len);
    k.json = m != NULL;
    if (cJSON_IsArray(m)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, m)
        {
            classify_one(e, &k);
        }
    } else if (cJSON_IsObject(m)) {
        classify_one(m, &k);
    }
    cJSON_Delete(m);
    return k;
}

static int do_post(struct http_server *hs, struct mg_connection *conn)
{
    /* MCP's Streamable HTTP: a JSON body, and a client that takes a JSON reply and an
     * event stream (a page cannot send this without a preflight) */
    if (!json_content(mg_get_header(conn, "Content-Type")))
        return fail(conn, 415,
                    "Unsupported Media Type: the body must be Content-Type: "
                    "application/json");
    const char *accept = mg_get_header(conn, "Accept");
    if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream"))
        return fail(conn, 406,
                    "Not Acceptable: Accept must allow application/json and "
                    "text/event-stream");
    struct dynbuf body;
    dynbuf_init(&body, BODY_MAX_BYTES);
    wa_err e = read_body(conn, &body);
    if (e) {
        dynbuf_cleanup(&body);
        return e == WA_E_TOO_LARGE
                   ? fail(conn, 413, "Payload Too Large: at most %u bytes", BODY_MAX_BYTES)
                   : fail(conn, 400, "Bad Request: the body could not be read");
    }
    struct post_kind k = classify(body.data ? body.data : "", body.len);
    const char *sid = mg_get_header(conn, "Mcp-Session-Id");
    struct http_session *h = NULL;
    int status = 0;
    if (!k.json)
        status = fail(conn, 400, "Parse error: the body is not JSON");
    else if (k.initialize && !(h = create(hs)))
        status = fail(conn, 503, "Service Unavailable: %d sessions are open", MAX_SESSIONS);
    else if (!k.initialize && (!sid || !*sid))
        status = fail(conn, 400, "Bad Request: Mcp-Session-Id header is required");
    else if (!k.initialize && !(h = acquire(hs, sid)))
        status = fail(conn, 404, "Not Found: no session %.80s (initialize again)", sid);
    if (status) {
        dynbuf_cleanup(&body);
        return status;
    }
    struct dynbuf out;
    dynbuf_init(&out, MCP_REPLY_MAX_BYTES);
    if (!k.has_request) { /* notifications and responses: accepted, nothing to say */
        mcp_handle_message(h->srv, body.data, body.len, &out, NULL);
        status = send_status(conn, 202, NULL, NULL, NULL, NULL);
    } else if (k.progress) { /* progress comes as events before the response */
        struct sse s = {conn, false};
        struct mcp_sink sink = {sse_sink, &s};
        sse_headers(conn, h->id);
        if (mcp_handle_message(h->srv, body.data, body.len, &out, &sink) == WA_E_OK && out.len)
            sse_event(&s, out.data, out.len);
        status = 200;
    } else {
        e = mcp_handle_message(h->srv, body.data, body.len, &out, NULL);
        if (e)
            status = fail(conn, 500, "Internal Server Error: %s", wa_err_detail());
        else if (!out.len) /* a request cancelled meanwhile: no response is due */
            status = send_status(conn, 202, NULL, NULL, NULL, NULL);
        else
            status = send_status(conn, 200, "Mcp-Session-Id", h->id, "application/json",
                                 dynbuf_str(&out));
    }
    if (k.initialize)
        term_line(stderr, "winagent mcp: session %.8s... opened by %s", h->id,
                  mg_get_request_info(conn)->remote_addr);
    release(hs, h);
    dynbuf_cleanup(&out);
    dynbuf_cleanup(&body);
    return status;
}

/* ---- GET: the session's own stream ---- */

static struct queued *take(struct http_server *hs, struct http_session *h)
{
    os_mutex_lock(hs->lock);
    struct queued *q = h->head;
    if (q) {
        h->head = q->next;
        if (!h->head)
            h->tail = NULL;
        h->queued--;
    }
    os_mutex_unlock(hs->lock);
    return q;
}

static int do_get(struct http_server *hs, struct mg_connection *conn)
{
    if (!accepts(mg_get_header(conn, "Accept"), "text/event-stream"))
        return fail(conn, 406, "Not Acceptable: the stream is text/event-stream");
    const char *sid = mg_get_header(conn, "Mcp-Session-Id");
    if (!sid || !*sid)
        return fail(conn, 400, "Bad Request: Mcp-Session-Id header is required");
    struct http_session *h = acquire(hs, sid);
    if (!h)
        return fail(conn, 404, "Not Found: no session %.80s", sid);
    os_mutex_lock(hs->lock);
    bool busy = h->streaming;
    h->streaming = true;
    os_mutex_unlock(hs->lock);
    if (busy) {
        release(hs, h);
        return fail(conn, 409, "Conflict: this session's stream is already open");
    }
    sse_headers(conn, NULL);
    struct sse s = {conn, false};
    mg_write(conn, ": winagent\n\n", 12);
    while (!s.broken && !hs->stopping) {
        struct queued *q = take(hs, h);
        if (q) {
            sse_event(&s, q->text, q->len);
            free(q);
            continue;
        }
        os_mutex_lock(hs->lock);
        bool ended = h->ended;
        os_mutex_unlock(hs->lock);
        if (ended)
            break;
        if (!os_event_wait(h->wake, KEEPALIVE_MS) && mg_write(conn, ": keepalive\n\n", 13) <= 0)
            break; /* the client went away */
    }
    os_mutex_lock(hs->lock);
    h->streaming = false;
    os_mutex_unlock(hs->lock);
    release(hs, h);
    return 200;
}

/* ---- the endpoint ---- */

static int on_mcp(struct mg_connection *conn, void *cbdata)
{
    struct http_server *hs = cbdata;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    const char *m = ri->request_method;
    int status = check_origin(hs, conn);
    if (!status && strcmp(m, "OPTIONS") == 0) /* a preflight carries no token */
        return preflight(conn);
    if (!status)
        status = check_request(hs, conn);
    if (status)
        return status;
    if (strcmp(ri->local_uri, "/mcp") != 0)
        return fail(conn, 404, "Not Found: the MCP endpoint is /mcp");
    if (strcmp(m, "POST") == 0)
        return do_post(hs, conn);
    if (strcmp(m, "GET") == 0)
        return do_get(hs, conn);
    if (strcmp(m, "DELETE") == 0) {
        const char *sid = mg_get_header(conn, "Mcp-Session-Id");
        struct http_session *h = sid ? acquire(hs, sid) : NULL;
        if (!h)
            return fail(conn, sid ? 404 : 400, "no session %.80s", sid ? sid : "given");
        end_session(hs, h);
        release(hs, h);
        term_line(stderr, "winagent mcp: session %.8s... ended by the client", sid);
        return send_status(conn, 200, NULL, NULL, NULL, NULL);
    }
    return fail(conn, 405, "Method Not Allowed: POST, GET or DELETE");
}

/* Every other path gets the same checks (a rebinding page learns nothing) and a 404. */
static int on_other(struct mg_connection *conn, void *cbdata)
{
    int status = check_origin(cbdata, conn);
    if (!status)
        status = check_request(cbdata, conn);
    return status ? status : fail(conn, 404, "Not Found: the MCP endpoint is /mcp");
}

static int on_log(const struct mg_connection *conn, const char *message)
{
    (void)conn;
    term_line(stderr, "winagent mcp: http: %s", message);
    return 1;
}

/* ---- start and stop ---- */

static wa_err parse_listen(const char *spec, struct http_server *hs)
{
    const char *colon = strrchr(spec, ':');
    const char *portp = colon ? colon + 1 : spec;
    char *end;
    long port = strtol(portp, &end, 10);
    if (!*portp || *end || port < 0 || port > 65535)
        return wa_fail(WA_E_USAGE, "--http takes [ADDR:]PORT, not '%s'", spec);
    hs->port = (int)port;
    if (colon)
        snprintf(hs->addr, sizeof hs->addr, "%.*s", (int)(colon - spec), spec);
    else
        snprintf(hs->addr, sizeof hs->addr, "127.0.0.1");
    if (!*hs->addr || strchr(hs->addr, ':') || strchr(hs->addr, '[')) /* IPv4 only */
        return wa_fail(WA_E_USAGE, "--http: the address must be an IPv4 address (got '%s')",
                       hs->addr);
    hs->loopback = strncmp(hs->addr, "127.", 4) == 0 || str_ieq(hs->addr, "localhost");
    if (str_ieq(hs->addr, "localhost"))
        snprintf(hs->addr, sizeof hs->addr, "127.0.0.1");
    hs->wildcard = strcmp(hs->addr, "0.0.0.0") == 0;
    return WA_E_OK;
}

int mcp_http_serve(struct core *c, const struct mcp_http_opts *o)
{
    static struct http_server hs; /* civetweb's threads hold it until mg_stop */
    memset(&hs, 0, sizeof hs);
    hs.core = c;
    hs.o = o;
    wa_err e = parse_listen(o->listen, &hs);
    if (!e && o->no_auth && !hs.loopback)
        e = wa_fail(WA_E_USAGE,
                    "--no-auth is allowed only on a loopback address (127.x), not "
                    "on %s",
                    hs.addr);
    if (!e && !hs.loopback && !o->allow_remote)
        e = wa_fail(WA_E_USAGE,
                    "%s is not a loopback address: serving the desktop off this machine needs "
                    "--allow-remote, and its traffic (the token too) is clear text; put a "
                    "TLS-terminating proxy in front",
                    hs.addr);
    if (!e && hs.wildcard && !(o->allow_hosts && *o->allow_hosts))
        e = wa_fail(WA_E_USAGE,
                    "--http %s:%d listens on every address: name the host names and addresses "
                    "clients reach it by with --allow-host NAME[,NAME] (a Host check by port "
                    "alone lets a DNS-rebinding page through)",
                    hs.addr, hs.port);
    if (e)
        return exit_fail(e);
    hs.auth = !o->no_auth;
    if (hs.auth && o->token && *o->token) {
        snprintf(hs.token, sizeof hs.token, "%s", o->token);
    } else if (hs.auth) {
        unsigned char rnd[24];
        if ((e = os_random_bytes(rnd, sizeof rnd)))
            return exit_fail(e);
        for (size_t i = 0; i < sizeof rnd; i++)
            snprintf(hs.token + 2 * i, 3, "%02x", rnd[i]);
    }
    if (!(hs.lock = os_mutex_new()) || !(hs.peers_lock = os_mutex_new())) {
        os_mutex_free(hs.lock);
        return exit_fail(wa_fail(WA_E_NOMEM, "out of memory"));
    }

    char ports[96];
    snprintf(ports, sizeof ports, "%s:%d", hs.addr, hs.port);
    const char *options[] = {"listening_ports", ports, "num_threads", STRINGIFY(HTTP_THREADS),
                             "request_timeout_ms",
                             HTTP_REQUEST_TIMEOUT_MS, /* headers and body, whole: a client that
                                                       * dribbles holds a thread no longer */
                             "enable_keep_alive", "no", "max_request_size", "65536",
                             /* no CORS of civetweb's own: it would answer every preflight
                              * with Access-Control-Allow-Origin: * (on_mcp answers them) */
                             "access_control_allow_origin", "", "access_control_allow_methods", "",
                             "access_control_allow_headers", "", NULL};
    struct mg_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.log_message = on_log;
    cb.init_connection = on_connection;
    cb.connection_close = on_close;
    mg_init_library(0);
    struct mg_context *ctx = mg_start(&cb, &hs, options);
    if (!ctx) {
        mg_exit_library();
        os_mutex_free(hs.lock);
        os_mutex_free(hs.peers_lock);
        return exit_fail(wa_fail(WA_E_IO, "cannot listen on %s (in use?)", ports));
    }
    mg_set_request_handler(ctx, "/mcp", on_mcp, &hs);
    mg_set_request_handler(ctx, "/", on_other, &hs);
    struct mg_server_port bound[4];
    if (mg_get_server_ports(ctx, 4, bound) > 0)
        hs.port = bound[0].port;
    fprintf(stderr, "winagent mcp %s: listening on http://%s:%d/mcp%s%s%s\n", WINAGENT_VERSION,
            hs.addr, hs.port, core_shell(c) != SHELL_DENIED ? ", powershell on" : "",
            core_dry_run(c) ? ", dry run" : "", hs.auth ? "" : ", no token (--no-auth)");
    if (hs.auth && !(o->token && *o->token))
        fprintf(stderr,
                "winagent mcp: token: %s (send Authorization: Bearer <token>; set "
                "WINAGENT_MCP_TOKEN to choose one)\n",
                hs.token);
    if (!hs.loopback)
        fprintf(stderr,
                "winagent mcp: WARNING: serving on %s, off loopback, in clear text: the token "
                "and the desktop's contents travel unencrypted; put a TLS-terminating proxy in "
                "front\n",
                hs.addr);
    fflush(stderr);
    while (!os_interrupted())
        os_sleep_ms(500);
    fprintf(stderr, "winagent mcp: stopping (%s)\n", os_interrupt_reason());
    hs.stopping = true;
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (hs.sessions[i].used && hs.sessions[i].wake)
            os_event_set(hs.sessions[i].wake);
    mg_stop(ctx);
    mg_exit_library();
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (hs.sessions[i].used)
            session_drop(&hs.sessions[i]);
    os_mutex_free(hs.lock);
    os_mutex_free(hs.peers_lock);
    return exit_interrupted();
}
