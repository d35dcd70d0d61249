/* What every part of the core shares about a call: its summary line and the hashes that
 * tell a window's pixels apart. */
#include "agent/core/call.h"

#include <stdarg.h>
#include <stdio.h>

void call_summary(struct call *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->r->summary, sizeof k->r->summary, fmt, ap);
    va_end(ap);
}

uint64_t call_image_hash(const struct wa_image *img)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)img->width ^ ((uint64_t)img->height << 32);
    size_t row = (size_t)img->width * 4;
    for (int y = 0; img->px && y < img->height; y++) {
        const uint8_t *p = img->px + (size_t)y * row;
        for (size_t i = 0; i < row; i += 4) /* every pixel, alpha skipped */
            h = (h ^ ((uint64_t)p[i] | (uint64_t)p[i + 1] << 8 | (uint64_t)p[i + 2] << 16)) *
                1099511628211ULL;
    }
    return h;
}

uint64_t call_before_hash(struct call *k)
{
    struct before_look *b = &k->before;
    if (!b->hashed) {
        b->image_hash = call_image_hash(&b->image);
        b->hashed = true;
    }
    return b->image_hash;
}
