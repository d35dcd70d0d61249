/* uia_fake's scene: loading %WINAGENT_UIA_SCENE%, the call log, scripted faults. */
#include "uia_fake.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_MAX_BYTES (64u << 20)

static CRITICAL_SECTION g_lock;
static HANDLE g_log = INVALID_HANDLE_VALUE;
static ULONGLONG g_start;
static struct fake_scene g_scene;
static struct fake_scene *g_loaded; /* &g_scene once loaded, NULL when it failed */

void fake_lock(void)
{
    EnterCriticalSection(&g_lock);
}

void fake_unlock(void)
{
    LeaveCriticalSection(&g_lock);
}

/* ---- strings ---- */

static wchar_t *wide_from_utf8(const char *s)
{
    if (!s)
        return NULL;
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w)
        MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
    return w;
}

char *fake_utf8(const wchar_t *s, int len)
{
    if (!s)
        return NULL;
    int n = WideCharToMultiByte(CP_UTF8, 0, s, len, NULL, 0, NULL, NULL);
    char *u = malloc((size_t)n + 1);
    if (!u)
        return NULL;
    WideCharToMultiByte(CP_UTF8, 0, s, len, u, n, NULL, NULL);
    u[n] = '\0';
    return u;
}

BSTR fake_bstr(const wchar_t *s)
{
    return s ? SysAllocString(s) : NULL;
}

/* ---- the call log ---- */

void fake_log(cJSON *obj)
{
    if (!obj)
        return;
    cJSON_AddNumberToObject(obj, "t", (double)(GetTickCount64() - g_start));
    char *text = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    if (!text)
        return;
    size_t len = strlen(text);
    text[len] = '\n'; /* one WriteFile per line: a reader never sees half of one */
    fake_lock();
    DWORD wrote;
    if (g_log != INVALID_HANDLE_VALUE)
        WriteFile(g_log, text, (DWORD)len + 1, &wrote, NULL);
    fake_unlock();
    free(text);
}

cJSON *fake_log_call(const char *call, const struct fake_node *n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "call", call);
    if (n)
        cJSON_AddStringToObject(o, "element", n->label);
    return o;
}

