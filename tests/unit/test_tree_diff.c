/* Unit tests: what changed between two walks of a window (automation/tree_diff.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "automation/tree_diff.h"
#include "automation/tree_format.h"

/* Adds a node: type, name, value (or NULL), states, runtime id (or NULL), hwnd. */
static int add(struct wa_tree *t, int parent, const char *type, const char *name, const char *value,
               unsigned states, const char *rid, uint64_t hwnd)
{
    struct tree_element_info i = {
        .type = (char *)type,
        .name = (char *)name,
        .value = (char *)value,
        .runtime_id = (char *)rid,
        .states = states,
        .hwnd = hwnd,
        .bounds = {0, 0, 10, 10},
    };
    int n = tree_add_node(t, parent, &i);
    assert_true(n >= 0);
    return n;
}

/* A small window: an edit, a check box and a button, without runtime ids or windows. */
static void form(struct wa_tree *t, const char *value, unsigned box, bool with_cancel)
{
    tree_init(t);
    int root = add(t, -1, "Window", "Form", NULL, 0, NULL, 0);
    add(t, root, "Edit", "Name:", value, WA_ST_FOCUSED, NULL, 0);
    add(t, root, "CheckBox", "Enable", NULL, box, NULL, 0);
    add(t, root, "Button", "OK", NULL, 0, NULL, 0);
    if (with_cancel)
        add(t, root, "Button", "Cancel", NULL, 0, NULL, 0);
}

static void nothing_changed_between_equal_walks(void **state)
{
    (void)state;
    struct wa_tree a, b;
    form(&a, "x", 0, false);
    form(&b, "x", 0, false);
    struct tree_diff d;
    tree_diff_init(&d);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_true(tree_diff_empty(&d));
    assert_string_equal(dynbuf_str(&d.lines), "");
    for (size_t i = 0; i < b.count; i++)
        assert_false(b.nodes[i].is_new);
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
}

static void values_states_and_new_elements(void **state)
{
    (void)state;
    struct wa_tree a, b;
    form(&a, "", 0, false);
    form(&b, "hello", WA_ST_CHECKED, true);
    struct tree_diff d;
    tree_diff_init(&d);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_int_equal(d.n_new, 1);
    assert_int_equal(d.n_changed, 2);
    assert_int_equal(d.n_vanished, 0);
    assert_true(b.nodes[4].is_new);
    assert_false(b.nodes[3].is_new);
    const char *lines = dynbuf_str(&d.lines);
    assert_non_null(strstr(lines, "value: [2] Edit \"Name:\" \"\" -> \"hello\"\n"));
    assert_non_null(strstr(lines, "states: [3] CheckBox \"Enable\" +checked\n"));
    assert_non_null(strstr(lines, "new: [5] Button \"Cancel\"\n"));
    /* the new element says so on its tree line */
    struct dynbuf text;
    dynbuf_init(&text, 1 << 16);
    assert_int_equal(tree_format(&b, NULL, &text), WA_E_OK);
    assert_non_null(strstr(dynbuf_str(&text), "[5] Button \"Cancel\" @("));
    assert_non_null(strstr(dynbuf_str(&text), " new\n"));
    dynbuf_cleanup(&text);
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
}

static void vanished_elements_and_focus(void **state)
{
    (void)state;
    struct wa_tree a, b;
    form(&a, "x", 0, true);
    tree_init(&b);
    int root = add(&b, -1, "Window", "Form", NULL, 0, NULL, 0);
    add(&b, root, "Edit", "Name:", "x", 0, NULL, 0);
    add(&b, root, "CheckBox", "Enable", NULL, WA_ST_FOCUSED, NULL, 0);
    add(&b, root, "Button", "OK", NULL, 0, NULL, 0);
    struct tree_diff d;
    tree_diff_init(&d);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_int_equal(d.n_vanished, 1);
    assert_true(d.focus_moved);
    const char *lines = dynbuf_str(&d.lines);
    assert_non_null(strstr(lines, "gone: 1 element, among them Button \"Cancel\"\n"));
    assert_non_null(strstr(lines, "focus: [3] CheckBox \"Enable\" (was Edit \"Name:\")\n"));
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
}

