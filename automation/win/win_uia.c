/* The UI Automation tree source and UIA pattern actions. Wine 8 does not register
 * CUIAutomation (REGDB_E_CLASSNOTREG): the wine.uia_* tests run this code against a
 * scripted UI Automation client (tests/uia_fake). The mapping of the cached values
 * lives in automation/uia_types.c, where it is unit tested. */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
/* The UIA GUIDs are in no MinGW import library: define them here, in this one file
 * (after the system headers, so only the UIA header's GUIDs are defined). */
#include <initguid.h>
#include <uiautomationclient.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "automation/uia_types.h"
#include "automation/win/msaa/win_msaa.h"
#include "automation/win/win_uia.h"
#include "base/win/win_utf8.h"
#include "base/os.h"

_Static_assert(UIA_TYPE_ID_FIRST == UIA_ButtonControlTypeId, "UIA control type ids");
_Static_assert(UIA_TYPE_ID_LAST == UIA_AppBarControlTypeId, "UIA control type ids");

#define SCOPE_SUBTREE  (TreeScope_Element | TreeScope_Children | TreeScope_Descendants)
#define SCOPE_CHILDREN (TreeScope_Element | TreeScope_Children)
#define MIN_CALL_MS    100 /* a request with less time than this left is not started */
/* UI Automation's own limit on one pattern call: under the action's 5 s (win_actions.c),
 * so that a slow provider comes back as UIA_E_TIMEOUT rather than an abandoned job. */
#define ACTION_CALL_MS 4000

#ifndef UIA_E_TIMEOUT
#define UIA_E_TIMEOUT ((HRESULT)0x80131505)
#endif

/* Every property info() reads, cached in one request. */
static const PROPERTYID cached_props[] = {
    UIA_ControlTypePropertyId,
    UIA_NamePropertyId,
    UIA_AutomationIdPropertyId,
    UIA_ClassNamePropertyId,
    UIA_NativeWindowHandlePropertyId,
    UIA_BoundingRectanglePropertyId,
    UIA_IsEnabledPropertyId,
    UIA_HasKeyboardFocusPropertyId,
    UIA_IsKeyboardFocusablePropertyId,
    UIA_IsOffscreenPropertyId,
    UIA_IsPasswordPropertyId,
    UIA_RuntimeIdPropertyId,
    UIA_ValueValuePropertyId,
    UIA_ToggleToggleStatePropertyId,
    UIA_ExpandCollapseExpandCollapseStatePropertyId,
    UIA_SelectionItemIsSelectedPropertyId,
    UIA_LegacyIAccessibleDefaultActionPropertyId,
    UIA_AcceleratorKeyPropertyId,
    UIA_LabeledByPropertyId,
    UIA_IsInvokePatternAvailablePropertyId,
    UIA_IsTogglePatternAvailablePropertyId,
    UIA_IsExpandCollapsePatternAvailablePropertyId,
    UIA_IsSelectionItemPatternAvailablePropertyId,
    UIA_IsValuePatternAvailablePropertyId,
    UIA_IsScrollPatternAvailablePropertyId,
    UIA_IsRangeValuePatternAvailablePropertyId,
};

static const struct {
    PROPERTYID id;
    unsigned pattern;
} pattern_props[] = {
    {UIA_IsInvokePatternAvailablePropertyId, WA_PAT_INVOKE},
    {UIA_IsTogglePatternAvailablePropertyId, WA_PAT_TOGGLE},
    {UIA_IsExpandCollapsePatternAvailablePropertyId, WA_PAT_EXPAND},
    {UIA_IsSelectionItemPatternAvailablePropertyId, WA_PAT_SELECT},
    {UIA_IsValuePatternAvailablePropertyId, WA_PAT_VALUE},
    {UIA_IsScrollPatternAvailablePropertyId, WA_PAT_SCROLL},
    {UIA_IsRangeValuePatternAvailablePropertyId, WA_PAT_RANGE},
};

/* An element handle: the element and the cached child array it came from (for
 * next_sibling; NULL for the root). */
struct uia_el {
    volatile LONG refs;
    IUIAutomationElement *el;
    IUIAutomationElementArray *siblings;
    int index, count;
    bool kids_cached; /* el's children are in its cache (no request needed for them) */
};

