/* Deflate (RFC 1951) for PNG's filtered rows, made for screen content: matches only
 * where screens repeat themselves, and dynamic Huffman codes. */
#ifndef WINAGENT_AUTOMATION_IMAGE_PNG_DEFLATE_H
#define WINAGENT_AUTOMATION_IMAGE_PNG_DEFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wa_err.h"

/* Compresses data[0, len) into raw deflate blocks in *out (heap, out_len bytes; the
 * caller frees it; NULL on failure). Matches are looked for at distance bpp (the pixel
 * to the left: a run of one colour), at distance stride (the row above: stride is a
 * filtered row with its filter byte) and where the same four bytes were last seen
 * (within 32 KB: a glyph or an icon drawn before); none reaches before data.
 * final: the stream ends with these blocks (the last is marked final, the bits padded
 * to a byte); otherwise they end with an empty stored block, byte aligned, as zlib's
 * sync flush ends, so that another stream's blocks can follow them. WA_E_NOMEM when
 * out of memory. */
wa_err png_deflate(const uint8_t *data, size_t len, size_t stride, size_t bpp, bool final,
                   uint8_t **out, size_t *out_len);

/* The Adler-32 checksum (RFC 1950) of data[0, len) continued from adler (1 to start),
 * as zlib's adler32() computes it; with SSE2 several times faster. */
uint32_t png_adler32(uint32_t adler, const uint8_t *data, size_t len);

#endif
