/* element_action for Windows: UIA patterns, else MSAA, else window messages, run on a
 * worker thread with a deadline so that a hung target cannot hang the agent. */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
#include <commctrl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/msaa_roles.h"
#include "automation/win/msaa/win_cc_check.h"
#include "automation/win/msaa/win_coll.h"
#include "automation/win/msaa/win_msaa.h"
#include "automation/win/msaa/win_msaa_cc.h"
#include "automation/win/desktop/win_post.h"
#include "automation/win/win_tree.h"
#include "automation/win/desktop/win_tree_job.h"
#include "automation/win/win_uia.h"
#include "base/win/win_utf8.h"
#include "automation/win/desktop/win_window.h"
#include "base/str.h"

#define ACTION_MS  5000 /* the whole action */
#define MESSAGE_MS 2000 /* one message */
#define PING_MS    300  /* the answer to WM_NULL that shows the window is alive */

struct action_job {
    bool uia;     /* the handle is a UIA element (else an MSAA one, or none) */
    void *handle; /* our own reference, or NULL */
    HWND hwnd;    /* the node's window, 0 for virtual elements */
    enum wa_element_action a;
    char *value;
    const char *via;
    bool have_info; /* scrolled into view: what the element is now */
    struct tree_element_info info;
};

/* Another reference to node n's handle, for a job's thread: *uia says whether the tree
 * is UIA's (else MSAA's); *handle stays NULL for a node without one or a tree of another
 * source. False when there was a handle to reference and no memory for it. */
static bool handle_take(const struct wa_tree *t, const struct wa_node *n, bool *uia, void **handle)
{
    *uia = t->source && strcmp(t->source, "uia") == 0;
    bool msaa = t->source && strcmp(t->source, "msaa") == 0;
    *handle = NULL;
    if (!n->handle || !(*uia || msaa))
        return true;
    *handle = *uia ? win_uia_ref_handle(n->handle) : win_msaa_ref_handle(n->handle);
    return *handle != NULL;
}

/* Releases what handle_take took; harmless on NULL. */
static void handle_drop(bool uia, void *handle)
{
    if (!handle)
        return;
    if (uia)
        win_uia_release_handle(handle);
    else
        win_msaa_release_handle(handle);
}

static void action_job_free(void *p)
{
    struct action_job *j = p;
    handle_drop(j->uia, j->handle);
    free(j->value);
    tree_element_info_cleanup(&j->info);
    free(j);
}

/* ---- window messages ---- */

/* Scrolls an item of a long collection into view with its control's own message. */
static wa_err show_item(HWND h, enum msaa_item_class items, uint64_t id, const char **via)
{
    const struct win_cc_reader *rd = win_coll_reader(items);
    if (!rd || !rd->show)
        return wa_fail(WA_E_UNSUPPORTED, "the element is no item of a list or tree to scroll to");
    struct win_cc *cc = win_cc_new(NULL);
    if (!cc)
        return wa_fail(WA_E_NOMEM, "out of memory");
    *via = items == MSAA_ITEMS_LISTVIEW   ? "message:LVM_ENSUREVISIBLE"
           : items == MSAA_ITEMS_TREEVIEW ? "message:TVM_ENSUREVISIBLE"
           : items == MSAA_ITEMS_LISTBOX  ? "message:LB_SETTOPINDEX"
                                          : "message:CB_SETTOPINDEX";
    wa_err e = rd->show(cc, h, id);
    win_cc_free(cc);
    return e;
}

/* Sends msg with a timeout. A message the target is still busy with when the time
 * is up (a button opening a modal dialog) counts as delivered when `busy_ok`. */
static wa_err send_msg(HWND h, UINT msg, WPARAM wp, LPARAM lp, bool busy_ok, LRESULT *res)
{
    DWORD_PTR r = 0;
    SetLastError(0);
    if (SendMessageTimeoutW(h, msg, wp, lp, SMTO_ABORTIFHUNG, MESSAGE_MS, &r)) {
        if (res)
            *res = (LRESULT)r;
        return WA_E_OK;
    }
    DWORD err = GetLastError();
    if (res)
        *res = 0;
    if (IsHungAppWindow(h))
        return wa_fail(WA_E_TIMEOUT, "the window is not responding");
    if (err == ERROR_TIMEOUT || err == 0) {
        if (busy_ok)
            return WA_E_OK;
        return wa_fail(WA_E_TIMEOUT, "no answer to message 0x%x within %d ms", msg, MESSAGE_MS);
    }
    return wa_fail(WA_E_ACTION_FAILED, "SendMessageTimeout(0x%x) failed: error %lu", msg,
                   (unsigned long)err);
}

