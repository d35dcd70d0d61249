/* Looking through the gate: captures with the windows the gate refuses blacked out,
 * PNG images for results, fresh trees, observations that become the session's latest,
 * and the looks before and after an acting operation. */
#include "agent/core/call/look.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/call/guard.h"
#include "agent/core/call/target.h"
#include "automation/image/annotate.h"
#include "automation/tree_pix.h"

/* Marks rect r (screen pixels) of the mask over frame with v. */
static void mask_rect(uint8_t *mask, struct wa_rect frame, struct wa_rect r, uint8_t v)
{
    r = wa_rect_intersect(r, frame);
    int w = frame.right - frame.left;
    for (int y = r.top; y < r.bottom && !wa_rect_empty(r); y++)
        memset(mask + (size_t)(y - frame.top) * (size_t)w + (size_t)(r.left - frame.left), v,
               (size_t)(r.right - r.left));
}

/* Blacks out, in img of frame, what the gate refuses among the windows above `below`
 * in Z order (all of them when below is 0): each pixel is black when the topmost of
 * those windows there is one the gate refuses, so a password manager over the window,
 * or anywhere on a monitor, never reaches an image, and an allowed window over it stays.
 * Every visible window counts, not only the listed ones: a restricted program's untitled
 * pop-ups, menus and tool windows are blacked out as its titled windows are. With an
 * allow-list, an image of the screen shows the allowed programs' windows only: every
 * other pixel (the desktop, the taskbar, other programs) is black. */
static wa_err blackout(struct call *k, struct wa_image *img, struct wa_rect frame, uint64_t below)
{
    struct wa_window_list l;
    wa_err e = backend_list_visible_windows(k->be, &l);
    if (e)
        return wa_fail(e, "cannot tell which windows are on screen, so no image: %s",
                       wa_err_detail());
    bool only_allowed = !below && gate_has_apps(k->c->gate);
    size_t above = l.count;
    bool refused = only_allowed;
    for (size_t i = 0; i < l.count && above == l.count; i++) {
        const struct wa_window *w = &l.items[i];
        if (below && w->hwnd == below)
            above = i;
        else if (w->state != WA_WINDOW_MINIMIZED && !gate_allows(k->c->gate, w) &&
                 !wa_rect_empty(wa_rect_intersect(w->rect, frame)))
            refused = true;
    }
    int width = frame.right - frame.left, height = frame.bottom - frame.top;
    uint8_t *mask = refused && width == img->width && height == img->height
                        ? malloc((size_t)width * (size_t)height)
                        : NULL;
    if (refused && !mask && width == img->width && height == img->height) {
        wa_window_list_cleanup(&l);
        return wa_fail(WA_E_NOMEM, "out of memory blacking out refused windows");
    }
    if (mask) {
        memset(mask, only_allowed, (size_t)width * (size_t)height);
        for (size_t i = above; i-- > 0;) { /* bottom up: what lies on top wins */
            const struct wa_window *w = &l.items[i];
            if (w->state != WA_WINDOW_MINIMIZED)
                mask_rect(mask, frame, w->rect, !gate_allows(k->c->gate, w));
        }
        for (int y = 0; y < height; y++) {
            const uint8_t *row = mask + (size_t)y * (size_t)width;
            for (int x = 0; x < width;) {
                int run = x;
                while (run < width && row[run])
                    run++;
                if (run > x)
                    annotate_fill_rect(img, x, y, run, y + 1, 0x000000);
                x = run + 1;
            }
        }
        free(mask);
    } else if (refused) { /* an image not of the frame's size: whole rectangles */
        for (size_t i = 0; i < above; i++) {
            const struct wa_window *w = &l.items[i];
            if (w->state == WA_WINDOW_MINIMIZED || gate_allows(k->c->gate, w))
                continue;
            struct wa_rect r = wa_rect_intersect(w->rect, frame);
            if (!wa_rect_empty(r))
                annotate_fill_rect(img, r.left - frame.left, r.top - frame.top,
                                   r.right - frame.left, r.bottom - frame.top, 0x000000);
        }
    }
    wa_window_list_cleanup(&l);
    wa_err_clear();
    return WA_E_OK;
}

