/* The desktop backend interface: everything winagent can see and do on a desktop,
 * as a const table of function pointers. One instance per backend
 * (automation/win/: Windows; automation/fake/: a scripted desktop for tests). A NULL
 * slot is a capability the backend lacks; the backend_* wrappers turn it into
 * WA_E_UNSUPPORTED. All coordinates here are screen pixels (virtual-screen, physical);
 * the 0-999 contract lives above this layer. */
#ifndef WINAGENT_AUTOMATION_BACKEND_H
#define WINAGENT_AUTOMATION_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "automation/image/coords.h"
#include "automation/image/image.h"
#include "automation/keys.h"
#include "automation/tree.h"
#include "base/wa_err.h"

enum wa_window_state {
    WA_WINDOW_NORMAL,
    WA_WINDOW_MINIMIZED,
    WA_WINDOW_MAXIMIZED,
};

struct wa_window {
    uint64_t hwnd;
    char *title; /* UTF-8, "" when none */
    char *class_name;
    unsigned long pid;
    char *process;       /* executable name, "notepad.exe"; "" when it cannot be read */
    char *process_path;  /* its full path, "C:\\Windows\\notepad.exe"; "" when unknown */
    struct wa_rect rect; /* the visible frame (DWM extended frame bounds where there are) */
    uint64_t owner;      /* the top-level window that owns it (dialogs, pop-ups); 0: none */
    enum wa_window_state state;
    bool foreground;
    bool visible;
    /* A program's top-level window: not the desktop window, not a message-only window,
     * not a control inside another window. Only these are targets. */
    bool top_level;
};

/* Where a program file lies. */
enum wa_program_place {
    WA_PLACE_ELSEWHERE, /* on a drive of this machine, where an ordinary user can write (the
                         * file, or a folder above it) or where that cannot be told */
    WA_PLACE_SYSTEM,    /* installed: neither the file nor a folder above it can be changed
                         * by an ordinary user (by their owners and ACLs on Windows; see
                         * the backend for what each platform can tell) */
    WA_PLACE_NETWORK,   /* on a network share or a remote (mapped) drive: never read */
};

/* How a launch starts what the core judged (launch.h). */
enum wa_launch_kind {
    WA_LAUNCH_PROGRAM,  /* the program image at a whole path, no arguments: exactly that
                         * file is started (CreateProcess), and only while it is still an
                         * executable image */
    WA_LAUNCH_DOCUMENT, /* the document or folder at a whole path, opened through its
                         * association (ShellExecute's default verb): never started as a
                         * program itself */
    WA_LAUNCH_LINE,     /* a command line as typed (the shell permission was given):
                         * CreateProcess, else ShellExecute */
};

/* What a program file is, read from the file itself (not its name). */
struct wa_program_info {
    enum wa_program_place place; /* of the file, its path made whole (no "..", no 8.3); a
                                  * file on a share is NETWORK and nothing else of it is
                                  * read */
    char place_why[240];         /* why it is not SYSTEM, for messages ("" when it is) */
    bool executable;             /* a PE image (an .exe, .com, .scr, ... of any name) */
    bool console;                /* its subsystem is the console: it runs in a terminal */
    char *original_name;         /* its version resource's OriginalFilename (else InternalName),
                                  * "pwsh.exe" for a renamed copy of PowerShell; NULL if none */
};

void wa_program_info_cleanup(struct wa_program_info *p);

/* A process another started (backend.started_by). */
struct wa_started {
    unsigned long pid;
    char path[520]; /* its program's whole path ("" when it cannot be read) */
};

/* A watched process (backend.watch_process). */
struct wa_process_state {
    bool ended;
    unsigned long exit_code; /* once ended: an exception code (0xC0000005 and the like)
                              * when it crashed */
    bool debugged;           /* a debugger holds it (one that came for a crash, or a
                              * developer's) */
};

