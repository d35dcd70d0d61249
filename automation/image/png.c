/* PNG for observations: a fast screen-tuned encoder (its deflate in png_deflate.c, zlib
 * for the checksums), lodepng as the reference encoder and as the decoder. */
#include "automation/image/png.h"

#include <lodepng.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "automation/image/png_deflate.h"
#include "base/os.h"

/* Images with at least this much filtered data are cut into MAX_BANDS bands deflated on
 * two threads (the calling one and a helper): below it a thread costs more than it
 * saves. */
#define SPLIT_MIN_BYTES (256 * 1024)
#define MAX_BANDS       4

/* PNG filter types (PNG spec 9.2). */
enum { FILTER_NONE = 0, FILTER_SUB = 1, FILTER_UP = 2 };

/* Images of at most 256 colours are written as palette PNGs, 1 to 8 bits a pixel, as
 * lodepng does: a third of the bytes or less to deflate, so faster and smaller. */
#define PAL_SLOTS 1024 /* open addressing, at most a quarter full */

struct palette {
    int count;
    int bits;                /* 1, 2, 4 or 8 */
    uint32_t key[PAL_SLOTS]; /* pixel_key() + 1; 0 marks a free slot */
    uint8_t index[PAL_SLOTS];
    uint8_t rgb[256 * 3]; /* the PLTE chunk */
};

/* The first three bytes of a pixel (RGB or BGR) as one number; portable, and a single
 * load on little-endian machines. */