struct win_uia_ctx {
    IUIAutomation *uia;
    IUIAutomationCacheRequest *subtree, *children;
    HWND root;
    struct win_gate *gate;
    int budget_ms;
    int64_t deadline; /* os_now_ms() when the budget is spent */
    bool per_level;   /* the subtree request was refused: one request per parent */
};

/* ---- the process's IUIAutomation ---- */

static IUIAutomation *g_uia;
static HRESULT g_uia_hr;

static BOOL CALLBACK create_uia(PINIT_ONCE once, void *param, void **ctx)
{
    (void)once;
    (void)param;
    (void)ctx;
    g_uia_hr = CoCreateInstance(&CLSID_CUIAutomation, NULL, CLSCTX_INPROC_SERVER,
                                &IID_IUIAutomation, (void **)&g_uia);
    if (FAILED(g_uia_hr))
        g_uia = NULL;
    return TRUE;
}

/* Created once, in the MTA, and kept: it is free-threaded. */
static IUIAutomation *uia_instance(HRESULT *hr)
{
    static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    InitOnceExecuteOnce(&once, create_uia, NULL, NULL);
    *hr = g_uia_hr;
    return g_uia;
}

/* UIA's own timeouts, so a hung provider fails the call instead of blocking it
 * (IUIAutomation2, Windows 8 and later). */
static void set_timeouts(IUIAutomation *uia, int ms)
{
    IUIAutomation2 *u2 = NULL;
    if (SUCCEEDED(IUIAutomation_QueryInterface(uia, &IID_IUIAutomation2, (void **)&u2)) && u2) {
        IUIAutomation2_put_ConnectionTimeout(u2, (DWORD)ms);
        IUIAutomation2_put_TransactionTimeout(u2, (DWORD)ms);
        WIN_RELEASE(u2);
    }
}

/* ---- handles ---- */

static struct uia_el *handle_new(IUIAutomationElement *el, IUIAutomationElementArray *sib,
                                 int index, int count)
{
    struct uia_el *h = calloc(1, sizeof *h);
    if (!h) {
        WIN_RELEASE(el);
        return NULL;
    }
    h->refs = 1;
    h->el = el; /* takes over the caller's reference */
    h->siblings = sib;
    if (sib)
        IUIAutomationElementArray_AddRef(sib);
    h->index = index;
    h->count = count;
    return h;
}

void win_uia_release_handle(void *handle)
{
    struct uia_el *h = handle;
    if (!h || InterlockedDecrement(&h->refs) != 0)
        return;
    WIN_RELEASE(h->el);
    WIN_RELEASE(h->siblings);
    free(h);
}

void *win_uia_ref_handle(void *handle)
{
    struct uia_el *h = handle;
    if (h)
        InterlockedIncrement(&h->refs);
    return h;
}

/* ---- cached property values ---- */

static bool cached(IUIAutomationElement *el, PROPERTYID id, VARIANT *v)
{
    VariantInit(v);
    return SUCCEEDED(IUIAutomationElement_GetCachedPropertyValue(el, id, v));
}

static bool cached_bool(IUIAutomationElement *el, PROPERTYID id)
{
    VARIANT v;
    bool b = cached(el, id, &v) && V_VT(&v) == VT_BOOL && V_BOOL(&v) == VARIANT_TRUE;
    VariantClear(&v);
    return b;
}

static int cached_int(IUIAutomationElement *el, PROPERTYID id, int def)
{
    VARIANT v;
    int i = cached(el, id, &v) && V_VT(&v) == VT_I4 ? (int)V_I4(&v) : def;
    VariantClear(&v);
    return i;
}

static char *cached_string(IUIAutomationElement *el, PROPERTYID id)
{
    VARIANT v;
    char *s = NULL;
    if (cached(el, id, &v) && V_VT(&v) == VT_BSTR && V_BSTR(&v))
        s = win_wide_to_utf8_n(V_BSTR(&v), (int)SysStringLen(V_BSTR(&v)));
    VariantClear(&v);
    return s;
}