/* What the control sends its parent when a user makes the same change. */
static wa_err notify_parent(HWND ctl, WORD code)
{
    HWND parent = GetParent(ctl);
    if (!parent)
        return WA_E_OK;
    WPARAM wp = MAKEWPARAM((WORD)GetDlgCtrlID(ctl), code);
    return send_msg(parent, WM_COMMAND, wp, (LPARAM)ctl, true, NULL);
}

static wa_err set_focus(HWND h, const char **via)
{
    DWORD tid = GetWindowThreadProcessId(h, NULL), me = GetCurrentThreadId();
    bool attached = tid != me && AttachThreadInput(me, tid, TRUE);
    SetFocus(h);
    if (attached)
        AttachThreadInput(me, tid, FALSE);
    GUITHREADINFO gi = {.cbSize = sizeof gi};
    *via = "win32:SetFocus";
    if (!GetGUIThreadInfo(tid, &gi) || gi.hwndFocus != h)
        return wa_fail(WA_E_ACTION_FAILED, "the element did not take the focus (is its "
                                           "window in the foreground?)");
    return WA_E_OK;
}

static wa_err select_item(HWND h, enum msaa_item_class k, int item, const char **via)
{
    LONG style = GetWindowLongW(h, GWL_STYLE);
    LRESULT r = 0;
    wa_err e;
    if (k == MSAA_ITEMS_COMBOBOX) {
        *via = "message:CB_SETCURSEL";
        e = send_msg(h, CB_SETCURSEL, (WPARAM)item, 0, false, &r);
        if (!e && r == CB_ERR)
            return wa_fail(WA_E_ELEMENT_NOT_FOUND, "the combo box has no item %d", item + 1);
        LRESULT dropped = 0;
        if (!e && !send_msg(h, CB_GETDROPPEDSTATE, 0, 0, false, &dropped) && dropped)
            send_msg(h, CB_SHOWDROPDOWN, FALSE, 0, true, NULL);
        return e ? e : notify_parent(h, CBN_SELCHANGE);
    }
    if (style & (LBS_MULTIPLESEL | LBS_EXTENDEDSEL)) {
        *via = "message:LB_SETSEL";
        e = send_msg(h, LB_SETSEL, TRUE, (LPARAM)item, false, &r);
        if (!e)
            send_msg(h, LB_SETCARETINDEX, (WPARAM)item, FALSE, false, NULL);
    } else {
        *via = "message:LB_SETCURSEL";
        e = send_msg(h, LB_SETCURSEL, (WPARAM)item, 0, false, &r);
    }
    if (!e && r == LB_ERR)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "the list has no item %d", item + 1);
    /* LB_SETCURSEL does not notify; a list without LBS_NOTIFY expects nothing. */
    return e || !(style & LBS_NOTIFY) ? e : notify_parent(h, LBN_SELCHANGE);
}

static wa_err set_text(HWND h, const char *value, LRESULT *res)
{
    wchar_t *w = win_utf8_to_wide(value ? value : "");
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = send_msg(h, WM_SETTEXT, 0, (LPARAM)w, false, res);
    free(w);
    return e;
}

static wa_err edit_set_value(HWND h, const char *value, const char **via)
{
    LONG style = GetWindowLongW(h, GWL_STYLE);
    if (style & ES_READONLY)
        return wa_fail(WA_E_ACTION_FAILED, "the edit is read-only");
    *via = "message:WM_SETTEXT";
    LRESULT ok = 0;
    wa_err e = set_text(h, value, &ok);
    if (!e && !ok)
        return wa_fail(WA_E_ACTION_FAILED, "the edit refused the text (too long?)");
    /* WM_SETTEXT clears the modified flag (an editor would think nothing changed),
     * and multi-line edits send no EN_CHANGE for it. */
    if (!e)
        send_msg(h, EM_SETMODIFY, TRUE, 0, false, NULL);
    if (!e && (style & ES_MULTILINE))
        e = notify_parent(h, EN_CHANGE);
    return e;
}

