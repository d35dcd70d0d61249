/* Pixel image storage, fitting, downscaling, comparing and pixel reads. */
#include "automation/image/image.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"

#include "automation/image/stb_resize.h"

/* SSE2 is in every x86-64 processor; elsewhere the same arithmetic in plain C. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define DOWNSCALE_SSE2 1
#else
#define DOWNSCALE_SSE2 0
#endif

/* Far above any monitor, far below where width*height*4 could overflow. */
#define IMAGE_MAX_SIDE 32768

/* Freed pixel buffers kept for reuse. Measured under Wine: copying a 1920x1080 capture
 * out took 2.8 ms into a fresh buffer and 0.3 ms into one written before; a 906x684
 * window's capture took 8 ms into a fresh one on a loaded day. The pool holds at most
 * POOL_SLOTS buffers and POOL_MAX_BYTES in all; a buffer is taken for an image of at
 * least half its size. When it is full, the buffer given back longest ago makes room:
 * the sizes of the last images are the sizes of the next (a window's captures between
 * two of the screen), which a pool that kept the largest buffers would never hold.
 * Off under AddressSanitizer, whose use-after-free checks reuse would blind. */
#define POOL_SLOTS     8
#define POOL_MIN_BYTES (1u << 20)
#define POOL_MAX_BYTES (96u << 20)

#if defined(__SANITIZE_ADDRESS__)
#define POOL_ON 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ON 0
#endif
#endif
#ifndef POOL_ON
#define POOL_ON 1
#endif

static struct {
    uint8_t *px;
    size_t bytes;
    uint64_t given; /* when it was given back, in gives */
} pool[POOL_SLOTS];
static size_t pool_bytes;
static uint64_t pool_gives;
static atomic_flag pool_lock = ATOMIC_FLAG_INIT;

static void pool_enter(void)
{
    while (atomic_flag_test_and_set_explicit(&pool_lock, memory_order_acquire))
        os_sleep_ms(0);
}

static void pool_leave(void)
{
    atomic_flag_clear_explicit(&pool_lock, memory_order_release);
}

/* The smallest kept buffer of at least bytes (and at most twice that), or NULL. */
static uint8_t *pool_take(size_t bytes)
{
    if (!POOL_ON || bytes < POOL_MIN_BYTES)
        return NULL;
    pool_enter();
    int best = -1;
    for (int i = 0; i < POOL_SLOTS; i++)
        if (pool[i].px && pool[i].bytes >= bytes && pool[i].bytes / 2 <= bytes &&
            (best < 0 || pool[i].bytes < pool[best].bytes))
            best = i;
    uint8_t *px = NULL;
    if (best >= 0) {
        px = pool[best].px;
        pool_bytes -= pool[best].bytes;
        pool[best].px = NULL;
    }
    pool_leave();
    return px;
}

/* The slot to put a buffer in: a free one, else the one given back longest ago. */
static int pool_slot_to_fill(void)
{
    int slot = 0;
    for (int i = 0; i < POOL_SLOTS; i++) {
        if (!pool[i].px)
            return i;
        if (pool[i].given < pool[slot].given)
            slot = i;
    }
    return slot;
}

/* Keeps px (of bytes) in place of the buffers given back longest ago, as many as it
 * takes to stay within POOL_MAX_BYTES; frees what is not kept. */
