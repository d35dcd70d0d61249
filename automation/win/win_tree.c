/* get_tree for Windows: the walk on a COM worker thread, UIA first, MSAA after. */
#include "automation/win/win_tree.h"

#include <windows.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/desktop/win_capture.h"
#include "automation/win/desktop/win_events.h"
#include "automation/win/desktop/win_menu.h"
#include "automation/win/msaa/win_msaa.h"
#include "automation/win/msaa/win_msaa_reuse.h"
#include "automation/win/desktop/win_tree_job.h"
#include "automation/win/win_uia.h"
#include "automation/win/desktop/win_window.h"
#include "base/os.h"
#include "base/str.h"

#define GRACE_MS     1000 /* past the walk's budget before the caller gives up */
#define MSAA_MIN_MS  500  /* what the MSAA walk gets at least after a failed UIA one */
#define POPUP_MIN_MS 300  /* what the walk of open popup menus gets at least */
/* A bar's items are walked apart only beside a walk of at least this many child
 * windows: a thread of its own costs more than it saves beside a small one (notepad's
 * walk took 12 ms longer with it). */
#define BAR_APART_MIN_CHILDREN 8

struct tree_job {
    HWND hwnd;
    struct wa_tree_opts opts;
    struct win_msaa_reuse *reuse; /* what the last walk of the window read, or NULL */
    uint64_t stamp;               /* win_events' moment of the walk */
    struct wa_tree tree;          /* the worker's until it has finished (or was captured) */
    struct wa_tree menus;         /* the open popup menus, walked apart, until spliced into tree */
    struct win_pixels *pixels;    /* the capture beside the walk (opts.pixels), or NULL */
};

static void tree_job_free(void *p)
{
    struct tree_job *j = p;
    tree_cleanup(&j->tree);
    tree_cleanup(&j->menus);
    win_msaa_reuse_free(j->reuse);
    win_pixels_release(j->pixels);
    free(j);
}

static wa_err walk_with(const struct tree_source_ops *src, void *ctx, struct tree_job *j,
                        int budget_ms, void (*release)(void *))
{
    struct tree_walk_opts wo = {
        .max_nodes = j->opts.max_nodes,
        .budget_ms = budget_ms,
        .keep_handles = j->opts.keep_handles,
    };
    j->tree.release_handle = release;
    return tree_walk(src, ctx, &wo, &j->tree);
}

/* The open popup menus of the window's thread, walked apart (they are top-level
 * windows of their own) into j->menus; nothing when none is open. */
static void walk_popups(struct tree_job *j, struct win_gate *gate)
{
    HWND popups[WIN_MENU_POPUPS_MAX];
    size_t n = win_menu_popups(j->hwnd, popups, WIN_MENU_POPUPS_MAX);
    struct win_msaa_ctx *m = NULL;
    if (!n || win_msaa_open_popups(j->hwnd, popups, n, gate, &m) != WA_E_OK)
        return;
    struct tree_walk_opts wo = {
        .max_nodes = j->opts.max_nodes / 2,
        .budget_ms = j->opts.budget_ms / 3 > POPUP_MIN_MS ? j->opts.budget_ms / 3 : POPUP_MIN_MS,
        .keep_handles = j->opts.keep_handles,
    };
    j->menus.release_handle = win_msaa_release_handle;
    if (tree_walk(&win_msaa_source, m, &wo, &j->menus) != WA_E_OK)
        tree_cleanup(&j->menus);
    win_msaa_close(m);
}

/* The open menus first: walked apart, or found inside a UIA tree. */
static wa_err add_menus(struct tree_job *j)
{
    bool inside = false;
    for (size_t i = 0; i < j->tree.count && !inside; i++)
        inside = tree_node_is_open_menu(&j->tree.nodes[i]);
    if (inside)
        return tree_hoist_menus(&j->tree);
    /* An MSAA tree keeps the popups' handles (the same kind as its own). */
    bool keep = j->opts.keep_handles && j->tree.release_handle == win_msaa_release_handle;
    wa_err e = tree_splice_first(&j->tree, &j->menus, keep);
    j->tree.truncated |= j->menus.truncated;
    j->tree.timed_out |= j->menus.timed_out;
    return e;
}

/* A menu bar's items, walked on a worker of their own while the window's walk goes
 * on: a program that serves its bar's object answers each item by cross-process COM,
 * and under Wine those calls cost a third of a walk of testapp when made in turn. */
struct bar_job {
    HWND hwnd;
    bool responsive;              /* the window's thread answered the walk of the window */
    struct win_msaa_reuse *reuse; /* what the last walk read of the bar (a reference) */
    struct win_pixels *pixels;    /* the capture beside the walks (a reference), or NULL */
    struct tree_walk_opts opts;
    struct wa_tree tree;
};

