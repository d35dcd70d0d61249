/* uia_fake's elements and element arrays, as the cache requests that made them. */
#include "uia_fake.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct fake_element {
    IUIAutomationElement iface;
    volatile LONG refs;
    struct fake_node *node;
    struct fake_props *props; /* what the request cached (NULL: nothing) */
    bool own_props;           /* ... for the element itself (else only for its children) */
    int levels;               /* children cached this deep below it; INT_MAX: all */
};

struct fake_array {
    IUIAutomationElementArray iface;
    volatile LONG refs;
    struct fake_node *parent; /* the elements are its children */
    struct fake_props *props;
    int levels; /* of each element */
};

static IUIAutomationElementVtbl element_vtbl;
static IUIAutomationElementArrayVtbl array_vtbl;

static struct fake_element *element_of(IUIAutomationElement *e)
{
    return (struct fake_element *)e;
}

/* ---- property values, as UI Automation types them ---- */

static void set_bool(VARIANT *v, bool b)
{
    V_VT(v) = VT_BOOL;
    V_BOOL(v) = b ? VARIANT_TRUE : VARIANT_FALSE;
}

static void set_int(VARIANT *v, int i)
{
    V_VT(v) = VT_I4;
    V_I4(v) = i;
}

static HRESULT set_string(VARIANT *v, const wchar_t *s)
{
    V_VT(v) = VT_BSTR;
    V_BSTR(v) = SysAllocString(s ? s : L"");
    return V_BSTR(v) ? S_OK : E_OUTOFMEMORY;
}

static HRESULT set_array(VARIANT *v, VARTYPE vt, const void *data, size_t size, LONG n)
{
    SAFEARRAY *a = SafeArrayCreateVector(vt, 0, (ULONG)n);
    void *p = NULL;
    if (!a)
        return E_OUTOFMEMORY;
    if (FAILED(SafeArrayAccessData(a, &p))) {
        SafeArrayDestroy(a);
        return E_FAIL;
    }
    memcpy(p, data, size * (size_t)n);
    SafeArrayUnaccessData(a);
    V_VT(v) = VT_ARRAY | vt;
    V_ARRAY(v) = a;
    return S_OK;
}

static HRESULT bounds_value(const struct fake_node *n, VARIANT *v)
{
    double b[4] = {0, 0, 0, 0};
    RECT rc;
    if (n->has_bounds)
        memcpy(b, n->bounds, sizeof b);
    else if (!n->parent && GetWindowRect(fake_scene_get()->window, &rc)) {
        b[0] = rc.left;
        b[1] = rc.top;
        b[2] = rc.right - rc.left;
        b[3] = rc.bottom - rc.top;
    }
    return set_array(v, VT_R8, b, sizeof b[0], 4);
}

/* The node of the scene below n whose label (its "id", ...) is label, or NULL. */
static struct fake_node *node_labelled(struct fake_node *n, const char *label)
{
    if (!n)
        return NULL;
    if (n->label && strcmp(n->label, label) == 0)
        return n;
    for (size_t i = 0; i < n->n_kids; i++) {
        struct fake_node *found = node_labelled(n->kids[i], label);
        if (found)
            return found;
    }
    return NULL;
}

/* n's value of property id; VT_EMPTY for properties the fake does not know. Called
 * under fake_lock(). */