static void pool_give(uint8_t *px, size_t bytes)
{
    if (!POOL_ON || bytes < POOL_MIN_BYTES || bytes > POOL_MAX_BYTES) {
        free(px);
        return;
    }
    uint8_t *out[POOL_SLOTS + 1];
    int n = 0;
    pool_enter();
    int slot = pool_slot_to_fill();
    for (;;) {
        if (pool[slot].px) {
            out[n++] = pool[slot].px;
            pool_bytes -= pool[slot].bytes;
            pool[slot].px = NULL;
        }
        if (pool_bytes + bytes <= POOL_MAX_BYTES)
            break;
        int oldest = -1; /* another buffer must go too */
        for (int i = 0; i < POOL_SLOTS; i++)
            if (pool[i].px && (oldest < 0 || pool[i].given < pool[oldest].given))
                oldest = i;
        if (oldest < 0)
            break;
        out[n++] = pool[oldest].px;
        pool_bytes -= pool[oldest].bytes;
        pool[oldest].px = NULL;
    }
    pool[slot].px = px;
    pool[slot].bytes = bytes;
    pool[slot].given = ++pool_gives;
    pool_bytes += bytes;
    pool_leave();
    for (int i = 0; i < n; i++) /* outside the lock: freeing a large block is a system call */
        free(out[i]);
}

size_t image_pool_bytes(void)
{
    pool_enter();
    size_t bytes = pool_bytes;
    pool_leave();
    return bytes;
}

static wa_err alloc_pixels(struct wa_image *img, int width, int height, bool bgra, bool zero)
{
    img->width = 0;
    img->height = 0;
    img->px = NULL;
    img->bgra = bgra;
    if (width <= 0 || height <= 0 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE)
        return wa_fail(WA_E_INVALID_ARGS, "bad image size %dx%d", width, height);
    size_t bytes = (size_t)width * (size_t)height * 4;
    img->px = pool_take(bytes);
    if (img->px && zero)
        memset(img->px, 0, bytes);
    else if (!img->px)
        img->px = zero ? calloc(bytes, 1) : malloc(bytes);
    if (!img->px)
        return wa_fail(WA_E_NOMEM, "cannot allocate a %dx%d image", width, height);
    img->width = width;
    img->height = height;
    return WA_E_OK;
}

wa_err image_alloc(struct wa_image *img, int width, int height, bool bgra)
{
    return alloc_pixels(img, width, height, bgra, true);
}

wa_err image_alloc_raw(struct wa_image *img, int width, int height, bool bgra)
{
    return alloc_pixels(img, width, height, bgra, false);
}

void image_cleanup(struct wa_image *img)
{
    if (img->px)
        pool_give(img->px, (size_t)img->width * (size_t)img->height * 4);
    img->px = NULL;
    img->width = 0;
    img->height = 0;
}

/* max_edge <= 0 means no limit. The short edge is rounded to nearest, never below 1. */
void image_fit(int width, int height, int max_edge, int *out_w, int *out_h)
{
    *out_w = width;
    *out_h = height;
    if (max_edge <= 0 || (width <= max_edge && height <= max_edge))
        return;
    if (width >= height) {
        *out_w = max_edge;
        *out_h = (int)(((int64_t)height * max_edge + width / 2) / width);
    } else {
        *out_h = max_edge;
        *out_w = (int)(((int64_t)width * max_edge + height / 2) / height);
    }
    if (*out_w < 1)
        *out_w = 1;
    if (*out_h < 1)
        *out_h = 1;
}

int image_edge_within(int width, int height, int max_edge, long max_pixels, int max_short)
{
    int edge = width > height ? width : height;
    if (max_edge > 0 && edge > max_edge)
        edge = max_edge;
    for (; edge > 1; edge--) {
        int w, h;
        image_fit(width, height, edge, &w, &h);
        if ((max_pixels <= 0 || (long)w * h <= max_pixels) &&
            (max_short <= 0 || (w < h ? w : h) <= max_short))
            break;
    }
    return edge;
}

/* 3 source rows (sums of 3 rows, 16 bits a channel) -> 2 destination pixels for every
 * 3 source ones, weights (2,1) and (1,2), rounded, over 9: sw source bytes into d. */