static void bar_job_free(void *p)
{
    struct bar_job *b = p;
    tree_cleanup(&b->tree);
    win_msaa_reuse_free(b->reuse);
    win_pixels_release(b->pixels);
    free(b);
}

static wa_err bar_job_run(void *arg, struct win_gate *gate)
{
    struct bar_job *b = arg;
    struct win_msaa_ctx *m = NULL;
    wa_err e = win_msaa_open_menubar(b->hwnd, gate, b->responsive, &m);
    if (!e) {
        win_msaa_reuse(m, b->reuse);
        win_msaa_beside(m, b->pixels);
        b->tree.release_handle = win_msaa_release_handle;
        e = tree_walk(&win_msaa_source, m, &b->opts, &b->tree);
        b->tree.taken = win_msaa_taken(m);
    }
    win_msaa_close(m);
    return e;
}

static BOOL CALLBACK count_child(HWND h, LPARAM lp)
{
    (void)h;
    return ++*(int *)lp < BAR_APART_MIN_CHILDREN;
}

/* The job, and in *out its state: the caller's to read once the job has finished or
 * was captured, until it releases the job; NULL when the window has no menu bar, or
 * too few child windows for the bar's walk to pay for its thread. */
static struct win_job *start_bar_walk(struct tree_job *j, int budget_ms, bool responsive,
                                      struct bar_job **out)
{
    *out = NULL;
    int children = 0;
    if (!GetMenu(j->hwnd))
        return NULL;
    EnumChildWindows(j->hwnd, count_child, (LPARAM)&children);
    if (children < BAR_APART_MIN_CHILDREN)
        return NULL;
    struct bar_job *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->hwnd = j->hwnd;
    b->reuse = win_msaa_reuse_ref(j->reuse);
    b->pixels = win_pixels_ref(j->pixels);
    b->responsive = responsive;
    b->opts = (struct tree_walk_opts){
        .max_nodes = j->opts.max_nodes,
        .budget_ms = budget_ms,
        .keep_handles = j->opts.keep_handles,
    };
    tree_init(&b->tree);
    struct win_job *job = NULL;
    if (win_job_start(bar_job_run, b, bar_job_free, &job) != WA_E_OK)
        return NULL; /* b is freed: the window's walk reads the bar itself */
    *out = b;
    return job;
}

/* Waits for the walk of the bar and puts its items under the window's MenuBar; a bar
 * whose items did not come in time is marked unreadable. */
static void join_bar_walk(struct tree_job *j, struct win_job *job, struct bar_job *b, int wait_ms,
                          struct win_gate *gate)
{
    size_t at = 0;
    for (size_t i = 1; i < j->tree.count && !at; i++)
        if (j->tree.nodes[i].parent == 0 && j->tree.nodes[i].type &&
            strcmp(j->tree.nodes[i].type, "MenuBar") == 0)
            at = i;
    wa_err result = WA_E_TIMEOUT;
    bool captured = false;
    win_gate_leave(gate);
    wa_err e = win_job_wait(job, wait_ms, &result, &captured);
    win_gate_enter(gate);
    bool got = (e == WA_E_OK && result == WA_E_OK) || (captured && b->tree.count > 0);
    if (at && got) {
        j->tree.nodes[at].items_unreadable = b->tree.nodes[0].items_unreadable;
        tree_splice_under(&j->tree, at, &b->tree, j->opts.keep_handles);
        j->tree.taken += b->tree.taken;
        j->tree.truncated |= b->tree.truncated;
        tree_cap_nodes(&j->tree, (size_t)j->opts.max_nodes);
    } else if (at) {
        j->tree.nodes[at].items_unreadable = true;
    }
    j->tree.timed_out |= e != WA_E_OK || (got && b->tree.timed_out);
    win_job_release(job);
}