static void runtime_ids_and_windows_match_across_renames_and_moves(void **state)
{
    (void)state;
    struct wa_tree a, b;
    tree_init(&a);
    tree_init(&b);
    int ra = add(&a, -1, "Window", "W", NULL, 0, NULL, 0x100);
    add(&a, ra, "Button", "Play", NULL, 0, "42.1", 0);
    add(&a, ra, "Edit", "", "a", 0, NULL, 0x200);
    /* the button renamed and moved before the edit: the same element all the same */
    int rb = add(&b, -1, "Window", "W", NULL, 0, NULL, 0x100);
    add(&b, rb, "Edit", "", "a", 0, NULL, 0x200);
    add(&b, rb, "Button", "Pause", NULL, 0, "42.1", 0);
    struct tree_diff d;
    tree_diff_init(&d);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_int_equal(d.n_new, 0);
    assert_int_equal(d.n_vanished, 0);
    assert_int_equal(d.n_changed, 1);
    assert_non_null(strstr(dynbuf_str(&d.lines), "name: [3] Button \"Pause\" was \"Play\"\n"));
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
}

static void many_changes_are_capped(void **state)
{
    (void)state;
    struct wa_tree a, b;
    tree_init(&a);
    tree_init(&b);
    int ra = add(&a, -1, "Window", "W", NULL, 0, NULL, 0);
    int rb = add(&b, -1, "Window", "W", NULL, 0, NULL, 0);
    char v[16];
    for (int i = 0; i < 30; i++) {
        snprintf(v, sizeof v, "%d", i);
        add(&a, ra, "Text", "cell", v, 0, NULL, 0);
        snprintf(v, sizeof v, "%d!", i);
        add(&b, rb, "Text", "cell", v, 0, NULL, 0);
    }
    struct tree_diff d;
    tree_diff_init(&d);
    assert_int_equal(tree_diff(&a, &b, 5, &d), WA_E_OK);
    assert_int_equal(d.n_changed, 30);
    assert_non_null(strstr(dynbuf_str(&d.lines), "... and 25 more changes\n"));
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
}

static void a_new_window_is_all_new(void **state)
{
    (void)state;
    struct wa_tree t;
    form(&t, "", 0, true);
    tree_mark_all_new(&t);
    for (size_t i = 0; i < t.count; i++)
        assert_true(t.nodes[i].is_new);
    tree_cleanup(&t);
}

static void menus_opened_and_closed(void **state)
{
    (void)state;
    struct wa_tree a, b;
    form(&a, "", 0, false);
    form(&b, "", 0, false);
    /* The menu comes first under the root: the window's elements keep their identity. */
    struct wa_tree menu;
    tree_init(&menu);
    int r = add(&menu, -1, "Pane", "", NULL, 0, NULL, 0);
    int m = add(&menu, r, "Menu", "File", NULL, 0, NULL, 0x500);
    add(&menu, m, "MenuItem", "New", NULL, 0, NULL, 0);
    add(&menu, m, "MenuItem", "Open...", NULL, 0, NULL, 0);
    add(&menu, m, "Separator", "", NULL, 0, NULL, 0);
    assert_int_equal(tree_splice_first(&b, &menu, false), WA_E_OK);
    tree_cleanup(&menu);

    struct tree_diff d;
    tree_diff_init(&d);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_string_equal(dynbuf_str(&d.lines), "menu opened: \"File\" ([2] Menu, 2 items)\n");
    assert_int_equal(d.n_new, 4);
    assert_true(b.nodes[2].is_new && b.nodes[3].is_new);
    assert_false(b.nodes[5].is_new); /* the edit, still itself */

    assert_int_equal(tree_diff(&b, &a, 20, &d), WA_E_OK);
    assert_string_equal(dynbuf_str(&d.lines), "menu closed: \"File\"\n");
    assert_int_equal(d.n_vanished, 4);

    /* An open menu nobody can read says so. */
    b.nodes[1].items_unreadable = true;
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_string_equal(dynbuf_str(&d.lines),
                        "menu opened: \"File\" ([2] Menu, items not readable)\n");
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
}

/* A step inside an open menu (an arrow key): the menu is no change, but the report says
 * it is still open and which item has the keyboard. */
static struct wa_tree with_menu(unsigned new_state, unsigned open_state)
{
    struct wa_tree t, menu;
    form(&t, "", 0, false);
    tree_init(&menu);
    int r = add(&menu, -1, "Pane", "", NULL, 0, NULL, 0);
    int m = add(&menu, r, "Menu", "File", NULL, 0, NULL, 0x500);
    add(&menu, m, "MenuItem", "New", NULL, new_state, NULL, 0);
    add(&menu, m, "MenuItem", "Open...", NULL, open_state, NULL, 0);
    assert_int_equal(tree_splice_first(&t, &menu, false), WA_E_OK);
    tree_cleanup(&menu);
    return t;
}