static void columns_2_3(const uint16_t *r, size_t sw, uint8_t *d)
{
    size_t sx = 0, dx = 0;
#if DOWNSCALE_SSE2
    /* Four channels of two pixels in a register: [P0 P1] + [P1 P2] + [P0 P2] is
     * [2*P0+P1, P1+2*P2]. x/9 for x <= 2299 is exactly (x * 7282) >> 16. */
    const __m128i four = _mm_set1_epi16(4), ninth = _mm_set1_epi16(7282);
    for (; sx + 24 <= sw; sx += 24, dx += 16) {
        __m128i s0 =
            _mm_add_epi16(_mm_add_epi16(_mm_loadu_si128((const __m128i *)(r + sx)),
                                        _mm_loadu_si128((const __m128i *)(r + sx + 4))),
                          _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(r + sx)),
                                             _mm_loadl_epi64((const __m128i *)(r + sx + 8))));
        __m128i s1 =
            _mm_add_epi16(_mm_add_epi16(_mm_loadu_si128((const __m128i *)(r + sx + 12)),
                                        _mm_loadu_si128((const __m128i *)(r + sx + 16))),
                          _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(r + sx + 12)),
                                             _mm_loadl_epi64((const __m128i *)(r + sx + 20))));
        s0 = _mm_mulhi_epu16(_mm_add_epi16(s0, four), ninth);
        s1 = _mm_mulhi_epu16(_mm_add_epi16(s1, four), ninth);
        _mm_storeu_si128((__m128i *)(d + dx), _mm_packus_epi16(s0, s1));
    }
#endif
    for (; sx < sw; sx += 12, dx += 8)
        for (size_t ch = 0; ch < 4; ch++) {
            size_t p = sx + ch;
            d[dx + ch] = (uint8_t)((2 * r[p] + r[p + 4] + 4) / 9);
            d[dx + 4 + ch] = (uint8_t)((r[p + 4] + 2 * r[p + 8] + 4) / 9);
        }
}

/* Exact 2:3 reduction (1920x1080 -> 1280x720, the most common case): every 3x3 block
 * of source pixels becomes 2x2, each destination pixel the area-weighted mean of the
 * source pixels it covers (weights 4,2,2,1 over 9). The same result as stb's box
 * filter, in fixed point, ~10x faster, and with SSE2 ~3x faster again. Destination row
 * pairs [p0, p1). */
static void downscale_2_3(const struct wa_image *src, struct wa_image *dst, uint16_t *rows, int p0,
                          int p1)
{
    size_t sw = (size_t)src->width * 4, dw = (size_t)dst->width * 4;
    uint16_t *r0 = rows, *r1 = rows + sw;
    for (int by = p0; by < p1; by++) {
        const uint8_t *a = src->px + (size_t)by * 3 * sw, *b = a + sw, *c = b + sw;
        size_t i = 0;
#if DOWNSCALE_SSE2
        const __m128i zero = _mm_setzero_si128();
        for (; i + 16 <= sw; i += 16) { /* 3 rows -> 2, weights (2,1) and (1,2) */
            __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
            __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
            __m128i vc = _mm_loadu_si128((const __m128i *)(c + i));
            __m128i alo = _mm_unpacklo_epi8(va, zero), ahi = _mm_unpackhi_epi8(va, zero);
            __m128i blo = _mm_unpacklo_epi8(vb, zero), bhi = _mm_unpackhi_epi8(vb, zero);
            __m128i clo = _mm_unpacklo_epi8(vc, zero), chi = _mm_unpackhi_epi8(vc, zero);
            _mm_storeu_si128((__m128i *)(r0 + i), _mm_add_epi16(_mm_add_epi16(alo, alo), blo));
            _mm_storeu_si128((__m128i *)(r0 + i + 8), _mm_add_epi16(_mm_add_epi16(ahi, ahi), bhi));
            _mm_storeu_si128((__m128i *)(r1 + i), _mm_add_epi16(_mm_add_epi16(clo, clo), blo));
            _mm_storeu_si128((__m128i *)(r1 + i + 8), _mm_add_epi16(_mm_add_epi16(chi, chi), bhi));
        }
#endif
        for (; i < sw; i++) {
            r0[i] = (uint16_t)(2 * a[i] + b[i]);
            r1[i] = (uint16_t)(b[i] + 2 * c[i]);
        }
        uint8_t *d0 = dst->px + (size_t)by * 2 * dw;
        columns_2_3(r0, sw, d0);
        columns_2_3(r1, sw, d0 + dw);
    }
}

