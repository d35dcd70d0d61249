/* Benchmark of winagent's own work on a live desktop (run under Wine or on Windows):
 * screen and window capture, whole pixel and tree observations, tree walks of testapp
 * and notepad, click and type latency as testapp sees them, and the agent's own time
 * per step (everything but the model's reply).
 *
 *   bench_desktop --testapp-log PATH [--runs N] [--json]
 *
 * testapp.exe must be running with --log PATH; notepad and bigapp.exe (a 3,000-row list
 * view and a 2,000-item tree: the big window's rows) are optional. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <oleacc.h>
#endif

#include "agent/core/core.h"
#include "agent/core/request/observe.h"
#include "agent/core/request/wire.h"
#include "automation/backend.h"
#include "base/os.h"
#include "base/str.h"

struct stat {
    char name[64];
    double median, p95;
    char note[96];
};

static struct stat stats[64];
static int n_stats;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void record(const char *name, double *t, int n, const char *note)
{
    if (n_stats == (int)(sizeof stats / sizeof stats[0]))
        return;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    struct stat *s = &stats[n_stats++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    s->p95 = t[(int)(0.95 * (n - 1) + 0.5)];
    snprintf(s->note, sizeof s->note, "%s", note ? note : "");
}

/* The median over runs of whole[i] / part[i]: how many times its own capture an
 * observation cost, run by run (the capture's cost moves between runs). */
static double median_ratio(const double *whole, const double *part, int n)
{
    double *r = calloc((size_t)n, sizeof *r);
    if (!r || n <= 0) {
        free(r);
        return 0;
    }
    for (int i = 0; i < n; i++)
        r[i] = part[i] > 0 ? whole[i] / part[i] : 0;
    qsort(r, (size_t)n, sizeof *r, cmp_double);
    double m = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
    free(r);
    return m;
}

/* Lines of the testapp log that contain needle. */
static int count_events(const char *log, const char *needle)
{
    char *text = NULL;
    if (os_read_file(log, 64u << 20, &text, NULL) != WA_E_OK)
        return -1;
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    free(text);
    return n;
}

/* Milliseconds until the count of needle in the log exceeds before (or -1 after 2 s). */
static double wait_event(const char *log, const char *needle, int before, double t0)
{
    while (os_clock_ms() - t0 < 2000) {
        if (count_events(log, needle) > before)
            return os_clock_ms() - t0;
        os_sleep_ms(1);
    }
    return -1;
}

/* s as a JSON string: notes carry window titles, which may hold quotes and
 * backslashes. */
static void print_json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* The topmost window whose title or process holds sel, or 0. */
static uint64_t find(const struct wa_backend *b, const char *sel)
{
    struct wa_window_list l;
    uint64_t h = 0;
    if (backend_list_windows(b, &l) != WA_E_OK)
        return 0;
    for (size_t i = 0; i < l.count && !h; i++)
        if (str_icontains(l.items[i].title, sel) || str_icontains(l.items[i].process, sel))
            h = l.items[i].hwnd;
    wa_window_list_cleanup(&l);
    return h;
}

#ifdef _WIN32
/* The floor a tree walk is measured against: a plain sequential walk of the same
 * window with nothing but the raw calls, each child window's text (WM_GETTEXT), class
 * and rectangle, its MSAA client object with role and state, and list and combo box
 * items by message. */
static const IID iid_acc = {
    0x618736e0, 0x3c3d, 0x11cf, {0x81, 0x0c, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71}};

struct plain {
    int nodes;
};

