/* The one dispatcher of the `desktop` tool (SPEC §3): the loop, `winagent act`,
 * replay and the MCP server all run desktop calls through desktop_call. It maps
 * aliases, translates 0-999 coordinates against the frame of the latest observation,
 * resolves element ids against the latest tree, keeps the target window in front,
 * and returns a JSON result plus, for acting calls, a fresh observation. */
#ifndef WINAGENT_AGENT_DESKTOP_H
#define WINAGENT_AGENT_DESKTOP_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "agent/actions.h"
#include "agent/observe.h"
#include "automation/backend.h"

struct desktop_opts {
    struct observe_opts observe; /* mode, max_edge, tree budget */
    bool dry_run;                /* describe acting calls, perform none */
    bool observe_after;          /* a fresh observation after every acting call */
    bool annotate;               /* debug image with a crosshair for coordinate actions */
    int settle_ms;               /* pause before the observation after acting */
    uint64_t pinned_window;      /* --window: every call targets this window */
};

struct desktop_session {
    const struct wa_backend *be;
    struct desktop_opts opts;
    struct wa_rect frame; /* frame of the latest observation */
    bool have_frame;
    uint64_t target;     /* window of the latest observation; 0 for a monitor */
    struct wa_tree tree; /* tree of the latest observation: element ids index it */
    bool have_tree;
};

struct desktop_result {
    enum desktop_action action;
    bool action_known;
    wa_err err;
    cJSON *json;              /* {"ok":true,...} or {"ok":false,"error":{code,message}} */
    struct observation obs;   /* the observation returned (kind OBS_NONE when none) */
    struct wa_image annotate; /* debug image for coordinate actions (never sent) */
    bool has_annotate;
    char summary[256]; /* one line for progress: "click (512,300) -> ok" */
    double action_ms;  /* time spent acting (backend calls, without observing) */
};

void desktop_session_init(struct desktop_session *s, const struct wa_backend *be,
                          const struct desktop_opts *o);
void desktop_session_cleanup(struct desktop_session *s);
/* Defaults: mode auto, max edge 1280, tree budget 3000 ms, settle 300 ms. */
void desktop_opts_default(struct desktop_opts *o);

void desktop_result_init(struct desktop_result *r);
void desktop_result_cleanup(struct desktop_result *r);

/* Runs one desktop call. args is the tool's JSON object. The result is always
 * filled (r->json is never NULL afterwards); the return value is r->err. */
wa_err desktop_call(struct desktop_session *s, const cJSON *args, struct desktop_result *r);
/* The same from JSON text; malformed JSON gives an invalid_args result naming the
 * problem. */
wa_err desktop_call_text(struct desktop_session *s, const char *json, struct desktop_result *r);

/* Makes window hwnd the session's observation target without observing: frame =
 * its rectangle (for `act` and the CLI's coordinate commands). */
wa_err desktop_session_use_window(struct desktop_session *s, uint64_t hwnd);

/* Window state for results: {"hwnd","title","is_foreground","rect":[l,t,r,b]}; NULL
 * when the window is gone. */
cJSON *desktop_window_state(const struct wa_backend *be, uint64_t hwnd);

/* A window as JSON (the `windows` command and list_windows). */
cJSON *desktop_window_json(const struct wa_window *w);

#endif
