/* Unit tests: the generic tree walk (through a scripted element source), the §5 text
 * format and the usefulness verdict. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "automation/tree.h"
#include "automation/tree_format.h"
#include "base/os.h"
#include "base/str.h"

/* The element tables below list only the fields each case needs. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* ---- a scripted element source ---- */

struct fake_el {
    int parent; /* index, -1 for the root */
    const char *type, *name, *automation_id, *class_name, *value;
    struct wa_rect bounds;
    unsigned states;
    uint64_t hwnd;
    const char *window_text, *msaa_name; /* what the fallbacks would find */
    bool info_fails, children_fail;
};

struct fake_src {
    const struct fake_el *els;
    int count;
    int live; /* handles handed out and not yet released */
    int info_delay_ms;
    int window_text_calls;
};

/* Handles are index + 1 cast to a pointer, so NULL stays "none". */
static void *h(int i)
{
    return (void *)(intptr_t)(i + 1);
}
static int ix(void *p)
{
    return (int)(intptr_t)p - 1;
}

static wa_err f_root(void *ctx, void **el)
{
    struct fake_src *s = ctx;
    s->live++;
    *el = h(0);
    return WA_E_OK;
}

static wa_err f_first_child(void *ctx, void *el, void **out)
{
    struct fake_src *s = ctx;
    *out = NULL;
    if (s->els[ix(el)].children_fail)
        return WA_E_ACTION_FAILED;
    for (int i = 0; i < s->count; i++)
        if (s->els[i].parent == ix(el)) {
            s->live++;
            *out = h(i);
            break;
        }
    return WA_E_OK;
}

static wa_err f_next_sibling(void *ctx, void *el, void **out)
{
    struct fake_src *s = ctx;
    *out = NULL;
    int me = ix(el);
    for (int i = me + 1; i < s->count; i++)
        if (s->els[i].parent == s->els[me].parent) {
            s->live++;
            *out = h(i);
            break;
        }
    return WA_E_OK;
}

static wa_err f_info(void *ctx, void *el, struct tree_element_info *out)
{
    struct fake_src *s = ctx;
    const struct fake_el *e = &s->els[ix(el)];
    if (s->info_delay_ms)
        os_sleep_ms(s->info_delay_ms);
    if (e->info_fails)
        return WA_E_ACTION_FAILED;
    out->type = str_dup(e->type);
    out->name = str_dup(e->name);
    out->automation_id = str_dup(e->automation_id);
    out->class_name = str_dup(e->class_name);
    out->value = str_dup(e->value);
    out->bounds = e->bounds;
    out->states = e->states;
    out->hwnd = e->hwnd;
    return WA_E_OK;
}

static const struct fake_el *by_hwnd(struct fake_src *s, uint64_t hwnd)
{
    for (int i = 0; i < s->count; i++)
        if (s->els[i].hwnd == hwnd)
            return &s->els[i];
    return NULL;
}

static wa_err f_window_text(void *ctx, uint64_t hwnd, char **out)
{
    struct fake_src *s = ctx;
    s->window_text_calls++;
    const struct fake_el *e = by_hwnd(s, hwnd);
    *out = e ? str_dup(e->window_text) : NULL;
    return WA_E_OK;
}

static wa_err f_msaa_name(void *ctx, uint64_t hwnd, char **out)
{
    const struct fake_el *e = by_hwnd(ctx, hwnd);
    *out = e ? str_dup(e->msaa_name) : NULL;
    return WA_E_OK;
}

static void f_release(void *ctx, void *el)
{
    (void)el;
    ((struct fake_src *)ctx)->live--;
}

static const struct tree_source_ops fake_ops = {
    .name = "fake",
    .root = f_root,
    .first_child = f_first_child,
    .next_sibling = f_next_sibling,
    .info = f_info,
    .window_text = f_window_text,
    .msaa_name = f_msaa_name,
    .release = f_release,
};

/* A notepad-like window: frame [0,0][1000,1000] so centres in 0-999 are easy. */
static const struct fake_el notepad[] = {
    {-1, "Window", "Untitled - Notepad", NULL, "Notepad", NULL, {0, 0, 1000, 1000}, 0, 1},
    {0, "MenuBar", "Application", NULL, NULL, NULL, {0, 20, 1000, 40}, 0, 0},
    {1, "MenuItem", "File", NULL, NULL, NULL, {0, 20, 50, 40}, 0, 0},
    {1, "MenuItem", "Edit", NULL, NULL, NULL, {50, 20, 100, 40}, 0, 0},
    {0,
     "Edit",
     "Text \"Editor\"",
     NULL,
     "Edit",
     "hello\nworld",
     {0, 40, 1000, 1000},
     WA_ST_FOCUSED | WA_ST_FOCUSABLE,
     2},
    {0, "Pane", "", NULL, "Button", NULL, {900, 0, 1000, 20}, WA_ST_DISABLED, 3, "Close", NULL},
};