/* What a window is by its make rather than its title, for the gate's routes to a shell
 * (which must be known in any language). */
struct wa_window_kind {
    /* The shell's Run dialog (shell32's RunFileDlg: win+r's Run, Task Manager's "Create
     * new task", rundll32's), known by its controls: the command box and Browse. */
    bool run_dialog;
    /* A control inside an address bar (Explorer windows and the common file dialogs:
     * the band of class "Address Band Root"), whose text runs as a command. */
    bool address_bar;
    /* A control of a shell view's items or folder tree (the files of an Explorer window
     * or a file dialog: inside "SHELLDLL_DefView" or "NamespaceTreeControl"), the edit
     * that renames an item in place included: browsing, not a command line. */
    bool item_view;
};

struct wa_window_list {
    struct wa_window *items;
    size_t count;
};

void wa_window_cleanup(struct wa_window *w);
void wa_window_list_cleanup(struct wa_window_list *l);
/* Deep copy; WA_E_NOMEM. */
wa_err wa_window_copy(const struct wa_window *src, struct wa_window *dst);

struct wa_monitor {
    struct wa_rect rect; /* pixels in the virtual screen */
    struct wa_rect work; /* without the taskbar */
    bool primary;
    int dpi; /* 96 = 100 % */
};

/* How a process maps its pixels to the screen's (Windows' DPI awareness). */
enum wa_dpi_awareness {
    WA_DPI_UNKNOWN,
    WA_DPI_UNAWARE,       /* drawn at 96 dpi and stretched: coordinates are scaled */
    WA_DPI_SYSTEM,        /* the primary monitor's scale everywhere */
    WA_DPI_PER_MONITOR,   /* physical pixels on every monitor */
    WA_DPI_PER_MONITOR_V2 /* the same, with its windows' frames and dialogs scaled too */
};

/* What the machine is like for an agent, for `winagent doctor`: facts as read, the
 * verdicts are the caller's. What cannot be read keeps the value wa_system_info_init
 * gives it: -1 for numbers and yes/no fields, "" for text, WA_DPI_UNKNOWN. */
struct wa_system_info {
    char os_name[80];    /* the product's name: "Windows 11 Pro" */
    char os_release[32]; /* its release: "23H2" */
    int os_major, os_minor, os_build, os_revision;
    char wine[32];          /* Wine's version when the exe runs under Wine, else "" */
    long session;           /* the session winagent runs in (0: services' session) */
    long console_session;   /* the session of the physical console */
    int remote;             /* a remote desktop session */
    char input_desktop[32]; /* the desktop that has the input: "Default"; "Winlogon" is the
                             * secure desktop (UAC prompts, the lock screen) */
    long integrity;         /* the process's integrity level, its RID: 0x1000 low,
                             * 0x2000 medium, 0x3000 high, 0x4000 system */
    int elevated;           /* running as administrator (an elevated token) */
    int uiaccess;           /* UIAccess: input may reach windows of higher integrity */
    enum wa_dpi_awareness dpi_awareness;
    /* UAC's policy (HKLM ...\Policies\System), -1 where the value is not set (Windows'
     * defaults: EnableLUA 1, ConsentPromptBehaviorAdmin 5, PromptOnSecureDesktop 1). */
    int uac_enabled;              /* EnableLUA */
    int consent_prompt_admin;     /* ConsentPromptBehaviorAdmin, 0-5 (0: no prompt) */
    int prompt_on_secure_desktop; /* PromptOnSecureDesktop */
    int uia;                      /* UI Automation's client can be had and answers */
    char uia_detail[160];         /* what answered, or why not */
};

void wa_system_info_init(struct wa_system_info *s);

enum wa_button {
    WA_BUTTON_LEFT,
    WA_BUTTON_RIGHT,
    WA_BUTTON_MIDDLE,
};

