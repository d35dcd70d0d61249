/* Check boxes drawn in tree and list view items: where a click turns one over (the
 * control's own hit test), and Space on the item, in messages only. */
#include "automation/win/msaa/win_cc_check.h"

#include <commctrl.h>
#include <string.h>

#include "automation/win/msaa/win_cc_buf.h"

#define PROBES_MAX 160 /* points asked along a row, one pixel apart */

/* The item's row in client pixels: a tree item's label (TVM_GETITEMRECT, TRUE) or a list
 * row's icon and label (LVM_GETITEMRECT, LVIR_SELECTBOUNDS), with the row's left edge
 * (a list row's whole bounds: its state image lies there). */
static bool row_rect(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item, RECT *label,
                     LONG *row_left)
{
    struct remote *r = win_cc_buf_remote_for(cc, h);
    if (!r)
        return false;
    RECT in[2] = {{0}, {.left = LVIR_BOUNDS}};
    if (k == MSAA_ITEMS_TREEVIEW)
        memcpy(&in[0], &item, sizeof item); /* TVM_GETITEMRECT takes the item in the RECT */
    else
        in[0].left = LVIR_SELECTBOUNDS;
    LRESULT ok = 0;
    UINT msg = k == MSAA_ITEMS_TREEVIEW ? TVM_GETITEMRECT : LVM_GETITEMRECT;
    WPARAM wp = k == MSAA_ITEMS_TREEVIEW ? TRUE : (WPARAM)item;
    if (!win_cc_buf_put(r, OFF_RECT, &in[0], sizeof in[0]) ||
        !win_cc_buf_send(cc, r, h, msg, wp, win_cc_buf_at(r, OFF_RECT), &ok) || !ok ||
        !win_cc_buf_get(r, OFF_RECT, label, sizeof *label))
        return false;
    *row_left = 0;
    if (k == MSAA_ITEMS_LISTVIEW) {
        RECT whole;
        if (win_cc_buf_put(r, OFF_RECT, &in[1], sizeof in[1]) &&
            win_cc_buf_send(cc, r, h, LVM_GETITEMRECT, (WPARAM)item, win_cc_buf_at(r, OFF_RECT),
                            &ok) &&
            ok && win_cc_buf_get(r, OFF_RECT, &whole, sizeof whole))
            *row_left = whole.left;
    }
    return label->bottom > label->top;
}

