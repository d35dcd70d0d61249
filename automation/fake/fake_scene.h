/* The fake desktop's scene (a JSON document: monitors, windows with their trees,
 * programs, shell answers), the actions recorded on it, and the reading of it every
 * part of the fake backend shares. */
#ifndef WINAGENT_FAKE_SCENE_H
#define WINAGENT_FAKE_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "automation/backend.h"

/* Replaces the scene. base_dir resolves relative image paths (may be NULL). */
wa_err fake_load_scene(const char *json, const char *base_dir);
/* The actions recorded since the scene was loaded, as a JSON array text (free()). */
char *fake_actions_json(void);
/* The paths looked up (resolved, read) since the scene was loaded, as a JSON array of
 * strings (free()): what on Windows would have reached the file system. */
char *fake_lookups_json(void);
/* Records that path was looked up. */
void fake_scene_lookup(const char *path);

/* A row of a collection, made once it is listed or found and kept with the scene (the
 * trees that hold it point at it). */
struct fake_row {
    cJSON *coll; /* the scene node with "collection" */
    cJSON *row;  /* in the node's "_rows", in index order */
};

/* The scene and what was done to it (fake_scene.c). */
struct fake_scene_state {
    cJSON *scene;
    struct fake_row *rows;
    size_t nrows, cap_rows;
    cJSON *actions; /* array of recorded actions */
    cJSON *lookups; /* array of the paths looked up */
    char *base_dir;
    int cursor_x, cursor_y;
    uint64_t next_hwnd;
    int64_t loaded_ms; /* when the scene was loaded (os_now_ms) */
    int inputs;        /* foreground inputs received since */
};
extern struct fake_scene_state fake_scene_state;

cJSON *fake_scene_windows_array(void);

/* Called after every foreground input the fake desktop received (a mouse move, a button,
 * the wheel, text, keys): fake_person.c counts them. */
extern void (*fake_scene_input_hook)(void);
void fake_scene_input_sent(void);

/* Appends {"op": op, ...fields} to the fake_scene_record (takes ownership of fields). */
void fake_scene_record(const char *op, cJSON *fields);

wa_err fake_scene_init(void);

void fake_scene_shutdown(void);

uint64_t fake_scene_json_hwnd(const cJSON *v);

struct wa_rect fake_scene_json_rect(const cJSON *v);

const char *fake_scene_json_str(const cJSON *o, const char *name);

cJSON *fake_scene_find_window(uint64_t hwnd);

cJSON *fake_scene_foreground_window(void);

void fake_scene_set_string(cJSON *o, const char *name, const char *value);

void fake_scene_make_foreground(cJSON *win);

wa_err fake_scene_window_from_json(const cJSON *w, struct wa_window *out);

wa_err fake_scene_no_window(uint64_t hwnd);

cJSON *fake_scene_hwnd_fields(uint64_t hwnd);

wa_err fake_scene_window_at(int x, int y, uint64_t *hwnd);

/* How many physical pixels one of window w's own pixels covers. Its "dpi_awareness":
 * "unaware" draws at 96 DPI and Windows stretches it to its monitor's DPI; "system"
 * draws at the primary monitor's DPI and is stretched on a monitor of another;
 * "per_monitor" (the default) draws in physical pixels. */
double fake_scene_window_scale(const cJSON *w);

/* A node's "bounds" are in its window's own pixels, counted from the window's top-left
 * corner, which the window's "rect" places on the screen in physical pixels: the same
 * numbers as the screen's for a per-monitor-aware window. */
struct wa_rect fake_scene_bounds_to_physical(const cJSON *w, struct wa_rect b);

/* The deepest node of n whose bounds hold (x, y), in its window's own pixels. */
const cJSON *fake_scene_node_at(const cJSON *n, double x, double y);

/* The node of a tree with its own window hwnd (depth first), or NULL. */
cJSON *fake_scene_node_with_hwnd(cJSON *node, uint64_t hwnd);

/* The deepest node with a window of its own whose bounds hold (x, y), else NULL. */
cJSON *fake_scene_child_at(cJSON *node, int x, int y);

/* Whether node n has state word w; setting or clearing it. */
bool fake_scene_has_state(const cJSON *n, const char *w);
void fake_scene_set_state(cJSON *n, const char *w, bool on);

/* Whether node n ignores action `what` ("toggle", "select", "expand", "collapse",
 * "set_value", "click", "set_window_state"): its "ignores" list names it. Such a node
 * takes the action (it is recorded, and answers ok) and changes nothing, as a program
 * that does not react would. */
bool fake_scene_ignores(const cJSON *n, const char *what);

/* Turns node n's check box over: checked -> unchecked, unchecked or mixed -> checked. */
void fake_scene_toggle_check(cJSON *n);

/* A press of the left button at screen pixel (x, y): the node of the window there whose
 * "check_box" (a rectangle in its window's pixels, as "bounds") holds the point turns
 * its check box over, as a program does for a click on an item's state image. */
void fake_scene_click_check_box(int x, int y);

#endif
