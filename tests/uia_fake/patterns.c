/* uia_fake's control patterns: each call logged, its effect on the element kept. */
#include "uia_fake.h"

#include <stdlib.h>
#include <string.h>

/* Wine's uiautomationclient.idl names these four interfaces without defining them:
 * their layouts and IIDs are the Windows SDK's, written out apart from win_uia.c's on
 * purpose (a wrong IID there must fail here, not agree). */
static const IID iid_invoke = {
    0xfb377fbe, 0x8ea6, 0x46d5, {0x9c, 0x73, 0x64, 0x99, 0x64, 0x2d, 0x30, 0x59}};
static const IID iid_toggle = {
    0x94cf8058, 0x9b8d, 0x4ab9, {0x8b, 0xfd, 0x4c, 0xd0, 0xa3, 0x3c, 0x8c, 0x70}};
static const IID iid_expand_collapse = {
    0x619be086, 0x1f4e, 0x4ee4, {0xba, 0xfa, 0x21, 0x01, 0x28, 0x73, 0x87, 0x30}};
static const IID iid_selection_item = {
    0xa8efa66a, 0x0fda, 0x421a, {0x91, 0x94, 0x38, 0x02, 0x1f, 0x35, 0x78, 0xea}};

struct fake_pat;
typedef HRESULT(STDMETHODCALLTYPE *pat_method)(struct fake_pat *self);
typedef HRESULT(STDMETHODCALLTYPE *pat_get_int)(struct fake_pat *self, int *out);
typedef HRESULT(STDMETHODCALLTYPE *pat_get_any)(struct fake_pat *self, void *out);

struct pat_unknown {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(struct fake_pat *self, REFIID riid, void **out);
    ULONG(STDMETHODCALLTYPE *AddRef)(struct fake_pat *self);
    ULONG(STDMETHODCALLTYPE *Release)(struct fake_pat *self);
};

static struct {
    struct pat_unknown u;
    pat_method Invoke;
} invoke_vtbl;

static struct {
    struct pat_unknown u;
    pat_method Toggle;
    pat_get_int get_CurrentToggleState, get_CachedToggleState;
} toggle_vtbl;

static struct {
    struct pat_unknown u;
    pat_method Expand, Collapse;
    pat_get_int get_CurrentExpandCollapseState, get_CachedExpandCollapseState;
} expand_vtbl;

static struct {
    struct pat_unknown u;
    pat_method Select, AddToSelection, RemoveFromSelection;
    pat_get_int get_CurrentIsSelected;
    pat_get_any get_CurrentSelectionContainer;
    pat_get_int get_CachedIsSelected;
    pat_get_any get_CachedSelectionContainer;
} selection_vtbl;

static IUIAutomationValuePatternVtbl value_vtbl;
static IUIAutomationLegacyIAccessiblePatternVtbl legacy_vtbl;

struct fake_pat {
    const void *vtbl;
    volatile LONG refs;
    struct fake_node *node;
    const IID *iid;
};

static const struct {
    PATTERNID id;
    unsigned bit;
    const IID *iid;
    const void *vtbl;
} patterns[] = {
    {UIA_InvokePatternId, FP_INVOKE, &iid_invoke, &invoke_vtbl},
    {UIA_TogglePatternId, FP_TOGGLE, &iid_toggle, &toggle_vtbl},
    {UIA_ExpandCollapsePatternId, FP_EXPAND_COLLAPSE, &iid_expand_collapse, &expand_vtbl},
    {UIA_SelectionItemPatternId, FP_SELECTION_ITEM, &iid_selection_item, &selection_vtbl},
    {UIA_ValuePatternId, FP_VALUE, &IID_IUIAutomationValuePattern, &value_vtbl},
    {UIA_LegacyIAccessiblePatternId, FP_LEGACY, &IID_IUIAutomationLegacyIAccessiblePattern,
     &legacy_vtbl},
};

static struct fake_pat *pat_of(void *self)
{
    return self;
}

static HRESULT STDMETHODCALLTYPE pat_query_interface(struct fake_pat *self, REFIID riid, void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, self->iid))
        return E_NOINTERFACE;
    *out = self;
    InterlockedIncrement(&self->refs);
    return S_OK;
}

static ULONG STDMETHODCALLTYPE pat_add_ref(struct fake_pat *self)
{
    return (ULONG)InterlockedIncrement(&self->refs);
}

static ULONG STDMETHODCALLTYPE pat_release(struct fake_pat *self)
{
    LONG refs = InterlockedDecrement(&self->refs);
    if (refs == 0)
        free(self);
    return (ULONG)refs;
}

