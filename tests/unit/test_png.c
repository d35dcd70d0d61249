/* Unit tests: the fast PNG encoder round-trips exactly through the decoder, and stays
 * within 1.3x of the reference encoder's size; its deflate and Adler-32 agree with
 * zlib's inflate and adler32. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <lodepng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "automation/image/image.h"
#include "automation/image/png.h"
#include "automation/image/png_deflate.h"
#include "synth_image.h"

#define PNG_MAX (256u << 20)

/* Encodes img, decodes the result and checks every pixel's RGB (alpha must come back
 * opaque). Returns the PNG's colour type from its header. */
static int round_trip(const struct wa_image *img)
{
    struct dynbuf png;
    dynbuf_init(&png, PNG_MAX);
    assert_int_equal(png_encode(img, &png), WA_E_OK);
    struct wa_image back;
    assert_int_equal(png_decode(png.data, png.len, &back), WA_E_OK);
    assert_int_equal(back.width, img->width);
    assert_int_equal(back.height, img->height);
    assert_false(back.bgra);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            uint32_t want = image_pixel_rgb(img, x, y), got = image_pixel_rgb(&back, x, y);
            if (want != got)
                fail_msg("pixel (%d,%d) of %dx%d: want %06x, got %06x", x, y, img->width,
                         img->height, want, got);
            assert_int_equal(back.px[((size_t)y * (size_t)back.width + (size_t)x) * 4 + 3], 255);
        }
    int colour_type = png.data[25];
    image_cleanup(&back);
    dynbuf_cleanup(&png);
    return colour_type;
}

static void fill_noise(struct wa_image *img, uint32_t seed)
{
    size_t n = (size_t)img->width * (size_t)img->height * 4;
    for (size_t i = 0; i < n; i++)
        img->px[i] = (uint8_t)synth_rand(&seed);
}

/* Exactly `colours` distinct colours, in runs and scattered. */
static void fill_colours(struct wa_image *img, int colours, uint32_t seed)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            int c = (int)(synth_rand(&seed) % 3 == 0 ? synth_rand(&seed) % (uint32_t)colours
                                                     : (uint32_t)((x / 7 + y) % colours));
            synth_put(img, x, y, c * 37 & 255, c * 91 & 255, c);
        }
    for (int c = 0; c < colours && c < img->width * img->height; c++) /* all present */
        synth_put(img, c % img->width, c / img->width, c * 37 & 255, c * 91 & 255, c);
}

static void solid_colours(void **state)
{
    (void)state;
    static const uint32_t colours[] = {0x000000, 0xffffff, 0xff0000, 0x00ff00, 0x0000ff, 0x336699};
    for (size_t i = 0; i < sizeof colours / sizeof colours[0]; i++) {
        struct wa_image img;
        assert_int_equal(image_alloc(&img, 64, 48, i % 2 == 0), WA_E_OK);
        uint32_t c = colours[i];
        synth_rect(&img, 0, 0, 64, 48, (int)(c >> 16), (int)(c >> 8 & 255), (int)(c & 255));
        assert_int_equal(round_trip(&img), 3); /* one colour: a palette image */
        image_cleanup(&img);
    }
}

/* Every palette bit depth (1, 2, 4, 8), with widths that leave partial bytes. */
static void palette_depths(void **state)
{
    (void)state;
    static const int counts[] = {1, 2, 3, 4, 5, 16, 17, 255, 256};
    static const int widths[] = {1, 3, 7, 9, 33, 300};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
            struct wa_image img;
            int h = counts[c] / widths[w] + 5;
            assert_int_equal(image_alloc(&img, widths[w], h, c % 2 == 1), WA_E_OK);
            fill_colours(&img, counts[c], (uint32_t)(c * 31 + w + 1));
            assert_int_equal(round_trip(&img), 3);
            image_cleanup(&img);
        }
}

static void gradients_are_rgb(void **state)
{
    (void)state;
    struct wa_image img;
    assert_int_equal(image_alloc(&img, 640, 400, false), WA_E_OK);
    for (int y = 0; y < img.height; y++)
        for (int x = 0; x < img.width; x++)
            synth_put(&img, x, y, x * 255 / 639, y * 255 / 399, (x + y) & 255);
    assert_int_equal(round_trip(&img), 2); /* > 256 colours: RGB */
    for (int y = 0; y < img.height; y++)   /* vertical only: rows differ, columns repeat */
        for (int x = 0; x < img.width; x++)
            synth_put(&img, x, y, y & 255, y >> 8, 255 - (y & 255));
    assert_int_equal(round_trip(&img), 2);
    image_cleanup(&img);
}

