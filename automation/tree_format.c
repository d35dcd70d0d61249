/* The tree as the model reads it (the contract's text format: one line a node, quoted
 * and cut names, states, patterns, collections), and the usefulness verdict that
 * decides tree or pixels in mode auto. */
#include "automation/tree_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"
#include "base/str.h"

/* Characters of a name, value or title shown to the model: past it the text is cut,
 * with an ellipsis and its whole length (`"first 80…" (2345 chars)`). */
#define TREE_TEXT_MAX 80
/* ---- text format ---- */

/* The characters (UTF-8 code points) of s, and the byte length of its first max. */
static size_t utf8_chars(const char *s, size_t max, size_t *bytes_of_max)
{
    size_t chars = 0, i = 0;
    *bytes_of_max = 0;
    for (; s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == max)
            *bytes_of_max = i;
    if (chars <= max)
        *bytes_of_max = i;
    return chars;
}

static wa_err quote_escaped(const char *s, size_t n, struct dynbuf *out)
{
    wa_err e = WA_E_OK;
    for (size_t i = 0; !e && i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            e = dynbuf_adds(out, "\\\"");
        else if (c == '\\')
            e = dynbuf_adds(out, "\\\\");
        else if (c == '\n')
            e = dynbuf_adds(out, "\\n");
        else if (c == '\r')
            e = dynbuf_adds(out, "\\r");
        else if (c == '\t')
            e = dynbuf_adds(out, "\\t");
        else if (c < 0x20)
            e = dynbuf_addf(out, "\\u%04x", c);
        else
            e = dynbuf_addc(out, (char)c);
    }
    return e;
}

wa_err tree_quote(const char *s, struct dynbuf *out)
{
    s = s ? s : "";
    size_t n;
    size_t chars = utf8_chars(s, TREE_TEXT_MAX, &n);
    wa_err e = dynbuf_addc(out, '"');
    if (!e)
        e = quote_escaped(s, n, out);
    if (!e && chars > TREE_TEXT_MAX)
        e = dynbuf_addf(out, "\xe2\x80\xa6\" (%zu chars)", chars); /* U+2026 */
    else if (!e)
        e = dynbuf_addc(out, '"');
    return e;
}

wa_err tree_collection_words(const struct wa_collection *c, struct dynbuf *out)
{
    wa_err e = dynbuf_addf(out, " %d item%s", c->count, c->count == 1 ? "" : "s");
    if (!e && c->first >= 0 && c->last >= c->first)
        e = dynbuf_addf(out, ", %d-%d shown", c->first, c->last);
    else if (!e && c->first < 0 && c->in_view > 0)
        e = dynbuf_addf(out, ", %d shown", c->in_view);
    return e;
}

bool tree_type_is_interactive(const char *type)
{
    static const char *const kinds[] = {"Button",  "MenuItem", "CheckBox", "RadioButton",
                                        "TabItem", "ListItem", "TreeItem", "ComboBox"};
    for (size_t i = 0; type && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(type, kinds[i]) == 0)
            return true;
    return false;
}

/* Open menus and unreadable menu bars are shown with the actionable elements too: the
 * open menu is what the next action works in, and "items not readable" tells how. */
static bool node_is_actionable(const struct wa_node *n)
{
    return (n->states & WA_ST_FOCUSABLE) || (n->patterns & ~(unsigned)WA_PAT_SCROLL) ||
           tree_type_is_interactive(n->type) || strcmp(n->type, "Edit") == 0 ||
           tree_node_is_open_menu(n) || n->items_unreadable;
}

static bool node_is_structural(const struct wa_node *n)
{
    static const char *const kinds[] = {"Pane",      "Group", "Custom",   "Document",
                                        "ScrollBar", "Thumb", "Separator"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(n->type, kinds[i]) == 0)
            return true;
    return false;
}

/* The centre of a node in 0-999 of the frame; a node without bounds borrows its
 * nearest ancestor's. */