HRESULT fake_pattern_get(struct fake_node *n, PATTERNID id, REFIID riid, void **out)
{
    *out = NULL;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        if (patterns[i].id != id)
            continue;
        if (!IsEqualIID(riid, patterns[i].iid))
            return E_NOINTERFACE;
        if (!(n->patterns & patterns[i].bit))
            return S_OK;
        struct fake_pat *p = calloc(1, sizeof *p);
        if (!p)
            return E_OUTOFMEMORY;
        p->vtbl = patterns[i].vtbl;
        p->refs = 1;
        p->node = n;
        p->iid = patterns[i].iid;
        *out = p;
        return S_OK;
    }
    return S_OK; /* a pattern the fake does not script: not supported */
}

/* The common start of every action: the scripted fault, then "disabled". */
static HRESULT action_start(struct fake_node *n, const char *call)
{
    HRESULT hr = fake_fault_check(n, call, 0);
    if (FAILED(hr))
        return hr;
    return n->enabled ? S_OK : UIA_E_ELEMENTNOTENABLED;
}

/* Logs {"call", "element", key: value} with the action's outcome. */
static void log_action(const char *call, struct fake_node *n, HRESULT hr, const char *key,
                       cJSON *value)
{
    cJSON *o = fake_log_call(call, n);
    if (key)
        cJSON_AddItemToObject(o, key, value);
    if (FAILED(hr))
        cJSON_AddNumberToObject(o, "hr", (double)(ULONG)hr);
    fake_log(o);
}

/* ---- Invoke, Toggle, ExpandCollapse, SelectionItem ---- */

static HRESULT STDMETHODCALLTYPE invoke(struct fake_pat *self)
{
    HRESULT hr = action_start(self->node, "Invoke");
    log_action("Invoke", self->node, hr, NULL, NULL);
    return hr;
}

static HRESULT STDMETHODCALLTYPE toggle(struct fake_pat *self)
{
    struct fake_node *n = self->node;
    HRESULT hr = action_start(n, "Toggle");
    fake_lock();
    if (SUCCEEDED(hr))
        n->toggle_state = n->toggle_state == 0 ? 1 : 0;
    int state = n->toggle_state;
    fake_unlock();
    log_action("Toggle", n, hr, "toggle_state", cJSON_CreateNumber(state));
    return hr;
}

static HRESULT STDMETHODCALLTYPE get_toggle_state(struct fake_pat *self, int *out)
{
    *out = self->node->toggle_state;
    return S_OK;
}

static HRESULT expand_to(struct fake_pat *self, const char *call, int state)
{
    struct fake_node *n = self->node;
    HRESULT hr = action_start(n, call);
    fake_lock();
    if (SUCCEEDED(hr))
        n->expand_state = state;
    state = n->expand_state;
    fake_unlock();
    log_action(call, n, hr, "expand_state", cJSON_CreateNumber(state));
    return hr;
}

static HRESULT STDMETHODCALLTYPE expand(struct fake_pat *self)
{
    return expand_to(self, "Expand", 1);
}

static HRESULT STDMETHODCALLTYPE collapse(struct fake_pat *self)
{
    return expand_to(self, "Collapse", 0);
}

