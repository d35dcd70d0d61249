/* A stand-in for civetweb below its socket layer, for the `mcp --http` target: the
 * handlers agent/mcp/mcp_http.c registers get connections whose request is already
 * parsed and whose answer is collected in memory. Linked before the core, it takes the
 * place of every civetweb function mcp_http.c calls (civetweb.o is then never linked;
 * a new call to civetweb there makes the link fail loudly with a duplicate symbol). */
#ifndef WINAGENT_TESTS_FUZZ_CIVETWEB_FAKE_H
#define WINAGENT_TESTS_FUZZ_CIVETWEB_FAKE_H

#include <stdbool.h>
#include <stddef.h>

#define FAKE_MAX_HEADERS 64

/* One request as civetweb would have parsed it (strings borrowed). */
struct fake_request {
    const char *method, *uri;
    const char *names[FAKE_MAX_HEADERS], *values[FAKE_MAX_HEADERS];
    int n_headers;
    const char *body;
    size_t body_len;
    long long content_length; /* -1 when the request gave none */
};

/* Whether mcp_http_serve has registered its handlers (and is parked in mg_stop). */
bool fake_civetweb_ready(void);

/* Serves one request through the registered handlers, as a civetweb worker thread would;
 * returns the status the handler returned. The value of the response's Mcp-Session-Id
 * header, if it had one, is copied into session (cap bytes). */
int fake_civetweb_serve(const struct fake_request *rq, char *session, size_t cap);

#endif