/* What a capture had to say (a covered window whose own drawing could not be had is
 * copied from the screen, with what covers it), once per result. */
static void note_capture(struct op_result *r, const char *what)
{
    for (size_t i = 0; i < r->n_notes; i++)
        if (strcmp(r->notes[i], what) == 0)
            return;
    op_result_note(r, "%s", what);
}

static wa_err capture_window(void *ctx, uint64_t hwnd, struct wa_image *out, struct wa_rect *frame)
{
    struct call *k = ctx;
    wa_err e = WA_E_OK;
    if (k->look.walk_window == hwnd && k->look.walk_image.px) { /* taken while walking */
        *out = k->look.walk_image;
        *frame = k->look.walk_frame;
        k->look.walk_image = (struct wa_image){0};
    } else {
        wa_err_clear();
        e = backend_capture_window(k->be, hwnd, out, frame);
        if (!e && *wa_err_detail())
            note_capture(k->r, wa_err_detail());
    }
    if (!e && (e = blackout(k, out, *frame, hwnd)))
        image_cleanup(out);
    return e;
}

static wa_err capture_screen(void *ctx, struct wa_rect r, struct wa_image *out)
{
    struct call *k = ctx;
    wa_err e = backend_capture_screen(k->be, r, out);
    if (!e && (e = blackout(k, out, r, 0)))
        image_cleanup(out);
    return e;
}

wa_err look_capture(struct call *k, uint64_t hwnd, struct wa_rect rect, struct wa_image *out,
                    struct wa_rect *frame)
{
    *frame = rect;
    return hwnd ? capture_window(k, hwnd, out, frame) : capture_screen(k, rect, out);
}

wa_err look_capture_copy(struct call *k, uint64_t hwnd, const struct wa_image *img,
                         struct wa_rect frame, struct wa_image *out)
{
    wa_err e = image_alloc_raw(out, img->width, img->height, img->bgra);
    if (e)
        return e;
    memcpy(out->px, img->px, (size_t)img->width * (size_t)img->height * 4);
    if ((e = blackout(k, out, frame, hwnd)))
        image_cleanup(out);
    return e;
}

/* A hash of an image's pixels and size. */
static uint64_t image_hash(const struct wa_image *img)
{
    return tree_pix_hash(img, 0, 0, img->width, img->height) ^ (uint64_t)img->width ^
           ((uint64_t)img->height << 32);
}

/* The hash of the look before's image, computed once per call. */
static uint64_t before_hash(struct call *k)
{
    struct before_look *b = &k->look.before;
    if (!b->hashed) {
        b->image_hash = image_hash(&b->image);
        b->hashed = true;
    }
    return b->image_hash;
}

/* The hash of the image k->look.pixels_now points at (the look before's is cached). */
static uint64_t pixels_now_hash(struct call *k)
{
    return k->look.pixels_now == &k->look.before.image ? before_hash(k)
                                                       : image_hash(k->look.pixels_now);
}

/* A capture beside a tree walk (on the kept helper thread when it is free): freed by
 * whichever side is done with it last (the caller gives up on a capture stuck in a hung
 * window). */
struct side_capture {
    const struct wa_backend *be;
    uint64_t hwnd;
    struct wa_image img;
    struct wa_rect frame;
    wa_err e;
    struct os_event *done;
    atomic_int refs;
};

#define SIDE_CAPTURE_WAIT_MS 1000 /* beyond the walk; a capture takes 2-30 ms */

static void side_capture_unref(struct side_capture *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        image_cleanup(&c->img);
        os_event_free(c->done);
        free(c);
    }
}