static void walk(const struct fake_el *els, int n, struct tree_walk_opts *o, struct wa_tree *t,
                 struct fake_src *s)
{
    memset(s, 0, sizeof *s);
    s->els = els;
    s->count = n;
    tree_init(t);
    assert_int_equal(tree_walk(&fake_ops, s, o, t), WA_E_OK);
    t->frame = (struct wa_rect){0, 0, 1000, 1000};
    t->hwnd = 0x30044;
    t->title = str_dup("Untitled - Notepad");
    t->process = str_dup("notepad.exe");
}

static void walk_is_depth_first_and_formats_per_spec(void **state)
{
    (void)state;
    struct fake_src s;
    struct wa_tree t;
    walk(notepad, 6, NULL, &t, &s);
    assert_int_equal(t.count, 6);
    assert_int_equal(s.live, 0); /* every handle released */
    assert_string_equal(t.source, "fake");
    assert_int_equal(t.nodes[2].parent, 1);
    assert_int_equal(t.nodes[2].depth, 2);
    /* Pane with class Button became a Button named by its window text. */
    assert_string_equal(t.nodes[5].type, "Button");
    assert_string_equal(t.nodes[5].name, "Close");
    assert_int_equal(t.nodes[5].name_source, WA_NAME_WINDOW_TEXT);

    struct dynbuf out;
    dynbuf_init(&out, 1 << 16);
    assert_int_equal(tree_format(&t, NULL, &out), WA_E_OK);
    assert_string_equal(dynbuf_str(&out),
                        "Window: \"Untitled - Notepad\" (notepad.exe) hwnd=0x30044 "
                        "frame=[0,0][1000,1000]\n"
                        "[1] Window \"Untitled - Notepad\" @(500,500)\n"
                        "  [2] MenuBar \"Application\" @(500,30)\n"
                        "    [3] MenuItem \"File\" @(25,30)\n"
                        "    [4] MenuItem \"Edit\" @(75,30)\n"
                        "  [5] Edit \"Text \\\"Editor\\\"\" @(500,520) value=\"hello\\nworld\" "
                        "focused\n"
                        "  [6] Button \"Close\" @(950,10) disabled\n");
    dynbuf_reset(&out);
    struct tree_format_opts o = {.verbose = true, .max_depth = -1, .scope = -1};
    assert_int_equal(tree_format(&t, &o, &out), WA_E_OK);
    assert_non_null(
        strstr(dynbuf_str(&out), "[3] MenuItem \"File\" @(25,30) bounds=[0,20][50,40]"));
    dynbuf_cleanup(&out);
    tree_cleanup(&t);
}

static void name_fallback_chain_in_order(void **state)
{
    (void)state;
    static const struct fake_el els[] = {
        {-1, "Window", "w", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 1},
        /* UIA name wins over everything */
        {0, "Button", "Seven", "num7Button", NULL, NULL, {0}, 0, 2, "7", "seven"},
        /* automation id when the name is empty */
        {0, "Button", "", "num8Button", NULL, NULL, {0}, 0, 3, "8", "eight"},
        /* window text when there is no automation id */
        {0, "Button", "", "", NULL, NULL, {0}, 0, 4, "9", "nine"},
        /* MSAA name when the window text is empty */
        {0, "Button", NULL, NULL, NULL, NULL, {0}, 0, 5, "", "plus"},
        /* virtual element (hwnd 0): no window-based fallback is even asked */
        {0, "Button", "", NULL, NULL, NULL, {0}, 0, 0, "x", "y"},
        /* an edit's window text is its content, never its name */
        {0, "Edit", "", NULL, NULL, "typed", {0}, 0, 7, "typed", "Search"},
    };
    struct fake_src s;
    struct wa_tree t;
    walk(els, 7, NULL, &t, &s);
    assert_string_equal(t.nodes[1].name, "Seven");
    assert_int_equal(t.nodes[1].name_source, WA_NAME_PRIMARY);
    assert_string_equal(t.nodes[2].name, "num8Button");
    assert_int_equal(t.nodes[2].name_source, WA_NAME_AUTOMATION_ID);
    assert_string_equal(t.nodes[3].name, "9");
    assert_int_equal(t.nodes[3].name_source, WA_NAME_WINDOW_TEXT);
    assert_string_equal(t.nodes[4].name, "plus");
    assert_int_equal(t.nodes[4].name_source, WA_NAME_MSAA);
    assert_string_equal(t.nodes[5].name, "");
    assert_int_equal(t.nodes[5].name_source, WA_NAME_NONE);
    assert_string_equal(t.nodes[6].name, "Search");
    assert_int_equal(t.nodes[6].name_source, WA_NAME_MSAA);
    tree_cleanup(&t);
}

