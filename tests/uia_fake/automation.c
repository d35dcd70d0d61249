/* uia_fake's entry points: the class object, IUIAutomation2 and its cache requests. */
#include "uia_fake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROPS 256

struct fake_automation {
    IUIAutomation2 iface;
    volatile LONG refs;
};

struct fake_request {
    IUIAutomationCacheRequest iface;
    volatile LONG refs;
    int scope;
    size_t n;
    PROPERTYID ids[MAX_PROPS];
};

static IUIAutomation2Vtbl automation_vtbl;
static IUIAutomationCacheRequestVtbl request_vtbl;

/* ---- cache requests ---- */

static struct fake_request *request_of(IUIAutomationCacheRequest *r)
{
    return r && r->lpVtbl == &request_vtbl ? (struct fake_request *)r : NULL;
}

static HRESULT STDMETHODCALLTYPE req_query_interface(IUIAutomationCacheRequest *self, REFIID riid,
                                                     void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IUIAutomationCacheRequest))
        return E_NOINTERFACE;
    *out = self;
    IUIAutomationCacheRequest_AddRef(self);
    return S_OK;
}

static ULONG STDMETHODCALLTYPE req_add_ref(IUIAutomationCacheRequest *self)
{
    return (ULONG)InterlockedIncrement(&request_of(self)->refs);
}

static ULONG STDMETHODCALLTYPE req_release(IUIAutomationCacheRequest *self)
{
    struct fake_request *r = request_of(self);
    LONG refs = InterlockedDecrement(&r->refs);
    if (refs == 0)
        free(r);
    return (ULONG)refs;
}

static HRESULT STDMETHODCALLTYPE req_add_property(IUIAutomationCacheRequest *self, PROPERTYID id)
{
    struct fake_request *r = request_of(self);
    for (size_t i = 0; i < r->n; i++)
        if (r->ids[i] == id)
            return S_OK;
    if (r->n == MAX_PROPS)
        return E_OUTOFMEMORY;
    r->ids[r->n++] = id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE req_put_tree_scope(IUIAutomationCacheRequest *self,
                                                    enum TreeScope scope)
{
    if (!(scope & (TreeScope_Element | TreeScope_Children | TreeScope_Descendants)) ||
        (scope & ~FAKE_SCOPE_SUBTREE))
        return E_INVALIDARG;
    request_of(self)->scope = scope;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE req_get_tree_scope(IUIAutomationCacheRequest *self,
                                                    enum TreeScope *scope)
{
    *scope = (enum TreeScope)request_of(self)->scope;
    return S_OK;
}

bool fake_cache_request_read(IUIAutomationCacheRequest *req, int *scope, struct fake_props **props)
{
    struct fake_request *r = request_of(req);
    *props = NULL;
    if (!r)
        return false;
    struct fake_props *p = malloc(sizeof *p + r->n * sizeof p->ids[0]);
    if (!p)
        return false;
    p->refs = 1;
    p->n = r->n;
    memcpy(p->ids, r->ids, r->n * sizeof p->ids[0]);
    *scope = r->scope;
    *props = p;
    return true;
}

void fake_props_release(struct fake_props *p)
{
    if (p && InterlockedDecrement(&p->refs) == 0)
        free(p);
}

/* ---- IUIAutomation2 ---- */

static HRESULT STDMETHODCALLTYPE au_query_interface(IUIAutomation2 *self, REFIID riid, void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IUIAutomation) &&
        !IsEqualIID(riid, &IID_IUIAutomation2))
        return E_NOINTERFACE;
    *out = self;
    IUIAutomation2_AddRef(self);
    return S_OK;
}

static ULONG STDMETHODCALLTYPE au_add_ref(IUIAutomation2 *self)
{
    return (ULONG)InterlockedIncrement(&((struct fake_automation *)self)->refs);
}

static ULONG STDMETHODCALLTYPE au_release(IUIAutomation2 *self)
{
    struct fake_automation *a = (struct fake_automation *)self;
    LONG refs = InterlockedDecrement(&a->refs);
    if (refs == 0)
        free(a);
    return (ULONG)refs;
}

static HRESULT STDMETHODCALLTYPE au_element_from_handle_build_cache(IUIAutomation2 *self,
                                                                    UIA_HWND hwnd,
                                                                    IUIAutomationCacheRequest *req,
                                                                    IUIAutomationElement **out)
{
    (void)self;
    struct fake_scene *s = fake_scene_get();
    struct fake_request *r = request_of(req);
    *out = NULL;
    cJSON *o = fake_log_call("ElementFromHandleBuildCache", NULL);
    char h[24];
    snprintf(h, sizeof h, "0x%llx", (unsigned long long)(uintptr_t)hwnd);
    cJSON_AddStringToObject(o, "hwnd", h);
    cJSON_AddNumberToObject(o, "scope", r ? r->scope : 0);
    if (!r) {
        cJSON_AddStringToObject(o, "refused", "not a cache request of this fake");
        fake_log(o);
        return E_INVALIDARG;
    }
    if ((HWND)hwnd != s->window) {
        /* Only the scene's window is scripted; another one is the product aiming wrong. */
        cJSON_AddStringToObject(o, "refused", "not the scene's window");
        fake_log(o);
        return UIA_E_ELEMENTNOTAVAILABLE;
    }
    fake_log(o);
    HRESULT hr = fake_fault_check(s->root, "ElementFromHandleBuildCache", r->scope);
    if (FAILED(hr))
        return hr;
    return fake_element_build(s->root, req, out);
}