static HRESULT property_value(const struct fake_node *n, PROPERTYID id, VARIANT *v)
{
    int rid[2] = {42, n->dfs};
    switch (id) {
    case UIA_ControlTypePropertyId:
        set_int(v, n->control_type);
        return S_OK;
    case UIA_NamePropertyId:
        return set_string(v, n->name);
    case UIA_AutomationIdPropertyId:
        return set_string(v, n->automation_id);
    case UIA_ClassNamePropertyId:
        return set_string(v, n->class_name);
    case UIA_NativeWindowHandlePropertyId:
        set_int(v, (int)n->hwnd);
        return S_OK;
    case UIA_BoundingRectanglePropertyId:
        return bounds_value(n, v);
    case UIA_RuntimeIdPropertyId:
        return set_array(v, VT_I4, rid, sizeof rid[0], 2);
    case UIA_IsEnabledPropertyId:
        set_bool(v, n->enabled);
        return S_OK;
    case UIA_HasKeyboardFocusPropertyId:
        set_bool(v, n->focused);
        return S_OK;
    case UIA_IsKeyboardFocusablePropertyId:
        set_bool(v, n->focusable);
        return S_OK;
    case UIA_IsOffscreenPropertyId:
        set_bool(v, n->offscreen);
        return S_OK;
    case UIA_IsPasswordPropertyId:
        set_bool(v, n->password);
        return S_OK;
    case UIA_ValueValuePropertyId:
        return set_string(v, n->value);
    case UIA_ToggleToggleStatePropertyId:
        set_int(v, n->toggle_state);
        return S_OK;
    case UIA_ExpandCollapseExpandCollapseStatePropertyId:
        set_int(v, n->expand_state);
        return S_OK;
    case UIA_SelectionItemIsSelectedPropertyId:
        set_bool(v, n->selected);
        return S_OK;
    case UIA_LegacyIAccessibleDefaultActionPropertyId:
        return set_string(v, n->default_action);
    case UIA_AcceleratorKeyPropertyId:
        return set_string(v, n->accelerator);
    case UIA_LabeledByPropertyId: {
        /* the labelling element, not cached itself (as UI Automation gives it) */
        struct fake_scene *sc = fake_scene_get();
        struct fake_node *label =
            n->labeled_by && sc ? node_labelled(sc->root, n->labeled_by) : NULL;
        if (label) {
            V_VT(v) = VT_UNKNOWN;
            V_UNKNOWN(v) = (IUnknown *)fake_element_new(label, NULL, 0);
        }
        return S_OK;
    }
    case UIA_IsInvokePatternAvailablePropertyId:
        set_bool(v, n->patterns & FP_INVOKE);
        return S_OK;
    case UIA_IsTogglePatternAvailablePropertyId:
        set_bool(v, n->patterns & FP_TOGGLE);
        return S_OK;
    case UIA_IsExpandCollapsePatternAvailablePropertyId:
        set_bool(v, n->patterns & FP_EXPAND_COLLAPSE);
        return S_OK;
    case UIA_IsSelectionItemPatternAvailablePropertyId:
        set_bool(v, n->patterns & FP_SELECTION_ITEM);
        return S_OK;
    case UIA_IsValuePatternAvailablePropertyId:
        set_bool(v, n->patterns & FP_VALUE);
        return S_OK;
    case UIA_IsLegacyIAccessiblePatternAvailablePropertyId:
        set_bool(v, n->patterns & FP_LEGACY);
        return S_OK;
    case UIA_IsScrollPatternAvailablePropertyId:
    case UIA_IsRangeValuePatternAvailablePropertyId:
        set_bool(v, false);
        return S_OK;
    default:
        return S_OK; /* VT_EMPTY */
    }
}

/* ---- elements ---- */

static HRESULT STDMETHODCALLTYPE el_query_interface(IUIAutomationElement *self, REFIID riid,
                                                    void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IUIAutomationElement))
        return E_NOINTERFACE;
    *out = self;
    IUIAutomationElement_AddRef(self);
    return S_OK;
}

static ULONG STDMETHODCALLTYPE el_add_ref(IUIAutomationElement *self)
{
    return (ULONG)InterlockedIncrement(&element_of(self)->refs);
}

static ULONG STDMETHODCALLTYPE el_release(IUIAutomationElement *self)
{
    struct fake_element *e = element_of(self);
    LONG refs = InterlockedDecrement(&e->refs);
    if (refs == 0) {
        fake_props_release(e->props);
        free(e);
    }
    return (ULONG)refs;
}

IUIAutomationElement *fake_element_new(struct fake_node *n, struct fake_props *props, int levels)
{
    struct fake_element *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->iface.lpVtbl = &element_vtbl;
    e->refs = 1;
    e->node = n;
    e->props = props;
    if (props)
        InterlockedIncrement(&props->refs);
    e->own_props = props != NULL;
    e->levels = levels;
    return &e->iface;
}

