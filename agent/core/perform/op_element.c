/* Operations on elements: accessibility patterns with a click where there is none,
 * filling text, choosing items. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/perform/operations.h"
#include "agent/core/call/elements.h"
#include "agent/core/call/look.h"
#include "agent/core/call/send.h"
#include "agent/core/call/verify.h"

#define EXPAND_SETTLE_MS 150 /* a combo box's list needs a moment to open */

/* What a person would do where no pattern serves: click the element (and for a value,
 * select all and type, or delete). */
static wa_err click_and_type(struct call *k, size_t i, enum wa_element_action a, const char *value,
                             const char **via)
{
    const struct wa_node *n = &k->s->tree.nodes[i];
    if (wa_rect_empty(n->bounds))
        return wa_fail(WA_E_ACTION_FAILED, "%s \"%.80s\" has no location on screen to click",
                       n->type, n->name);
    if (k->send.background && a == WA_ACT_SET_VALUE)
        return wa_fail(WA_E_BACKGROUND_UNAVAILABLE,
                       "%s has no background route: no Value pattern, put_accValue or "
                       "WM_SETTEXT set %s \"%.80s\", and typing the value needs the keyboard "
                       "focus",
                       k->name, n->type, n->name);
    int x, y;
    wa_rect_center(n->bounds, &x, &y);
    wa_err e = send_click(k, x, y, WA_BUTTON_LEFT, 1);
    *via = k->send.background ? "message:WM_LBUTTONDOWN" : "click";
    if (e || a != WA_ACT_SET_VALUE)
        return e;
    struct wa_key_combo keys[1];
    *via = "click+select-all+type";
    keys_parse_combo("ctrl+a", &keys[0]);
    e = send_keys(k, keys, 1);
    if (!e && *value) {
        e = send_text(k, value);
    } else if (!e) {
        keys_parse_combo("delete", &keys[0]);
        e = send_keys(k, keys, 1);
    }
    return e;
}

/* Forgets a read back that did not hold, before the next route is tried. */
static void forget_read_back(struct call *k)
{
    struct op_result *r = k->r;
    r->has_verified = r->verified = false;
    free(r->read_back);
    r->read_back = NULL;
    k->verify.settled = false;
    wa_err_clear();
}

/* A value set never says ok for nothing: the route that set it (Value pattern,
 * put_accValue, WM_SETTEXT) is read back from the element; when it does not hold the
 * value, or cannot be read, focus, select all and type, and read back again, from the
 * element or else from the control that has the keyboard now (an editable combo box's
 * edit). ok only when it holds it, else not_verified; a control that exposes no value at
 * all says so in a note. */
static wa_err set_value(struct call *k, size_t i, const char *value)
{
    const char *via = NULL;
    wa_err e = send_element(k, i, WA_ACT_SET_VALUE, value, &via);
    if (!e && k->dry) {
        k->r->via = via;
        return e;
    }
    if (!e) {
        e = verify_text(k, &i, NULL, value, true);
        if (!e && k->r->verified) {
            k->r->via = via;
            return e;
        }
        if (e && e != WA_E_NOT_VERIFIED)
            return e;
        if (k->send.background && e) /* typing it over would need the focus */
            return wa_fail(WA_E_BACKGROUND_UNAVAILABLE,
                           "%s left the control holding other text (see read_back), and "
                           "typing the value needs the keyboard focus",
                           via);
        if (k->send.background) { /* nothing to read back: the route's word is all there is */
            wa_err_clear();
            k->r->via = via;
            return WA_E_OK;
        }
        op_result_note(k->r, "%s left the control %s; typed the value instead", via,
                       e ? "holding other text" : "with no value to read back");
        forget_read_back(k);
    } else if (e != WA_E_UNSUPPORTED && e != WA_E_ACTION_FAILED) {
        return e;
    }
    wa_err_clear();
    if ((e = click_and_type(k, i, WA_ACT_SET_VALUE, value, &via)))
        return e;
    k->r->via = via;
    e = verify_text(k, &i, NULL, value, true);
    if (!e && !k->r->has_verified) { /* the element has no value: the focused control */
        forget_read_back(k);
        e = verify_text(k, NULL, NULL, value, true);
    }
    return e;
}

/* An item drawn with a check box of its own (a tree item or list row whose state image
 * is a box: TVS_CHECKBOXES, LVS_EX_CHECKBOXES, or a program's own images). Its label
 * takes a click as a selection, not as a toggle. */
static bool item_with_box(const struct wa_node *n)
{
    return (n->states & WA_ST_CHECK_STATES) &&
           (strcmp(n->type, "TreeItem") == 0 || strcmp(n->type, "ListItem") == 0 ||
            strcmp(n->type, "DataItem") == 0);
}

/* An item's check box turned over as a person does: a click on the box itself (the
 * state image's hit area); where the box cannot be found, or in background delivery,
 * the item's own route (UI Automation's Toggle, or the control's messages: the item
 * selected and Space). Never a click on the label, which would only select it. */
