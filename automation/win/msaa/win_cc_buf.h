/* The buffers in target processes that the common-control readers (win_msaa_cc.c,
 * win_cc_list.c, win_cc_tree.c) send their messages with. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_BUF_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_CC_BUF_H

#include <windows.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/backend.h"
#include "automation/tree.h"
#include "automation/win/desktop/win_tree_job.h"

/* The buffer: the item structure, a RECT, then the text. */
#define REMOTE_SIZE 8192
#define OFF_STRUCT  0
#define OFF_RECT    512
#define OFF_TEXT    1024
#define TEXT_CHARS  ((REMOTE_SIZE - OFF_TEXT) / (int)sizeof(wchar_t))
struct kept_proc; /* win_cc_buf.c: a process's handle and memory kept between walks */
struct remote {
    DWORD pid;
    struct kept_proc *kept; /* what holds the handle and the memory; NULL: none */
    HANDLE process;         /* kept's handle; NULL when it could not be opened (or has
                             * another bitness) */
    char *base;             /* the buffer, in the target's address space */
    size_t cap;             /* its size */
    bool leak;              /* a message using it timed out: the target may still write to it */
};

#define COLUMNS_MAX 8 /* report-mode columns read per list view */

/* The columns of the list view last asked about (a walk reads one list's rows in a
 * row): asked once per list, not once per row. */
struct columns {
    HWND list;
    HWND header;              /* the header control they were read from */
    int count;                /* 0: not in report mode, or one column only */
    char *names[COLUMNS_MAX]; /* header texts; NULL where none */
};

struct win_cc {
    struct win_gate *gate;
    struct remote procs[8];
    int count;
    struct columns cols;
};

#define SLOT_CHARS 260 /* characters of text read per item or cell in a batch */
#define SLOT_BYTES (SLOT_CHARS * (int)sizeof(wchar_t))
#define BATCH_ROWS 64     /* items per batch of reads */
#define SCAN_MAX   100000 /* items a search looks at, at most */
/* A block of the target's memory for one batch of messages, and its image here. */
struct cc_block {
    struct remote *r;
    char *remote, *local;
    size_t size, cap; /* what the batch uses of remote; what remote holds */
};
/* The messages of one batch, built as its block is laid out. */
struct sends {
    UINT *msg;
    WPARAM *wp;
    LPARAM *lp;
    LRESULT *res;
    size_t n, cap;
};

void win_cc_buf_columns_cleanup(struct columns *c);
/* What a walk is done with of h's process's buffer: kept for the next walk (unless a
 * message using it timed out). */
void win_cc_buf_remote_done(struct remote *r);
/* Frees what is kept of every process (at exit). */
void win_cc_buf_kept_free(void);
/* A copy of from in *to (cleaned up first); false when out of memory (*to is then
 * empty). */
bool win_cc_buf_columns_copy(const struct columns *from, struct columns *to);
/* A heap copy of from (NULL when out of memory), and its end (NULL is fine). */
struct columns *win_cc_buf_columns_dup(const struct columns *from);
void win_cc_buf_columns_free(struct columns *c);

/* The buffer in h's process (made once per process); NULL when the process cannot
 * be opened or has another bitness. */
struct remote *win_cc_buf_remote_for(struct win_cc *cc, HWND h);

/* Writes and reads n bytes at offset off of the buffer; its address there. */
bool win_cc_buf_put(struct remote *r, size_t off, const void *data, size_t n);

bool win_cc_buf_get(struct remote *r, size_t off, void *data, size_t n);

LPARAM win_cc_buf_at(struct remote *r, size_t off);

/* A message through the gate; false when it failed or timed out (r: its buffer, which
 * is then left to the target). */
bool win_cc_buf_send(struct win_cc *cc, struct remote *r, HWND h, UINT msg, WPARAM wp, LPARAM lp,
                     LRESULT *res);

/* The error of a message that was not answered (sent false) or that failed (ok 0). */
wa_err win_cc_buf_result(bool sent, LRESULT ok, const char *what);

/* A block of size bytes in h's process and its image here; false when not made. */
bool win_cc_buf_block_new(struct win_cc *cc, HWND h, size_t size, struct cc_block *b);

/* answered: every message using the block was answered (else the target may still
 * write to it, and it is left there). */
void win_cc_buf_block_free(struct cc_block *b, bool answered);

/* The address of offset off of the block there; block_put and block_get copy the
 * whole image there and back. */
LPARAM win_cc_buf_block_at(const struct cc_block *b, size_t off);

bool win_cc_buf_block_put(const struct cc_block *b);

bool win_cc_buf_block_get(const struct cc_block *b);

/* The text a message left in a slot of the block; where the control pointed the
 * structure's pszText elsewhere in its memory instead (LVM_GETITEM and TVM_GETITEM
 * may), the text there. */
char *win_cc_buf_slot_text(const struct cc_block *b, size_t slot, const void *text_ptr);

/* Room for cap messages; _add appends one and says its index. */
bool win_cc_buf_sends_init(struct sends *s, size_t cap);

void win_cc_buf_sends_cleanup(struct sends *s);

size_t win_cc_buf_sends_add(struct sends *s, UINT msg, WPARAM wp, LPARAM lp);

/* The check box an item's state image draws (the state bits 12-15 of a TVITEM or
 * LVITEM: msaa_state_image_check) as its checked, unchecked or mixed state, and the
 * toggle it then takes; nothing for an item without one. */
void win_cc_buf_check_box(UINT state, struct tree_element_info *out);

/* An item's bounds (rc: client pixels of h) on the screen, and offscreen unless more
 * than half of it shows in area. */
void win_cc_buf_place(HWND h, RECT rc, const RECT *area, struct tree_element_info *out);

/* A message to h through cc's gate: false when it failed or timed out. */
bool win_cc_send(struct win_cc *cc, HWND h, UINT msg, WPARAM wp, LPARAM lp, LRESULT *res);
/* n messages to h sent without waiting for each (SendMessageCallback; none may carry
 * a pointer into this process), answered by h's thread in one turn: res[i] for msg[i],
 * -1 where no answer came within the message timeout; false when some did not come. */
bool win_cc_send_all(struct win_cc *cc, HWND h, const UINT *msg, const WPARAM *wp, const LPARAM *lp,
                     LRESULT *res, size_t n);
/* The same through gate g (NULL: none), for callers without a struct win_cc. */
bool win_send_all(struct win_gate *g, HWND h, const UINT *msg, const WPARAM *wp, const LPARAM *lp,
                  LRESULT *res, size_t n);

#endif
