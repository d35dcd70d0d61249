/* Pixels of the Windows desktop: the backend's capture slots (GDI into a reused DIB). */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_CAPTURE_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"

/* r in virtual-screen pixels; an empty r means the whole virtual screen. Parts of r
 * outside every monitor are black. out is BGRA, top-down; alpha is undefined. */
wa_err win_capture_screen(struct wa_rect r, struct wa_image *out);

/* The window as it looks: a straight screen copy when nothing else covers it (fast,
 * and shows its open menus and drop-downs), else PrintWindow (PW_RENDERFULLCONTENT),
 * falling back to a screen copy when that fails or comes back black. *frame = the
 * visible frame (win_window_frame); the image has the frame's size.
 * WA_E_ACTION_FAILED for a minimised window (it has nothing to show). */
wa_err win_capture_window(uint64_t hwnd, struct wa_image *out, struct wa_rect *frame);

/* A capture of a window (win_capture_window) taken on a worker beside a walk: the walk
 * waits for it before it reads anything whose pixels it fingerprints, so that what the
 * tree says is never older than the pixels. Shared by the walk's threads (counted). */
struct win_pixels;
/* Starts capturing; NULL when no worker could start. */
struct win_pixels *win_pixels_start(HWND h);
struct win_pixels *win_pixels_ref(struct win_pixels *p);
void win_pixels_release(struct win_pixels *p);
/* Waits for the capture, up to ms (INFINITE: no limit); false when it did not come. */
bool win_pixels_wait(struct win_pixels *p, DWORD ms);
/* After the wait: its image and *frame, held (win_pixels_take waits) until
 * win_pixels_unhold; NULL, nothing held, when it failed or was taken. */
const struct wa_image *win_pixels_hold(struct win_pixels *p, struct wa_rect *frame);
void win_pixels_unhold(struct win_pixels *p);
/* Waits up to ms, then moves the image and frame out, with the ms the capture took;
 * false when it failed, did not come in time or was taken already. */
bool win_pixels_take(struct win_pixels *p, DWORD ms, struct wa_image *img, struct wa_rect *frame,
                     double *took_ms);

#endif
