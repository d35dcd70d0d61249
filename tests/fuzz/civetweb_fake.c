/* civetweb's API as mcp_http.c uses it, without sockets or threads of its own. */
#include "tests/fuzz/civetweb_fake.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <civetweb.h>

struct mg_context {
    struct mg_callbacks callbacks;
    void *user_data;
};

struct mg_connection {
    const struct fake_request *rq;
    struct mg_request_info info;
    size_t read_at;
    bool headers_sent;
    char *session;
    size_t session_cap;
    void *user_connection_data;
};

static struct mg_context the_context;
static mg_request_handler on_mcp, on_other;
static void *cb_mcp, *cb_other;
static atomic_bool parked;

unsigned mg_init_library(unsigned features)
{
    (void)features;
    return 1;
}

unsigned mg_exit_library(void)
{
    return 1;
}

struct mg_context *mg_start(const struct mg_callbacks *callbacks, void *user_data,
                            const char **configuration_options)
{
    (void)configuration_options;
    if (callbacks)
        the_context.callbacks = *callbacks;
    the_context.user_data = user_data;
    return &the_context;
}

void mg_set_request_handler(struct mg_context *ctx, const char *uri, mg_request_handler handler,
                            void *cbdata)
{
    (void)ctx;
    if (strcmp(uri, "/mcp") == 0) {
        on_mcp = handler;
        cb_mcp = cbdata;
    } else {
        on_other = handler;
        cb_other = cbdata;
    }
}

int mg_get_server_ports(const struct mg_context *ctx, int size, struct mg_server_port *ports)
{
    (void)ctx;
    (void)size;
    (void)ports;
    return 0;
}

/* civetweb's mg_stop waits for its worker threads; the fuzzer is the one worker here and
 * never finishes, so the server stays as it is while inputs are served. */
void mg_stop(struct mg_context *ctx)
{
    (void)ctx;
    atomic_store(&parked, true);
    for (;;)
        pause();
}

bool fake_civetweb_ready(void)
{
    return atomic_load(&parked) && on_mcp && on_other;
}

struct mg_context *mg_get_context(const struct mg_connection *conn)
{
    (void)conn;
    return &the_context;
}

void *mg_get_user_data(const struct mg_context *ctx)
{
    return ctx->user_data;
}

void mg_set_user_connection_data(const struct mg_connection *const_conn, void *data)
{
    ((struct mg_connection *)const_conn)->user_connection_data = data;
}

void *mg_get_user_connection_data(const struct mg_connection *conn)
{
    return conn->user_connection_data;
}

const struct mg_request_info *mg_get_request_info(const struct mg_connection *conn)
{
    return &conn->info;
}

const char *mg_get_header(const struct mg_connection *conn, const char *name)
{
    for (int i = 0; i < conn->rq->n_headers; i++)
        if (strcasecmp(conn->rq->names[i], name) == 0)
            return conn->rq->values[i];
    return NULL;
}

int mg_read(struct mg_connection *conn, void *buf, size_t len)
{
    size_t left = conn->rq->body_len - conn->read_at;
    size_t n = len < left ? len : left;
    if (n)
        memcpy(buf, conn->rq->body + conn->read_at, n);
    conn->read_at += n;
    return (int)n;
}

int mg_write(struct mg_connection *conn, const void *buf, size_t len)
{
    (void)conn;
    (void)buf;
    return (int)len; /* the client takes everything */
}

int mg_response_header_start(struct mg_connection *conn, int status)
{
    if (conn->headers_sent || status < 100 || status > 999)
        return -1;
    return 0;
}

int mg_response_header_add(struct mg_connection *conn, const char *header, const char *value,
                           int value_len)
{
    if (conn->headers_sent || !header || !value)
        return -1;
    if (strcasecmp(header, "Mcp-Session-Id") == 0 && conn->session_cap) {
        size_t n = value_len < 0 ? strlen(value) : (size_t)value_len;
        snprintf(conn->session, conn->session_cap, "%.*s", (int)n, value);
    }
    return 0;
}

int mg_response_header_send(struct mg_connection *conn)
{
    if (conn->headers_sent)
        return -1;
    conn->headers_sent = true;
    return 0;
}

int fake_civetweb_serve(const struct fake_request *rq, char *session, size_t cap)
{
    struct mg_connection conn;
    memset(&conn, 0, sizeof conn);
    conn.rq = rq;
    conn.session = session;
    conn.session_cap = cap;
    conn.info.request_method = rq->method;
    conn.info.request_uri = rq->uri;
    conn.info.local_uri = rq->uri;
    conn.info.local_uri_raw = rq->uri;
    conn.info.http_version = "1.1";
    snprintf(conn.info.remote_addr, sizeof conn.info.remote_addr, "127.0.0.1");
    conn.info.remote_port = 50000;
    conn.info.server_port = 8765;
    conn.info.content_length = rq->content_length;
    conn.info.num_headers = rq->n_headers;
    for (int i = 0; i < rq->n_headers && i < MG_MAX_HEADERS; i++) {
        conn.info.http_headers[i].name = rq->names[i];
        conn.info.http_headers[i].value = rq->values[i];
    }
    /* civetweb picks the handler of the longest matching prefix */
    size_t n = strlen(rq->uri);
    bool mcp = strncmp(rq->uri, "/mcp", 4) == 0 && (n == 4 || rq->uri[4] == '/');
    /* as civetweb: begin_request first (non-zero: it answered), the handler, then the
     * connection closes (keep-alive is off) */
    const struct mg_callbacks *cb = &the_context.callbacks;
    int status = cb->begin_request ? cb->begin_request(&conn) : 0;
    if (status == 0)
        status = mcp ? on_mcp(&conn, cb_mcp) : on_other(&conn, cb_other);
    if (cb->connection_close)
        cb->connection_close(&conn);
    return status;
}
