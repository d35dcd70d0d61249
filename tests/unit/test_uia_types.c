/* Unit tests: UI Automation control type names and the raw-property mapping the UIA
 * tree source uses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "automation/uia_types.h"

static void test_type_names(void **state)
{
    (void)state;
    assert_string_equal(uia_control_type_name(50000), "Button");
    assert_string_equal(uia_control_type_name(50002), "CheckBox");
    assert_string_equal(uia_control_type_name(50003), "ComboBox");
    assert_string_equal(uia_control_type_name(50004), "Edit");
    assert_string_equal(uia_control_type_name(50007), "ListItem");
    assert_string_equal(uia_control_type_name(50008), "List");
    assert_string_equal(uia_control_type_name(50011), "MenuItem");
    assert_string_equal(uia_control_type_name(50013), "RadioButton");
    assert_string_equal(uia_control_type_name(50019), "TabItem");
    assert_string_equal(uia_control_type_name(50020), "Text");
    assert_string_equal(uia_control_type_name(50024), "TreeItem");
    assert_string_equal(uia_control_type_name(50025), "Custom");
    assert_string_equal(uia_control_type_name(50030), "Document");
    assert_string_equal(uia_control_type_name(50032), "Window");
    assert_string_equal(uia_control_type_name(50033), "Pane");
    assert_string_equal(uia_control_type_name(50037), "TitleBar");
    assert_string_equal(uia_control_type_name(50040), "AppBar");
    assert_null(uia_control_type_name(49999));
    assert_null(uia_control_type_name(50041));
    assert_null(uia_control_type_name(0));
    /* Every id of the range has a name: the table has no holes. */
    for (int id = UIA_TYPE_ID_FIRST; id <= UIA_TYPE_ID_LAST; id++) {
        const char *n = uia_control_type_name(id);
        assert_non_null(n);
        assert_true(strlen(n) > 0);
    }
}

static void test_runtime_id(void **state)
{
    (void)state;
    int parts[] = {42, 7, -1};
    char *s = uia_format_runtime_id(parts, 3);
    assert_string_equal(s, "42.7.-1");
    free(s);
    int big[] = {-2147483647 - 1, 2147483647};
    s = uia_format_runtime_id(big, 2);
    assert_string_equal(s, "-2147483648.2147483647");
    free(s);
    assert_null(uia_format_runtime_id(parts, 0));
    assert_null(uia_format_runtime_id(NULL, 3));
}

static void test_button(void **state)
{
    (void)state;
    int rid[] = {42, 0x1a2b, 4};
    struct uia_raw_element r = {
        .control_type = 50000,
        .name = "OK",
        .automation_id = "1",
        .class_name = "Button",
        .hwnd = 0x1234,
        .has_rect = true,
        .left = 63.0,
        .top = 181.0,
        .width = 100.0,
        .height = 32.0,
        .is_enabled = true,
        .is_keyboard_focusable = true,
        .runtime_id = rid,
        .runtime_id_len = 3,
        .patterns = WA_PAT_INVOKE,
    };
    struct tree_element_info i;
    assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
    assert_string_equal(i.type, "Button");
    assert_string_equal(i.name, "OK");
    assert_string_equal(i.automation_id, "1");
    assert_string_equal(i.class_name, "Button");
    assert_null(i.value);
    assert_string_equal(i.runtime_id, "42.6699.4");
    assert_int_equal(i.bounds.left, 63);
    assert_int_equal(i.bounds.top, 181);
    assert_int_equal(i.bounds.right, 163);
    assert_int_equal(i.bounds.bottom, 213);
    assert_int_equal(i.states, WA_ST_FOCUSABLE);
    assert_int_equal(i.patterns, WA_PAT_INVOKE);
    assert_int_equal(i.hwnd, 0x1234);
    tree_element_info_cleanup(&i);
}

