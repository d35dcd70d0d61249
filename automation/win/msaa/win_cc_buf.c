/* Buffers in a target process and the messages that use them: one buffer per process
 * for single items, blocks laid out for a batch of messages sent together, and where an
 * item's rectangle puts it on the screen. */
#include "automation/win/msaa/win_cc_buf.h"

#include <commctrl.h>
#include <psapi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "automation/msaa_roles.h"
#include "base/win/win_utf8.h"
#include "base/dynbuf.h"
#include "base/str.h"

#define MESSAGE_MS 500 /* per message */

_Static_assert(sizeof(TVITEMEXW) <= OFF_RECT && sizeof(LVITEMW) <= OFF_RECT &&
                   sizeof(TCITEMW) <= OFF_RECT && sizeof(NMTTDISPINFOW) <= OFF_RECT &&
                   sizeof(HDITEMW) <= OFF_RECT,
               "item structures fit the buffer");
void win_cc_buf_columns_cleanup(struct columns *c)
{
    for (int i = 0; i < COLUMNS_MAX; i++)
        free(c->names[i]);
    memset(c, 0, sizeof *c);
}

bool win_cc_buf_columns_copy(const struct columns *from, struct columns *to)
{
    win_cc_buf_columns_cleanup(to);
    to->list = from->list;
    to->header = from->header;
    to->count = from->count;
    for (int i = 0; i < COLUMNS_MAX; i++)
        if (from->names[i] && !(to->names[i] = str_dup(from->names[i]))) {
            win_cc_buf_columns_cleanup(to);
            return false;
        }
    return true;
}

struct columns *win_cc_buf_columns_dup(const struct columns *from)
{
    struct columns *c = calloc(1, sizeof *c);
    if (c && !win_cc_buf_columns_copy(from, c)) {
        free(c);
        c = NULL;
    }
    return c;
}

void win_cc_buf_columns_free(struct columns *c)
{
    if (c)
        win_cc_buf_columns_cleanup(c);
    free(c);
}
/* The structures we write are laid out for our own bitness. */
static bool same_bitness(HANDLE p)
{
    BOOL ours = FALSE, theirs = FALSE;
    return IsWow64Process(GetCurrentProcess(), &ours) && IsWow64Process(p, &theirs) &&
           ours == theirs;
}

/* ---- the target's memory, kept from one walk to the next ----
 * Under Wine each VirtualAllocEx and VirtualFreeEx in another process is a round trip to
 * it, and opening it three calls more: a later look of a window with a list view and a
 * tree view made two opens and eight of those (0.5 ms). What a walk is done with is kept
 * here for the next, a few regions per process while it lives, and freed at exit. A
 * handle kept open also keeps the process's id from being given to another. */
#define KEPT_PROCS   8
#define KEPT_REGIONS 4 /* per process */

struct region {
    char *base;
    size_t size;
};

struct kept_proc {
    DWORD pid;
    HANDLE process; /* NULL: a free slot */
    bool usable;    /* our bitness: its buffers can be laid out here */
    int users;      /* remotes holding it */
    struct region free[KEPT_REGIONS];
    int nfree;
};

static struct kept_proc kept_procs[KEPT_PROCS];
static SRWLOCK kept_lock = SRWLOCK_INIT;

static bool exited(HANDLE process)
{
    return WaitForSingleObject(process, 0) != WAIT_TIMEOUT;
}

/* Frees what p keeps and closes it. Call with kept_lock held, p unused. */
static void kept_drop(struct kept_proc *p)
{
    bool alive = !exited(p->process);
    for (int i = 0; alive && i < p->nfree; i++)
        VirtualFreeEx(p->process, p->free[i].base, 0, MEM_RELEASE);
    CloseHandle(p->process);
    memset(p, 0, sizeof *p);
}

/* Process pid as kept, opened now when it is not kept (or has exited since); NULL when
 * there is no room for it or it cannot be opened. Call with kept_lock held. */