static void menus_still_open(void **state)
{
    (void)state;
    struct wa_tree a = with_menu(WA_ST_FOCUSED, 0), b = with_menu(0, WA_ST_FOCUSED);
    struct tree_diff d;
    tree_diff_init(&d);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_string_equal(dynbuf_str(&d.lines),
                        "focus: [4] MenuItem \"Open...\" (was MenuItem \"New\")\n");
    assert_string_equal(dynbuf_str(&d.still_open),
                        "menu open: \"File\" ([2] Menu, 2 items, at [4] MenuItem \"Open...\")\n");
    assert_int_equal(d.n_new, 0);

    /* Unreadable, and nothing else changed: only the line of the open menu. */
    a.nodes[1].items_unreadable = b.nodes[1].items_unreadable = true;
    assert_int_equal(tree_diff(&b, &b, 20, &d), WA_E_OK);
    assert_true(tree_diff_empty(&d));
    assert_string_equal(dynbuf_str(&d.lines), "");
    assert_string_equal(dynbuf_str(&d.still_open),
                        "menu open: \"File\" ([2] Menu, items not readable, at [4] MenuItem "
                        "\"Open...\")\n");

    /* A menu that opened is not "still open". */
    struct wa_tree c;
    form(&c, "", 0, false);
    assert_int_equal(tree_diff(&c, &b, 20, &d), WA_E_OK);
    assert_string_equal(dynbuf_str(&d.still_open), "");
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
    tree_cleanup(&c);
}

/* A list of 3000 rows showing rows first..first+3 (with one above and below listed), and
 * the row `renamed` named anew. */
static void rows(struct wa_tree *t, int first, int renamed)
{
    tree_init(t);
    int root = add(t, -1, "Window", "Files", NULL, 0, NULL, 0);
    struct tree_element_info list = {
        .type = "List", .name = "Files", .coll = {true, 3000, first, first + 3, 4}};
    int l = tree_add_node(t, root, &list);
    for (int i = first - 1; i <= first + 4; i++) {
        char name[32];
        snprintf(name, sizeof name, i == renamed ? "report-%d.txt (changed)" : "report-%d.txt", i);
        struct tree_element_info row = {
            .type = "ListItem", .name = name, .coll_item = true, .item_index = i};
        tree_add_node(t, l, &row);
    }
    add(t, root, "Button", "OK", NULL, 0, NULL, 0);
}

/* Rows are themselves by their index: one renamed is one change; a scroll is one line
 * for the list, however many rows came and went, each new row still marked new. */
static void collections_change_by_row(void **state)
{
    (void)state;
    struct wa_tree a, b;
    struct tree_diff d;
    tree_diff_init(&d);
    rows(&a, 10, -1);
    rows(&b, 10, 12);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_int_equal(d.n_changed, 1);
    assert_int_equal(d.n_new + d.n_vanished, 0);
    assert_string_equal(dynbuf_str(&d.lines),
                        "name: [6] ListItem \"report-12.txt (changed)\" was \"report-12.txt\"\n");
    tree_cleanup(&b);

    rows(&b, 12, -1);
    assert_int_equal(tree_diff(&a, &b, 20, &d), WA_E_OK);
    assert_int_equal(d.n_new, 2);
    assert_int_equal(d.n_vanished, 2);
    assert_string_equal(dynbuf_str(&d.lines),
                        "items: [2] List \"Files\" 3000 items, 12-15 shown (was 3000 items, 10-13 "
                        "shown); 2 listed anew, 2 no longer\n");
    assert_true(b.nodes[b.count - 2].is_new); /* row 16 */
    assert_false(b.nodes[3].is_new);          /* row 12, listed before too */
    tree_diff_cleanup(&d);
    tree_cleanup(&a);
    tree_cleanup(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_changed_between_equal_walks),
        cmocka_unit_test(values_states_and_new_elements),
        cmocka_unit_test(vanished_elements_and_focus),
        cmocka_unit_test(runtime_ids_and_windows_match_across_renames_and_moves),
        cmocka_unit_test(many_changes_are_capped),
        cmocka_unit_test(a_new_window_is_all_new),
        cmocka_unit_test(menus_opened_and_closed),
        cmocka_unit_test(menus_still_open),
        cmocka_unit_test(collections_change_by_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