static void plain_window(HWND h, struct plain *p)
{
    wchar_t text[512], cls[128];
    DWORD_PTR got = 0;
    SendMessageTimeoutW(h, WM_GETTEXT, 512, (LPARAM)text, SMTO_ABORTIFHUNG, 500, &got);
    GetClassNameW(h, cls, 128);
    RECT r;
    GetWindowRect(h, &r);
    p->nodes++;
    IAccessible *acc = NULL;
    if (SUCCEEDED(AccessibleObjectFromWindow(h, (DWORD)OBJID_CLIENT, &iid_acc, (void **)&acc)) &&
        acc) {
        VARIANT self, v;
        VariantInit(&self);
        self.vt = VT_I4;
        self.lVal = CHILDID_SELF;
        VariantInit(&v);
        IAccessible_get_accRole(acc, self, &v);
        VariantClear(&v);
        IAccessible_get_accState(acc, self, &v);
        VariantClear(&v);
        IAccessible_Release(acc);
    }
    bool list = _wcsicmp(cls, L"ListBox") == 0, combo = _wcsicmp(cls, L"ComboBox") == 0;
    if (list || combo) {
        DWORD_PTR n = 0;
        SendMessageTimeoutW(h, list ? LB_GETCOUNT : CB_GETCOUNT, 0, 0, SMTO_ABORTIFHUNG, 500, &n);
        for (int i = 0; i < (int)n && i < 200; i++) {
            SendMessageTimeoutW(h, list ? LB_GETTEXT : CB_GETLBTEXT, (WPARAM)i, (LPARAM)text,
                                SMTO_ABORTIFHUNG, 500, &got);
            p->nodes++;
        }
    }
}

static BOOL CALLBACK plain_child(HWND h, LPARAM lp)
{
    plain_window(h, (struct plain *)lp);
    return TRUE;
}

static int plain_walk(uint64_t hwnd)
{
    struct plain p = {0};
    HWND h = (HWND)(uintptr_t)hwnd;
    plain_window(h, &p);
    EnumChildWindows(h, plain_child, (LPARAM)&p);
    HMENU m = GetMenu(h);
    for (int i = 0, n = m ? GetMenuItemCount(m) : 0; i < n; i++) {
        wchar_t item[128];
        GetMenuStringW(m, (UINT)i, item, 128, MF_BYPOSITION);
        p.nodes++;
    }
    return p.nodes;
}
#endif

/* Changes row `row` of bigapp's list (its name gains or loses " (changed)"), waiting
 * until the program has done it. */
static void change_row(uint64_t big, int row)
{
#ifdef _WIN32
    DWORD_PTR r = 0;
    SendMessageTimeoutW((HWND)(uintptr_t)big, WM_APP + 1, (WPARAM)row, 0, SMTO_ABORTIFHUNG, 2000,
                        &r);
#else
    (void)big;
    (void)row;
#endif
}

/* A session of the core with the default options; NULL (said on stderr) when none. */
static struct session *default_session(struct core *core)
{
    struct session_opts so;
    session_opts_default(&so);
    struct session *s = NULL;
    if (session_new(core, &so, &s)) {
        fprintf(stderr, "bench: no session: %s\n", wa_err_detail());
        return NULL;
    }
    return s;
}

/* Performs one call written as a model writes it; returns the ms it took. *r is the
 * caller's to clean up. */
static double perform_call(struct session *s, const char *call, struct op_result *r)
{
    struct op_request q;
    op_result_init(r);
    double t0 = os_clock_ms();
    if (wire_request_text(call, WIRE_MODEL, NULL, &q) == WA_E_OK)
        core_perform(s, &q, r);
    double ms = os_clock_ms() - t0;
    op_request_cleanup(&q);
    return ms;
}

/* The big window beside testapp, through the core in the same run, so that its cost
 * reads as a ratio: a first observation (a session's first look), an observation after
 * one row changed (the same session's next look), and find of a far row. */
