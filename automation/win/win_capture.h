/* Pixels of the Windows desktop: the backend's capture slots (GDI into a reused DIB). */
#ifndef WINAGENT_WIN_CAPTURE_H
#define WINAGENT_WIN_CAPTURE_H

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

#endif
