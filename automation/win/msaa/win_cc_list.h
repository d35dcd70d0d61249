/* The list view reader of long collections (win_coll.h puts it to use). */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_LIST_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_LIST_H

#include "automation/win/msaa/win_msaa_cc.h"

extern const struct win_cc_reader win_cc_list_view_reader;

/* The listed() of collections whose items are indexes (top and per_page in the view):
 * every item of a short one, else the rows in view (one more for a row cut by the
 * bottom edge) with margin around, and the caret and selected ones, in order. */
size_t win_cc_indexed_listed(struct win_cc *cc, HWND h, const struct win_cc_view *v, int all,
                             int margin, struct win_cc_item *out, size_t max);

#endif
