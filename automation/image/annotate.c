/* The debug mark on step images: a red crosshair and ring at the target point, and its
 * label on a dark box kept inside the image. */
#include "automation/image/annotate.h"

#include "automation/image/font.h"

#define MARK_RGB    0xff0000u /* crosshair and ring */
#define BOX_RGB     0x101010u /* label background */
#define BORDER_RGB  0xff0000u
#define TEXT_RGB    0xffffffu
#define ARM         14 /* crosshair half-length, pixels */
#define RING        8  /* ring radius, pixels (2 pixels thick, outwards) */
#define LABEL_SCALE 2  /* 10x14-pixel glyphs: readable at full screen size */
#define LABEL_PAD   3  /* box padding around the text, pixels */
#define LABEL_GAP   16 /* offset of the box from the point, clear of the crosshair */

static void put(struct wa_image *img, int x, int y, uint32_t rgb)
{
    if (x < 0 || y < 0 || x >= img->width || y >= img->height)
        return;
    uint8_t *p = img->px + ((size_t)y * (size_t)img->width + (size_t)x) * 4;
    uint8_t r = (uint8_t)(rgb >> 16), g = (uint8_t)(rgb >> 8), b = (uint8_t)rgb;
    p[0] = img->bgra ? b : r;
    p[1] = g;
    p[2] = img->bgra ? r : b;
    p[3] = 255;
}

static void fill(struct wa_image *img, int x0, int y0, int w, int h, uint32_t rgb)
{
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++)
            put(img, x, y, rgb);
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Down and to the right of the point; flipped to the other side where that would leave
 * the image; finally clamped (an image smaller than the box clips it). */
static int label_origin(int p, int size, int limit)
{
    int o = p + LABEL_GAP;
    if (o + size > limit)
        o = p - LABEL_GAP - size;
    return clamp(o, 0, limit - size > 0 ? limit - size : 0);
}

void annotate_point(struct wa_image *img, int x, int y, const char *label)
{
    if (!img->px || img->width <= 0 || img->height <= 0)
        return;
    x = clamp(x, 0, img->width - 1);
    y = clamp(y, 0, img->height - 1);

    if (label && *label) {
        int bw = font_text_width(label, LABEL_SCALE) + 2 * LABEL_PAD;
        int bh = font_text_height(LABEL_SCALE) + 2 * LABEL_PAD;
        int bx = label_origin(x, bw, img->width);
        int by = label_origin(y, bh, img->height);
        fill(img, bx, by, bw, bh, BORDER_RGB);
        fill(img, bx + 1, by + 1, bw - 2, bh - 2, BOX_RGB);
        font_draw_text(img, bx + LABEL_PAD, by + LABEL_PAD, label, LABEL_SCALE, TEXT_RGB);
    }

    /* Drawn last, so the point itself is red even when a tiny image puts the box on it. */
    for (int d = -ARM; d <= ARM; d++) {
        put(img, x + d, y, MARK_RGB);
        put(img, x, y + d, MARK_RGB);
    }
    int r_in = RING * RING, r_out = (RING + 2) * (RING + 2);
    for (int dy = -RING - 2; dy <= RING + 2; dy++)
        for (int dx = -RING - 2; dx <= RING + 2; dx++) {
            int d2 = dx * dx + dy * dy;
            if (d2 >= r_in && d2 < r_out)
                put(img, x + dx, y + dy, MARK_RGB);
        }
}

#define MARK_BOX_RGB   0xff00ffu /* numbered boxes: magenta, rare in user interfaces */
#define MARK_LABEL_RGB 0xffffffu

void annotate_box(struct wa_image *img, int left, int top, int right, int bottom, const char *label)
{
    if (!img->px || img->width <= 0 || img->height <= 0 || right <= left || bottom <= top)
        return;
    /* a two-pixel frame inside the box */
    for (int t = 0; t < 2; t++) {
        for (int x = left; x < right; x++) {
            put(img, x, top + t, MARK_BOX_RGB);
            put(img, x, bottom - 1 - t, MARK_BOX_RGB);
        }
        for (int y = top; y < bottom; y++) {
            put(img, left + t, y, MARK_BOX_RGB);
            put(img, right - 1 - t, y, MARK_BOX_RGB);
        }
    }
    if (!label || !*label)
        return;
    /* the number on a filled tab at the box's top-left corner, kept inside the image */
    int scale = bottom - top >= 30 ? 2 : 1;
    int bw = font_text_width(label, scale) + 4, bh = font_text_height(scale) + 4;
    int bx = clamp(left, 0, img->width - bw > 0 ? img->width - bw : 0);
    int by = clamp(top, 0, img->height - bh > 0 ? img->height - bh : 0);
    fill(img, bx, by, bw, bh, MARK_BOX_RGB);
    font_draw_text(img, bx + 2, by + 2, label, scale, MARK_LABEL_RGB);
}

void annotate_fill_rect(struct wa_image *img, int left, int top, int right, int bottom,
                        uint32_t rgb)
{
    if (!img->px)
        return;
    left = clamp(left, 0, img->width);
    right = clamp(right, 0, img->width);
    top = clamp(top, 0, img->height);
    bottom = clamp(bottom, 0, img->height);
    fill(img, left, top, right - left, bottom - top, rgb);
}