static void open_log(void)
{
    wchar_t path[MAX_PATH];
    DWORD n = GetEnvironmentVariableW(L"WINAGENT_UIA_LOG", path, MAX_PATH);
    if (n == 0 || n >= MAX_PATH)
        return;
    g_log =
        CreateFileW(path, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    NULL, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
}

/* ---- faults ---- */

static const struct {
    const char *name;
    HRESULT hr;
} hr_names[] = {
    {"S_OK", S_OK},
    {"E_FAIL", E_FAIL},
    {"E_NOTIMPL", E_NOTIMPL},
    {"E_INVALIDARG", E_INVALIDARG},
    {"E_ACCESSDENIED", E_ACCESSDENIED},
    {"E_NOINTERFACE", E_NOINTERFACE},
    {"UIA_E_ELEMENTNOTAVAILABLE", UIA_E_ELEMENTNOTAVAILABLE},
    {"UIA_E_ELEMENTNOTENABLED", UIA_E_ELEMENTNOTENABLED},
    {"UIA_E_TIMEOUT", UIA_E_TIMEOUT},
};

/* The calls a fault may name: every method of the fake that looks at faults. */
static const char *const fault_calls[] = {
    "ElementFromHandleBuildCache",
    "BuildUpdatedCache",
    "GetCachedChildren",
    "GetElement",
    "GetCachedPropertyValue",
    "GetCurrentPropertyValue",
    "GetCurrentPatternAs",
    "SetFocus",
    "Invoke",
    "Toggle",
    "Expand",
    "Collapse",
    "Select",
    "SetValue",
    "DoDefaultAction",
    "LegacySelect",
    "LegacySetValue",
};

static void hr_text(HRESULT hr, char *out, size_t n)
{
    for (size_t i = 0; i < sizeof hr_names / sizeof hr_names[0]; i++)
        if (hr_names[i].hr == hr) {
            snprintf(out, n, "%s", hr_names[i].name);
            return;
        }
    snprintf(out, n, "0x%08lx", (unsigned long)hr);
}

HRESULT fake_fault_check(const struct fake_node *n, const char *call, int scope)
{
    HRESULT result = S_OK;
    for (size_t i = 0; n && i < n->n_faults && result == S_OK; i++) {
        struct fake_fault *f = &n->faults[i];
        if (strcmp(f->call, call) != 0 || (f->scope && (scope & f->scope) != f->scope))
            continue;
        LONG fired = InterlockedIncrement(&f->fired);
        if (f->times > 0 && fired > f->times)
            continue;
        HRESULT hr = f->hr;
        int block = f->block_ms;
        struct fake_scene *s = &g_scene;
        LONG limit = s->honor_timeouts ? s->transaction_timeout_ms : 0;
        if (block > 0 && limit > 0 && block > limit) {
            block = (int)limit;
            hr = UIA_E_TIMEOUT; /* what the core reports when the provider took too long */
        }
        char text[40];
        hr_text(hr, text, sizeof text);
        cJSON *o = fake_log_call("fault", n);
        cJSON_AddStringToObject(o, "on", call);
        cJSON_AddStringToObject(o, "hr", text);
        if (f->block_ms > 0)
            cJSON_AddNumberToObject(o, "block_ms", block);
        fake_log(o);
        if (block > 0)
            Sleep((DWORD)block);
        result = hr;
    }
    return result;
}

/* ---- loading ---- */

/* Control type names as UI Automation's programmatic names. */
static const struct {
    const char *name;
    int id;
} type_names[] = {
    {"Button", UIA_ButtonControlTypeId},
    {"Calendar", UIA_CalendarControlTypeId},
    {"CheckBox", UIA_CheckBoxControlTypeId},
    {"ComboBox", UIA_ComboBoxControlTypeId},
    {"Edit", UIA_EditControlTypeId},
    {"Hyperlink", UIA_HyperlinkControlTypeId},
    {"Image", UIA_ImageControlTypeId},
    {"ListItem", UIA_ListItemControlTypeId},
    {"List", UIA_ListControlTypeId},
    {"Menu", UIA_MenuControlTypeId},
    {"MenuBar", UIA_MenuBarControlTypeId},
    {"MenuItem", UIA_MenuItemControlTypeId},
    {"ProgressBar", UIA_ProgressBarControlTypeId},
    {"RadioButton", UIA_RadioButtonControlTypeId},
    {"ScrollBar", UIA_ScrollBarControlTypeId},
    {"Slider", UIA_SliderControlTypeId},
    {"Spinner", UIA_SpinnerControlTypeId},
    {"StatusBar", UIA_StatusBarControlTypeId},
    {"Tab", UIA_TabControlTypeId},
    {"TabItem", UIA_TabItemControlTypeId},
    {"Text", UIA_TextControlTypeId},
    {"ToolBar", UIA_ToolBarControlTypeId},
    {"ToolTip", UIA_ToolTipControlTypeId},
    {"Tree", UIA_TreeControlTypeId},
    {"TreeItem", UIA_TreeItemControlTypeId},
    {"Custom", UIA_CustomControlTypeId},
    {"Group", UIA_GroupControlTypeId},
    {"Thumb", UIA_ThumbControlTypeId},
    {"DataGrid", UIA_DataGridControlTypeId},
    {"DataItem", UIA_DataItemControlTypeId},
    {"Document", UIA_DocumentControlTypeId},
    {"SplitButton", UIA_SplitButtonControlTypeId},
    {"Window", UIA_WindowControlTypeId},
    {"Pane", UIA_PaneControlTypeId},
    {"Header", UIA_HeaderControlTypeId},
    {"HeaderItem", UIA_HeaderItemControlTypeId},
    {"Table", UIA_TableControlTypeId},
    {"TitleBar", UIA_TitleBarControlTypeId},
    {"Separator", UIA_SeparatorControlTypeId},
};

static const struct {
    const char *name;
    unsigned bit;
} pattern_names[] = {
    {"invoke", FP_INVOKE},
    {"toggle", FP_TOGGLE},
    {"expand_collapse", FP_EXPAND_COLLAPSE},
    {"selection_item", FP_SELECTION_ITEM},
    {"value", FP_VALUE},
    {"legacy", FP_LEGACY},
};

static const char *const element_keys[] = {
    "id",          "type",     "name",         "automation_id", "class",     "hwnd",
    "bounds",      "enabled",  "focusable",    "focused",       "offscreen", "password",
    "patterns",    "value",    "toggle_state", "expand_state",  "selected",  "default_action",
    "accelerator", "children", "faults",       "labeled_by",
};

struct loader {
    char error[512];
    int next_dfs;
};

static bool fail(struct loader *l, const char *where, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(l->error, sizeof l->error, "%s: %s", where, msg);
    return false;
}

static bool parse_handle(const cJSON *v, int64_t *out)
{
    if (cJSON_IsNumber(v)) {
        *out = (int64_t)v->valuedouble;
        return true;
    }
    if (cJSON_IsString(v)) {
        char *end;
        unsigned long long h = strtoull(v->valuestring, &end, 0);
        if (*v->valuestring && !*end) {
            *out = (int64_t)h;
            return true;
        }
    }
    return false;
}

static bool parse_hr(const cJSON *v, HRESULT *out)
{
    if (cJSON_IsNumber(v)) {
        *out = (HRESULT)(LONG)(long long)v->valuedouble;
        return true;
    }
    if (!cJSON_IsString(v))
        return false;
    for (size_t i = 0; i < sizeof hr_names / sizeof hr_names[0]; i++)
        if (strcmp(v->valuestring, hr_names[i].name) == 0) {
            *out = hr_names[i].hr;
            return true;
        }
    char *end;
    unsigned long long h = strtoull(v->valuestring, &end, 16);
    if (strncmp(v->valuestring, "0x", 2) == 0 && !*end && h <= 0xffffffffull) {
        *out = (HRESULT)(ULONG)h;
        return true;
    }
    return false;
}

static bool parse_scope(const cJSON *v, int *out)
{
    static const struct {
        const char *name;
        int scope;
    } scopes[] = {{"element", TreeScope_Element},
                  {"children", TreeScope_Children},
                  {"descendants", TreeScope_Descendants},
                  {"subtree", FAKE_SCOPE_SUBTREE}};
    if (cJSON_IsNumber(v)) {
        *out = v->valueint;
        return true;
    }
    for (size_t i = 0; cJSON_IsString(v) && i < sizeof scopes / sizeof scopes[0]; i++)
        if (strcmp(v->valuestring, scopes[i].name) == 0) {
            *out = scopes[i].scope;
            return true;
        }
    return false;
}

static bool parse_fault(struct loader *l, const char *where, const cJSON *j, struct fake_fault *f)
{
    static const char *const keys[] = {"call", "hr", "block_ms", "times", "scope"};
    const cJSON *k;
    cJSON_ArrayForEach(k, j)
    {
        bool known = false;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            known |= strcmp(k->string, keys[i]) == 0;
        if (!known)
            return fail(l, where, "unknown key \"%s\" (keys: call, hr, block_ms, times, scope)",
                        k->string);
    }
    const cJSON *call = cJSON_GetObjectItemCaseSensitive(j, "call");
    bool known = false;
    for (size_t i = 0; cJSON_IsString(call) && i < sizeof fault_calls / sizeof fault_calls[0]; i++)
        known |= strcmp(call->valuestring, fault_calls[i]) == 0;
    if (!known)
        return fail(l, where, "\"call\" must name a method the fake scripts (%s, %s, ...)",
                    fault_calls[0], fault_calls[1]);
    snprintf(f->call, sizeof f->call, "%s", call->valuestring);
    const cJSON *hr = cJSON_GetObjectItemCaseSensitive(j, "hr");
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(j, "block_ms");
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(j, "times");
    const cJSON *scope = cJSON_GetObjectItemCaseSensitive(j, "scope");
    if (!hr && !block)
        return fail(l, where, "a fault needs \"hr\" or \"block_ms\"");
    f->hr = S_OK;
    if (hr && !parse_hr(hr, &f->hr))
        return fail(l, where,
                    "\"hr\" must be a name (E_FAIL, UIA_E_ELEMENTNOTAVAILABLE, ...) "
                    "or \"0x8...\"");
    if (block && (!cJSON_IsNumber(block) || block->valuedouble < 0 || block->valuedouble > 600000))
        return fail(l, where, "\"block_ms\" must be 0-600000");
    f->block_ms = block ? block->valueint : 0;
    if (times && (!cJSON_IsNumber(times) || times->valuedouble < 0))
        return fail(l, where, "\"times\" must be a count (0: always)");
    f->times = times ? times->valueint : 0;
    if (scope && !parse_scope(scope, &f->scope))
        return fail(l, where, "\"scope\" must be element, children, descendants or subtree");
    return true;
}

static bool get_string(struct loader *l, const char *where, const cJSON *j, const char *key,
                       wchar_t **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    *out = NULL;
    if (!v)
        return true;
    if (!cJSON_IsString(v))
        return fail(l, where, "\"%s\" must be a string", key);
    *out = wide_from_utf8(v->valuestring);
    return *out ? true : fail(l, where, "out of memory");
}

static bool get_bool(struct loader *l, const char *where, const cJSON *j, const char *key, bool def,
                     bool *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    *out = def;
    if (!v)
        return true;
    if (!cJSON_IsBool(v))
        return fail(l, where, "\"%s\" must be true or false", key);
    *out = cJSON_IsTrue(v);
    return true;
}

static bool get_state(struct loader *l, const char *where, const cJSON *j, const char *key,
                      const char *const *names, int count, int def, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    *out = def;
    if (!v)
        return true;
    for (int i = 0; i < count; i++)
        if ((cJSON_IsNumber(v) && v->valueint == i) ||
            (cJSON_IsString(v) && strcmp(v->valuestring, names[i]) == 0)) {
            *out = i;
            return true;
        }
    return fail(l, where, "\"%s\" must be one of %s, %s, ... (or its number)", key, names[0],
                names[1]);
}

static bool check_keys(struct loader *l, const char *where, const cJSON *j)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, j)
    {
        bool known = false;
        for (size_t i = 0; i < sizeof element_keys / sizeof element_keys[0]; i++)
            known |= strcmp(k->string, element_keys[i]) == 0;
        if (!known)
            return fail(l, where, "unknown key \"%s\"", k->string);
    }
    return true;
}

