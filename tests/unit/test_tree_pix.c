/* Unit tests: the pixel fingerprints of a tree's rows (automation/tree_pix.c): a row that
 * looks the same keeps its fingerprint, one whose pixels changed (anywhere across its
 * list, its selection mark too) does not, and only rows of a collection on screen have
 * one; the hash under them sees every pixel's colour, not its alpha. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "automation/tree_pix.h"

/* A window [100,100][300,300] holding a list [110,110][290,290] of rows 20 pixels high:
 * rows 0-8 show, row 9 is listed below the view. */
static void list_tree(struct wa_tree *t)
{
    tree_init(t);
    t->frame = (struct wa_rect){100, 100, 300, 300};
    struct tree_element_info root = {.type = "Window", .name = "w", .bounds = t->frame};
    struct tree_element_info list = {.type = "List",
                                     .name = "Files",
                                     .bounds = {110, 110, 290, 290},
                                     .coll = {true, 100, 0, 8, 9}};
    tree_add_node(t, -1, &root);
    tree_add_node(t, 0, &list);
    for (int i = 0; i < 10; i++) {
        struct tree_element_info row = {.type = "ListItem",
                                        .name = "row",
                                        .bounds = {120, 110 + 20 * i, 160, 130 + 20 * i},
                                        .states = i == 9 ? WA_ST_OFFSCREEN : 0,
                                        .coll_item = true,
                                        .item_index = i};
        tree_add_node(t, 1, &row);
    }
}

static void paint(struct wa_image *img, int x0, int y0, int x1, int y1, uint8_t v)
{
    for (int y = y0; y < y1; y++)
        memset(img->px + ((size_t)y * (size_t)img->width + (size_t)x0) * 4, v,
               (size_t)(x1 - x0) * 4);
}

static void rows_keep_their_fingerprints_until_their_pixels_change(void **state)
{
    (void)state;
    struct wa_tree t;
    list_tree(&t);
    struct wa_image img;
    assert_int_equal(image_alloc(&img, 200, 200, false), WA_E_OK);
    paint(&img, 0, 0, 200, 200, 0x80);
    for (int i = 0; i < 9; i++) /* each row's text, different */
        paint(&img, 25, 12 + 20 * i, 40 + i, 18 + 20 * i, (uint8_t)(i * 20));
    tree_pix_set(&t, &img, t.frame);
    assert_int_equal(t.nodes[0].pix, 0); /* not a row */
    assert_int_equal(t.nodes[1].pix, 0);
    for (int i = 0; i < 9; i++)
        assert_int_not_equal(t.nodes[2 + i].pix, 0);
    assert_int_equal(t.nodes[11].pix, 0); /* listed below the view: nothing to see */

    bool *same = tree_pix_same(&t, &img, t.frame);
    for (int i = 0; i < 9; i++)
        assert_true(same[2 + i]);
    assert_false(same[11]);
    free(same);

    /* row 3's text changes; row 5 is selected: its mark reaches past its label, to the
     * right edge of the list */
    paint(&img, 25, 72, 45, 78, 0xff);
    paint(&img, 150, 110, 189, 130, 0x33);
    same = tree_pix_same(&t, &img, t.frame);
    for (int i = 0; i < 9; i++)
        assert_int_equal(same[2 + i], i != 3 && i != 5);
    free(same);

    /* a row taken from the last walk for looking the same keeps its fingerprint; the
     * others get theirs from the capture */
    uint64_t row4 = t.nodes[6].pix;
    t.nodes[2].pix = 42;
    t.nodes[6].pix = 0;
    tree_pix_set(&t, &img, t.frame);
    assert_true(t.nodes[2].pix == 42);
    assert_true(t.nodes[6].pix == row4);
    image_cleanup(&img);
    tree_cleanup(&t);
}

/* Any one colour byte of any pixel changes the hash of an area holding it, wherever it
 * falls among the hash's lanes and its tail (areas of 1 to 21 pixels a row); its alpha
 * does not; the same pixels elsewhere hash the same, a taller area otherwise. */
static void the_hash_sees_every_colour_byte_and_no_alpha(void **state)
{
    (void)state;
    struct wa_image img = {0};
    assert_int_equal(image_alloc_raw(&img, 23, 3, true), WA_E_OK);
    for (size_t i = 0; i < (size_t)23 * 3 * 4; i++)
        img.px[i] = (uint8_t)(i * 7 + 3);
    for (int w = 1; w <= 21; w++) {
        uint64_t was = tree_pix_hash(&img, 1, 0, 1 + w, 3);
        for (int y = 0; y < 3; y++)
            for (int x = 1; x < 1 + w; x++)
                for (int byte = 0; byte < 4; byte++) {
                    uint8_t *p = img.px + ((size_t)y * 23 + (size_t)x) * 4 + byte;
                    *p ^= 0x10;
                    uint64_t now = tree_pix_hash(&img, 1, 0, 1 + w, 3);
                    *p ^= 0x10;
                    if (byte == 3)
                        assert_true(now == was);
                    else
                        assert_true(now != was);
                }
        assert_true(tree_pix_hash(&img, 1, 0, 1 + w, 3) == was);
    }
    for (int x = 0; x < 23; x++) /* the same pixels one row lower */
        memcpy(img.px + ((size_t)23 + (size_t)x) * 4, img.px + (size_t)x * 4, 4);
    assert_true(tree_pix_hash(&img, 0, 0, 23, 1) == tree_pix_hash(&img, 0, 1, 23, 2));
    assert_true(tree_pix_hash(&img, 0, 0, 23, 1) != tree_pix_hash(&img, 0, 0, 23, 2));
    image_cleanup(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_keep_their_fingerprints_until_their_pixels_change),
        cmocka_unit_test(the_hash_sees_every_colour_byte_and_no_alpha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