static void failing_elements_fall_through(void **state)
{
    (void)state;
    static const struct fake_el els[] = {
        {-1, "Window", "w", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 1},
        {0, "Pane", "broken", NULL, NULL, NULL, {0}, 0, 0, NULL, NULL, true, false},
        {0, "Group", "no kids", NULL, NULL, NULL, {0}, 0, 0, NULL, NULL, false, true},
        {2, "Button", "hidden by the failing branch", NULL, NULL, NULL, {0}, 0, 0},
        {0, "Button", "after", NULL, NULL, NULL, {0}, 0, 0},
    };
    struct fake_src s;
    struct wa_tree t;
    walk(els, 5, NULL, &t, &s);
    assert_int_equal(t.count, 4);
    assert_string_equal(t.nodes[1].type, "Custom"); /* info failed: still a node */
    assert_string_equal(t.nodes[2].name, "no kids");
    assert_string_equal(t.nodes[3].name, "after");
    assert_int_equal(s.live, 0);
    tree_cleanup(&t);
}

static void node_budget_truncates_with_warning(void **state)
{
    (void)state;
    enum { N = 700 };
    static struct fake_el els[N];
    els[0] = (struct fake_el){-1, "Window", "big", NULL, NULL, NULL, {0, 0, 100, 100}, 0, 1};
    for (int i = 1; i < N; i++)
        els[i] = (struct fake_el){0, "ListItem", "item", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 0};
    struct fake_src s;
    struct wa_tree t;
    walk(els, N, NULL, &t, &s);
    assert_int_equal(t.count, 500);
    assert_true(t.truncated);
    assert_int_equal(s.live, 0);
    struct dynbuf out;
    dynbuf_init(&out, 1 << 20);
    assert_int_equal(tree_format(&t, NULL, &out), WA_E_OK);
    assert_non_null(strstr(dynbuf_str(&out), "\n# WARNING: tree truncated at 500 nodes\n"));
    dynbuf_cleanup(&out);
    tree_cleanup(&t);
}

static void time_budget_returns_partial_tree(void **state)
{
    (void)state;
    enum { N = 200 };
    static struct fake_el els[N];
    els[0] = (struct fake_el){-1, "Window", "slow", NULL, NULL, NULL, {0, 0, 100, 100}, 0, 1};
    for (int i = 1; i < N; i++)
        els[i] = (struct fake_el){0, "Button", "b", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 0};
    struct fake_src s;
    memset(&s, 0, sizeof s);
    s.els = els;
    s.count = N;
    s.info_delay_ms = 5;
    struct wa_tree t;
    tree_init(&t);
    struct tree_walk_opts o = {.budget_ms = 60};
    int64_t start = os_now_ms();
    assert_int_equal(tree_walk(&fake_ops, &s, &o, &t), WA_E_OK);
    int64_t took = os_now_ms() - start;
    assert_true(t.timed_out);
    assert_true(t.count > 1 && t.count < N);
    assert_true(took < 200);
    assert_int_equal(s.live, 0);
    tree_cleanup(&t);
}

static int released_handles;
static void count_release(void *handle)
{
    (void)handle;
    released_handles++;
}

static void kept_handles_are_released_by_cleanup(void **state)
{
    (void)state;
    struct fake_src s;
    struct wa_tree t;
    struct tree_walk_opts o = {.keep_handles = true};
    walk(notepad, 6, &o, &t, &s);
    assert_int_equal(s.live, 6);
    for (size_t i = 0; i < t.count; i++)
        assert_int_equal(ix(t.nodes[i].handle), (int)i);
    released_handles = 0;
    t.release_handle = count_release;
    tree_cleanup(&t);
    assert_int_equal(released_handles, 6);
}

static void filters_for_state_keep_ids(void **state)
{
    (void)state;
    struct fake_src s;
    struct wa_tree t;
    walk(notepad, 6, NULL, &t, &s);
    struct dynbuf out;
    dynbuf_init(&out, 1 << 16);
    struct tree_format_opts o = {.interactive_only = true, .max_depth = -1, .scope = -1};
    assert_int_equal(tree_format(&t, &o, &out), WA_E_OK);
    const char *text = dynbuf_str(&out);
    assert_null(strstr(text, "[1] Window"));
    assert_null(strstr(text, "MenuBar"));
    assert_non_null(strstr(text, "    [3] MenuItem \"File\""));
    assert_non_null(strstr(text, "  [5] Edit"));
    dynbuf_reset(&out);
    o = (struct tree_format_opts){.max_depth = 1, .scope = -1};
    assert_int_equal(tree_format(&t, &o, &out), WA_E_OK);
    assert_null(strstr(dynbuf_str(&out), "[3]"));
    assert_non_null(strstr(dynbuf_str(&out), "[2] MenuBar"));
    dynbuf_reset(&out);
    o = (struct tree_format_opts){.max_depth = -1, .scope = 1};
    assert_int_equal(tree_format(&t, &o, &out), WA_E_OK);
    assert_non_null(strstr(dynbuf_str(&out), "\n[2] MenuBar \"Application\" @(500,30)\n  [3]"));
    assert_null(strstr(dynbuf_str(&out), "[5]"));
    dynbuf_reset(&out);
    o = (struct tree_format_opts){.max_depth = -1, .scope = 99};
    assert_int_equal(tree_format(&t, &o, &out), WA_E_ELEMENT_NOT_FOUND);
    dynbuf_cleanup(&out);
    assert_string_equal(tree_node_by_id(&t, 3)->name, "File");
    assert_null(tree_node_by_id(&t, 0));
    assert_null(tree_node_by_id(&t, 7));
    tree_cleanup(&t);
}

