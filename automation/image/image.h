/* Pixel images: storage, fitting, downscaling, comparing and reading pixels. The
 * observation pipeline goes on in png.h, base64.h and annotate.h. Portable; the
 * Windows backend only captures into a struct wa_image. */
#ifndef WINAGENT_AUTOMATION_IMAGE_IMAGE_H
#define WINAGENT_AUTOMATION_IMAGE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/image/coords.h"
#include "base/wa_err.h"

/* 8-bit 4-channel pixels, top-down rows of width*4 bytes. Channel order is RGBA, or
 * BGRA when bgra is set (what GDI captures produce; converting is left to the
 * encoder, which touches every pixel anyway). Alpha is ignored by the encoders:
 * observations are opaque. */
struct wa_image {
    int width, height;
    uint8_t *px;
    bool bgra;
};

/* Caller-owned storage. alloc zero-fills; alloc_raw leaves the pixels undefined, for a
 * caller that writes every one (a capture, a downscale). cleanup accepts an empty image.
 * Buffers of 1 MB and more are kept after cleanup for the next image of about their
 * size: a fresh one costs page faults on first write (~0.3 ms a MB under Wine, 8 ms
 * for a 906x684 window on a loaded day). */
wa_err image_alloc(struct wa_image *img, int width, int height, bool bgra);
wa_err image_alloc_raw(struct wa_image *img, int width, int height, bool bgra);
void image_cleanup(struct wa_image *img);
/* The bytes of the buffers kept for reuse (0 where the pool is off). */
size_t image_pool_bytes(void);

/* Scales src so its longest edge is at most max_edge pixels, keeping the aspect
 * ratio (a good-quality filter: text must stay legible). When src already fits, dst
 * is a copy. dst keeps src's channel order. */
wa_err image_downscale(const struct wa_image *src, int max_edge, struct wa_image *dst);

/* The size image_downscale would produce. */
void image_fit(int width, int height, int max_edge, int *out_w, int *out_h);

/* The largest longest edge, at most max_edge, for which image_fit's size of a width x
 * height image holds at most max_pixels pixels and has its shorter edge at most
 * max_short (either 0: no such limit): what to downscale to for a consumer that
 * would otherwise scale the image again itself. */
int image_edge_within(int width, int height, int max_edge, long max_pixels, int max_short);

/* Whether two captures of one window differ in a way a person would see: a changed
 * region at least IMAGE_CHANGE_MIN_WIDTH pixels wide (a blinking caret is not). Images
 * of different sizes differ. *box (may be NULL) gets the changed region. */
#define IMAGE_CHANGE_MIN_WIDTH 4
bool image_changed(const struct wa_image *a, const struct wa_image *b, struct wa_rect *box);

/* Reads the pixel at (x, y) as 0xRRGGBB whatever the channel order. */
uint32_t image_pixel_rgb(const struct wa_image *img, int x, int y);

#endif