static void node_center(const struct wa_tree *t, size_t i, int *x, int *y)
{
    const struct wa_node *n = &t->nodes[i];
    while (wa_rect_empty(n->bounds) && n->parent >= 0)
        n = &t->nodes[n->parent];
    struct wa_rect b = wa_rect_empty(n->bounds) ? t->frame : n->bounds;
    int px, py;
    wa_rect_center(b, &px, &py);
    *x = pixel_to_norm(px, t->frame.left, wa_rect_width(t->frame));
    *y = pixel_to_norm(py, t->frame.top, wa_rect_height(t->frame));
}

static bool in_scope(const struct wa_tree *t, size_t i, int scope)
{
    if (scope < 0)
        return true;
    for (int p = (int)i; p >= 0; p = t->nodes[p].parent)
        if (p == scope)
            return true;
    return false;
}

static bool has_children(const struct wa_tree *t, size_t i)
{
    return i + 1 < t->count && t->nodes[i + 1].parent == (int)i;
}

static wa_err format_node(const struct wa_tree *t, size_t i, int base_depth, bool verbose,
                          struct dynbuf *out)
{
    const struct wa_node *n = &t->nodes[i];
    wa_err e = WA_E_OK;
    for (int d = base_depth; !e && d < n->depth; d++)
        e = dynbuf_adds(out, "  ");
    if (!e)
        e = dynbuf_addf(out, "[%zu] %s ", i + 1, n->type);
    if (!e)
        e = tree_quote(n->name, out);
    int x, y;
    node_center(t, i, &x, &y);
    if (!e)
        e = dynbuf_addf(out, " @(%d,%d)", x, y);
    if (!e && n->coll.is)
        e = tree_collection_words(&n->coll, out);
    if (!e && n->value) {
        e = dynbuf_adds(out, " value=");
        if (!e)
            e = tree_quote(n->value, out);
    }
    if (!e && n->accelerator) {
        e = dynbuf_adds(out, " accelerator=");
        if (!e)
            e = tree_quote(n->accelerator, out);
    }
    if (!e && n->items_unreadable)
        e = dynbuf_adds(out, " items not readable");
    bool offscreen =
        (n->states & WA_ST_OFFSCREEN) ||
        (!wa_rect_empty(n->bounds) && wa_rect_empty(wa_rect_intersect(n->bounds, t->frame)));
    /* offscreen is written as seen against the frame; focusable is no word of a line */
    unsigned shown = n->states & ~(unsigned)(WA_ST_OFFSCREEN | WA_ST_FOCUSABLE);
    for (int k = 0; !e && k < WA_ST__COUNT; k++)
        if (shown & (1u << k))
            e = dynbuf_addf(out, " %s", wa_state_words[k]);
    if (!e && offscreen)
        e = dynbuf_adds(out, " offscreen");
    if (!e && n->is_new)
        e = dynbuf_adds(out, " new");
    if (!e && verbose && !wa_rect_empty(n->bounds))
        e = dynbuf_addf(out, " bounds=[%d,%d][%d,%d]", n->bounds.left, n->bounds.top,
                        n->bounds.right, n->bounds.bottom);
    if (!e)
        e = dynbuf_addc(out, '\n');
    return e;
}

bool tree_format_shows(const struct wa_tree *t, const struct tree_format_opts *o, size_t i)
{
    const struct wa_node *n = &t->nodes[i];
    if (o->scope >= (int)t->count || !in_scope(t, i, o->scope))
        return false;
    int base_depth = o->scope >= 0 ? t->nodes[o->scope].depth : 0;
    if (o->max_depth >= 0 && n->depth - base_depth > o->max_depth)
        return false;
    if (o->interactive_only && !node_is_actionable(n))
        return false;
    return !(o->compact && node_is_structural(n) && !*n->name && !n->value && !has_children(t, i));
}