static wa_err combo_set_value(HWND h, const char *value, const char **via)
{
    LONG style = GetWindowLongW(h, GWL_STYLE);
    if ((style & 3) != CBS_DROPDOWNLIST) {
        *via = "message:WM_SETTEXT";
        wa_err e = set_text(h, value, NULL);
        return e ? e : notify_parent(h, CBN_EDITCHANGE);
    }
    /* A drop-down list takes only its items: select the one with that text. */
    wchar_t *w = win_utf8_to_wide(value ? value : "");
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    LRESULT i = CB_ERR;
    wa_err e = send_msg(h, CB_FINDSTRINGEXACT, (WPARAM)-1, (LPARAM)w, false, &i);
    free(w);
    if (e)
        return e;
    if (i == CB_ERR)
        return wa_fail(WA_E_INVALID_ARGS, "the combo box has no item \"%s\"", value ? value : "");
    return select_item(h, MSAA_ITEMS_COMBOBOX, (int)i, via);
}

/* ---- track bars and up-down controls: a position set as a user's drag or click sets it ---- */

static bool range_class(HWND h, bool *slider)
{
    wchar_t cls[32];
    if (GetClassNameW(h, cls, 32) <= 0)
        return false;
    *slider = _wcsicmp(cls, TRACKBAR_CLASSW) == 0;
    return *slider || _wcsicmp(cls, UPDOWN_CLASSW) == 0;
}

/* The position of a track bar or up-down control (its buddy edit shows the same). */
static wa_err range_get(HWND h, bool slider, LRESULT *pos)
{
    return send_msg(h, slider ? TBM_GETPOS : UDM_GETPOS32, 0, 0, false, pos);
}

/* Sets the position and tells the owner as the control does when a user moves it (a
 * scroll message with the new position, then the end of the move): an owner that
 * reacts to the control only then (winecfg's DPI) sees the change. The position is
 * read back: a value outside the range is clamped by the control, and is refused. */
static wa_err range_set_value(HWND h, bool slider, const char *value, const char **via)
{
    char *end = NULL;
    long want = strtol(value ? value : "", &end, 10);
    if (!value || !*value || *end)
        return wa_fail(WA_E_INVALID_ARGS, "a %s takes a whole number, not \"%.40s\"",
                       slider ? "slider" : "spin button", value ? value : "");
    LONG style = GetWindowLongW(h, GWL_STYLE);
    bool vertical = slider ? (style & TBS_VERT) != 0 : !(style & UDS_HORZ);
    /* Outside the range the control would clamp it: refused before anything moves
     * (an up-down's range as UDM_GETRANGE gives it: 16 bits, max in the low word). */
    LRESULT lo = 0, hi = 0, range = 0;
    wa_err e = slider ? send_msg(h, TBM_GETRANGEMIN, 0, 0, false, &lo)
                      : send_msg(h, UDM_GETRANGE, 0, 0, false, &range);
    if (!e && slider)
        e = send_msg(h, TBM_GETRANGEMAX, 0, 0, false, &hi);
    if (!e && !slider) {
        lo = (short)HIWORD(range);
        hi = (short)LOWORD(range);
        if (lo > hi) { /* a reversed up-down counts down */
            LRESULT t = lo;
            lo = hi;
            hi = t;
        }
    }
    if (e)
        return e;
    if (want < (long)lo || want > (long)hi)
        return wa_fail(WA_E_INVALID_ARGS, "the %s takes %ld to %ld, not %ld",
                       slider ? "slider" : "spin button", (long)lo, (long)hi, want);
    *via = slider ? "message:TBM_SETPOS" : "message:UDM_SETPOS32";
    e = slider ? send_msg(h, TBM_SETPOS, TRUE, (LPARAM)want, false, NULL)
               : send_msg(h, UDM_SETPOS32, 0, (LPARAM)want, false, NULL);
    HWND owner = GetParent(h);
    UINT scroll = vertical ? WM_VSCROLL : WM_HSCROLL;
    if (!e && owner)
        e = send_msg(owner, scroll, MAKEWPARAM(slider ? TB_THUMBPOSITION : SB_THUMBPOSITION, want),
                     (LPARAM)h, true, NULL);
    if (!e && owner)
        e = send_msg(owner, scroll, MAKEWPARAM(slider ? TB_ENDTRACK : SB_ENDSCROLL, want),
                     (LPARAM)h, true, NULL);
    LRESULT got = 0;
    if (!e && !(e = range_get(h, slider, &got)) && (long)(int)got != want)
        e = wa_fail(WA_E_NOT_VERIFIED, "the control holds %ld, not %ld (outside its range?)",
                    (long)(int)got, want);
    return e;
}

