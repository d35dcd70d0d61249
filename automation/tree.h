/* The accessibility tree: the node model every source fills, the generic walk with
 * its budgets and name fallbacks, the docs/contract.md §5 text format and the usefulness verdict.
 * Portable: sources (UI Automation, HWND+MSAA on Windows; a fake in tests) plug in
 * through struct tree_source_ops, so the walk's logic is tested natively. */
#ifndef WINAGENT_AUTOMATION_TREE_H
#define WINAGENT_AUTOMATION_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/image/coords.h"
#include "base/dynbuf.h"
#include "base/wa_err.h"

/* X(NAME, word): an element's states, each a bit of wa_node.states in this order, with
 * the word every text and JSON writes it as (tree lines, change reports, results). */
#define WA_STATE_MAP(X)                                                                            \
    X(FOCUSED, "focused")                                                                          \
    X(DISABLED, "disabled")                                                                        \
    X(CHECKED, "checked")                                                                          \
    X(UNCHECKED, "unchecked") /* a check box (or an item's) that is not checked */                 \
    X(MIXED, "mixed") /* a check box in its third state (some, not all, of what it holds) */       \
    X(EXPANDED, "expanded")                                                                        \
    X(COLLAPSED, "collapsed")                                                                      \
    X(SELECTED, "selected")                                                                        \
    X(OFFSCREEN, "offscreen")                                                                      \
    X(FOCUSABLE, "focusable") /* keyboard-focusable (for "interactive" filters) */

/* X(NAME, word, short word): what an element supports, UIA patterns or their MSAA and
 * window-message stand-ins; results write the word, scenes may use the short one. */
#define WA_PATTERN_MAP(X)                                                                          \
    X(INVOKE, "invoke", "invoke")                                                                  \
    X(TOGGLE, "toggle", "toggle")                                                                  \
    X(EXPAND, "expand_collapse", "expand") /* ExpandCollapse */                                    \
    X(SELECT, "selection_item", "select")  /* SelectionItem */                                     \
    X(VALUE, "value", "value")                                                                     \
    X(SCROLL, "scroll", "scroll")                                                                  \
    X(RANGE, "range_value", "range")                                                               \
    X(DEFAULT_ACTION, "default_action", "default_action") /* MSAA accDoDefaultAction */

enum {
#define X_INDEX(name, ...) WA_ST_INDEX_##name,
    WA_STATE_MAP(X_INDEX)
#undef X_INDEX
        WA_ST__COUNT
};

enum wa_state {
#define X_BIT(name, ...) WA_ST_##name = 1 << WA_ST_INDEX_##name,
    WA_STATE_MAP(X_BIT)
#undef X_BIT
};

/* The states of a check box: one of them where the element has one (a CheckBox, a tree
 * item or list row drawn with a check box, an element with a Toggle pattern), none
 * elsewhere. */
#define WA_ST_CHECK_STATES (WA_ST_CHECKED | WA_ST_UNCHECKED | WA_ST_MIXED)

enum {
#define X_INDEX(name, ...) WA_PAT_INDEX_##name,
    WA_PATTERN_MAP(X_INDEX)
#undef X_INDEX
        WA_PAT__COUNT
};

enum wa_pattern {
#define X_BIT(name, ...) WA_PAT_##name = 1 << WA_PAT_INDEX_##name,
    WA_PATTERN_MAP(X_BIT)
#undef X_BIT
};

/* The word of each state and pattern, by the index of its bit. */
extern const char *const wa_state_words[WA_ST__COUNT];
extern const char *const wa_pattern_words[WA_PAT__COUNT];
extern const char *const wa_pattern_short_words[WA_PAT__COUNT];

/* A long collection (a list, a tree view, a grid, a combo box's list): how many items
 * it holds and which are in view. Only what is in view (with a few around, and the
 * selected and focused ones) is listed under it; its line says the rest
 * ("3000 items, 2970-2999 shown"). */
struct wa_collection {
    bool is;   /* the node is such a collection (the rest is unused otherwise) */
    int count; /* items it holds */
    /* The items in view: indexes first..last (0-based) where items have an index, else
     * first = last = -1 and `in_view` of them (tree views: the rows that show). */
    int first, last;
    int in_view;
};

/* Where a node's name came from (the fallback chain of docs/contract.md §5). */
enum wa_name_source {
    WA_NAME_NONE,
    WA_NAME_PRIMARY, /* UIA Name (or MSAA accName for the MSAA source) */
    WA_NAME_AUTOMATION_ID,
    WA_NAME_WINDOW_TEXT,
    WA_NAME_MSAA,
};

