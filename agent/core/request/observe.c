/* Observations: tree or pixels per step, with the verdict that chose between them. */
#include "agent/core/request/observe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/annotate.h"
#include "automation/image/base64.h"
#include "automation/image/png.h"
#include "automation/tree_format.h"
#include "base/os.h"
#include "base/str.h"

#define PNG_MAX_BYTES (64u << 20)
#define TREE_TEXT_MAX (4u << 20)

wa_err obs_mode_parse(const char *s, enum obs_mode *out)
{
    if (str_ieq(s, "auto"))
        *out = OBS_AUTO;
    else if (str_ieq(s, "a11y") || str_ieq(s, "tree") || str_ieq(s, "accessibility"))
        *out = OBS_A11Y;
    else if (str_ieq(s, "pixel") || str_ieq(s, "pixels") || str_ieq(s, "image") ||
             str_ieq(s, "screenshot"))
        *out = OBS_PIXEL;
    else
        return wa_fail(WA_E_INVALID_ARGS, "mode must be auto, a11y or pixel, not '%s'", s ? s : "");
    return WA_E_OK;
}

const char *obs_mode_name(enum obs_mode m)
{
    return m == OBS_A11Y ? "a11y" : m == OBS_PIXEL ? "pixel" : "auto";
}

void observation_init(struct observation *o)
{
    memset(o, 0, sizeof *o);
    dynbuf_init(&o->png, PNG_MAX_BYTES);
}

void observation_cleanup(struct observation *o)
{
    free(o->text);
    free(o->png_base64);
    dynbuf_cleanup(&o->png);
    observation_init(o);
}

/* The longest edge an image of width x height is scaled to under o's limits. */
static int observe_edge(const struct observe_opts *o, int width, int height)
{
    return image_edge_within(width, height, o->max_edge > 0 ? o->max_edge : 1280, o->max_pixels,
                             o->max_short_edge);
}

wa_err observation_set_image(struct observation *out, const struct wa_image *img, int max_edge)
{
    struct wa_image small = {0};
    double t0 = os_clock_ms();
    wa_err e = image_downscale(img, max_edge > 0 ? max_edge : 1280, &small);
    if (e)
        return e;
    dynbuf_reset(&out->png);
    e = png_encode(&small, &out->png);
    struct dynbuf b64;
    dynbuf_init(&b64, PNG_MAX_BYTES * 2);
    if (!e)
        e = base64_encode(out->png.data, out->png.len, &b64);
    if (!e) {
        free(out->png_base64);
        out->png_base64 = dynbuf_take(&b64);
        if (!out->png_base64)
            e = wa_fail(WA_E_NOMEM, "out of memory");
    }
    dynbuf_cleanup(&b64);
    out->kind = OBS_IMAGE;
    out->width = small.width;
    out->height = small.height;
    out->encode_ms = (os_clock_ms() - t0);
    image_cleanup(&small);
    return e;
}

/* The window's pixels and frame, through the caller's capture when it gives one, else
 * the backend's; the time it took goes in out->capture_ms. */
static wa_err capture_window(const struct wa_backend *b, uint64_t hwnd,
                             const struct observe_capture *cap, struct wa_image *img,
                             struct wa_rect *frame, struct observation *out)
{
    double t0 = os_clock_ms();
    wa_err e =
        cap ? cap->window(cap->ctx, hwnd, img, frame) : backend_capture_window(b, hwnd, img, frame);
    out->capture_ms = (os_clock_ms() - t0);
    return e;
}

static wa_err observe_pixels(const struct wa_backend *b, uint64_t hwnd,
                             const struct observe_opts *o, const struct observe_capture *cap,
                             struct observation *out)
{
    struct wa_image img = {0};
    struct wa_rect frame;
    wa_err e = capture_window(b, hwnd, cap, &img, &frame, out);
    if (e)
        return e;
    out->frame = frame;
    e = observation_set_image(out, &img, observe_edge(o, img.width, img.height));
    image_cleanup(&img);
    return e;
}

