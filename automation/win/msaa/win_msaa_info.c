/* What the MSAA tree source says of each element: a window (from its class, style and
 * messages, with its client object's MSAA answers), an MSAA object, a list or collection
 * item, a menu bar and a popup menu. */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
#include <commctrl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/msaa/win_msaa_info.h"
#include "automation/win/msaa/win_cc_tree.h"
#include "automation/win/msaa/win_msaa_cc.h"
#include "automation/win/msaa/win_msaa_items.h"
#include "automation/win/msaa/win_msaa_reuse.h"
#include "automation/win/desktop/win_menu.h"
#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_window.h"
#include "base/str.h"

/* ---- element info ---- */

static unsigned patterns_for_type(const char *type)
{
    static const struct {
        const char *type;
        unsigned patterns;
    } map[] = {
        {"Button", WA_PAT_INVOKE},   {"SplitButton", WA_PAT_INVOKE | WA_PAT_EXPAND},
        {"MenuItem", WA_PAT_INVOKE}, {"Hyperlink", WA_PAT_INVOKE},
        {"CheckBox", WA_PAT_TOGGLE}, {"RadioButton", WA_PAT_SELECT},
        {"ListItem", WA_PAT_SELECT}, {"TabItem", WA_PAT_SELECT},
        {"TreeItem", WA_PAT_SELECT}, {"ComboBox", WA_PAT_EXPAND | WA_PAT_VALUE},
        {"Edit", WA_PAT_VALUE},      {"Slider", WA_PAT_RANGE},
        {"ScrollBar", WA_PAT_RANGE}, {"ProgressBar", WA_PAT_RANGE},
    };
    for (size_t i = 0; type && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(type, map[i].type) == 0)
            return map[i].patterns;
    return 0;
}

static void take_string(char **dst, char *s)
{
    free(*dst);
    *dst = s;
}
static wa_err info_root(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    (void)c;
    out->type = str_dup("Window");
    out->name = win_window_title(d->hwnd);
    out->class_name = win_msaa_el_class_of(d->hwnd);
    RECT fr; /* the frame the tree's coordinates are relative to */
    if (win_window_frame(d->hwnd, &fr))
        out->bounds = (struct wa_rect){fr.left, fr.top, fr.right, fr.bottom};
    out->hwnd = (uint64_t)(uintptr_t)d->hwnd;
    if (!IsWindowEnabled(d->hwnd))
        out->states |= WA_ST_DISABLED; /* a modal dialog is open */
    return WA_E_OK;
}

