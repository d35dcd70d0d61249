/* `winagent serve`: command-layer requests over loopback TCP or a shared folder. */
#include "agent/front/serve.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/base64.h"
#include "base/args.h"
#include "agent/front/cli.h"
#include "agent/front/rdp.h"
#include "agent/core/request/wire.h"
#include "base/version.h"
#include "automation/image/image.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

#define POLL_MS                  50   /* the folder transport's poll interval */
#define PARSE_GRACE_MS           2000 /* a request that stays unparseable this long is answered */
#define REQUEST_MAX              (16u << 20)     /* bytes of one request (file or line) */
#define ACCEPT_WAIT_MS           250             /* how often the TCP loops look at Ctrl+C */
#define CLIENT_IDLE_MS           (5 * 60 * 1000) /* a TCP client silent this long is dropped */
#define LINE_MAX_MS              10000 /* a request line must be whole this soon after it began */
#define MAX_CLIENTS              16    /* TCP clients that showed the token, served at once */
#define MAX_UNPROVEN             48    /* connections that have not shown the token yet */
#define MAX_UNPROVEN_PER_ADDRESS 24    /* ... of them from one client address */
#define SLOT_WAIT_MS             2000  /* how long a client past MAX_CLIENTS waits for a slot */
#define PROVE_MS                 5000  /* ... must show it this soon, or are dropped */
#define IPC_PROTOCOL_VERSION     "1.0.0"

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

/* The envelope of a response: the request's id and the time. */
static void add_envelope(cJSON *o, const cJSON *id, const char *fallback_id)
{
    cJSON *copy = cJSON_IsString(id) || cJSON_IsNumber(id) ? cJSON_Duplicate(id, true)
                  : fallback_id                            ? cJSON_CreateString(fallback_id)
                                                           : cJSON_CreateNull();
    cJSON_AddItemToObject(o, "id", copy);
    char ts[40];
    iso_time(ts, sizeof ts);
    cJSON_AddStringToObject(o, "timestamp", ts);
}

static cJSON *error_response(const cJSON *id, const char *fallback_id, wa_err e, const char *msg)
{
    cJSON *o = wire_error(NULL, e, msg);
    add_envelope(o, id, fallback_id);
    cJSON_AddNullToObject(o, "data");
    return o;
}

/* The image's PNG as base64 beside its description in data.image. */
static void add_image(cJSON *o, const struct op_result *r)
{
    cJSON *im =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "data"), "image");
    if (!r->has_image || !im)
        return;
    struct dynbuf b64;
    dynbuf_init(&b64, (r->png.len / 3 + 2) * 4 + 16);
    if (base64_encode(r->png.data, r->png.len, &b64) == WA_E_OK) {
        cJSON_AddStringToObject(im, "mime_type", "image/png");
        cJSON_AddStringToObject(im, "data", dynbuf_str(&b64));
    }
    dynbuf_cleanup(&b64);
}

