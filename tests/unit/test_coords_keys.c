/* Unit tests: the 0-999 coordinate contract and key-name parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "automation/image/coords.h"
#include "automation/keys.h"

static void norm_maps_corners_exactly(void **state)
{
    (void)state;
    assert_int_equal(norm_to_pixel(0, 0, 1920), 0);
    assert_int_equal(norm_to_pixel(999, 0, 1920), 1919);
    assert_int_equal(norm_to_pixel(500, 0, 1920), 960); /* 500*1919/999 = 960.46 */
    assert_int_equal(norm_to_pixel(0, 100, 760), 100);
    assert_int_equal(norm_to_pixel(999, 100, 760), 859);
    /* Monitors left of the primary have negative origins. */
    assert_int_equal(norm_to_pixel(0, -1920, 1920), -1920);
    assert_int_equal(norm_to_pixel(999, -1920, 1920), -1);
    assert_int_equal(norm_to_pixel(999, 5, 1), 5);
}

static void norm_round_trips_within_one_unit(void **state)
{
    (void)state;
    const int sizes[] = {1, 2, 7, 640, 1000, 1280, 1920, 3840, 7680};
    const int origins[] = {0, -1920, 37};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++)
            for (int n = 0; n <= 999; n++) {
                int px = norm_to_pixel(n, origins[o], sizes[s]);
                assert_true(px >= origins[o] && px < origins[o] + sizes[s]);
                int back = pixel_to_norm(px, origins[o], sizes[s]);
                if (sizes[s] >= 1000)
                    assert_int_equal(back, n); /* exact when pixels outnumber units */
                else if (sizes[s] > 1)
                    assert_true(back - n <= 999 / (sizes[s] - 1) + 1 &&
                                n - back <= 999 / (sizes[s] - 1) + 1);
            }
    /* pixel -> norm -> pixel lands within one pixel on large frames too */
    for (int px = 0; px < 3840; px += 7) {
        int n = pixel_to_norm(px, 0, 3840);
        int back = norm_to_pixel(n, 0, 3840);
        assert_true(back - px <= 2 && px - back <= 2);
    }
    assert_int_equal(pixel_to_norm(-50, 0, 100), 0);
    assert_int_equal(pixel_to_norm(5000, 0, 100), 999);
}

static void norm_point_rejects_out_of_range(void **state)
{
    (void)state;
    struct wa_rect frame = {100, 50, 900, 650};
    int x, y;
    assert_int_equal(norm_point_to_pixel(frame, 0, 999, &x, &y), WA_E_OK);
    assert_int_equal(x, 100);
    assert_int_equal(y, 649);
    assert_int_equal(norm_point_to_pixel(frame, 1000, 5, &x, &y), WA_E_INVALID_ARGS);
    assert_non_null(strstr(wa_err_detail(), "(1000,5)"));
    assert_int_equal(norm_point_to_pixel(frame, 5, -1, &x, &y), WA_E_INVALID_ARGS);
    struct wa_rect empty = {0, 0, 0, 0};
    assert_int_equal(norm_point_to_pixel(empty, 5, 5, &x, &y), WA_E_INVALID_ARGS);
}

static void rect_helpers(void **state)
{
    (void)state;
    struct wa_rect a = {0, 0, 100, 50}, b = {50, 25, 200, 200}, c = {300, 300, 310, 310};
    struct wa_rect i = wa_rect_intersect(a, b);
    assert_int_equal(i.left, 50);
    assert_int_equal(i.bottom, 50);
    assert_true(wa_rect_empty(wa_rect_intersect(a, c)));
    int x, y;
    wa_rect_center(a, &x, &y);
    assert_int_equal(x, 50);
    assert_int_equal(y, 25);
}