static wa_err info_window(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    HWND h = d->hwnd;
    uint64_t sig = win_msaa_reuse_window_sig(c, h);
    if (win_msaa_reuse_take_window(c, d, sig, out))
        return WA_E_OK;
    LONG style = GetWindowLongW(h, GWL_STYLE);
    struct thread_state *ts = win_msaa_el_thread_of(c, h);
    out->class_name = win_msaa_el_ctx_class(c, h);
    out->bounds = win_msaa_el_rect_of(h);
    out->hwnd = (uint64_t)(uintptr_t)h;

    long role = 0, state = 0;
    bool have_state = false;
    char *acc_name = NULL, *acc_value = NULL, *action = NULL;
    IAccessible *client = win_msaa_el_desc_client(c, d);
    if (client) {
        win_msaa_el_acc_long(c->gate, client, CHILDID_SELF, false, &role);
        d->client_role = role;
        have_state = win_msaa_el_acc_long(c->gate, client, CHILDID_SELF, true, &state);
        acc_name = win_msaa_el_acc_text(c->gate, client, CHILDID_SELF, ACC_NAME);
        acc_value = win_msaa_el_acc_text(c->gate, client, CHILDID_SELF, ACC_VALUE);
        action = win_msaa_el_acc_text(c->gate, client, CHILDID_SELF, ACC_DEFAULT_ACTION);
    }
    const char *type = NULL;
    if (role && !msaa_role_is_generic(role))
        type = msaa_role_type_name(role, (unsigned long)state);
    if (!type)
        type = msaa_class_type_name(out->class_name, (unsigned long)style);
    if (!type)
        type = "Pane";
    out->type = str_dup(type);

    /* Name: MSAA's, except where Wine's generic client object named a combo or list
     * box by its content; the label before it for unnamed edits, lists and combos. */
    bool takes_label = win_msaa_el_type_takes_label(type);
    if (acc_name && *acc_name && !(takes_label && msaa_role_is_generic(role)))
        take_string(&out->name, acc_name);
    else
        free(acc_name);
    if (!out->name && takes_label)
        out->name = win_msaa_el_label_before(h);
    /* A spin button sits beside the edit it steps (its buddy): the edit's label. */
    LRESULT buddy = 0;
    if (!out->name && strcmp(type, "Spinner") == 0 && ts->responsive &&
        win_msaa_el_send_msg(c->gate, h, UDM_GETBUDDY, 0, 0, MESSAGE_MS, &buddy) && buddy)
        out->name = win_msaa_el_label_before((HWND)buddy);

    /* Value: edits and combo boxes; never a password field's. */
    bool secret = (have_state && (state & STATE_SYSTEM_PROTECTED)) ||
                  (str_ieq(type, "Edit") && (style & ES_PASSWORD));
    if (!secret && acc_value)
        take_string(&out->value, acc_value);
    else
        free(acc_value);
    if (!secret && !out->value && ts->responsive &&
        (strcmp(type, "Edit") == 0 || strcmp(type, "ComboBox") == 0))
        out->value = win_msaa_el_message_text(c->gate, h);

    /* States: MSAA's, corrected where Wine's answer is about our own thread. */
    unsigned s = have_state ? msaa_state_to_wa((unsigned long)state) : 0;
    s &= ~(unsigned)WA_ST_FOCUSED;
    if (ts->focus == h)
        s |= WA_ST_FOCUSED;
    if ((style & WS_DISABLED) || !IsWindowEnabled(h))
        s |= WA_ST_DISABLED;
    else if (style & WS_TABSTOP)
        s |= WA_ST_FOCUSABLE;
    LRESULT r = 0;
    if (strcmp(type, "CheckBox") == 0 || strcmp(type, "RadioButton") == 0) {
        /* the button's own word over its MSAA object's */
        unsigned check = ts->responsive ? win_msaa_el_button_check(c->gate, h, type) : 0;
        if (!check && have_state)
            check = msaa_check_states(role, (unsigned long)state);
        if (check)
            s = (s & ~(unsigned)WA_ST_CHECK_STATES) | check;
    }
    /* A simple combo box's list is always open: neither expanded nor collapsed. */
    bool simple_combo = strcmp(type, "ComboBox") == 0 && (style & 3) == CBS_SIMPLE &&
                        str_ieq(out->class_name, "ComboBox");
    if (simple_combo)
        s &= ~(unsigned)(WA_ST_EXPANDED | WA_ST_COLLAPSED);
    else if (ts->responsive && strcmp(type, "ComboBox") == 0 &&
             win_msaa_el_send_msg(c->gate, h, CB_GETDROPPEDSTATE, 0, 0, MESSAGE_MS, &r)) {
        s &= ~(unsigned)(WA_ST_EXPANDED | WA_ST_COLLAPSED);
        s |= r ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
    }
    out->states = s;

    if (ts->responsive && !out->value)
        out->value = win_msaa_el_range_value(c->gate, h, type);

    out->patterns = patterns_for_type(type);
    if ((out->patterns & WA_PAT_VALUE) && strcmp(type, "Edit") == 0 && (style & ES_READONLY))
        out->patterns &= ~(unsigned)WA_PAT_VALUE;
    if (simple_combo)
        out->patterns &= ~(unsigned)WA_PAT_EXPAND;
    if (action && *action)
        out->patterns |= WA_PAT_DEFAULT_ACTION;
    free(action);
    win_msaa_items_coll_summary(c, d, out);
    if (ts->responsive) /* what a window that did not answer told is not worth keeping */
        win_msaa_reuse_sign_window(d, type, sig, out);
    return WA_E_OK;
}

