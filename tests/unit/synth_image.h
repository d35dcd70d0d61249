/* Deterministic synthetic screen images for the image tests and the image benchmark. */
#ifndef WINAGENT_TESTS_SYNTH_IMAGE_H
#define WINAGENT_TESTS_SYNTH_IMAGE_H

#include <stdint.h>

#include "automation/image/image.h"

/* xorshift32: the same sequence on every platform. */
static inline uint32_t synth_rand(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* A number in [0, n), 0 when n < 1. */
static inline int synth_below(uint32_t *s, int n)
{
    return n < 1 ? 0 : (int)(synth_rand(s) % (uint32_t)n);
}

/* Writes an opaque pixel (r, g, b) in img's channel order; clipped to the image. */
static inline void synth_put(struct wa_image *img, int x, int y, int r, int g, int b)
{
    if (x < 0 || y < 0 || x >= img->width || y >= img->height)
        return;
    uint8_t *p = img->px + ((size_t)y * (size_t)img->width + (size_t)x) * 4;
    p[0] = (uint8_t)(img->bgra ? b : r);
    p[1] = (uint8_t)g;
    p[2] = (uint8_t)(img->bgra ? r : b);
    p[3] = 255;
}

static inline void synth_rect(struct wa_image *img, int x0, int y0, int w, int h, int r, int g,
                              int b)
{
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++)
            synth_put(img, x, y, r, g, b);
}

/* Rows of 5x7 "glyphs" of random ink with grey anti-aliasing at their edges, like
 * text in a UI font. */
static inline void synth_text(struct wa_image *img, uint32_t *seed, int x0, int y0, int w, int h,
                              int line_h)
{
    for (int ly = y0; ly + 9 <= y0 + h; ly += line_h) {
        int x = x0;
        int end = x0 + 40 + synth_below(seed, w - 40);
        while (x + 6 <= end && x + 6 <= x0 + w) {
            if (synth_rand(seed) % 7 == 0) { /* a space */
                x += 4;
                continue;
            }
            uint32_t bits = synth_rand(seed);
            for (int gy = 0; gy < 7; gy++)
                for (int gx = 0; gx < 5; gx++) {
                    if (!(bits >> ((gy * 5 + gx) % 32) & 1))
                        continue;
                    int v = (gx == 0 || gx == 4) ? 120 : 20;
                    synth_put(img, x + gx, ly + 1 + gy, v, v, v + 10);
                }
            x += 6;
        }
    }
}

/* A busy desktop: a noisy photo-like wallpaper, gradients, overlapping windows with
 * title bars, buttons and many lines of text. */
static inline void synth_busy(struct wa_image *img, uint32_t seed)
{
    int w = img->width, h = img->height;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int n = synth_below(&seed, 24);
            int r = (x * 180 / w + y * 40 / h + n) & 255;
            int g = (y * 160 / h + 30 + n / 2) & 255;
            int b = (200 - x * 100 / w + (x * y / 97) % 30 + n) & 255;
            synth_put(img, x, y, r, g, b);
        }
    for (int i = 0; i < 9; i++) {
        int ww = w / 4 + synth_below(&seed, w / 3);
        int wh = h / 4 + synth_below(&seed, h / 3);
        int wx = synth_below(&seed, w - ww / 2);
        int wy = synth_below(&seed, h - wh / 2);
        synth_rect(img, wx - 1, wy - 1, ww + 2, wh + 2, 90, 90, 100);
        synth_rect(img, wx, wy, ww, wh, 240, 240, 240);
        for (int y = 0; y < 22; y++) /* title bar gradient */
            for (int x = 0; x < ww; x++)
                synth_put(img, wx + x, wy + y, 10 + x * 60 / ww, 36 + x * 100 / ww, 106 + y * 4);
        synth_text(img, &seed, wx + 6, wy + 6, ww / 2, 10, 10);
        for (int k = 0; k < 4; k++) { /* buttons */
            int bx = wx + 8 + k * 70, by = wy + wh - 30;
            if (bx + 64 > wx + ww)
                break;
            synth_rect(img, bx, by, 64, 22, 160, 160, 160);
            synth_rect(img, bx + 1, by + 1, 62, 20, 225, 225, 225);
            synth_text(img, &seed, bx + 8, by + 6, 48, 9, 9);
        }
        synth_rect(img, wx + 4, wy + 26, ww - 8, wh - 62, 255, 255, 255);
        synth_text(img, &seed, wx + 8, wy + 30, ww - 16, wh - 70, 14);
    }
}

/* A plain desktop: a flat wallpaper, a few icons, a taskbar and one small window. */
static inline void synth_plain(struct wa_image *img, uint32_t seed)
{
    int w = img->width, h = img->height;
    synth_rect(img, 0, 0, w, h, 0, 128, 128);
    for (int i = 0; i < 5; i++) { /* icons with captions */
        synth_rect(img, 20, 20 + i * 80, 32, 32, 250, 210, 60);
        synth_rect(img, 28, 28 + i * 80, 16, 16, 40, 90, 200);
        synth_text(img, &seed, 10, 56 + i * 80, 52, 9, 9);
    }
    synth_rect(img, 0, h - 30, w, 30, 192, 192, 192);
    synth_rect(img, 0, h - 30, w, 1, 255, 255, 255);
    synth_rect(img, 2, h - 27, 60, 24, 210, 210, 210);
    synth_text(img, &seed, 10, h - 20, 44, 9, 9);
    synth_rect(img, w - 80, h - 27, 76, 24, 180, 180, 180);
    synth_text(img, &seed, w - 72, h - 20, 60, 9, 9);
    int wx = w / 4, wy = h / 5, ww = w / 2, wh = h / 2;
    synth_rect(img, wx, wy, ww, wh, 212, 208, 200);
    synth_rect(img, wx + 3, wy + 3, ww - 6, 18, 10, 36, 106);
    synth_text(img, &seed, wx + 8, wy + 7, 120, 9, 9);
    synth_rect(img, wx + 6, wy + 26, ww - 12, wh - 32, 255, 255, 255);
    synth_text(img, &seed, wx + 10, wy + 30, ww / 2, wh / 3, 15);
}

#endif