static inline uint32_t pixel_key(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static inline unsigned pal_slot(uint32_t key)
{
    return (key * 2654435761u) >> 22; /* Fibonacci hashing into 1024 slots */
}

static inline int pal_lookup(const struct palette *pal, uint32_t key)
{
    for (unsigned s = pal_slot(key);; s = (s + 1) & (PAL_SLOTS - 1))
        if (pal->key[s] == key + 1)
            return pal->index[s];
}

/* Collects img's colours; false as soon as there are more than 256. */
static bool palette_build(const struct wa_image *img, struct palette *pal)
{
    memset(pal->key, 0, sizeof pal->key);
    pal->count = 0;
    size_t n = (size_t)img->width * (size_t)img->height;
    uint32_t last = pixel_key(img->px) + 1; /* differs from the first pixel */
    for (size_t i = 0; i < n; i++) {
        uint32_t key = pixel_key(img->px + i * 4);
        if (key == last)
            continue;
        last = key;
        unsigned s = pal_slot(key);
        while (pal->key[s] && pal->key[s] != key + 1)
            s = (s + 1) & (PAL_SLOTS - 1);
        if (pal->key[s])
            continue;
        if (pal->count == 256)
            return false;
        pal->key[s] = key + 1;
        pal->index[s] = (uint8_t)pal->count;
        const uint8_t *p = img->px + i * 4;
        uint8_t *c = pal->rgb + pal->count * 3;
        c[0] = img->bgra ? p[2] : p[0];
        c[1] = p[1];
        c[2] = img->bgra ? p[0] : p[2];
        pal->count++;
    }
    pal->bits = pal->count <= 2 ? 1 : pal->count <= 4 ? 2 : pal->count <= 16 ? 4 : 8;
    return true;
}

/* One horizontal band of the image, deflated into its own raw deflate stream. Bands
 * concatenate into one zlib stream: all but the last end byte aligned and not final,
 * and their Adler-32 checksums are combined. */
struct band {
    const struct wa_image *img;
    const struct palette *pal; /* NULL: 8-bit RGB rows */
    uint8_t *filtered;         /* the band's rows, filtered, each with its filter byte */
    int y0, y1;                /* rows [y0, y1) */
    bool last;
    uint8_t *out; /* heap, out_len bytes of raw deflate data */
    size_t out_len;
    uLong adler;   /* of the band's filtered bytes */
    size_t in_len; /* filtered bytes, for adler32_combine */
    bool failed;   /* out of memory */
};

static size_t row_bytes(const struct wa_image *img, const struct palette *pal)
{
    if (pal)
        return ((size_t)img->width * (size_t)pal->bits + 7) / 8;
    return (size_t)img->width * 3;
}

/* Row y as PNG samples (RGB, or packed palette indexes) into dst. Returns, for RGB
 * rows, how many pixels repeat the one to their left (0 for palette rows). */
static size_t row_samples(const struct wa_image *img, const struct palette *pal, int y,
                          uint8_t *dst)
{
    const uint8_t *s = img->px + (size_t)y * (size_t)img->width * 4;
    int w = img->width;
    if (!pal) {
        size_t repeats = 0;
        uint32_t last = pixel_key(s) + 1;
        int x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* BGRA: bytes 0 and 2 of each pixel swapped (swap is 0 for RGBA) */
        const uint64_t keep = img->bgra ? 0x0000ff000000ff00u : 0x00ffffff00ffffffu;
        const uint64_t swap = img->bgra ? 0x000000ff000000ffu : 0;
#if defined(__SSE2__)
        /* Four pixels at a time, as the pairs below in each half of the register, the
         * halves then joined; 16 bytes stored of which the last 4 are written again by
         * the next pixels: hence at least two pixels left after each four. */
        static const uint8_t ones[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
        const __m128i vkeep = _mm_set1_epi64x((long long)keep);
        const __m128i vswap = _mm_set1_epi64x((long long)swap);
        const __m128i low3 = _mm_set1_epi32(0x00ffffff);
        const __m128i low8 = _mm_set_epi64x(0, -1);
        __m128i left_of_first = _mm_cvtsi32_si128((int)last);
        for (; x + 6 <= w; x += 4, s += 16, dst += 12) {
            __m128i v = _mm_loadu_si128((const __m128i *)s);
            __m128i keys = _mm_and_si128(v, low3);
            __m128i left = _mm_or_si128(_mm_slli_si128(keys, 4), left_of_first);
            repeats += ones[_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(keys, left)))];
            left_of_first = _mm_srli_si128(keys, 12);
            v = _mm_or_si128(
                _mm_or_si128(_mm_and_si128(v, vkeep), _mm_slli_epi64(_mm_and_si128(v, vswap), 16)),
                _mm_and_si128(_mm_srli_epi64(v, 16), vswap));
            __m128i pairs = _mm_or_si128(
                _mm_and_si128(v, _mm_set1_epi64x(0xffffff)),
                _mm_srli_epi64(_mm_and_si128(v, _mm_set1_epi64x(0xffffff00000000)), 8));
            _mm_storeu_si128((__m128i *)dst,
                             _mm_or_si128(_mm_and_si128(pairs, low8),
                                          _mm_srli_si128(_mm_andnot_si128(low8, pairs), 2)));
        }
        last = (uint32_t)_mm_cvtsi128_si32(left_of_first);
#endif
        /* Two pixels at a time, stored as 8 bytes of which the last 2 are written again
         * by the next pixel: hence at least one pixel left after each pair. */
        for (; x + 3 <= w; x += 2, s += 8, dst += 6) {
            uint64_t u;
            memcpy(&u, s, 8);
            uint32_t k0 = (uint32_t)u & 0xffffff, k1 = (uint32_t)(u >> 32) & 0xffffff;
            repeats += (size_t)(k0 == last) + (k1 == k0);
            last = k1;
            u = (u & keep) | (u & swap) << 16 | (u >> 16 & swap);
            uint64_t rgb = (u & 0xffffffu) | (u >> 8 & 0xffffff000000u);
            memcpy(dst, &rgb, 8);
        }
#endif
        for (; x < w; x++, s += 4, dst += 3) {
            uint32_t key = pixel_key(s);
            repeats += key == last;
            last = key;
            if (img->bgra)
                key = (key & 0xff) << 16 | (key & 0xff00) | key >> 16;
            dst[0] = (uint8_t)key;
            dst[1] = (uint8_t)(key >> 8);
            dst[2] = (uint8_t)(key >> 16);
        }
        return repeats;
    }
    if (pal->bits == 8) {
        uint32_t last = pixel_key(s) + 1;
        uint8_t idx = 0;
        for (int x = 0; x < w; x++, s += 4) {
            uint32_t key = pixel_key(s);
            if (key != last) {
                last = key;
                idx = (uint8_t)pal_lookup(pal, key);
            }
            dst[x] = idx;
        }
        return 0;
    }
    int bits = pal->bits, per_byte = 8 / bits;
    memset(dst, 0, ((size_t)w * (size_t)bits + 7) / 8);
    uint32_t last = pixel_key(s) + 1;
    int idx = 0;
    for (int x = 0; x < w; x++, s += 4) {
        uint32_t key = pixel_key(s);
        if (key != last) {
            last = key;
            idx = pal_lookup(pal, key);
        }
        int shift = 8 - bits * (x % per_byte + 1); /* leftmost pixel in the high bits */
        dst[x / per_byte] |= (uint8_t)(idx << shift);
    }
    return 0;
}

/* Whether row y's pixels are those of the row above, alpha aside: asked of the pixels,
 * so that such a row needs no samples made. Four pixels a compare with SSE2, else two
 * on little-endian machines. */