enum wa_element_action {
    WA_ACT_INVOKE,
    WA_ACT_TOGGLE,
    WA_ACT_EXPAND,
    WA_ACT_COLLAPSE,
    WA_ACT_SELECT,
    WA_ACT_SET_VALUE,
    WA_ACT_FOCUS,
    /* Scrolls the element into view (an item of a long collection, found beyond what
     * was listed) and updates its node's bounds and offscreen state. */
    WA_ACT_SCROLL_INTO_VIEW,
};

struct wa_shell_result {
    int exit_code; /* -1 when killed by the timeout */
    bool timed_out;
    char *out; /* UTF-8, capped: head and tail kept with a marker between */
    char *err;
    double elapsed_ms;
};

void wa_shell_result_cleanup(struct wa_shell_result *r);

/* Which items of a long collection a search wants: find beyond what a walk lists
 * (tree.h struct wa_collection). */
struct wa_item_query {
    /* NULL: any; else the exact name, or with wildcard a pattern of '*' and '?' (ASCII
     * case ignored, as selectors' "~pattern"). */
    const char *name;
    bool wildcard;
    int index;              /* >= 0: only the item at this index (lists), -1: any */
    const char *runtime_id; /* non-NULL: only the item of this runtime id */
};

/* Whether an item named name is one q wants by name. */
bool wa_item_query_names(const struct wa_item_query *q, const char *name);

/* A capture of a window taken for a walk (wa_tree_opts.pixels). */
struct wa_tree_pixels {
    struct wa_image img; /* none (px NULL) when the capture failed */
    struct wa_rect frame;
    double ms; /* what the capture took (beside the walk: part of the walk's time) */
};

struct wa_tree_opts {
    int max_nodes;     /* default 500 */
    int budget_ms;     /* default 3000; a hung target never blocks longer (+ grace) */
    bool keep_handles; /* keep element handles to act on nodes later */
    bool prefer_msaa;  /* skip UI Automation */
    /* The last tree of the same window (handles kept), or NULL: what is unchanged since
     * (by the source's fingerprints and what it heard of changes) may be taken from it
     * instead of asked of the program again. Read before get_tree returns only. */
    const struct wa_tree *prev;
    /* For each node of prev, or NULL: its pixels are the same now as when it was walked
     * (tree_pix.h), so what it is may be taken without asking the program. */
    const bool *prev_same;
    /* Out, or NULL: a capture of the window for fingerprints (tree_pix.h), taken before
     * anything with a fingerprint is read, so that what the tree says of a row is never
     * older than its pixels; what of prev looks the same in it is taken (prev_same is
     * then NULL). A backend whose walk_captures is set takes it beside the walk, which
     * waits for it only where it must; for the others backend_get_tree takes it first. */
    struct wa_tree_pixels *pixels;
};

struct wa_backend {
    const char *name;
    bool walk_captures; /* get_tree takes wa_tree_opts.pixels itself */
    wa_err (*init)(void);
    void (*shutdown)(void);