/* A cached SAFEARRAY of VT_I4 or VT_R8: copies up to max elements into out. */
static size_t cached_array(IUIAutomationElement *el, PROPERTYID id, VARTYPE vt, void *out,
                           size_t size, size_t max)
{
    VARIANT v;
    size_t n = 0;
    if (cached(el, id, &v) && V_VT(&v) == (VT_ARRAY | vt) && V_ARRAY(&v) &&
        SafeArrayGetDim(V_ARRAY(&v)) == 1) {
        LONG lo = 0, hi = -1;
        void *data = NULL;
        SafeArrayGetLBound(V_ARRAY(&v), 1, &lo);
        SafeArrayGetUBound(V_ARRAY(&v), 1, &hi);
        if (hi >= lo && SUCCEEDED(SafeArrayAccessData(V_ARRAY(&v), &data))) {
            n = (size_t)(hi - lo + 1);
            if (n > max)
                n = max;
            memcpy(out, data, n * size);
            SafeArrayUnaccessData(V_ARRAY(&v));
        }
    }
    VariantClear(&v);
    return n;
}

/* The name of the element that labels el (LabeledBy: an edit's static text), asked of
 * it now: UI Automation gives the label without a cache. NULL when there is none. */
static char *label_name(IUIAutomationElement *el)
{
    VARIANT v;
    char *name = NULL;
    if (cached(el, UIA_LabeledByPropertyId, &v) && V_VT(&v) == VT_UNKNOWN && V_UNKNOWN(&v)) {
        IUIAutomationElement *label = NULL;
        if (SUCCEEDED(IUnknown_QueryInterface(V_UNKNOWN(&v), &IID_IUIAutomationElement,
                                              (void **)&label)) &&
            label) {
            VARIANT n;
            VariantInit(&n);
            if (SUCCEEDED(
                    IUIAutomationElement_GetCurrentPropertyValue(label, UIA_NamePropertyId, &n)) &&
                V_VT(&n) == VT_BSTR && V_BSTR(&n))
                name = win_wide_to_utf8_n(V_BSTR(&n), (int)SysStringLen(V_BSTR(&n)));
            VariantClear(&n);
        }
        WIN_RELEASE(label);
    }
    VariantClear(&v);
    return name;
}

/* ---- source ops ---- */

static wa_err u_info(void *ctx, void *handle, struct tree_element_info *out)
{
    (void)ctx;
    IUIAutomationElement *el = ((struct uia_el *)handle)->el;
    struct uia_raw_element r = {0};
    char *name = cached_string(el, UIA_NamePropertyId);
    if (!name || !*name) { /* an unnamed control takes the name of its label */
        char *label = label_name(el);
        if (label && *label) {
            free(name);
            name = label;
        } else {
            free(label);
        }
    }
    char *aid = cached_string(el, UIA_AutomationIdPropertyId);
    char *cls = cached_string(el, UIA_ClassNamePropertyId);
    char *value = cached_string(el, UIA_ValueValuePropertyId);
    char *action = cached_string(el, UIA_LegacyIAccessibleDefaultActionPropertyId);
    char *accel = cached_string(el, UIA_AcceleratorKeyPropertyId);
    int rid[32];
    double rect[4];
    r.control_type = cached_int(el, UIA_ControlTypePropertyId, 0);
    r.name = name;
    r.automation_id = aid;
    r.class_name = cls;
    r.value = value;
    r.default_action = action;
    r.accelerator = accel;
    /* Window handles have 32 significant bits, sign-extended on 64-bit Windows. */
    r.hwnd = (uint64_t)(intptr_t)cached_int(el, UIA_NativeWindowHandlePropertyId, 0);
    if (cached_array(el, UIA_BoundingRectanglePropertyId, VT_R8, rect, sizeof rect[0], 4) == 4) {
        r.has_rect = true;
        r.left = rect[0];
        r.top = rect[1];
        r.width = rect[2];
        r.height = rect[3];
    }
    r.is_enabled = cached_bool(el, UIA_IsEnabledPropertyId);
    r.has_keyboard_focus = cached_bool(el, UIA_HasKeyboardFocusPropertyId);
    r.is_keyboard_focusable = cached_bool(el, UIA_IsKeyboardFocusablePropertyId);
    r.is_offscreen = cached_bool(el, UIA_IsOffscreenPropertyId);
    r.is_password = cached_bool(el, UIA_IsPasswordPropertyId);
    r.runtime_id_len = cached_array(el, UIA_RuntimeIdPropertyId, VT_I4, rid, sizeof rid[0], 32);
    r.runtime_id = r.runtime_id_len ? rid : NULL;
    for (size_t i = 0; i < sizeof pattern_props / sizeof pattern_props[0]; i++)
        if (cached_bool(el, pattern_props[i].id))
            r.patterns |= pattern_props[i].pattern;
    r.toggle_state = cached_int(el, UIA_ToggleToggleStatePropertyId, UIA_TOGGLE_OFF);
    r.expand_state =
        cached_int(el, UIA_ExpandCollapseExpandCollapseStatePropertyId, UIA_EXPAND_LEAF);
    r.is_selected = cached_bool(el, UIA_SelectionItemIsSelectedPropertyId);
    wa_err e = uia_element_to_info(&r, out);
    free(name);
    free(aid);
    free(cls);
    free(value);
    free(action);
    free(accel);
    return e;
}