/* The worker: UIA when it is there and gives more than a bare root, else MSAA. */
static wa_err tree_job_run(void *arg, struct win_gate *gate)
{
    struct tree_job *j = arg;
    int64_t start = os_now_ms();
    j->stamp = win_events_now(); /* what is heard from now on is newer than this walk */
    walk_popups(j, gate);
    if (j->menus.count > 1)
        j->opts.max_nodes -= (int)j->menus.count - 1; /* the popups' nodes count too */
    int budget = j->opts.budget_ms - (int)(os_now_ms() - start);
    if (budget < MSAA_MIN_MS)
        budget = MSAA_MIN_MS;
    if (!j->opts.prefer_msaa) {
        struct win_uia_ctx *u = NULL;
        if (win_uia_open(j->hwnd, gate, budget, &u) == WA_E_OK) {
            if (j->pixels) { /* UIA's rows are read as the walk goes: the pixels first */
                win_gate_leave(gate);
                win_pixels_wait(j->pixels, INFINITE);
                win_gate_enter(gate);
            }
            wa_err e = walk_with(&win_uia_source, u, j, budget, win_uia_release_handle);
            win_uia_close(u);
            if (e == WA_E_OK && j->tree.count > 1)
                return add_menus(j);
            tree_cleanup(&j->tree);
        }
        budget -= (int)(os_now_ms() - start);
        if (budget < MSAA_MIN_MS)
            budget = MSAA_MIN_MS;
    }
    int64_t msaa_start = os_now_ms();
    struct bar_job *b = NULL;
    struct win_job *bar = NULL;
    struct win_msaa_ctx *m = NULL;
    wa_err e = win_msaa_open(j->hwnd, gate, &m);
    if (e == WA_E_OK) {
        win_msaa_reuse(m, j->reuse);
        win_msaa_beside(m, j->pixels);
        bool responsive = win_msaa_root_responsive(m);
        bar = start_bar_walk(j, budget, responsive, &b);
        if (bar)
            win_msaa_menubar_apart(m);
        e = walk_with(&win_msaa_source, m, j, budget, win_msaa_release_handle);
        j->tree.taken = win_msaa_taken(m);
    }
    win_msaa_close(m);
    if (bar) {
        int left = budget - (int)(os_now_ms() - msaa_start);
        join_bar_walk(j, bar, b, e ? 0 : left > POPUP_MIN_MS ? left : POPUP_MIN_MS, gate);
    }
    return e ? e : add_menus(j);
}

/* A partial tree from a captured worker: the worker may still be inside a call on
 * one of its elements, so the handles are left to it (leaked, not released). */
static void drop_handles(struct wa_tree *t)
{
    for (size_t i = 0; i < t->count; i++)
        t->nodes[i].handle = NULL;
    t->release_handle = NULL;
    t->timed_out = true;
}

wa_err win_get_tree(uint64_t hwnd, const struct wa_tree_opts *o, struct wa_tree *out)
{
    tree_init(out);
    HWND h = (HWND)(uintptr_t)hwnd;
    if (!h || !IsWindow(h))
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "no window 0x%llx", (unsigned long long)hwnd);
    struct tree_job *j = calloc(1, sizeof *j);
    if (!j)
        return wa_fail(WA_E_NOMEM, "out of memory");
    j->hwnd = h;
    if (o)
        j->opts = *o;
    j->opts.prev = NULL; /* the caller's: what the walk may take of it is copied now */
    j->opts.prev_same = NULL;
    win_events_listen();
    bool *same = NULL; /* with no worker for the capture, it is taken before the walk */
    if (o && o->pixels && !(j->pixels = win_pixels_start(h)))
        same = backend_pixels_first(win_capture_window, hwnd, o);
    else if (o && o->pixels)
        memset(o->pixels, 0, sizeof *o->pixels);
    if (o && o->prev && o->prev->hwnd == hwnd)
        j->reuse = win_msaa_reuse_new(o->prev, o->prev_same ? o->prev_same : same, j->pixels);
    free(same);
    if (j->opts.max_nodes <= 0)
        j->opts.max_nodes = 500;
    if (j->opts.budget_ms <= 0)
        j->opts.budget_ms = 3000;
    tree_init(&j->tree);
    tree_init(&j->menus);
    int budget = j->opts.budget_ms;

    int64_t start = os_now_ms();
    struct win_job *job = NULL;
    wa_err e = win_job_start(tree_job_run, j, tree_job_free, &job);
    if (e)
        return e;
    wa_err result = WA_E_OK;
    bool captured = false;
    e = win_job_wait(job, budget + GRACE_MS, &result, &captured);
    /* The capture beside the walk: not after a walk given up on (its threads may still
     * be reading it). */
    if (j->pixels && e == WA_E_OK &&
        !win_pixels_take(j->pixels, GRACE_MS, &o->pixels->img, &o->pixels->frame, &o->pixels->ms))
        memset(o->pixels, 0, sizeof *o->pixels);
    if (e == WA_E_OK) {
        e = result;
        if (e == WA_E_OK) {
            *out = j->tree;
            out->stamp = j->stamp;
            tree_init(&j->tree);
        }
    } else if (captured && j->tree.count > 0) {
        *out = j->tree;
        tree_init(&j->tree);
        drop_handles(out);
        e = WA_E_OK;
    } else {
        e = wa_fail(WA_E_TIMEOUT, "window 0x%llx did not answer: no tree within %d ms",
                    (unsigned long long)hwnd, budget + GRACE_MS);
    }
    win_job_release(job);
    if (e) {
        tree_cleanup(out);
        return e;
    }
    out->hwnd = hwnd;
    RECT fr;
    if (win_window_frame(h, &fr))
        out->frame = (struct wa_rect){fr.left, fr.top, fr.right, fr.bottom};
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    out->title = win_window_title(h);
    out->process = win_process_name(pid);
    out->walk_ms = (double)(os_now_ms() - start);
    if (!out->title || !out->process) {
        tree_cleanup(out);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    return WA_E_OK;
}