    /* ---- windows ---- */
    /* Visible top-level windows with a title, in Z order (topmost first). */
    wa_err (*list_windows)(struct wa_window_list *out);
    /* Every visible top-level window, topmost first: the listed ones and the others an
     * image still shows (untitled pop-ups, open menus, tool windows). For blacking out
     * what the gate refuses; NULL: list_windows stands in. */
    wa_err (*list_visible_windows)(struct wa_window_list *out);
    wa_err (*window_info)(uint64_t hwnd, struct wa_window *out); /* WA_E_WINDOW_NOT_FOUND */
    /* The window actions go to when none is named: the foreground window, never the
     * console winagent runs in (and never winagent's own windows). */
    wa_err (*default_window)(uint64_t *hwnd);
    /* The window in the foreground right now, whatever it is (0 when none). */
    wa_err (*foreground_window)(uint64_t *hwnd);
    /* The top-level window under screen point (x, y): the one that would receive a
     * click there (0 when none). */
    wa_err (*window_at)(int x, int y, uint64_t *hwnd);
    /* Brings to the foreground and verifies it (retrying); WA_E_FOCUS_FAILED honestly. */
    wa_err (*focus_window)(uint64_t hwnd);
    wa_err (*move_window)(uint64_t hwnd, struct wa_rect r);
    wa_err (*set_window_state)(uint64_t hwnd, enum wa_window_state s);
    wa_err (*close_window)(uint64_t hwnd);
    /* What would run for a program name, path or document: *path gets the full path of
     * the file named (NULL when it is not a file that exists) and *runs the executable
     * that would run it: the file itself when it is an executable image (by its
     * content, whatever its name), else the program its association starts (the file
     * itself again when the association runs it as a program; NULL when nothing is
     * associated with it), for a URL or protocol its handler. Nothing on a network share is looked
     * up: a name that is, or becomes (expanded, made whole, found on the search path), a path on a
     * share answers WA_E_DENIED with the reason and *path and *runs NULL. WA_E_ELEMENT_NOT_FOUND
     * when nothing is known by that name. */
    wa_err (*resolve_program)(const char *name, char **path, char **runs);
    /* What the file at path is: where it lies, PE or not, console or GUI, its original
     * name. A path on a share is NETWORK and not opened. WA_E_UNSUPPORTED where no file
     * can be read. */
    wa_err (*program_info)(const char *path, struct wa_program_info *out);
    /* Where the file at path lies (program_info's place and place_why alone, the file
     * not read), answered from a short cache: the allow-list asks it of every window's
     * program. NULL: program_info stands in. */
    wa_err (*program_place)(const char *path, struct wa_program_info *out);
    /* Starts what the core judged, as kind says (what: a whole path for a program or
     * document, the command as typed for a line); waits up to timeout_ms for a window
     * of it and returns it (0 when none appeared, which is not an error). The core
     * decides beforehand whether it may run (launch.h). */
    wa_err (*launch)(enum wa_launch_kind kind, const char *what, int timeout_ms, uint64_t *hwnd);
    /* What window hwnd (a top-level window, or a control inside one) is made of: the run
     * dialog is its top-level window's kind, the address bar its own or its parents'.
     * NULL: nothing is known (every kind false). */
    wa_err (*window_kind)(uint64_t hwnd, struct wa_window_kind *out);
    /* The control that has the keyboard focus in the thread of top-level window top (0
     * when none): where keys and text sent to top arrive. */
    wa_err (*focused_control)(uint64_t top, uint64_t *control);
    /* The deepest child window under screen pixel (x, y), the top-level window itself
     * where it has no child there (0 when no window is there): what a click there hits. */
    wa_err (*control_at)(int x, int y, uint64_t *control);
    /* The window that owns the clipboard's contents (the program that put them there;
     * 0 when none: empty, or its owner is gone). */
    wa_err (*clipboard_owner)(uint64_t *hwnd);
    wa_err (*monitors)(struct wa_monitor *out, size_t max, size_t *count);
    /* The machine's facts for `winagent doctor` (out comes initialised by the
     * wrapper); fields it cannot read stay unknown. May take a second (UI Automation
     * is asked on a thread of its own). */
    wa_err (*system_info)(struct wa_system_info *out);

    /* ---- pixels ---- */
    wa_err (*capture_screen)(struct wa_rect r, struct wa_image *out);
    /* The window as it looks (frame = its rect, the image is the frame's size). */
    wa_err (*capture_window)(uint64_t hwnd, struct wa_image *out, struct wa_rect *frame);

