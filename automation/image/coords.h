/* Rectangles and the 0-999 coordinate contract (docs/contract.md §4). */
#ifndef WINAGENT_AUTOMATION_IMAGE_COORDS_H
#define WINAGENT_AUTOMATION_IMAGE_COORDS_H

#include <stdbool.h>

#include "base/wa_err.h"

/* Pixels in virtual-screen coordinates (physical, per-monitor DPI aware); right and
 * bottom are exclusive, as in Win32 RECT. Origins may be negative. */
struct wa_rect {
    int left, top, right, bottom;
};

static inline int wa_rect_width(struct wa_rect r)
{
    return r.right - r.left;
}
static inline int wa_rect_height(struct wa_rect r)
{
    return r.bottom - r.top;
}
static inline bool wa_rect_empty(struct wa_rect r)
{
    return r.right <= r.left || r.bottom <= r.top;
}
/* Centre pixel (rounded down). */
void wa_rect_center(struct wa_rect r, int *x, int *y);
/* The overlap of a and b; empty (all zero) when they do not meet. */
struct wa_rect wa_rect_intersect(struct wa_rect a, struct wa_rect b);

/* 0-999 -> pixel over an extent of `size` pixels starting at `origin`:
 * origin + round(norm * (size - 1) / 999). */
int norm_to_pixel(int norm, int origin, int size);
/* pixel -> 0-999, the nearest value, clamped to [0, 999]. */
int pixel_to_norm(int px, int origin, int size);

/* Maps a model's (x, y) in 0-999 over frame to pixels. WA_E_INVALID_ARGS (with a
 * detail naming the bad value) when x or y is outside 0-999 or the frame is empty. */
wa_err norm_point_to_pixel(struct wa_rect frame, int x, int y, int *px, int *py);

#endif
