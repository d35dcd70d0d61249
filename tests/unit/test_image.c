/* Unit tests: image storage, fitting, downscaling and pixel reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/image.h"
#include "synth_image.h"

/* stb's box filter, as the reference the fast paths are checked against. */
#include "automation/image/stb_resize.h"

static void fit_sizes(void **state)
{
    (void)state;
    static const int cases[][5] = {
        /* w, h, max_edge -> w, h */
        {1920, 1080, 1280, 1280, 720}, /* landscape: the long edge becomes max_edge */
        {1080, 1920, 1280, 720, 1280}, /* portrait */
        {1366, 768, 1280, 1280, 720},  /* 719.6 rounds to 720 */
        {2560, 1600, 1280, 1280, 800}, {1000, 999, 500, 500, 500},   /* 499.5 rounds up */
        {1001, 3, 100, 100, 1},                                      /* never below 1 pixel */
        {5000, 1, 1280, 1280, 1},      {1280, 720, 1280, 1280, 720}, /* fits already */
        {800, 600, 1280, 800, 600},    {640, 640, 320, 320, 320},
        {1920, 1080, 0, 1920, 1080}, /* no limit */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int w = -1, h = -1;
        image_fit(cases[i][0], cases[i][1], cases[i][2], &w, &h);
        if (w != cases[i][3] || h != cases[i][4])
            fail_msg("fit %dx%d in %d: got %dx%d, want %dx%d", cases[i][0], cases[i][1],
                     cases[i][2], w, h, cases[i][3], cases[i][4]);
    }
}

static void alloc_and_pixels(void **state)
{
    (void)state;
    struct wa_image img;
    assert_int_equal(image_alloc(&img, 3, 2, false), WA_E_OK);
    assert_int_equal(img.width, 3);
    assert_int_equal(img.height, 2);
    for (int i = 0; i < 3 * 2 * 4; i++)
        assert_int_equal(img.px[i], 0);
    synth_put(&img, 2, 1, 0x12, 0x34, 0x56);
    assert_int_equal(img.px[(1 * 3 + 2) * 4], 0x12);
    assert_int_equal(image_pixel_rgb(&img, 2, 1), 0x123456);
    assert_int_equal(image_pixel_rgb(&img, 0, 0), 0);
    assert_int_equal(image_pixel_rgb(&img, 3, 0), 0); /* outside reads as black */
    assert_int_equal(image_pixel_rgb(&img, -1, 0), 0);
    image_cleanup(&img);
    assert_null(img.px);
    image_cleanup(&img); /* twice is harmless */

    assert_int_equal(image_alloc(&img, 2, 2, true), WA_E_OK);
    uint8_t *p = img.px + 4; /* pixel (1,0) stored B,G,R,A */
    p[0] = 0x56;
    p[1] = 0x34;
    p[2] = 0x12;
    assert_int_equal(image_pixel_rgb(&img, 1, 0), 0x123456);
    image_cleanup(&img);

    assert_int_equal(image_alloc(&img, 0, 10, false), WA_E_INVALID_ARGS);
    assert_null(img.px);
    assert_int_equal(image_alloc(&img, 10, -1, false), WA_E_INVALID_ARGS);
    assert_int_equal(image_alloc(&img, 100000, 100000, false), WA_E_INVALID_ARGS);
}

static void downscale_dimensions(void **state)
{
    (void)state;
    static const int cases[][3] = {{1920, 1080, 1280}, {1366, 768, 1280}, {1080, 1920, 1280},
                                   {2560, 1440, 1280}, {999, 333, 100},   {1281, 2, 1280}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct wa_image src, dst;
        assert_int_equal(image_alloc(&src, cases[i][0], cases[i][1], i % 2 == 0), WA_E_OK);
        synth_busy(&src, (uint32_t)i + 1);
        assert_int_equal(image_downscale(&src, cases[i][2], &dst), WA_E_OK);
        int w, h;
        image_fit(src.width, src.height, cases[i][2], &w, &h);
        assert_int_equal(dst.width, w);
        assert_int_equal(dst.height, h);
        assert_int_equal(dst.width > dst.height ? dst.width : dst.height, cases[i][2]);
        assert_int_equal(dst.bgra, src.bgra);
        image_cleanup(&src);
        image_cleanup(&dst);
    }
}