HRESULT fake_element_build(struct fake_node *n, IUIAutomationCacheRequest *req,
                           IUIAutomationElement **out)
{
    int scope = 0;
    struct fake_props *props = NULL;
    *out = NULL;
    if (!fake_cache_request_read(req, &scope, &props))
        return E_INVALIDARG;
    /* The element itself is cached with TreeScope_Element; its children (and their
     * properties) with Children, every level below with Descendants. */
    int levels = scope & TreeScope_Descendants ? INT_MAX : scope & TreeScope_Children ? 1 : 0;
    struct fake_element *e = element_of(fake_element_new(n, props, levels));
    fake_props_release(props);
    if (!e)
        return E_OUTOFMEMORY;
    e->own_props = scope & TreeScope_Element;
    *out = &e->iface;
    return S_OK;
}

static bool props_cached(const struct fake_element *e, PROPERTYID id)
{
    for (size_t i = 0; e->own_props && i < e->props->n; i++)
        if (e->props->ids[i] == id)
            return true;
    return false;
}

static HRESULT STDMETHODCALLTYPE el_get_cached_property_value(IUIAutomationElement *self,
                                                              PROPERTYID id, VARIANT *v)
{
    struct fake_element *e = element_of(self);
    VariantInit(v);
    HRESULT hr = fake_fault_check(e->node, "GetCachedPropertyValue", 0);
    if (FAILED(hr))
        return hr;
    /* UI Automation fails for a property the request did not cache. */
    if (!props_cached(e, id))
        return E_INVALIDARG;
    fake_lock();
    hr = property_value(e->node, id, v);
    fake_unlock();
    return hr;
}

/* A property asked of the provider now (what a LabeledBy element, which comes without a
 * cache, is asked): logged, as every call to the provider is. */
static HRESULT STDMETHODCALLTYPE el_get_current_property_value(IUIAutomationElement *self,
                                                               PROPERTYID id, VARIANT *v)
{
    struct fake_element *e = element_of(self);
    VariantInit(v);
    HRESULT hr = fake_fault_check(e->node, "GetCurrentPropertyValue", 0);
    if (FAILED(hr))
        return hr;
    cJSON *o = fake_log_call("GetCurrentPropertyValue", e->node);
    cJSON_AddNumberToObject(o, "property", id);
    fake_log(o);
    fake_lock();
    hr = property_value(e->node, id, v);
    fake_unlock();
    return hr;
}

static HRESULT STDMETHODCALLTYPE el_get_cached_children(IUIAutomationElement *self,
                                                        IUIAutomationElementArray **out)
{
    struct fake_element *e = element_of(self);
    *out = NULL;
    HRESULT hr = fake_fault_check(e->node, "GetCachedChildren", 0);
    if (FAILED(hr))
        return hr;
    if (e->levels == 0)
        return E_INVALIDARG; /* no request cached children at this level */
    if (e->node->n_kids == 0)
        return S_OK; /* UI Automation's answer for "cached, and there are none" */
    struct fake_array *a = calloc(1, sizeof *a);
    if (!a)
        return E_OUTOFMEMORY;
    a->iface.lpVtbl = &array_vtbl;
    a->refs = 1;
    a->parent = e->node;
    a->props = e->props;
    if (a->props)
        InterlockedIncrement(&a->props->refs);
    a->levels = e->levels == INT_MAX ? INT_MAX : e->levels - 1;
    *out = &a->iface;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE el_build_updated_cache(IUIAutomationElement *self,
                                                        IUIAutomationCacheRequest *req,
                                                        IUIAutomationElement **out)
{
    struct fake_element *e = element_of(self);
    enum TreeScope scope = TreeScope_Element;
    *out = NULL;
    if (req)
        IUIAutomationCacheRequest_get_TreeScope(req, &scope);
    cJSON *o = fake_log_call("BuildUpdatedCache", e->node);
    cJSON_AddNumberToObject(o, "scope", scope);
    fake_log(o);
    HRESULT hr = fake_fault_check(e->node, "BuildUpdatedCache", scope);
    return FAILED(hr) ? hr : fake_element_build(e->node, req, out);
}

static HRESULT STDMETHODCALLTYPE el_get_current_pattern_as(IUIAutomationElement *self, PATTERNID id,
                                                           REFIID riid, void **out)
{
    struct fake_element *e = element_of(self);
    *out = NULL;
    HRESULT hr = fake_fault_check(e->node, "GetCurrentPatternAs", 0);
    if (FAILED(hr))
        return hr;
    hr = fake_pattern_get(e->node, id, riid, out);
    cJSON *o = fake_log_call("GetCurrentPatternAs", e->node);
    cJSON_AddNumberToObject(o, "pattern", id);
    cJSON_AddBoolToObject(o, "found", *out != NULL);
    if (FAILED(hr))
        cJSON_AddNumberToObject(o, "hr", (double)(ULONG)hr);
    fake_log(o);
    return hr;
}

static void clear_focus(struct fake_node *n)
{
    n->focused = false;
    for (size_t i = 0; i < n->n_kids; i++)
        clear_focus(n->kids[i]);
}

static HRESULT STDMETHODCALLTYPE el_set_focus(IUIAutomationElement *self)
{
    struct fake_element *e = element_of(self);
    fake_log(fake_log_call("SetFocus", e->node));
    HRESULT hr = fake_fault_check(e->node, "SetFocus", 0);
    if (FAILED(hr))
        return hr;
    if (!e->node->enabled)
        return UIA_E_ELEMENTNOTENABLED;
    fake_lock();
    clear_focus(fake_scene_get()->root);
    e->node->focused = true;
    fake_unlock();
    return S_OK;
}

/* ---- element arrays ---- */

static struct fake_array *array_of(IUIAutomationElementArray *a)
{
    return (struct fake_array *)a;
}

static HRESULT STDMETHODCALLTYPE ar_query_interface(IUIAutomationElementArray *self, REFIID riid,
                                                    void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IUIAutomationElementArray))
        return E_NOINTERFACE;
    *out = self;
    IUIAutomationElementArray_AddRef(self);
    return S_OK;
}