struct wa_node {
    int parent; /* index in the tree, -1 for the root */
    int depth;  /* root is 0 */
    char *type; /* control type name: "Button", "Edit", "MenuItem", ... */
    char *name; /* after fallbacks; "" when none */
    enum wa_name_source name_source;
    char *value;           /* NULL when the element has no value */
    char *automation_id;   /* NULL when none */
    char *class_name;      /* NULL when none */
    char *runtime_id;      /* stable identity while the element lives ("42.7.1"), or NULL */
    struct wa_rect bounds; /* screen pixels; empty when unknown */
    unsigned states;       /* enum wa_state bits */
    unsigned patterns;     /* enum wa_pattern bits */
    uint64_t hwnd;         /* native window handle, 0 for virtual elements */
    long child_id;         /* MSAA child id (0 = the object itself) */
    bool is_new;           /* appeared since the observation before the action (tree_diff) */
    char *accelerator;     /* a menu item's shortcut ("Ctrl+S"), apart from its name; or NULL */
    /* A menu bar or open menu whose items no route could read (Wine serves no other
     * program's menus): the text says "items not readable", and an open menu so marked
     * makes the tree not useful (the image shows what the tree cannot). */
    bool items_unreadable;
    struct wa_collection coll; /* a long collection's summary, or none */
    /* An item of a long collection, listed by its collection's source: its index
     * there (list rows), or -1 where items are not indexed (tree items). */
    bool coll_item;
    int item_index;
    /* The source's fingerprint of what it read of the element without asking the
     * program (0: none): a later walk that finds the same fingerprint may take what it
     * read then instead of asking again. */
    uint64_t sig;
    /* Its row's pixels in a capture taken before the walk (tree_pix.h), or 0. */
    uint64_t pix;
    void *handle; /* the source's element, owned by the tree; released by it */
};

struct tree_source_ops;

struct wa_tree {
    struct wa_node *nodes;
    size_t count, cap;
    struct wa_rect frame; /* the window rectangle: the frame of the 0-999 coordinates */
    uint64_t hwnd;        /* the window walked */
    char *title;          /* its title and process, for the header line */
    char *process;
    const char *source; /* "uia", "msaa", "fake" */
    bool truncated;     /* node budget hit */
    bool timed_out;     /* time budget hit: the tree is partial */
    double walk_ms;
    size_t taken; /* nodes taken from the last walk (wa_tree_opts.prev) instead of read */
    /* The source's moment of the walk (what it heard of changes since is newer), or 0. */
    uint64_t stamp;
    /* Releases node handles at cleanup; set by whoever filled the tree. */
    void (*release_handle)(void *handle);
};

void tree_init(struct wa_tree *t);
void tree_cleanup(struct wa_tree *t); /* releases handles through release_handle */

/* ---- the generic walk ---- */

/* Everything a source reports about one element. Strings are heap copies handed to
 * the walk (NULL when absent). */
struct tree_element_info {
    char *type; /* control type name; NULL or "" becomes "Custom" */
    char *name; /* the source's own name (UIA Name / MSAA accName) */
    char *automation_id;
    char *class_name;
    char *value;
    char *runtime_id;
    struct wa_rect bounds;
    unsigned states, patterns;
    uint64_t hwnd; /* native window handle, 0 if none */
    long child_id;
    char *accelerator;         /* menu items: the shortcut shown apart ("Ctrl+S"), or NULL */
    bool items_unreadable;     /* menus: see struct wa_node */
    struct wa_collection coll; /* see struct wa_node */
    bool coll_item;
    int item_index;
    uint64_t sig;
    /* Its fingerprint (tree_pix.h) where it was taken from the last walk because its
     * pixels looked the same: the same still; else 0. */
    uint64_t pix;
};

/* A source of elements. Each returned element handle is owned by the caller of the
 * op and given back through release (or kept in the tree). Ops may return an error:
 * the walk then skips that element or branch and goes on ("fall through, never fail").
 * NULL ops are treated as "nothing there". */
struct tree_source_ops {
    const char *name; /* "uia", "msaa", "fake" */
    wa_err (*root)(void *ctx, void **element);
    /* First child / next sibling; *out NULL when there is none. */
    wa_err (*first_child)(void *ctx, void *element, void **out);
    wa_err (*next_sibling)(void *ctx, void *element, void **out);
    wa_err (*info)(void *ctx, void *element, struct tree_element_info *out);
    /* Name fallbacks, asked only when earlier ones gave nothing and hwnd != 0. */
    wa_err (*window_text)(void *ctx, uint64_t hwnd, char **out);
    wa_err (*msaa_name)(void *ctx, uint64_t hwnd, char **out);
    void (*release)(void *ctx, void *element);
};