/* An interactive element with a place inside the window: one a numbered mark can show. */
static bool mark_shows(const struct wa_tree *t, size_t i)
{
    const struct wa_node *n = &t->nodes[i];
    return i > 0 && tree_type_is_interactive(n->type) && !wa_rect_empty(n->bounds) &&
           !(n->states & WA_ST_OFFSCREEN) && !wa_rect_empty(wa_rect_intersect(n->bounds, t->frame));
}

/* Whether the tree was rejected for unnamed interactive elements that have bounds. */
static bool markable(const struct wa_tree *t)
{
    size_t unnamed = 0;
    for (size_t i = 0; i < t->count; i++)
        unnamed += mark_shows(t, i) && !*t->nodes[i].name;
    return unnamed > 0;
}

void observe_draw_marks(const struct wa_tree *t, struct wa_image *img, struct wa_rect frame)
{
    for (size_t i = 0; i < t->count; i++) {
        if (!mark_shows(t, i))
            continue;
        const struct wa_rect r = t->nodes[i].bounds;
        char label[24];
        snprintf(label, sizeof label, "%zu", i + 1);
        annotate_box(img, r.left - frame.left, r.top - frame.top, r.right - frame.left,
                     r.bottom - frame.top, label);
    }
}

/* The image with a numbered box on each interactive element, and the list of them in
 * 0-999 of the frame, so the model can act on elements it sees but the tree cannot name. */
static wa_err observe_marked(const struct wa_backend *b, uint64_t hwnd,
                             const struct observe_opts *o, const struct observe_capture *cap,
                             const struct wa_tree *tree, struct observation *out)
{
    struct wa_image img = {0};
    struct wa_rect frame;
    wa_err e = capture_window(b, hwnd, cap, &img, &frame, out);
    if (e)
        return e;
    observe_draw_marks(tree, &img, frame);
    struct dynbuf text;
    dynbuf_init(&text, TREE_TEXT_MAX);
    e = dynbuf_adds(&text, "The image shows a numbered box on each interactive element; the "
                           "numbers are element ids (act on one with \"element\": N):\n");
    int w = wa_rect_width(frame), h = wa_rect_height(frame);
    for (size_t i = 0; !e && i < tree->count; i++) {
        if (!mark_shows(tree, i))
            continue;
        const struct wa_node *n = &tree->nodes[i];
        struct wa_rect r = wa_rect_intersect(n->bounds, frame);
        e = dynbuf_addf(&text, "[%zu] %s ", i + 1, n->type);
        if (!e)
            e = tree_quote(n->name, &text);
        if (!e)
            e = dynbuf_addf(&text, " bounds=[%d,%d][%d,%d]\n", pixel_to_norm(r.left, frame.left, w),
                            pixel_to_norm(r.top, frame.top, h),
                            pixel_to_norm(r.right - 1, frame.left, w),
                            pixel_to_norm(r.bottom - 1, frame.top, h));
    }
    if (!e) {
        out->frame = frame;
        out->marked = true;
        free(out->text);
        out->text = dynbuf_take(&text);
        e = out->text ? observation_set_image(out, &img, observe_edge(o, img.width, img.height))
                      : wa_fail(WA_E_NOMEM, "out of memory");
    }
    dynbuf_cleanup(&text);
    image_cleanup(&img);
    return e;
}

wa_err observe_window(const struct wa_backend *b, uint64_t hwnd, const struct observe_opts *o,
                      const struct observe_capture *cap, struct observation *out,
                      struct wa_tree *tree)
{
    tree_init(tree);
    out->hwnd = hwnd;
    if (o->mode == OBS_PIXEL) {
        snprintf(out->verdict, sizeof out->verdict, "pixel mode");
        return observe_pixels(b, hwnd, o, cap, out);
    }
    struct wa_tree_opts to = {.budget_ms = o->tree_budget_ms, .keep_handles = true};
    double t0 = os_clock_ms();
    wa_err e = backend_get_tree(b, hwnd, &to, tree);
    out->tree_ms = (os_clock_ms() - t0);
    return observe_window_tree(b, hwnd, o, cap, e, out, tree);
}