static wa_err info_acc(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    if (d->in_bar && win_msaa_reuse_take_bar_item(c, (int)d->child_id - 1, out))
        return WA_E_OK; /* it looks as it did */
    long role = ROLE_SYSTEM_MENUITEM, state = 0;
    if (!d->in_bar) /* what a menu bar holds is known: a round trip fewer per item */
        win_msaa_el_acc_long(c->gate, d->acc, d->child_id, false, &role);
    bool have_state = win_msaa_el_acc_long(c->gate, d->acc, d->child_id, true, &state);
    const char *type = msaa_role_type_name(role, (unsigned long)state);
    out->type = str_dup(type ? type : "Custom");
    out->name = win_msaa_el_acc_text(c->gate, d->acc, d->child_id, ACC_NAME);
    /* Menu items have no value, and what their default action does is known: two
     * round trips fewer for each (a menu bar is walked with every tree). */
    bool menu_item = role == ROLE_SYSTEM_MENUITEM || role == ROLE_SYSTEM_SEPARATOR;
    if (!menu_item && !(have_state && (state & STATE_SYSTEM_PROTECTED)))
        out->value = win_msaa_el_acc_text(c->gate, d->acc, d->child_id, ACC_VALUE);
    win_msaa_el_acc_location(c->gate, d->acc, d->child_id, &out->bounds);
    out->states = have_state ? msaa_state_to_wa((unsigned long)state) : 0;
    if (have_state && msaa_check_states(role, (unsigned long)state))
        out->states = (out->states & ~(unsigned)WA_ST_CHECK_STATES) |
                      msaa_check_states(role, (unsigned long)state);
    out->patterns = patterns_for_type(out->type);
    if (menu_item && (have_state && (state & STATE_SYSTEM_HASPOPUP))) {
        out->patterns |= WA_PAT_EXPAND;
        out->states |= (state & STATE_SYSTEM_EXPANDED) ? WA_ST_EXPANDED : WA_ST_COLLAPSED;
    }
    char *action =
        menu_item ? NULL : win_msaa_el_acc_text(c->gate, d->acc, d->child_id, ACC_DEFAULT_ACTION);
    if (menu_item || (action && *action))
        out->patterns |= WA_PAT_DEFAULT_ACTION;
    free(action);
    out->child_id = d->child_id;
    /* hwnd stays 0: the element is not its container window, whose text and MSAA
     * name must not become its name. */
    return WA_E_OK;
}

/* Owner-drawn lists without strings hold pointers: their items have no text. */
static wa_err info_item_read(struct win_msaa_ctx *c, struct el_desc *d,
                             struct tree_element_info *out);

wa_err win_msaa_info_item(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    struct win_coll *co = win_msaa_items_coll_found(c, d->hwnd);
    uint64_t id = win_msaa_items_id(d);
    if (co && win_coll_info(co, id, out))
        return WA_E_OK;
    if ((d->items == MSAA_ITEMS_LISTBOX || d->items == MSAA_ITEMS_COMBOBOX) &&
        win_msaa_reuse_take_list_item(c, d->hwnd, d->item, out))
        return WA_E_OK;
    wa_err e = info_item_read(c, d, out);
    win_cc_item_identity(d->hwnd, d->items, id, out);
    return e;
}

static wa_err info_item_read(struct win_msaa_ctx *c, struct el_desc *d,
                             struct tree_element_info *out)
{
    HWND h = d->hwnd;
    if (d->items != MSAA_ITEMS_LISTBOX && d->items != MSAA_ITEMS_COMBOBOX) {
        if (!win_msaa_el_thread_of(c, h)->responsive || !win_msaa_items_cc(c)) {
            out->type = str_dup(d->items == MSAA_ITEMS_TREEVIEW    ? "TreeItem"
                                : d->items == MSAA_ITEMS_TAB       ? "TabItem"
                                : d->items == MSAA_ITEMS_TOOLBAR   ? "Button"
                                : d->items == MSAA_ITEMS_STATUSBAR ? "Text"
                                                                   : "ListItem");
            return WA_E_OK;
        }
        return win_cc_item_info(c->cc, h, d->items, d->item_id, out);
    }
    bool combo = d->items == MSAA_ITEMS_COMBOBOX;
    out->type = str_dup("ListItem");
    out->patterns = WA_PAT_SELECT;
    out->child_id = d->item + 1; /* MSAA numbers list items from 1 */
    struct list_facts *f = win_msaa_items_facts(c, h, combo);
    if (!f || !f->responsive)
        return WA_E_OK;
    out->name = win_msaa_items_text(c->gate, f, d->item);
    LRESULT r = 0;
    if (f->cursel == d->item || (f->selected && d->item < f->count && f->selected[d->item]))
        out->states |= WA_ST_SELECTED;
    else if (!combo && !f->selected && (f->style & (LBS_MULTIPLESEL | LBS_EXTENDEDSEL)) &&
             win_msaa_el_send_msg(c->gate, h, LB_GETSEL, (WPARAM)d->item, 0, MESSAGE_MS, &r) &&
             r > 0)
        out->states |= WA_ST_SELECTED;
    if (f->data && d->item < f->count && d->item < ITEM_CAP && f->data[d->item] != (uintptr_t)-1) {
        char id[64]; /* a row without text is known by its data */
        snprintf(id, sizeof id, "item.%llx.%llx", (unsigned long long)(uintptr_t)h,
                 (unsigned long long)f->data[d->item]);
        out->runtime_id = str_dup(id);
    }
    win_msaa_items_place(c, f, d->item, out);
    return WA_E_OK;
}