static bool row_repeats_above(const struct wa_image *img, int y)
{
    size_t w = (size_t)img->width;
    const uint8_t *a = img->px + (size_t)y * w * 4, *b = a - w * 4;
    size_t x = 0;
#if defined(__SSE2__)
    for (; x + 4 <= w; x += 4, a += 16, b += 16) {
        __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)a),
                                    _mm_loadu_si128((const __m128i *)b));
        if ((_mm_movemask_epi8(eq) | 0x8888) != 0xffff)
            return false;
    }
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; x + 2 <= w; x += 2, a += 8, b += 8) {
        uint64_t u, v;
        memcpy(&u, a, 8);
        memcpy(&v, b, 8);
        if ((u ^ v) & 0x00ffffff00ffffffu)
            return false;
    }
#endif
    for (; x < w; x++, a += 4, b += 4)
        if (pixel_key(a) != pixel_key(b))
            return false;
    return true;
}

/* Filters the band's rows into b->filtered. Rows equal to the one above go as Up (all
 * zeros: a run, as cheap to send as any match, where a match with the row above would
 * cost ten extra bits for every 258 bytes); RGB rows where fewer than half the pixels
 * repeat the one to their left (photos, gradients) go as Sub; the rest (flat areas,
 * text) as None, which png_deflate matches best on screen content. Palette rows: Up or
 * None. */
static void band_filter(struct band *b, size_t n)
{
    uint8_t *dst = b->filtered;
    for (int y = b->y0; y < b->y1; y++, dst += n + 1) {
        uint8_t *cur = dst + 1;
        if (y > 0 && row_repeats_above(b->img, y)) {
            dst[0] = FILTER_UP;
            memset(cur, 0, n);
            continue;
        }
        size_t repeats = row_samples(b->img, b->pal, y, cur);
        dst[0] = FILTER_NONE;
        if (!b->pal && repeats * 2 < (size_t)b->img->width) {
            dst[0] = FILTER_SUB;
            for (size_t i = n - 1; i >= 3; i--) /* from the right: in place */
                cur[i] = (uint8_t)(cur[i] - cur[i - 3]);
        }
    }
}

static void band_encode(struct band *b)
{
    size_t n = row_bytes(b->img, b->pal);
    b->in_len = (size_t)(b->y1 - b->y0) * (n + 1);
    band_filter(b, n);
    b->adler = png_adler32(1, b->filtered, b->in_len);
    b->failed = png_deflate(b->filtered, b->in_len, n + 1, b->pal ? 1 : 3, b->last, &b->out,
                            &b->out_len) != WA_E_OK;
}

static void band_piece(void *ctx, int i)
{
    band_encode(&((struct band *)ctx)[i]);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Appends a chunk whose data is the concatenation of parts. */
static wa_err add_chunk(struct dynbuf *out, const char *type, const uint8_t *const *parts,
                        const size_t *lens, int nparts)
{
    size_t len = 0;
    for (int i = 0; i < nparts; i++)
        len += lens[i];
    if (len > 0x7fffffff)
        return wa_fail(WA_E_TOO_LARGE, "PNG chunk of %zu bytes", len);
    uint8_t head[8];
    put_be32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0, head + 4, 4);
    wa_err e = dynbuf_add(out, head, 8);
    for (int i = 0; i < nparts && !e; i++) {
        crc = crc32(crc, parts[i], (uInt)lens[i]);
        e = dynbuf_add(out, parts[i], lens[i]);
    }
    if (e)
        return e;
    uint8_t tail[4];
    put_be32(tail, (uint32_t)crc);
    return dynbuf_add(out, tail, 4);
}

