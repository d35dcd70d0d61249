/* Unit tests: MSAA roles and states, and standard window classes, as the tree's control
 * types and state bits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "automation/msaa_roles.h"
#include "automation/tree.h"

static void test_roles(void **state)
{
    (void)state;
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_PUSHBUTTON, 0), "Button");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_MENUITEM, 0), "MenuItem");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_MENUBAR, 0), "MenuBar");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_TITLEBAR, 0), "TitleBar");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_CHECKBUTTON, 0), "CheckBox");
    assert_string_equal(msaa_role_type_name(0x2d, 0), "RadioButton");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_LIST, 0), "List");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_LISTITEM, 0), "ListItem");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_COMBOBOX, 0), "ComboBox");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_PAGETAB, 0), "TabItem");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_OUTLINEITEM, 0), "TreeItem");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_STATICTEXT, 0), "Text");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_WINDOW, 0), "Window");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_CLIENT, 0), "Pane");
    assert_string_equal(msaa_role_type_name(0x03, 0), "ScrollBar");
    assert_string_equal(msaa_role_type_name(0x3c, 0), "Tab");
    /* TEXT is an edit unless read-only. */
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_TEXT, 0), "Edit");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_TEXT, MSAA_STATE_FOCUSED), "Edit");
    assert_string_equal(msaa_role_type_name(MSAA_ROLE_TEXT, MSAA_STATE_READONLY), "Text");
    assert_null(msaa_role_type_name(0, 0));
    assert_null(msaa_role_type_name(MSAA_ROLE_LAST + 1, 0));
    assert_null(msaa_role_type_name(-4, 0));
    for (long r = 1; r <= MSAA_ROLE_LAST; r++)
        assert_non_null(msaa_role_type_name(r, 0));

    assert_true(msaa_role_is_generic(MSAA_ROLE_CLIENT));
    assert_true(msaa_role_is_generic(MSAA_ROLE_WINDOW));
    assert_true(msaa_role_is_generic(MSAA_ROLE_PANE));
    assert_false(msaa_role_is_generic(MSAA_ROLE_PUSHBUTTON));
    assert_false(msaa_role_is_generic(MSAA_ROLE_TEXT));
}

static void test_states(void **state)
{
    (void)state;
    assert_int_equal(msaa_state_to_wa(0), 0);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_UNAVAILABLE), WA_ST_DISABLED);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_FOCUSED | MSAA_STATE_FOCUSABLE),
                     WA_ST_FOCUSED | WA_ST_FOCUSABLE);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_CHECKED), WA_ST_CHECKED);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_EXPANDED), WA_ST_EXPANDED);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_COLLAPSED), WA_ST_COLLAPSED);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_SELECTED), WA_ST_SELECTED);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_INVISIBLE), WA_ST_OFFSCREEN);
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_OFFSCREEN), WA_ST_OFFSCREEN);
    /* Bits with no tree meaning (read-only, protected, hot-tracked...) are dropped. */
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_READONLY | MSAA_STATE_PROTECTED | 0x80), 0);
    /* Wine's client object for an enabled, focused edit: 0x100004. */
    assert_int_equal(msaa_state_to_wa(0x100004), WA_ST_FOCUSED | WA_ST_FOCUSABLE);
}

/* Check boxes: a CHECKBUTTON's three states, and the state images of tree and list
 * items (TVS_CHECKBOXES's 1 and 2, the partial 3, installers' read-only 4 to 6). */
static void test_check_boxes(void **state)
{
    (void)state;
    assert_int_equal(msaa_state_to_wa(MSAA_STATE_MIXED | MSAA_STATE_CHECKED), WA_ST_MIXED);
    assert_int_equal(msaa_check_states(MSAA_ROLE_CHECKBUTTON, 0), WA_ST_UNCHECKED);
    assert_int_equal(msaa_check_states(MSAA_ROLE_CHECKBUTTON, MSAA_STATE_CHECKED), WA_ST_CHECKED);
    assert_int_equal(msaa_check_states(MSAA_ROLE_CHECKBUTTON, MSAA_STATE_MIXED), WA_ST_MIXED);
    assert_int_equal(msaa_check_states(MSAA_ROLE_PUSHBUTTON, MSAA_STATE_CHECKED), 0);
    static const unsigned want[] = {
        0, WA_ST_UNCHECKED, WA_ST_CHECKED, WA_ST_MIXED, WA_ST_UNCHECKED, WA_ST_CHECKED, WA_ST_MIXED,
        0};
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(msaa_state_image_check(i), want[i]);
    assert_int_equal(msaa_state_image_check(15), 0);
}