static void downscale_copies_small_images(void **state)
{
    (void)state;
    struct wa_image src, dst;
    assert_int_equal(image_alloc(&src, 800, 600, true), WA_E_OK);
    synth_busy(&src, 4);
    assert_int_equal(image_downscale(&src, 1280, &dst), WA_E_OK);
    assert_int_equal(dst.width, 800);
    assert_int_equal(dst.height, 600);
    assert_true(dst.bgra);
    assert_ptr_not_equal(dst.px, src.px);
    assert_memory_equal(dst.px, src.px, (size_t)800 * 600 * 4);
    image_cleanup(&dst);
    assert_int_equal(image_downscale(&src, 800, &dst), WA_E_OK); /* exactly at the limit */
    assert_memory_equal(dst.px, src.px, (size_t)800 * 600 * 4);
    image_cleanup(&dst);
    image_cleanup(&src);

    struct wa_image empty = {0};
    assert_int_equal(image_downscale(&empty, 1280, &dst), WA_E_INVALID_ARGS);
    assert_null(dst.px);
}

/* Solid blocks keep their exact colour inside (tests elsewhere look for a window's
 * colour in downscaled screenshots), in both channel orders and through every path:
 * 2:3 and 1:n fast paths, stb for other ratios. */
static void downscale_keeps_block_colours(void **state)
{
    (void)state;
    static const int sizes[][2] = {
        {1920, 1080}, {2560, 1440}, {3840, 2160}, {1366, 768}, {1500, 1000}};
    static const int blocks[][7] = {/* x, y, w, h in 1/1000 of the source; r, g, b */
                                    {150, 180, 60, 80, 0xff, 0x80, 0x00},
                                    {780, 640, 40, 60, 0x10, 0x20, 0xe0},
                                    {470, 460, 12, 20, 0x00, 0xff, 0x00}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct wa_image src, dst;
        int sw = sizes[i][0], sh = sizes[i][1];
        assert_int_equal(image_alloc(&src, sw, sh, i % 2 == 0), WA_E_OK);
        synth_busy(&src, 2);
        for (size_t b = 0; b < 3; b++)
            synth_rect(&src, blocks[b][0] * sw / 1000, blocks[b][1] * sh / 1000,
                       blocks[b][2] * sw / 1000, blocks[b][3] * sh / 1000, blocks[b][4],
                       blocks[b][5], blocks[b][6]);
        assert_int_equal(image_downscale(&src, 1280, &dst), WA_E_OK);
        for (size_t b = 0; b < 3; b++) {
            uint32_t want = (uint32_t)(blocks[b][4] << 16 | blocks[b][5] << 8 | blocks[b][6]);
            /* The block's interior in the destination, three pixels clear of its edges. */
            int x0 = blocks[b][0] * sw / 1000 * dst.width / sw + 3;
            int y0 = blocks[b][1] * sh / 1000 * dst.height / sh + 3;
            int x1 = (blocks[b][0] + blocks[b][2]) * sw / 1000 * dst.width / sw - 3;
            int y1 = (blocks[b][1] + blocks[b][3]) * sh / 1000 * dst.height / sh - 3;
            assert_true(x1 > x0 && y1 > y0);
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++)
                    if (image_pixel_rgb(&dst, x, y) != want)
                        fail_msg("%dx%d: (%d,%d) is %06x, want %06x", sw, sh, x, y,
                                 image_pixel_rgb(&dst, x, y), want);
        }
        image_cleanup(&src);
        image_cleanup(&dst);
    }
}

