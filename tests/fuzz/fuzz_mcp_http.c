/* HTTP requests to `mcp --http`: agent/mcp/mcp_http.c's handlers (the Host, Origin
 * and token checks, sessions, POST, GET and DELETE) below civetweb's socket layer,
 * which civetweb_fake.c stands in for. The input is one or more HTTP/1.1 requests
 * back to back (a body is Content-Length bytes); "Mcp-Session-Id: @" names the session
 * the latest response opened. Sessions an input opened are ended after it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "agent/mcp/mcp.h"
#include "agent/mcp/mcp_http.h"
#include "tests/fuzz/civetweb_fake.h"
#include "tests/fuzz/harness.h"

#define MAX_REQUESTS 8

static struct mcp_http_opts opts = {
    .listen = "127.0.0.1:8765",
    .token = "fuzz-token",
    .image_max_bytes = 64 << 10,
    .image_max_px = 200,
};

static void *server(void *arg)
{
    mcp_http_serve(arg, &opts);
    return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct core *c = fuzz_core();
    pthread_t t;
    if (pthread_create(&t, NULL, server, c)) {
        fprintf(stderr, "fuzz: cannot start the server thread\n");
        exit(1);
    }
    pthread_detach(t);
    /* The server waits for Ctrl+C, then stops civetweb, which here parks it for good
     * with its sessions and handlers in place; frozen time also ends every wait. */
    fuzz_freeze_time();
    for (int i = 0; !fake_civetweb_ready(); i++) {
        if (i > 5000) {
            fprintf(stderr, "fuzz: the server did not register its handlers\n");
            exit(1);
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Cuts the next line off *p (LF or CRLF); NULL at the end of the head. */
static char *next_line(char **p, char *end)
{
    if (*p >= end)
        return NULL;
    char *line = *p;
    char *nl = memchr(line, '\n', (size_t)(end - line));
    char *stop = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    if (stop > line && stop[-1] == '\r')
        stop--;
    *stop = '\0';
    return line;
}

/* Parses the request at *at (the text ends at end); false when there is none. */
static bool parse_request(char **at, char *end, const char *last_session, struct fake_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->content_length = -1;
    char *p = *at;
    while (p < end && (*p == '\r' || *p == '\n'))
        p++;
    if (p >= end)
        return false;
    /* the head ends at the first empty line */
    char *head_end = end;
    for (char *q = p; q < end; q++)
        if (*q == '\n' &&
            ((q + 1 < end && q[1] == '\n') || (q + 2 < end && q[1] == '\r' && q[2] == '\n'))) {
            head_end = q + 1;
            break;
        }
    char *line = next_line(&p, head_end);
    char *sp1 = line ? strchr(line, ' ') : NULL;
    if (!sp1)
        return false;
    *sp1 = '\0';
    rq->method = line;
    rq->uri = sp1 + 1;
    char *sp2 = strchr(sp1 + 1, ' ');
    if (sp2)
        *sp2 = '\0';
    char *query = strchr(sp1 + 1, '?');
    if (query)
        *query = '\0';
    while ((line = next_line(&p, head_end)) && *line) {
        char *colon = strchr(line, ':');
        if (!colon || rq->n_headers == FAKE_MAX_HEADERS)
            continue;
        *colon = '\0';
        const char *value = colon + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        if (strcasecmp(line, "Mcp-Session-Id") == 0 && strcmp(value, "@") == 0)
            value = last_session;
        if (strcasecmp(line, "Content-Length") == 0)
            rq->content_length = strtoll(value, NULL, 10);
        rq->names[rq->n_headers] = line;
        rq->values[rq->n_headers++] = value;
    }
    /* past the empty line: the body */
    p = head_end;
    if (p < end && *p == '\r')
        p++;
    if (p < end && *p == '\n')
        p++;
    size_t left = (size_t)(end - p);
    size_t n = rq->content_length > 0 && (size_t)rq->content_length < left
                   ? (size_t)rq->content_length
               : rq->content_length > 0 ? left
                                        : 0;
    rq->body = p;
    rq->body_len = n;
    *at = p + n;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    char *at = text, *end = text + size;
    char sessions[MAX_REQUESTS][80];
    int n_sessions = 0;
    char last[80] = "";
    struct fake_request rq;
    for (int i = 0; i < MAX_REQUESTS && parse_request(&at, end, last, &rq); i++) {
        char session[80] = "";
        fake_civetweb_serve(&rq, session, sizeof session);
        if (*session && strcmp(session, last) != 0) {
            snprintf(last, sizeof last, "%s", session);
            snprintf(sessions[n_sessions++], sizeof sessions[0], "%s", session);
        }
    }
    /* end what this input opened, so that the next one starts from the same server */
    for (int i = 0; i < n_sessions; i++) {
        struct fake_request del = {
            .method = "DELETE",
            .uri = "/mcp",
            .names = {"Host", "Authorization", "Mcp-Session-Id"},
            .values = {"127.0.0.1:8765", "Bearer fuzz-token", sessions[i]},
            .n_headers = 3,
            .body = "",
            .content_length = -1,
        };
        fake_civetweb_serve(&del, NULL, 0);
    }
    free(text);
    return 0;
}