/* A parsed request -> its response: the one result shape with the envelope. */
static cJSON *handle_request(struct session *ses, struct rdp *rdp, const cJSON *req,
                             const char *token, const char *fallback_id)
{
    if (!cJSON_IsObject(req))
        return error_response(NULL, fallback_id, WA_E_INVALID_ARGS,
                              "a request is a JSON object {\"id\",\"command\",\"params\"}");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    if (token) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "token");
        if (!cJSON_IsString(t) || !str_equal_secret(token, t->valuestring)) {
            term_line(stderr, "winagent serve: request refused: %s token",
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
    const struct op_def *op = op_by_cli(command->valuestring);
    /* The folder speaks agent-rdp's commands; its names win over the CLI's. */
    if (rdp && (rdp_is_command(command->valuestring) || !op)) {
        int64_t t0 = os_now_ms();
        cJSON *o = rdp_handle(rdp, command->valuestring, params);
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(o, "error");
        term_line(stderr, "winagent serve: %s -> %s (%lld ms)", command->valuestring,
                  cJSON_IsObject(err)
                      ? cJSON_GetObjectItemCaseSensitive(err, "message")->valuestring
                      : "ok",
                  (long long)(os_now_ms() - t0));
        add_envelope(o, id, fallback_id);
        return o;
    }
    if (!op || ((op->flags & OPF_SHELL) && core_shell(session_core(ses)) == SHELL_DENIED)) {
        bool shell = op != NULL;
        return error_response(id, fallback_id, shell ? WA_E_SHELL_DISABLED : WA_E_INVALID_ARGS,
                              shell ? "powershell is off; start winagent serve with --allow-shell"
                                    : "unknown command");
    }
    struct op_request q;
    struct op_result r;
    op_result_init(&r);
    int64_t t0 = os_now_ms();
    wa_err e = wire_request(cJSON_IsObject(params) ? params : NULL, WIRE_CLI, op, &q);
    if (!e) {
        core_perform(ses, &q, &r);
    } else {
        r.op = op;
        op_result_set_error(&r, e);
    }
    term_line(stderr, "winagent serve: %s -> %s%s%s (%lld ms)", command->valuestring,
              wa_err_code(r.err), r.err ? ": " : "", r.err ? r.message : "",
              (long long)(os_now_ms() - t0));
    struct wire_opts wo = {.names = WIRE_CLI};
    cJSON *o = wire_result(&r, &wo);
    add_envelope(o, id, fallback_id);
    if (r.err)
        cJSON_AddNullToObject(o, "data");
    else
        cJSON_AddNullToObject(o, "error");
    add_image(o, &r);
    op_result_cleanup(&r);
    op_request_cleanup(&q);
    return o;
}

cJSON *serve_handle(struct session *ses, const char *text, size_t len, const char *token,
                    const char *fallback_id)
{
    text = skip_bom(text, &len);
    cJSON *req = cJSON_ParseWithLength(text, len);
    if (!req)
        return error_response(NULL, fallback_id, WA_E_PARSE, "the request is not valid JSON");
    cJSON *o = handle_request(ses, NULL, req, token, fallback_id);
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
    struct session *ses;
    struct rdp *rdp; /* agent-rdp's commands and the refs of their snapshots */
    char *dir, *requests, *responses, *handshake;
    char sep;
    int grace_ms;
    struct seen_file *seen;
    size_t n_seen;
    char started_at[40];
    char token[33];
    char *token_file;    /* in the state folder, outside dir; NULL: none */
    bool token_required; /* the folder's permissions could not be read */
    bool announced;      /* handshake.json said ready: at close it says not */
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
    cJSON *caps = cJSON_AddArrayToObject(h, "capabilities");
    for (const char *const *c = rdp_commands(); *c; c++)
        cJSON_AddItemToArray(caps, cJSON_CreateString(*c));
    bool shell = core_shell(session_core(s->ses)) != SHELL_DENIED;
    for (int i = 0; i < OP__COUNT; i++) { /* and winagent's own commands that differ */
        const struct op_def *op = op_def((enum op_id)i);
        if (op->cli && !rdp_is_command(op->cli) && (shell || !(op->flags & OPF_SHELL)))
            cJSON_AddItemToArray(caps, cJSON_CreateString(op->cli));
    }
    cJSON_AddNumberToObject(h, "poll_ms", POLL_MS);
    cJSON_AddBoolToObject(h, "ready", ready);
    wa_err e = write_json(s->handshake, h);
    cJSON_Delete(h);
    return e;
}

/* Whoever can put a file in the folder runs commands as this user: a folder others can
 * write is refused. Where its permissions cannot be read (some redirected and network
 * drives), every request must carry the token instead. */
static wa_err check_private(struct serve_ipc *s)
{
    bool others = false;
    wa_err e = os_dir_others_write(s->dir, &others);
    if (!e && !others)
        e = os_dir_others_write(s->requests, &others);
    if (e == WA_E_UNSUPPORTED) {
        wa_err_clear();
        s->token_required = true;
        return WA_E_OK;
    }
    if (!e && others)
        e = wa_fail(WA_E_DENIED,
                    "%s can be written by other users: whoever can put a request in it runs "
                    "winagent's commands as you; serve a folder only you can write",
                    s->dir);
    return e;
}

/* Whether path lies in folder dir (or is it), either separator, ASCII case ignored. */
static bool lies_in(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n && (dir[n - 1] == '/' || dir[n - 1] == '\\'))
        n--;
    if (strlen(path) < n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char a = path[i] == '\\' ? '/' : path[i], b = dir[i] == '\\' ? '/' : dir[i];
        a = a >= 'A' && a <= 'Z' ? (char)(a + 32) : a;
        b = b >= 'A' && b <= 'Z' ? (char)(b + 32) : b;
        if (a != b)
            return false;
    }
    return !path[n] || path[n] == '/' || path[n] == '\\';
}