static void test_classes(void **state)
{
    (void)state;
    /* Buttons by BS_* type; BS_PUSHLIKE makes checkboxes and radios look like buttons. */
    assert_string_equal(msaa_class_type_name("Button", 0x0), "Button");
    assert_string_equal(msaa_class_type_name("Button", 0x1), "Button");
    assert_string_equal(msaa_class_type_name("BUTTON", 0x50010003), "CheckBox");
    assert_string_equal(msaa_class_type_name("button", 0x2), "CheckBox");
    assert_string_equal(msaa_class_type_name("Button", 0x5), "CheckBox");
    assert_string_equal(msaa_class_type_name("Button", 0x6), "CheckBox");
    assert_string_equal(msaa_class_type_name("Button", 0x1003), "Button");
    assert_string_equal(msaa_class_type_name("Button", 0x4), "RadioButton");
    assert_string_equal(msaa_class_type_name("Button", 0x9), "RadioButton");
    assert_string_equal(msaa_class_type_name("Button", 0x7), "Group");
    assert_string_equal(msaa_class_type_name("Button", 0xB), "Button"); /* owner-drawn */
    assert_string_equal(msaa_class_type_name("Button", 0xC), "SplitButton");
    /* Statics: text, or an image for icon/bitmap statics. */
    assert_string_equal(msaa_class_type_name("Static", 0x50000000), "Text");
    assert_string_equal(msaa_class_type_name("Static", 0x1000), "Text"); /* SS_SUNKEN */
    assert_string_equal(msaa_class_type_name("Static", 0x3), "Image");
    assert_string_equal(msaa_class_type_name("Static", 0xE), "Image");
    assert_string_equal(msaa_class_type_name("Edit", 0), "Edit");
    assert_string_equal(msaa_class_type_name("RichEdit20W", 0), "Edit");
    assert_string_equal(msaa_class_type_name("ListBox", 0), "List");
    assert_string_equal(msaa_class_type_name("ComboBox", 0), "ComboBox");
    assert_string_equal(msaa_class_type_name("SysTreeView32", 0), "Tree");
    assert_string_equal(msaa_class_type_name("SysListView32", 0), "List");
    assert_string_equal(msaa_class_type_name("msctls_statusbar32", 0), "StatusBar");
    assert_string_equal(msaa_class_type_name("#32770", 0), "Pane");
    assert_null(msaa_class_type_name("WinagentCanvas", 0));
    assert_null(msaa_class_type_name("", 0));
    assert_null(msaa_class_type_name(NULL, 0));

    assert_true(msaa_class_text_is_value("Edit"));
    assert_true(msaa_class_text_is_value("RICHEDIT50W"));
    assert_false(msaa_class_text_is_value("Static"));
    assert_false(msaa_class_text_is_value("Button"));
    assert_false(msaa_class_text_is_value(NULL));

    assert_int_equal(msaa_class_items("ListBox"), MSAA_ITEMS_LISTBOX);
    assert_int_equal(msaa_class_items("COMBOBOX"), MSAA_ITEMS_COMBOBOX);
    assert_int_equal(msaa_class_items("SysTreeView32"), MSAA_ITEMS_TREEVIEW);
    assert_int_equal(msaa_class_items("SysListView32"), MSAA_ITEMS_LISTVIEW);
    assert_int_equal(msaa_class_items("SysTabControl32"), MSAA_ITEMS_TAB);
    assert_int_equal(msaa_class_items("ToolbarWindow32"), MSAA_ITEMS_TOOLBAR);
    assert_int_equal(msaa_class_items("msctls_statusbar32"), MSAA_ITEMS_STATUSBAR);
    assert_int_equal(msaa_class_items("Edit"), MSAA_ITEMS_NONE);
    assert_int_equal(msaa_class_items("SysHeader32"), MSAA_ITEMS_NONE);
    assert_int_equal(msaa_class_items(NULL), MSAA_ITEMS_NONE);
}

static void check_name(const char *in, const char *want)
{
    char *got = msaa_text_to_name(in);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_text_to_name(void **state)
{
    (void)state;
    check_name("&File", "File");
    check_name("Save &As...", "Save As...");
    check_name("Fish && Chips", "Fish & Chips");
    check_name("&&&Go", "&Go");
    check_name("Open\tCtrl+O", "Open");
    check_name("&Open...\tCtrl+O", "Open...");
    check_name("  OK  ", "OK");
    check_name("trailing&", "trailing");
    check_name("", "");
    check_name("Grüße &Öffnen", "Grüße Öffnen");
    assert_null(msaa_text_to_name(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roles),        cmocka_unit_test(test_states),
        cmocka_unit_test(test_check_boxes),  cmocka_unit_test(test_classes),
        cmocka_unit_test(test_text_to_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