static void side_capture_run(void *arg)
{
    struct side_capture *c = arg;
    c->e = backend_capture_window(c->be, c->hwnd, &c->img, &c->frame);
    os_event_set(c->done);
    side_capture_unref(c);
}

static struct side_capture *side_capture_start(struct call *k, uint64_t hwnd)
{
    struct side_capture *c = calloc(1, sizeof *c);
    if (!c || !(c->done = os_event_new())) {
        free(c);
        return NULL;
    }
    c->be = k->be;
    c->hwnd = hwnd;
    atomic_init(&c->refs, 2);
    if (os_run_beside(side_capture_run, c) != WA_E_OK) {
        os_event_free(c->done);
        free(c);
        return NULL;
    }
    return c;
}

/* The side capture's image, moved into *img; false when it failed or is late. */
static bool side_capture_finish(struct side_capture *c, struct wa_image *img, struct wa_rect *frame)
{
    if (!c)
        return false;
    bool ok = os_event_wait(c->done, SIDE_CAPTURE_WAIT_MS) && c->e == WA_E_OK;
    if (ok) {
        *img = c->img;
        *frame = c->frame;
        c->img = (struct wa_image){0};
    }
    side_capture_unref(c);
    return ok;
}

/* The last tree of window hwnd the call has (the session's, or the look before's once
 * the session's moved there), whose unchanged parts a walk may take; NULL when none. */
static const struct wa_tree *last_tree(const struct call *k, uint64_t hwnd)
{
    const struct session *s = k->s;
    if (s->have_tree && s->tree.hwnd == hwnd)
        return &s->tree;
    if (k->look.before.have_tree && k->look.before.tree.hwnd == hwnd)
        return &k->look.before.tree;
    return NULL;
}

/* The session now looks at window hwnd, seen in frame; marked: its element ids are the
 * numbered marks of an image. */
static void session_observed(struct session *s, uint64_t hwnd, struct wa_rect frame, bool marked)
{
    s->frame = frame;
    s->have_frame = !wa_rect_empty(frame);
    s->target = hwnd;
    s->marked = marked;
}

/* The pixels a walk of hwnd went by. */
struct walk_pixels {
    const struct wa_image *img; /* NULL: none */
    struct wa_rect frame;
    double capture_ms; /* a capture taken for the walk */
};

/* Walks hwnd into *tree with what may be taken of the last tree of it: the windows that
 * are as they were, and the rows that look as they did. The pixels it goes by (*px):
 * the settle's last capture after an action, else in a session that looks again a
 * capture the backend takes for the walk (beside it where it can, but before it reads
 * anything with a fingerprint: a row newer in its pixels than in the text read of it
 * would be taken stale by the next look), kept in k->look.walk_image (the observation's
 * image should the tree be rejected); none in a one-shot session (no later look to pay
 * for) or when the capture failed. The new rows get their fingerprints from them. */
static wa_err walk_with_last(struct call *k, uint64_t hwnd, int budget_ms, struct wa_tree *tree,
                             struct walk_pixels *px)
{
    struct wa_tree_opts to = {
        .budget_ms = budget_ms, .keep_handles = true, .prev = last_tree(k, hwnd)};
    struct wa_tree_pixels beside = {0};
    bool *same = NULL;
    *px = (struct walk_pixels){0};
    if (k->look.pixels_now) {
        px->img = k->look.pixels_now;
        px->frame = k->look.pixels_frame;
        same = to.prev ? tree_pix_same(to.prev, px->img, px->frame) : NULL;
    } else if (!k->s->o.refs_on_disk) {
        image_cleanup(&k->look.walk_image);
        k->look.walk_window = 0;
        to.pixels = &beside;
    }
    to.prev_same = same;
    wa_err e = backend_get_tree(k->be, hwnd, &to, tree);
    free(same);
    if (beside.img.px) {
        k->look.walk_image = beside.img;
        k->look.walk_frame = beside.frame;
        k->look.walk_window = hwnd;
        *px = (struct walk_pixels){&k->look.walk_image, beside.frame, beside.ms};
    }
    if (!e && px->img)
        tree_pix_set(tree, px->img, px->frame);
    return e;
}

