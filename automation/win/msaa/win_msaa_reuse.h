/* What a walk of the MSAA tree source takes of the last walk of the same window. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_REUSE_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_REUSE_H

#include <windows.h>
#include <stdbool.h>

#include "automation/tree.h"
#include "automation/win/msaa/win_msaa_el.h"

/* What a walk may take of the last walk of the same window instead of asking the
 * program again: each window whose fingerprint (what can be seen of it without asking:
 * place, style, text, focus, its label) is the same and that nothing was heard of since
 * (win_events.h), its value, check, position and collection read again; what the last
 * walk listed of each collection, and each of its items, each menu bar item and each
 * list view's columns whose pixels look as they did: as same says (per node of prev),
 * or with later, as the capture beside the walk shows (win_msaa_el_pixels_wait), else none.
 * Made from prev (an "msaa" tree; NULL when it is none) before the walk; prev and same
 * may go once it is made. */
struct win_msaa_reuse;
struct win_msaa_reuse *win_msaa_reuse_new(const struct wa_tree *prev, const bool *same, bool later);
/* Another reference (a walk on another thread: the menu bar's); _free drops one. */
struct win_msaa_reuse *win_msaa_reuse_ref(struct win_msaa_reuse *r);
void win_msaa_reuse_free(struct win_msaa_reuse *r);
/* The walk of c takes what r holds (r outlives c's walk). */
void win_msaa_reuse(struct win_msaa_ctx *c, const struct win_msaa_reuse *r);

/* What can be said of a window without asking its program (no message, no MSAA call):
 * a change of any of it makes the window read again. */
uint64_t win_msaa_reuse_window_sig(struct win_msaa_ctx *c, HWND h);

/* Marks what info_window read as one a later walk may take: a window whose MSAA side is
 * oleacc's standard object (what it says follows from the window and the messages read
 * again anyway) and that has no MSAA children of its own. */
void win_msaa_reuse_sign_window(struct el_desc *d, const char *type, uint64_t sig,
                                struct tree_element_info *out);

/* What the last walk read of window h, taken when nothing was heard of it since and its
 * fingerprint is the same, with what it says now read again. */
bool win_msaa_reuse_take_window(struct win_msaa_ctx *c, struct el_desc *d, uint64_t sig,
                                struct tree_element_info *out);

/* A menu bar item (at position pos) that looks as it did: what it was, into out. */
bool win_msaa_reuse_take_bar_item(struct win_msaa_ctx *c, int pos, struct tree_element_info *out);

/* A list or combo box item (index i of list h) that looks as it did, while the list shows
 * what it did (as many items, the same first in view): what it was, into out. */
bool win_msaa_reuse_take_list_item(struct win_msaa_ctx *c, HWND h, int i,
                                   struct tree_element_info *out);

#endif
