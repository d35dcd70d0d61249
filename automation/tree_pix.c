/* Pixel fingerprints of a tree's items (an FNV-like hash over a row of a capture). */
#include "automation/tree_pix.h"

#include <stdlib.h>
#include <string.h>

/* One step of a lane: the word in, multiplied through and folded back. */
static inline uint64_t mix(uint64_t h)
{
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

#define NO_ALPHA 0x00ffffff00ffffffull /* two pixels' colours, without their alpha */

/* A hash of n pixels of one scanline: four lanes of two pixels each step, independent of
 * each other so that the processor runs them side by side (one lane a pixel at a time
 * cost 1.5 ms for a later look's rows of the big window, and as much for its whole
 * capture), then the lanes and the tail folded in order. */
static uint64_t scanline_hash(const uint8_t *p, size_t n)
{
    uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull, c = 0xa4093822299f31d0ull,
             d = 0x082efa98ec4e6c89ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w[4];
        memcpy(w, p + i * 4, sizeof w);
        a = mix(a ^ (w[0] & NO_ALPHA));
        b = mix(b ^ (w[1] & NO_ALPHA));
        c = mix(c ^ (w[2] & NO_ALPHA));
        d = mix(d ^ (w[3] & NO_ALPHA));
    }
    uint64_t h = mix(mix(mix(mix(a) ^ b) ^ c) ^ d) ^ n;
    for (; i < n; i++) {
        uint32_t v;
        memcpy(&v, p + i * 4, sizeof v);
        h = mix(h ^ (v & 0x00ffffffu));
    }
    return h;
}

uint64_t tree_pix_hash(const struct wa_image *img, int x0, int y0, int x1, int y1)
{
    uint64_t h = 1469598103934665603ull;
    for (int y = y0; img->px && y < y1; y++)
        h = mix(h ^ scanline_hash(img->px + ((size_t)y * (size_t)img->width + (size_t)x0) * 4,
                                  (size_t)(x1 - x0)));
    return h;
}

bool tree_pix_area(const struct wa_tree *t, size_t i, struct wa_rect *area)
{
    const struct wa_node *n = &t->nodes[i];
    bool bar_item = n->parent >= 0 && strcmp(n->type, "MenuItem") == 0 &&
                    strcmp(t->nodes[n->parent].type, "MenuBar") == 0;
    bool own = bar_item || strcmp(n->type, "Header") == 0; /* its own bounds, not a row */
    if ((!n->coll_item && !own) || n->parent < 0 || wa_rect_empty(n->bounds) ||
        !tree_node_on_screen(t, i))
        return false;
    struct wa_rect across = t->nodes[n->parent].bounds;
    *area = (struct wa_rect){across.left, n->bounds.top, across.right, n->bounds.bottom};
    if (wa_rect_empty(across) || own)
        *area = n->bounds;
    return true;
}

uint64_t tree_pix_in(const struct wa_image *img, struct wa_rect frame, struct wa_rect area)
{
    struct wa_rect r = wa_rect_intersect(area, frame);
    int x0 = r.left - frame.left, y0 = r.top - frame.top;
    int x1 = r.right - frame.left, y1 = r.bottom - frame.top;
    if (!img || !img->px || wa_rect_empty(r) || x0 < 0 || y0 < 0 || x1 > img->width ||
        y1 > img->height || r.top != area.top || r.bottom != area.bottom)
        return 0;
    uint64_t h = tree_pix_hash(img, x0, y0, x1, y1);
    return h ? h : 1;
}

/* Node i's fingerprint in img (tree_pix_area, tree_pix_in); 0 where it has none. */
static uint64_t tree_pix_of(const struct wa_tree *t, size_t i, const struct wa_image *img,
                            struct wa_rect frame)
{
    struct wa_rect area;
    return tree_pix_area(t, i, &area) ? tree_pix_in(img, frame, area) : 0;
}

void tree_pix_set(struct wa_tree *t, const struct wa_image *img, struct wa_rect frame)
{
    for (size_t i = 0; i < t->count; i++)
        if (!t->nodes[i].pix) /* else taken from the last walk for looking the same */
            t->nodes[i].pix = tree_pix_of(t, i, img, frame);
}

bool *tree_pix_same(const struct wa_tree *t, const struct wa_image *img, struct wa_rect frame)
{
    bool *same = t->count ? calloc(t->count, sizeof *same) : NULL;
    for (size_t i = 0; same && i < t->count; i++)
        same[i] = t->nodes[i].pix && tree_pix_of(t, i, img, frame) == t->nodes[i].pix;
    return same;
}
