/* Unit tests: the debug crosshair and its label, and the bitmap font behind it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/annotate.h"
#include "automation/image/font.h"
#include "automation/image/image.h"
#include "synth_image.h"

#define GREY  0x808080u
#define WHITE 0xffffffu
#define RED   0xff0000u
#define GUARD 4096 /* canary bytes on each side of the pixels */

/* An image whose pixels sit between two canary zones, to catch writes out of bounds
 * even without a sanitizer. */
struct guarded {
    struct wa_image img;
    uint8_t *block;
};

static void guarded_alloc(struct guarded *g, int w, int h, bool bgra)
{
    size_t n = (size_t)w * (size_t)h * 4;
    g->block = malloc(n + 2 * GUARD);
    assert_non_null(g->block);
    memset(g->block, 0xa5, n + 2 * GUARD);
    g->img.width = w;
    g->img.height = h;
    g->img.bgra = bgra;
    g->img.px = g->block + GUARD;
    synth_rect(&g->img, 0, 0, w, h, 0x80, 0x80, 0x80);
}

static void guarded_check_free(struct guarded *g)
{
    size_t n = (size_t)g->img.width * (size_t)g->img.height * 4;
    for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(g->block[i], 0xa5);
        assert_int_equal(g->block[GUARD + n + i], 0xa5);
    }
    free(g->block);
}

static int count_rgb(const struct wa_image *img, uint32_t rgb)
{
    int n = 0;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            n += image_pixel_rgb(img, x, y) == rgb;
    return n;
}

/* Inked glyph pixels of text, each drawn as a scale x scale square. */
static int ink_pixels(const char *text, int scale)
{
    int n = 0;
    for (; *text; text++)
        for (int row = 0; row < FONT_GLYPH_H; row++)
            for (int col = 0; col < FONT_GLYPH_W; col++)
                n += font_glyph_pixel(*text, col, row);
    return n * scale * scale;
}

static void red_centre_everywhere(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1920, 1080}, {640, 480}, {40, 30}, {5, 5}, {1, 1}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        const int points[][2] = {{w / 2, h / 3}, {0, 0},     {w - 1, h - 1},
                                 {w - 1, 0},     {0, h - 1}, {3, 2}};
        for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
            struct guarded g;
            guarded_alloc(&g, w, h, p % 2 == 0);
            int x = points[p][0] < w ? points[p][0] : w - 1;
            int y = points[p][1] < h ? points[p][1] : h - 1;
            annotate_point(&g.img, x, y, "(512,300)");
            assert_int_equal(image_pixel_rgb(&g.img, x, y), RED);
            guarded_check_free(&g);
        }
    }
}

/* Points outside the image are drawn at the nearest edge, and nothing leaves it. */
static void outside_points_clamped(void **state)
{
    (void)state;
    static const int points[][3] = {
        {-50, -50, 0}, {5000, 20, 1}, {30, 9999, 2}, {-1, 5000, 3}, {640, -7, 4}};
    static const int expect[][2] = {{0, 0}, {639, 20}, {30, 479}, {0, 479}, {639, 0}};
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        struct guarded g;
        guarded_alloc(&g, 640, 480, i % 2 == 1);
        annotate_point(&g.img, points[i][0], points[i][1], "(999,999)");
        assert_int_equal(image_pixel_rgb(&g.img, expect[i][0], expect[i][1]), RED);
        guarded_check_free(&g);
    }
}

/* The whole label is drawn (every glyph pixel white, none clipped) wherever the point
 * is, including both corners; so the box is inside the image. */
static void label_inside_at_corners(void **state)
{
    (void)state;
    const char *label = "(0,0)";
    int w = 320, h = 200;
    const int points[][2] = {{0, 0},     {w - 1, h - 1}, {w - 1, 0},
                             {0, h - 1}, {w / 2, h / 2}, {w - 20, h - 10}};
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
        struct guarded g;
        guarded_alloc(&g, w, h, true);
        annotate_point(&g.img, points[p][0], points[p][1], label);
        assert_int_equal(count_rgb(&g.img, WHITE), ink_pixels(label, 2));
        /* The box does not cover the crosshair's centre. */
        assert_int_equal(image_pixel_rgb(&g.img, points[p][0], points[p][1]), RED);
        guarded_check_free(&g);
    }
}