struct tree_walk_opts {
    int max_nodes; /* default 500 */
    int max_depth; /* default 64 */
    int budget_ms; /* time budget for the walk; default 3000 */
    /* Keep element handles in the nodes (to act on them later). The caller then sets
     * t->release_handle so tree_cleanup can release them; otherwise the walk releases
     * each element as soon as its subtree is done. */
    bool keep_handles;
};

/* Walks the source from its root into t (which must be initialised;
 * frame/hwnd/title/process are left for the caller), on screen first: an element off
 * screen (marked offscreen, or bounds outside the root's; one without bounds goes with
 * its parent) is put off with its subtree until every element on screen is in, so the
 * node budget (max_nodes) is spent on what shows before anything that does not; then
 * the elements put off, in the order met, while the budget lasts. The nodes end in depth-first
 * order. Applies the name fallback chain (name, automation id, window text, MSAA name) and the
 * Pane-with-class-Button correction. Stops at the budgets (t->truncated, or t->timed_out for
 * budget_ms) and still returns what it has. Fails only when the root itself cannot be had. */
wa_err tree_walk(const struct tree_source_ops *src, void *ctx, const struct tree_walk_opts *opts,
                 struct wa_tree *t);

/* Appends a node (copying strings, its name made text: tree_text_name); returns its
 * index or -1 when out of memory. */
int tree_add_node(struct wa_tree *t, int parent, const struct tree_element_info *info);

/* Makes name (UTF-8, edited in place: it only shrinks) text a name may carry: a resource
 * ordinal (a static image's window text, U+FFFF and its id) is no name at all (""); bytes
 * that are not UTF-8, encoded surrogates, non-characters (U+FFFE, U+FFFF, U+FDD0-U+FDEF)
 * and control characters other than tab and line ends are dropped. NULL is left alone. */
void tree_text_name(char *name);

/* Frees the strings of an info and zeroes it. */
void tree_element_info_cleanup(struct tree_element_info *info);
/* A deep copy of in into out (out's old strings are not freed); false when out of memory
 * (out is then empty). */
bool tree_element_info_copy(const struct tree_element_info *in, struct tree_element_info *out);
/* What node i of t says, as the info a source gave (a deep copy); false when out of
 * memory. */
bool tree_node_info(const struct wa_tree *t, size_t i, struct tree_element_info *out);

/* A menu item's text as its name and accelerator: '&' markers removed when `marked`
 * (text straight from the menu functions; MSAA and UIA names have none), everything
 * after a tab is the accelerator ("Save &as...\tCtrl+Shift+S" -> "Save as...",
 * "Ctrl+Shift+S"). Replaces info->name and info->accelerator (an accelerator already
 * there is kept when the text has none). */
void tree_menu_item_text(struct tree_element_info *info, bool marked);

/* ---- menus ---- */

/* Whether a node is an open menu (a drop-down, submenu or context menu): type "Menu". */
bool tree_node_is_open_menu(const struct wa_node *n);

/* Moves every open menu's subtree (tree_node_is_open_menu) to the front of the root's
 * children, in their order, keeping handles and every other node's order: the open
 * menu is what a person looks at first. Sources that report menus inside the window's
 * own tree (UI Automation) are made to match those that list them apart. */
wa_err tree_hoist_menus(struct wa_tree *t);

/* Inserts the nodes of `sub` below its root (sub's root itself is left out) as the
 * first children of t's node `at`, moving their handles into t (sub keeps none). For
 * parts walked apart from the window: open menus (popup menus are top-level windows
 * of their own) under the root, a menu bar's items under the bar. When keep_handles
 * is false the handles are released with sub's release_handle instead. Both trees
 * must have a root. */
wa_err tree_splice_under(struct wa_tree *t, size_t at, struct wa_tree *sub, bool keep_handles);
#define tree_splice_first(t, sub, keep_handles) tree_splice_under((t), 0, (sub), (keep_handles))

/* Whether node i shows: neither it nor an element holding it is marked offscreen, and
 * the nearest of them with bounds meets the frame (t->frame, else the root's bounds).
 * False when nothing says where it is. */
bool tree_node_on_screen(const struct wa_tree *t, size_t i);

/* Cuts the tree to max nodes, releasing the others' handles, and says truncated when
 * any went: the nodes on screen first (tree_node_on_screen, with the nodes that hold
 * them), then the others, each in depth-first order while the budget lasts (what a
 * walk capped at max would have kept). */
void tree_cap_nodes(struct wa_tree *t, size_t max);

#endif