static ULONG STDMETHODCALLTYPE ar_add_ref(IUIAutomationElementArray *self)
{
    return (ULONG)InterlockedIncrement(&array_of(self)->refs);
}

static ULONG STDMETHODCALLTYPE ar_release(IUIAutomationElementArray *self)
{
    struct fake_array *a = array_of(self);
    LONG refs = InterlockedDecrement(&a->refs);
    if (refs == 0) {
        fake_props_release(a->props);
        free(a);
    }
    return (ULONG)refs;
}

static HRESULT STDMETHODCALLTYPE ar_get_length(IUIAutomationElementArray *self, int *length)
{
    *length = (int)array_of(self)->parent->n_kids;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ar_get_element(IUIAutomationElementArray *self, int index,
                                                IUIAutomationElement **out)
{
    struct fake_array *a = array_of(self);
    *out = NULL;
    if (index < 0 || (size_t)index >= a->parent->n_kids)
        return E_INVALIDARG;
    struct fake_node *n = a->parent->kids[index];
    HRESULT hr = fake_fault_check(n, "GetElement", 0);
    if (FAILED(hr))
        return hr;
    *out = fake_element_new(n, a->props, a->levels);
    return *out ? S_OK : E_OUTOFMEMORY;
}

void fake_element_vtbls_init(void)
{
    fake_vtbl_init(&element_vtbl, sizeof element_vtbl, "IUIAutomationElement");
    element_vtbl.QueryInterface = el_query_interface;
    element_vtbl.AddRef = el_add_ref;
    element_vtbl.Release = el_release;
    element_vtbl.SetFocus = el_set_focus;
    element_vtbl.BuildUpdatedCache = el_build_updated_cache;
    element_vtbl.GetCachedPropertyValue = el_get_cached_property_value;
    element_vtbl.GetCurrentPropertyValue = el_get_current_property_value;
    element_vtbl.GetCurrentPatternAs = el_get_current_pattern_as;
    element_vtbl.GetCachedChildren = el_get_cached_children;

    fake_vtbl_init(&array_vtbl, sizeof array_vtbl, "IUIAutomationElementArray");
    array_vtbl.QueryInterface = ar_query_interface;
    array_vtbl.AddRef = ar_add_ref;
    array_vtbl.Release = ar_release;
    array_vtbl.get_Length = ar_get_length;
    array_vtbl.GetElement = ar_get_element;
    fake_patterns_init();
}