    /* Whether input sent now would reach hwnd: WA_E_SECURE_DESKTOP while the secure
     * desktop (a UAC consent prompt) has the input, WA_E_ELEVATED_TARGET when hwnd's
     * process runs at a higher integrity level than winagent's (Windows drops such
     * input without a word, UIPI). Where a level cannot be read, WA_E_OK: the input is
     * sent as before. NULL: no such checks. */
    wa_err (*input_reaches)(uint64_t hwnd);
    /* Waits until the thread of window hwnd has handled the input sent before the call
     * and painted what it changed: WA_E_OK then; WA_E_TIMEOUT when it was still busy
     * after timeout_ms, or does not take messages at all (hung);
     * WA_E_WINDOW_NOT_FOUND when hwnd is gone. NULL: the caller cannot know, and
     * watches the pixels instead. */
    wa_err (*input_handled)(uint64_t hwnd, int timeout_ms);

    /* ---- the programs behind windows ----
     * A hold on the process of window hwnd, taken before acting, to tell afterwards
     * whether that process ended and how: its exit code outlives it while held. *watch
     * is the hold. NULL: no holds (the core then cannot tell a crash from a close). */
    wa_err (*watch_process)(uint64_t hwnd, uintptr_t *watch);
    /* What became of the watched process. */
    wa_err (*process_state)(uintptr_t watch, struct wa_process_state *out);
    void (*unwatch_process)(uintptr_t watch);
    /* The processes that process pid started at or after since_ms (os_time_ms, the
     * wall clock), at most max, into out; *count how many. NULL: none can be told. */
    wa_err (*started_by)(unsigned long pid, int64_t since_ms, struct wa_started *out, size_t max,
                         size_t *count);
    /* The process that started process pid (*parent 0 when it cannot be told). */
    wa_err (*process_parent)(unsigned long pid, unsigned long *parent);
    /* Waits up to timeout_ms until process pid, just started, waits for input (its first
     * window is up); at once for one that has no windows. NULL: no wait. */
    wa_err (*wait_ready)(unsigned long pid, int timeout_ms);

    /* ---- input (screen pixels) ---- */
    wa_err (*mouse_move)(int x, int y);
    wa_err (*mouse_button)(enum wa_button b, bool down);
    /* delta in WHEEL_DELTA units (120 per notch); positive = up / right. */
    wa_err (*mouse_wheel)(int delta, bool horizontal);
    wa_err (*type_text)(const char *utf8);
    wa_err (*press_keys)(const struct wa_key_combo *k);
    /* Presses a chord's keys in order and leaves them down (down), or releases them in
     * reverse order (!down): the two halves of press_keys, apart. */
    wa_err (*hold_keys)(const struct wa_key_combo *k, bool down);
    /* Where the mouse pointer is, in screen pixels. */
    wa_err (*cursor_position)(int *x, int *y);

    /* ---- the person at the desk ----
     * Watches the person's own mouse and keyboard input, told apart from injected input
     * (SendInput: winagent's and any other program's), from a thread of its own; a second
     * call changes nothing. on_stop(ctx) is called once, from that thread, when the
     * person makes the stop gesture: the pointer pushed into the top-left corner of the
     * primary monitor (its first 2x2 pixels) and held there for half a second, or
     * ctrl+alt+pause (ctrl+alt+break), whose keys no program then gets. NULL: the backend
     * cannot tell a person's input apart (no takeover, no stop gesture). */
    wa_err (*watch_person)(void (*on_stop)(void *ctx), void *ctx);
    /* How long ago the person's own last mouse or keyboard input was, in ms (INT64_MAX
     * when none is known), and whether it was a key. */
    wa_err (*person_idle)(int64_t *idle_ms, bool *keyboard);

