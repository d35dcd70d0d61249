/* Observations: what the model (or a CLI user) sees of a window or monitor: the
 * accessibility tree text when it is useful (mode auto), else a downscaled PNG. */
#ifndef WINAGENT_AGENT_CORE_REQUEST_OBSERVE_H
#define WINAGENT_AGENT_CORE_REQUEST_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"
#include "base/dynbuf.h"

enum obs_mode {
    OBS_AUTO,  /* the tree when tree_is_useful, else pixels */
    OBS_A11Y,  /* the tree whenever one can be had */
    OBS_PIXEL, /* always the image */
};

wa_err obs_mode_parse(const char *s, enum obs_mode *out);
const char *obs_mode_name(enum obs_mode m);

enum obs_kind {
    OBS_NONE,
    OBS_TREE,
    OBS_IMAGE,
};

struct observation {
    enum obs_kind kind;
    struct wa_rect frame; /* what 0-999 spans: the window rect or the monitor rect */
    uint64_t hwnd;        /* the window observed; 0 for a monitor */
    char *text;           /* OBS_TREE: the §5 text, exactly as sent; OBS_IMAGE with marks:
                           * the list of the numbered elements sent with the image */
    bool marked;          /* OBS_IMAGE: interactive elements boxed and numbered with ids */
    struct dynbuf png;    /* OBS_IMAGE: the PNG, exactly as sent */
    char *png_base64;     /* OBS_IMAGE: the same, base64 */
    int width, height;    /* OBS_IMAGE: size of the image sent */
    char verdict[256];    /* "auto: tree accepted (...); source uia" / "auto: tree rejected
                           * (...), fell back to pixel; source msaa" / "pixel mode" */
    double capture_ms, encode_ms, tree_ms; /* timings of the phases that ran */
    double pixels_ms; /* the capture for the tree's fingerprints, taken beside the walk
                       * (inside tree_ms, not a phase of its own) */
    bool tree_reused; /* the window had not changed: its tree was not walked again */
};

void observation_init(struct observation *o);
void observation_cleanup(struct observation *o);

struct observe_opts {
    enum obs_mode mode;
    int max_edge;       /* longest edge of images, pixels (default 1280) */
    int tree_budget_ms; /* time budget of a tree walk */
    /* Further limits of the images sent (0: none): pixels in all, and the shorter edge
     * (a model service's own sizes, past which it would scale the image itself). */
    long max_pixels;
    int max_short_edge;
};

/* How observations capture pixels: the core's captures black out restricted windows.
 * NULL: straight from the backend. */
struct observe_capture {
    wa_err (*window)(void *ctx, uint64_t hwnd, struct wa_image *out, struct wa_rect *frame);
    wa_err (*screen)(void *ctx, struct wa_rect r, struct wa_image *out);
    void *ctx;
};

/* Observes window hwnd. On success *tree holds the walked tree (kept even when the
 * image was chosen, so element ids stay usable); the caller owns and cleans it up. */
wa_err observe_window(const struct wa_backend *b, uint64_t hwnd, const struct observe_opts *o,
                      const struct observe_capture *cap, struct observation *out,
                      struct wa_tree *tree);
/* The same from a tree already walked (walked: the walk's outcome), as when the window
 * is known not to have changed since; *tree stays the caller's. */
wa_err observe_window_tree(const struct wa_backend *b, uint64_t hwnd, const struct observe_opts *o,
                           const struct observe_capture *cap, wa_err walked,
                           struct observation *out, struct wa_tree *tree);

/* Observes a rectangle of the screen (a monitor) as an image. */
wa_err observe_screen(const struct wa_backend *b, struct wa_rect r, const struct observe_opts *o,
                      const struct observe_capture *cap, struct observation *out);

/* One line per interactive element of t left without a name by every fallback, for
 * the log: `DEBUG: unnamed Button hwnd=0x0 autoId="" class="Button" bounds=[l,t][r,b]`
 * (pixels), each ending in a newline. */
wa_err observe_unnamed_lines(const struct wa_tree *t, struct dynbuf *out);

/* Draws the numbered marks of tree's interactive elements into img, a capture of
 * frame (the debug image of a step shows the same marks as the model's image). */
void observe_draw_marks(const struct wa_tree *t, struct wa_image *img, struct wa_rect frame);

/* Encodes img (downscaled to max_edge) into out's png/base64 fields. */
wa_err observation_set_image(struct observation *out, const struct wa_image *img, int max_edge);

#endif