static void compact_drops_empty_structure(void **state)
{
    (void)state;
    static const struct fake_el els[] = {
        {-1, "Window", "w", NULL, NULL, NULL, {0, 0, 100, 100}, 0, 0},
        {0, "Pane", "", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 0},  /* dropped */
        {0, "Group", "", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 0}, /* kept: has a child */
        {2, "Button", "OK", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 0},
        {0, "Pane", "Named", NULL, NULL, NULL, {0, 0, 10, 10}, 0, 0}, /* kept: named */
    };
    struct fake_src s;
    struct wa_tree t;
    walk(els, 5, NULL, &t, &s);
    struct dynbuf out;
    dynbuf_init(&out, 1 << 16);
    struct tree_format_opts o = {.compact = true, .max_depth = -1, .scope = -1};
    assert_int_equal(tree_format(&t, &o, &out), WA_E_OK);
    assert_null(strstr(dynbuf_str(&out), "[2]"));
    assert_non_null(strstr(dynbuf_str(&out), "[3] Group"));
    assert_non_null(strstr(dynbuf_str(&out), "[5] Pane \"Named\""));
    dynbuf_cleanup(&out);
    tree_cleanup(&t);
}

static void format_marks_offscreen_and_caps_long_text(void **state)
{
    (void)state;
    char longname[600];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    struct fake_el els[] = {
        {-1, "Window", "w", NULL, NULL, NULL, {0, 0, 1000, 1000}, 0, 0},
        {0, "Text", longname, NULL, NULL, NULL, {2000, 2000, 2100, 2100}, 0, 0},
        {0, "Text", "no bounds", NULL, NULL, NULL, {0, 0, 0, 0}, 0, 0},
    };
    struct fake_src s;
    struct wa_tree t;
    walk(els, 3, NULL, &t, &s);
    struct dynbuf out;
    dynbuf_init(&out, 1 << 16);
    assert_int_equal(tree_format(&t, NULL, &out), WA_E_OK);
    const char *text = dynbuf_str(&out);
    /* 80 characters, an ellipsis, the whole length */
    char capped[160];
    snprintf(capped, sizeof capped,
             "[2] Text \"%.80s\xe2\x80\xa6\" (599 chars) @(999,999) offscreen\n", longname);
    assert_non_null(strstr(text, capped));
    assert_null(strstr(text, longname));
    assert_non_null(strstr(text, "[3] Text \"no bounds\" @(500,500)\n"));
    dynbuf_cleanup(&out);
    tree_cleanup(&t);
}

static void tree_with(const char **types, const char **names, int n, struct wa_tree *t)
{
    tree_init(t);
    for (int i = 0; i < n; i++) {
        struct tree_element_info info = {.type = (char *)types[i], .name = (char *)names[i]};
        assert_true(tree_add_node(t, i == 0 ? -1 : 0, &info) >= 0);
    }
}