static struct kept_proc *kept_take(DWORD pid)
{
    struct kept_proc *room = NULL;
    for (int i = 0; i < KEPT_PROCS; i++) {
        struct kept_proc *p = &kept_procs[i];
        if (p->process && p->pid == pid && !p->users && exited(p->process))
            kept_drop(p); /* its memory went with it */
        if (p->process && p->pid == pid) {
            p->users++;
            return p;
        }
        if (!room && (!p->process || !p->users))
            room = p;
    }
    if (!room)
        return NULL;
    if (room->process)
        kept_drop(room);
    room->process = OpenProcess(PROCESS_VM_OPERATION | PROCESS_VM_READ | PROCESS_VM_WRITE |
                                    PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE,
                                FALSE, pid);
    if (!room->process)
        return NULL;
    room->pid = pid;
    room->usable = same_bitness(room->process);
    room->users = 1;
    return room;
}

/* A region of at least size bytes in p's process (*cap: its size): the smallest kept one
 * that holds it, else a new one; NULL when none could be made. */
static char *region_take(struct kept_proc *p, size_t size, size_t *cap)
{
    AcquireSRWLockExclusive(&kept_lock);
    int best = -1;
    for (int i = 0; i < p->nfree; i++)
        if (p->free[i].size >= size && (best < 0 || p->free[i].size < p->free[best].size))
            best = i;
    char *base = NULL;
    if (best >= 0) {
        base = p->free[best].base;
        *cap = p->free[best].size;
        p->free[best] = p->free[--p->nfree];
    }
    ReleaseSRWLockExclusive(&kept_lock);
    if (!base &&
        (base = VirtualAllocEx(p->process, NULL, size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE)))
        *cap = size;
    return base;
}

/* Region base (of cap bytes) back to what p keeps, or freed when it keeps enough. */
static void region_give(struct kept_proc *p, char *base, size_t cap)
{
    AcquireSRWLockExclusive(&kept_lock);
    bool keep = p->nfree < KEPT_REGIONS;
    if (keep)
        p->free[p->nfree++] = (struct region){base, cap};
    ReleaseSRWLockExclusive(&kept_lock);
    if (!keep)
        VirtualFreeEx(p->process, base, 0, MEM_RELEASE);
}

void win_cc_buf_remote_done(struct remote *r)
{
    if (!r->kept)
        return;
    if (r->base && !r->leak)
        region_give(r->kept, r->base, r->cap);
    AcquireSRWLockExclusive(&kept_lock);
    r->kept->users--;
    ReleaseSRWLockExclusive(&kept_lock);
    memset(r, 0, sizeof *r);
}

void win_cc_buf_kept_free(void)
{
    AcquireSRWLockExclusive(&kept_lock);
    for (int i = 0; i < KEPT_PROCS; i++)
        if (kept_procs[i].process && !kept_procs[i].users)
            kept_drop(&kept_procs[i]);
    ReleaseSRWLockExclusive(&kept_lock);
}

struct remote *win_cc_buf_remote_for(struct win_cc *cc, HWND h)
{
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    for (int i = 0; i < cc->count; i++)
        if (cc->procs[i].pid == pid)
            return cc->procs[i].base ? &cc->procs[i] : NULL;
    if (cc->count == (int)(sizeof cc->procs / sizeof cc->procs[0]))
        return NULL;
    struct remote *r = &cc->procs[cc->count++];
    r->pid = pid;
    AcquireSRWLockExclusive(&kept_lock);
    r->kept = pid ? kept_take(pid) : NULL;
    ReleaseSRWLockExclusive(&kept_lock);
    if (r->kept && r->kept->usable) {
        r->process = r->kept->process;
        r->base = region_take(r->kept, REMOTE_SIZE, &r->cap);
    }
    return r->base ? r : NULL;
}

bool win_cc_buf_put(struct remote *r, size_t off, const void *data, size_t n)
{
    SIZE_T done = 0;
    return WriteProcessMemory(r->process, r->base + off, data, n, &done) && done == n;
}

