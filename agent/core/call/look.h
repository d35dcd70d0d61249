/* Looking through the gate: captures with restricted windows blacked out, images for
 * results, the session's tree walked afresh, observations that become the session's
 * latest (the frame 0-999 spans, the tree element ids index), and the looks before and
 * after an acting operation. */
#ifndef WINAGENT_AGENT_CORE_CALL_LOOK_H
#define WINAGENT_AGENT_CORE_CALL_LOOK_H

#include <stdbool.h>

#include "agent/core/call/call.h"

/* Captures the window (or rect when hwnd is 0) with the windows the gate refuses
 * blacked out; *frame is what the image spans. */
wa_err look_capture(struct call *k, uint64_t hwnd, struct wa_rect rect, struct wa_image *out,
                    struct wa_rect *frame);
/* A copy of img, a capture of window hwnd showing frame, with the windows the gate
 * refuses that lie above hwnd blacked out: a capture taken moments ago, used again. */
wa_err look_capture_copy(struct call *k, uint64_t hwnd, const struct wa_image *img,
                         struct wa_rect frame, struct wa_image *out);
/* A PNG of the window (or of rect when hwnd is 0) into r->png, scaled to max_edge. */
wa_err look_image(struct call *k, uint64_t hwnd, struct wa_rect rect, int max_edge);
/* The same from an image already captured. */
wa_err look_image_from(struct call *k, const struct wa_image *img, struct wa_rect frame,
                       int max_edge);
/* A fresh tree of hwnd into the session (handles kept); it becomes the observation. */
wa_err look_fresh_tree(struct call *k, uint64_t hwnd);
/* An observation of hwnd into r->obs that becomes the session's latest. */
wa_err look_observe(struct call *k, uint64_t hwnd, const struct observe_opts *o);
/* An observation of the screen rectangle r (a monitor) that becomes the latest. */
wa_err look_observe_screen(struct call *k, struct wa_rect r, const struct observe_opts *o);
/* Before an acting operation: the foreground window, the window list, a capture of the
 * operation's window, and its tree (walked now where the session has none of it). */
void look_before(struct call *k);
/* Releases what the look before holds (images, trees, the hold on the window's process). */
void look_cleanup(const struct wa_backend *be, struct before_look *b);
/* The window to look at after acting: the target, or the dialog of it in front (the
 * loop: whatever is in front). */
uint64_t look_after_window(struct call *k);
/* The look after acting at window after: an observation (the loop), else a fresh tree
 * for the change report (input true, not a dry run), reusing the session's tree where
 * nothing changed. A look that fails is a note in the result. */
void look_after(struct call *k, uint64_t after, bool input);

#endif