wa_err look_observe(struct call *k, uint64_t hwnd, const struct observe_opts *o)
{
    struct session *s = k->s;
    wa_err e = guard_observe(k, hwnd);
    if (e)
        return e;
    struct wa_tree tree;
    struct observe_capture cap = {capture_window, capture_screen, k};
    observation_cleanup(&k->r->obs);
    /* The pixels as the walk found them, so that a later look can tell the tree still
     * holds and which rows look as they did; in a one-shot session a capture beside the
     * walk, which is also the image if the tree is rejected. */
    uint64_t pixels = 0;
    bool have_pixels = false;
    struct side_capture *side = NULL;
    struct walk_pixels px = {0};
    double t0 = os_clock_ms();
    if (o->mode != OBS_PIXEL && !k->look.pixels_now && s->o.refs_on_disk)
        side = side_capture_start(k, hwnd);
    wa_err walked =
        o->mode == OBS_PIXEL ? WA_E_OK : walk_with_last(k, hwnd, o->tree_budget_ms, &tree, &px);
    double tree_ms = (os_clock_ms() - t0);
    if (px.img) {
        pixels = px.img == k->look.pixels_now ? pixels_now_hash(k) : image_hash(px.img);
        have_pixels = true;
    }
    if (side_capture_finish(side, &k->look.walk_image, &k->look.walk_frame)) {
        k->look.walk_window = hwnd;
        pixels = image_hash(&k->look.walk_image);
        have_pixels = true;
    }
    if (o->mode == OBS_PIXEL)
        e = observe_window(k->be, hwnd, o, &cap, &k->r->obs, &tree);
    else
        e = observe_window_tree(k->be, hwnd, o, &cap, walked, &k->r->obs, &tree);
    k->r->obs.tree_ms = tree_ms;
    k->r->obs.pixels_ms = px.capture_ms;
    image_cleanup(&k->look.walk_image);
    k->look.walk_window = 0;
    if (e)
        return e;
    session_observed(s, hwnd, k->r->obs.frame, k->r->obs.marked);
    tree_cleanup(&s->tree);
    s->tree = tree;
    s->have_tree = tree.count > 0;
    s->have_tree_pixels = have_pixels && s->have_tree;
    s->tree_pixels = pixels;
    return WA_E_OK;
}

wa_err look_observe_screen(struct call *k, struct wa_rect r, const struct observe_opts *o)
{
    struct session *s = k->s;
    struct observe_capture cap = {capture_window, capture_screen, k};
    observation_cleanup(&k->r->obs);
    wa_err e = observe_screen(k->be, r, o, &cap, &k->r->obs);
    if (e)
        return e;
    s->frame = r;
    s->have_frame = true;
    s->target = 0;
    s->marked = false;
    tree_cleanup(&s->tree);
    s->have_tree = false;
    s->have_tree_pixels = false;
    return WA_E_OK;
}

wa_err look_image(struct call *k, uint64_t hwnd, struct wa_rect rect, int max_edge)
{
    struct wa_image img = {0};
    struct wa_rect frame;
    wa_err e = look_capture(k, hwnd, rect, &img, &frame);
    if (e)
        return e;
    e = look_image_from(k, &img, frame, max_edge);
    image_cleanup(&img);
    return e;
}

wa_err look_image_from(struct call *k, const struct wa_image *img, struct wa_rect frame,
                       int max_edge)
{
    struct observation obs;
    observation_init(&obs);
    wa_err e = observation_set_image(&obs, img, max_edge > 0 ? max_edge : 1280);
    if (!e) {
        struct op_result *r = k->r;
        dynbuf_reset(&r->png);
        e = dynbuf_add(&r->png, obs.png.data, obs.png.len);
        r->has_image = !e;
        r->img_w = obs.width;
        r->img_h = obs.height;
        r->scale = img->width > 0 ? (double)obs.width / img->width : 1.0;
        r->origin_x = frame.left;
        r->origin_y = frame.top;
        r->frame = frame;
    }
    observation_cleanup(&obs);
    return e;
}