wa_err win_open_menus(uint64_t hwnd, uint64_t *out, size_t max, size_t *count)
{
    HWND h = (HWND)(uintptr_t)hwnd, popups[WIN_MENU_POPUPS_MAX];
    *count = 0;
    if (!h || !IsWindow(h))
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "no window 0x%llx", (unsigned long long)hwnd);
    size_t n = win_menu_popups(h, popups, max < WIN_MENU_POPUPS_MAX ? max : WIN_MENU_POPUPS_MAX);
    for (size_t i = 0; i < n; i++)
        out[i] = (uint64_t)(uintptr_t)popups[i];
    *count = n;
    return WA_E_OK;
}

/* ---- items of long collections beyond what a walk lists ---- */

#define FIND_MS 10000 /* a search of every item of a collection, at most */

struct find_job {
    HWND root, h;
    struct wa_item_query q;
    char *name, *runtime_id; /* q's strings, owned */
    size_t max, n;
    void **handles;
    struct tree_element_info *infos;
};

static void find_job_free(void *p)
{
    struct find_job *f = p;
    for (size_t i = 0; i < f->n; i++) {
        win_msaa_release_handle(f->handles[i]);
        tree_element_info_cleanup(&f->infos[i]);
    }
    free(f->handles);
    free(f->infos);
    free(f->name);
    free(f->runtime_id);
    free(f);
}

static wa_err find_job_run(void *arg, struct win_gate *gate)
{
    struct find_job *f = arg;
    return win_msaa_find_items(f->root, f->h, &f->q, gate, f->handles, f->infos, f->max, &f->n);
}

/* Whether node `parent` of t holds the item info names already. */
static bool holds_item(const struct wa_tree *t, size_t parent, const struct tree_element_info *info)
{
    for (size_t i = parent + 1; i < t->count; i++) {
        const struct wa_node *n = &t->nodes[i];
        if (n->parent != (int)parent || !n->coll_item)
            continue;
        if (info->runtime_id ? n->runtime_id && strcmp(n->runtime_id, info->runtime_id) == 0
                             : n->item_index == info->item_index)
            return true;
    }
    return false;
}

wa_err win_find_items(struct wa_tree *t, size_t index, const struct wa_item_query *q, size_t max,
                      size_t *added)
{
    *added = 0;
    const struct wa_node *node = &t->nodes[index];
    HWND h = (HWND)(uintptr_t)node->hwnd;
    if (!t->source || strcmp(t->source, "msaa") != 0)
        return wa_fail(WA_E_UNSUPPORTED, "only the HWND tree's collections are searched beyond "
                                         "what they list");
    if (!h || !IsWindow(h))
        return wa_fail(WA_E_STALE_REF, "the collection's window is gone");
    struct find_job *f = calloc(1, sizeof *f);
    if (!f)
        return wa_fail(WA_E_NOMEM, "out of memory");
    f->root = (HWND)(uintptr_t)t->hwnd;
    f->h = h;
    f->q = *q;
    f->max = max;
    f->name = str_dup(q->name);
    f->runtime_id = str_dup(q->runtime_id);
    f->q.name = f->name;
    f->q.runtime_id = f->runtime_id;
    f->handles = calloc(max ? max : 1, sizeof *f->handles);
    f->infos = calloc(max ? max : 1, sizeof *f->infos);
    if (!f->handles || !f->infos || (q->name && !f->name) || (q->runtime_id && !f->runtime_id)) {
        find_job_free(f);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    struct win_job *job = NULL;
    wa_err result;
    wa_err e = win_job_run(find_job_run, f, find_job_free, FIND_MS, &result, &job);
    if (!job)
        return e;
    if (e == WA_E_OK)
        e = result;
    else
        e = wa_fail(WA_E_TIMEOUT, "the collection was not searched within %d ms", FIND_MS);
    for (size_t i = 0; e == WA_E_OK && i < f->n; i++) {
        if (holds_item(t, index, &f->infos[i]))
            continue;
        int at = tree_add_node(t, (int)index, &f->infos[i]);
        if (at < 0) {
            e = wa_fail(WA_E_NOMEM, "out of memory");
            break;
        }
        if (t->release_handle) { /* the tree's now */
            t->nodes[at].handle = f->handles[i];
            f->handles[i] = NULL;
        }
        (*added)++;
    }
    win_job_release(job);
    return e;
}
