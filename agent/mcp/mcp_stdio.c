/* `winagent mcp`: the command that starts the MCP server, and its stdio transport
 * (newline-delimited JSON-RPC 2.0 on stdin/stdout: protocol messages only on stdout,
 * logs on stderr). Streamable HTTP is mcp_http.c; both carry mcp.c's server. */
#include "agent/mcp/mcp_stdio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/front/cli.h"
#include "agent/mcp/mcp.h"
#include "agent/mcp/mcp_http.h"
#include "base/args.h"
#include "base/os.h"
#include "base/str.h"
#include "base/version.h"

/* ---- stdio ---- */

/* Reads one line (without its newline) into line. WA_E_OK with a line;
 * WA_E_TOO_LARGE when it exceeded the cap (the rest of it is skipped);
 * WA_E_IO at end of input (a last line without a newline is still returned first). */
static wa_err read_line(FILE *in, struct dynbuf *line)
{
    char chunk[4096];
    bool too_large = false, any = false;
    dynbuf_reset(line);
    for (;;) {
        /* Byte by byte from stdio's buffer: a NUL in a line stays in it (and makes it a
         * parse error) instead of cutting it short. */
        size_t n = 0;
        int c = EOF;
        while (n < sizeof chunk && (c = getc(in)) != EOF && c != '\n')
            chunk[n++] = (char)c;
        any = any || n > 0 || c == '\n';
        if (!too_large && n && dynbuf_add(line, chunk, n) != WA_E_OK) {
            too_large = true;
            dynbuf_reset(line);
        }
        if (c == '\n' || (c == EOF && any))
            return too_large ? WA_E_TOO_LARGE : WA_E_OK;
        if (c == EOF)
            return WA_E_IO;
    }
}

/* Lines from stdin, read on a thread of their own so that a cancellation can come in
 * while a request is being served; requests queue for the main thread. */
struct line_item {
    struct line_item *next;
    size_t len;
    bool too_large;
    char text[];
};

struct stdio_link {
    struct mcp_server *s;
    FILE *out;
    struct os_mutex *write; /* replies and notifications, one line at a time */
    struct os_mutex *qlock;
    struct os_event *more;
    struct line_item *head, *tail;
    bool eof, broken;
    bool done; /* the reader touches nothing of this any more */
};

static void write_line(struct stdio_link *l, const char *text, size_t len)
{
    os_mutex_lock(l->write);
    if (!l->broken && (fwrite(text, 1, len, l->out) != len || fputc('\n', l->out) == EOF ||
                       fflush(l->out) != 0)) {
        l->broken = true;
        fprintf(stderr, "winagent mcp: the client stopped reading\n");
    }
    os_mutex_unlock(l->write);
}

static void sink_stdout(void *ctx, const char *json, size_t len)
{
    write_line(ctx, json, len);
}

static void push_line(struct stdio_link *l, const char *text, size_t len, bool too_large)
{
    struct line_item *it = malloc(sizeof *it + len + 1);
    if (!it)
        return;
    it->next = NULL;
    it->len = len;
    it->too_large = too_large;
    memcpy(it->text, text, len);
    it->text[len] = '\0';
    os_mutex_lock(l->qlock);
    if (l->tail)
        l->tail->next = it;
    else
        l->head = it;
    l->tail = it;
    os_mutex_unlock(l->qlock);
    os_event_set(l->more);
}

/* Notifications (no "id") and the client's responses (no "method") are handled as they
 * arrive: a cancellation must not queue behind the request it cancels, nor the answer to
 * an elicitation behind the request that waits for it. */
static bool is_notification(const char *text, size_t len)
{
    cJSON *m = cJSON_ParseWithLength(text, len);
    bool method = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "method"));
    bool id = cJSON_GetObjectItemCaseSensitive(m, "id") != NULL;
    bool response = cJSON_GetObjectItemCaseSensitive(m, "result") ||
                    cJSON_GetObjectItemCaseSensitive(m, "error");
    bool n = cJSON_IsObject(m) && (method ? !id : id && response) && !memchr(text, '\0', len);
    cJSON_Delete(m);
    return n;
}

