/* `winagent serve`: command-layer requests over loopback TCP or a shared folder. */
#include "agent/serve.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/args.h"
#include "agent/cli.h"
#include "agent/version.h"
#include "automation/image.h"
#include "base/os.h"
#include "base/str.h"

#define POLL_MS              50   /* the folder transport's poll interval */
#define PARSE_GRACE_MS       2000 /* a request that stays unparseable this long is answered */
#define REQUEST_MAX          (16u << 20) /* bytes of one request (file or line) */
#define ACCEPT_WAIT_MS       250         /* how often the TCP loop looks at Ctrl+C */
#define IPC_PROTOCOL_VERSION "1.0.0"

/* ---- requests and responses ---- */

static void iso_time(char *buf, size_t n)
{
    struct os_tm t;
    os_utc_time(os_time_ms(), &t);
    snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.year, t.month, t.day, t.hour, t.min,
             t.sec, t.msec);
}

static const char *skip_bom(const char *text, size_t *len)
{
    if (*len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        *len -= 3;
        return text + 3;
    }
    return text;
}

/* Equal strings, in time that depends only on the length of the expected one. */
static bool token_equal(const char *expected, const char *given)
{
    size_t n = strlen(expected), m = strlen(given);
    unsigned char diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)expected[i] ^ (unsigned char)(i < m ? given[i] : 0);
    return diff == 0;
}

static cJSON *response_new(const cJSON *id, const char *fallback_id)
{
    cJSON *o = cJSON_CreateObject();
    if (cJSON_IsString(id) || cJSON_IsNumber(id))
        cJSON_AddItemToObject(o, "id", cJSON_Duplicate(id, true));
    else if (fallback_id)
        cJSON_AddStringToObject(o, "id", fallback_id);
    else
        cJSON_AddNullToObject(o, "id");
    char ts[40];
    iso_time(ts, sizeof ts);
    cJSON_AddStringToObject(o, "timestamp", ts);
    return o;
}

static cJSON *error_response(const cJSON *id, const char *fallback_id, wa_err e, const char *msg)
{
    cJSON *o = response_new(id, fallback_id);
    cJSON_AddBoolToObject(o, "success", false);
    cJSON_AddNullToObject(o, "data");
    cJSON *err = cJSON_AddObjectToObject(o, "error");
    cJSON_AddStringToObject(err, "code", wa_err_code(e));
    cJSON_AddStringToObject(err, "message", msg);
    return o;
}

static void add_image(cJSON *o, const struct ctl_result *r)
{
    const unsigned char *p = (const unsigned char *)r->png.data;
    if (r->png.len < 24 || memcmp(p, "\x89PNG\r\n\x1a\n", 8) != 0)
        return;
    struct dynbuf b64;
    dynbuf_init(&b64, (r->png.len / 3 + 2) * 4 + 16);
    if (base64_encode(r->png.data, r->png.len, &b64) == WA_E_OK) {
        cJSON *img = cJSON_AddObjectToObject(o, "image");
        cJSON_AddStringToObject(img, "mime_type", "image/png");
        cJSON_AddNumberToObject(img, "width",
                                (double)((uint32_t)p[16] << 24 | p[17] << 16 | p[18] << 8 | p[19]));
        cJSON_AddNumberToObject(img, "height",
                                (double)((uint32_t)p[20] << 24 | p[21] << 16 | p[22] << 8 | p[23]));
        cJSON_AddNumberToObject(img, "scale", r->scale);
        int origin[2] = {r->origin_x, r->origin_y};
        cJSON_AddItemToObject(img, "origin", cJSON_CreateIntArray(origin, 2));
        cJSON_AddStringToObject(img, "data", dynbuf_str(&b64));
    }
    dynbuf_cleanup(&b64);
}

