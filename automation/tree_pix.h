/* Pixel fingerprints of a tree's items: where an item of a long collection or of a menu
 * bar shows, a hash of its row's (its own) pixels in a capture of the window taken
 * before the walk, so that a later walk can tell which items look as they did and take
 * those from the last walk instead of asking the program again. Portable. */
#ifndef WINAGENT_AUTOMATION_TREE_PIX_H
#define WINAGENT_AUTOMATION_TREE_PIX_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/image/image.h"
#include "automation/tree.h"

/* A hash of the pixels of rectangle [x0, x1) x [y0, y1) of img (inside it), their
 * colours only (not alpha). */
uint64_t tree_pix_hash(const struct wa_image *img, int x0, int y0, int x1, int y1);
/* Where node i of t has its fingerprint, in screen pixels: for an item of a collection
 * that shows, its row (its height, across its collection's width: what marks it, a
 * tree's button or the selection, is in the row); for an item of a menu bar and a list's
 * column header, its own bounds. False for any other node. */
bool tree_pix_area(const struct wa_tree *t, size_t i, struct wa_rect *area);
/* The fingerprint of area in img, a capture of frame (screen pixels); 0 where the area
 * is not wholly (top to bottom) in the capture. */
uint64_t tree_pix_in(const struct wa_image *img, struct wa_rect frame, struct wa_rect area);
/* Sets every node's pix from img (a capture taken before t was walked), but those that
 * have one: taken from the last walk for looking the same in img, they have it. */
void tree_pix_set(struct wa_tree *t, const struct wa_image *img, struct wa_rect frame);
/* For each node of t: whether it has a fingerprint and img shows the same now. A heap
 * array of t->count (the caller frees it); NULL when out of memory or t is empty. */
bool *tree_pix_same(const struct wa_tree *t, const struct wa_image *img, struct wa_rect frame);

#endif