static wa_err u_root(void *ctx, void **out)
{
    struct win_uia_ctx *c = ctx;
    IUIAutomationElement *el = NULL;
    *out = NULL;
    /* The whole subtree in one request, given half the budget; then per level, with
     * what is left of it (the caller's fallback after a failed walk needs time too). */
    set_timeouts(c->uia, c->budget_ms / 2 > 500 ? c->budget_ms / 2 : 500);
    win_gate_leave(c->gate);
    HRESULT hr = IUIAutomation_ElementFromHandleBuildCache(c->uia, c->root, c->subtree, &el);
    win_gate_enter(c->gate);
    if (FAILED(hr) || !el) {
        WIN_RELEASE(el);
        int left = (int)(c->deadline - os_now_ms());
        if (left < MIN_CALL_MS)
            return win_hr_fail(WA_E_TIMEOUT, hr,
                               "UI Automation ElementFromHandleBuildCache "
                               "(no time left for one request per level)");
        c->per_level = true;
        set_timeouts(c->uia, left);
        win_gate_leave(c->gate);
        hr = IUIAutomation_ElementFromHandleBuildCache(c->uia, c->root, c->children, &el);
        win_gate_enter(c->gate);
    }
    if (FAILED(hr) || !el) {
        WIN_RELEASE(el);
        return win_hr_fail(WA_E_ACTION_FAILED, hr, "UI Automation ElementFromHandleBuildCache");
    }
    struct uia_el *h = handle_new(el, NULL, 0, 1);
    if (!h)
        return wa_fail(WA_E_NOMEM, "out of memory");
    h->kids_cached = true; /* by either request */
    *out = h;
    return WA_E_OK;
}

/* A handle for the first element of kids from index `from` on that can be had: one
 * that fails is skipped, as the walk skips what it cannot read. *out NULL when none. */
static wa_err handle_from(IUIAutomationElementArray *kids, int from, int count, void **out)
{
    *out = NULL;
    for (int i = from; kids && i < count; i++) {
        IUIAutomationElement *el = NULL;
        if (SUCCEEDED(IUIAutomationElementArray_GetElement(kids, i, &el)) && el) {
            *out = handle_new(el, kids, i, count);
            return *out ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
        }
        WIN_RELEASE(el);
    }
    return WA_E_OK;
}

static wa_err u_first_child(void *ctx, void *handle, void **out)
{
    struct win_uia_ctx *c = ctx;
    struct uia_el *h = handle;
    IUIAutomationElement *updated = NULL, *from = h->el;
    IUIAutomationElementArray *kids = NULL;
    *out = NULL;
    if (c->per_level && !h->kids_cached) {
        win_gate_leave(c->gate);
        HRESULT hr = IUIAutomationElement_BuildUpdatedCache(h->el, c->children, &updated);
        win_gate_enter(c->gate);
        if (FAILED(hr) || !updated) {
            WIN_RELEASE(updated);
            return win_hr_fail(WA_E_ACTION_FAILED, hr, "UI Automation BuildUpdatedCache");
        }
        from = updated;
    }
    int count = 0;
    if (SUCCEEDED(IUIAutomationElement_GetCachedChildren(from, &kids)) && kids)
        IUIAutomationElementArray_get_Length(kids, &count);
    wa_err e = handle_from(kids, 0, count, out);
    WIN_RELEASE(kids);
    WIN_RELEASE(updated);
    return e;
}

static wa_err u_next_sibling(void *ctx, void *handle, void **out)
{
    (void)ctx;
    struct uia_el *h = handle;
    return handle_from(h->siblings, h->index + 1, h->count, out);
}

static wa_err u_window_text(void *ctx, uint64_t hwnd, char **out)
{
    struct win_uia_ctx *c = ctx;
    *out = win_msaa_text_name((HWND)(uintptr_t)hwnd, c->gate);
    return WA_E_OK;
}

