/* What handling one MCP request takes: the server's state, the messages it sends on its
 * own (log and progress notifications), JSON-RPC errors and params, images that fit the
 * client, and an operation performed with its cancellation and progress wired. */
#include "agent/mcp/mcp_req.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/request/op_schema.h"
#include "agent/core/request/wire.h"
#include "agent/front/cli.h"
#include "automation/image/image.h"
#include "automation/image/png.h"
#include "base/args.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"
#include "base/version.h"

bool mcp_req_since(const char *version, const char *v)
{
    return !version || strcmp(version, v) >= 0;
}

const char *const mcp_req_log_levels[8] = {"debug", "info",     "notice", "warning",
                                           "error", "critical", "alert",  "emergency"};

/* ---- messages the server sends ---- */

void mcp_req_send(struct mcp_server *s, const struct mcp_sink *sink, cJSON *msg)
{
    struct mcp_sink to = {0};
    if (sink && sink->send) {
        to = *sink;
    } else {
        os_mutex_lock(s->state);
        to = s->sink;
        os_mutex_unlock(s->state);
    }
    char *text = to.send ? cJSON_PrintUnformatted(msg) : NULL;
    if (text)
        to.send(to.ctx, text, strlen(text));
    free(text);
    cJSON_Delete(msg);
}

static cJSON *notification(const char *method, cJSON **params)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", method);
    *params = cJSON_AddObjectToObject(n, "params");
    return n;
}

/* A log notification at level, when the client asked for that level or below. */

void mcp_req_log(struct mcp_server *s, const struct mcp_sink *sink, int level, const char *fmt, ...)
{
    os_mutex_lock(s->state);
    bool wanted = s->version && level >= s->level;
    os_mutex_unlock(s->state);
    if (!wanted)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cJSON *params;
    cJSON *n = notification("notifications/message", &params);
    cJSON_AddStringToObject(params, "level", mcp_req_log_levels[level]);
    cJSON_AddStringToObject(params, "logger", "winagent");
    cJSON_AddStringToObject(params, "data", text);
    mcp_req_send(s, sink, n);
}

void mcp_req_send_progress(struct mcp_progress *p, double done, double total, const char *message)
{
    if (!p->token || (p->last >= 0 && done <= p->last))
        return; /* progress only ever goes up */
    p->last = done;
    cJSON *params;
    cJSON *n = notification("notifications/progress", &params);
    cJSON_AddItemToObject(params, "progressToken", cJSON_Duplicate(p->token, true));
    cJSON_AddNumberToObject(params, "progress", done);
    if (total > 0)
        cJSON_AddNumberToObject(params, "total", total);
    if (message && *message && mcp_req_since(p->s->version, "2025-03-26"))
        cJSON_AddStringToObject(params, "message", message);
    mcp_req_send(p->s, p->sink, n);
}

static void on_progress(void *ctx, double done, double total, const char *message)
{
    mcp_req_send_progress(ctx, done, total, message);
}

/* ---- images that fit the client ---- */

/* Scales the result's PNG down until its base64 and its longest edge are within the
 * server's limits; the result's scale follows, and a note says so. */
static void fit_image(const struct mcp_server *s, struct op_result *r)
{
    if (!r->has_image || r->png.len < 24)
        return;
    const unsigned char *p = (const unsigned char *)r->png.data;
    int w = (int)((unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19]);
    int h = (int)((unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23]);
    size_t b64 = 4 * ((r->png.len + 2) / 3);
    int edge = w > h ? w : h;
    if (edge <= 0 || (edge <= s->image_max_px && b64 <= (size_t)s->image_max_bytes))
        return;
    struct wa_image full = {0};
    if (png_decode(r->png.data, r->png.len, &full) != WA_E_OK)
        return;
    int target = edge > s->image_max_px ? s->image_max_px : edge;
    for (int tries = 0; tries < 12 && target >= 16; tries++) {
        struct wa_image small = {0};
        struct dynbuf png;
        dynbuf_init(&png, MCP_REPLY_MAX_BYTES);
        bool ok = image_downscale(&full, target, &small) == WA_E_OK &&
                  png_encode(&small, &png) == WA_E_OK;
        size_t size = 4 * ((png.len + 2) / 3);
        if (ok && size <= (size_t)s->image_max_bytes) {
            double f = (double)small.width / w;
            dynbuf_cleanup(&r->png);
            r->png = png; /* moved */
            r->img_w = small.width;
            r->img_h = small.height;
            r->scale = r->scale > 0 ? r->scale * f : f;
            op_result_note(r,
                           "the image was scaled to %dx%d (%.3f of %dx%d) to fit the client's "
                           "limits (%ld bytes of base64, %d px); screen = origin + image / scale",
                           small.width, small.height, f, w, h, s->image_max_bytes, s->image_max_px);
            image_cleanup(&small);
            image_cleanup(&full);
            return;
        }
        dynbuf_cleanup(&png);
        image_cleanup(&small);
        /* too many bytes: shrink by the square root of the excess, and a little more */
        double by = ok && size > 0 ? (double)s->image_max_bytes / (double)size : 0.25;
        int next = (int)(target * sqrt(by) * 0.9);
        target = next < target ? next : target - 1;
    }
    image_cleanup(&full);
    r->has_image = false; /* nothing small enough: better none than one the client refuses */
    dynbuf_cleanup(&r->png);
    op_result_note(r, "the image did not fit the client's limits and was left out");
}

/* ---- JSON-RPC ---- */

void mcp_req_error(struct reply *rep, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rep->code = code;
    vsnprintf(rep->message, sizeof rep->message, fmt, ap);
    va_end(ap);
}

const char *mcp_req_str_param(const cJSON *params, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void mcp_req_perform(struct req *rq, struct op_request *q, struct op_result *r,
                     struct mcp_progress *pg)
{
    if (rq->flight)
        q->cancel = &rq->flight->cancel;
    if (pg && pg->token) {
        q->progress = on_progress;
        q->progress_ctx = pg;
    }
    core_perform(rq->s->ses, q, r);
    fit_image(rq->s, r);
}