wa_err look_fresh_tree(struct call *k, uint64_t hwnd)
{
    struct session *s = k->s;
    wa_err e = guard_observe(k, hwnd);
    if (e)
        return e;
    struct walk_pixels px;
    struct wa_tree tree;
    e = walk_with_last(k, hwnd, s->o.observe.tree_budget_ms, &tree, &px);
    if (px.img == &k->look.walk_image) {
        image_cleanup(&k->look.walk_image);
        k->look.walk_window = 0;
    }
    tree_cleanup(&s->tree);
    s->have_tree = false;
    s->have_tree_pixels = false;
    if (e)
        return e;
    s->tree = tree;
    s->have_tree = true;
    session_observed(s, hwnd, s->tree.frame, false);
    k->look.fresh = true;
    return WA_E_OK;
}

/* The observation after an action from the session's tree, which still holds. */
static wa_err look_observe_reusing_tree(struct call *k, uint64_t hwnd, const struct observe_opts *o)
{
    struct session *s = k->s;
    struct observe_capture cap = {capture_window, capture_screen, k};
    observation_cleanup(&k->r->obs);
    wa_err e = observe_window_tree(k->be, hwnd, o, &cap, WA_E_OK, &k->r->obs, &s->tree);
    if (e)
        return e;
    session_observed(s, hwnd, k->r->obs.frame, k->r->obs.marked);
    k->r->obs.tree_reused = true;
    return WA_E_OK;
}

void look_cleanup(const struct wa_backend *be, struct before_look *b)
{
    backend_unwatch_process(be, b->watch);
    image_cleanup(&b->image);
    image_cleanup(&b->after_image);
    wa_window_list_cleanup(&b->windows);
    tree_cleanup(&b->tree);
    memset(b, 0, sizeof *b);
}

/* A hold on the process of the call's window, so that what became of it can be told
 * after acting (verify_target_fate); its name and pid from the window list just read. */
static void watch_target(struct call *k)
{
    struct before_look *b = &k->look.before;
    if (backend_watch_process(k->be, b->window, &b->watch) != WA_E_OK)
        b->watch = 0;
    for (size_t i = 0; i < b->windows.count; i++)
        if (b->windows.items[i].hwnd == b->window) {
            b->pid = b->windows.items[i].pid;
            snprintf(b->process, sizeof b->process, "%s", b->windows.items[i].process);
        }
}

void look_before(struct call *k)
{
    struct session *s = k->s;
    struct before_look *b = &k->look.before;
    double t0 = os_clock_ms();
    uint64_t hwnd = 0;
    if (target_window(k, &hwnd) != WA_E_OK || !hwnd) {
        wa_err_clear(); /* the operation will say what is wrong with its window */
        return;
    }
    b->have = true;
    b->window = hwnd;
    b->wall_ms = os_time_ms();
    backend_foreground_window(k->be, &b->fg);
    b->have_windows = backend_list_windows(k->be, &b->windows) == WA_E_OK;
    watch_target(k);
    b->have_image = backend_capture_window(k->be, hwnd, &b->image, &b->frame) == WA_E_OK;
    /* The tree before: the session's (what the model was shown) or, where there is
     * none of this window (one-shot act, the CLI, MCP), a walk now. */
    bool live = !s->o.refs && s->have_tree && s->tree.hwnd == hwnd;
    /* After a look at a monitor, the model's 0-999 are of that monitor: the walk must
     * not make them the window's. */
    bool monitor = s->have_frame && !s->target && !k->q->window.given;
    struct wa_rect seen = s->frame;
    if (!live && guard_observe(k, hwnd) == WA_E_OK && look_fresh_tree(k, hwnd) == WA_E_OK &&
        b->have_image) {
        s->tree_pixels = before_hash(k); /* walked as it looked then */
        s->have_tree_pixels = true;
    }
    if (monitor) {
        s->frame = seen;
        s->have_frame = true;
        s->target = 0;
    }
    wa_err_clear();
    k->r->before_ms = os_clock_ms() - t0;
    b->at_ms = os_now_ms();
}