static wa_err u_msaa_name(void *ctx, uint64_t hwnd, char **out)
{
    struct win_uia_ctx *c = ctx;
    *out = win_msaa_window_name((HWND)(uintptr_t)hwnd, c->gate);
    return WA_E_OK;
}

static void u_release(void *ctx, void *handle)
{
    (void)ctx;
    win_uia_release_handle(handle);
}

const struct tree_source_ops win_uia_source = {
    .name = "uia",
    .root = u_root,
    .first_child = u_first_child,
    .next_sibling = u_next_sibling,
    .info = u_info,
    .window_text = u_window_text,
    .msaa_name = u_msaa_name,
    .release = u_release,
};

static HRESULT new_request(IUIAutomation *uia, int scope, IUIAutomationCacheRequest **out)
{
    HRESULT hr = IUIAutomation_CreateCacheRequest(uia, out);
    for (size_t i = 0; SUCCEEDED(hr) && i < sizeof cached_props / sizeof cached_props[0]; i++)
        hr = IUIAutomationCacheRequest_AddProperty(*out, cached_props[i]);
    if (SUCCEEDED(hr))
        hr = IUIAutomationCacheRequest_put_TreeScope(*out, (enum TreeScope)scope);
    if (FAILED(hr))
        WIN_RELEASE(*out);
    return hr;
}

wa_err win_uia_open(HWND root, struct win_gate *gate, int budget_ms, struct win_uia_ctx **out)
{
    *out = NULL;
    HRESULT hr;
    IUIAutomation *uia = uia_instance(&hr);
    if (!uia)
        return win_hr_fail(WA_E_UNSUPPORTED, hr,
                           "UI Automation is not available: "
                           "CoCreateInstance(CUIAutomation)");
    struct win_uia_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return wa_fail(WA_E_NOMEM, "out of memory");
    c->uia = uia;
    c->root = root;
    c->gate = gate;
    c->budget_ms = budget_ms > 0 ? budget_ms : 3000;
    c->deadline = os_now_ms() + c->budget_ms;
    hr = new_request(uia, SCOPE_SUBTREE, &c->subtree);
    if (SUCCEEDED(hr))
        hr = new_request(uia, SCOPE_CHILDREN, &c->children);
    if (FAILED(hr)) {
        win_uia_close(c);
        return win_hr_fail(WA_E_UNSUPPORTED, hr, "UI Automation CreateCacheRequest");
    }
    *out = c;
    return WA_E_OK;
}

void win_uia_close(struct win_uia_ctx *c)
{
    if (!c)
        return;
    WIN_RELEASE(c->subtree);
    WIN_RELEASE(c->children);
    free(c); /* c->uia is the process's */
}

HWND win_uia_hwnd(void *handle)
{
    struct uia_el *h = handle;
    return h ? (HWND)(intptr_t)cached_int(h->el, UIA_NativeWindowHandlePropertyId, 0) : NULL;
}

/* ---- actions ---- */

static wa_err pattern_result(HRESULT hr, const char *what)
{
    if (SUCCEEDED(hr))
        return WA_E_OK;
    /* A call UI Automation stopped waiting for may still take effect in the provider:
     * a timeout, not a failure, so that nobody clicks the element on top of it. */
    if (hr == UIA_E_TIMEOUT)
        return wa_fail(WA_E_TIMEOUT,
                       "%s: the application did not answer within %d ms (the "
                       "action may still happen)",
                       what, ACTION_CALL_MS);
    return win_hr_fail(WA_E_ACTION_FAILED, hr, what);
}

static void *pattern(IUIAutomationElement *el, PATTERNID id, REFIID iid)
{
    void *p = NULL;
    if (FAILED(IUIAutomationElement_GetCurrentPatternAs(el, id, iid, &p)))
        p = NULL;
    return p;
}

static BSTR bstr_from_utf8(const char *s)
{
    wchar_t *w = win_utf8_to_wide(s ? s : "");
    BSTR b = w ? SysAllocString(w) : NULL;
    free(w);
    return b;
}