/* A parsed request -> its response. */
static cJSON *handle_request(struct ctl *c, const cJSON *req, const char *token,
                             const char *fallback_id)
{
    if (!cJSON_IsObject(req))
        return error_response(NULL, fallback_id, WA_E_INVALID_ARGS,
                              "a request is a JSON object {\"id\",\"command\",\"params\"}");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    if (token) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "token");
        if (!cJSON_IsString(t) || !token_equal(token, t->valuestring)) {
            fprintf(stderr, "winagent serve: request refused: %s token\n",
                    cJSON_IsString(t) ? "wrong" : "no");
            return error_response(id, fallback_id, WA_E_DENIED,
                                  cJSON_IsString(t) ? "wrong token" : "missing token");
        }
    }
    const cJSON *command = cJSON_GetObjectItemCaseSensitive(req, "command");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    if (!cJSON_IsString(command))
        return error_response(id, fallback_id, WA_E_INVALID_ARGS, "missing \"command\"");
    if (params && !cJSON_IsNull(params) && !cJSON_IsObject(params))
        return error_response(id, fallback_id, WA_E_INVALID_ARGS, "\"params\" must be an object");

    struct ctl_result r;
    ctl_result_init(&r);
    int64_t t0 = os_now_ms();
    ctl_run(c, command->valuestring, cJSON_IsObject(params) ? params : NULL, &r);
    fprintf(stderr, "winagent serve: %s -> %s%s%s (%lld ms)\n", command->valuestring,
            wa_err_code(r.err), r.success ? "" : ": ", r.success ? "" : r.message,
            (long long)(os_now_ms() - t0));
    cJSON *o;
    if (r.success) {
        o = response_new(id, fallback_id);
        cJSON_AddBoolToObject(o, "success", true);
        cJSON_AddItemToObject(o, "data", r.data ? r.data : cJSON_CreateObject());
        r.data = NULL;
        cJSON_AddNullToObject(o, "error");
    } else {
        o = error_response(id, fallback_id, r.err, r.message);
    }
    if (r.window_state) {
        cJSON_AddItemToObject(o, "window_state", r.window_state);
        r.window_state = NULL;
    }
    add_image(o, &r);
    ctl_result_cleanup(&r);
    return o;
}

cJSON *serve_handle(struct ctl *c, const char *text, size_t len, const char *token,
                    const char *fallback_id)
{
    text = skip_bom(text, &len);
    cJSON *req = cJSON_ParseWithLength(text, len);
    if (!req)
        return error_response(NULL, fallback_id, WA_E_PARSE, "the request is not valid JSON");
    cJSON *o = handle_request(c, req, token, fallback_id);
    cJSON_Delete(req);
    return o;
}

/* ---- the folder transport ---- */

struct seen_file {
    char *name;
    size_t len; /* size and hash of the content when it last failed to parse */
    uint32_t hash;
    int64_t since_ms; /* since when it has looked like that */
    bool answered;    /* answered, but the request could not be deleted */
    bool listed;      /* still in the folder at this poll */
};

struct serve_ipc {
    struct ctl *c;
    char *dir, *requests, *responses, *handshake;
    char sep;
    int grace_ms;
    struct seen_file *seen;
    size_t n_seen;
    char started_at[40];
};

static char *join(const char *dir, char sep, const char *name)
{
    size_t n = strlen(dir), m = strlen(name);
    char *p = malloc(n + m + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, n);
    size_t at = n;
    if (n == 0 || (dir[n - 1] != '/' && dir[n - 1] != '\\'))
        p[at++] = sep;
    memcpy(p + at, name, m + 1);
    return p;
}

static uint32_t fnv1a(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static wa_err write_json(const char *path, cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    if (!text)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = os_write_file(path, text, strlen(text));
    free(text);
    return e;
}

static wa_err write_handshake(struct serve_ipc *s, bool ready)
{
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "version", IPC_PROTOCOL_VERSION);
    cJSON_AddStringToObject(h, "winagent_version", WINAGENT_VERSION);
    cJSON_AddNumberToObject(h, "pid", (double)os_pid());
    cJSON_AddNumberToObject(h, "agent_pid", (double)os_pid()); /* agent-rdp's name for it */
    cJSON_AddStringToObject(h, "started_at", s->started_at);
    size_t n;
    const struct ctl_command *cmds = ctl_commands(s->c, &n);
    cJSON *caps = cJSON_AddArrayToObject(h, "capabilities");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(caps, cJSON_CreateString(cmds[i].name));
    cJSON_AddNumberToObject(h, "poll_ms", POLL_MS);
    cJSON_AddBoolToObject(h, "ready", ready);
    wa_err e = write_json(s->handshake, h);
    cJSON_Delete(h);
    return e;
}

