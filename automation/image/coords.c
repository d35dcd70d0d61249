/* The 0-999 coordinate contract: model coordinates <-> pixels of a frame. */
#include "automation/image/coords.h"

void wa_rect_center(struct wa_rect r, int *x, int *y)
{
    *x = r.left + (r.right - r.left) / 2;
    *y = r.top + (r.bottom - r.top) / 2;
}

struct wa_rect wa_rect_intersect(struct wa_rect a, struct wa_rect b)
{
    struct wa_rect r = {
        a.left > b.left ? a.left : b.left,
        a.top > b.top ? a.top : b.top,
        a.right < b.right ? a.right : b.right,
        a.bottom < b.bottom ? a.bottom : b.bottom,
    };
    if (wa_rect_empty(r))
        return (struct wa_rect){0, 0, 0, 0};
    return r;
}

/* Rounds num/den to the nearest integer, halves away from zero; den > 0. */
static long long div_round(long long num, long long den)
{
    return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

int norm_to_pixel(int norm, int origin, int size)
{
    if (size <= 1)
        return origin;
    return origin + (int)div_round((long long)norm * (size - 1), 999);
}

int pixel_to_norm(int px, int origin, int size)
{
    if (size <= 1)
        return 0;
    long long n = div_round((long long)(px - origin) * 999, size - 1);
    return n < 0 ? 0 : n > 999 ? 999 : (int)n;
}

wa_err norm_point_to_pixel(struct wa_rect frame, int x, int y, int *px, int *py)
{
    if (wa_rect_empty(frame))
        return wa_fail(WA_E_INVALID_ARGS, "no observation frame to map coordinates onto");
    if (x < 0 || x > 999 || y < 0 || y > 999)
        return wa_fail(WA_E_INVALID_ARGS,
                       "coordinates (%d,%d) are outside 0-999 (they are relative to the "
                       "latest observation: 0,0 top-left, 999,999 bottom-right)",
                       x, y);
    *px = norm_to_pixel(x, frame.left, wa_rect_width(frame));
    *py = norm_to_pixel(y, frame.top, wa_rect_height(frame));
    return WA_E_OK;
}