    /* ---- background input: window messages to one window, whatever is in front ----
     * Neither moves the cursor, activates a window, changes the focus of another
     * thread nor calls SendInput. NULL: no background route of that kind. */
    /* Posts a click (button down and up, count times; the second press of a double
     * click as a double-click message) to the deepest child window of top-level window
     * top under screen pixel (x, y), in that child's client coordinates, as if the
     * mouse were there; *child is that window. WA_E_ACTION_FAILED when the point is
     * outside top (or on its frame, where no message would act as a click). */
    wa_err (*post_click)(uint64_t top, int x, int y, enum wa_button b, int count, uint64_t *child);
    /* Posts `notches` wheel messages (one per notch, +1 away from the user or to the
     * right, -1 toward the user or to the left; horizontal: the tilt wheel's) to the
     * deepest child window of top under screen pixel (x, y), as the wheel reaches the
     * window under the mouse; *child is that window. WA_E_ACTION_FAILED when the point
     * is outside top's client area. */
    wa_err (*post_wheel)(uint64_t top, int x, int y, int notches, bool horizontal, uint64_t *child);
    /* Posts UTF-8 text as WM_CHAR messages ("\n" as Enter) to window hwnd: a control's
     * own window, or for a top-level window the control that has the keyboard focus in
     * its thread, else its only edit (the one a person would type into once it is in
     * front); *control is the window that got it. WA_E_ELEMENT_NOT_FOUND when there is
     * no such control. */
    wa_err (*post_text)(uint64_t hwnd, const char *utf8, uint64_t *control);

    /* ---- accessibility ---- */
    wa_err (*get_tree)(uint64_t hwnd, const struct wa_tree_opts *o, struct wa_tree *out);
    /* Acts on node `index` of a tree this backend made (handles kept). *via names the
     * path used: "uia:Invoke", "msaa:accDoDefaultAction", "message:BM_CLICK", ...;
     * WA_E_UNSUPPORTED when no pattern path exists (the caller may click instead). */
    wa_err (*element_action)(struct wa_tree *t, size_t index, enum wa_element_action a,
                             const char *value, const char **via);
    /* The current value of node `index`, read back from the application (UTF-8, heap).
     * WA_E_UNSUPPORTED when the element exposes none; WA_E_DENIED for a password
     * field, which is never read. */
    wa_err (*element_value)(struct wa_tree *t, size_t index, char **value);
    /* The states of node `index` (enum wa_state bits: checked, unchecked or mixed,
     * expanded or collapsed, selected, ...) read again from the application now, for
     * an action to be read back (the node's own states are those of the walk). NULL or
     * WA_E_UNSUPPORTED: they cannot be read again. */
    wa_err (*element_states)(struct wa_tree *t, size_t index, unsigned *states);
    /* Where a click changes the check box drawn in node `index` (a tree item or list
     * row with one: its state image's hit area, TVHT_ONITEMSTATEICON /
     * LVHT_ONITEMSTATEICON), in screen pixels. WA_E_UNSUPPORTED when it has none, or
     * it cannot be found. */
    wa_err (*check_box_point)(struct wa_tree *t, size_t index, int *x, int *y);
    /* The same for the control that has the keyboard focus in top-level window top's
     * thread, else its only edit, as post_text finds it (top 0: the foreground window's
     * focused control); *hwnd is that control. */
    wa_err (*focused_value)(uint64_t top, uint64_t *hwnd, char **value);
    /* Finds items of collection node `index` of t (a tree this backend made, handles
     * kept; tree.h struct wa_collection) that q wants, from the control's own data, and
     * appends those t does not hold yet at t's end as children of that node, at most
     * max (the ids already given stay valid; the depth-first order is the next walk's
     * again). *added: how many. Acting on them scrolls them into view first
     * (WA_ACT_SCROLL_INTO_VIEW). WA_E_UNSUPPORTED when the node is no collection this
     * backend can search. */
    wa_err (*find_items)(struct wa_tree *t, size_t index, const struct wa_item_query *q, size_t max,
                         size_t *added);
    /* The open popup menus (drop-downs, submenus, context menus: top-level windows of
     * their own, class #32768 on Windows) of the thread of window hwnd, in the order
     * they opened, at most max. While one is open it belongs to the target: input at
     * it is input to the target, and bringing the target to the foreground would close
     * it. get_tree lists them already (as Menu nodes first under the root). *count 0
     * when none is open; WA_E_WINDOW_NOT_FOUND when hwnd is gone. */
    wa_err (*open_menus)(uint64_t hwnd, uint64_t *out, size_t max, size_t *count);