/* The window-message path for a window (items == MSAA_ITEMS_NONE) or an item. */
static wa_err message_action(HWND h, enum msaa_item_class items, int item, uint64_t item_id,
                             enum wa_element_action a, const char *value, const char **via)
{
    if (!h || !IsWindow(h))
        return wa_fail(WA_E_UNSUPPORTED, "no window to send messages to");
    if (!IsWindowEnabled(h))
        return wa_fail(WA_E_ACTION_FAILED, "the element is disabled");
    /* A window that answers now and then takes long over our message is busy with it
     * (a modal dialog it opened); one that does not answer now is hung. */
    DWORD_PTR r = 0;
    if (!SendMessageTimeoutW(h, WM_NULL, 0, 0, SMTO_ABORTIFHUNG, PING_MS, &r))
        return wa_fail(WA_E_TIMEOUT, "the window is not responding");
    if (a == WA_ACT_SCROLL_INTO_VIEW)
        return show_item(
            h, items,
            items == MSAA_ITEMS_LISTBOX || items == MSAA_ITEMS_COMBOBOX ? (uint64_t)item : item_id,
            via);
    if (items == MSAA_ITEMS_LISTBOX || items == MSAA_ITEMS_COMBOBOX) {
        if (a == WA_ACT_SELECT)
            return select_item(h, items, item, via);
        return wa_fail(WA_E_UNSUPPORTED, "list items only take select");
    }
    if (a == WA_ACT_TOGGLE && (items == MSAA_ITEMS_TREEVIEW || items == MSAA_ITEMS_LISTVIEW)) {
        /* an item's check box: Space on it (a click on the box is the core's, as input) */
        struct win_cc *cc = win_cc_new(NULL);
        if (!cc)
            return wa_fail(WA_E_NOMEM, "out of memory");
        wa_err e = win_cc_check_keys(cc, h, items, item_id, via);
        win_cc_free(cc);
        return e;
    }
    if (items != MSAA_ITEMS_NONE)
        return win_cc_action(h, items, item_id, a, via);
    wchar_t wcls[64];
    char *cls = win_wide_to_utf8_n(wcls, GetClassNameW(h, wcls, 64));
    const char *type = msaa_class_type_name(cls, (unsigned long)GetWindowLongW(h, GWL_STYLE));
    bool is_button = str_ieq(cls, "Button");
    free(cls);
    type = type ? type : "";
    bool checkable = strcmp(type, "CheckBox") == 0 || strcmp(type, "RadioButton") == 0;
    if (is_button && strcmp(type, "Group") != 0 &&
        (a == WA_ACT_INVOKE || (a == WA_ACT_TOGGLE && checkable) ||
         (a == WA_ACT_SELECT && strcmp(type, "RadioButton") == 0))) {
        /* BM_CLICK presses and releases the button: auto checkboxes and radios
         * change state and the parent gets BN_CLICKED, as from a real click. */
        *via = "message:BM_CLICK";
        return send_msg(h, BM_CLICK, 0, 0, true, NULL);
    }
    if (strcmp(type, "ComboBox") == 0 && (a == WA_ACT_EXPAND || a == WA_ACT_COLLAPSE)) {
        *via = "message:CB_SHOWDROPDOWN";
        return send_msg(h, CB_SHOWDROPDOWN, a == WA_ACT_EXPAND, 0, true, NULL);
    }
    bool slider = false;
    if (a == WA_ACT_SET_VALUE && range_class(h, &slider))
        return range_set_value(h, slider, value, via);
    if (a == WA_ACT_SET_VALUE && strcmp(type, "Edit") == 0)
        return edit_set_value(h, value, via);
    if (a == WA_ACT_SET_VALUE && strcmp(type, "ComboBox") == 0)
        return combo_set_value(h, value, via);
    if (a == WA_ACT_FOCUS)
        return set_focus(h, via);
    return wa_fail(WA_E_UNSUPPORTED, "no pattern or message does that to a %s",
                   *type ? type : "window of this class");
}

/* ---- the worker ---- */

