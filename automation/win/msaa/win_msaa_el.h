/* The MSAA tree source's own types (the walk's context, element descriptions, lists
 * and handles, what a list or combo box says of its items, what a walk takes of the
 * last one) and the calls every part of it makes into the target. */
#ifndef WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_EL_H
#define WINAGENT_AUTOMATION_WIN_MSAA_WIN_MSAA_EL_H

#include <windows.h>
#include <oleacc.h>
#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"
#include "automation/msaa_roles.h"
#include "automation/tree.h"
#include "automation/win/msaa/win_coll.h"
#include "automation/win/desktop/win_menu.h"
#include "automation/win/desktop/win_tree_job.h"

/* IID_IAccessible under our own name: MinGW's liboleacc.a defines a symbol
 * IID_IAccessible that is an import thunk (code), and oleacc links before uuid, so
 * &IID_IAccessible would point at machine code and every AccessibleObjectFromWindow
 * would fail with E_NOINTERFACE. */
static const IID iid_accessible = {
    0x618736e0, 0x3c3d, 0x11cf, {0x81, 0x0c, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71}};
#define ITEM_CAP      200  /* items read per list or combo box */
#define MSAA_KIDS_CAP 500  /* MSAA children read per object */
#define TEXT_CAP      8192 /* UTF-16 units of text read per window or item */
#define PING_MS       300  /* how long a window's thread may take to answer WM_NULL */
#define MESSAGE_MS    500  /* and any other message */
#define LABEL_MAX     80   /* bytes: longer static text before a control is no label */
#define BAR_ITEMS_MAX 64   /* menu bar items a later walk may take from the last one */

enum el_kind {
    EL_WINDOW,   /* a window */
    EL_ACC,      /* an MSAA object (child_id CHILDID_SELF) or a simple element of one */
    EL_ITEM,     /* an item of a list or combo box, read with messages */
    EL_MENUBAR,  /* a menu bar: its place, items by MSAA (acc) or the menu functions */
    EL_MENUITEM, /* an item read with the menu functions (menu, pos) */
    EL_POPUP,    /* an open popup menu window (#32768) */
    EL_POPUPS,   /* the root of a walk of a thread's open popup menus (not shown) */
};

struct el_desc {
    enum el_kind kind;
    HWND hwnd;        /* the window; for the other kinds the window holding the element */
    bool root;        /* the top-level window walked */
    IAccessible *acc; /* EL_ACC: the object, or the parent of a simple element */
    long child_id;
    enum msaa_item_class items; /* EL_ITEM */
    int item;                   /* list and combo boxes: the index */
    uint64_t item_id;           /* common controls: HTREEITEM, or the index */
    IAccessible *client;        /* EL_WINDOW: its OBJID_CLIENT object once asked for */
    bool client_tried;
    bool client_standard; /* the window serves none: oleacc's standard object stands in */
    long client_role;     /* its role, once asked */
    HMENU menu;           /* EL_MENUBAR, EL_POPUP (when read), EL_MENUITEM: the menu */
    int pos;              /* EL_MENUITEM: the item's position */
    bool in_bar;          /* EL_MENUITEM, EL_ACC: an item of hwnd's menu bar */
    bool menu_read;       /* EL_POPUP: the route to its items is chosen */
    bool items_by_acc;    /* EL_POPUP, EL_MENUBAR: its items are acc's children (the
                           * popup's client object, the bar's OBJID_MENU object) */
    long bar_items;       /* EL_MENUBAR with items_by_acc: how many acc has */
    bool apart;           /* EL_MENUBAR: its items are walked apart (win_msaa_open_menubar) */
    bool reused; /* EL_WINDOW: taken from the last walk (it has no MSAA children of its own) */
    /* EL_WINDOW, a list view in report mode: its columns as this walk read them, kept
     * with the tree for the next walk (win_msaa_reuse.c) */
    struct columns *cols;
};

/* The children of one element (or the root alone), shared by the handles into it. */
struct el_list {
    volatile LONG refs;
    size_t count, cap;
    struct el_desc *d;
};

/* An element handle: a position in a list. */
struct msaa_el {
    struct el_list *list;
    size_t index;
};

struct thread_state {
    DWORD tid;
    bool responsive;
    HWND focus; /* its focused window */
};

/* What a list or combo box says of all its items, asked once per walk instead of once
 * per item: the selection, and where the rows are. Under Wine each message to another
 * process is a round trip through the wineserver (~0.12 ms); a 60-item list took 240
 * of them. */