static wa_err toggle_box(struct call *k, size_t i, const char **via)
{
    int x, y;
    if (!k->send.background && backend_check_box_point(k->be, &k->s->tree, i, &x, &y) == WA_E_OK) {
        *via = "click:check box";
        return send_click(k, x, y, WA_BUTTON_LEFT, 1);
    }
    wa_err_clear();
    wa_err e = send_element(k, i, WA_ACT_TOGGLE, NULL, via);
    if ((e != WA_E_UNSUPPORTED && e != WA_E_ACTION_FAILED) || k->send.background)
        return e;
    /* Space on the item, as the keyboard toggles it: selected and given the keyboard
     * first (by its pattern, never a click), then the key. */
    wa_err_clear();
    if ((e = send_element(k, i, WA_ACT_SELECT, NULL, via)) ||
        (e = send_element(k, i, WA_ACT_FOCUS, NULL, via)))
        return e;
    struct wa_key_combo space[1];
    keys_parse_combo("space", &space[0]);
    *via = "select+space";
    return send_keys(k, space, 1);
}

/* The pattern, else what a person would do: click it. A timeout means the application
 * is not answering: more input would only queue up, so that error is reported as it
 * is. */
static wa_err pattern(struct call *k, size_t i, enum wa_element_action a, const char *value)
{
    const struct wa_node *n = &k->s->tree.nodes[i];
    const char *via = NULL;
    /* A disabled control takes no pattern call, and a click on it does nothing: say so
     * instead of reporting a click that changed nothing as done. */
    if ((n->states & WA_ST_DISABLED) && a != WA_ACT_FOCUS)
        return wa_fail(WA_E_ACTION_FAILED, "%s \"%.80s\" is disabled", n->type, n->name);
    if (a == WA_ACT_SET_VALUE)
        return set_value(k, i, value ? value : "");
    if (a == WA_ACT_TOGGLE && item_with_box(n)) {
        wa_err e = toggle_box(k, i, &via);
        k->r->via = via;
        return e;
    }
    wa_err e = send_element(k, i, a, value, &via);
    /* A click on a boxed item's label may turn its box over (NSIS's components do):
     * selecting one never falls back to a click. */
    if ((e == WA_E_UNSUPPORTED || e == WA_E_ACTION_FAILED) &&
        !(a == WA_ACT_SELECT && item_with_box(n))) {
        if (wa_rect_empty(n->bounds))
            return e;
        wa_err_clear();
        e = click_and_type(k, i, a, value, &via);
    }
    k->r->via = via;
    return e;
}

/* What an element action must leave in the element's states, read back after it. */
static bool verified_by(enum wa_element_action a, enum verify_want *want)
{
    switch (a) {
    case WA_ACT_TOGGLE:
        *want = VERIFY_CHECK_CHANGED;
        return true;
    case WA_ACT_SELECT:
        *want = VERIFY_SELECTED;
        return true;
    case WA_ACT_EXPAND:
        *want = VERIFY_EXPANDED;
        return true;
    case WA_ACT_COLLAPSE:
        *want = VERIFY_COLLAPSED;
        return true;
    default:
        return false;
    }
}

/* The action, and its effect read back from the element (docs/contract.md §3: an
 * action says ok only when it happened). */
static wa_err act_verified(struct call *k, size_t i, enum wa_element_action a, const char *value)
{
    unsigned before = k->s->tree.nodes[i].states;
    wa_err e = pattern(k, i, a, value);
    enum verify_want want;
    if (e || k->dry || !verified_by(a, &want))
        return e;
    /* a toggle's check box is read where it turned over; selecting a boxed item must
     * leave its box as it was */
    e = verify_states(k, i, before, want);
    if (!e && a == WA_ACT_SELECT && item_with_box(&k->s->tree.nodes[i])) {
        unsigned now = 0;
        if (backend_element_states(k->be, &k->s->tree, i, &now) == WA_E_OK &&
            (now & WA_ST_CHECK_STATES) != (before & WA_ST_CHECK_STATES))
            op_result_note(k->r, "selecting it turned its check box over (the program does "
                                 "that): toggle it back if that was not meant");
        wa_err_clear();
    }
    return e;
}

static wa_err on_element(struct call *k, enum wa_element_action a, const char *value)
{
    size_t i;
    wa_err e = element_resolve(k, ARG_ELEMENT, &i);
    if (e)
        return e;
    const struct wa_node *n = &k->s->tree.nodes[i];
    call_summary(k, "%s [%d] %s \"%.60s\"", k->name, k->r->element.id, n->type, n->name);
    return act_verified(k, i, a, value);
}

wa_err perform_invoke(struct call *k)
{
    return on_element(k, WA_ACT_INVOKE, NULL);
}

wa_err perform_toggle(struct call *k)
{
    return on_element(k, WA_ACT_TOGGLE, NULL);
}

wa_err perform_expand(struct call *k)
{
    return on_element(k, WA_ACT_EXPAND, NULL);
}

wa_err perform_collapse(struct call *k)
{
    return on_element(k, WA_ACT_COLLAPSE, NULL);
}

wa_err perform_set_value(struct call *k)
{
    return on_element(k, WA_ACT_SET_VALUE, k->q->text ? k->q->text : "");
}

wa_err perform_clear(struct call *k)
{
    return on_element(k, WA_ACT_SET_VALUE, "");
}