bool win_cc_buf_get(struct remote *r, size_t off, void *data, size_t n)
{
    SIZE_T done = 0;
    return ReadProcessMemory(r->process, r->base + off, data, n, &done) && done == n;
}

LPARAM win_cc_buf_at(struct remote *r, size_t off)
{
    return (LPARAM)(r->base + off);
}

bool win_cc_buf_send(struct win_cc *cc, struct remote *r, HWND h, UINT msg, WPARAM wp, LPARAM lp,
                     LRESULT *res)
{
    DWORD_PTR v = 0;
    win_gate_leave(cc->gate);
    LRESULT ok = SendMessageTimeoutW(h, msg, wp, lp, SMTO_ABORTIFHUNG, MESSAGE_MS, &v);
    win_gate_enter(cc->gate);
    if (!ok && r)
        r->leak = true;
    *res = (LRESULT)v;
    return ok != 0;
}

wa_err win_cc_buf_result(bool sent, LRESULT ok, const char *what)
{
    if (!sent)
        return wa_fail(WA_E_TIMEOUT, "%s: the window did not answer", what);
    return ok ? WA_E_OK : wa_fail(WA_E_ACTION_FAILED, "%s failed", what);
}

bool win_cc_send(struct win_cc *cc, HWND h, UINT msg, WPARAM wp, LPARAM lp, LRESULT *res)
{
    return win_cc_buf_send(cc, NULL, h, msg, wp, lp, res);
}

/* The answers of one sending. Answers that come after the wait still arrive on this
 * thread's next message check, into this block: it is then left allocated. */
struct answers {
    volatile LONG pending;
    struct answer {
        struct answers *all;
        LRESULT res;
    } a[];
};

static void CALLBACK take_answer(HWND h, UINT msg, ULONG_PTR data, LRESULT result)
{
    (void)h;
    (void)msg;
    struct answer *one = (struct answer *)data;
    one->res = result;
    InterlockedDecrement(&one->all->pending);
}

bool win_cc_send_all(struct win_cc *cc, HWND h, const UINT *msg, const WPARAM *wp, const LPARAM *lp,
                     LRESULT *res, size_t n)
{
    return win_send_all(cc->gate, h, msg, wp, lp, res, n);
}

bool win_send_all(struct win_gate *g, HWND h, const UINT *msg, const WPARAM *wp, const LPARAM *lp,
                  LRESULT *res, size_t n)
{
    for (size_t i = 0; i < n; i++)
        res[i] = -1;
    if (!n)
        return true;
    struct answers *b = calloc(1, sizeof *b + n * sizeof b->a[0]);
    if (!b)
        return false;
    win_gate_leave(g);
    for (size_t i = 0; i < n; i++) {
        b->a[i] = (struct answer){b, -1};
        InterlockedIncrement(&b->pending);
        if (!SendMessageCallbackW(h, msg[i], wp[i], lp[i], take_answer, (ULONG_PTR)&b->a[i]))
            InterlockedDecrement(&b->pending);
    }
    DWORD start = GetTickCount();
    MSG m;
    while (b->pending > 0) {
        PeekMessageW(&m, NULL, 0, 0, PM_NOREMOVE); /* delivers the answers */
        DWORD waited = GetTickCount() - start;
        if (b->pending <= 0 || waited >= MESSAGE_MS)
            break;
        MsgWaitForMultipleObjects(0, NULL, FALSE, MESSAGE_MS - waited, QS_SENDMESSAGE);
    }
    win_gate_enter(g);
    bool all = b->pending <= 0;
    for (size_t i = 0; i < n; i++)
        res[i] = b->a[i].res;
    if (all)
        free(b);
    return all;
}