static wa_err action_run(void *arg, struct win_gate *gate)
{
    (void)gate; /* nothing to hand over: an abandoned action is just given up */
    struct action_job *j = arg;
    HWND h = j->hwnd;
    enum msaa_item_class items = MSAA_ITEMS_NONE;
    int item = 0;
    uint64_t item_id = 0;
    wa_err e;
    if (j->handle && j->uia) {
        e = win_uia_action(j->handle, j->a, j->value, &j->via);
        if (e != WA_E_UNSUPPORTED)
            return e;
        if (!h)
            h = win_uia_hwnd(j->handle);
    } else if (j->handle) {
        struct win_msaa_target t;
        win_msaa_describe(j->handle, &t);
        /* MSAA selection on a window only moves the focus: radios take BM_CLICK; and
         * Wine's put_accValue answers S_OK on a track bar and sets nothing. */
        bool slider;
        bool by_message =
            t.is_window &&
            (j->a == WA_ACT_SELECT || (j->a == WA_ACT_SET_VALUE && range_class(t.hwnd, &slider)));
        if (!by_message) {
            e = win_msaa_action(j->handle, j->a, j->value, &j->via);
            if (e != WA_E_UNSUPPORTED)
                return e;
        }
        if (t.is_window || t.items != MSAA_ITEMS_NONE)
            h = t.hwnd;
        items = t.items;
        item = t.item;
        item_id = t.item_id;
    }
    j->via = NULL;
    e = message_action(h, items, item, item_id, j->a, j->value, &j->via);
    if (!e && j->a == WA_ACT_SCROLL_INTO_VIEW && j->handle && !j->uia)
        j->have_info = win_msaa_element_info(j->handle, &j->info) == WA_E_OK;
    return e;
}