/* The LegacyIAccessible fallback: the element's MSAA side, through UIA. */
static wa_err legacy_action(IUIAutomationElement *el, enum wa_element_action a, const char *value,
                            const char **via)
{
    IUIAutomationLegacyIAccessiblePattern *p =
        pattern(el, UIA_LegacyIAccessiblePatternId, &IID_IUIAutomationLegacyIAccessiblePattern);
    if (!p)
        return wa_fail(WA_E_UNSUPPORTED, "the element has no pattern for this action");
    wa_err e = WA_E_OK;
    HRESULT hr;
    switch (a) {
    case WA_ACT_INVOKE:
    case WA_ACT_TOGGLE:
        *via = "uia:LegacyIAccessible.DoDefaultAction";
        e = pattern_result(IUIAutomationLegacyIAccessiblePattern_DoDefaultAction(p),
                           "LegacyIAccessible.DoDefaultAction");
        break;
    case WA_ACT_SELECT:
        *via = "uia:LegacyIAccessible.Select";
        hr = IUIAutomationLegacyIAccessiblePattern_Select(p, SELFLAG_TAKEFOCUS |
                                                                 SELFLAG_TAKESELECTION);
        e = pattern_result(hr, "LegacyIAccessible.Select");
        break;
    case WA_ACT_SET_VALUE: {
        BSTR b = bstr_from_utf8(value);
        if (!b) {
            e = wa_fail(WA_E_NOMEM, "out of memory");
            break;
        }
        *via = "uia:LegacyIAccessible.SetValue";
        hr = IUIAutomationLegacyIAccessiblePattern_SetValue(p, b);
        SysFreeString(b);
        e = pattern_result(hr, "LegacyIAccessible.SetValue");
        break;
    }
    default:
        e = wa_fail(WA_E_UNSUPPORTED, "the element has no pattern for this action");
    }
    WIN_RELEASE(p);
    return e;
}

/* The action patterns (Invoke, Toggle, ExpandCollapse, SelectionItem). Wine 8's
 * uiautomationclient.idl names these interfaces without defining them, so they are
 * reached through their common shape: IUnknown, then the action methods (one, or
 * Expand and Collapse). The IIDs are the Windows SDK's. */
struct action_pattern;
struct action_pattern_vtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(struct action_pattern *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(struct action_pattern *);
    ULONG(STDMETHODCALLTYPE *Release)(struct action_pattern *);
    HRESULT(STDMETHODCALLTYPE *action[2])(struct action_pattern *);
};
struct action_pattern {
    const struct action_pattern_vtbl *lpVtbl;
};

static const IID iid_invoke_pattern = {
    0xfb377fbe, 0x8ea6, 0x46d5, {0x9c, 0x73, 0x64, 0x99, 0x64, 0x2d, 0x30, 0x59}};
static const IID iid_toggle_pattern = {
    0x94cf8058, 0x9b8d, 0x4ab9, {0x8b, 0xfd, 0x4c, 0xd0, 0xa3, 0x3c, 0x8c, 0x70}};
static const IID iid_expand_collapse_pattern = {
    0x619be086, 0x1f4e, 0x4ee4, {0xba, 0xfa, 0x21, 0x01, 0x28, 0x73, 0x87, 0x30}};
static const IID iid_selection_item_pattern = {
    0xa8efa66a, 0x0fda, 0x421a, {0x91, 0x94, 0x38, 0x02, 0x1f, 0x35, 0x78, 0xea}};

static const struct {
    enum wa_element_action a;
    PATTERNID id;
    const IID *iid;
    int method; /* index among the action methods */
    const char *via, *what;
} action_patterns[] = {
    {WA_ACT_INVOKE, UIA_InvokePatternId, &iid_invoke_pattern, 0, "uia:Invoke", "Invoke"},
    {WA_ACT_TOGGLE, UIA_TogglePatternId, &iid_toggle_pattern, 0, "uia:Toggle", "Toggle"},
    {WA_ACT_EXPAND, UIA_ExpandCollapsePatternId, &iid_expand_collapse_pattern, 0,
     "uia:ExpandCollapse.Expand", "ExpandCollapse.Expand"},
    {WA_ACT_COLLAPSE, UIA_ExpandCollapsePatternId, &iid_expand_collapse_pattern, 1,
     "uia:ExpandCollapse.Collapse", "ExpandCollapse.Collapse"},
    {WA_ACT_SELECT, UIA_SelectionItemPatternId, &iid_selection_item_pattern, 0,
     "uia:SelectionItem.Select", "SelectionItem.Select"},
};