wa_err png_encode(const struct wa_image *img, struct dynbuf *out)
{
    if (!img->px || img->width <= 0 || img->height <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "PNG of an empty image");
    size_t start = out->len;
    struct palette *pal = malloc(sizeof *pal);
    struct band bands[MAX_BANDS] = {0};
    struct wa_image scratch = {0};
    int nbands = 0;
    wa_err e = WA_E_OK;
    if (!pal) {
        e = wa_fail(WA_E_NOMEM, "out of memory");
        goto out;
    }
    if (!palette_build(img, pal)) {
        free(pal);
        pal = NULL;
    }

    /* The filtered rows, in a buffer from the image pool (shaped as an image of a row's
     * bytes a row): a fresh 2.8 MB buffer costs ~0.8 ms of page faults under Wine. */
    size_t stride = row_bytes(img, pal) + 1, filtered = stride * (size_t)img->height;
    if ((e = image_alloc_raw(&scratch, (int)((stride + 3) / 4), img->height, false)))
        goto out;
    nbands = filtered >= SPLIT_MIN_BYTES && img->height >= MAX_BANDS ? MAX_BANDS : 1;
    for (int i = 0; i < nbands; i++) {
        struct band *b = &bands[i];
        b->img = img;
        b->pal = pal;
        b->filtered = scratch.px + (size_t)(img->height * i / nbands) * stride;
        b->y0 = img->height * i / nbands;
        b->y1 = img->height * (i + 1) / nbands;
        b->last = i == nbands - 1;
    }
    os_run_pieces(nbands, band_piece, bands);

    const uint8_t *parts[MAX_BANDS + 2];
    size_t lens[MAX_BANDS + 2];
    static const uint8_t zhead[2] = {0x78, 0x01}; /* deflate, 32K window, fastest */
    parts[0] = zhead;
    lens[0] = 2;
    uLong adler = bands[0].adler;
    for (int i = 0; i < nbands; i++) {
        const struct band *b = &bands[i];
        if (b->failed) {
            e = wa_fail(WA_E_NOMEM, "out of memory for the PNG of a %dx%d image", img->width,
                        img->height);
            goto out;
        }
        if (i > 0)
            adler = adler32_combine(adler, b->adler, (z_off_t)b->in_len);
        parts[1 + i] = b->out;
        lens[1 + i] = b->out_len;
    }
    uint8_t ztail[4];
    put_be32(ztail, (uint32_t)adler);
    parts[1 + nbands] = ztail;
    lens[1 + nbands] = 4;

    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put_be32(ihdr, (uint32_t)img->width);
    put_be32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = pal ? (uint8_t)pal->bits : 8;
    ihdr[9] = pal ? 3 : 2; /* colour type: palette, or RGB */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;

    /* Every chunk is 12 bytes around its data; IDAT's size is known now. */
    size_t total =
        sizeof signature + 12 + sizeof ihdr + (pal ? 12 + (size_t)pal->count * 3 : 0) + 12 + 12;
    for (int i = 0; i < nbands + 2; i++)
        total += lens[i];
    e = dynbuf_reserve(out, total);
    if (!e)
        e = dynbuf_add(out, signature, 8);
    if (!e)
        e = add_chunk(out, "IHDR", (const uint8_t *const[]){ihdr}, (size_t[]){13}, 1);
    if (!e && pal)
        e = add_chunk(out, "PLTE", (const uint8_t *const[]){pal->rgb},
                      (size_t[]){(size_t)pal->count * 3}, 1);
    if (!e)
        e = add_chunk(out, "IDAT", parts, lens, nbands + 2);
    if (!e)
        e = add_chunk(out, "IEND", NULL, NULL, 0);
out:
    if (e)
        dynbuf_truncate(out, start); /* leave out as it was */
    for (int i = 0; i < nbands; i++)
        free(bands[i].out);
    image_cleanup(&scratch);
    free(pal);
    return e;
}

wa_err png_encode_reference(const struct wa_image *img, struct dynbuf *out)
{
    if (!img->px || img->width <= 0 || img->height <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "PNG of an empty image");
    size_t n = (size_t)img->width * (size_t)img->height;
    uint8_t *rgb = malloc(n * 3);
    if (!rgb)
        return wa_fail(WA_E_NOMEM, "out of memory");
    int r = img->bgra ? 2 : 0, b = img->bgra ? 0 : 2;
    for (size_t i = 0; i < n; i++) {
        rgb[i * 3] = img->px[i * 4 + r];
        rgb[i * 3 + 1] = img->px[i * 4 + 1];
        rgb[i * 3 + 2] = img->px[i * 4 + b];
    }
    unsigned char *png = NULL;
    size_t len = 0;
    unsigned rc = lodepng_encode24(&png, &len, rgb, (unsigned)img->width, (unsigned)img->height);
    free(rgb);
    wa_err e =
        rc ? wa_fail(WA_E_NOMEM, "lodepng: %s", lodepng_error_text(rc)) : dynbuf_add(out, png, len);
    free(png);
    return e;
}

wa_err png_decode(const void *data, size_t len, struct wa_image *out)
{
    out->width = 0;
    out->height = 0;
    out->px = NULL;
    out->bgra = false;
    unsigned w = 0, h = 0;
    LodePNGState state;
    lodepng_state_init(&state);
    unsigned rc = lodepng_inspect(&w, &h, &state, data, len);
    lodepng_state_cleanup(&state);
    if (rc)
        return wa_fail(WA_E_PARSE, "not a PNG: %s", lodepng_error_text(rc));
    /* Refuse before allocating: a hostile header can claim any size. */
    if (w == 0 || h == 0 || w > 32768 || h > 32768 || (uint64_t)w * h > 64u * 1024 * 1024)
        return wa_fail(WA_E_TOO_LARGE, "PNG of %ux%u pixels", w, h);
    unsigned char *px = NULL;
    rc = lodepng_decode32(&px, &w, &h, data, len);
    if (rc) {
        free(px);
        return wa_fail(WA_E_PARSE, "bad PNG: %s", lodepng_error_text(rc));
    }
    /* lodepng allocates with malloc (documented: free the result with free()), so
     * the pixels are adopted as they are. */
    out->width = (int)w;
    out->height = (int)h;
    out->px = px;
    return WA_E_OK;
}