struct list_facts {
    HWND hwnd;
    bool combo, responsive;
    LONG style;
    int count;
    int cursel;              /* the selected item of a single-selection list, or -1 */
    unsigned char *selected; /* multiple selection: a flag per item; NULL: ask per item */
    /* Where the items are: the list box itself, or a combo box's list (the child list
     * of a simple combo box, the open drop-down list of another); NULL: nowhere (a
     * closed drop-down). */
    HWND rows_in;
    bool rows; /* rows of one height from `top`: bounds without a message */
    int top, height;
    RECT area;       /* rows_in's client area (client pixels); a drop-down list whose
                      * window was not found: its screen rectangle */
    POINT origin;    /* rows_in's client area's origin on the screen */
    bool dropped;    /* combo box: the drop-down list is open */
    uintptr_t *data; /* owner-drawn items without text: each item's data, its identity */
    int *lens;       /* each item's text length (-1: not known), asked all at once */
    char **texts;    /* each item's text, read before the items are walked */
    int ntexts;
    bool read;          /* the facts above are there */
    bool ahead;         /* a thread reads them ahead of the walk, until joined */
    volatile LONG stop; /* the walk is over: readers stop */
};

#define AHEAD_CAP 8 /* tasks reading lists ahead, per walk */

/* A window under the walked one, as one enumeration found it. */
struct win_kid {
    HWND h, parent;
    bool visible;
    bool have_text;     /* text_hash is known */
    uint64_t text_hash; /* of its stored text (InternalGetWindowText) */
};

struct win_msaa_ctx {
    HWND root;
    struct win_gate *gate;
    struct thread_state threads[16];
    int nthreads;
    struct thread_state scratch; /* when more threads than that own windows */
    struct win_cc *cc;           /* buffers in target processes, made when needed */
    struct win_coll **colls;     /* the long collections met (win_coll.h), each once */
    size_t ncolls, cap_colls;
    struct list_facts **lists; /* each its own block: readers write into it */
    size_t nlists, cap_lists;
    struct win_job *ahead[AHEAD_CAP]; /* tasks reading lists ahead of the walk */
    int nahead;
    HWND popups[WIN_MENU_POPUPS_MAX]; /* a walk of open popup menus: their windows */
    size_t npopups;
    bool popup_walk;
    bool bar_walk;  /* a walk of root's menu bar alone: the bar is the root element */
    bool bar_apart; /* a walk of the window whose bar's items are walked apart */
    const struct win_msaa_reuse *reuse; /* what may be taken of the last walk, or NULL */
    HWND *taken; /* the windows taken from it, whose names are as they were too */
    size_t ntaken, cap_taken;
    struct {
        HWND h;
        char *name;
    } * classes; /* each window's class, once asked */
    size_t nclasses, cap_classes;
    /* every window under root in the order EnumChildWindows gives (each one's children
     * after it, siblings in Z order), read once a walk instead of once a window */
    struct win_kid *kids;
    size_t nkids, cap_kids;
    bool kids_read, kids_ok;
    /* a capture of root taken beside the walk (win_capture.h), waited for before
     * anything with a fingerprint is read; NULL: none */
    struct win_pixels *pixels;
    bool pixels_waited;
    size_t took; /* windows, bar and list box items taken from the last walk */
};

enum acc_text { ACC_NAME, ACC_VALUE, ACC_DEFAULT_ACTION };
/* ---- what a walk takes of the last one ---- */

struct reused_window {
    HWND h;
    uint64_t sig;
    struct tree_element_info info;
};

/* A part of the last walk taken only where its pixels look as they did: its node's
 * fingerprint and where it is, and what goes when they do not. */
struct pix_check {
    size_t node;                     /* in the last tree */
    struct wa_rect area;             /* screen pixels (tree_pix_area) */
    uint64_t pix;                    /* the last walk's fingerprint of it */
    struct tree_element_info **info; /* the copy taken, or NULL */
    int cols_of;                     /* else the listing whose columns go */
};

struct win_msaa_reuse {
    volatile LONG refs; /* the window's walk, and its menu bar's walked apart */
    uint64_t stamp;     /* the last walk's moment (win_events) */
    /* The menu bar's items by position, where they look as they did; else NULL. */
    struct tree_element_info *bar[BAR_ITEMS_MAX];
    struct reused_window *w; /* by h */
    size_t nw;
    struct win_coll_listing *lists; /* tree views' */
    size_t nlists;
    /* the rows, bar items and headers kept only while they look as they did: settled
     * once, from the pixels given or from the capture beside the walk */
    struct pix_check *checks;
    size_t nchecks;
    SRWLOCK settle_lock;
    volatile LONG settled;
};

/* Whether r knows which of its rows, bar items and columns look as they did (none of
 * those is taken before). */