static void usefulness_rules(void **state)
{
    (void)state;
    char reason[128];
    struct wa_tree t;

    tree_with((const char *[]){"Window", "Pane"}, (const char *[]){"w", ""}, 2, &t);
    assert_false(tree_is_useful(&t, reason, sizeof reason));
    assert_string_equal(reason, "only 2 elements");
    tree_cleanup(&t);

    /* A calculator of unnamed buttons: the titled window does not save it. */
    tree_with((const char *[]){"Window", "Button", "Button", "Button", "Button"},
              (const char *[]){"Calculator", "", "", "", ""}, 5, &t);
    assert_false(tree_is_useful(&t, reason, sizeof reason));
    assert_string_equal(reason, "4 interactive elements but none has Name");
    tree_cleanup(&t);

    tree_with((const char *[]){"Window", "Pane", "Pane"}, (const char *[]){"", "", ""}, 3, &t);
    assert_false(tree_is_useful(&t, reason, sizeof reason));
    assert_string_equal(reason, "3 elements but none has Name");
    tree_cleanup(&t);

    tree_with((const char *[]){"Window", "Button", "Button", "Button", "Edit"},
              (const char *[]){"App", "", "OK", "", ""}, 5, &t);
    assert_true(tree_is_useful(&t, reason, sizeof reason));
    assert_string_equal(reason, "5 elements (3 interactive), 2 with names");
    tree_cleanup(&t);

    /* Rows a program draws itself, without names: the image tells them apart. */
    tree_init(&t);
    t.frame = (struct wa_rect){0, 0, 400, 400};
    const char *rows[] = {"App", "", "", "", "OK"};
    for (int i = 0; i < 5; i++) {
        struct tree_element_info info = {.type = i == 0   ? "Window"
                                                 : i == 4 ? "Button"
                                                          : "ListItem",
                                         .name = (char *)rows[i],
                                         .bounds = {10, 10 + 20 * i, 200, 30 + 20 * i}};
        assert_true(tree_add_node(&t, i == 0 ? -1 : 0, &info) >= 0);
    }
    assert_false(tree_is_useful(&t, reason, sizeof reason));
    assert_string_equal(reason, "3 items in view have no names (the program draws them): only "
                                "the image tells them apart");
    t.nodes[2].states |= WA_ST_OFFSCREEN; /* two in view are a few blank rows, no more */
    assert_true(tree_is_useful(&t, reason, sizeof reason));
    tree_cleanup(&t);

    /* Two unnamed interactive elements do not trigger the interactive rule. */
    tree_with((const char *[]){"Window", "Button", "Button"}, (const char *[]){"App", "", ""}, 3,
              &t);
    assert_true(tree_is_useful(&t, reason, sizeof reason));
    tree_cleanup(&t);
}

/* Adds a node under parent with a type, a name and flags for the menu tests. */
static int add_menu_node(struct wa_tree *t, int parent, const char *type, const char *name,
                         bool unreadable)
{
    struct tree_element_info info = {.type = (char *)type,
                                     .name = (char *)name,
                                     .items_unreadable = unreadable,
                                     .bounds = {10, 10, 20, 20}};
    int i = tree_add_node(t, parent, &info);
    assert_true(i >= 0);
    return i;
}

static void menu_item_text_splits_accelerator_and_marks(void **state)
{
    (void)state;
    struct tree_element_info info = {.name = strdup("Save &as...\tCtrl+Shift+S")};
    tree_menu_item_text(&info, true);
    assert_string_equal(info.name, "Save as...");
    assert_string_equal(info.accelerator, "Ctrl+Shift+S");
    tree_element_info_cleanup(&info);

    /* Names from MSAA and UIA have no markers: an '&' there is text. */
    info.name = strdup("Fish && Chips\t");
    tree_menu_item_text(&info, false);
    assert_string_equal(info.name, "Fish && Chips");
    assert_null(info.accelerator);
    tree_element_info_cleanup(&info);

    info.name = strdup("Fish && Chips");
    tree_menu_item_text(&info, true);
    assert_string_equal(info.name, "Fish & Chips");
    tree_element_info_cleanup(&info);
}

static void open_menus_print_and_decide_the_verdict(void **state)
{
    (void)state;
    char reason[160];
    struct wa_tree t;
    tree_init(&t);
    t.frame = (struct wa_rect){0, 0, 1000, 1000};
    int root = add_menu_node(&t, -1, "Window", "Untitled - Notepad", false);
    add_menu_node(&t, root, "MenuBar", "Application", true);
    add_menu_node(&t, root, "Edit", "Text", false);
    add_menu_node(&t, root, "Button", "OK", false);
    struct tree_element_info item = {.type = "MenuItem", .name = "Save", .accelerator = "Ctrl+S"};
    assert_true(tree_add_node(&t, 1, &item) >= 0);
    assert_true(tree_is_useful(&t, reason, sizeof reason));

    struct dynbuf out;
    dynbuf_init(&out, 1 << 16);
    assert_int_equal(tree_format(&t, NULL, &out), WA_E_OK);
    assert_non_null(
        strstr(dynbuf_str(&out), "[2] MenuBar \"Application\" @(15,15) items not readable\n"));
    /* The item has no bounds of its own: it borrows its bar's place. */
    assert_non_null(
        strstr(dynbuf_str(&out), "MenuItem \"Save\" @(15,15) accelerator=\"Ctrl+S\"\n"));
    dynbuf_cleanup(&out);

    /* An open menu nobody can read: the image must be sent. */
    add_menu_node(&t, root, "Menu", "", true);
    /* Both menus stay in the interactive view, which is what an agent reads. */
    struct tree_format_opts interactive = {.interactive_only = true, .max_depth = -1, .scope = -1};
    dynbuf_init(&out, 1 << 16);
    assert_int_equal(tree_format(&t, &interactive, &out), WA_E_OK);
    assert_non_null(strstr(dynbuf_str(&out), "[6] Menu \"\" @(15,15) items not readable\n"));
    assert_non_null(strstr(dynbuf_str(&out), "[2] MenuBar \"Application\""));
    dynbuf_cleanup(&out);
    assert_false(tree_is_useful(&t, reason, sizeof reason));
    assert_string_equal(reason, "an open menu's items cannot be read (menu [6] \"\")");
    tree_cleanup(&t);
}

