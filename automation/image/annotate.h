/* Marks drawn into step images: the debug crosshair at a point, numbered boxes, and
 * filled rectangles. */
#ifndef WINAGENT_AUTOMATION_IMAGE_ANNOTATE_H
#define WINAGENT_AUTOMATION_IMAGE_ANNOTATE_H

#include <stdint.h>

#include "automation/image/image.h"

/* Draws the debug mark at pixel (x, y): a red crosshair with a small ring, and the
 * label (e.g. "(512,300)") in a built-in bitmap font on a contrasting box placed so
 * it stays inside the image. Points outside the image are clamped to its edge. */
void annotate_point(struct wa_image *img, int x, int y, const char *label);

/* Draws a numbered mark: a box outlining [left,right) x [top,bottom) (image pixels) and
 * the label on a tab at its top-left corner, kept inside the image. */
void annotate_box(struct wa_image *img, int left, int top, int right, int bottom,
                  const char *label);

/* Fills [left,right) x [top,bottom), clipped to the image, with 0xRRGGBB (opaque). */
void annotate_fill_rect(struct wa_image *img, int left, int top, int right, int bottom,
                        uint32_t rgb);

#endif