static void test_states_and_patterns(void **state)
{
    (void)state;
    struct tree_element_info i;
    /* A disabled, focused, offscreen, checked checkbox. */
    struct uia_raw_element r = {
        .control_type = 50002,
        .name = "Enable feature",
        .has_keyboard_focus = true,
        .is_offscreen = true,
        .patterns = WA_PAT_TOGGLE,
        .toggle_state = UIA_TOGGLE_ON,
    };
    assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
    assert_string_equal(i.type, "CheckBox");
    assert_int_equal(i.states, WA_ST_DISABLED | WA_ST_FOCUSED | WA_ST_OFFSCREEN | WA_ST_CHECKED);
    tree_element_info_cleanup(&i);

    /* Indeterminate is "mixed", off "unchecked"; a toggle state without the pattern means
     * nothing. */
    r.is_enabled = true;
    r.has_keyboard_focus = r.is_offscreen = false;
    r.toggle_state = UIA_TOGGLE_INDETERMINATE;
    assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
    assert_int_equal(i.states, WA_ST_MIXED);
    tree_element_info_cleanup(&i);
    r.toggle_state = UIA_TOGGLE_OFF;
    assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
    assert_int_equal(i.states, WA_ST_UNCHECKED);
    tree_element_info_cleanup(&i);
    r.toggle_state = UIA_TOGGLE_ON;
    r.patterns = 0;
    assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
    assert_int_equal(i.states, 0);
    tree_element_info_cleanup(&i);

    /* Expand/collapse: leaf nodes are neither; partially expanded counts as expanded. */
    struct uia_raw_element tree_item = {
        .control_type = 50024, .is_enabled = true, .patterns = WA_PAT_EXPAND | WA_PAT_SELECT};
    const struct {
        int expand;
        unsigned want;
    } cases[] = {{UIA_EXPAND_COLLAPSED, WA_ST_COLLAPSED},
                 {UIA_EXPAND_EXPANDED, WA_ST_EXPANDED},
                 {UIA_EXPAND_PARTIALLY, WA_ST_EXPANDED},
                 {UIA_EXPAND_LEAF, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tree_item.expand_state = cases[k].expand;
        assert_int_equal(uia_element_to_info(&tree_item, &i), WA_E_OK);
        assert_int_equal(i.states, cases[k].want);
        tree_element_info_cleanup(&i);
    }
    tree_item.is_selected = true;
    tree_item.expand_state = UIA_EXPAND_LEAF;
    assert_int_equal(uia_element_to_info(&tree_item, &i), WA_E_OK);
    assert_int_equal(i.states, WA_ST_SELECTED);
    tree_element_info_cleanup(&i);
    /* Selected without the SelectionItem pattern: not reported. */
    tree_item.patterns = 0;
    assert_int_equal(uia_element_to_info(&tree_item, &i), WA_E_OK);
    assert_int_equal(i.states, 0);
    tree_element_info_cleanup(&i);

    /* A legacy default action adds the MSAA default-action pattern bit. */
    struct uia_raw_element legacy = {
        .control_type = 50033, .is_enabled = true, .default_action = "Press"};
    assert_int_equal(uia_element_to_info(&legacy, &i), WA_E_OK);
    assert_int_equal(i.patterns, WA_PAT_DEFAULT_ACTION);
    tree_element_info_cleanup(&i);
    legacy.default_action = "";
    assert_int_equal(uia_element_to_info(&legacy, &i), WA_E_OK);
    assert_int_equal(i.patterns, 0);
    assert_null(i.accelerator);
    tree_element_info_cleanup(&i);

    /* A menu item's accelerator key is kept apart from its name. */
    struct uia_raw_element item = {
        .control_type = 50011, .name = "Save", .is_enabled = true, .accelerator = "Ctrl+S"};
    assert_int_equal(uia_element_to_info(&item, &i), WA_E_OK);
    assert_string_equal(i.name, "Save");
    assert_string_equal(i.accelerator, "Ctrl+S");
    tree_element_info_cleanup(&i);
}

static void test_values(void **state)
{
    (void)state;
    struct tree_element_info i;
    struct uia_raw_element edit = {.control_type = 50004,
                                   .name = "Name:",
                                   .is_enabled = true,
                                   .patterns = WA_PAT_VALUE,
                                   .value = "hello"};
    assert_int_equal(uia_element_to_info(&edit, &i), WA_E_OK);
    assert_string_equal(i.type, "Edit");
    assert_string_equal(i.value, "hello");
    tree_element_info_cleanup(&i);
    /* An empty value is still a value (an empty edit), NULL from UIA included. */
    edit.value = NULL;
    assert_int_equal(uia_element_to_info(&edit, &i), WA_E_OK);
    assert_string_equal(i.value, "");
    tree_element_info_cleanup(&i);
    /* No Value pattern: no value, whatever ValueValue held. */
    edit.value = "stale";
    edit.patterns = 0;
    assert_int_equal(uia_element_to_info(&edit, &i), WA_E_OK);
    assert_null(i.value);
    tree_element_info_cleanup(&i);
    /* Password fields never show their value. */
    edit.patterns = WA_PAT_VALUE;
    edit.value = "secret";
    edit.is_password = true;
    assert_int_equal(uia_element_to_info(&edit, &i), WA_E_OK);
    assert_null(i.value);
    tree_element_info_cleanup(&i);
}

static void test_unknown_type_and_rects(void **state)
{
    (void)state;
    struct tree_element_info i;
    struct uia_raw_element r = {.control_type = 12345, .is_enabled = true};
    assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
    assert_string_equal(i.type, "Custom");
    assert_null(i.name);
    assert_null(i.runtime_id);
    assert_true(wa_rect_empty(i.bounds));
    tree_element_info_cleanup(&i);

    /* Fractional rectangles round to the nearest pixel (DPI-scaled elements). */
    r.has_rect = true;
    r.left = -10.6;
    r.top = 20.4;
    r.width = 100.2;
    r.height = 0.7;
    assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
    assert_int_equal(i.bounds.left, -11);
    assert_int_equal(i.bounds.top, 20);
    assert_int_equal(i.bounds.right, 90);
    assert_int_equal(i.bounds.bottom, 21);
    tree_element_info_cleanup(&i);

    /* Empty, negative and non-finite rectangles become "no bounds". */
    const double bad[][4] = {{0, 0, 0, 10},    {0, 0, 10, -1},       {INFINITY, 0, 10, 10},
                             {0, NAN, 10, 10}, {0, 0, INFINITY, 10}, {1e12, 0, 10, 10},
                             {5, 5, 0.2, 0.2}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        r.left = bad[k][0];
        r.top = bad[k][1];
        r.width = bad[k][2];
        r.height = bad[k][3];
        assert_int_equal(uia_element_to_info(&r, &i), WA_E_OK);
        assert_true(wa_rect_empty(i.bounds));
        assert_int_equal(i.bounds.left, 0);
        assert_int_equal(i.bounds.right, 0);
        tree_element_info_cleanup(&i);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_names), cmocka_unit_test(test_runtime_id),
        cmocka_unit_test(test_button),     cmocka_unit_test(test_states_and_patterns),
        cmocka_unit_test(test_values),     cmocka_unit_test(test_unknown_type_and_rects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