    /* ---- shell ---- */
    /* Runs command through shell (a command-line prefix such as "cmd.exe /c"; NULL or
     * empty: the backend's default, PowerShell), killing the whole process tree after
     * timeout_ms; output capped at cap bytes each. */
    wa_err (*run_shell)(const char *shell, const char *command, int timeout_ms, size_t cap,
                        struct wa_shell_result *out);
};

/* The backend compiled into this executable (Windows, or the fake one natively). */
const struct wa_backend *backend_default(void);

/* Wrappers: WA_E_UNSUPPORTED for NULL slots, argument checks, out-params cleared. */
wa_err backend_list_windows(const struct wa_backend *b, struct wa_window_list *out);
wa_err backend_list_visible_windows(const struct wa_backend *b, struct wa_window_list *out);
wa_err backend_window_info(const struct wa_backend *b, uint64_t hwnd, struct wa_window *out);
wa_err backend_default_window(const struct wa_backend *b, uint64_t *hwnd);
wa_err backend_foreground_window(const struct wa_backend *b, uint64_t *hwnd);
wa_err backend_window_at(const struct wa_backend *b, int x, int y, uint64_t *hwnd);
wa_err backend_resolve_program(const struct wa_backend *b, const char *name, char **path,
                               char **runs);
wa_err backend_program_info(const struct wa_backend *b, const char *path,
                            struct wa_program_info *out);
wa_err backend_program_place(const struct wa_backend *b, const char *path,
                             struct wa_program_info *out);
wa_err backend_input_reaches(const struct wa_backend *b, uint64_t hwnd);
wa_err backend_input_handled(const struct wa_backend *b, uint64_t hwnd, int timeout_ms);
/* watch 0: none was taken (the slot is missing or failed); unwatch ignores 0. */
wa_err backend_watch_process(const struct wa_backend *b, uint64_t hwnd, uintptr_t *watch);
wa_err backend_process_state(const struct wa_backend *b, uintptr_t watch,
                             struct wa_process_state *out);
void backend_unwatch_process(const struct wa_backend *b, uintptr_t watch);
/* These three answer "none known" (count 0, parent 0, no wait) for a NULL slot. */
wa_err backend_started_by(const struct wa_backend *b, unsigned long pid, int64_t since_ms,
                          struct wa_started *out, size_t max, size_t *count);
wa_err backend_process_parent(const struct wa_backend *b, unsigned long pid, unsigned long *parent);
wa_err backend_wait_ready(const struct wa_backend *b, unsigned long pid, int timeout_ms);
wa_err backend_focus_window(const struct wa_backend *b, uint64_t hwnd);
wa_err backend_move_window(const struct wa_backend *b, uint64_t hwnd, struct wa_rect r);
wa_err backend_set_window_state(const struct wa_backend *b, uint64_t hwnd, enum wa_window_state s);
wa_err backend_close_window(const struct wa_backend *b, uint64_t hwnd);
wa_err backend_launch(const struct wa_backend *b, enum wa_launch_kind kind, const char *what,
                      int timeout_ms, uint64_t *hwnd);
/* These four answer "nothing known" (all false, 0) for a NULL slot, not an error. */
wa_err backend_window_kind(const struct wa_backend *b, uint64_t hwnd, struct wa_window_kind *out);
wa_err backend_focused_control(const struct wa_backend *b, uint64_t top, uint64_t *control);
wa_err backend_control_at(const struct wa_backend *b, int x, int y, uint64_t *control);
wa_err backend_clipboard_owner(const struct wa_backend *b, uint64_t *hwnd);
wa_err backend_monitors(const struct wa_backend *b, struct wa_monitor *out, size_t max,
                        size_t *count);