wa_err observe_window_tree(const struct wa_backend *b, uint64_t hwnd, const struct observe_opts *o,
                           const struct observe_capture *cap, wa_err walked,
                           struct observation *out, struct wa_tree *tree)
{
    wa_err e = walked;
    out->hwnd = hwnd;
    char reason[128], source[32] = "";
    bool useful = false;
    if (e) {
        snprintf(reason, sizeof reason, "no tree: %s%s%s", wa_err_message(e),
                 *wa_err_detail() ? ": " : "", wa_err_detail());
        tree_cleanup(tree);
        if (e == WA_E_WINDOW_NOT_FOUND)
            return e;
    } else {
        useful = tree_is_useful(tree, reason, sizeof reason);
        snprintf(source, sizeof source, "; source %s", tree->source ? tree->source : "?");
    }
    if (!e && (useful || o->mode == OBS_A11Y)) {
        struct dynbuf text;
        dynbuf_init(&text, TREE_TEXT_MAX);
        e = tree_format(tree, NULL, &text);
        if (e) {
            dynbuf_cleanup(&text);
            return e;
        }
        out->text = dynbuf_take(&text);
        out->kind = OBS_TREE;
        out->frame = tree->frame;
        snprintf(out->verdict, sizeof out->verdict, "%s: tree %s (%s)%s", obs_mode_name(o->mode),
                 useful ? "accepted" : "sent although not useful", reason, source);
        return out->text ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
    }
    if (!e && markable(tree)) {
        snprintf(out->verdict, sizeof out->verdict,
                 "%s: tree rejected (%s), fell back to pixel%s, with numbered marks",
                 obs_mode_name(o->mode), reason, source);
        return observe_marked(b, hwnd, o, cap, tree, out);
    }
    snprintf(out->verdict, sizeof out->verdict, "%s: tree rejected (%s), fell back to pixel%s",
             obs_mode_name(o->mode), reason, source);
    return observe_pixels(b, hwnd, o, cap, out);
}

wa_err observe_screen(const struct wa_backend *b, struct wa_rect r, const struct observe_opts *o,
                      const struct observe_capture *cap, struct observation *out)
{
    struct wa_image img = {0};
    double t0 = os_clock_ms();
    wa_err e = cap ? cap->screen(cap->ctx, r, &img) : backend_capture_screen(b, r, &img);
    out->capture_ms = (os_clock_ms() - t0);
    if (e)
        return e;
    out->frame = r;
    out->hwnd = 0;
    snprintf(out->verdict, sizeof out->verdict, "screen [%d,%d][%d,%d]", r.left, r.top, r.right,
             r.bottom);
    e = observation_set_image(out, &img, observe_edge(o, img.width, img.height));
    image_cleanup(&img);
    return e;
}

wa_err observe_unnamed_lines(const struct wa_tree *t, struct dynbuf *out)
{
    wa_err e = WA_E_OK;
    for (size_t i = 0; !e && i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        if (*n->name || !tree_type_is_interactive(n->type))
            continue;
        e = dynbuf_addf(out, "DEBUG: unnamed %s hwnd=0x%llx autoId=", n->type,
                        (unsigned long long)n->hwnd);
        if (!e)
            e = tree_quote(n->automation_id, out);
        if (!e)
            e = dynbuf_adds(out, " class=");
        if (!e)
            e = tree_quote(n->class_name, out);
        if (!e)
            e = dynbuf_addf(out, " bounds=[%d,%d][%d,%d]\n", n->bounds.left, n->bounds.top,
                            n->bounds.right, n->bounds.bottom);
    }
    return e;
}