wa_err serve_ipc_open(struct ctl *c, const char *dir, int grace_ms, struct serve_ipc **out)
{
    *out = NULL;
    if (!dir || !*dir)
        return wa_fail(WA_E_INVALID_ARGS, "no folder given");
    struct serve_ipc *s = calloc(1, sizeof *s);
    if (!s)
        return wa_fail(WA_E_NOMEM, "out of memory");
    s->c = c;
    s->grace_ms = grace_ms;
    s->sep = strchr(dir, '\\') && !strchr(dir, '/') ? '\\' : '/';
    iso_time(s->started_at, sizeof s->started_at);
    wa_err e;
    if (!(s->dir = str_dup(dir)) || !(s->requests = join(dir, s->sep, "requests")) ||
        !(s->responses = join(dir, s->sep, "responses")) ||
        !(s->handshake = join(dir, s->sep, "handshake.json"))) {
        e = wa_fail(WA_E_NOMEM, "out of memory");
        goto fail;
    }
    if ((e = os_mkdir_p(s->requests)) || (e = os_mkdir_p(s->responses)) ||
        (e = write_handshake(s, true)))
        goto fail;
    *out = s;
    return WA_E_OK;
fail:
    serve_ipc_close(s);
    return e;
}

void serve_ipc_close(struct serve_ipc *s)
{
    if (!s)
        return;
    if (s->handshake && os_is_dir(s->dir))
        write_handshake(s, false);
    for (size_t i = 0; i < s->n_seen; i++)
        free(s->seen[i].name);
    free(s->seen);
    free(s->dir);
    free(s->requests);
    free(s->responses);
    free(s->handshake);
    free(s);
}

static struct seen_file *seen_entry(struct serve_ipc *s, const char *name)
{
    for (size_t i = 0; i < s->n_seen; i++)
        if (strcmp(s->seen[i].name, name) == 0)
            return &s->seen[i];
    struct seen_file *grown = realloc(s->seen, (s->n_seen + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    s->seen = grown;
    struct seen_file *f = &s->seen[s->n_seen];
    memset(f, 0, sizeof *f);
    if (!(f->name = str_dup(name)))
        return NULL;
    f->since_ms = os_now_ms();
    s->n_seen++;
    return f;
}

/* Forgets files that left the folder. */
static void prune_seen(struct serve_ipc *s)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n_seen; i++) {
        if (s->seen[i].listed)
            s->seen[kept++] = s->seen[i];
        else
            free(s->seen[i].name);
    }
    s->n_seen = kept;
}

static bool is_request_name(const char *name)
{
    size_t n = strlen(name);
    return n > 9 && str_starts_with(name, "req_") && strcmp(name + n - 5, ".json") == 0;
}

/* Writes responses/res_<id>.json and deletes the request. */
static void answer(struct serve_ipc *s, struct seen_file *f, const char *path, const char *id,
                   cJSON *response)
{
    char res_name[300];
    snprintf(res_name, sizeof res_name, "res_%s.json", id);
    char *res_path = join(s->responses, s->sep, res_name);
    wa_err e = res_path ? write_json(res_path, response) : WA_E_NOMEM;
    if (e)
        fprintf(stderr, "winagent serve: cannot write %s: %s\n", res_name, wa_err_detail());
    free(res_path);
    f->answered = true;
    if (os_remove(path) != WA_E_OK)
        fprintf(stderr, "winagent serve: cannot delete %s: %s\n", f->name, wa_err_detail());
}

