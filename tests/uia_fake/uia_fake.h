/* uia_fake, a scripted UI Automation client for the Wine tests (see README.md). */
#ifndef WINAGENT_TESTS_UIA_FAKE_H
#define WINAGENT_TESTS_UIA_FAKE_H

#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <uiautomationclient.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Windows SDK error codes Wine's headers do not carry where this file looks. */
#ifndef UIA_E_ELEMENTNOTENABLED
#define UIA_E_ELEMENTNOTENABLED ((HRESULT)0x80040200)
#endif
#ifndef UIA_E_ELEMENTNOTAVAILABLE
#define UIA_E_ELEMENTNOTAVAILABLE ((HRESULT)0x80040201)
#endif
#ifndef UIA_E_TIMEOUT
#define UIA_E_TIMEOUT ((HRESULT)0x80131505)
#endif

/* TreeScope_Subtree (Wine's header spells it TreeScope_SubTree). */
#define FAKE_SCOPE_SUBTREE (TreeScope_Element | TreeScope_Children | TreeScope_Descendants)

/* Patterns an element of the scene supports. */
enum fake_pattern {
    FP_INVOKE = 1 << 0,
    FP_TOGGLE = 1 << 1,
    FP_EXPAND_COLLAPSE = 1 << 2,
    FP_SELECTION_ITEM = 1 << 3,
    FP_VALUE = 1 << 4,
    FP_LEGACY = 1 << 5, /* LegacyIAccessible */
};

/* A scripted failure of one call on one element. */
struct fake_fault {
    char call[48];       /* the method name: "BuildUpdatedCache", "Invoke", ... */
    HRESULT hr;          /* returned after the block (S_OK: only block) */
    int block_ms;        /* sleep this long first (0: none) */
    int times;           /* fire this often, then never again; 0: always */
    int scope;           /* cache calls only: fire only when the request's TreeScope has
                          * all these bits (0: any scope) */
    volatile LONG fired; /* per process */
};

/* One element of the scene. Strings are UTF-16 for BSTRs; label is the UTF-8 name the
 * call log uses for it. Mutable state (toggle, expand, selected, value, focused)
 * changes under fake_lock(). */
struct fake_node {
    struct fake_node *parent;
    struct fake_node **kids;
    size_t n_kids;
    int dfs; /* depth-first index, root 0: the second part of its RuntimeId */
    char *label;
    int control_type;
    wchar_t *name, *automation_id, *class_name, *value, *default_action, *accelerator;
    int64_t hwnd;     /* NativeWindowHandle, 0 for virtual elements */
    bool has_bounds;  /* else the root takes the window's rect, others have none */
    double bounds[4]; /* left, top, width, height (screen pixels) */
    bool enabled, focusable, focused, offscreen, password, selected;
    int toggle_state, expand_state;
    unsigned patterns; /* enum fake_pattern */
    char *labeled_by;  /* the label (id) of the element that labels it, or NULL */
    struct fake_fault *faults;
    size_t n_faults;
};

/* The scene of this process, loaded once from %WINAGENT_UIA_SCENE%. */
struct fake_scene {
    struct fake_node *root;
    HWND window;         /* the top-level window the scene describes */
    bool honor_timeouts; /* blocking faults end at the IUIAutomation2 transaction timeout */
    volatile LONG transaction_timeout_ms, connection_timeout_ms; /* 0: never set */
};

/* Loads the scene once; NULL (after logging why to stderr and the call log) when
 * there is none or it is malformed. */
struct fake_scene *fake_scene_get(void);

/* The lock around mutable element state and the log. */
void fake_lock(void);
void fake_unlock(void);

/* Appends one JSON line to the scene's call log ("t" added); takes obj. */
void fake_log(cJSON *obj);
/* A log object {"call": call, "element": label} (element omitted for NULL). */
cJSON *fake_log_call(const char *call, const struct fake_node *n);

/* Runs the faults scripted for call on n (NULL: none): logs each that fires, sleeps
 * for its block (ending at the transaction timeout when the scene honours timeouts:
 * then UIA_E_TIMEOUT) and returns its HRESULT; S_OK when nothing fired or it only
 * blocked. scope is the cache request's TreeScope for cache calls, else 0. */
HRESULT fake_fault_check(const struct fake_node *n, const char *call, int scope);

/* A UTF-16 copy of a UTF-8 string as a BSTR (NULL for NULL); UTF-8 of a BSTR. */
BSTR fake_bstr(const wchar_t *s);
char *fake_utf8(const wchar_t *s, int len);

/* ---- COM objects ---- */

/* A cache request's properties as an immutable, shared list. */
struct fake_props {
    volatile LONG refs;
    size_t n;
    PROPERTYID ids[];
};
void fake_props_release(struct fake_props *p);

/* The IUIAutomation2 object; the CacheRequest it makes. */
HRESULT fake_automation_new(REFIID riid, void **out);
/* The request's scope and a reference to its properties (for building a cache). */
bool fake_cache_request_read(IUIAutomationCacheRequest *r, int *scope, struct fake_props **props);

/* An element of n with props cached for it and its children (NULL: nothing cached; a
 * new reference is taken), its children cached `levels` deep (0: none; INT_MAX: all). */
IUIAutomationElement *fake_element_new(struct fake_node *n, struct fake_props *props, int levels);
/* An element built by a cache request (scope as in TreeScope) on n. */
HRESULT fake_element_build(struct fake_node *n, IUIAutomationCacheRequest *req,
                           IUIAutomationElement **out);

/* The pattern object for (n, pattern id) if n has it and riid is that pattern's
 * interface: S_OK with *out NULL when n lacks the pattern, as UI Automation does;
 * E_NOINTERFACE for a wrong riid. */
HRESULT fake_pattern_get(struct fake_node *n, PATTERNID id, REFIID riid, void **out);

/* Fills the vtables of the elements, arrays and patterns (once, before any use). */
void fake_element_vtbls_init(void);
void fake_patterns_init(void);

/* ---- vtables: every slot not implemented answers E_NOTIMPL (and is logged) ---- */

/* Fills size bytes of vtbl with stubs that log "not_implemented" with iface and the
 * slot number and return E_NOTIMPL; the caller then sets the slots it implements. The
 * stubs take no arguments: under the x64 calling convention (the caller owns the stack)
 * a function that ignores its arguments may stand for any method of the interface. */
void fake_vtbl_init(void *vtbl, size_t size, const char *iface);

#endif