wa_err perform_focus_element(struct call *k)
{
    size_t i;
    wa_err e = element_resolve(k, ARG_ELEMENT, &i);
    if (e)
        return e;
    const char *via = NULL;
    call_summary(k, "%s [%d]", k->name, k->r->element.id);
    e = send_focus(k, i, &via);
    k->r->via = via;
    return e;
}

/* The item named name below node `under` (any depth), or -1; *count how many. */
static int find_item(const struct wa_tree *t, int under, const char *name, int *count)
{
    int found = -1;
    *count = 0;
    for (size_t i = (size_t)under + 1; i < t->count; i++) {
        if (t->nodes[i].depth <= t->nodes[under].depth)
            break; /* left the subtree */
        if (strcmp(t->nodes[i].name, name) == 0 && strcmp(t->nodes[i].type, "Text") != 0) {
            if (found < 0)
                found = (int)i;
            (*count)++;
        }
    }
    return found;
}

/* The item named name anywhere in the tree with an item's type, or -1. */
static int find_any_item(const struct wa_tree *t, const char *name, int *count)
{
    static const char *const item_types[] = {"ListItem", "MenuItem", "TabItem", "TreeItem",
                                             "DataItem"};
    int found = -1;
    *count = 0;
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(t->nodes[i].name, name) != 0)
            continue;
        for (size_t j = 0; j < sizeof item_types / sizeof item_types[0]; j++)
            if (strcmp(t->nodes[i].type, item_types[j]) == 0) {
                if (found < 0)
                    found = (int)i;
                (*count)++;
            }
    }
    return found;
}

/* The item named name of collection node `coll`, asked of the collection itself (one
 * that holds more than it lists), added to the tree; -1 when it holds none. */
static int far_item(struct call *k, size_t coll, const char *name, int *count)
{
    struct wa_tree *t = &k->s->tree;
    struct wa_item_query q = {.name = name, .index = -1};
    size_t added = 0;
    *count = 0;
    if (backend_find_items(k->be, t, coll, &q, 2, &added) != WA_E_OK) {
        wa_err_clear();
        return -1;
    }
    *count = (int)added;
    return added ? (int)(t->count - added) : -1; /* added after the tree's last node */
}

wa_err perform_select(struct call *k)
{
    const char *item = k->q->item;
    if (!item)
        return on_element(k, WA_ACT_SELECT, NULL);
    size_t i;
    wa_err e = element_resolve(k, ARG_ELEMENT, &i);
    if (e)
        return e;
    struct wa_tree *t = &k->s->tree;
    call_summary(k, "%s \"%.60s\" in [%d] %s \"%.60s\"", k->name, item, k->r->element.id,
                 t->nodes[i].type, t->nodes[i].name);
    int count;
    int at = find_item(t, (int)i, item, &count);
    if (at < 0 && t->nodes[i].coll.is) /* a long list's item beyond what it shows */
        at = far_item(k, i, item, &count);
    if (at < 0 && k->send.background) {
        /* Opening the list would pop it up over the user's work: set the combo box's
         * value to the item instead (CB_SETCURSEL and its notification). */
        const char *via = NULL;
        e = send_element(k, i, WA_ACT_SET_VALUE, item, &via);
        if (e == WA_E_UNSUPPORTED || e == WA_E_ACTION_FAILED)
            return wa_fail(WA_E_BACKGROUND_UNAVAILABLE,
                           "%s has no background route: the item \"%.80s\" is not in the "
                           "tree until the list opens, and %s \"%.80s\" takes no value (%s)",
                           k->name, item, t->nodes[i].type, t->nodes[i].name, wa_err_detail());
        k->r->via = via;
        return e;
    }
    if (at < 0 && !k->dry) {
        /* A closed combo box shows its items only once open. */
        if ((e = pattern(k, i, WA_ACT_EXPAND, NULL)))
            return e;
        os_sleep_ms(EXPAND_SETTLE_MS);
        if ((e = look_fresh_tree(k, t->hwnd)))
            return e;
        at = find_any_item(t, item, &count);
    }
    if (at < 0)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no item \"%s\" in %s \"%s\"", item,
                       k->r->element.type, k->r->element.name);
    if (count > 1)
        op_result_note(k->r, "%d items are named \"%s\"; chose the first", count, item);
    return act_verified(k, (size_t)at, WA_ACT_SELECT, NULL);
}

wa_err perform_scroll_into_view(struct call *k)
{
    size_t i;
    wa_err e = element_resolve(k, ARG_ELEMENT, &i); /* an item off screen is scrolled there */
    if (e)
        return e;
    struct wa_tree *t = &k->s->tree;
    call_summary(k, "%s [%d] %s \"%.60s\"", k->name, k->r->element.id, t->nodes[i].type,
                 t->nodes[i].name);
    if (k->dry || tree_node_on_screen(t, i)) {
        k->r->via = "none: in view";
        return WA_E_OK;
    }
    const char *via = NULL;
    e = send_element(k, i, WA_ACT_SCROLL_INTO_VIEW, NULL, &via);
    k->r->via = via;
    return e;
}