static HRESULT STDMETHODCALLTYPE get_expand_state(struct fake_pat *self, int *out)
{
    *out = self->node->expand_state;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE select_item(struct fake_pat *self)
{
    struct fake_node *n = self->node;
    HRESULT hr = action_start(n, "Select");
    fake_lock();
    for (size_t i = 0; SUCCEEDED(hr) && n->parent && i < n->parent->n_kids; i++)
        n->parent->kids[i]->selected = false;
    if (SUCCEEDED(hr))
        n->selected = true;
    fake_unlock();
    log_action("Select", n, hr, NULL, NULL);
    return hr;
}

static HRESULT STDMETHODCALLTYPE get_is_selected(struct fake_pat *self, int *out)
{
    *out = self->node->selected;
    return S_OK;
}

/* ---- Value and LegacyIAccessible (the header's interfaces) ---- */

#define UNKNOWN_METHODS(prefix, type)                                                              \
    static HRESULT STDMETHODCALLTYPE prefix##_query_interface(type *self, REFIID riid, void **out) \
    {                                                                                              \
        return pat_query_interface(pat_of(self), riid, out);                                       \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_add_ref(type *self)                                    \
    {                                                                                              \
        return pat_add_ref(pat_of(self));                                                          \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_release(type *self)                                    \
    {                                                                                              \
        return pat_release(pat_of(self));                                                          \
    }
UNKNOWN_METHODS(value, IUIAutomationValuePattern)
UNKNOWN_METHODS(legacy, IUIAutomationLegacyIAccessiblePattern)

static HRESULT set_value(struct fake_node *n, const char *call, const wchar_t *value)
{
    HRESULT hr = action_start(n, call);
    wchar_t *copy = value ? _wcsdup(value) : NULL;
    if (SUCCEEDED(hr) && !copy)
        hr = E_INVALIDARG;
    char *text = value ? fake_utf8(value, -1) : NULL;
    fake_lock();
    if (SUCCEEDED(hr)) {
        free(n->value);
        n->value = copy;
        copy = NULL;
    }
    fake_unlock();
    free(copy);
    log_action(call, n, hr, "value", text ? cJSON_CreateString(text) : cJSON_CreateNull());
    free(text);
    return hr;
}

static HRESULT STDMETHODCALLTYPE value_set_value(IUIAutomationValuePattern *self, BSTR value)
{
    return set_value(pat_of(self)->node, "SetValue", value);
}

static HRESULT STDMETHODCALLTYPE value_get_value(IUIAutomationValuePattern *self, BSTR *out)
{
    struct fake_node *n = pat_of(self)->node;
    fake_lock();
    *out = SysAllocString(n->value ? n->value : L"");
    fake_unlock();
    return *out ? S_OK : E_OUTOFMEMORY;
}

static HRESULT STDMETHODCALLTYPE
legacy_do_default_action(IUIAutomationLegacyIAccessiblePattern *self)
{
    struct fake_node *n = pat_of(self)->node;
    HRESULT hr = action_start(n, "DoDefaultAction");
    log_action("DoDefaultAction", n, hr, NULL, NULL);
    return hr;
}

static HRESULT STDMETHODCALLTYPE legacy_select(IUIAutomationLegacyIAccessiblePattern *self,
                                               LONG flags)
{
    struct fake_node *n = pat_of(self)->node;
    HRESULT hr = action_start(n, "LegacySelect");
    log_action("LegacySelect", n, hr, "flags", cJSON_CreateNumber(flags));
    return hr;
}

static HRESULT STDMETHODCALLTYPE legacy_set_value(IUIAutomationLegacyIAccessiblePattern *self,
                                                  LPCWSTR value)
{
    return set_value(pat_of(self)->node, "LegacySetValue", value);
}

static void unknown_init(struct pat_unknown *u)
{
    u->QueryInterface = pat_query_interface;
    u->AddRef = pat_add_ref;
    u->Release = pat_release;
}

void fake_patterns_init(void)
{
    fake_vtbl_init(&invoke_vtbl, sizeof invoke_vtbl, "IUIAutomationInvokePattern");
    unknown_init(&invoke_vtbl.u);
    invoke_vtbl.Invoke = invoke;

    fake_vtbl_init(&toggle_vtbl, sizeof toggle_vtbl, "IUIAutomationTogglePattern");
    unknown_init(&toggle_vtbl.u);
    toggle_vtbl.Toggle = toggle;
    toggle_vtbl.get_CurrentToggleState = get_toggle_state;
    toggle_vtbl.get_CachedToggleState = get_toggle_state;

    fake_vtbl_init(&expand_vtbl, sizeof expand_vtbl, "IUIAutomationExpandCollapsePattern");
    unknown_init(&expand_vtbl.u);
    expand_vtbl.Expand = expand;
    expand_vtbl.Collapse = collapse;
    expand_vtbl.get_CurrentExpandCollapseState = get_expand_state;
    expand_vtbl.get_CachedExpandCollapseState = get_expand_state;

    fake_vtbl_init(&selection_vtbl, sizeof selection_vtbl, "IUIAutomationSelectionItemPattern");
    unknown_init(&selection_vtbl.u);
    selection_vtbl.Select = select_item;
    selection_vtbl.get_CurrentIsSelected = get_is_selected;
    selection_vtbl.get_CachedIsSelected = get_is_selected;

    fake_vtbl_init(&value_vtbl, sizeof value_vtbl, "IUIAutomationValuePattern");
    value_vtbl.QueryInterface = value_query_interface;
    value_vtbl.AddRef = value_add_ref;
    value_vtbl.Release = value_release;
    value_vtbl.SetValue = value_set_value;
    value_vtbl.get_CurrentValue = value_get_value;
    value_vtbl.get_CachedValue = value_get_value;

    fake_vtbl_init(&legacy_vtbl, sizeof legacy_vtbl, "IUIAutomationLegacyIAccessiblePattern");
    legacy_vtbl.QueryInterface = legacy_query_interface;
    legacy_vtbl.AddRef = legacy_add_ref;
    legacy_vtbl.Release = legacy_release;
    legacy_vtbl.DoDefaultAction = legacy_do_default_action;
    legacy_vtbl.Select = legacy_select;
    legacy_vtbl.SetValue = legacy_set_value;
}