wa_err tree_format(const struct wa_tree *t, const struct tree_format_opts *opts, struct dynbuf *out)
{
    struct tree_format_opts o = {.max_depth = -1, .scope = -1};
    if (opts)
        o = *opts;
    wa_err e = dynbuf_adds(out, "Window: ");
    if (!e)
        e = tree_quote(t->title ? t->title : "", out);
    if (!e)
        e = dynbuf_addf(out, " (%s) hwnd=0x%llx frame=[%d,%d][%d,%d]\n",
                        t->process && *t->process ? t->process : "unknown",
                        (unsigned long long)t->hwnd, t->frame.left, t->frame.top, t->frame.right,
                        t->frame.bottom);
    if (o.scope >= (int)t->count)
        return e ? e : wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %d", o.scope + 1);
    int base_depth = o.scope >= 0 ? t->nodes[o.scope].depth : 0;
    for (size_t i = 0; !e && i < t->count; i++)
        if (tree_format_shows(t, &o, i))
            e = format_node(t, i, base_depth, o.verbose, out);
    if (!e && t->truncated)
        e = dynbuf_addf(out, "# WARNING: tree truncated at %zu nodes\n", t->count);
    if (!e && t->timed_out)
        e = dynbuf_addf(out, "# WARNING: tree walk stopped after %.0f ms; the tree is partial\n",
                        t->walk_ms);
    return e;
}

/* Items in view that have no name (rows a program draws itself, from data of its own:
 * owner-drawn lists without text) and the named ones: when most rows in view have
 * none, only the image tells them apart. */
static void items_in_view(const struct wa_tree *t, size_t *unnamed, size_t *named)
{
    *unnamed = *named = 0;
    for (size_t i = 0; i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        if (strcmp(n->type, "ListItem") != 0 && strcmp(n->type, "TreeItem") != 0)
            continue;
        if (wa_rect_empty(n->bounds) || (n->states & WA_ST_OFFSCREEN) ||
            wa_rect_empty(wa_rect_intersect(n->bounds, t->frame)))
            continue;
        if (n->name && *n->name)
            (*named)++;
        else
            (*unnamed)++;
    }
}

bool tree_is_useful(const struct wa_tree *t, char *reason, size_t reason_size)
{
    size_t named = 0, interactive = 0, interactive_named = 0;
    for (size_t i = 0; i < t->count; i++) {
        if (tree_node_is_open_menu(&t->nodes[i]) && t->nodes[i].items_unreadable) {
            snprintf(reason, reason_size,
                     "an open menu's items cannot be read (menu [%zu] \"%.80s\")", i + 1,
                     t->nodes[i].name);
            return false;
        }
    }
    for (size_t i = 0; i < t->count; i++) {
        bool has_name = t->nodes[i].name && *t->nodes[i].name;
        named += has_name;
        if (tree_type_is_interactive(t->nodes[i].type)) {
            interactive++;
            interactive_named += has_name;
        }
    }
    if (t->count < 3) {
        snprintf(reason, reason_size, "only %zu element%s", t->count, t->count == 1 ? "" : "s");
        return false;
    }
    if (interactive >= 3 && interactive_named == 0) {
        snprintf(reason, reason_size, "%zu interactive elements but none has Name", interactive);
        return false;
    }
    if (named == 0) {
        snprintf(reason, reason_size, "%zu elements but none has Name", t->count);
        return false;
    }
    size_t rows_unnamed, rows_named;
    items_in_view(t, &rows_unnamed, &rows_named);
    if (rows_unnamed >= 3 && rows_unnamed > rows_named) {
        snprintf(reason, reason_size,
                 "%zu items in view have no names (the program draws them): only the image "
                 "tells them apart",
                 rows_unnamed);
        return false;
    }
    snprintf(reason, reason_size, "%zu elements (%zu interactive), %zu with names", t->count,
             interactive, named);
    return true;
}

const struct wa_node *tree_node_by_id(const struct wa_tree *t, int id)
{
    if (id < 1 || (size_t)id > t->count)
        return NULL;
    return &t->nodes[id - 1];
}