static void reader(void *arg)
{
    struct stdio_link *l = arg;
    struct dynbuf line, none;
    dynbuf_init(&line, MCP_MESSAGE_MAX_BYTES);
    dynbuf_init(&none, 1);
    for (;;) {
        wa_err e = read_line(stdin, &line);
        if (e == WA_E_IO)
            break;
        if (e == WA_E_OK && is_notification(line.data, line.len))
            mcp_handle_message(l->s, line.data, line.len, &none, NULL);
        else
            push_line(l, line.data ? line.data : "", line.len, e == WA_E_TOO_LARGE);
    }
    dynbuf_cleanup(&line);
    dynbuf_cleanup(&none);
    os_mutex_lock(l->qlock);
    l->eof = true;
    os_mutex_unlock(l->qlock);
    os_event_set(l->more);
    os_mutex_lock(l->qlock);
    l->done = true;
    os_mutex_unlock(l->qlock);
}

/* Waits a moment for the reader to finish; false when it is still reading (the client
 * stopped reading replies but keeps stdin open): then nothing may be freed. */
static bool reader_finished(struct stdio_link *l)
{
    for (int i = 0; i < 200; i++) {
        os_mutex_lock(l->qlock);
        bool done = l->done;
        os_mutex_unlock(l->qlock);
        if (done)
            return true;
        os_nap_ms(10);
    }
    return false;
}

static struct line_item *pop_line(struct stdio_link *l, bool *eof)
{
    os_mutex_lock(l->qlock);
    struct line_item *it = l->head;
    if (it) {
        l->head = it->next;
        if (!l->head)
            l->tail = NULL;
    }
    *eof = l->eof;
    os_mutex_unlock(l->qlock);
    return it;
}

static void serve_stdio(struct stdio_link *l)
{
    struct dynbuf reply;
    dynbuf_init(&reply, MCP_REPLY_MAX_BYTES);
    for (;;) {
        bool eof;
        struct line_item *it = pop_line(l, &eof);
        if (!it) {
            if (eof)
                break; /* end of input: the client is done */
            os_event_wait(l->more, -1);
            continue;
        }
        dynbuf_reset(&reply);
        if (it->too_large) {
            mcp_reply_too_large(&reply);
        } else {
            struct mcp_sink sink = {sink_stdout, l};
            if (mcp_handle_message(l->s, it->text, it->len, &reply, &sink) != WA_E_OK) {
                fprintf(stderr, "winagent mcp: cannot send a reply: %s\n", wa_err_detail());
                dynbuf_reset(&reply);
            }
        }
        free(it);
        if (reply.len)
            write_line(l, reply.data, reply.len);
        if (l->broken)
            break;
    }
    dynbuf_cleanup(&reply);
}

static const char mcp_usage[] =
    "usage: winagent mcp [--http [ADDR:]PORT [--no-auth] [--allow-remote]\n"
    "                    [--allow-host NAME,...]] [--allow-shell]\n"
    "                    [--dry-run]\n"
    "                    [--audit-log FILE] [--delivery foreground|background|auto]\n"
    "                    [--takeover pause|stop|off] [--idle-seconds N]\n"
    "  MCP over stdio (newline-delimited JSON-RPC 2.0 on stdin/stdout), or over\n"
    "  Streamable HTTP at http://ADDR:PORT/mcp (ADDR 127.0.0.1 unless given). The HTTP\n"
    "  server asks for a bearer token: WINAGENT_MCP_TOKEN, else one printed on stderr;\n"
    "  --no-auth drops it, on a loopback address only. An address off loopback needs\n"
    "  --allow-remote: the traffic, token included, is clear text (put a TLS-terminating\n"
    "  proxy in front). Host and Origin must name this server: a loopback name, ADDR, or\n"
    "  one of --allow-host's names (required with 0.0.0.0).\n";

/* The client's image limits from the settings. */
static wa_err image_limits(const struct settings *set, long *bytes, int *px)
{
    int b;
    wa_err e = settings_int(set, SET_MCP_IMAGE_MAX_BYTES, 1024, 64 << 20, MCP_IMAGE_MAX_BYTES, &b);
    if (!e)
        e = settings_int(set, SET_MCP_IMAGE_MAX_PX, 16, 16384, MCP_IMAGE_MAX_PX, px);
    *bytes = b;
    return e;
}

/* `winagent mcp`'s options. */
struct mcp_options {
    const char *http; /* --http [ADDR:]PORT, or NULL for stdio */
    bool no_auth;
    bool allow_remote;
    const char *allow_hosts;
    long max_bytes;
    int max_px;
};

/* Reads the command line and the settings into o; prints the error and returns
 * false when they do not make sense. */
