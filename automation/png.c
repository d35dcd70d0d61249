/* PNG for observations: a fast screen-tuned encoder over zlib, lodepng as the reference
 * encoder and as the decoder. */
#include "automation/image.h"

#include <lodepng.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/os.h"

/* zlib's greedy matcher (level 1) with every position of a long match inserted into
 * the hash (max_lazy, which is the insert limit at this level, = 258). Without that,
 * flat text-heavy screens come out up to 1.9x larger than lodepng's; with it they are
 * smaller than lodepng's, for ~1.6x the time. memLevel 8 beats 9 on time (the smaller
 * hash table stays in cache). Chosen on Wine screenshots; tests/bench/bench_image.c
 * measures the result. */
#define ZLEVEL       1
#define ZMEM_LEVEL   8
#define ZGOOD_LENGTH 8
#define ZMAX_LAZY    258
#define ZNICE_LENGTH 32
#define ZMAX_CHAIN   16

/* Rows are filtered into a buffer of about this size before each call to deflate. */
#define CHUNK_BYTES (64 * 1024)

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
 * concatenate into one zlib stream: all but the last end with a sync flush (byte
 * aligned, not final), and their Adler-32 checksums are combined. */
struct band {
    const struct wa_image *img;
    const struct palette *pal; /* NULL: 8-bit RGB rows */
    int y0, y1;                /* rows [y0, y1) */
    bool last;
    uint8_t *out; /* heap, out_len bytes of raw deflate data */
    size_t out_len;
    uLong adler;   /* of the band's filtered bytes */
    size_t in_len; /* filtered bytes, for adler32_combine */
    bool failed;   /* out of memory, or zlib refused */
};

static size_t row_bytes(const struct wa_image *img, const struct palette *pal)
{
    if (pal)
        return ((size_t)img->width * (size_t)pal->bits + 7) / 8;
    return (size_t)img->width * 3;
}

/* Row y as PNG samples (RGB, or packed palette indexes) into dst. */
static void row_samples(const struct wa_image *img, const struct palette *pal, int y, uint8_t *dst)
{
    const uint8_t *s = img->px + (size_t)y * (size_t)img->width * 4;
    int w = img->width;
    if (!pal) {
        int r = img->bgra ? 2 : 0, b = img->bgra ? 0 : 2;
        for (int x = 0; x < w; x++, s += 4, dst += 3) {
            dst[0] = s[r];
            dst[1] = s[1];
            dst[2] = s[b];
        }
        return;
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
        return;
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
}

/* Picks a filter for cur (prev is the row above, or NULL) and writes the filter byte
 * and filtered row to dst. Rows equal to the one above go as Up (all zeros); RGB rows
 * where fewer than half the bytes repeat the pixel to their left (photos, gradients)
 * go as Sub; the rest (flat areas, text) as None, which deflate matches best on
 * screen content. Palette rows: Up or None. */
static void row_filter(const uint8_t *cur, const uint8_t *prev, size_t n, bool rgb, uint8_t *dst)
{
    if (prev && memcmp(cur, prev, n) == 0) {
        dst[0] = FILTER_UP;
        memset(dst + 1, 0, n);
        return;
    }
    if (rgb && n > 3) {
        size_t repeats = 0;
        for (size_t i = 3; i < n; i++)
            repeats += cur[i] == cur[i - 3];
        if (repeats * 2 < n) {
            dst[0] = FILTER_SUB;
            memcpy(dst + 1, cur, 3);
            for (size_t i = 3; i < n; i++)
                dst[1 + i] = (uint8_t)(cur[i] - cur[i - 3]);
            return;
        }
    }
    dst[0] = FILTER_NONE;
    memcpy(dst + 1, cur, n);
}

/* Gives deflate all of z's input, growing the output buffer when it runs out. Done when
 * the input is taken and, for a flush, all output written (deflate returned with room
 * to spare); for Z_FINISH, when the stream has ended. */
static bool band_deflate(struct band *b, z_stream *z, size_t *cap, int flush)
{
    for (;;) {
        if (z->avail_out == 0) {
            size_t ncap = *cap * 2;
            uint8_t *p = realloc(b->out, ncap);
            if (!p)
                return false;
            b->out = p;
            z->next_out = p + *cap;
            z->avail_out = (uInt)(ncap - *cap);
            *cap = ncap;
        }
        int rc = deflate(z, flush);
        if (rc == Z_STREAM_END)
            return true;
        if (rc != Z_OK && !(rc == Z_BUF_ERROR && z->avail_out == 0))
            return false;
        if (flush != Z_FINISH && z->avail_in == 0 && z->avail_out > 0)
            return true;
    }
}

static void band_encode(struct band *b)
{
    size_t n = row_bytes(b->img, b->pal);
    size_t rows = (size_t)(b->y1 - b->y0);
    size_t chunk_rows = CHUNK_BYTES / (n + 1) ? CHUNK_BYTES / (n + 1) : 1;
    uint8_t *prev = malloc(n), *cur = malloc(n), *chunk = malloc(chunk_rows * (n + 1));
    z_stream z;
    memset(&z, 0, sizeof z);
    bool z_open = false;
    b->failed = true;
    b->adler = adler32(0, NULL, 0);
    b->in_len = rows * (n + 1);
    if (!prev || !cur || !chunk)
        goto out;
    if (deflateInit2(&z, ZLEVEL, Z_DEFLATED, -15, ZMEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
        goto out;
    z_open = true;
    deflateTune(&z, ZGOOD_LENGTH, ZMAX_LAZY, ZNICE_LENGTH, ZMAX_CHAIN);
    /* Screens compress far better than 8:1; noise grows the buffer as it goes. */
    size_t cap = b->in_len / 8 + 1024;
    b->out = malloc(cap);
    if (!b->out)
        goto out;
    z.next_out = b->out;
    z.avail_out = (uInt)cap;

    bool have_prev = b->y0 > 0;
    if (have_prev)
        row_samples(b->img, b->pal, b->y0 - 1, prev);
    size_t used = 0;
    for (int y = b->y0; y < b->y1; y++) {
        row_samples(b->img, b->pal, y, cur);
        row_filter(cur, have_prev ? prev : NULL, n, !b->pal, chunk + used);
        used += n + 1;
        have_prev = true;
        uint8_t *t = prev;
        prev = cur;
        cur = t;
        bool end = y == b->y1 - 1;
        if (used + n + 1 > chunk_rows * (n + 1) || end) {
            b->adler = adler32(b->adler, chunk, (uInt)used);
            z.next_in = chunk;
            z.avail_in = (uInt)used;
            int flush = !end ? Z_NO_FLUSH : b->last ? Z_FINISH : Z_SYNC_FLUSH;
            if (!band_deflate(b, &z, &cap, flush))
                goto out;
            used = 0;
        }
    }
    b->out_len = (size_t)(z.next_out - b->out);
    b->failed = false;
out:
    if (z_open)
        deflateEnd(&z);
    free(prev);
    free(cur);
    free(chunk);
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

    size_t filtered = (row_bytes(img, pal) + 1) * (size_t)img->height;
    nbands = filtered >= SPLIT_MIN_BYTES && img->height >= MAX_BANDS ? MAX_BANDS : 1;
    for (int i = 0; i < nbands; i++) {
        struct band *b = &bands[i];
        b->img = img;
        b->pal = pal;
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
            e = wa_fail(WA_E_NOMEM, "PNG compression of a %dx%d image failed", img->width,
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