static void noise_and_odd_sizes(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {3, 7}, {7, 3}, {1, 500}, {500, 1}, {1281, 719}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct wa_image img;
        assert_int_equal(image_alloc(&img, sizes[i][0], sizes[i][1], false), WA_E_OK);
        fill_noise(&img, (uint32_t)i + 7);
        round_trip(&img);
        synth_busy(&img, (uint32_t)i + 1); /* mixed: filters change from row to row */
        round_trip(&img);
        image_cleanup(&img);
    }
}

/* 1281x719 is large enough to be compressed as two bands on two threads. */
static void large_screens(void **state)
{
    (void)state;
    struct wa_image img;
    assert_int_equal(image_alloc(&img, 1281, 719, true), WA_E_OK);
    synth_busy(&img, 3);
    assert_int_equal(round_trip(&img), 2);
    synth_plain(&img, 4);
    round_trip(&img);
    fill_colours(&img, 200, 5);
    assert_int_equal(round_trip(&img), 3);
    image_cleanup(&img);
}

/* Screens as the deflate sees them: long runs across band boundaries, rows equal to
 * the one above (Up), rows equal to the one above but for a few pixels (matches with
 * the row above), a gradient row (Sub) between them, in 1 and 4 bands, both channel
 * orders, RGB and palette. */
static void screen_shapes(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1280, 720}, {1281, 719}, {640, 3}, {3, 640}, {97, 61}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        struct wa_image img;
        assert_int_equal(image_alloc(&img, w, h, i % 2 == 0), WA_E_OK);
        synth_rect(&img, 0, 0, w, h, 0x23, 0x6f, 0x98); /* one colour: every row a run */
        assert_int_equal(round_trip(&img), 3);
        synth_rect(&img, w / 4, h / 5, w / 2, h / 2, 255, 255, 255); /* a window */
        for (int y = h / 5; y < h / 5 + h / 2; y += 3)               /* a column of dots */
            synth_put(&img, w / 4 + 5, y, 0, 0, 0);
        assert_int_equal(round_trip(&img), 3);
        for (int x = 0; x < w; x++) /* a gradient row: > 256 colours, and Sub */
            synth_put(&img, x, h / 2, x & 255, (x >> 8) * 40, 255 - (x & 255));
        uint32_t seed = (uint32_t)i + 1;
        for (int y = 0; y < h; y += 7) /* scattered text-like pixels */
            synth_put(&img, synth_below(&seed, w), y, synth_below(&seed, 256), 0, 9);
        int type = round_trip(&img);
        assert_int_equal(type, w >= 256 ? 2 : 3);
        image_cleanup(&img);
    }
}

/* Inflates raw deflate data (zlib's inflate, windowBits -15) into out (cap bytes);
 * returns the length, or -1 when zlib refuses it. */
static long inflate_raw(const uint8_t *data, size_t len, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK)
        return -1;
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = inflate(&z, Z_FINISH);
    long got = rc == Z_STREAM_END ? (long)z.total_out : -1;
    inflateEnd(&z);
    return got;
}

/* png_deflate on its own: data with repeats at every distance its matcher tries (1,
 * 3, a stride, up to exactly 32768 and beyond), in one call and as three calls whose
 * streams are joined; zlib inflates them to the input. */
static void deflate_round_trips(void **state)
{
    (void)state;
    size_t len = 200000;
    uint8_t *data = malloc(len), *back = malloc(len + 16);
    assert_non_null(data);
    assert_non_null(back);
    uint32_t seed = 77;
    for (size_t i = 0; i < len; i++)
        data[i] = (uint8_t)synth_rand(&seed);
    for (size_t i = 1000; i < 3000; i++) /* a run of one byte, one of 3-byte pixels */
        data[i] = 7;
    for (size_t i = 4003; i < 9000; i++)
        data[i] = data[i - 3];
    for (size_t i = 20000; i < 60000; i++) /* rows of 1001 bytes equal to the one above */
        data[i] = data[i - 1001];
    memcpy(data + 100000, data + 100000 - 32768, 600); /* the farthest distance */
    memcpy(data + 150000, data + 150000 - 32769, 600); /* beyond the window */
    memcpy(data + 170000, data + 170000 - 5000, 300);  /* an earlier copy */
    static const size_t strides[] = {1001, 4, 40000};  /* the last beyond the window */
    static const size_t bpps[] = {3, 1, 4};
    for (size_t k = 0; k < 3; k++) {
        uint8_t *out = NULL;
        size_t out_len = 0;
        assert_int_equal(png_deflate(data, len, strides[k], bpps[k], true, &out, &out_len),
                         WA_E_OK);
        assert_true(out_len < len); /* the repeats were found */
        assert_int_equal(inflate_raw(out, out_len, back, len + 16), (long)len);
        assert_memory_equal(back, data, len);
        free(out);
    }
    /* Three streams joined: all but the last end byte aligned and not final. */
    struct dynbuf joined;
    dynbuf_init(&joined, PNG_MAX);
    size_t cuts[] = {0, 1, 120000, len}; /* a one-byte stream too */
    for (int k = 0; k < 3; k++) {
        uint8_t *out = NULL;
        size_t out_len = 0;
        assert_int_equal(
            png_deflate(data + cuts[k], cuts[k + 1] - cuts[k], 1001, 3, k == 2, &out, &out_len),
            WA_E_OK);
        assert_int_equal(dynbuf_add(&joined, out, out_len), WA_E_OK);
        free(out);
    }
    assert_int_equal(inflate_raw((const uint8_t *)joined.data, joined.len, back, len + 16),
                     (long)len);
    assert_memory_equal(back, data, len);
    dynbuf_cleanup(&joined);
    free(data);
    free(back);
}