static void open_menus_are_hoisted_before_the_window(void **state)
{
    (void)state;
    struct wa_tree t;
    tree_init(&t);
    int root = add_menu_node(&t, -1, "Window", "App", false);
    int pane = add_menu_node(&t, root, "Pane", "p", false);
    add_menu_node(&t, pane, "Button", "b", false);
    int menu = add_menu_node(&t, pane, "Menu", "File", false);
    add_menu_node(&t, menu, "MenuItem", "New", false);
    add_menu_node(&t, root, "Edit", "e", false);
    t.nodes[menu].handle = &t; /* handles move with their nodes */
    assert_int_equal(tree_hoist_menus(&t), WA_E_OK);
    const char *order[] = {"App", "File", "New", "p", "b", "e"};
    const int parents[] = {-1, 0, 1, 0, 3, 0};
    const int depths[] = {0, 1, 2, 1, 2, 1};
    assert_int_equal(t.count, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(t.nodes[i].name, order[i]);
        assert_int_equal(t.nodes[i].parent, parents[i]);
        assert_int_equal(t.nodes[i].depth, depths[i]);
    }
    assert_ptr_equal(t.nodes[1].handle, &t);
    t.nodes[1].handle = NULL;
    /* Done once: a second call changes nothing. */
    assert_int_equal(tree_hoist_menus(&t), WA_E_OK);
    assert_string_equal(t.nodes[1].name, "File");
    tree_cleanup(&t);
}

static int spliced_released;
static void count_spliced(void *h)
{
    (void)h;
    spliced_released++;
}

static void popups_walked_apart_are_spliced_first(void **state)
{
    (void)state;
    struct wa_tree t, sub;
    tree_init(&t);
    tree_init(&sub);
    int root = add_menu_node(&t, -1, "Window", "App", false);
    int pane = add_menu_node(&t, root, "Pane", "p", false);
    add_menu_node(&t, pane, "Button", "b", false);
    int sroot = add_menu_node(&sub, -1, "Pane", "", false);
    int m1 = add_menu_node(&sub, sroot, "Menu", "File", false);
    add_menu_node(&sub, m1, "MenuItem", "New", false);
    int m2 = add_menu_node(&sub, sroot, "Menu", "Recent", true);
    sub.nodes[m2].handle = &sub;
    sub.release_handle = count_spliced;
    spliced_released = 0;
    assert_int_equal(tree_splice_first(&t, &sub, false), WA_E_OK);
    assert_int_equal(spliced_released, 1); /* the UIA tree cannot keep MSAA handles */
    const char *order[] = {"App", "File", "New", "Recent", "p", "b"};
    const int parents[] = {-1, 0, 1, 0, 0, 4};
    assert_int_equal(t.count, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(t.nodes[i].name, order[i]);
        assert_int_equal(t.nodes[i].parent, parents[i]);
        assert_null(t.nodes[i].handle);
    }
    assert_int_equal(t.nodes[2].depth, 2);
    assert_int_equal(t.nodes[5].depth, 2);
    assert_true(t.nodes[3].items_unreadable);
    assert_int_equal(sub.count, 1);
    tree_cleanup(&sub);
    tree_cleanup(&t);
}

static void bar_items_walked_apart_go_under_the_bar(void **state)
{
    (void)state;
    struct wa_tree t, sub;
    tree_init(&t);
    tree_init(&sub);
    int root = add_menu_node(&t, -1, "Window", "App", false);
    int bar = add_menu_node(&t, root, "MenuBar", "Application", false);
    int pane = add_menu_node(&t, root, "Pane", "p", false);
    add_menu_node(&t, pane, "Button", "b", false);
    add_menu_node(&t, root, "Edit", "e", false);
    int sroot = add_menu_node(&sub, -1, "MenuBar", "Application", false);
    int file = add_menu_node(&sub, sroot, "MenuItem", "File", false);
    sub.nodes[file].handle = &sub;
    add_menu_node(&sub, sroot, "MenuItem", "Help", false);
    sub.release_handle = count_spliced;
    spliced_released = 0;
    assert_int_equal(tree_splice_under(&t, (size_t)bar, &sub, true), WA_E_OK);
    assert_int_equal(spliced_released, 0); /* kept: the same kind of handle */
    const char *order[] = {"App", "Application", "File", "Help", "p", "b", "e"};
    const int parents[] = {-1, 0, 1, 1, 0, 4, 0};
    const int depths[] = {0, 1, 2, 2, 1, 2, 1};
    assert_int_equal(t.count, 7);
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(t.nodes[i].name, order[i]);
        assert_int_equal(t.nodes[i].parent, parents[i]);
        assert_int_equal(t.nodes[i].depth, depths[i]);
    }
    assert_ptr_equal(t.nodes[2].handle, &sub);
    assert_int_equal(sub.count, 1);
    /* Capped as a walk of 5 nodes would have been: the last ones in depth-first order
     * go, their handles released. */
    t.release_handle = count_spliced;
    t.nodes[6].handle = &t;
    tree_cap_nodes(&t, 5);
    assert_int_equal(t.count, 5);
    assert_true(t.truncated);
    assert_int_equal(spliced_released, 1);
    assert_string_equal(t.nodes[4].name, "p");
    t.nodes[2].handle = NULL;
    tree_cap_nodes(&t, 9); /* nothing to cut */
    assert_int_equal(t.count, 5);
    tree_cleanup(&sub);
    tree_cleanup(&t);
}