static void poll_one(struct serve_ipc *s, struct seen_file *f)
{
    char *path = join(s->requests, s->sep, f->name);
    if (!path)
        return;
    if (f->answered) { /* deleting failed last time: try again, never run it twice */
        os_remove(path);
        free(path);
        return;
    }
    char id[256];
    size_t n = strlen(f->name) - 9; /* req_ID.json */
    snprintf(id, sizeof id, "%.*s", (int)(n < sizeof id ? n : sizeof id - 1), f->name + 4);

    char *text = NULL;
    size_t len = 0;
    wa_err e = os_read_file(path, REQUEST_MAX, &text, &len);
    if (e) {
        /* Too large: answered at once. Unreadable (locked while being written, say):
         * retried until the grace period is over. */
        if (e == WA_E_TOO_LARGE ||
            (os_now_ms() - f->since_ms >= s->grace_ms && os_path_exists(path))) {
            cJSON *r = error_response(NULL, id, e, wa_err_detail());
            answer(s, f, path, id, r);
            cJSON_Delete(r);
        }
        free(path);
        return;
    }
    const char *body = skip_bom(text, &len);
    cJSON *req = cJSON_ParseWithLength(body, len);
    if (!req) { /* half-written, or broken: which one only time tells */
        uint32_t h = fnv1a(body, len);
        if (len != f->len || h != f->hash) {
            f->len = len;
            f->hash = h;
            f->since_ms = os_now_ms();
        } else if (os_now_ms() - f->since_ms >= s->grace_ms) {
            fprintf(stderr, "winagent serve: %s is not valid JSON; giving up on it\n", f->name);
            cJSON *r = error_response(NULL, id, WA_E_PARSE,
                                      "the request is not valid JSON (unchanged for 2 s)");
            answer(s, f, path, id, r);
            cJSON_Delete(r);
        }
        free(text);
        free(path);
        return;
    }
    free(text);
    cJSON *r = handle_request(s->c, req, NULL, id);
    cJSON_Delete(req);
    answer(s, f, path, id, r);
    cJSON_Delete(r);
    free(path);
}

wa_err serve_ipc_poll(struct serve_ipc *s, bool *gone)
{
    *gone = false;
    if (!os_is_dir(s->dir)) {
        *gone = true;
        return WA_E_OK;
    }
    struct os_dir_list l;
    wa_err e = os_list_dir(s->requests, &l);
    if (e) { /* someone removed requests/ but not the folder: make it again */
        if (!os_is_dir(s->dir))
            *gone = true;
        else
            os_mkdir_p(s->requests);
        return WA_E_OK;
    }
    for (size_t i = 0; i < s->n_seen; i++)
        s->seen[i].listed = false;
    for (size_t i = 0; i < l.count; i++) {
        if (!is_request_name(l.names[i]))
            continue; /* temporary files of controllers that write atomically, ... */
        struct seen_file *f = seen_entry(s, l.names[i]);
        if (!f) {
            e = wa_fail(WA_E_NOMEM, "out of memory");
            break;
        }
        f->listed = true;
        poll_one(s, f);
        if (os_interrupted())
            break;
    }
    /* Entries of this poll stay; the rest left the folder. */
    if (!e)
        prune_seen(s);
    os_dir_list_cleanup(&l);
    return e;
}

/* ---- cmd_serve ---- */

static int serve_ipc_loop(struct ctl *c, const char *dir)
{
    struct serve_ipc *s;
    wa_err e = serve_ipc_open(c, dir, PARSE_GRACE_MS, &s);
    if (e)
        return cli_fail(e);
    fprintf(stderr, "winagent serve: watching %s (requests every %d ms)\n", dir, POLL_MS);
    bool gone = false;
    while (!gone && !os_interrupted()) {
        if ((e = serve_ipc_poll(s, &gone))) {
            fprintf(stderr, "winagent serve: %s\n", wa_err_detail());
            break;
        }
        if (!gone)
            os_sleep_ms(POLL_MS);
    }
    if (gone)
        fprintf(stderr, "winagent serve: %s is gone; stopping\n", dir);
    serve_ipc_close(s);
    return e ? EXIT_USAGE : os_interrupted() ? EXIT_INTERRUPTED : EXIT_OK;
}

/* Serves one TCP client until it leaves: a line in, a line out. */
static void serve_client(struct ctl *c, os_socket client, const char *token)
{
    struct dynbuf in;
    dynbuf_init(&in, REQUEST_MAX);
    char chunk[65536];
    for (;;) {
        size_t got = 0;
        wa_err e = os_tcp_recv(client, chunk, sizeof chunk, ACCEPT_WAIT_MS, &got);
        if (e == WA_E_TIMEOUT) {
            if (os_interrupted())
                break;
            continue;
        }
        if (e || got == 0)
            break;
        if (dynbuf_add(&in, chunk, got) != WA_E_OK) {
            cJSON *r = error_response(NULL, NULL, WA_E_TOO_LARGE, "request line too long");
            char *text = cJSON_PrintUnformatted(r);
            cJSON_Delete(r);
            if (text) {
                os_tcp_send(client, text, strlen(text));
                os_tcp_send(client, "\n", 1);
            }
            free(text);
            break;
        }
        char *nl;
        while (in.len > 0 && (nl = memchr(in.data, '\n', in.len))) {
            size_t n = (size_t)(nl - in.data);
            size_t line_len = n > 0 && in.data[n - 1] == '\r' ? n - 1 : n;
            bool blank = true;
            for (size_t i = 0; i < line_len && blank; i++)
                blank = in.data[i] == ' ' || in.data[i] == '\t';
            bool sent = true;
            if (!blank) {
                cJSON *r = serve_handle(c, in.data, line_len, token, NULL);
                char *text = cJSON_PrintUnformatted(r);
                cJSON_Delete(r);
                sent = text && os_tcp_send(client, text, strlen(text)) == WA_E_OK &&
                       os_tcp_send(client, "\n", 1) == WA_E_OK;
                free(text);
            }
            memmove(in.data, nl + 1, in.len - n - 1);
            in.len -= n + 1;
            in.data[in.len] = '\0';
            if (!sent)
                goto out;
        }
    }
out:
    dynbuf_cleanup(&in);
}

