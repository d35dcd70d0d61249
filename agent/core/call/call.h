/* Inside the core: the state of a core and a session, and the view of one request
 * being performed that every part of the core works on. Only agent/core/ includes
 * this. */
#ifndef WINAGENT_AGENT_CORE_CALL_CALL_H
#define WINAGENT_AGENT_CORE_CALL_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/core/gate/gate.h"
#include "agent/core/call/guard_state.h"
#include "agent/core/call/look_state.h"
#include "agent/core/call/send_state.h"
#include "agent/core/call/target_state.h"
#include "agent/core/call/verify_state.h"
#include "agent/core/config/core_config.h"
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

/* One request being performed. Each module's own state of it is a member of its own
 * type, in its own header: look, send, verify, guard, target. */
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
    const char *name; /* the operation's name in the caller's front end */
    struct target_state target;
    struct look_state look;
    struct send_state send;
    struct verify_state verify;
    struct guard_state guard;
};

/* The operation's one-line summary for progress ("click (512,300)"). */
void call_summary(struct call *k, const char *fmt, ...) WA_PRINTF(2, 3);

#endif
