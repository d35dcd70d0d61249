/* A menu path in one call: `select_menu "File > Save as..."` opens each level and picks
 * the last item, through the same elements, gate and senders as every other action. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/call/look.h"
#include "agent/core/perform/operations.h"
#include "agent/core/call/send.h"
#include "agent/core/call/target.h"
#include "base/str.h"

#define MENU_LEVELS_MAX   8
#define MENU_OPEN_WAIT_MS 2000 /* for the next level's menu to appear */
#define MENU_POLL_MS      50

/* A menu name as people write it: '&' markers, case, a trailing "..." and spaces at
 * either end do not count. */
static void menu_key(const char *in, char *out, size_t cap)
{
    size_t j = 0;
    while (*in == ' ')
        in++;
    for (; *in && j + 1 < cap; in++)
        if (*in != '&')
            out[j++] = (*in >= 'A' && *in <= 'Z') ? (char)(*in + 32) : *in;
    while (j > 0 && (out[j - 1] == ' ' || out[j - 1] == '.'))
        j--;
    out[j] = '\0';
}

/* Splits "File > Save as..." into its levels; the count, 0 when there is none. */
static size_t split_path(const char *path, char levels[][128], size_t max)
{
    size_t n = 0;
    for (const char *p = path; p && *p && n < max;) {
        const char *end = strchr(p, '>');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        snprintf(levels[n], 128, "%.*s", (int)len, p);
        char key[128];
        menu_key(levels[n], key, sizeof key);
        if (*key)
            n++;
        p = end ? end + 1 : NULL;
    }
    return n;
}

/* Where level's items are: inside the newest open Menu (the last one listed first under
 * the root), else the whole tree (the menu bar). Returns the subtree's [from, to). */
static void menu_scope(const struct wa_tree *t, bool in_menu, size_t *from, size_t *to)
{
    *from = 0;
    *to = t->count;
    if (!in_menu)
        return;
    for (size_t i = 0; i < t->count; i++)
        if (tree_node_is_open_menu(&t->nodes[i])) {
            *from = i;
            size_t j = i + 1;
            while (j < t->count && t->nodes[j].depth > t->nodes[i].depth)
                j++;
            *to = j;
        }
}

/* The MenuItem named like want within [from, to), or -1; names lists what was there. */
static int find_item(const struct wa_tree *t, size_t from, size_t to, const char *want, char *names,
                     size_t cap, bool *unreadable)
{
    char key[128], k2[128];
    menu_key(want, key, sizeof key);
    size_t len = 0;
    names[0] = '\0';
    *unreadable = false;
    int hit = -1;
    for (size_t i = from; i < to; i++) {
        const struct wa_node *n = &t->nodes[i];
        if (tree_node_is_open_menu(n) && n->items_unreadable)
            *unreadable = true;
        if (strcmp(n->type, "MenuItem") != 0)
            continue;
        menu_key(n->name, k2, sizeof k2);
        /* recent-file lists number their items: "1 notes.txt" is "notes.txt" too */
        const char *bare = k2;
        while (*bare >= '0' && *bare <= '9')
            bare++;
        bare = bare > k2 && *bare == ' ' ? bare + 1 : k2;
        if (hit < 0 && (strcmp(k2, key) == 0 || strcmp(bare, key) == 0))
            hit = (int)i;
        if (len + strlen(n->name) + 4 < cap)
            len += (size_t)snprintf(names + len, cap - len, "%s\"%s\"", len ? ", " : "", n->name);
    }
    return hit;
}

/* Opens or picks item i: its accessibility action, else a click at its centre. */
static wa_err pick(struct call *k, size_t i)
{
    const char *via = NULL;
    wa_err e = send_element(k, i, WA_ACT_INVOKE, NULL, &via);
    if (e == WA_E_UNSUPPORTED || e == WA_E_ACTION_FAILED) {
        wa_err_clear();
        int x, y;
        wa_rect_center(k->s->tree.nodes[i].bounds, &x, &y);
        via = "click";
        e = send_click(k, x, y, WA_BUTTON_LEFT, 1);
    }
    if (!e)
        k->r->via = via;
    return e;
}

static size_t count_menus(const struct wa_tree *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += tree_node_is_open_menu(&t->nodes[i]);
    return n;
}

/* Walks the window's tree until an open Menu lists the next level (or time is up). */
static wa_err wait_for_menu(struct call *k, uint64_t hwnd, size_t menus_before)
{
    int64_t t0 = os_now_ms();
    for (;;) {
        wa_err e = look_fresh_tree(k, hwnd);
        if (e)
            return e;
        if (count_menus(&k->s->tree) > menus_before || os_now_ms() - t0 >= MENU_OPEN_WAIT_MS)
            return WA_E_OK;
        if (os_sleep_ms(MENU_POLL_MS))
            return WA_E_INTERRUPTED;
    }
}

/* A path that fails half-way closes the menus it opened: the window is left as it was. */
static wa_err close_menus(struct call *k, size_t opened, wa_err e)
{
    struct wa_key_combo esc[1];
    if (!opened || k->dry || keys_parse_combo("esc", &esc[0]))
        return e;
    char why[512];
    snprintf(why, sizeof why, "%s", wa_err_detail());
    for (size_t i = 0; i < opened; i++)
        send_keys(k, esc, 1);
    return wa_fail(e, "%s", why);
}

wa_err perform_select_menu(struct call *k)
{
    char levels[MENU_LEVELS_MAX][128];
    size_t n = split_path(k->q->menu_path ? k->q->menu_path : "", levels, MENU_LEVELS_MAX);
    call_summary(k, "%s %.80s", k->name, k->q->menu_path ? k->q->menu_path : "");
    if (n == 0)
        return wa_fail(WA_E_INVALID_ARGS, "a menu path names its levels: \"File > Save as...\"");
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    if (!e)
        e = look_fresh_tree(k, hwnd);
    size_t menus = 0, opened = 0;
    for (size_t level = 0; !e && level < n; level++) {
        size_t from, to;
        menu_scope(&k->s->tree, level > 0, &from, &to);
        char names[600];
        bool unreadable;
        int i = find_item(&k->s->tree, from, to, levels[level], names, sizeof names, &unreadable);
        if (i < 0 && unreadable) {
            e = wa_fail(WA_E_ELEMENT_NOT_FOUND,
                        "the open menu's items cannot be read here, so \"%s\" cannot be "
                        "found in it; use the keyboard (alt+letter, arrows, enter) or the "
                        "image",
                        levels[level]);
            break;
        }
        if (i < 0) {
            e = wa_fail(WA_E_ELEMENT_NOT_FOUND, "no menu item \"%s\"%s; %s %s", levels[level],
                        level ? " in the open menu" : " in the menu bar",
                        *names ? "the items are" : "there are no menu items",
                        *names ? names : "(the menu bar's items may not be readable)");
            break;
        }
        if (k->s->tree.nodes[i].states & WA_ST_DISABLED) {
            e = wa_fail(WA_E_ACTION_FAILED, "menu item \"%s\" is disabled",
                        k->s->tree.nodes[i].name);
            break;
        }
        if (level == 0) {
            op_elem_cleanup(&k->r->element);
            if (op_elem_from_node(&k->s->tree, (size_t)i, &k->r->element) == WA_E_OK)
                k->r->has_element = true;
        }
        menus = count_menus(&k->s->tree);
        if ((e = pick(k, (size_t)i)) || k->dry)
            break;
        if (level + 1 < n) {
            opened++;
            e = wait_for_menu(k, hwnd, menus);
        }
    }
    return e ? close_menus(k, opened, e) : e;
}