/* The fast paths compute the same area average as stb's box filter, to rounding. */
static void fast_paths_match_box_filter(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1920, 1080}, {2560, 1440}, {3840, 2160}, {999, 333}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct wa_image src, fast;
        int sw = sizes[i][0], sh = sizes[i][1];
        assert_int_equal(image_alloc(&src, sw, sh, false), WA_E_OK);
        synth_busy(&src, 5);
        int max_edge = sw == 999 ? 666 : 1280;
        assert_int_equal(image_downscale(&src, max_edge, &fast), WA_E_OK);
        uint8_t *box = malloc((size_t)fast.width * (size_t)fast.height * 4);
        assert_non_null(box);
        assert_true(stbir_resize_uint8_generic(src.px, sw, sh, sw * 4, box, fast.width, fast.height,
                                               fast.width * 4, 4, STBIR_ALPHA_CHANNEL_NONE, 0,
                                               STBIR_EDGE_CLAMP, STBIR_FILTER_BOX,
                                               STBIR_COLORSPACE_LINEAR, NULL));
        int worst = 0;
        for (size_t k = 0; k < (size_t)fast.width * (size_t)fast.height * 4; k++) {
            int d = abs((int)fast.px[k] - (int)box[k]);
            worst = d > worst ? d : worst;
        }
        if (worst > 1)
            fail_msg("%dx%d: differs from the box filter by %d", sw, sh, worst);
        free(box);
        image_cleanup(&src);
        image_cleanup(&fast);
    }
}

static int byte_at(const struct wa_image *img, int x, int y, int ch)
{
    return img->px[((size_t)y * (size_t)img->width + (size_t)x) * 4 + (size_t)ch];
}

/* The 2:3 path is exact by definition: each destination pixel is (4a + 2b + 2c + d + 4)
 * / 9 over the 2x2 source pixels nearest it (a) and its neighbours, per channel. Checked
 * against that formula written out here, at widths where the vector loops leave a tail
 * (rows of 12, 24, 36 ... bytes) and at 1920, in both channel orders, with noise so
 * every byte counts. */
static void downscale_2_3_exact(void **state)
{
    (void)state;
    static const int sizes[][2] = {{3, 3},  {6, 3},       {9, 6},    {12, 9},
                                   {15, 3}, {1920, 1080}, {999, 333}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int sw = sizes[i][0], sh = sizes[i][1];
        struct wa_image src, dst;
        assert_int_equal(image_alloc(&src, sw, sh, i % 2 == 1), WA_E_OK);
        uint32_t seed = (uint32_t)i + 9;
        for (size_t k = 0; k < (size_t)sw * (size_t)sh * 4; k++)
            src.px[k] = (uint8_t)synth_rand(&seed);
        assert_int_equal(
            image_downscale(&src, sw / 3 * 2 > sh / 3 * 2 ? sw / 3 * 2 : sh / 3 * 2, &dst),
            WA_E_OK);
        assert_int_equal(dst.width, sw / 3 * 2);
        assert_int_equal(dst.height, sh / 3 * 2);
        for (int y = 0; y < dst.height; y++)
            for (int x = 0; x < dst.width; x++)
                for (int ch = 0; ch < 4; ch++) {
                    /* the source block's near corner, and the step away from it */
                    int nx = x / 2 * 3 + (x % 2 ? 2 : 0), ny = y / 2 * 3 + (y % 2 ? 2 : 0);
                    int dx = x % 2 ? -1 : 1, dy = y % 2 ? -1 : 1;
                    int want = (4 * byte_at(&src, nx, ny, ch) + 2 * byte_at(&src, nx + dx, ny, ch) +
                                2 * byte_at(&src, nx, ny + dy, ch) +
                                byte_at(&src, nx + dx, ny + dy, ch) + 4) /
                               9;
                    int got = dst.px[((size_t)y * (size_t)dst.width + (size_t)x) * 4 + (size_t)ch];
                    if (got != want)
                        fail_msg("%dx%d: (%d,%d) channel %d: want %d, got %d", sw, sh, x, y, ch,
                                 want, got);
                }
        image_cleanup(&src);
        image_cleanup(&dst);
    }
}