static void bench_big_window(struct core *core, uint64_t app, uint64_t big, int runs, double *t)
{
    char note[96], call[160], app_call[160];
    snprintf(call, sizeof call,
             "{\"action\":\"window_screenshot\",\"window\":\"0x%llx\",\"mode\":\"a11y\"}",
             (unsigned long long)big);
    snprintf(app_call, sizeof app_call,
             "{\"action\":\"window_screenshot\",\"window\":\"0x%llx\",\"mode\":\"a11y\"}",
             (unsigned long long)app);
    double *first = calloc((size_t)runs, sizeof *first),
           *again = calloc((size_t)runs, sizeof *again);
    double *base = calloc((size_t)runs, sizeof *base);
    /* what each look of the big window spent on its capture and on its walk */
    double *first_cap = calloc((size_t)runs, sizeof *first_cap);
    double *first_walk = calloc((size_t)runs, sizeof *first_walk);
    double *again_cap = calloc((size_t)runs, sizeof *again_cap);
    double *again_walk = calloc((size_t)runs, sizeof *again_walk);
    size_t nodes = 0;
    for (int i = 0; i < runs; i++) {
        /* testapp's and the big window's first looks, back to back */
        struct session *s = default_session(core), *sa = default_session(core);
        if (!s || !sa)
            return;
        struct op_result r;
        base[i] = perform_call(sa, app_call, &r);
        op_result_cleanup(&r);
        first[i] = perform_call(s, call, &r);
        first_cap[i] = r.obs.pixels_ms;
        first_walk[i] = r.obs.tree_ms;
        nodes = session_tree(s) ? session_tree(s)->count : 0;
        op_result_cleanup(&r);
        change_row(big, 5);
        again[i] = perform_call(s, call, &r);
        again_cap[i] = r.obs.pixels_ms;
        again_walk[i] = r.obs.tree_ms;
        op_result_cleanup(&r);
        session_free(s);
        session_free(sa);
    }
    snprintf(note, sizeof note, "%zu nodes; %.2fx testapp's in the same run", nodes,
             median_ratio(first, base, runs));
    record("observe bigwin (first look)", first, runs, note);
    record("  first look: capture", first_cap, runs,
           "beside the walk (inside it): rows are known by it");
    record("  first look: walk", first_walk, runs, "waiting for the capture where rows are read");
    record("  observe testapp beside it", base, runs, "");
    snprintf(note, sizeof note, "%.2fx its first look", median_ratio(again, first, runs));
    record("observe bigwin after a row changed", again, runs, note);
    record("  next look: capture", again_cap, runs, "");
    record("  next look: walk", again_walk, runs, "what changed is read, the rest taken");
    for (int i = 0; i < runs; i++) {
        struct session *s = default_session(core);
        if (!s)
            return;
        struct op_result r;
        snprintf(call, sizeof call,
                 "{\"action\":\"find\",\"window\":\"0x%llx\",\"selector\":\"~report-2718*\"}",
                 (unsigned long long)big);
        t[i] = perform_call(s, call, &r);
        snprintf(note, sizeof note, "%zu match%s", r.n_elements, r.n_elements == 1 ? "" : "es");
        op_result_cleanup(&r);
        session_free(s);
    }
    record("find a far row of bigwin", t, runs, note);
    free(first);
    free(again);
    free(base);
    free(first_cap);
    free(first_walk);
    free(again_cap);
    free(again_walk);
}