static bool parse_type(struct loader *l, const char *where, const cJSON *v, int *out)
{
    if (cJSON_IsNumber(v) && v->valueint >= UIA_ButtonControlTypeId &&
        v->valueint <= UIA_AppBarControlTypeId) {
        *out = v->valueint;
        return true;
    }
    for (size_t i = 0; cJSON_IsString(v) && i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(v->valuestring, type_names[i].name) == 0) {
            *out = type_names[i].id;
            return true;
        }
    return fail(l, where,
                "\"type\" must be a control type name (Button, Edit, ListItem, ...) "
                "or id 50000-50040");
}

static bool parse_patterns(struct loader *l, const char *where, const cJSON *v, unsigned *out)
{
    *out = 0;
    if (!v)
        return true;
    if (!cJSON_IsArray(v))
        return fail(l, where, "\"patterns\" must be an array of names");
    const cJSON *p;
    cJSON_ArrayForEach(p, v)
    {
        unsigned bit = 0;
        for (size_t i = 0; cJSON_IsString(p) && i < sizeof pattern_names / sizeof pattern_names[0];
             i++)
            if (strcmp(p->valuestring, pattern_names[i].name) == 0)
                bit = pattern_names[i].bit;
        if (!bit)
            return fail(l, where,
                        "unknown pattern (invoke, toggle, expand_collapse, "
                        "selection_item, value, legacy)");
        *out |= bit;
    }
    return true;
}