/* An image too small for the label clips it rather than writing outside. */
static void tiny_images_clip(void **state)
{
    (void)state;
    for (int w = 1; w <= 24; w += 23)
        for (int h = 1; h <= 17; h += 8) {
            struct guarded g;
            guarded_alloc(&g, w, h, false);
            annotate_point(&g.img, w / 2, h / 2, "(123,456)");
            annotate_point(&g.img, 0, 0, "");
            annotate_point(&g.img, w - 1, h - 1, NULL);
            guarded_check_free(&g);
        }
}

static void crosshair_and_ring(void **state)
{
    (void)state;
    struct guarded g;
    guarded_alloc(&g, 200, 200, false);
    annotate_point(&g.img, 100, 100, NULL);
    for (int d = -10; d <= 10; d++) { /* both arms */
        assert_int_equal(image_pixel_rgb(&g.img, 100 + d, 100), RED);
        assert_int_equal(image_pixel_rgb(&g.img, 100, 100 + d), RED);
    }
    assert_int_equal(image_pixel_rgb(&g.img, 106, 106), RED);  /* ring, diagonal */
    assert_int_equal(image_pixel_rgb(&g.img, 103, 103), GREY); /* inside the ring */
    assert_int_equal(image_pixel_rgb(&g.img, 140, 140), GREY); /* far away */
    assert_int_equal(count_rgb(&g.img, WHITE), 0);             /* no label asked for */
    guarded_check_free(&g);
}

/* Every character of a coordinate label has a glyph of its own, and it is drawn. */
static void glyphs_for_label_characters(void **state)
{
    (void)state;
    const char *chars = "(0123456789,)";
    size_t n = strlen(chars);
    uint64_t shapes[16] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = 0;
        for (int row = 0; row < FONT_GLYPH_H; row++)
            for (int col = 0; col < FONT_GLYPH_W; col++)
                bits = bits << 1 | font_glyph_pixel(chars[i], col, row);
        assert_true(bits != 0);
        for (size_t j = 0; j < i; j++)
            if (shapes[j] == bits)
                fail_msg("'%c' and '%c' look the same", chars[j], chars[i]);
        shapes[i] = bits;

        /* Drawn at scale 2: exactly the glyph's squares, in place. */
        struct guarded g;
        guarded_alloc(&g, 20, 20, i % 2 == 0);
        char one[2] = {chars[i], '\0'};
        font_draw_text(&g.img, 3, 4, one, 2, WHITE);
        for (int y = 0; y < 20; y++)
            for (int x = 0; x < 20; x++) {
                bool inked =
                    x >= 3 && y >= 4 && font_glyph_pixel(chars[i], (x - 3) / 2, (y - 4) / 2);
                assert_int_equal(image_pixel_rgb(&g.img, x, y), inked ? WHITE : GREY);
            }
        guarded_check_free(&g);
    }
    /* All printable ASCII has ink except the space; others fall back to '?'. */
    for (int c = 33; c < 127; c++)
        assert_true(ink_pixels((char[]){(char)c, '\0'}, 1) > 0);
    assert_int_equal(ink_pixels(" ", 1), 0);
    assert_int_equal(ink_pixels("\x01", 1), ink_pixels("?", 1));
    assert_int_equal(font_text_width("(1,2)", 2), 5 * 12 - 2);
    assert_int_equal(font_text_width("", 2), 0);
    assert_int_equal(font_text_height(2), 14);
}

static void text_clipped_at_edges(void **state)
{
    (void)state;
    struct guarded g;
    guarded_alloc(&g, 30, 10, false);
    font_draw_text(&g.img, -7, -5, "(0123456789,)", 3, WHITE);
    font_draw_text(&g.img, 25, 6, "88", 2, WHITE);
    font_draw_text(&g.img, 1000, 1000, "8", 2, WHITE);
    assert_true(count_rgb(&g.img, WHITE) > 0);
    guarded_check_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(red_centre_everywhere),   cmocka_unit_test(outside_points_clamped),
        cmocka_unit_test(label_inside_at_corners), cmocka_unit_test(tiny_images_clip),
        cmocka_unit_test(crosshair_and_ring),      cmocka_unit_test(glyphs_for_label_characters),
        cmocka_unit_test(text_clipped_at_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