/* A window whose first children are off screen (scrolled away, or marked so) and whose
 * on-screen controls come last in the source's order: with a budget of 5 nodes, every
 * control that shows is in, the budget's rest goes to what does not, and the nodes are
 * in depth-first order, as the source gave them. */
static const struct fake_el scrolled[] = {
    {-1, "Window", "big", NULL, NULL, NULL, {0, 0, 1000, 1000}, 0, 1},
    {0, "List", "rows", NULL, NULL, NULL, {0, 2000, 1000, 3000}}, /* below the frame */
    {1, "ListItem", "row 0", NULL, NULL, NULL, {0, 2000, 1000, 2010}},
    {1, "ListItem", "row 1", NULL, NULL, NULL, {0, 2010, 1000, 2020}},
    {0, "Pane", "hidden", NULL, NULL, NULL, {10, 10, 20, 20}, WA_ST_OFFSCREEN},
    {4, "Button", "inside hidden"}, /* no bounds: goes with its parent */
    {0, "Edit", "Filter", NULL, NULL, NULL, {10, 10, 500, 40}},
    {0, "Button", "OK", NULL, NULL, NULL, {10, 50, 100, 80}},
    {0, "Pane", "panel", NULL, NULL, NULL, {0, 100, 1000, 900}},
    {8, "Text", "label"}, /* no bounds: shows with its parent */
};

static void what_shows_comes_first(void **state)
{
    (void)state;
    struct fake_src s;
    struct wa_tree t;
    struct tree_walk_opts o = {.max_nodes = 6};
    walk(scrolled, 10, &o, &t, &s);
    assert_int_equal(s.live, 0);
    assert_true(t.truncated);
    /* root, the 4 that show, then what the budget leaves: the list (met first) */
    const char *order[] = {"big", "rows", "Filter", "OK", "panel", "label"};
    const int depths[] = {0, 1, 1, 1, 1, 2};
    assert_int_equal(t.count, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(t.nodes[i].name, order[i]);
        assert_int_equal(t.nodes[i].depth, depths[i]);
    }
    assert_int_equal(t.nodes[5].parent, 4);
    for (size_t i = 2; i < 6; i++)
        assert_true(tree_node_on_screen(&t, i));
    assert_false(tree_node_on_screen(&t, 1));
    tree_cleanup(&t);

    /* A budget for everything: all of it, in the source's depth-first order. */
    o.max_nodes = 100;
    o.keep_handles = true;
    walk(scrolled, 10, &o, &t, &s);
    assert_false(t.truncated);
    assert_int_equal(t.count, 10);
    for (size_t i = 0; i < 10; i++) {
        assert_string_equal(t.nodes[i].name, scrolled[i].name);
        assert_int_equal(t.nodes[i].parent, scrolled[i].parent);
        assert_int_equal(ix(t.nodes[i].handle), (int)i);
    }
    assert_false(tree_node_on_screen(&t, 5)); /* inside the hidden pane */
    assert_true(tree_node_on_screen(&t, 9));
    tree_cleanup(&t);
    assert_int_equal(s.live, 10); /* kept handles: released by the tree's owner */
}