/* The token, made anew: on stdout for the program that started the server (as serve
 * --port prints its own), and in a file of this user's state folder for a controller
 * that reads files; never in the folder it guards. */
static wa_err write_token(struct serve_ipc *s)
{
    unsigned char raw[16];
    wa_err e = os_random_bytes(raw, sizeof raw);
    for (size_t i = 0; !e && i < sizeof raw; i++)
        snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
    if (e)
        return e;
    const char *state = core_state_dir(session_core(s->ses));
    char name[48];
    snprintf(name, sizeof name, "ipc-%08x.token", (unsigned)fnv1a(s->dir, strlen(s->dir)));
    char *path = join(state, strchr(state, '\\') ? '\\' : '/', name);
    if (!path)
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (lies_in(path, s->dir) || lies_in(s->dir, state)) {
        free(path); /* the state folder is in the guarded one (or holds it): no file */
        return WA_E_OK;
    }
    if ((e = os_mkdir_p(state)) || (e = os_write_file(path, s->token, strlen(s->token)))) {
        free(path);
        return e;
    }
    s->token_file = path;
    return WA_E_OK;
}

const char *serve_ipc_token_file(const struct serve_ipc *s)
{
    return s->token_file ? s->token_file : "";
}

const char *serve_ipc_token(const struct serve_ipc *s, bool *required)
{
    *required = s->token_required;
    return s->token;
}