bool win_cc_buf_block_new(struct win_cc *cc, HWND h, size_t size, struct cc_block *b)
{
    memset(b, 0, sizeof *b);
    if (!(b->r = win_cc_buf_remote_for(cc, h)) || !(b->local = calloc(1, size)))
        return false;
    b->size = size;
    b->remote = region_take(b->r->kept, size, &b->cap);
    if (!b->remote) {
        free(b->local);
        b->local = NULL;
    }
    return b->remote != NULL;
}

void win_cc_buf_block_free(struct cc_block *b, bool answered)
{
    if (b->remote && answered)
        region_give(b->r->kept, b->remote, b->cap);
    free(b->local);
    memset(b, 0, sizeof *b);
}

LPARAM win_cc_buf_block_at(const struct cc_block *b, size_t off)
{
    return (LPARAM)(b->remote + off);
}

bool win_cc_buf_block_put(const struct cc_block *b)
{
    SIZE_T done = 0;
    return WriteProcessMemory(b->r->process, b->remote, b->local, b->size, &done) &&
           done == b->size;
}

bool win_cc_buf_block_get(const struct cc_block *b)
{
    SIZE_T done = 0;
    return ReadProcessMemory(b->r->process, b->remote, b->local, b->size, &done) && done == b->size;
}

char *win_cc_buf_slot_text(const struct cc_block *b, size_t slot, const void *text_ptr)
{
    if (text_ptr && (const char *)text_ptr != b->remote + slot) {
        wchar_t buf[SLOT_CHARS] = {0};
        SIZE_T done = 0;
        ReadProcessMemory(b->r->process, text_ptr, buf, sizeof buf - sizeof buf[0], &done);
        return win_wide_to_utf8(buf);
    }
    const wchar_t *w = (const wchar_t *)(b->local + slot);
    return win_wide_to_utf8_n(w, (int)wcsnlen(w, SLOT_CHARS - 1));
}

bool win_cc_buf_sends_init(struct sends *s, size_t cap)
{
    memset(s, 0, sizeof *s);
    s->msg = calloc(cap, sizeof *s->msg);
    s->wp = calloc(cap, sizeof *s->wp);
    s->lp = calloc(cap, sizeof *s->lp);
    s->res = calloc(cap, sizeof *s->res);
    s->cap = cap;
    return s->msg && s->wp && s->lp && s->res;
}

void win_cc_buf_sends_cleanup(struct sends *s)
{
    free(s->msg);
    free(s->wp);
    free(s->lp);
    free(s->res);
    memset(s, 0, sizeof *s);
}

size_t win_cc_buf_sends_add(struct sends *s, UINT msg, WPARAM wp, LPARAM lp)
{
    size_t i = s->n < s->cap ? s->n++ : s->cap - 1; /* sized by the caller: never full */
    s->msg[i] = msg;
    s->wp[i] = wp;
    s->lp[i] = lp;
    return i;
}

/* Whether an item's rectangle (client pixels) shows in area: more than half of it. */
static bool rect_shows(const RECT *rc, const RECT *area)
{
    RECT vis;
    return rc->right > rc->left && rc->bottom > rc->top && IntersectRect(&vis, rc, area) &&
           2 * (vis.bottom - vis.top) >= rc->bottom - rc->top;
}

/* The part of a list view's client area that shows items: below its header. */

void win_cc_buf_place(HWND h, RECT rc, const RECT *area, struct tree_element_info *out)
{
    if (!rect_shows(&rc, area))
        out->states |= WA_ST_OFFSCREEN;
    if (rc.right <= rc.left || rc.bottom <= rc.top)
        return;
    MapWindowPoints(h, NULL, (POINT *)&rc, 2);
    out->bounds = (struct wa_rect){rc.left, rc.top, rc.right, rc.bottom};
}

void win_cc_buf_check_box(UINT state, struct tree_element_info *out)
{
    unsigned check = msaa_state_image_check((state >> 12) & 0xF);
    if (!check)
        return;
    out->states = (out->states & ~(unsigned)WA_ST_CHECK_STATES) | check;
    out->patterns |= WA_PAT_TOGGLE;
}