/* Cutting a tree spliced together past its budget drops what does not show first. */
static void cap_keeps_what_shows(void **state)
{
    (void)state;
    struct fake_src s;
    struct wa_tree t;
    struct tree_walk_opts o = {.max_nodes = 100};
    walk(scrolled, 10, &o, &t, &s);
    tree_cap_nodes(&t, 6);
    assert_true(t.truncated);
    const char *order[] = {"big", "rows", "Filter", "OK", "panel", "label"};
    assert_int_equal(t.count, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(t.nodes[i].name, order[i]);
    assert_int_equal(t.nodes[5].parent, 4);
    tree_cleanup(&t);
}

/* A long collection's line says how many items it holds and which show. */
static void collections_say_count_and_view(void **state)
{
    (void)state;
    struct wa_tree t;
    tree_init(&t);
    t.frame = (struct wa_rect){0, 0, 1000, 1000};
    struct tree_element_info root = {.type = "Window", .name = "w", .bounds = t.frame};
    struct tree_element_info list = {.type = "List",
                                     .name = "Files",
                                     .bounds = {0, 0, 1000, 1000},
                                     .coll = {true, 3000, 2970, 2999, 30}};
    struct tree_element_info tree = {
        .type = "Tree", .name = "Folders", .coll = {true, 2000, -1, -1, 31}};
    struct tree_element_info empty = {.type = "List", .name = "", .coll = {true, 0, -1, -1, 0}};
    struct tree_element_info row = {
        .type = "ListItem", .name = "report-2971.txt", .coll_item = true, .item_index = 2971};
    tree_add_node(&t, -1, &root);
    tree_add_node(&t, 0, &list);
    tree_add_node(&t, 1, &row);
    tree_add_node(&t, 0, &tree);
    tree_add_node(&t, 0, &empty);
    assert_int_equal(t.nodes[2].item_index, 2971);
    assert_int_equal(t.nodes[1].item_index, -1);
    struct dynbuf out;
    dynbuf_init(&out, 1 << 16);
    assert_int_equal(tree_format(&t, NULL, &out), WA_E_OK);
    const char *text = dynbuf_str(&out);
    assert_non_null(strstr(text, "[2] List \"Files\" @(500,500) 3000 items, 2970-2999 shown\n"));
    assert_non_null(strstr(text, "[4] Tree \"Folders\" @(500,500) 2000 items, 31 shown\n"));
    assert_non_null(strstr(text, "[5] List \"\" @(500,500) 0 items\n"));
    dynbuf_cleanup(&out);
    tree_cleanup(&t);
}

/* A name is text: a static image's resource ordinal (U+FFFF and its id, what NSIS's
 * header image answers as its name) is no name; other bytes that are not text go. */
static void names_carry_only_text(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"\xef\xbf\xbfg", ""},        /* U+FFFF 'g': a bitmap's resource */
        {"Save\xef\xbf\xbe", "Save"}, /* U+FFFE */
        {"a\x01"
         "b\x7f"
         "\xc2\x85"
         "c",
         "abc"},                          /* C0, DEL and C1 controls */
        {"bad\xff\xc3(utf8", "bad(utf8"}, /* stray and broken sequences */
        {"\xed\xa0\x80"
         "x",
         "x"}, /* an encoded surrogate */
        {"\xef\xb7\x90"
         "z",
         "z"}, /* U+FDD0, a non-character */
        {"Gr\xc3\xbc\xc3\x9f"
         "e \xe4\xbd\xa0 \xf0\x9f\x98\x80",
         "Gr\xc3\xbc\xc3\x9f"
         "e \xe4\xbd\xa0 \xf0\x9f\x98\x80"},
        {"two\nlines\tand\r", "two\nlines\tand\r"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", cases[i].in);
        tree_text_name(buf);
        assert_string_equal(buf, cases[i].want);
    }
    tree_text_name(NULL);
    /* a node added with such a name is unnamed */
    struct wa_tree t;
    tree_init(&t);
    struct tree_element_info info = {.type = "Image", .name = "\xef\xbf\xbfg"};
    assert_int_equal(tree_add_node(&t, -1, &info), 0);
    assert_string_equal(t.nodes[0].name, "");
    assert_int_equal(t.nodes[0].name_source, WA_NAME_NONE);
    tree_cleanup(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_is_depth_first_and_formats_per_spec),
        cmocka_unit_test(names_carry_only_text),
        cmocka_unit_test(name_fallback_chain_in_order),
        cmocka_unit_test(failing_elements_fall_through),
        cmocka_unit_test(node_budget_truncates_with_warning),
        cmocka_unit_test(time_budget_returns_partial_tree),
        cmocka_unit_test(kept_handles_are_released_by_cleanup),
        cmocka_unit_test(filters_for_state_keep_ids),
        cmocka_unit_test(compact_drops_empty_structure),
        cmocka_unit_test(format_marks_offscreen_and_caps_long_text),
        cmocka_unit_test(usefulness_rules),
        cmocka_unit_test(menu_item_text_splits_accelerator_and_marks),
        cmocka_unit_test(open_menus_print_and_decide_the_verdict),
        cmocka_unit_test(open_menus_are_hoisted_before_the_window),
        cmocka_unit_test(popups_walked_apart_are_spliced_first),
        cmocka_unit_test(bar_items_walked_apart_go_under_the_bar),
        cmocka_unit_test(what_shows_comes_first),
        cmocka_unit_test(cap_keeps_what_shows),
        cmocka_unit_test(collections_say_count_and_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