static HRESULT STDMETHODCALLTYPE au_create_cache_request(IUIAutomation2 *self,
                                                         IUIAutomationCacheRequest **out)
{
    (void)self;
    struct fake_request *r = calloc(1, sizeof *r);
    *out = NULL;
    if (!r)
        return E_OUTOFMEMORY;
    r->iface.lpVtbl = &request_vtbl;
    r->refs = 1;
    r->scope = TreeScope_Element; /* UI Automation's default */
    *out = &r->iface;
    return S_OK;
}

static HRESULT set_timeout(const char *call, volatile LONG *slot, DWORD ms)
{
    InterlockedExchange(slot, (LONG)ms);
    cJSON *o = fake_log_call(call, NULL);
    cJSON_AddNumberToObject(o, "ms", ms);
    fake_log(o);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE au_put_connection_timeout(IUIAutomation2 *self, DWORD ms)
{
    (void)self;
    return set_timeout("put_ConnectionTimeout", &fake_scene_get()->connection_timeout_ms, ms);
}

static HRESULT STDMETHODCALLTYPE au_put_transaction_timeout(IUIAutomation2 *self, DWORD ms)
{
    (void)self;
    return set_timeout("put_TransactionTimeout", &fake_scene_get()->transaction_timeout_ms, ms);
}

static HRESULT STDMETHODCALLTYPE au_get_connection_timeout(IUIAutomation2 *self, DWORD *ms)
{
    (void)self;
    *ms = (DWORD)fake_scene_get()->connection_timeout_ms;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE au_get_transaction_timeout(IUIAutomation2 *self, DWORD *ms)
{
    (void)self;
    *ms = (DWORD)fake_scene_get()->transaction_timeout_ms;
    return S_OK;
}

HRESULT fake_automation_new(REFIID riid, void **out)
{
    struct fake_automation *a = calloc(1, sizeof *a);
    *out = NULL;
    if (!a)
        return E_OUTOFMEMORY;
    a->iface.lpVtbl = &automation_vtbl;
    a->refs = 1;
    HRESULT hr = au_query_interface(&a->iface, riid, out);
    au_release(&a->iface);
    return hr;
}

/* ---- the class object ---- */

static HRESULT STDMETHODCALLTYPE cf_query_interface(IClassFactory *self, REFIID riid, void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IClassFactory))
        return E_NOINTERFACE;
    *out = self;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE cf_add_ref(IClassFactory *self)
{
    (void)self;
    return 2; /* static */
}

static ULONG STDMETHODCALLTYPE cf_release(IClassFactory *self)
{
    (void)self;
    return 1;
}

static HRESULT STDMETHODCALLTYPE cf_create_instance(IClassFactory *self, IUnknown *outer,
                                                    REFIID riid, void **out)
{
    (void)self;
    *out = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    if (!fake_scene_get())
        return E_FAIL; /* why is on stderr and in the call log */
    fake_log(fake_log_call("CreateInstance", NULL));
    return fake_automation_new(riid, out);
}

static HRESULT STDMETHODCALLTYPE cf_lock_server(IClassFactory *self, BOOL lock)
{
    (void)self;
    (void)lock;
    return S_OK;
}

static IClassFactoryVtbl factory_vtbl = {
    cf_query_interface, cf_add_ref, cf_release, cf_create_instance, cf_lock_server,
};
static IClassFactory factory = {&factory_vtbl};

static BOOL CALLBACK init_vtbls(PINIT_ONCE once, void *param, void **ctx)
{
    (void)once;
    (void)param;
    (void)ctx;
    fake_vtbl_init(&automation_vtbl, sizeof automation_vtbl, "IUIAutomation2");
    automation_vtbl.QueryInterface = au_query_interface;
    automation_vtbl.AddRef = au_add_ref;
    automation_vtbl.Release = au_release;
    automation_vtbl.ElementFromHandleBuildCache = au_element_from_handle_build_cache;
    automation_vtbl.CreateCacheRequest = au_create_cache_request;
    automation_vtbl.get_ConnectionTimeout = au_get_connection_timeout;
    automation_vtbl.put_ConnectionTimeout = au_put_connection_timeout;
    automation_vtbl.get_TransactionTimeout = au_get_transaction_timeout;
    automation_vtbl.put_TransactionTimeout = au_put_transaction_timeout;

    fake_vtbl_init(&request_vtbl, sizeof request_vtbl, "IUIAutomationCacheRequest");
    request_vtbl.QueryInterface = req_query_interface;
    request_vtbl.AddRef = req_add_ref;
    request_vtbl.Release = req_release;
    request_vtbl.AddProperty = req_add_property;
    request_vtbl.get_TreeScope = req_get_tree_scope;
    request_vtbl.put_TreeScope = req_put_tree_scope;
    fake_element_vtbls_init();
    return TRUE;
}

/* The class is there only while a test names a scene: a registration left behind in
 * the prefix then changes nothing for other programs (they see "class not
 * available", as without it, and use MSAA). */
HRESULT WINAPI DllGetClassObject(REFCLSID clsid, REFIID riid, void **out)
{
    static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    *out = NULL;
    if (!IsEqualCLSID(clsid, &CLSID_CUIAutomation) && !IsEqualCLSID(clsid, &CLSID_CUIAutomation8))
        return CLASS_E_CLASSNOTAVAILABLE;
    if (!GetEnvironmentVariableW(L"WINAGENT_UIA_SCENE", NULL, 0))
        return CLASS_E_CLASSNOTAVAILABLE;
    InitOnceExecuteOnce(&once, init_vtbls, NULL, NULL);
    return cf_query_interface(&factory, riid, out);
}

/* Never unloaded: the scene and its objects live as long as the process. */
HRESULT WINAPI DllCanUnloadNow(void)
{
    return S_FALSE;
}