static void expect_combo(const char *text, int n, const unsigned short *vks)
{
    struct wa_key_combo k;
    assert_int_equal(keys_parse_combo(text, &k), WA_E_OK);
    assert_int_equal(k.count, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(k.vk[i], vks[i]);
}

static void combos_parse(void **state)
{
    (void)state;
    expect_combo("ctrl+s", 2, (const unsigned short[]){0x11, 'S'});
    expect_combo("Ctrl + Shift + Esc", 3, (const unsigned short[]){0x11, 0x10, 0x1B});
    expect_combo("alt+f4", 2, (const unsigned short[]){0x12, 0x73});
    expect_combo("win+r", 2, (const unsigned short[]){0x5B, 'R'});
    expect_combo("enter", 1, (const unsigned short[]){0x0D});
    expect_combo("escape", 1, (const unsigned short[]){0x1B});
    expect_combo("esc", 1, (const unsigned short[]){0x1B});
    expect_combo("shift+tab", 2, (const unsigned short[]){0x10, 0x09});
    expect_combo("F5", 1, (const unsigned short[]){0x74});
    expect_combo("f24", 1, (const unsigned short[]){0x87});
    expect_combo("pageup", 1, (const unsigned short[]){0x21});
    expect_combo("Page Down", 1, (const unsigned short[]){0x22});
    expect_combo("page_down", 1, (const unsigned short[]){0x22});
    expect_combo("ctrl++", 2, (const unsigned short[]){0x11, 0xBB});
    expect_combo("ctrl+-", 2, (const unsigned short[]){0x11, 0xBD});
    expect_combo("s+ctrl", 2, (const unsigned short[]){0x11, 'S'}); /* modifiers first */
    expect_combo("cmd+1", 2, (const unsigned short[]){0x5B, '1'});
    expect_combo("delete", 1, (const unsigned short[]){0x2E});
}

static void bad_combos_fail_clearly(void **state)
{
    (void)state;
    struct wa_key_combo k;
    assert_int_equal(keys_parse_combo("ctrl+foo", &k), WA_E_INVALID_ARGS);
    assert_non_null(strstr(wa_err_detail(), "'foo'"));
    assert_int_equal(keys_parse_combo("", &k), WA_E_INVALID_ARGS);
    assert_int_equal(keys_parse_combo("f25", &k), WA_E_INVALID_ARGS);
    assert_int_equal(keys_parse_combo(NULL, &k), WA_E_INVALID_ARGS);
    assert_int_equal(keys_parse_combo("a+b+c+d+e+f+g+h+i", &k), WA_E_INVALID_ARGS);
}

static void sequences_parse(void **state)
{
    (void)state;
    struct wa_key_combo k[8];
    size_t n;
    assert_int_equal(keys_parse_sequence("ctrl+a delete", k, 8, &n), WA_E_OK);
    assert_int_equal(n, 2);
    assert_int_equal(k[0].vk[1], 'A');
    assert_int_equal(k[1].vk[0], 0x2E);
    assert_int_equal(keys_parse_sequence("tab, tab, enter", k, 8, &n), WA_E_OK);
    assert_int_equal(n, 3);
    assert_int_equal(k[2].vk[0], 0x0D);
    assert_int_equal(keys_parse_sequence("Ctrl + Shift + Esc", k, 8, &n), WA_E_OK);
    assert_int_equal(n, 1);
    assert_int_equal(k[0].count, 3);
    assert_int_equal(keys_parse_sequence("ctrl + a  ctrl + c", k, 8, &n), WA_E_OK);
    assert_int_equal(n, 2);
    assert_int_equal(keys_parse_sequence("tab tab tab", k, 2, &n), WA_E_INVALID_ARGS);
    assert_int_equal(keys_parse_sequence("   ", k, 8, &n), WA_E_INVALID_ARGS);
}

static void vk_names(void **state)
{
    (void)state;
    assert_string_equal(keys_vk_name(0x11), "Ctrl");
    assert_string_equal(keys_vk_name('S'), "S");
    assert_string_equal(keys_vk_name(0x74), "F5");
    assert_string_equal(keys_vk_name(0x22), "pagedown");
    assert_string_equal(keys_vk_name(0xFF), "0xFF");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(norm_maps_corners_exactly),
        cmocka_unit_test(norm_round_trips_within_one_unit),
        cmocka_unit_test(norm_point_rejects_out_of_range),
        cmocka_unit_test(rect_helpers),
        cmocka_unit_test(combos_parse),
        cmocka_unit_test(bad_combos_fail_clearly),
        cmocka_unit_test(sequences_parse),
        cmocka_unit_test(vk_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
