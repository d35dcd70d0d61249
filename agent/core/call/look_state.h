/* What look.c keeps for one call: the look before an acting operation, and the
 * captures and walks of the call's window that later looks use again (look.h). call.h
 * embeds it as call.look. */
#ifndef WINAGENT_AGENT_CORE_CALL_LOOK_STATE_H
#define WINAGENT_AGENT_CORE_CALL_LOOK_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "automation/backend.h"

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

struct look_state {
    struct before_look before;
    bool fresh;                        /* the session's tree was walked during this call */
    const struct wa_image *pixels_now; /* the window as it looks now, when known */
    struct wa_rect pixels_frame;       /* what pixels_now shows (screen pixels) */
    /* The window captured while its tree was walked, for the observation to use
     * (taken by the capture hook) when the tree is rejected. */
    struct wa_image walk_image;
    struct wa_rect walk_frame;
    uint64_t walk_window;
};

#endif