/* Everything unknown and WA_E_UNSUPPORTED for a NULL slot. */
wa_err backend_system_info(const struct wa_backend *b, struct wa_system_info *out);
wa_err backend_capture_screen(const struct wa_backend *b, struct wa_rect r, struct wa_image *out);
/* The virtual screen: the union of all monitors (origins may be negative). */
wa_err backend_virtual_screen(const struct wa_backend *b, struct wa_rect *out);
wa_err backend_capture_window(const struct wa_backend *b, uint64_t hwnd, struct wa_image *out,
                              struct wa_rect *frame);
wa_err backend_mouse_move(const struct wa_backend *b, int x, int y);
wa_err backend_mouse_button(const struct wa_backend *b, enum wa_button btn, bool down);
wa_err backend_type_text(const struct wa_backend *b, const char *utf8);
wa_err backend_press_keys(const struct wa_backend *b, const struct wa_key_combo *k);
wa_err backend_hold_keys(const struct wa_backend *b, const struct wa_key_combo *k, bool down);
wa_err backend_cursor_position(const struct wa_backend *b, int *x, int *y);
wa_err backend_watch_person(const struct wa_backend *b, void (*on_stop)(void *ctx), void *ctx);
/* *idle_ms INT64_MAX (nobody known) and WA_E_UNSUPPORTED for a NULL slot. */
wa_err backend_person_idle(const struct wa_backend *b, int64_t *idle_ms, bool *keyboard);
/* The capture of o->pixels taken before a walk, by capture (the backend's window slot),
 * for a get_tree that cannot take it beside the walk; what of o->prev looks the same in
 * it (a heap array for prev_same, the caller's to free), or NULL. */
bool *backend_pixels_first(wa_err (*capture)(uint64_t, struct wa_image *, struct wa_rect *),
                           uint64_t hwnd, const struct wa_tree_opts *o);
wa_err backend_get_tree(const struct wa_backend *b, uint64_t hwnd, const struct wa_tree_opts *o,
                        struct wa_tree *out);
wa_err backend_element_action(const struct wa_backend *b, struct wa_tree *t, size_t index,
                              enum wa_element_action a, const char *value, const char **via);
wa_err backend_element_value(const struct wa_backend *b, struct wa_tree *t, size_t index,
                             char **value);
wa_err backend_element_states(const struct wa_backend *b, struct wa_tree *t, size_t index,
                              unsigned *states);
wa_err backend_check_box_point(const struct wa_backend *b, struct wa_tree *t, size_t index, int *x,
                               int *y);
wa_err backend_focused_value(const struct wa_backend *b, uint64_t top, uint64_t *hwnd,
                             char **value);
wa_err backend_post_click(const struct wa_backend *b, uint64_t top, int x, int y,
                          enum wa_button btn, int count, uint64_t *child);
wa_err backend_post_wheel(const struct wa_backend *b, uint64_t top, int x, int y, int notches,
                          bool horizontal, uint64_t *child);
wa_err backend_post_text(const struct wa_backend *b, uint64_t hwnd, const char *utf8,
                         uint64_t *control);
wa_err backend_open_menus(const struct wa_backend *b, uint64_t hwnd, uint64_t *out, size_t max,
                          size_t *count);
wa_err backend_find_items(const struct wa_backend *b, struct wa_tree *t, size_t index,
                          const struct wa_item_query *q, size_t max, size_t *added);
wa_err backend_run_shell(const struct wa_backend *b, const char *shell, const char *command,
                         int timeout_ms, size_t cap, struct wa_shell_result *out);

/* Composite input built from the primitives above (portable). */
wa_err backend_click(const struct wa_backend *b, int x, int y, enum wa_button btn, int count);
/* notches > 0 scrolls up/right; at (x, y) when have_point. */
wa_err backend_scroll(const struct wa_backend *b, bool have_point, int x, int y, int notches,
                      bool horizontal);

#endif
