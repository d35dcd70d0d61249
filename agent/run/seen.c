/* The elements a reply's calls name, as the model saw them (see seen.h). */
#include "agent/run/seen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull; /* a separator no text holds */
}

static uint64_t identity(const struct wa_node *n)
{
    uint64_t h = mix(0xcbf29ce484222325ull, n->type);
    if (n->runtime_id && *n->runtime_id)
        return mix(h, n->runtime_id);
    return mix(mix(h, n->name), n->automation_id);
}

static void label(const struct wa_node *n, char *out, size_t cap)
{
    if (n->name && *n->name)
        snprintf(out, cap, "%s \"%.40s\"", n->type ? n->type : "Custom", n->name);
    else
        snprintf(out, cap, "%s", n->type ? n->type : "Custom");
}

void seen_take(struct seen_tree *s, const struct wa_tree *tree)
{
    memset(s, 0, sizeof *s);
    if (!tree || !tree->count)
        return;
    s->elements = calloc(tree->count, sizeof *s->elements);
    if (!s->elements)
        return;
    s->hwnd = tree->hwnd;
    snprintf(s->title, sizeof s->title, "%s", tree->title ? tree->title : "");
    s->count = tree->count;
    for (size_t i = 0; i < tree->count; i++) {
        s->elements[i].identity = identity(&tree->nodes[i]);
        label(&tree->nodes[i], s->elements[i].label, sizeof s->elements[i].label);
    }
}

void seen_cleanup(struct seen_tree *s)
{
    free(s->elements);
    memset(s, 0, sizeof *s);
}

/* Why id, seen as element id-1, is another element (or none) in now; false when the same. */
static bool id_changed(const struct seen_tree *s, const struct wa_tree *now, int id, char *why,
                       size_t cap)
{
    if (id < 1)
        return false;
    size_t i = (size_t)id - 1;
    const char *was = i < s->count ? s->elements[i].label : NULL;
    if (now->hwnd != s->hwnd) {
        snprintf(why, cap,
                 "the latest observation is of another window (\"%.60s\", not \"%s\"), "
                 "so [%d] no longer means %s",
                 now->title ? now->title : "", s->title, id, was ? was : "what you saw");
        return true;
    }
    if (i >= now->count) {
        if (i >= s->count)
            return false; /* never was: the call's own error says so */
        snprintf(why, cap, "[%d] (%s) is no longer in the window", id, was);
        return true;
    }
    if (i < s->count && identity(&now->nodes[i]) == s->elements[i].identity)
        return false;
    char is[72];
    label(&now->nodes[i], is, sizeof is);
    if (was)
        snprintf(why, cap, "[%d] was %s when you chose it and is now %s", id, was, is);
    else
        snprintf(why, cap, "[%d] is new since you chose it (%s)", id, is);
    return true;
}

bool seen_changed(const struct seen_tree *s, const struct wa_tree *now, const struct op_request *q,
                  char *why, size_t cap)
{
    /* nothing seen, or no tree now: the ids mean what they did; ids given with a window
     * are looked up in that window's own tree */
    if (!s->hwnd || !now || !now->count || q->window.given)
        return false;
    const struct elem_ref *refs[] = {&q->element, &q->to_element, &q->visible,
                                     &q->enabled, &q->gone,       &q->scope};
    for (size_t k = 0; k < sizeof refs / sizeof refs[0]; k++)
        if (refs[k]->kind == EREF_ID && id_changed(s, now, refs[k]->id, why, cap))
            return true;
    return false;
}