bool win_msaa_el_reuse_settled(const struct win_msaa_reuse *r);
/* Keeps of r what same (per node of the last tree) says looks as it did; without same,
 * what img (a capture of frame; NULL: none, so nothing) shows as it was. Once: later
 * calls do nothing. */
void win_msaa_el_reuse_settle(struct win_msaa_reuse *r, const bool *same,
                              const struct wa_image *img, struct wa_rect frame);
/* Waits for the capture beside c's walk (c->pixels), once, and settles c's reuse by it:
 * called before anything with a fingerprint is read. */
void win_msaa_el_pixels_wait(struct win_msaa_ctx *c);

struct el_list *win_msaa_el_list_new(void);

void win_msaa_el_list_unref(struct el_list *l);

/* Appends a copy of d (taking over its references); false when out of memory (the
 * references are released then). */
bool win_msaa_el_list_add(struct el_list *l, struct el_desc *d);

struct msaa_el *win_msaa_el_handle_new(struct el_list *l, size_t index);

struct el_desc *win_msaa_el_desc_of(void *handle);

bool win_msaa_el_send_msg(struct win_gate *g, HWND h, UINT msg, WPARAM wp, LPARAM lp, int ms,
                          LRESULT *res);

/* A window's thread answers, within PING_MS. IsHungAppWindow catches threads that
 * stopped long ago without waiting; the ping catches freshly hung ones. */
bool win_msaa_el_ping(struct win_gate *g, HWND h);

struct thread_state *win_msaa_el_thread_of(struct win_msaa_ctx *c, HWND h);

VARIANT win_msaa_el_child_var(long id);

char *win_msaa_el_acc_text(struct win_gate *g, IAccessible *acc, long id, enum acc_text what);

bool win_msaa_el_acc_long(struct win_gate *g, IAccessible *acc, long id, bool state, long *out);

bool win_msaa_el_acc_location(struct win_gate *g, IAccessible *acc, long id, struct wa_rect *out);

IAccessible *win_msaa_el_object_from_window(struct win_gate *g, HWND h, LONG objid);

/* Whether acc is oleacc's standard object for a window that serves none of its own:
 * made in this process, where a window's own object comes through a COM proxy (which
 * answers IClientSecurity). */
bool win_msaa_el_made_here(IAccessible *acc);

IAccessible *win_msaa_el_desc_client(struct win_msaa_ctx *c, struct el_desc *d);

char *win_msaa_el_class_of(HWND h);

/* Window h as the walk's one enumeration of root found it; NULL when it is not under
 * root (or was not there then). */
struct win_kid *win_msaa_el_kid(struct win_msaa_ctx *c, HWND h);
/* The window before h in Z order among its siblings (GetWindow GW_HWNDPREV), from the
 * enumeration where it holds h. */
HWND win_msaa_el_prev_sibling(struct win_msaa_ctx *c, HWND h);
/* A hash of h's stored text, read once a walk where the enumeration holds h. */
uint64_t win_msaa_el_text_hash(struct win_msaa_ctx *c, HWND h);

/* win_msaa_el_class_of, asked of the server once a walk per window (a walk asks it of each window
 * three times over). A heap copy, as win_msaa_el_class_of's. */
char *win_msaa_el_ctx_class(struct win_msaa_ctx *c, HWND h);

struct wa_rect win_msaa_el_rect_of(HWND h);

/* The window's text by WM_GETTEXT (controls keep theirs away from the stored caption). */
char *win_msaa_el_message_text(struct win_gate *g, HWND h);

/* Types whose window text is not their name: their name is a label before them. */
bool win_msaa_el_type_takes_label(const char *type);

/* A check box's state (checked, unchecked or mixed) or a radio button's (checked or
 * none) by BM_GETCHECK; 0 for other types, or when the button did not answer. */
unsigned win_msaa_el_button_check(struct win_gate *g, HWND h, const char *type);

/* A control's label, as Windows' proxies name unnamed controls: the text of a static
 * before it in Z order (tab order: a label is made just before its control) with no
 * other control between, placed as its label (left of its first line, or just above
 * it; not an image, not a paragraph); else the title of the group box it alone sits in;
 * else NULL. */
char *win_msaa_el_label_before(HWND h);

/* The window's text as a name; `responsive`: its thread answered a ping. */
char *win_msaa_el_text_name(struct win_gate *gate, HWND h, bool responsive);

/* The position of a slider, progress bar or spin button as its value ("30"), read
 * with the control's own messages (no pointers: nothing to copy across processes);
 * NULL for other types or when it does not answer. */
char *win_msaa_el_range_value(struct win_gate *g, HWND h, const char *type);

#endif