/* Text must survive: a one-pixel black line on white stays clearly dark. */
static void downscale_keeps_thin_lines(void **state)
{
    (void)state;
    struct wa_image src, dst;
    assert_int_equal(image_alloc(&src, 1920, 1080, true), WA_E_OK);
    synth_rect(&src, 0, 0, 1920, 1080, 255, 255, 255);
    synth_rect(&src, 0, 501, 1920, 1, 0, 0, 0);
    assert_int_equal(image_downscale(&src, 1280, &dst), WA_E_OK);
    int darkest = 255;
    for (int y = 330; y < 340; y++) {
        int v = (int)(image_pixel_rgb(&dst, 640, y) & 0xff);
        darkest = v < darkest ? v : darkest;
    }
    assert_true(darkest < 128);
    assert_int_equal(image_pixel_rgb(&dst, 640, 300), 0xffffff);
    image_cleanup(&src);
    image_cleanup(&dst);
}

/* A freed large buffer comes back zeroed from image_alloc and is reused for the next
 * image of about its size (not under AddressSanitizer, where the pool is off); small
 * buffers and images of less than half its size do not take it. First in main: the
 * pool is empty then. */
static void large_buffers_are_reused_and_zeroed(void **state)
{
    (void)state;
    struct wa_image a, b, c = {0};
    assert_int_equal(image_alloc_raw(&a, 1920, 1080, true), WA_E_OK);
    memset(a.px, 0xff, (size_t)1920 * 1080 * 4);
    const uint8_t *first = a.px;
    image_cleanup(&a);
    assert_null(a.px);
    assert_int_equal(image_alloc(&b, 1920, 1080, true), WA_E_OK);
    for (size_t i = 0; i < (size_t)1920 * 1080 * 4; i++)
        if (b.px[i])
            fail_msg("byte %zu of a reused image is %d, not 0", i, b.px[i]);
#if defined(__SANITIZE_ADDRESS__)
    (void)first;
#else
    assert_ptr_equal(b.px, first);
    memset(b.px, 0x11, (size_t)1920 * 1080 * 4);
    image_cleanup(&b);
    assert_int_equal(image_alloc_raw(&c, 1280, 720, true), WA_E_OK); /* < half: not it */
    assert_ptr_not_equal(c.px, first);
    image_cleanup(&c);
    assert_int_equal(image_alloc_raw(&c, 1600, 900, true), WA_E_OK); /* >= half: it */
    assert_ptr_equal(c.px, first);
#endif
    image_cleanup(&b);
    image_cleanup(&c);
}

/* A window's buffer given back after the pool filled with larger ones (screen captures)
 * is kept, in place of the one given back longest ago, and comes back for the window's
 * next capture: the sizes of the last images are the sizes of the next. */
static void a_window_buffer_is_kept_after_screen_buffers(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#else
    enum { SCREENS = 10 };
    struct wa_image screens[SCREENS], w, again;
    for (int i = 0; i < SCREENS; i++)
        assert_int_equal(image_alloc_raw(&screens[i], 1920, 1080, true), WA_E_OK);
    for (int i = 0; i < SCREENS; i++)
        image_cleanup(&screens[i]); /* the pool is full of screen-sized buffers */
    size_t full = image_pool_bytes(), bytes = (size_t)906 * 684 * 4;
    assert_true(full >= (size_t)1920 * 1080 * 4);
    assert_int_equal(image_alloc_raw(&w, 906, 684, true), WA_E_OK); /* < half: a new one */
    assert_int_equal(image_pool_bytes(), full);
    const uint8_t *window = w.px;
    image_cleanup(&w);
    size_t kept = image_pool_bytes();
    assert_int_not_equal(kept, full); /* it is kept (a screen buffer made room, or not) */
    assert_int_equal(image_alloc_raw(&again, 906, 684, true), WA_E_OK);
    assert_ptr_equal(again.px, window);
    assert_int_equal(image_pool_bytes(), kept - bytes); /* taken from the pool */
    image_cleanup(&again);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(large_buffers_are_reused_and_zeroed),
        cmocka_unit_test(a_window_buffer_is_kept_after_screen_buffers),
        cmocka_unit_test(fit_sizes),
        cmocka_unit_test(alloc_and_pixels),
        cmocka_unit_test(downscale_dimensions),
        cmocka_unit_test(downscale_copies_small_images),
        cmocka_unit_test(downscale_keeps_block_colours),
        cmocka_unit_test(fast_paths_match_box_filter),
        cmocka_unit_test(downscale_2_3_exact),
        cmocka_unit_test(downscale_keeps_thin_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