wa_err win_cc_check_point(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item,
                          POINT *screen)
{
    if (k != MSAA_ITEMS_TREEVIEW && k != MSAA_ITEMS_LISTVIEW)
        return wa_fail(WA_E_UNSUPPORTED, "only tree and list view items draw check boxes");
    RECT label;
    LONG left;
    if (!row_rect(cc, h, k, item, &label, &left))
        return wa_fail(WA_E_UNSUPPORTED, "the item has no place to click (scrolled away?)");
    int y = (label.top + label.bottom) / 2;
    int from = label.left - 1, to = left > label.left - PROBES_MAX ? left : label.left - PROBES_MAX;
    if (from < to)
        return wa_fail(WA_E_UNSUPPORTED, "nothing lies left of the item's label");
    size_t n = (size_t)(from - to + 1);
    size_t cell = k == MSAA_ITEMS_TREEVIEW ? sizeof(TVHITTESTINFO) : sizeof(LVHITTESTINFO);
    struct cc_block b;
    struct sends s;
    if (!win_cc_buf_sends_init(&s, n))
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (!win_cc_buf_block_new(cc, h, n * cell, &b)) {
        win_cc_buf_sends_cleanup(&s);
        return wa_fail(WA_E_UNSUPPORTED, "cannot reach the control's process");
    }
    for (size_t i = 0; i < n; i++) {
        POINT pt = {from - (LONG)i, y};
        if (k == MSAA_ITEMS_TREEVIEW) {
            TVHITTESTINFO ht = {.pt = pt};
            memcpy(b.local + i * cell, &ht, sizeof ht);
        } else {
            LVHITTESTINFO ht = {.pt = pt, .iItem = -1};
            memcpy(b.local + i * cell, &ht, sizeof ht);
        }
        win_cc_buf_sends_add(&s, k == MSAA_ITEMS_TREEVIEW ? TVM_HITTEST : LVM_HITTEST, 0,
                             win_cc_buf_block_at(&b, i * cell));
    }
    bool answered =
        win_cc_buf_block_put(&b) && win_cc_send_all(cc, h, s.msg, s.wp, s.lp, s.res, s.n);
    LONG hit_lo = 0, hit_hi = -1; /* the box's span on the row */
    if (answered && win_cc_buf_block_get(&b)) {
        for (size_t i = 0; i < n; i++) {
            bool on_box;
            LONG x;
            if (k == MSAA_ITEMS_TREEVIEW) {
                TVHITTESTINFO ht;
                memcpy(&ht, b.local + i * cell, sizeof ht);
                on_box = (ht.flags & TVHT_ONITEMSTATEICON) && (uint64_t)(uintptr_t)ht.hItem == item;
                x = ht.pt.x;
            } else {
                LVHITTESTINFO ht;
                memcpy(&ht, b.local + i * cell, sizeof ht);
                on_box = (ht.flags & LVHT_ONITEMSTATEICON) && ht.iItem == (int)item;
                x = ht.pt.x;
            }
            if (on_box && hit_hi < hit_lo) {
                hit_lo = hit_hi = x;
            } else if (on_box && x == hit_lo - 1) {
                hit_lo = x; /* the span grows leftwards, as the points were asked */
            }
        }
    }
    if (!answered)
        b.r->leak = true;
    win_cc_buf_block_free(&b, answered);
    win_cc_buf_sends_cleanup(&s);
    if (!answered)
        return wa_fail(WA_E_TIMEOUT, "the control did not answer its hit test");
    if (hit_hi < hit_lo)
        return wa_fail(WA_E_UNSUPPORTED, "no point of the item's row is its check box");
    POINT pt = {(hit_lo + hit_hi) / 2, y};
    MapWindowPoints(h, NULL, &pt, 1);
    *screen = pt;
    return WA_E_OK;
}

wa_err win_cc_check_keys(struct win_cc *cc, HWND h, enum msaa_item_class k, uint64_t item,
                         const char **via)
{
    if (k != MSAA_ITEMS_TREEVIEW && k != MSAA_ITEMS_LISTVIEW)
        return wa_fail(WA_E_UNSUPPORTED, "only tree and list view items draw check boxes");
    LRESULT state = 0;
    bool tree = k == MSAA_ITEMS_TREEVIEW;
    if (!win_cc_send(cc, h, tree ? TVM_GETITEMSTATE : LVM_GETITEMSTATE, (WPARAM)item,
                     tree ? TVIS_STATEIMAGEMASK : LVIS_STATEIMAGEMASK, &state) ||
        !msaa_state_image_check((unsigned)(state >> 12) & 0xF))
        return wa_fail(WA_E_UNSUPPORTED, "the item draws no check box");
    wa_err e = win_cc_action(h, k, item, WA_ACT_SELECT, via);
    if (e)
        return e;
    /* A key press as the keyboard makes it: the scan code in bits 16-23, a release with
     * bits 30 and 31 set. */
    UINT scan = MapVirtualKeyW(VK_SPACE, MAPVK_VK_TO_VSC);
    LPARAM down = 1 | ((LPARAM)scan << 16), up = down | (LPARAM)0xC0000000u;
    *via = k == MSAA_ITEMS_TREEVIEW ? "message:TVM_SELECTITEM+space"
                                    : "message:LVM_SETITEMSTATE+space";
    if (!PostMessageW(h, WM_KEYDOWN, VK_SPACE, down) || !PostMessageW(h, WM_KEYUP, VK_SPACE, up))
        return wa_fail(WA_E_ACTION_FAILED, "cannot post Space to the control (error %lu)",
                       (unsigned long)GetLastError());
    return WA_E_OK;
}
