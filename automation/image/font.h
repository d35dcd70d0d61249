/* A built-in 5x7 bitmap font for printable ASCII, for labels drawn into debug images. */
#ifndef WINAGENT_AUTOMATION_IMAGE_FONT_H
#define WINAGENT_AUTOMATION_IMAGE_FONT_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/image/image.h"

#define FONT_GLYPH_W 5 /* pixels, before scaling */
#define FONT_GLYPH_H 7
#define FONT_ADVANCE 6 /* glyph width plus one column of spacing */

/* Whether pixel (col, row) of c's glyph is inked. Characters outside printable ASCII
 * (32-126) are drawn as '?'; positions outside the glyph are blank. */
bool font_glyph_pixel(char c, int col, int row);

/* Size in pixels of text drawn at scale (each glyph pixel a scale x scale square):
 * FONT_ADVANCE * scale per character, without the spacing after the last one. */
int font_text_width(const char *text, int scale);
int font_text_height(int scale);

/* Draws text with its top-left corner at (x, y) in colour rgb (0xRRGGBB), in img's
 * channel order, alpha set opaque. Clipped to the image: anything outside is skipped. */
void font_draw_text(struct wa_image *img, int x, int y, const char *text, int scale, uint32_t rgb);

#endif