/* Exact 1:n reduction (2560x1440 or 3840x2160 -> 1280x720): the mean of each n x n
 * block. n source rows are summed first (a simple loop over bytes), then n pixels.
 * Inlined for each n so the inner loops have constant bounds. Destination rows
 * [y0, y1). */
static inline void downscale_1_n(const struct wa_image *src, struct wa_image *dst, const int n,
                                 uint16_t *acc, int y0, int y1)
{
    size_t sw = (size_t)src->width * 4, dw = (size_t)dst->width * 4;
    const unsigned area = (unsigned)(n * n), half = area / 2;
    for (int y = y0; y < y1; y++) {
        const uint8_t *s = src->px + (size_t)y * (size_t)n * sw;
        for (size_t i = 0; i < sw; i++)
            acc[i] = s[i];
        for (int k = 1; k < n; k++) {
            s += sw;
            for (size_t i = 0; i < sw; i++)
                acc[i] = (uint16_t)(acc[i] + s[i]);
        }
        uint8_t *d = dst->px + (size_t)y * dw;
        const uint16_t *a = acc;
        for (size_t dx = 0; dx < dw; dx += 4, a += 4 * n)
            for (int ch = 0; ch < 4; ch++) {
                unsigned sum = 0;
                for (int j = 0; j < n; j++)
                    sum += a[j * 4 + ch];
                d[dx + (size_t)ch] = (uint8_t)((sum + half) / area);
            }
    }
}

/* A whole-ratio reduction cut into horizontal pieces for os_run_pieces: a 1920x1080
 * screen takes ~1.2-1.8 ms at 2:3 on one core under Wine (memory-bound: two threads
 * take ~1.0-1.3), ~3.5 ms before the 2:3 path used SSE2. */
#define SCALE_PIECES    8
#define SCALE_SPLIT_MIN (256 * 1024) /* destination pixels; below, one thread */

struct scale_job {
    const struct wa_image *src;
    struct wa_image *dst;
    int n;     /* 1:n reduction; 0: 2:3 */
    int units; /* destination row pairs (2:3) or rows (1:n) */
    int pieces;
    atomic_bool failed; /* a piece could not get its scratch rows */
};

static void scale_piece(void *ctx, int i)
{
    struct scale_job *j = ctx;
    int u0 = j->units * i / j->pieces, u1 = j->units * (i + 1) / j->pieces;
    size_t sw = (size_t)j->src->width * 4;
    uint16_t *scratch = malloc(sw * 2 * sizeof *scratch);
    if (!scratch) {
        atomic_store(&j->failed, true);
        return;
    }
    if (j->n == 0)
        downscale_2_3(j->src, j->dst, scratch, u0, u1);
    else if (j->n == 2)
        downscale_1_n(j->src, j->dst, 2, scratch, u0, u1);
    else if (j->n == 3)
        downscale_1_n(j->src, j->dst, 3, scratch, u0, u1);
    else
        downscale_1_n(j->src, j->dst, 4, scratch, u0, u1);
    free(scratch);
}

/* The whole-ratio reductions (2:3, 1:2, 1:3, 1:4); false when the sizes are none. */
static bool whole_ratio(const struct wa_image *src, const struct wa_image *dst, int *n)
{
    int sw = src->width, sh = src->height, dw = dst->width, dh = dst->height;
    if (sw % 3 == 0 && sh % 3 == 0 && dw == sw / 3 * 2 && dh == sh / 3 * 2) {
        *n = 0;
        return true;
    }
    for (*n = 2; *n <= 4; (*n)++)
        if (sw == dw * *n && sh == dh * *n)
            return true;
    return false;
}

