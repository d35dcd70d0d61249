/* Looking through the gate: captures with restricted windows blacked out, images for
 * results, the session's tree walked afresh, and observations that become the
 * session's latest (the frame 0-999 spans, the tree element ids index). */
#ifndef WINAGENT_AGENT_CORE_LOOK_H
#define WINAGENT_AGENT_CORE_LOOK_H

#include <stdbool.h>

#include "agent/core/call.h"

/* Captures the window (or rect when hwnd is 0) with the windows the gate refuses
 * blacked out; *frame is what the image spans. */
wa_err call_capture(struct call *k, uint64_t hwnd, struct wa_rect rect, struct wa_image *out,
                    struct wa_rect *frame);
/* A copy of img, a capture of window hwnd showing frame, with the windows the gate
 * refuses that lie above hwnd blacked out: a capture taken moments ago, used again. */
wa_err call_capture_copy(struct call *k, uint64_t hwnd, const struct wa_image *img,
                         struct wa_rect frame, struct wa_image *out);
/* A PNG of the window (or of rect when hwnd is 0) into r->png, scaled to max_edge. */
wa_err call_image(struct call *k, uint64_t hwnd, struct wa_rect rect, int max_edge);
/* The same from an image already captured. */
wa_err call_image_from(struct call *k, const struct wa_image *img, struct wa_rect frame,
                       int max_edge);
/* A fresh tree of hwnd into the session (handles kept); it becomes the observation. */
wa_err call_fresh_tree(struct call *k, uint64_t hwnd);
/* An observation of hwnd into r->obs that becomes the session's latest. */
wa_err call_observe(struct call *k, uint64_t hwnd, const struct observe_opts *o);
/* The same from the session's tree of hwnd, which still holds (nothing changed since
 * it was walked): no walk. */
wa_err call_observe_reusing_tree(struct call *k, uint64_t hwnd, const struct observe_opts *o);
/* An observation of the screen rectangle r (a monitor) that becomes the latest. */
wa_err call_observe_screen(struct call *k, struct wa_rect r, const struct observe_opts *o);
/* The hash of the image k->pixels_now points at (the look before's is cached). */
uint64_t call_pixels_now_hash(struct call *k);

#endif