static bool parse_bounds(struct loader *l, const char *where, const cJSON *v, struct fake_node *n)
{
    if (!v)
        return true;
    double b[4] = {0};
    int i = 0;
    const cJSON *x;
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 4)
        cJSON_ArrayForEach(x, v)
        {
            if (!cJSON_IsNumber(x))
                break;
            b[i++] = x->valuedouble;
        }
    if (i != 4 || b[2] < b[0] || b[3] < b[1])
        return fail(l, where, "\"bounds\" must be [left, top, right, bottom] in screen pixels");
    n->has_bounds = true;
    n->bounds[0] = b[0];
    n->bounds[1] = b[1];
    n->bounds[2] = b[2] - b[0];
    n->bounds[3] = b[3] - b[1];
    return true;
}

static bool parse_node(struct loader *l, const cJSON *j, struct fake_node *parent,
                       const char *where, struct fake_node **out);

static bool parse_children(struct loader *l, const cJSON *j, struct fake_node *n, const char *where)
{
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(j, "children");
    if (!kids)
        return true;
    if (!cJSON_IsArray(kids))
        return fail(l, where, "\"children\" must be an array");
    size_t count = (size_t)cJSON_GetArraySize(kids);
    n->kids = calloc(count ? count : 1, sizeof *n->kids);
    if (!n->kids)
        return fail(l, where, "out of memory");
    const cJSON *k;
    cJSON_ArrayForEach(k, kids)
    {
        char path[256];
        snprintf(path, sizeof path, "%.200s.children[%zu]", where, n->n_kids);
        if (!parse_node(l, k, n, path, &n->kids[n->n_kids]))
            return false;
        n->n_kids++;
    }
    return true;
}