static int serve_tcp_loop(struct ctl *c, int port)
{
    unsigned char raw[16];
    char token[33];
    wa_err e = os_random_bytes(raw, sizeof raw);
    if (e)
        return cli_fail(e);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
    os_socket l;
    int bound = 0;
    if ((e = os_tcp_listen_loopback(port, &l, &bound)))
        return cli_fail(e);
    printf("{\"port\":%d,\"token\":\"%s\"}\n", bound, token);
    fflush(stdout);
    fprintf(stderr, "winagent serve: listening on 127.0.0.1:%d\n", bound);
    while (!os_interrupted()) {
        os_socket client;
        if ((e = os_tcp_accept(l, ACCEPT_WAIT_MS, &client))) {
            fprintf(stderr, "winagent serve: %s\n", wa_err_detail());
            os_sleep_ms(ACCEPT_WAIT_MS); /* e.g. out of descriptors: do not spin */
            continue;
        }
        if (client == OS_SOCKET_NONE)
            continue;
        serve_client(c, client, token);
        os_tcp_close(client);
    }
    os_tcp_close(l);
    return EXIT_INTERRUPTED;
}

static const char serve_usage[] =
    "usage: winagent serve (--port N | --ipc-dir DIR) [--allow-shell] [--dry-run]\n"
    "                      [--audit-log FILE]\n"
    "  --port N      TCP on 127.0.0.1:N (0: any free port); prints {\"port\",\"token\"}\n"
    "                first; one request per line: {\"id\",\"token\",\"command\",\"params\"}\n"
    "  --ipc-dir DIR requests/req_<id>.json -> responses/res_<id>.json; stops when DIR\n"
    "                is removed\n";

int cmd_serve(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    if (args_flag(&a, "help", "h")) {
        fputs(serve_usage, stdout);
        return EXIT_OK;
    }
    struct ctl_opts o = {0};
    o.allow_shell = args_flag(&a, "allow-shell", NULL);
    o.dry_run = args_flag(&a, "dry-run", NULL);
    o.gate.audit_path = args_value(&a, "audit-log", NULL);
    const char *dir = args_value(&a, "ipc-dir", NULL);
    const char *port_text = args_value(&a, "port", NULL);
    char *end = NULL;
    long port = port_text ? strtol(port_text, &end, 10) : -1;
    wa_err e = a.err ? a.err : args_check_unknown(&a);
    if (!e && args_positional_count(&a) > 0)
        e = wa_fail(WA_E_USAGE, "serve takes no arguments (got '%s')", args_positional(&a, 0));
    if (!e && !dir == !port_text)
        e = wa_fail(WA_E_USAGE, "give one of --port N and --ipc-dir DIR");
    if (!e && port_text && (end == port_text || *end || port < 0 || port > 65535))
        e = wa_fail(WA_E_USAGE, "--port takes 0-65535");
    if (e) {
        cli_fail(e);
        fputs(serve_usage, stderr);
        return EXIT_USAGE;
    }
    os_interrupt_install(false);
    const struct wa_backend *b = cli_backend();
    if (!b)
        return EXIT_USAGE;
    struct ctl *c;
    if ((e = ctl_new(b, &o, &c)))
        return cli_fail(e);
    int rc = dir ? serve_ipc_loop(c, dir) : serve_tcp_loop(c, (int)port);
    ctl_free(c);
    return rc;
}