wa_err win_uia_value(void *handle, char **out)
{
    *out = NULL;
    struct uia_el *h = handle;
    IUIAutomationElement *el = h ? h->el : NULL;
    if (!el)
        return wa_fail(WA_E_UNSUPPORTED, "no UI Automation element");
    VARIANT v;
    VariantInit(&v);
    if (SUCCEEDED(IUIAutomationElement_GetCachedPropertyValue(el, UIA_IsPasswordPropertyId, &v)) &&
        v.vt == VT_BOOL && v.boolVal) {
        VariantClear(&v);
        return wa_fail(WA_E_DENIED, "a password field is not read back");
    }
    VariantClear(&v);
    HRESULT hr;
    IUIAutomation *uia = uia_instance(&hr);
    if (uia)
        set_timeouts(uia, ACTION_CALL_MS);
    IUIAutomationValuePattern *p = pattern(el, UIA_ValuePatternId, &IID_IUIAutomationValuePattern);
    if (!p)
        return wa_fail(WA_E_UNSUPPORTED, "the element has no Value pattern");
    BSTR b = NULL;
    hr = IUIAutomationValuePattern_get_CurrentValue(p, &b);
    WIN_RELEASE(p);
    if (FAILED(hr))
        return pattern_result(hr, "Value.CurrentValue");
    *out = win_wide_to_utf8(b ? b : L"");
    SysFreeString(b);
    return *out ? WA_E_OK : wa_fail(WA_E_NOMEM, "out of memory");
}

wa_err win_uia_states(void *handle, unsigned *states)
{
    *states = 0;
    struct uia_el *h = handle;
    HRESULT hr;
    IUIAutomation *uia = uia_instance(&hr);
    if (!h || !h->el || !uia)
        return wa_fail(WA_E_UNSUPPORTED, "no UI Automation element");
    set_timeouts(uia, ACTION_CALL_MS);
    IUIAutomationCacheRequest *req = NULL;
    IUIAutomationElement *now = NULL;
    hr = new_request(uia, TreeScope_Element, &req);
    if (SUCCEEDED(hr))
        hr = IUIAutomationElement_BuildUpdatedCache(h->el, req, &now);
    WIN_RELEASE(req);
    if (FAILED(hr) || !now) {
        WIN_RELEASE(now);
        if (hr == UIA_E_TIMEOUT)
            return pattern_result(hr, "BuildUpdatedCache");
        return wa_fail(WA_E_UNSUPPORTED, "its states cannot be asked again (0x%08lx)",
                       (unsigned long)hr);
    }
    struct uia_el fresh = {.refs = 1, .el = now};
    struct tree_element_info info;
    wa_err e = u_info(NULL, &fresh, &info);
    WIN_RELEASE(now);
    if (!e)
        *states = info.states;
    tree_element_info_cleanup(&info);
    return e;
}

wa_err win_uia_action(void *handle, enum wa_element_action a, const char *value, const char **via)
{
    struct uia_el *h = handle;
    IUIAutomationElement *el = h ? h->el : NULL;
    if (!el)
        return wa_fail(WA_E_UNSUPPORTED, "no UI Automation element");
    HRESULT hr;
    IUIAutomation *uia = uia_instance(&hr); /* there: it made the element */
    if (uia)
        set_timeouts(uia, ACTION_CALL_MS); /* a walk left its own */
    for (size_t i = 0; i < sizeof action_patterns / sizeof action_patterns[0]; i++) {
        if (action_patterns[i].a != a)
            continue;
        struct action_pattern *p = pattern(el, action_patterns[i].id, action_patterns[i].iid);
        if (!p)
            break;
        *via = action_patterns[i].via;
        hr = p->lpVtbl->action[action_patterns[i].method](p);
        WIN_RELEASE(p);
        return pattern_result(hr, action_patterns[i].what);
    }
    if (a == WA_ACT_SET_VALUE) {
        IUIAutomationValuePattern *p =
            pattern(el, UIA_ValuePatternId, &IID_IUIAutomationValuePattern);
        if (p) {
            BSTR b = bstr_from_utf8(value);
            if (!b) {
                WIN_RELEASE(p);
                return wa_fail(WA_E_NOMEM, "out of memory");
            }
            *via = "uia:Value.SetValue";
            hr = IUIAutomationValuePattern_SetValue(p, b);
            SysFreeString(b);
            WIN_RELEASE(p);
            return pattern_result(hr, "Value.SetValue");
        }
    }
    if (a == WA_ACT_FOCUS) {
        *via = "uia:SetFocus";
        return pattern_result(IUIAutomationElement_SetFocus(el), "SetFocus");
    }
    return legacy_action(el, a, value, via);
}