static bool parse_faults(struct loader *l, const cJSON *j, struct fake_node *n, const char *where)
{
    const cJSON *faults = cJSON_GetObjectItemCaseSensitive(j, "faults");
    if (!faults)
        return true;
    if (!cJSON_IsArray(faults))
        return fail(l, where, "\"faults\" must be an array");
    size_t count = (size_t)cJSON_GetArraySize(faults);
    n->faults = calloc(count ? count : 1, sizeof *n->faults);
    if (!n->faults)
        return fail(l, where, "out of memory");
    const cJSON *f;
    cJSON_ArrayForEach(f, faults)
    {
        char path[256];
        snprintf(path, sizeof path, "%.200s.faults[%zu]", where, n->n_faults);
        if (!cJSON_IsObject(f))
            return fail(l, path, "a fault is an object");
        if (!parse_fault(l, path, f, &n->faults[n->n_faults]))
            return false;
        n->n_faults++;
    }
    return true;
}

/* Elements live as long as the process: nothing here is ever freed, also on failure
 * (the process then has no scene and the class refuses to be created). */
static bool parse_node(struct loader *l, const cJSON *j, struct fake_node *parent,
                       const char *where, struct fake_node **out)
{
    static const char *const toggle_names[] = {"off", "on", "indeterminate"};
    static const char *const expand_names[] = {"collapsed", "expanded", "partial", "leaf"};
    *out = NULL;
    if (!cJSON_IsObject(j))
        return fail(l, where, "an element is an object");
    struct fake_node *n = calloc(1, sizeof *n);
    if (!n)
        return fail(l, where, "out of memory");
    n->parent = parent;
    n->dfs = l->next_dfs++;
    if (!check_keys(l, where, j) ||
        !parse_type(l, where, cJSON_GetObjectItemCaseSensitive(j, "type"), &n->control_type) ||
        !get_string(l, where, j, "name", &n->name) ||
        !get_string(l, where, j, "automation_id", &n->automation_id) ||
        !get_string(l, where, j, "class", &n->class_name) ||
        !get_string(l, where, j, "value", &n->value) ||
        !get_string(l, where, j, "default_action", &n->default_action) ||
        !get_string(l, where, j, "accelerator", &n->accelerator) ||
        !get_bool(l, where, j, "enabled", true, &n->enabled) ||
        !get_bool(l, where, j, "focusable", false, &n->focusable) ||
        !get_bool(l, where, j, "focused", false, &n->focused) ||
        !get_bool(l, where, j, "offscreen", false, &n->offscreen) ||
        !get_bool(l, where, j, "password", false, &n->password) ||
        !get_bool(l, where, j, "selected", false, &n->selected) ||
        !parse_patterns(l, where, cJSON_GetObjectItemCaseSensitive(j, "patterns"), &n->patterns) ||
        !get_state(l, where, j, "toggle_state", toggle_names, 3, 0, &n->toggle_state) ||
        !get_state(l, where, j, "expand_state", expand_names, 4,
                   n->patterns & FP_EXPAND_COLLAPSE ? 0 : 3, &n->expand_state) ||
        !parse_bounds(l, where, cJSON_GetObjectItemCaseSensitive(j, "bounds"), n) ||
        !parse_faults(l, j, n, where))
        return false;
    const cJSON *labeled_by = cJSON_GetObjectItemCaseSensitive(j, "labeled_by");
    if (labeled_by && !cJSON_IsString(labeled_by))
        return fail(l, where, "\"labeled_by\" must be the id of another element");
    if (labeled_by && !(n->labeled_by = _strdup(labeled_by->valuestring)))
        return fail(l, where, "out of memory");
    const cJSON *hwnd = cJSON_GetObjectItemCaseSensitive(j, "hwnd");
    if (hwnd && !parse_handle(hwnd, &n->hwnd))
        return fail(l, where, "\"hwnd\" must be a handle (\"0x2004e\" or a number)");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
    if (id && !cJSON_IsString(id))
        return fail(l, where, "\"id\" must be a string");
    char fallback[32];
    snprintf(fallback, sizeof fallback, "#%d", n->dfs);
    n->label = id                                      ? _strdup(id->valuestring)
               : n->automation_id && *n->automation_id ? fake_utf8(n->automation_id, -1)
               : n->name && *n->name                   ? fake_utf8(n->name, -1)
                                                       : _strdup(fallback);
    if (!n->label)
        return fail(l, where, "out of memory");
    *out = n;
    return parse_children(l, j, n, where);
}

