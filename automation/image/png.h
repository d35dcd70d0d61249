/* PNG for observations: a fast encoder tuned for screen content, the reference
 * encoder, and the decoder. */
#ifndef WINAGENT_AUTOMATION_IMAGE_PNG_H
#define WINAGENT_AUTOMATION_IMAGE_PNG_H

#include <stddef.h>

#include "automation/image/image.h"
#include "base/dynbuf.h"
#include "base/wa_err.h"

/* Appends a PNG of img (8-bit RGB, alpha dropped) to out. Tuned for speed on screen
 * content: a cheap filter and fast deflate, at most ~1.3x the size of a thorough
 * encoder's output. */
wa_err png_encode(const struct wa_image *img, struct dynbuf *out);

/* The reference encoder (lodepng with its default settings), for the benchmark and
 * for tests that compare. */
wa_err png_encode_reference(const struct wa_image *img, struct dynbuf *out);

/* Decodes a PNG file's bytes into an RGBA image (tests, replay, the fake backend). */
wa_err png_decode(const void *data, size_t len, struct wa_image *out);

#endif