/* Takes the session's tree as the tree before the action (the after observation
 * replaces it). */
static void keep_tree_before(struct call *k)
{
    struct session *s = k->s;
    struct before_look *b = &k->look.before;
    if (b->have_tree || !s->have_tree)
        return;
    b->tree = s->tree;
    b->have_tree = true;
    tree_init(&s->tree);
    s->have_tree = false;
}

/* Whether the session's tree of window after is still the window's: the action changed
 * nothing (the settle saw the pixels and the foreground stay as they were before it),
 * and the tree was walked when the window looked exactly as it did before the action.
 * Then the look after reuses it instead of walking again. */
static bool tree_still_holds(struct call *k, uint64_t after)
{
    struct session *s = k->s;
    struct before_look *b = &k->look.before;
    if (k->dry || !k->verify.unchanged || k->send.pattern_action || !b->have || !b->have_image ||
        after != b->window || !s->have_tree || s->tree.hwnd != after || !s->have_tree_pixels)
        return false;
    return s->tree_pixels == before_hash(k);
}

/* The look after acting at window after: an observation (the loop), else a fresh tree
 * for the change report, reusing the session's tree where nothing changed. */
void look_after(struct call *k, uint64_t after, bool input)
{
    struct session *s = k->s;
    bool observe = s->o.after == AFTER_OBSERVE;
    bool reuse = tree_still_holds(k, after);
    if (input && !k->dry && !reuse)
        keep_tree_before(k);
    wa_err e = WA_E_OK;
    if (after == k->look.before.window && k->look.before.have_after_image) {
        k->look.pixels_now = &k->look.before.after_image; /* how the window looks, settled */
        k->look.pixels_frame = k->look.before.after_frame;
    } else if (after == k->look.before.window && k->verify.unchanged) {
        k->look.pixels_now = &k->look.before.image;
        k->look.pixels_frame = k->look.before.frame;
    }
    if (observe && s->have_display) /* the one display, whatever is in front */
        e = look_observe_screen(k, s->display, &s->o.observe);
    else if (after && observe && reuse && s->o.observe.mode != OBS_PIXEL)
        e = look_observe_reusing_tree(k, after, &s->o.observe);
    else if (after && observe)
        e = look_observe(k, after, &s->o.observe);
    else if (after && input && !k->dry && !reuse)
        e = look_fresh_tree(k, after); /* the look after, for what changed */
    if (!e && !observe && after && !reuse && s->have_tree && s->tree.hwnd == after &&
        k->look.pixels_now) {
        s->tree_pixels = pixels_now_hash(k); /* walked as it looks, settled */
        s->have_tree_pixels = true;
    }
    if (e)
        op_result_note(k->r, "no look at the window after acting: %s",
                       *wa_err_detail() ? wa_err_detail() : wa_err_message(e));
}

uint64_t look_after_window(struct call *k)
{
    struct session *s = k->s;
    uint64_t fg = 0;
    backend_default_window(k->be, &fg);
    wa_err_clear();
    uint64_t base = s->pinned ? s->pinned : k->r->hwnd ? k->r->hwnd : k->look.before.window;
    if (!base || !target_alive(k, base))
        return fg;
    if (k->send.background)
        return base; /* whatever the user has in front is not the call's */
    if (s->o.after == AFTER_OBSERVE && !s->pinned)
        return fg; /* the loop looks at whatever is in front now */
    return target_in_family(k, base, fg) ? fg : base;
}