/* png_adler32 agrees with zlib's at every length around its 32-byte steps and its
 * 5536-byte blocks, from any alignment and any starting value. */
static void adler32_matches_zlib(void **state)
{
    (void)state;
    size_t len = 40000;
    uint8_t *data = malloc(len + 16);
    assert_non_null(data);
    uint32_t seed = 3;
    for (size_t i = 0; i < len + 16; i++)
        data[i] = i % 5 == 0 ? 255 : (uint8_t)synth_rand(&seed); /* high sums too */
    static const size_t lens[] = {0, 1, 15, 31, 32, 33, 64, 5535, 5536, 5537, 11072, 11100, 40000};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (size_t off = 0; off < 3; off++) {
            uLong want = adler32(adler32(0, NULL, 0), data + off, (uInt)lens[i]);
            assert_int_equal(png_adler32(1, data + off, lens[i]), want);
            uLong from = adler32(0xfff0fff0u, data + off, (uInt)lens[i]);
            assert_int_equal(png_adler32(0xfff0fff0u, data + off, lens[i]), from);
        }
    memset(data, 255, len); /* the largest sums */
    assert_int_equal(png_adler32(1, data, len), adler32(1, data, (uInt)len));
    free(data);
}

static void bgra_channels_swapped(void **state)
{
    (void)state;
    struct wa_image rgba, bgra;
    assert_int_equal(image_alloc(&rgba, 300, 200, false), WA_E_OK);
    assert_int_equal(image_alloc(&bgra, 300, 200, true), WA_E_OK);
    synth_busy(&rgba, 9);
    synth_busy(&bgra, 9); /* the same picture, stored B,G,R,A */
    assert_int_equal(bgra.px[0], rgba.px[2]);
    struct dynbuf a, b;
    dynbuf_init(&a, PNG_MAX);
    dynbuf_init(&b, PNG_MAX);
    assert_int_equal(png_encode(&rgba, &a), WA_E_OK);
    assert_int_equal(png_encode(&bgra, &b), WA_E_OK);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    /* A pure red pixel stored as BGRA decodes as red. */
    struct wa_image red, back;
    assert_int_equal(image_alloc(&red, 2, 2, true), WA_E_OK);
    memcpy(red.px, (const uint8_t[]){0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 0, 0, 0, 0},
           16);
    dynbuf_reset(&a);
    assert_int_equal(png_encode(&red, &a), WA_E_OK);
    assert_int_equal(png_decode(a.data, a.len, &back), WA_E_OK);
    assert_memory_equal(
        back.px, ((const uint8_t[]){255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 255}),
        16);
    image_cleanup(&back);
    image_cleanup(&red);
    image_cleanup(&rgba);
    image_cleanup(&bgra);
    dynbuf_cleanup(&a);
    dynbuf_cleanup(&b);
}

static void alpha_ignored(void **state)
{
    (void)state;
    struct wa_image img;
    assert_int_equal(image_alloc(&img, 333, 222, false), WA_E_OK);
    synth_busy(&img, 11);
    struct dynbuf opaque, varied;
    dynbuf_init(&opaque, PNG_MAX);
    dynbuf_init(&varied, PNG_MAX);
    assert_int_equal(png_encode(&img, &opaque), WA_E_OK);
    uint32_t seed = 5;
    for (size_t i = 0; i < (size_t)img.width * (size_t)img.height; i++)
        img.px[i * 4 + 3] = (uint8_t)synth_rand(&seed);
    assert_int_equal(png_encode(&img, &varied), WA_E_OK);
    assert_int_equal(opaque.len, varied.len);
    assert_memory_equal(opaque.data, varied.data, opaque.len);
    round_trip(&img);
    dynbuf_cleanup(&opaque);
    dynbuf_cleanup(&varied);
    image_cleanup(&img);
}

