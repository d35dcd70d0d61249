/* Buffers in a target process and the messages that use them: one buffer per process
 * for single items, blocks laid out for a batch of messages sent together, and where an
 * item's rectangle puts it on the screen. */
#include "automation/win/win_cc_buf.h"

#include <commctrl.h>
#include <psapi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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
/* The structures we write are laid out for our own bitness. */
static bool same_bitness(HANDLE p)
{
    BOOL ours = FALSE, theirs = FALSE;
    return IsWow64Process(GetCurrentProcess(), &ours) && IsWow64Process(p, &theirs) &&
           ours == theirs;
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
    r->process = OpenProcess(PROCESS_VM_OPERATION | PROCESS_VM_READ | PROCESS_VM_WRITE |
                                 PROCESS_QUERY_LIMITED_INFORMATION,
                             FALSE, pid);
    if (r->process && same_bitness(r->process))
        r->base =
            VirtualAllocEx(r->process, NULL, REMOTE_SIZE, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
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

bool win_cc_buf_block_new(struct win_cc *cc, HWND h, size_t size, struct block *b)
{
    memset(b, 0, sizeof *b);
    if (!(b->r = win_cc_buf_remote_for(cc, h)) || !(b->local = calloc(1, size)))
        return false;
    b->size = size;
    b->remote = VirtualAllocEx(b->r->process, NULL, size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (!b->remote) {
        free(b->local);
        b->local = NULL;
    }
    return b->remote != NULL;
}

void win_cc_buf_block_free(struct block *b, bool answered)
{
    if (b->remote && answered)
        VirtualFreeEx(b->r->process, b->remote, 0, MEM_RELEASE);
    free(b->local);
    memset(b, 0, sizeof *b);
}

LPARAM win_cc_buf_block_at(const struct block *b, size_t off)
{
    return (LPARAM)(b->remote + off);
}

bool win_cc_buf_block_put(const struct block *b)
{
    SIZE_T done = 0;
    return WriteProcessMemory(b->r->process, b->remote, b->local, b->size, &done) &&
           done == b->size;
}

bool win_cc_buf_block_get(const struct block *b)
{
    SIZE_T done = 0;
    return ReadProcessMemory(b->r->process, b->remote, b->local, b->size, &done) && done == b->size;
}

char *win_cc_buf_slot_text(const struct block *b, size_t slot, const void *text_ptr)
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