static bool mcp_options(int argc, char **argv, struct settings *set, struct mcp_options *o)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    o->http = args_value(&a, "http", NULL);
    o->no_auth = args_flag(&a, "no-auth", NULL);
    o->allow_remote = args_flag(&a, "allow-remote", NULL);
    o->allow_hosts = args_value(&a, "allow-host", NULL);
    wa_err e = settings_load(set, &a, SG_DESK);
    if (!e)
        e = args_check_unknown(&a);
    if (!e && args_positional_count(&a) > 0)
        e = wa_fail(WA_E_USAGE, "mcp takes no arguments (got '%s')", args_positional(&a, 0));
    if (!e && o->no_auth && !o->http)
        e = wa_fail(WA_E_USAGE, "--no-auth goes with --http");
    if (!e && o->allow_hosts && !o->http)
        e = wa_fail(WA_E_USAGE, "--allow-host goes with --http");
    if (!e)
        e = image_limits(set, &o->max_bytes, &o->max_px);
    if (e) {
        exit_fail(e);
        fputs(mcp_usage, stderr);
        return false;
    }
    return true;
}

static int serve_http(const struct settings *set, const struct mcp_options *mo)
{
    struct mcp_http_opts o = {.listen = mo->http,
                              .no_auth = mo->no_auth,
                              .allow_remote = mo->allow_remote,
                              .allow_hosts = mo->allow_hosts,
                              .token = settings_get(set, SET_MCP_TOKEN),
                              .image_max_bytes = mo->max_bytes,
                              .image_max_px = mo->max_px};
    os_interrupt_install(false);
    struct core *c = host_core(set, false);
    if (c)
        core_watch_person(c);
    int rc = c ? mcp_http_serve(c, &o) : EXIT_USAGE;
    core_free(c);
    return rc;
}

/* Serves one client on stdin/stdout until its input ends; the server is set up on c.
 * *done is false when the reader is still blocked on stdin (nothing may be freed: the
 * process ends with it). */
static int serve_on_stdio(struct core *c, FILE *out, const struct mcp_options *mo, bool *done)
{
    *done = false;
    struct mcp_server *s = NULL;
    wa_err e = mcp_server_new(c, &s);
    if (e)
        return exit_fail(e);
    mcp_server_set_image_limits(s, mo->max_bytes, mo->max_px);
    struct stdio_link l = {.s = s, .out = out};
    l.write = os_mutex_new();
    l.qlock = os_mutex_new();
    l.more = os_event_new();
    struct mcp_sink sink = {sink_stdout, &l};
    mcp_server_set_sink(s, &sink);
    if (!l.write || !l.qlock || !l.more || os_thread_start(reader, &l) != WA_E_OK) {
        fprintf(stderr, "winagent mcp: cannot start the reader\n");
        return EXIT_USAGE;
    }
    fprintf(stderr, "winagent mcp %s: ready on stdio%s%s\n", WINAGENT_VERSION,
            core_shell(c) != SHELL_DENIED ? ", powershell on" : "",
            core_dry_run(c) ? ", dry run" : "");
    serve_stdio(&l);
    int rc = os_interrupted() ? exit_interrupted() : EXIT_OK;
    mcp_server_set_sink(s, NULL);
    fflush(out);
    if (!reader_finished(&l))
        return rc;
    *done = true;
    bool eof;
    for (struct line_item *it; (it = pop_line(&l, &eof));)
        free(it);
    os_event_free(l.more);
    os_mutex_free(l.qlock);
    os_mutex_free(l.write);
    mcp_server_free(s);
    return rc;
}

int cmd_mcp(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(mcp_usage, stdout);
            return EXIT_OK;
        }
    struct settings set;
    struct mcp_options mo = {0};
    if (!mcp_options(argc, argv, &set, &mo)) {
        settings_cleanup(&set);
        return EXIT_USAGE;
    }
    if (mo.http) {
        int rc = serve_http(&set, &mo);
        settings_cleanup(&set);
        return rc;
    }
    FILE *out;
    wa_err e = os_protocol_stdio(&out);
    if (e) {
        settings_cleanup(&set);
        return exit_fail(e);
    }
    os_interrupt_install(false); /* stdin is the protocol: no watcher may read it */
    struct core *c = host_core(&set, false);
    settings_cleanup(&set);
    if (!c)
        return EXIT_USAGE;
    core_watch_person(c);
    bool done;
    int rc = serve_on_stdio(c, out, &mo, &done);
    if (done) {
        core_free(c);
        fclose(out);
    }
    return rc;
}