wa_err win_element_action(struct wa_tree *t, size_t index, enum wa_element_action a,
                          const char *value, const char **via)
{
    *via = NULL;
    if (index >= t->count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %zu in the tree", index + 1);
    const struct wa_node *n = &t->nodes[index];
    if (!n->handle && !n->hwnd)
        return wa_fail(WA_E_UNSUPPORTED, "element %zu has no handle to act on", index + 1);
    struct action_job *j = calloc(1, sizeof *j);
    if (!j)
        return wa_fail(WA_E_NOMEM, "out of memory");
    bool held = handle_take(t, n, &j->uia, &j->handle);
    j->hwnd = (HWND)(uintptr_t)n->hwnd;
    j->a = a;
    j->value = value ? str_dup(value) : NULL;
    if ((value && !j->value) || !held) {
        action_job_free(j);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    struct win_job *job = NULL;
    wa_err result;
    wa_err e = win_job_run(action_run, j, action_job_free, ACTION_MS, &result, &job);
    if (!job)
        return e;
    if (e == WA_E_OK) {
        e = result;
        *via = j->via;
        if (!e && j->have_info) { /* where it is now */
            struct wa_node *n = &t->nodes[index];
            n->bounds = j->info.bounds;
            n->states =
                (n->states & ~(unsigned)WA_ST_OFFSCREEN) | (j->info.states & WA_ST_OFFSCREEN);
        }
    } else {
        e = wa_fail(WA_E_TIMEOUT,
                    "the application did not answer within %d ms (the action "
                    "may still happen)",
                    ACTION_MS);
    }
    win_job_release(job);
    return e;
}

/* ---- states read back, and where an item's check box is ---- */

#define STATES_MS 2000 /* one read of an element's states, or one search for its box */

struct item_job {
    bool uia;
    void *handle;
    bool box;        /* find the check box's point (else read the states) */
    unsigned states; /* out */
    POINT at;        /* out: the box, screen pixels */
};

static void item_job_free(void *p)
{
    struct item_job *j = p;
    handle_drop(j->uia, j->handle);
    free(j);
}

static wa_err item_run(void *arg, struct win_gate *gate)
{
    (void)gate;
    struct item_job *j = arg;
    if (j->uia)
        return j->box ? wa_fail(WA_E_UNSUPPORTED, "UI Automation's Toggle turns it over")
                      : win_uia_states(j->handle, &j->states);
    if (!j->box) {
        struct tree_element_info info;
        wa_err e = win_msaa_element_info(j->handle, &info);
        j->states = info.states;
        tree_element_info_cleanup(&info);
        return e;
    }
    struct win_msaa_target t;
    win_msaa_describe(j->handle, &t);
    struct win_cc *cc = win_cc_new(NULL);
    if (!cc)
        return wa_fail(WA_E_NOMEM, "out of memory");
    wa_err e = win_cc_check_point(cc, t.hwnd, t.items, t.item_id, &j->at);
    win_cc_free(cc);
    return e;
}

/* Runs an item job on node index with its deadline. */
static wa_err item_wait(struct wa_tree *t, size_t index, bool box, struct item_job **out)
{
    *out = NULL;
    if (index >= t->count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %zu in the tree", index + 1);
    const struct wa_node *n = &t->nodes[index];
    struct item_job *j = calloc(1, sizeof *j);
    if (!j)
        return wa_fail(WA_E_NOMEM, "out of memory");
    j->box = box;
    if (!handle_take(t, n, &j->uia, &j->handle) || !j->handle) {
        bool none = !j->handle;
        item_job_free(j);
        return none ? wa_fail(WA_E_UNSUPPORTED, "the element has no handle to read")
                    : wa_fail(WA_E_NOMEM, "out of memory");
    }
    struct win_job *job = NULL;
    wa_err result;
    wa_err e = win_job_run(item_run, j, item_job_free, STATES_MS, &result, &job);
    if (!job)
        return e;
    if (e == WA_E_OK && !(e = result)) {
        struct item_job *copy = malloc(sizeof *copy);
        if (copy) {
            *copy = *j;
            copy->handle = NULL; /* the job's: dropped with it */
        }
        *out = copy;
        e = copy ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
    } else if (e != result) {
        e = wa_fail(WA_E_TIMEOUT, "the application did not answer within %d ms", STATES_MS);
    }
    win_job_release(job);
    return e;
}

wa_err win_element_states(struct wa_tree *t, size_t index, unsigned *states)
{
    struct item_job *j = NULL;
    *states = 0;
    wa_err e = item_wait(t, index, false, &j);
    if (!e)
        *states = j->states;
    free(j);
    return e;
}

wa_err win_check_box_point(struct wa_tree *t, size_t index, int *x, int *y)
{
    struct item_job *j = NULL;
    *x = *y = 0;
    if (index < t->count && !(t->nodes[index].states & WA_ST_CHECK_STATES))
        return wa_fail(WA_E_UNSUPPORTED, "the element draws no check box");
    wa_err e = item_wait(t, index, true, &j);
    if (!e) {
        *x = j->at.x;
        *y = j->at.y;
    }
    free(j);
    return e;
}

/* ---- reading values back ---- */

#define VALUE_MS      2000       /* the whole read */
#define VALUE_MAX_CHS (1u << 20) /* characters read by WM_GETTEXT */

/* Classes whose window text is the text a user typed into them. */
static bool text_holder(HWND h)
{
    wchar_t cls[64];
    int n = GetClassNameW(h, cls, 64);
    return n > 0 && (_wcsicmp(cls, L"Edit") == 0 || _wcsnicmp(cls, L"RichEdit", 8) == 0 ||
                     _wcsicmp(cls, L"ComboBox") == 0 || _wcsicmp(cls, L"Scintilla") == 0);
}

/* The window text of an edit-like control, or the position of a track bar or up-down
 * control, by message (with a timeout). */
static wa_err message_value(HWND h, char **out)
{
    bool slider = false;
    LRESULT pos = 0;
    if (h && IsWindow(h) && range_class(h, &slider)) {
        wa_err e = range_get(h, slider, &pos);
        char buf[24];
        snprintf(buf, sizeof buf, "%ld", (long)(int)pos);
        if (!e && !(*out = str_dup(buf)))
            e = wa_fail(WA_E_NOMEM, "out of memory");
        return e;
    }
    if (!h || !IsWindow(h) || !text_holder(h))
        return wa_fail(WA_E_UNSUPPORTED, "the control exposes no value to read back");
    if (GetWindowLongW(h, GWL_STYLE) & ES_PASSWORD)
        return wa_fail(WA_E_DENIED, "a password field is not read back");
    LRESULT len = 0;
    wa_err e = send_msg(h, WM_GETTEXTLENGTH, 0, 0, false, &len);
    if (e)
        return e;
    if (len < 0 || (size_t)len > VALUE_MAX_CHS)
        return wa_fail(WA_E_TOO_LARGE, "the control holds %ld characters", (long)len);
    wchar_t *w = calloc((size_t)len + 2, sizeof *w);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    LRESULT got = 0;
    e = send_msg(h, WM_GETTEXT, (WPARAM)len + 1, (LPARAM)w, false, &got);
    if (!e && !(*out = win_wide_to_utf8_n(w, (int)got)))
        e = wa_fail(WA_E_NOMEM, "out of memory");
    free(w);
    return e;
}

struct value_job {
    bool uia;
    void *handle;
    HWND hwnd;
    bool focused; /* read the control with the keyboard focus */
    char *value;
};

static void value_job_free(void *p)
{
    struct value_job *j = p;
    handle_drop(j->uia, j->handle);
    free(j->value);
    free(j);
}

static wa_err value_run(void *arg, struct win_gate *gate)
{
    (void)gate;
    struct value_job *j = arg;
    HWND h = j->hwnd;
    wa_err e;
    if (j->handle && j->uia) {
        if ((e = win_uia_value(j->handle, &j->value)) != WA_E_UNSUPPORTED)
            return e;
        if (!h)
            h = win_uia_hwnd(j->handle);
    } else if (j->handle) {
        struct win_msaa_target t;
        win_msaa_describe(j->handle, &t);
        bool slider;
        if (t.is_window && (text_holder(t.hwnd) || range_class(t.hwnd, &slider)))
            return message_value(t.hwnd, &j->value);
        if ((e = win_msaa_value(j->handle, &j->value)) != WA_E_UNSUPPORTED)
            return e;
        h = t.hwnd;
    }
    bool slider;
    if (h && !text_holder(h) && !range_class(h, &slider)) {
        /* a control's client object may still say what it holds */
        IAccessible *acc = NULL;
        if (SUCCEEDED(AccessibleObjectFromWindow(h, (DWORD)OBJID_CLIENT, &IID_IAccessible,
                                                 (void **)&acc)) &&
            acc) {
            VARIANT self = {.vt = VT_I4};
            self.lVal = CHILDID_SELF;
            BSTR b = NULL;
            HRESULT hr = IAccessible_get_accValue(acc, self, &b);
            IAccessible_Release(acc);
            if (SUCCEEDED(hr) && b) {
                j->value = win_wide_to_utf8(b);
                SysFreeString(b);
                return j->value ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
            }
            SysFreeString(b);
        }
    }
    return message_value(h, &j->value);
}

/* Runs a value job with its deadline; *value gets the text (heap). */
static wa_err value_wait(struct value_job *j, char **value)
{
    struct win_job *job = NULL;
    wa_err result;
    wa_err e = win_job_run(value_run, j, value_job_free, VALUE_MS, &result, &job);
    if (!job)
        return e;
    if (e == WA_E_OK && !(e = result)) {
        *value = j->value;
        j->value = NULL;
    } else if (e != result) {
        e = wa_fail(WA_E_TIMEOUT, "the application did not say its value within %d ms", VALUE_MS);
    }
    win_job_release(job);
    return e;
}

wa_err win_element_value(struct wa_tree *t, size_t index, char **value)
{
    *value = NULL;
    if (index >= t->count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %zu in the tree", index + 1);
    const struct wa_node *n = &t->nodes[index];
    struct value_job *j = calloc(1, sizeof *j);
    if (!j)
        return wa_fail(WA_E_NOMEM, "out of memory");
    bool held = handle_take(t, n, &j->uia, &j->handle);
    j->hwnd = (HWND)(uintptr_t)n->hwnd;
    if (!held) {
        value_job_free(j);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    return value_wait(j, value);
}

wa_err win_focused_value(uint64_t top, uint64_t *hwnd, char **value)
{
    *value = NULL;
    *hwnd = 0;
    HWND fg = top ? win_hwnd(top) : GetForegroundWindow();
    GUITHREADINFO gi = {.cbSize = sizeof gi};
    if (top && IsWindow(fg)) /* a window in the background: where its typing goes */
        gi.hwndFocus = win_typing_target(fg);
    else if (fg && !GetGUIThreadInfo(GetWindowThreadProcessId(fg, NULL), &gi))
        gi.hwndFocus = NULL;
    if (!gi.hwndFocus)
        return wa_fail(WA_E_UNSUPPORTED, "no control has the keyboard focus");
    *hwnd = win_handle(gi.hwndFocus);
    struct value_job *j = calloc(1, sizeof *j);
    if (!j)
        return wa_fail(WA_E_NOMEM, "out of memory");
    j->hwnd = gi.hwndFocus;
    j->focused = true;
    return value_wait(j, value);
}