/* The fast paths cover whole-ratio reductions; any other size goes through stb's box
 * filter (area averaging, like the fast paths: text stays crisper than with its default
 * Mitchell filter, and it is faster). */
static wa_err resample(const struct wa_image *src, struct wa_image *dst)
{
    int sw = src->width, sh = src->height, dw = dst->width, dh = dst->height;
    struct scale_job job = {.src = src, .dst = dst};
    if (whole_ratio(src, dst, &job.n)) {
        job.units = job.n ? dh : dh / 2;
        job.pieces = (size_t)dw * (size_t)dh >= SCALE_SPLIT_MIN ? SCALE_PIECES : 1;
        atomic_init(&job.failed, false);
        os_run_pieces(job.pieces, scale_piece, &job);
        if (atomic_load(&job.failed))
            return wa_fail(WA_E_NOMEM, "out of memory");
        return WA_E_OK;
    }
    /* Channels are filtered independently (no alpha weighting), so BGRA stays BGRA. */
    if (!stbir_resize_uint8_generic(src->px, sw, sh, sw * 4, dst->px, dw, dh, dw * 4, 4,
                                    STBIR_ALPHA_CHANNEL_NONE, 0, STBIR_EDGE_CLAMP, STBIR_FILTER_BOX,
                                    STBIR_COLORSPACE_LINEAR, NULL))
        return wa_fail(WA_E_NOMEM, "cannot downscale %dx%d to %dx%d", sw, sh, dw, dh);
    return WA_E_OK;
}

wa_err image_downscale(const struct wa_image *src, int max_edge, struct wa_image *dst)
{
    dst->width = 0;
    dst->height = 0;
    dst->px = NULL;
    dst->bgra = src->bgra;
    if (!src->px || src->width <= 0 || src->height <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "downscale of an empty image");
    int w, h;
    image_fit(src->width, src->height, max_edge, &w, &h);
    wa_err e = image_alloc_raw(dst, w, h, src->bgra);
    if (e)
        return e;
    if (w == src->width && h == src->height)
        memcpy(dst->px, src->px, (size_t)w * (size_t)h * 4);
    else if ((e = resample(src, dst)))
        image_cleanup(dst);
    return e;
}

/* Out-of-range points read as black. */
uint32_t image_pixel_rgb(const struct wa_image *img, int x, int y)
{
    if (!img->px || x < 0 || y < 0 || x >= img->width || y >= img->height)
        return 0;
    const uint8_t *p = img->px + ((size_t)y * (size_t)img->width + (size_t)x) * 4;
    uint32_t r = img->bgra ? p[2] : p[0];
    uint32_t g = p[1];
    uint32_t b = img->bgra ? p[0] : p[2];
    return r << 16 | g << 8 | b;
}

bool image_changed(const struct wa_image *a, const struct wa_image *b, struct wa_rect *box)
{
    struct wa_rect none = {0, 0, 0, 0};
    if (box)
        *box = none;
    if (!a->px || !b->px || a->width != b->width || a->height != b->height)
        return true;
    int left = a->width, top = a->height, right = -1, bottom = -1;
    size_t stride = (size_t)a->width * 4;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *ra = a->px + (size_t)y * stride, *rb = b->px + (size_t)y * stride;
        if (memcmp(ra, rb, stride) == 0)
            continue;
        for (int x = 0; x < a->width; x++) {
            const uint8_t *pa = ra + (size_t)x * 4, *pb = rb + (size_t)x * 4;
            if (pa[0] == pb[0] && pa[1] == pb[1] && pa[2] == pb[2])
                continue;
            left = x < left ? x : left;
            right = x > right ? x : right;
            top = y < top ? y : top;
            bottom = y > bottom ? y : bottom;
        }
    }
    if (right < 0)
        return false;
    if (box)
        *box = (struct wa_rect){left, top, right + 1, bottom + 1};
    /* A blinking caret is a line one or two pixels wide: not a change of the window. */
    return right - left + 1 >= IMAGE_CHANGE_MIN_WIDTH;
}