int main(int argc, char **argv)
{
    int runs = 15;
    const char *log = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--testapp-log") == 0 && i + 1 < argc)
            log = argv[++i];
        else if (strcmp(argv[i], "--json") == 0)
            json = true;
    }
    if (!log || runs < 1 || runs > 1000) {
        fprintf(stderr, "usage: bench_desktop --testapp-log PATH [--runs N] [--json]\n");
        return 1;
    }
    const struct wa_backend *b = backend_default();
    if (b->init && b->init() != WA_E_OK) {
        fprintf(stderr, "bench: backend init failed: %s\n", wa_err_detail());
        return 1;
    }
    uint64_t app = find(b, "winagent testapp"), np = find(b, "notepad");
    uint64_t big = find(b, "winagent bigwin");
    if (!app) {
        fprintf(stderr, "bench: testapp is not running\n");
        return 1;
    }
    double *t = calloc((size_t)runs, sizeof *t);
    struct wa_monitor mons[8];
    size_t nm = 0;
    backend_monitors(b, mons, 8, &nm);
    struct wa_rect screen = nm ? mons[0].rect : (struct wa_rect){0, 0, 1920, 1080};
    char note[96];

    for (int i = 0; i < runs; i++) { /* capture of the whole screen */
        struct wa_image img = {0};
        double t0 = os_clock_ms();
        backend_capture_screen(b, screen, &img);
        t[i] = os_clock_ms() - t0;
        snprintf(note, sizeof note, "%dx%d", img.width, img.height);
        image_cleanup(&img);
    }
    record("capture screen", t, runs, note);

    /* No row for the screen in strips: under Wine 8, strips that each showed the screen
     * as it was cost as much as the whole (21 ms for each third), and strips that came
     * in a few ms held an earlier frame (a window moved 300 ms before was not in them). */

    for (int i = 0; i < runs; i++) {
        struct wa_image img = {0};
        struct wa_rect fr;
        double t0 = os_clock_ms();
        backend_capture_window(b, app, &img, &fr);
        t[i] = os_clock_ms() - t0;
        snprintf(note, sizeof note, "%dx%d", img.width, img.height);
        image_cleanup(&img);
    }
    record("capture testapp window", t, runs, note);

    double *cap_part = calloc((size_t)runs, sizeof *cap_part);
    double *rest_part = calloc((size_t)runs, sizeof *rest_part);
    for (int i = 0; i < runs; i++) { /* capture 1920x1080, downscale 1280, PNG, base64 */
        struct wa_image img = {0};
        struct observation obs;
        observation_init(&obs);
        double t0 = os_clock_ms();
        backend_capture_screen(b, screen, &img);
        double t1 = os_clock_ms();
        observation_set_image(&obs, &img, 1280);
        t[i] = os_clock_ms() - t0;
        cap_part[i] = t1 - t0;
        rest_part[i] = t[i] - cap_part[i];
        snprintf(note, sizeof note, "%dx%d, %zu KB png, %zu KB base64", obs.width, obs.height,
                 obs.png.len / 1024, strlen(obs.png_base64 ? obs.png_base64 : "") / 1024);
        observation_cleanup(&obs);
        image_cleanup(&img);
    }
    char ratio_note[160];
    snprintf(ratio_note, sizeof ratio_note, "%s; %.2fx its capture", note,
             median_ratio(t, cap_part, runs));
    record("pixel observation (screen)", t, runs, ratio_note);
    record("  pixel: capture", cap_part, runs, "");
    record("  pixel: downscale, PNG, base64", rest_part, runs, "");
    free(cap_part);
    free(rest_part);

    for (int i = 0; i < runs; i++) { /* what blacking out restricted windows lists */
        struct wa_window_list l;
        double t0 = os_clock_ms();
        backend_list_visible_windows(b, &l);
        t[i] = os_clock_ms() - t0;
        snprintf(note, sizeof note, "%zu windows, each identified", l.count);
        wa_window_list_cleanup(&l);
    }
    record("list visible windows", t, runs, note);

    const struct {
        const char *name;
        uint64_t hwnd;
    } walks[] = {{"tree walk testapp", app}, {"tree walk notepad", np}};
    for (size_t w = 0; w < 2; w++) {
        if (!walks[w].hwnd)
            continue;
        for (int i = 0; i < runs; i++) {
            struct wa_tree tree;
            struct wa_tree_opts to = {0};
            double t0 = os_clock_ms();
            backend_get_tree(b, walks[w].hwnd, &to, &tree);
            t[i] = os_clock_ms() - t0;
            snprintf(note, sizeof note, "%zu nodes via %s", tree.count,
                     tree.source ? tree.source : "?");
            tree_cleanup(&tree);
        }
        record(walks[w].name, t, runs, note);
#ifdef _WIN32
        for (int i = 0; i < runs; i++) {
            double t0 = os_clock_ms();
            int n = plain_walk(walks[w].hwnd);
            t[i] = os_clock_ms() - t0;
            snprintf(note, sizeof note, "%d windows and items, raw calls (the floor)", n);
        }
        char name[64];
        snprintf(name, sizeof name, "plain walk %s", walks[w].name + 10);
        record(name, t, runs, note);
#endif
    }

    struct observe_opts oo = {.mode = OBS_A11Y, .max_edge = 1280, .tree_budget_ms = 3000};
    for (int i = 0; i < runs; i++) { /* walk + verdict + §5 text, with handles kept */
        struct observation obs;
        struct wa_tree tree;
        observation_init(&obs);
        double t0 = os_clock_ms();
        observe_window(b, app, &oo, NULL, &obs, &tree);
        t[i] = os_clock_ms() - t0;
        snprintf(note, sizeof note, "%zu chars of text", obs.text ? strlen(obs.text) : 0);
        tree_cleanup(&tree);
        observation_cleanup(&obs);
    }
    record("tree observation testapp", t, runs, note);

    /* Latency as the application sees it: from the call to testapp's log line. */
    struct wa_window aw;
    backend_window_info(b, app, &aw);
    struct wa_rect ar = aw.rect;
    wa_window_cleanup(&aw);
    int cx = ar.left + 80, cy = ar.top + 155; /* testapp's OK button */
    /* A window that came up late (the bench starts regedit and notepad beside testapp)
     * can lie over the button: bring testapp back until it is the one a click reaches. */
    uint64_t at = 0;
    for (int i = 0; i < 5; i++) {
        backend_focus_window(b, app);
        wa_err_clear();
        if (backend_window_at(b, cx, cy, &at) == WA_E_OK && at == app)
            break;
        os_sleep_ms(200);
    }
    char under[96] = "";
    if (at != app) {
        struct wa_window other;
        if (at && backend_window_info(b, at, &other) == WA_E_OK) {
            snprintf(under, sizeof under, "; under the button: %s \"%.40s\"", other.process,
                     other.title ? other.title : "");
            wa_window_cleanup(&other);
        } else {
            snprintf(under, sizeof under, "; testapp is not under the button");
        }
        wa_err_clear();
    }
    int ok = 0;
    for (int i = 0; i < runs; i++) {
        int before = count_events(log, "\"control\":\"OK\"");
        double t0 = os_clock_ms();
        backend_click(b, cx, cy, WA_BUTTON_LEFT, 1);
        t[i] = wait_event(log, "\"control\":\"OK\"", before, t0);
        ok += t[i] >= 0;
        os_sleep_ms(30);
    }
    snprintf(note, sizeof note, "%d/%d clicks arrived%s", ok, runs, under);
    record("click latency", t, runs, note);

    ok = 0;
    for (int i = 0; i < runs; i++) {
        backend_click(b, ar.left + 200, ar.top + 72, WA_BUTTON_LEFT, 1); /* the edit */
        os_sleep_ms(30);
        int before = count_events(log, "\"text_changed\"");
        double t0 = os_clock_ms();
        backend_type_text(b, "bench");
        /* five characters: five text_changed lines */
        double done = -1;
        while (os_clock_ms() - t0 < 3000) {
            if (count_events(log, "\"text_changed\"") >= before + 5) {
                done = os_clock_ms() - t0;
                break;
            }
            os_sleep_ms(1);
        }
        t[i] = done;
        ok += done >= 0;
    }
    snprintf(note, sizeof note, "5 characters, %d/%d arrived%s", ok, runs, under);
    record("type latency", t, runs, note);

    /* The agent's own time for one step: a click by coordinates, then its annotation,
     * then the fresh observation of the window (mode auto); no settle pause. Measured
     * as the dispatcher runs it, in three stages, so the rows show where time goes. */
    static const struct {
        const char *name;
        bool annotate, observe;
        const char *tag; /* of its sub-rows, so each row's name is its own */
    } stages[] = {
        {"agent act only (click)", false, false, "act"},
        {"agent act + annotate", true, false, "act+annotate"},
        {"agent step (act+annotate+observe)", true, true, "step"},
    };
    struct core_config cc = {.be = b, .max_actions_per_s = 1000};
    struct core *core = NULL;
    if (core_new(&cc, &core) != WA_E_OK) {
        fprintf(stderr, "bench: no core: %s\n", wa_err_detail());
        return 1;
    }
    char hwnd_text[32];
    snprintf(hwnd_text, sizeof hwnd_text, "0x%llx", (unsigned long long)app);
    { /* the screen as an agent gets it: through the core, restricted windows blacked out */
        struct session *s = default_session(core);
        if (!s)
            return 1;
        double *cap = calloc((size_t)runs, sizeof *cap), *enc = calloc((size_t)runs, sizeof *enc);
        for (int i = 0; i < runs; i++) {
            struct op_result r;
            t[i] = perform_call(s, "{\"action\":\"screenshot\"}", &r);
            cap[i] = r.obs.capture_ms;
            enc[i] = r.obs.encode_ms;
            snprintf(note, sizeof note, "%dx%d", r.img_w, r.img_h);
            op_result_cleanup(&r);
        }
        char ratio_note[160];
        snprintf(ratio_note, sizeof ratio_note, "%s; %.2fx its capture", note,
                 median_ratio(t, cap, runs));
        record("screenshot through the core", t, runs, ratio_note);
        record("  core: capture and blackout", cap, runs, "");
        record("  core: downscale, PNG, base64", enc, runs, "");
        free(cap);
        free(enc);
        session_free(s);
    }
    /* A window's tree observation through the core, with no action before it (the first
     * look of a task, `state`, an MCP observe): the walk, and beside it a capture for
     * telling later whether the tree still holds. */
    for (size_t w = 0; w < 2; w++) {
        if (!walks[w].hwnd)
            continue;
        struct session *s = default_session(core);
        if (!s)
            return 1;
        char call[128];
        snprintf(call, sizeof call,
                 "{\"action\":\"window_screenshot\",\"window\":\"0x%llx\",\"mode\":\"a11y\"}",
                 (unsigned long long)walks[w].hwnd);
        double *walk = calloc((size_t)runs, sizeof *walk);
        for (int i = 0; i < runs; i++) {
            struct op_result r;
            t[i] = perform_call(s, call, &r);
            walk[i] = r.obs.tree_ms;
            snprintf(note, sizeof note, "%s", r.obs.kind == OBS_TREE ? "a tree" : "no tree");
            op_result_cleanup(&r);
        }
        char name[64];
        snprintf(name, sizeof name, "observe %s through the core", walks[w].name + 10);
        record(name, t, runs, note);
        snprintf(name, sizeof name, "  core: walk of %s", walks[w].name + 10);
        record(name, walk, runs, "");
        free(walk);
        session_free(s);
    }
    if (big)
        bench_big_window(core, app, big, runs, t);
    for (size_t st = 0; st < 3; st++) {
        struct session_opts so;
        session_opts_default(&so);
        so.model_names = true;
        so.after = stages[st].observe ? AFTER_OBSERVE : AFTER_NONE;
        so.annotate = stages[st].annotate;
        so.settle_ms = 0;
        struct session *s = NULL;
        struct op_request pin;
        op_request_init(&pin, op_def(OP_FOCUS_WINDOW));
        op_request_set_text(&pin, ARG_WINDOW, hwnd_text);
        if (session_new(core, &so, &s) || session_pin_window(s, &pin.window)) {
            fprintf(stderr, "bench: no session: %s\n", wa_err_detail());
            return 1;
        }
        op_request_cleanup(&pin);
        double *settle = calloc((size_t)runs, sizeof *settle);
        double *own = calloc((size_t)runs, sizeof *own);
        /* the phases of the own time, as the result names them */
        enum {
            PH_WAIT,
            PH_BEFORE,
            PH_ACT,
            PH_ANNOTATE,
            PH_OBSERVE,
            PH_AFTER,
            PH_DIFF,
            PH_RECORD,
            PH_OTHER,
            PH_N
        };
        static const char *const phase_names[PH_N] = {"wait",     "look before", "act",
                                                      "annotate", "observe",     "look after",
                                                      "diff",     "record",      "unattributed"};
        static const char *const phase_notes[PH_N] = {
            "for the session, the rate limit and the input lock",
            "the tree/image the change report compares against (reused when it holds)",
            "sending the click, checks of the receiver and focus",
            "the debug image of the click",
            "capture, encode and tree of the observation returned",
            "the rest of the look after: hashes, window checks, the tree for the change report",
            "what changed, against the look before",
            "the window's state in the result, the audit line",
            "the rest, named by no phase"};
        double *phase[PH_N];
        for (int ph = 0; ph < PH_N; ph++)
            phase[ph] = calloc((size_t)runs, sizeof *phase[ph]);
        for (int i = 0; i < runs; i++) {
            struct op_result r;
            t[i] = perform_call(s, "{\"action\":\"click\",\"x\":80,\"y\":230}", &r);
            settle[i] = r.settle_ms;
            own[i] = t[i] - r.settle_ms;
            phase[PH_WAIT][i] = r.wait_ms;
            phase[PH_BEFORE][i] = r.before_ms;
            phase[PH_ACT][i] = r.action_ms;
            phase[PH_ANNOTATE][i] = r.annotate_ms;
            phase[PH_OBSERVE][i] = r.obs.capture_ms + r.obs.encode_ms + r.obs.tree_ms;
            phase[PH_AFTER][i] = r.after_ms;
            phase[PH_DIFF][i] = r.diff_ms;
            phase[PH_RECORD][i] = r.record_ms;
            phase[PH_OTHER][i] = own[i];
            for (int ph = 0; ph < PH_OTHER; ph++)
                phase[PH_OTHER][i] -= phase[ph][i];
            snprintf(note, sizeof note, "%s",
                     r.obs.kind == OBS_TREE    ? "observation: tree"
                     : r.obs.kind == OBS_IMAGE ? "observation: image"
                                               : "");
            op_result_cleanup(&r);
        }
        record(stages[st].name, t, runs, note);
        char name[64];
        snprintf(name, sizeof name, "  %s: settle", stages[st].tag);
        record(name, settle, runs, "waiting until the click's effect stopped changing");
        snprintf(name, sizeof name, "  %s: own time", stages[st].tag);
        record(name, own, runs, "");
        for (int ph = 0; ph < PH_N; ph++) {
            snprintf(name, sizeof name, "    %s: %s", stages[st].tag, phase_names[ph]);
            record(name, phase[ph], runs, phase_notes[ph]);
            free(phase[ph]);
        }
        free(settle);
        free(own);
        session_free(s);
    }
    core_free(core);

    if (json) {
        printf("[");
        for (int i = 0; i < n_stats; i++) {
            printf("%s{\"name\":", i ? "," : "");
            print_json_string(stats[i].name);
            printf(",\"median_ms\":%.2f,\"p95_ms\":%.2f,\"note\":", stats[i].median, stats[i].p95);
            print_json_string(stats[i].note);
            printf("}");
        }
        printf("]\n");
    } else {
        printf("%-36s %10s %10s  %s\n", "desktop (live, under this OS)", "median ms", "p95 ms", "");
        for (int i = 0; i < n_stats; i++)
            printf("%-36s %10.2f %10.2f  %s\n", stats[i].name, stats[i].median, stats[i].p95,
                   stats[i].note);
    }
    free(t);
    return 0;
}