static void check_size_ratio(const struct wa_image *img, const char *what)
{
    struct dynbuf fast, ref;
    dynbuf_init(&fast, PNG_MAX);
    dynbuf_init(&ref, PNG_MAX);
    assert_int_equal(png_encode(img, &fast), WA_E_OK);
    assert_int_equal(png_encode_reference(img, &ref), WA_E_OK);
    double ratio = (double)fast.len / (double)ref.len;
    print_message("%s %dx%d: fast %zu bytes, reference %zu bytes, ratio %.2f\n", what, img->width,
                  img->height, fast.len, ref.len, ratio);
    assert_true(ratio <= 1.3);
    dynbuf_cleanup(&fast);
    dynbuf_cleanup(&ref);
}

static void size_within_reference(void **state)
{
    (void)state;
    struct wa_image busy, plain;
    assert_int_equal(image_alloc(&busy, 1280, 720, true), WA_E_OK);
    assert_int_equal(image_alloc(&plain, 1280, 800, true), WA_E_OK);
    synth_busy(&busy, 1);
    synth_plain(&plain, 2);
    check_size_ratio(&busy, "busy");
    check_size_ratio(&plain, "plain");
    image_cleanup(&busy);
    image_cleanup(&plain);
}

/* Real Wine screens from tests/data (1920x1080 captures): as captured, and downscaled
 * to 1280 as observations are sent. */
static void size_within_reference_real(void **state)
{
    (void)state;
    const char *dir = getenv("WINAGENT_TEST_DATA");
    if (!dir)
        skip();
    static const char *files[] = {"wine-regedit-1920.png", "wine-winefile-1920.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unsigned char *data = NULL;
        size_t len = 0;
        assert_int_equal(lodepng_load_file(&data, &len, path), 0);
        struct wa_image img, small;
        assert_int_equal(png_decode(data, len, &img), WA_E_OK);
        free(data);
        round_trip(&img);
        check_size_ratio(&img, files[i]);
        assert_int_equal(image_downscale(&img, 1280, &small), WA_E_OK);
        round_trip(&small);
        check_size_ratio(&small, files[i]);
        image_cleanup(&small);
        image_cleanup(&img);
    }
}

static void bad_input(void **state)
{
    (void)state;
    struct wa_image img = {0}, out;
    struct dynbuf b;
    dynbuf_init(&b, PNG_MAX);
    assert_int_equal(png_encode(&img, &b), WA_E_INVALID_ARGS);
    assert_int_equal(png_encode_reference(&img, &b), WA_E_INVALID_ARGS);
    assert_int_equal(b.len, 0);
    assert_int_equal(png_decode("not a png", 9, &out), WA_E_PARSE);
    assert_null(out.px);

    /* A header claiming 30000x30000 pixels is refused before anything is allocated. */
    assert_int_equal(image_alloc(&img, 4, 4, false), WA_E_OK);
    assert_int_equal(png_encode(&img, &b), WA_E_OK);
    uint8_t *png = (uint8_t *)b.data;
    png[16] = png[20] = 0;
    png[17] = png[21] = 0;
    png[18] = png[22] = 0x75;
    png[19] = png[23] = 0x30;
    uint32_t crc = (uint32_t)crc32(0, png + 12, 17); /* keep the header's CRC valid */
    png[29] = (uint8_t)(crc >> 24);
    png[30] = (uint8_t)(crc >> 16);
    png[31] = (uint8_t)(crc >> 8);
    png[32] = (uint8_t)crc;
    assert_int_equal(png_decode(png, b.len, &out), WA_E_TOO_LARGE);
    assert_null(out.px);

    /* Corruption is caught by the CRC / Adler-32 checks. */
    dynbuf_reset(&b);
    synth_busy(&img, 1);
    assert_int_equal(png_encode(&img, &b), WA_E_OK);
    b.data[b.len - 20] ^= 0x40;
    assert_int_equal(png_decode(b.data, b.len, &out), WA_E_PARSE);

    /* A full buffer fails cleanly and keeps what it held. */
    struct dynbuf small;
    dynbuf_init(&small, 40);
    assert_int_equal(dynbuf_adds(&small, "keep"), WA_E_OK);
    assert_int_equal(png_encode(&img, &small), WA_E_TOO_LARGE);
    assert_int_equal(small.len, 4);
    assert_string_equal(dynbuf_str(&small), "keep");
    dynbuf_cleanup(&small);
    image_cleanup(&img);
    dynbuf_cleanup(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(solid_colours),
        cmocka_unit_test(palette_depths),
        cmocka_unit_test(gradients_are_rgb),
        cmocka_unit_test(noise_and_odd_sizes),
        cmocka_unit_test(large_screens),
        cmocka_unit_test(screen_shapes),
        cmocka_unit_test(deflate_round_trips),
        cmocka_unit_test(adler32_matches_zlib),
        cmocka_unit_test(bgra_channels_swapped),
        cmocka_unit_test(alpha_ignored),
        cmocka_unit_test(size_within_reference),
        cmocka_unit_test(size_within_reference_real),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
