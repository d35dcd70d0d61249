/* Inside the core: the state of a core and a session, and the view of one request
 * being performed that every part of the core works on. Only agent/core/ includes
 * this. */
#ifndef WINAGENT_AGENT_CORE_CALL_CALL_H
#define WINAGENT_AGENT_CORE_CALL_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/core/config/core_config.h"
#include "agent/core/call/gate.h"
#include "agent/core/request/request.h"
#include "base/os.h"

struct core {
    struct core_config cfg; /* strings below are owned copies */
    const struct wa_backend *be;
    struct gate *gate;
    char *state_dir;
    char *shell_program;    /* NULL: the backend's default shell */
    struct os_mutex *input; /* acting operations of this process, one at a time */
};

struct session {
    struct core *core;
    struct session_opts o;
    struct os_mutex *lock;
    uint64_t pinned;      /* --window */
    struct wa_rect frame; /* frame of the latest observation: what 0-999 spans */
    bool have_frame;
    uint64_t target;     /* window of the latest observation; 0 for a monitor */
    struct wa_tree tree; /* tree of the latest observation, handles kept */
    bool have_tree;
    bool marked; /* the latest observation was an image with numbered marks */
    /* A hash of the window's pixels when its tree was walked: while they are the same
     * (and nothing else moved), the tree still holds. */
    bool have_tree_pixels;
    uint64_t tree_pixels;
    /* Refs kept in memory (session_opts.refs_on_disk false): the last state of each
     * window, keyed by "0x<hwnd>", and the window of the last one. */
    cJSON *refs;
    uint64_t refs_last;
    /* session_opts.one_display: the screen rectangle every observation shows, fixed by
     * the first screenshot of a monitor. */
    struct wa_rect display;
    bool have_display;
    /* What key_down and mouse_down left pressed, released by key_up and mouse_up or when
     * the session ends: the keys in the order they went down, the buttons as bits
     * (1 << enum wa_button) with where each went down. */
    unsigned short held_keys[WA_MAX_COMBO_KEYS * 2];
    int n_held_keys;
    unsigned held_buttons;
    int down_x[3], down_y[3];
    /* A window of a program outside the allow-list that an action of this session
     * brought up or to the front (named in that action's result): no input is sent
     * while it is in front. 0: none. */
    uint64_t intruder;
};

/* What the core looked at before an acting operation, to wait for its effect and to
 * say what it changed. */
struct before_look {
    bool have;
    uint64_t window; /* the operation's window */
    uint64_t fg;     /* the foreground window */
    bool have_windows;
    struct wa_window_list windows;
    bool have_image;
    struct wa_image image; /* the window as it looked */
    struct wa_rect frame;  /* what image shows (screen pixels) */
    bool hashed;
    uint64_t image_hash; /* of image, once asked for (look.c) */
    bool have_after_image;
    struct wa_image after_image; /* ... and once the action settled */
    struct wa_rect after_frame;
    bool have_tree;
    struct wa_tree tree; /* its tree (taken from the session when the after look comes) */
    uintptr_t watch;     /* a hold on the window's process (backend_watch_process), or 0 */
    unsigned long pid;   /* that process, and its name, for messages */
    char process[64];
    int64_t at_ms;   /* when the look ended: the input goes right after */
    int64_t wall_ms; /* when the look began, by the wall clock (os_time_ms): a process the
                      * target started since is one the action may have started */
};

/* One request being performed. */
struct call {
    struct session *s;
    struct core *c;
    const struct wa_backend *be;
    const struct op_request *q;
    struct op_result *r;
    bool dry;
    /* The window that received the last input the call sent, for the audit. */
    uint64_t receiver;
    char receiver_process[260];
    const char *name;  /* the operation's name in the caller's front end */
    bool names_window; /* the request names its window (target_named, asked before
                        * the look before made one the session's) */
    bool fresh;        /* the session's tree was walked during this call */
    struct before_look before;
    bool settled;        /* the operation waited for its own effect (text read back) */
    int noted_match;     /* the note that a selector matched several windows is made */
    int64_t progress_at; /* when the front end was last told of progress */
    bool unchanged;      /* the settle saw no change at all (pixels, foreground) */
    bool silent;         /* the settle got no answer from the window's thread (busy, hung,
                          * or gone): what became of its program is asked (verify.h) */
    bool may_open_menu;  /* the input can open a menu: the settle waits longer for one */
    const struct wa_image *pixels_now; /* the window as it looks now, when known */
    struct wa_rect pixels_frame;       /* what pixels_now shows (screen pixels) */
    /* The window captured while its tree was walked, for the observation to use
     * (taken by the capture hook) when the tree is rejected. */
    struct wa_image walk_image;
    struct wa_rect walk_frame;
    uint64_t walk_window;
    bool via_pattern;    /* the input about to be sent is an accessibility pattern call,
                          * which reaches elevated windows where SendInput does not */
    bool pattern_action; /* it acted through an accessibility pattern, which can change
                          * an element's state where no pixel shows it */
    /* Background delivery (background, or auto's first try): nothing is focused, the
     * cursor stays, no SendInput; input goes by patterns and posted messages to the
     * call's window only (send.h). */
    bool background;
    uint64_t text_control; /* background typing: the element's own window (0: the window's
                            * focused control) */
    /* The last receiver judged as a route to a shell (the shell off), and the verdict:
     * typing checks its receiver every few characters, and reading its program's file
     * each time would cost more than the typing. */
    uint64_t route_window, route_control;
    const char *route; /* NULL: none */
    bool route_judged;
    enum gate_input route_input;
    /* The keys about to be sent may take the focus out of its control (send.c). */
    bool keys_away;
    /* The programs the call's program started while it acted (verify_started). */
    struct wa_started started[4];
    size_t n_started;
};

/* The operation's one-line summary for progress ("click (512,300)"). */
void call_summary(struct call *k, const char *fmt, ...) WA_PRINTF(2, 3);

#endif
