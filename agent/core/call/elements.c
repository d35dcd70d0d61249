/* Elements a request names: ids of the latest tree, refs of `state` kept between
 * processes and found again by identity, and selectors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/call/elements.h"

#include "agent/core/call/guard.h"
#include "agent/core/call/look.h"
#include "agent/core/call/refs.h"
#include "agent/core/call/target.h"
#include "base/str.h"

/* ---- selectors ---- */

bool selector_matches(const struct wa_node *n, const char *sel)
{
    if (sel[0] == '#')
        return n->automation_id && strcmp(n->automation_id, sel + 1) == 0;
    if (sel[0] == '.')
        return n->class_name && str_ieq(n->class_name, sel + 1);
    if (sel[0] == '~')
        return str_wildcard(sel + 1, n->name);
    const char *colon = strchr(sel, ':');
    if (colon && colon > sel) {
        /* "button:OK" names a Button too */
        if (str_ieq_n(n->type, sel, (size_t)(colon - sel)))
            return strcmp(colon + 1, "*") == 0 || strcmp(n->name, colon + 1) == 0;
        /* "Name:" labels contain colons too: fall through to the exact name. */
    }
    return strcmp(n->name, sel) == 0;
}

bool selector_item_query(const char *sel, struct wa_item_query *q)
{
    *q = (struct wa_item_query){.index = -1};
    if (sel[0] == '#' || sel[0] == '.')
        return false;
    if (sel[0] == '~') {
        q->name = sel + 1;
        q->wildcard = true;
        return true;
    }
    const char *colon = strchr(sel, ':');
    if (colon && colon > sel &&
        (str_ieq_n("ListItem", sel, (size_t)(colon - sel)) ||
         str_ieq_n("TreeItem", sel, (size_t)(colon - sel)))) {
        q->name = strcmp(colon + 1, "*") == 0 ? NULL : colon + 1;
        return true;
    }
    q->name = sel;
    return true;
}

/* Acting on an item of a long collection that is not in view scrolls it there first
 * (with the control's own message), so that a click lands on it and a person sees what
 * changed. */
static void scroll_to(struct call *k, size_t index)
{
    struct wa_tree *t = &k->s->tree;
    if (!k->q->op || !(k->q->op->flags & OPF_INPUT) || k->dry || !t->nodes[index].coll_item ||
        tree_node_on_screen(t, index))
        return;
    const char *via = NULL;
    wa_err e = guard_element(k, index);
    if (!e)
        e = backend_element_action(k->be, t, index, WA_ACT_SCROLL_INTO_VIEW, NULL, &via);
    if (e == WA_E_OK)
        op_result_note(k->r, "scrolled [%zu] into view first (%s)", index + 1, via ? via : "");
    wa_err_clear();
}

static wa_err resolve_selector(const struct wa_tree *t, const char *sel, size_t *index)
{
    size_t found = 0, first = 0;
    for (size_t i = 0; i < t->count; i++)
        if (selector_matches(&t->nodes[i], sel) && found++ == 0)
            first = i;
    if (found == 0)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element matches '%s'", sel);
    if (found > 1)
        return wa_fail(WA_E_AMBIGUOUS,
                       "'%s' matches %zu elements; use find to list them and "
                       "pick a ref",
                       sel, found);
    *index = first;
    return WA_E_OK;
}

wa_err element_resolve(struct call *k, enum op_arg a, size_t *index)
{
    struct session *s = k->s;
    const struct elem_ref *ref = op_request_element(k->q, a);
    if (!ref || ref->kind == EREF_NONE)
        return wa_fail(WA_E_INVALID_ARGS, "%s needs \"%s\" (%s)", k->name,
                       arg_name(a, s->o.model_names), arg_def(a)->help);
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    if (e == WA_E_WINDOW_NOT_FOUND && s->o.refs && ref->kind == EREF_ID && !k->q->window.given)
        e = wa_fail(WA_E_STALE_REF, "the window of ref %d is gone; run state again", ref->id);
    if (e)
        return e;
    /* A window the gate refuses is refused before anything of it is looked up. */
    if ((e = guard_observe(k, hwnd)))
        return e;
    /* Refs sessions trust only a tree walked during this call; the others the tree of
     * the latest observation, which is what the model was shown. */
    bool live = s->have_tree && s->tree.hwnd == hwnd && (k->look.fresh || !s->o.refs);
    if (ref->kind == EREF_ID && s->o.refs) {
        e = refs_find(k, hwnd, ref->id, look_fresh_tree, index);
    } else {
        if (!live && (e = look_fresh_tree(k, hwnd)))
            return e;
        if (ref->kind == EREF_SELECTOR)
            e = resolve_selector(&s->tree, ref->selector, index);
        else if ((size_t)ref->id > s->tree.count)
            e = wa_fail(WA_E_ELEMENT_NOT_FOUND,
                        "no element [%d] in the latest tree (it has %zu elements; ids change "
                        "with every observation)",
                        ref->id, s->tree.count);
        else
            *index = (size_t)ref->id - 1;
    }
    if (e)
        return e;
    if (a == ARG_ELEMENT || a == ARG_TO_ELEMENT)
        scroll_to(k, *index);
    if (a == ARG_ELEMENT || !k->r->has_element) {
        op_elem_cleanup(&k->r->element);
        if (op_elem_from_node(&s->tree, *index, &k->r->element) == WA_E_OK) {
            k->r->element.id = ref->kind == EREF_ID ? ref->id : (int)*index + 1;
            k->r->has_element = true;
        }
    }
    return WA_E_OK;
}
