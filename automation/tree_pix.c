/* Pixel fingerprints of a tree's items (an FNV-like hash over a row of a capture). */
#include "automation/tree_pix.h"

#include <stdlib.h>
#include <string.h>

uint64_t tree_pix_of(const struct wa_tree *t, size_t i, const struct wa_image *img,
                     struct wa_rect frame)
{
    const struct wa_node *n = &t->nodes[i];
    bool bar_item = n->parent >= 0 && strcmp(n->type, "MenuItem") == 0 &&
                    strcmp(t->nodes[n->parent].type, "MenuBar") == 0;
    if ((!n->coll_item && !bar_item) || n->parent < 0 || !img || !img->px ||
        wa_rect_empty(n->bounds) || !tree_node_on_screen(t, i))
        return 0;
    struct wa_rect across = t->nodes[n->parent].bounds;
    struct wa_rect row = {across.left, n->bounds.top, across.right, n->bounds.bottom};
    if (wa_rect_empty(across) || bar_item)
        row = n->bounds;
    row = wa_rect_intersect(row, frame);
    int x0 = row.left - frame.left, y0 = row.top - frame.top;
    int x1 = row.right - frame.left, y1 = row.bottom - frame.top;
    if (wa_rect_empty(row) || x0 < 0 || y0 < 0 || x1 > img->width || y1 > img->height ||
        row.top != n->bounds.top || row.bottom != n->bounds.bottom)
        return 0;
    /* a pixel (4 bytes) at a time: rows of a few dozen kilobytes, a hundred of them */
    uint64_t h = 1469598103934665603ull;
    for (int y = y0; y < y1; y++) {
        const uint8_t *p = img->px + ((size_t)y * (size_t)img->width + (size_t)x0) * 4;
        for (int x = x0; x < x1; x++, p += 4) {
            uint32_t v;
            memcpy(&v, p, sizeof v);
            h = (h ^ v) * 0x100000001b3ull;
            h ^= h >> 29;
        }
    }
    return h ? h : 1;
}

void tree_pix_set(struct wa_tree *t, const struct wa_image *img, struct wa_rect frame)
{
    for (size_t i = 0; i < t->count; i++)
        t->nodes[i].pix = tree_pix_of(t, i, img, frame);
}

bool *tree_pix_same(const struct wa_tree *t, const struct wa_image *img, struct wa_rect frame)
{
    bool *same = t->count ? calloc(t->count, sizeof *same) : NULL;
    for (size_t i = 0; same && i < t->count; i++)
        same[i] = t->nodes[i].pix && tree_pix_of(t, i, img, frame) == t->nodes[i].pix;
    return same;
}