/* The menu bar, whatever reads its items: its place between the title bar and the
 * client area, one menu row high, known without asking the program (a walk of testapp
 * took 6 round trips more when its MSAA object was asked for each of these). */
static wa_err info_menubar(struct el_desc *d, struct tree_element_info *out)
{
    out->type = str_dup("MenuBar");
    out->name = str_dup("Application"); /* what MSAA calls a window's menu bar */
    /* Walked apart: the walk of the bar says, once its items are in. */
    out->items_unreadable = !d->apart && !d->items_by_acc && win_menu_count(d->menu) <= 0;
    WINDOWINFO wi = {.cbSize = sizeof wi};
    TITLEBARINFO ti = {.cbSize = sizeof ti};
    if (GetWindowInfo(d->hwnd, &wi)) {
        int top = wi.rcClient.top - GetSystemMetrics(SM_CYMENU);
        if (GetTitleBarInfo(d->hwnd, &ti) && ti.rcTitleBar.bottom > top &&
            ti.rcTitleBar.bottom < wi.rcClient.top)
            top = ti.rcTitleBar.bottom;
        out->bounds = (struct wa_rect){wi.rcClient.left, top, wi.rcClient.right, wi.rcClient.top};
    }
    return WA_E_OK;
}

long win_msaa_info_acc_child_count(struct win_gate *g, IAccessible *acc)
{
    long n = 0;
    win_gate_leave(g);
    HRESULT hr = IAccessible_get_accChildCount(acc, &n);
    win_gate_enter(g);
    return SUCCEEDED(hr) ? n : 0;
}

void win_msaa_info_choose_popup_route(struct win_msaa_ctx *c, struct el_desc *d)
{
    if (d->menu_read)
        return;
    d->menu_read = true;
    IAccessible *client = win_msaa_el_desc_client(c, d);
    long role = 0;
    if (client && win_msaa_el_acc_long(c->gate, client, CHILDID_SELF, false, &role) &&
        role == ROLE_SYSTEM_MENUPOPUP && win_msaa_info_acc_child_count(c->gate, client) > 0) {
        d->items_by_acc = true;
        return;
    }
    if (win_msaa_el_thread_of(c, d->hwnd)->responsive)
        d->menu = win_menu_of_popup(d->hwnd, c->gate);
    if (win_menu_count(d->menu) <= 0)
        d->menu = NULL;
}

static wa_err info_popup(struct win_msaa_ctx *c, struct el_desc *d, struct tree_element_info *out)
{
    win_msaa_info_choose_popup_route(c, d);
    out->type = str_dup("Menu");
    out->class_name = win_msaa_el_class_of(d->hwnd);
    out->bounds = win_msaa_el_rect_of(d->hwnd);
    out->hwnd = (uint64_t)(uintptr_t)d->hwnd;
    if (d->items_by_acc)
        out->name = win_msaa_el_acc_text(c->gate, d->client, CHILDID_SELF, ACC_NAME);
    else if (d->menu)
        out->name = win_menu_opener_name(c->root, d->menu);
    if (!out->name)
        out->name = str_dup("");
    out->items_unreadable = !d->items_by_acc && !d->menu;
    return WA_E_OK;
}

wa_err win_msaa_info_read(void *ctx, void *el, struct tree_element_info *out)
{
    struct win_msaa_ctx *c = ctx;
    struct el_desc *d = win_msaa_el_desc_of(el);
    memset(out, 0, sizeof *out);
    if (d->kind == EL_ITEM) /* its list's window was there a moment ago; messages tell */
        return win_msaa_info_item(c, d, out);
    if (!IsWindow(d->hwnd))
        return wa_fail(WA_E_STALE_REF, "window 0x%llx is gone",
                       (unsigned long long)(uintptr_t)d->hwnd);
    switch (d->kind) {
    case EL_WINDOW:
        return d->root ? info_root(c, d, out) : info_window(c, d, out);
    case EL_ACC:
        return info_acc(c, d, out);
    case EL_ITEM:
        return win_msaa_info_item(c, d, out);
    case EL_MENUBAR:
        return info_menubar(d, out);
    case EL_MENUITEM:
        if (!d->in_bar || !win_msaa_reuse_take_bar_item(c, d->pos, out))
            win_menu_item_info(d->in_bar ? d->hwnd : NULL, d->menu, d->pos, out);
        return WA_E_OK;
    case EL_POPUP:
        return info_popup(c, d, out);
    case EL_POPUPS:
        out->type = str_dup("Pane");
        return WA_E_OK;
    }
    return WA_E_OK;
}
