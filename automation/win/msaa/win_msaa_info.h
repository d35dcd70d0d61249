/* What the MSAA tree source says of each element (tree_source_ops.info). */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_INFO_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_INFO_H

#include "automation/win/msaa/win_msaa_el.h"

/* An item: what its collection read of it, else read on its own, with the identity
 * every collection item carries. */
wa_err win_msaa_info_item(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out);

long win_msaa_info_acc_child_count(struct win_gate *g, IAccessible *acc);

/* Chooses how an open popup menu's items are read: its client object when the
 * program (or Windows' oleacc) serves a popup menu object with children, else the
 * menu functions on the menu MN_GETHMENU names; neither: not readable (Wine). */
void win_msaa_info_choose_popup_route(struct win_msaa_ctx *c, struct el_desc *d);

wa_err win_msaa_info_read(void *ctx, void *el, struct tree_element_info *out);

#endif