wa_err serve_ipc_open(struct session *ses, const char *dir, int grace_ms, struct serve_ipc **out)
{
    *out = NULL;
    if (!dir || !*dir)
        return wa_fail(WA_E_INVALID_ARGS, "no folder given");
    struct serve_ipc *s = calloc(1, sizeof *s);
    if (!s)
        return wa_fail(WA_E_NOMEM, "out of memory");
    s->ses = ses;
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
    if ((e = rdp_new(ses, &s->rdp)) || (e = os_mkdir_p(s->requests)) ||
        (e = os_mkdir_p(s->responses)) || (e = check_private(s)) || (e = write_token(s)) ||
        (e = write_handshake(s, true)))
        goto fail;
    s->announced = true;
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
    if (s->announced && os_is_dir(s->dir))
        write_handshake(s, false);
    if (s->token_file) /* a token that guards nothing any more */
        os_remove(s->token_file);
    free(s->token_file);
    for (size_t i = 0; i < s->n_seen; i++)
        free(s->seen[i].name);
    free(s->seen);
    rdp_free(s->rdp);
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
    struct seen_file *grown = wa_reallocarray(s->seen, s->n_seen + 1, sizeof *grown);
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
        term_line(stderr, "winagent serve: cannot write %s: %s", res_name, wa_err_detail());
    free(res_path);
    f->answered = true;
    if (os_remove(path) != WA_E_OK)
        term_line(stderr, "winagent serve: cannot delete %s: %s", f->name, wa_err_detail());
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
    /* Only regular files: a link could make the server read anything. */
    wa_err e = os_is_plain_file(path) ? os_read_file(path, REQUEST_MAX, &text, &len)
               : os_path_exists(path) ? wa_fail(WA_E_DENIED, "%s is not a regular file", f->name)
                                      : wa_fail(WA_E_IO, "%s is gone", f->name);
    if (e) {
        /* Too large: answered at once. Unreadable (locked while being written, say):
         * retried until the grace period is over. */
        if (e == WA_E_TOO_LARGE || e == WA_E_DENIED ||
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
            term_line(stderr, "winagent serve: %s is not valid JSON; giving up on it", f->name);
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
    cJSON *r = handle_request(s->ses, s->rdp, req, s->token_required ? s->token : NULL, id);
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

static int serve_ipc_loop(struct session *ses, const char *dir)
{
    struct serve_ipc *s;
    wa_err e = serve_ipc_open(ses, dir, PARSE_GRACE_MS, &s);
    if (e)
        return exit_fail(e);
    bool required;
    const char *token = serve_ipc_token(s, &required);
    cJSON *hello = cJSON_CreateObject();
    cJSON_AddStringToObject(hello, "ipc_dir", dir);
    cJSON_AddStringToObject(hello, "token", token);
    cJSON_AddStringToObject(hello, "token_file", serve_ipc_token_file(s));
    cJSON_AddBoolToObject(hello, "token_required", required);
    char *line = cJSON_PrintUnformatted(hello);
    cJSON_Delete(hello);
    if (line)
        printf("%s\n", line);
    fflush(stdout);
    free(line);
    term_line(stderr, "winagent serve: watching %s (requests every %d ms)%s", dir, POLL_MS,
              required ? "; its permissions cannot be read, so every request must carry the "
                         "token"
                       : "");
    bool gone = false;
    while (!gone && !os_interrupted()) {
        if ((e = serve_ipc_poll(s, &gone))) {
            term_line(stderr, "winagent serve: %s", wa_err_detail());
            break;
        }
        if (!gone)
            os_sleep_ms(POLL_MS);
    }
    if (gone)
        term_line(stderr, "winagent serve: %s is gone; stopping", dir);
    serve_ipc_close(s);
    return e ? EXIT_USAGE : os_interrupted() ? exit_interrupted() : EXIT_OK;
}

static void send_line(os_socket client, cJSON *r)
{
    char *text = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    if (text && os_tcp_send(client, text, strlen(text)) == WA_E_OK)
        os_tcp_send(client, "\n", 1);
    free(text);
}

/* Connections of one client address that have not shown the token yet. */
struct waiting {
    uint32_t addr;
    int count;
};

struct tcp_server {
    struct core *core;
    const char *token;
    struct os_mutex *lock; /* the counts below */
    int clients;           /* served right now, having shown the token (MAX_CLIENTS) */
    int unproven;          /* connected, no token shown yet (MAX_UNPROVEN); they hold no slot */
    struct waiting waiting[MAX_UNPROVEN]; /* the unproven by address */
};

struct tcp_client {
    struct tcp_server *srv;
    os_socket sock;
    uint32_t peer;
    bool proven; /* it showed the token and holds one of the MAX_CLIENTS slots */
};

/* One more unproven connection from addr, unless there is no room: in all, or for that
 * address (a client that floods connections and resets them leaves room to others).
 * Called with the lock held. */
static bool unproven_take(struct tcp_server *srv, uint32_t addr)
{
    struct waiting *mine = NULL, *free_row = NULL;
    for (int i = 0; i < MAX_UNPROVEN && !mine; i++) {
        if (srv->waiting[i].count && srv->waiting[i].addr == addr)
            mine = &srv->waiting[i];
        else if (!srv->waiting[i].count && !free_row)
            free_row = &srv->waiting[i];
    }
    if (!mine && free_row)
        (mine = free_row)->addr = addr;
    if (!mine || mine->count >= MAX_UNPROVEN_PER_ADDRESS || srv->unproven >= MAX_UNPROVEN)
        return false;
    mine->count++;
    srv->unproven++;
    return true;
}

/* The unproven connection from addr is proven or gone. Called with the lock held. */
static void unproven_release(struct tcp_server *srv, uint32_t addr)
{
    for (int i = 0; i < MAX_UNPROVEN; i++)
        if (srv->waiting[i].count && srv->waiting[i].addr == addr) {
            srv->waiting[i].count--;
            break;
        }
    srv->unproven--;
}

/* Whether a request line carries the server's token. */
static bool shows_token(const struct tcp_server *srv, const char *line, size_t len)
{
    cJSON *req = cJSON_ParseWithLength(line, len);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "token");
    bool ok = cJSON_IsString(t) && str_equal_secret(srv->token, t->valuestring);
    cJSON_Delete(req);
    return ok;
}

/* A connection that showed the token takes a client slot, when one is free within
 * SLOT_WAIT_MS: a client that opens a new connection per request may be back before the
 * thread of its last one saw it close. */
static bool take_slot(struct tcp_client *cl)
{
    struct tcp_server *srv = cl->srv;
    int64_t until = os_now_ms() + SLOT_WAIT_MS;
    for (;;) {
        os_mutex_lock(srv->lock);
        bool room = srv->clients < MAX_CLIENTS;
        if (room) {
            srv->clients++;
            unproven_release(srv, cl->peer);
            cl->proven = true;
        }
        os_mutex_unlock(srv->lock);
        if (room || os_now_ms() >= until || os_interrupted())
            return room;
        os_sleep_ms(5);
    }
}

/* Serves one TCP client until it leaves, idles too long, or Ctrl+C: a line in, a line
 * out, on a session of its own. Runs on a thread of its own. */
static void serve_client(void *arg)
{
    struct tcp_client *cl = arg;
    struct tcp_server *srv = cl->srv;
    struct session *ses = NULL;
    struct session_opts so;
    session_opts_default(&so);
    so.front = "serve";
    so.refs = true;
    so.settle_ms = 150;
    struct dynbuf in;
    dynbuf_init(&in, REQUEST_MAX);
    char chunk[65536];
    int64_t last = os_now_ms(), line_began = 0, started = last;
    if (session_new(srv->core, &so, &ses))
        goto out;
    while (!os_interrupted()) {
        size_t got = 0;
        wa_err e = os_tcp_recv(cl->sock, chunk, sizeof chunk, ACCEPT_WAIT_MS, &got);
        int64_t now = os_now_ms();
        if (in.len && line_began && now - line_began > LINE_MAX_MS) {
            /* a client that trickles a request byte by byte holds no place for long */
            send_line(cl->sock, error_response(NULL, NULL, WA_E_TIMEOUT,
                                               "the request line did not end within 10 s"));
            break;
        }
        if (!cl->proven && now - started > PROVE_MS) {
            term_line(stderr, "winagent serve: a client showed no token within %d s; dropped",
                      PROVE_MS / 1000);
            break;
        }
        if (e == WA_E_TIMEOUT) {
            if (now - last > CLIENT_IDLE_MS) {
                term_line(stderr, "winagent serve: a client was idle for %d s; dropped",
                          CLIENT_IDLE_MS / 1000);
                break;
            }
            continue;
        }
        if (e || got == 0)
            break;
        last = now;
        if (!in.len)
            line_began = now;
        if (dynbuf_add(&in, chunk, got) != WA_E_OK) {
            send_line(cl->sock,
                      error_response(NULL, NULL, WA_E_TOO_LARGE, "request line too long"));
            break;
        }
        char *nl;
        bool sent = true;
        while (sent && in.len > 0 && (nl = memchr(in.data, '\n', in.len))) {
            size_t n = (size_t)(nl - in.data);
            size_t line_len = n > 0 && in.data[n - 1] == '\r' ? n - 1 : n;
            bool blank = true;
            for (size_t i = 0; i < line_len && blank; i++)
                blank = in.data[i] == ' ' || in.data[i] == '\t';
            if (!blank && !cl->proven && shows_token(srv, in.data, line_len) && !take_slot(cl)) {
                send_line(cl->sock, error_response(NULL, NULL, WA_E_DENIED,
                                                   "too many clients at once; try again later"));
                sent = false;
                break;
            }
            if (!blank) {
                cJSON *r = serve_handle(ses, in.data, line_len, srv->token, NULL);
                char *text = cJSON_PrintUnformatted(r);
                cJSON_Delete(r);
                sent = text && os_tcp_send(cl->sock, text, strlen(text)) == WA_E_OK &&
                       os_tcp_send(cl->sock, "\n", 1) == WA_E_OK;
                free(text);
            }
            memmove(in.data, nl + 1, in.len - n - 1);
            in.len -= n + 1;
            in.data[in.len] = '\0';
            line_began = in.len ? os_now_ms() : 0;
        }
        if (!sent)
            break;
    }
out:
    dynbuf_cleanup(&in);
    session_free(ses);
    os_tcp_close(cl->sock);
    os_mutex_lock(srv->lock);
    if (cl->proven)
        srv->clients--;
    else
        unproven_release(srv, cl->peer);
    os_mutex_unlock(srv->lock);
    free(cl);
}

static int serve_tcp_loop(struct core *core, int port)
{
    unsigned char raw[16];
    char token[33];
    wa_err e = os_random_bytes(raw, sizeof raw);
    if (e)
        return exit_fail(e);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
    struct tcp_server srv = {.core = core, .token = token, .lock = os_mutex_new()};
    os_socket l;
    int bound = 0;
    if (!srv.lock)
        return exit_fail(wa_fail(WA_E_NOMEM, "out of memory"));
    if ((e = os_tcp_listen_loopback(port, &l, &bound))) {
        os_mutex_free(srv.lock);
        return exit_fail(e);
    }
    printf("{\"port\":%d,\"token\":\"%s\"}\n", bound, token);
    fflush(stdout);
    term_line(stderr, "winagent serve: listening on 127.0.0.1:%d", bound);
    while (!os_interrupted()) {
        os_socket client;
        uint32_t peer;
        if ((e = os_tcp_accept(l, ACCEPT_WAIT_MS, &client, &peer))) {
            term_line(stderr, "winagent serve: %s", wa_err_detail());
            os_sleep_ms(ACCEPT_WAIT_MS); /* e.g. out of descriptors: do not spin */
            continue;
        }
        if (client == OS_SOCKET_NONE)
            continue;
        /* No slot before the token: a connection waits among the unproven, which are
         * few (per address too) and must show it within PROVE_MS. */
        os_mutex_lock(srv.lock);
        bool room = unproven_take(&srv, peer);
        os_mutex_unlock(srv.lock);
        struct tcp_client *cl = room ? calloc(1, sizeof *cl) : NULL;
        if (cl) {
            cl->srv = &srv;
            cl->sock = client;
            cl->peer = peer;
            if (os_thread_start(serve_client, cl) == WA_E_OK)
                continue;
            free(cl);
        }
        if (room) {
            os_mutex_lock(srv.lock);
            unproven_release(&srv, peer);
            os_mutex_unlock(srv.lock);
        }
        send_line(client, error_response(NULL, NULL, WA_E_DENIED,
                                         "too many clients at once; try again later"));
        os_tcp_close(client);
    }
    os_tcp_close(l);
    /* The clients see the interrupt within one receive timeout and leave. */
    for (;;) {
        os_mutex_lock(srv.lock);
        int left = srv.clients + srv.unproven;
        os_mutex_unlock(srv.lock);
        if (!left)
            break;
        os_sleep_ms(50);
    }
    os_mutex_free(srv.lock);
    return exit_interrupted();
}

static const char serve_usage[] =
    "usage: winagent serve (--port N | --ipc-dir DIR) [--allow-shell] [--dry-run]\n"
    "                      [--audit-log FILE] [--delivery foreground|background|auto]\n"
    "                      [--takeover pause|stop|off] [--idle-seconds N]\n"
    "  --port N      TCP on 127.0.0.1:N (0: any free port); prints {\"port\",\"token\"}\n"
    "                first; one request per line: {\"id\",\"token\",\"command\",\"params\"};\n"
    "                several clients at once, each with its own refs\n"
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
    struct settings set;
    wa_err e = settings_load(&set, &a, SG_DESK);
    const char *dir = args_value(&a, "ipc-dir", NULL);
    const char *port_text = args_value(&a, "port", NULL);
    char *end = NULL;
    long port = port_text ? strtol(port_text, &end, 10) : -1;
    if (!e)
        e = a.err ? a.err : args_check_unknown(&a);
    if (!e && args_positional_count(&a) > 0)
        e = wa_fail(WA_E_USAGE, "serve takes no arguments (got '%s')", args_positional(&a, 0));
    if (!e && !dir == !port_text)
        e = wa_fail(WA_E_USAGE, "give one of --port N and --ipc-dir DIR");
    if (!e && port_text && (end == port_text || *end || port < 0 || port > 65535))
        e = wa_fail(WA_E_USAGE, "--port takes 0-65535");
    if (e) {
        settings_cleanup(&set);
        exit_fail(e);
        fputs(serve_usage, stderr);
        return EXIT_USAGE;
    }
    os_interrupt_install(false);
    struct core *c = host_core(&set, false);
    settings_cleanup(&set);
    if (!c)
        return EXIT_USAGE;
    core_watch_person(c);
    int rc;
    if (dir) {
        struct session_opts so;
        session_opts_default(&so);
        so.front = "serve";
        so.refs = true;
        so.settle_ms = 150;
        struct session *ses;
        if ((e = session_new(c, &so, &ses))) {
            core_free(c);
            return exit_fail(e);
        }
        rc = serve_ipc_loop(ses, dir);
        session_free(ses);
    } else {
        rc = serve_tcp_loop(c, (int)port);
    }
    core_free(c);
    return rc;
}
