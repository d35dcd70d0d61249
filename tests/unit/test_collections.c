/* Unit tests: long collections through the core on the fake desktop: what a state lists
 * of a 3,000-row list and what its line says, find reaching a row beyond what was
 * listed (in a refs client, where a later process finds it again, and in the model's
 * session, where the ids it knows stay), acting on such a row scrolling it into view
 * first, and the change report of a scroll. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_rig.h"

#include "base/os.h"

static const char scene[] =
    "{\"monitors\": [{\"rect\": [0, 0, 1920, 1080], \"primary\": true}],"
    " \"windows\": ["
    "  {\"hwnd\": 256, \"title\": \"winagent bigwin\", \"process\": \"bigapp.exe\", \"pid\": 7,"
    "   \"rect\": [0, 0, 1000, 800], \"foreground\": true, \"color\": \"#ffffff\","
    "   \"tree\": {\"type\": \"Window\", \"name\": \"winagent bigwin\","
    "     \"bounds\": [0, 0, 1000, 800], \"children\": ["
    "     {\"type\": \"Edit\", \"name\": \"Filter:\", \"bounds\": [90, 20, 480, 44],"
    "      \"value\": \"\", \"patterns\": [\"value\"]},"
    "     {\"type\": \"List\", \"name\": \"Files\", \"bounds\": [20, 80, 600, 680],"
    "      \"collection\": {\"count\": 3000, \"name\": \"report\", \"top\": 0,"
    "                      \"per_page\": 30, \"row_height\": 20}}]}}]}";

/* The element of the result named name, or NULL. */
static const struct op_elem *element(const struct op_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_elements; i++)
        if (strcmp(r->elements[i].name, name) == 0)
            return &r->elements[i];
    return NULL;
}

static void state_lists_the_rows_in_view_and_counts_the_rest(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    rig_open(&t, scene, &cfg, rig_state_dir, true);
    assert_int_equal(rig_do(&t, OP_STATE, "window=bigwin"), WA_E_OK);
    assert_non_null(strstr(t.r.text, "] List \"Files\" @("));
    assert_non_null(strstr(t.r.text, ") 3000 items, 0-29 shown\n"));
    assert_non_null(element(&t.r, "Filter:"));
    assert_non_null(element(&t.r, "report 0"));
    assert_non_null(element(&t.r, "report 29"));
    const struct op_elem *below = element(&t.r, "report 30"); /* one listed beyond */
    assert_non_null(below);
    assert_true(below->states & WA_ST_OFFSCREEN);
    assert_int_equal(below->item_index, 30);
    assert_null(element(&t.r, "report 31"));
    assert_null(element(&t.r, "report 2718"));
    const struct op_elem *list = element(&t.r, "Files");
    assert_true(list->coll.is);
    assert_int_equal(list->coll.count, 3000);
    rig_close(&t);
}

/* A refs client (the CLI): find lists the row with a ref; select in a later process
 * (a session of its own) finds it again, scrolls it into view, then selects it. */
static void find_reaches_a_far_row_and_select_scrolls_to_it(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    rig_open(&t, scene, &cfg, rig_state_dir, true);
    assert_int_equal(rig_do(&t, OP_FIND, "window=bigwin|selector=~report 2718*"), WA_E_OK);
    assert_int_equal(t.r.n_elements, 1);
    const struct op_elem *row = &t.r.elements[0];
    assert_string_equal(row->name, "report 2718");
    assert_int_equal(row->item_index, 2718);
    assert_true(row->states & WA_ST_OFFSCREEN);
    char ref[48];
    snprintf(ref, sizeof ref, "window=bigwin|ref=%d", row->id);
    rig_close(&t);

    struct core_config cfg2 = {0};
    struct rig later;
    later.core = NULL;
    /* a later process: the same scene as the desktop left it, refs from the disk */
    struct core *c = NULL;
    cfg2.be = backend_default();
    cfg2.state_dir = rig_state_dir;
    cfg2.max_actions_per_s = 1000;
    assert_int_equal(core_new(&cfg2, &c), WA_E_OK);
    struct session_opts o;
    session_opts_default(&o);
    o.front = "test";
    o.refs = o.refs_on_disk = true;
    o.settle_ms = 0;
    assert_int_equal(session_new(c, &o, &later.s), WA_E_OK);
    op_result_init(&later.r);
    assert_int_equal(rig_do(&later, OP_SELECT, ref), WA_E_OK);
    assert_string_equal(later.r.element.name, "report 2718");
    assert_true(actions_hold("\"action\":\"scroll_into_view\",\"name\":\"report 2718\""));
    assert_true(actions_hold("\"action\":\"select\",\"name\":\"report 2718\""));
    bool noted = false;
    for (size_t i = 0; i < later.r.n_notes; i++)
        noted = noted || strstr(later.r.notes[i], "into view first");
    assert_true(noted);
    /* what the list shows now */
    assert_int_equal(rig_do(&later, OP_STATE, "window=bigwin"), WA_E_OK);
    assert_non_null(strstr(later.r.text, "3000 items, 2689-2718 shown"));
    const struct op_elem *now = element(&later.r, "report 2718");
    assert_non_null(now);
    assert_true(now->states & WA_ST_SELECTED);
    assert_false(now->states & WA_ST_OFFSCREEN);
    op_result_cleanup(&later.r);
    session_free(later.s);
    core_free(c);
}

/* The model's session: find adds to the tree of its latest observation (the ids it was
 * shown stay), and the id find gives acts on the row. */
static void the_model_finds_without_losing_its_ids(void **state)
{
    (void)state;
    struct core_config cfg = {0};
    struct rig t;
    rig_open(&t, scene, &cfg, rig_state_dir, false);
    assert_int_equal(rig_do(&t, OP_OBSERVE, "window=bigwin|mode=a11y"), WA_E_OK);
    const struct wa_tree *tree = session_tree(t.s);
    size_t before = tree->count;
    char *first = strdup(tree->nodes[3].name);
    assert_int_equal(rig_do(&t, OP_FIND, "window=bigwin|selector=report 1500"), WA_E_OK);
    assert_int_equal(t.r.n_elements, 1);
    int id = t.r.elements[0].id;
    assert_int_equal(id, (int)before + 1); /* after the last */
    tree = session_tree(t.s);
    assert_string_equal(tree->nodes[3].name, first); /* the ids it knew, as they were */
    free(first);
    char args[64];
    snprintf(args, sizeof args, "window=bigwin|ref=%d", id);
    assert_int_equal(rig_do(&t, OP_SELECT, args), WA_E_OK);
    assert_true(actions_hold("\"action\":\"select\",\"name\":\"report 1500\""));
    /* The change report: the list scrolled, one line for it. */
    assert_true(t.r.has_changes);
    assert_non_null(strstr(dynbuf_str(&t.r.changes),
                           "] List \"Files\" 3000 items, 1471-1500 shown (was 3000 items, "
                           "0-29 shown); "));
    rig_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_lists_the_rows_in_view_and_counts_the_rest),
        cmocka_unit_test(find_reaches_a_far_row_and_select_scrolls_to_it),
        cmocka_unit_test(the_model_finds_without_losing_its_ids),
    };
    return cmocka_run_group_tests(tests, rig_state_setup, rig_state_teardown);
}