static bool read_file(const wchar_t *path, char **out, struct loader *l)
{
    *out = NULL;
    HANDLE f = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE)
        return fail(l, "scene", "cannot open the file (error %lu)", GetLastError());
    LARGE_INTEGER size;
    bool ok = GetFileSizeEx(f, &size) && size.QuadPart < SCENE_MAX_BYTES;
    char *text = ok ? malloc((size_t)size.QuadPart + 1) : NULL;
    DWORD got = 0;
    ok = text && ReadFile(f, text, (DWORD)size.QuadPart, &got, NULL) && got == size.QuadPart;
    CloseHandle(f);
    if (!ok) {
        free(text);
        return fail(l, "scene", "cannot read the file (at most %u bytes)", SCENE_MAX_BYTES);
    }
    text[got] = '\0';
    *out = text;
    return true;
}

static bool load(struct loader *l)
{
    wchar_t path[MAX_PATH];
    DWORD n = GetEnvironmentVariableW(L"WINAGENT_UIA_SCENE", path, MAX_PATH);
    if (n == 0 || n >= MAX_PATH)
        return fail(l, "scene", "WINAGENT_UIA_SCENE names no file");
    char *text;
    if (!read_file(path, &text, l))
        return false;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    bool ok = false;
    if (!cJSON_IsObject(doc)) {
        fail(l, "scene", "not a JSON object (near: %.40s)",
             cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
        goto out;
    }
    const cJSON *k;
    cJSON_ArrayForEach(k, doc)
    {
        if (strcmp(k->string, "window") != 0 && strcmp(k->string, "root") != 0 &&
            strcmp(k->string, "honor_timeouts") != 0) {
            fail(l, "scene", "unknown key \"%s\" (keys: window, root, honor_timeouts)", k->string);
            goto out;
        }
    }
    int64_t window = 0;
    if (!parse_handle(cJSON_GetObjectItemCaseSensitive(doc, "window"), &window) || !window) {
        fail(l, "scene", "\"window\" must be the handle of the window the scene describes");
        goto out;
    }
    g_scene.window = (HWND)(intptr_t)window;
    if (!get_bool(l, "scene", doc, "honor_timeouts", true, &g_scene.honor_timeouts))
        goto out;
    const cJSON *root = cJSON_GetObjectItemCaseSensitive(doc, "root");
    if (!root) {
        fail(l, "scene", "\"root\" (the window's element) is missing");
        goto out;
    }
    if (!parse_node(l, root, NULL, "root", &g_scene.root))
        goto out;
    if (!cJSON_GetObjectItemCaseSensitive(root, "hwnd"))
        g_scene.root->hwnd = window;
    ok = true;
out:
    cJSON_Delete(doc);
    return ok;
}

static BOOL CALLBACK load_once(PINIT_ONCE once, void *param, void **ctx)
{
    (void)once;
    (void)param;
    (void)ctx;
    struct loader l = {0};
    InitializeCriticalSection(&g_lock);
    g_start = GetTickCount64();
    open_log();
    if (load(&l)) {
        g_loaded = &g_scene;
        cJSON *o = fake_log_call("scene_loaded", NULL);
        char h[24];
        snprintf(h, sizeof h, "0x%llx", (unsigned long long)(uintptr_t)g_scene.window);
        cJSON_AddStringToObject(o, "window", h);
        cJSON_AddNumberToObject(o, "elements", l.next_dfs);
        fake_log(o);
    } else {
        fprintf(stderr, "uia_fake: %s\n", l.error);
        cJSON *o = fake_log_call("scene_error", NULL);
        cJSON_AddStringToObject(o, "message", l.error);
        fake_log(o);
    }
    return TRUE;
}

struct fake_scene *fake_scene_get(void)
{
    static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    InitOnceExecuteOnce(&once, load_once, NULL, NULL);
    return g_loaded;
}
