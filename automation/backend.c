/* Wrappers over the backend table: missing slots become WA_E_UNSUPPORTED, out-params
 * are cleared first, and composite input (click, drag, scroll) and window lookup by
 * selector are built once from the primitives. */
#include "automation/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/tree_pix.h"
#include "base/netpath.h"
#include "base/os.h"
#include "base/str.h"

#define UNSUPPORTED(b, what)                                                                       \
    wa_fail(WA_E_UNSUPPORTED, "the %s backend cannot %s", (b) ? (b)->name : "(none)", what)

void wa_window_cleanup(struct wa_window *w)
{
    if (!w)
        return;
    free(w->title);
    free(w->class_name);
    free(w->process);
    free(w->process_path);
    memset(w, 0, sizeof *w);
}

void wa_window_list_cleanup(struct wa_window_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        wa_window_cleanup(&l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

wa_err wa_window_copy(const struct wa_window *src, struct wa_window *dst)
{
    *dst = *src;
    dst->title = str_dup(src->title ? src->title : "");
    dst->class_name = str_dup(src->class_name ? src->class_name : "");
    dst->process = str_dup(src->process ? src->process : "");
    dst->process_path = str_dup(src->process_path ? src->process_path : "");
    if (!dst->title || !dst->class_name || !dst->process || !dst->process_path) {
        wa_window_cleanup(dst);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    return WA_E_OK;
}

void wa_shell_result_cleanup(struct wa_shell_result *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

wa_err backend_list_visible_windows(const struct wa_backend *b, struct wa_window_list *out)
{
    memset(out, 0, sizeof *out);
    if (b && b->list_visible_windows)
        return b->list_visible_windows(out);
    return backend_list_windows(b, out);
}

wa_err backend_list_windows(const struct wa_backend *b, struct wa_window_list *out)
{
    memset(out, 0, sizeof *out);
    return b && b->list_windows ? b->list_windows(out) : UNSUPPORTED(b, "list windows");
}

wa_err backend_window_info(const struct wa_backend *b, uint64_t hwnd, struct wa_window *out)
{
    memset(out, 0, sizeof *out);
    if (!hwnd)
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "no window handle given");
    return b && b->window_info ? b->window_info(hwnd, out) : UNSUPPORTED(b, "describe windows");
}

wa_err backend_default_window(const struct wa_backend *b, uint64_t *hwnd)
{
    *hwnd = 0;
    return b && b->default_window ? b->default_window(hwnd)
                                  : UNSUPPORTED(b, "find the target window");
}

wa_err backend_foreground_window(const struct wa_backend *b, uint64_t *hwnd)
{
    *hwnd = 0;
    return b && b->foreground_window ? b->foreground_window(hwnd)
                                     : UNSUPPORTED(b, "tell the foreground window");
}

wa_err backend_window_at(const struct wa_backend *b, int x, int y, uint64_t *hwnd)
{
    *hwnd = 0;
    return b && b->window_at ? b->window_at(x, y, hwnd) : UNSUPPORTED(b, "tell windows at a point");
}

wa_err backend_resolve_program(const struct wa_backend *b, const char *name, char **path,
                               char **runs)
{
    *path = *runs = NULL;
    if (!name || !*name)
        return wa_fail(WA_E_INVALID_ARGS, "no program named");
    const char *remote = netpath_remote(name); /* never looked up, whatever the backend */
    if (remote)
        return wa_fail(WA_E_DENIED, "%s", remote);
    return b && b->resolve_program ? b->resolve_program(name, path, runs)
                                   : UNSUPPORTED(b, "look programs up");
}

wa_err backend_input_reaches(const struct wa_backend *b, uint64_t hwnd)
{
    return b && b->input_reaches ? b->input_reaches(hwnd) : WA_E_OK;
}

wa_err backend_input_handled(const struct wa_backend *b, uint64_t hwnd, int timeout_ms)
{
    if (!hwnd)
        return wa_fail(WA_E_INVALID_ARGS, "no window to wait for");
    return b && b->input_handled ? b->input_handled(hwnd, timeout_ms < 0 ? 0 : timeout_ms)
                                 : UNSUPPORTED(b, "tell when input was handled");
}

wa_err backend_watch_process(const struct wa_backend *b, uint64_t hwnd, uintptr_t *watch)
{
    *watch = 0;
    if (!hwnd)
        return wa_fail(WA_E_INVALID_ARGS, "no window to watch the program of");
    return b && b->watch_process ? b->watch_process(hwnd, watch) : UNSUPPORTED(b, "watch programs");
}

wa_err backend_process_state(const struct wa_backend *b, uintptr_t watch,
                             struct wa_process_state *out)
{
    memset(out, 0, sizeof *out);
    if (!watch)
        return wa_fail(WA_E_INVALID_ARGS, "no program is watched");
    return b && b->process_state ? b->process_state(watch, out) : UNSUPPORTED(b, "watch programs");
}

void backend_unwatch_process(const struct wa_backend *b, uintptr_t watch)
{
    if (watch && b && b->unwatch_process)
        b->unwatch_process(watch);
}

wa_err backend_started_by(const struct wa_backend *b, unsigned long pid, int64_t since_ms,
                          struct wa_started *out, size_t max, size_t *count)
{
    *count = 0;
    return b && b->started_by && pid && max ? b->started_by(pid, since_ms, out, max, count)
                                            : WA_E_OK;
}

wa_err backend_process_parent(const struct wa_backend *b, unsigned long pid, unsigned long *parent)
{
    *parent = 0;
    return b && b->process_parent && pid ? b->process_parent(pid, parent) : WA_E_OK;
}

wa_err backend_wait_ready(const struct wa_backend *b, unsigned long pid, int timeout_ms)
{
    return b && b->wait_ready && pid && timeout_ms > 0 ? b->wait_ready(pid, timeout_ms) : WA_E_OK;
}

void wa_program_info_cleanup(struct wa_program_info *p)
{
    free(p->original_name);
    memset(p, 0, sizeof *p);
}

/* The start of both questions about a program file: out cleared; true when they are
 * answered already: no path (*e says so), or a path on a share by its spelling (out
 * says so, and the file is never opened, whatever the backend). */
static bool answered_already(const char *path, struct wa_program_info *out, wa_err *e)
{
    memset(out, 0, sizeof *out);
    *e = path ? WA_E_OK : wa_fail(WA_E_INVALID_ARGS, "no program file");
    const char *remote = path ? netpath_remote(path) : NULL;
    if (remote) {
        snprintf(out->place_why, sizeof out->place_why, "%s", remote);
        out->place = WA_PLACE_NETWORK;
    }
    return !path || remote;
}

wa_err backend_program_info(const struct wa_backend *b, const char *path,
                            struct wa_program_info *out)
{
    wa_err e;
    if (answered_already(path, out, &e))
        return e;
    return b && b->program_info ? b->program_info(path, out)
                                : wa_fail(WA_E_UNSUPPORTED, "this backend reads no program files");
}

wa_err backend_program_place(const struct wa_backend *b, const char *path,
                             struct wa_program_info *out)
{
    wa_err e;
    if (answered_already(path, out, &e))
        return e;
    if (b && b->program_place)
        return b->program_place(path, out);
    e = backend_program_info(b, path, out);
    free(out->original_name);
    out->original_name = NULL;
    return e;
}

wa_err backend_window_kind(const struct wa_backend *b, uint64_t hwnd, struct wa_window_kind *out)
{
    memset(out, 0, sizeof *out);
    return b && b->window_kind && hwnd ? b->window_kind(hwnd, out) : WA_E_OK;
}

wa_err backend_focused_control(const struct wa_backend *b, uint64_t top, uint64_t *control)
{
    *control = 0;
    return b && b->focused_control && top ? b->focused_control(top, control) : WA_E_OK;
}

wa_err backend_control_at(const struct wa_backend *b, int x, int y, uint64_t *control)
{
    *control = 0;
    return b && b->control_at ? b->control_at(x, y, control) : WA_E_OK;
}

wa_err backend_clipboard_owner(const struct wa_backend *b, uint64_t *hwnd)
{
    *hwnd = 0;
    return b && b->clipboard_owner ? b->clipboard_owner(hwnd) : WA_E_OK;
}

wa_err backend_focus_window(const struct wa_backend *b, uint64_t hwnd)
{
    return b && b->focus_window ? b->focus_window(hwnd) : UNSUPPORTED(b, "focus windows");
}

wa_err backend_move_window(const struct wa_backend *b, uint64_t hwnd, struct wa_rect r)
{
    if (wa_rect_width(r) <= 0 || wa_rect_height(r) <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "width and height must be positive");
    return b && b->move_window ? b->move_window(hwnd, r) : UNSUPPORTED(b, "move windows");
}

wa_err backend_set_window_state(const struct wa_backend *b, uint64_t hwnd, enum wa_window_state s)
{
    return b && b->set_window_state ? b->set_window_state(hwnd, s)
                                    : UNSUPPORTED(b, "change window states");
}

wa_err backend_close_window(const struct wa_backend *b, uint64_t hwnd)
{
    return b && b->close_window ? b->close_window(hwnd) : UNSUPPORTED(b, "close windows");
}

wa_err backend_launch(const struct wa_backend *b, enum wa_launch_kind kind, const char *what,
                      int timeout_ms, uint64_t *hwnd)
{
    *hwnd = 0;
    if (!what || !*what)
        return wa_fail(WA_E_INVALID_ARGS, "launch needs a command");
    return b && b->launch ? b->launch(kind, what, timeout_ms, hwnd)
                          : UNSUPPORTED(b, "launch programs");
}

wa_err backend_monitors(const struct wa_backend *b, struct wa_monitor *out, size_t max,
                        size_t *count)
{
    *count = 0;
    return b && b->monitors ? b->monitors(out, max, count) : UNSUPPORTED(b, "list monitors");
}

void wa_system_info_init(struct wa_system_info *s)
{
    memset(s, 0, sizeof *s);
    s->os_major = s->os_minor = s->os_build = s->os_revision = -1;
    s->session = s->console_session = s->integrity = -1;
    s->elevated = s->uiaccess = s->uac_enabled = s->consent_prompt_admin = -1;
    s->prompt_on_secure_desktop = s->uia = s->remote = -1;
    s->dpi_awareness = WA_DPI_UNKNOWN;
}

wa_err backend_system_info(const struct wa_backend *b, struct wa_system_info *out)
{
    wa_system_info_init(out);
    return b && b->system_info ? b->system_info(out) : UNSUPPORTED(b, "describe the machine");
}

wa_err backend_capture_screen(const struct wa_backend *b, struct wa_rect r, struct wa_image *out)
{
    memset(out, 0, sizeof *out);
    if (wa_rect_empty(r))
        return wa_fail(WA_E_INVALID_ARGS, "empty capture rectangle");
    return b && b->capture_screen ? b->capture_screen(r, out)
                                  : UNSUPPORTED(b, "capture the screen");
}

wa_err backend_virtual_screen(const struct wa_backend *b, struct wa_rect *out)
{
    struct wa_monitor m[16];
    size_t n;
    wa_err e = backend_monitors(b, m, 16, &n);
    if (e)
        return e;
    if (n == 0)
        return wa_fail(WA_E_ACTION_FAILED, "no monitors");
    *out = m[0].rect;
    for (size_t i = 1; i < n; i++) {
        if (m[i].rect.left < out->left)
            out->left = m[i].rect.left;
        if (m[i].rect.top < out->top)
            out->top = m[i].rect.top;
        if (m[i].rect.right > out->right)
            out->right = m[i].rect.right;
        if (m[i].rect.bottom > out->bottom)
            out->bottom = m[i].rect.bottom;
    }
    return WA_E_OK;
}

wa_err backend_capture_window(const struct wa_backend *b, uint64_t hwnd, struct wa_image *out,
                              struct wa_rect *frame)
{
    memset(out, 0, sizeof *out);
    memset(frame, 0, sizeof *frame);
    return b && b->capture_window ? b->capture_window(hwnd, out, frame)
                                  : UNSUPPORTED(b, "capture windows");
}

wa_err backend_mouse_move(const struct wa_backend *b, int x, int y)
{
    return b && b->mouse_move ? b->mouse_move(x, y) : UNSUPPORTED(b, "move the mouse");
}

wa_err backend_mouse_button(const struct wa_backend *b, enum wa_button btn, bool down)
{
    return b && b->mouse_button ? b->mouse_button(btn, down)
                                : UNSUPPORTED(b, "press mouse buttons");
}

static wa_err backend_mouse_wheel(const struct wa_backend *b, int delta, bool horizontal)
{
    return b && b->mouse_wheel ? b->mouse_wheel(delta, horizontal) : UNSUPPORTED(b, "scroll");
}

wa_err backend_type_text(const struct wa_backend *b, const char *utf8)
{
    if (!utf8)
        return wa_fail(WA_E_INVALID_ARGS, "type needs text");
    return b && b->type_text ? b->type_text(utf8) : UNSUPPORTED(b, "type text");
}

wa_err backend_press_keys(const struct wa_backend *b, const struct wa_key_combo *k)
{
    if (!k || k->count <= 0)
        return wa_fail(WA_E_INVALID_ARGS, "no keys to press");
    return b && b->press_keys ? b->press_keys(k) : UNSUPPORTED(b, "press keys");
}

wa_err backend_hold_keys(const struct wa_backend *b, const struct wa_key_combo *k, bool down)
{
    if (!k || k->count <= 0 || k->count > WA_MAX_COMBO_KEYS)
        return wa_fail(WA_E_INVALID_ARGS, "no keys to hold");
    return b && b->hold_keys ? b->hold_keys(k, down) : UNSUPPORTED(b, "hold keys down");
}

wa_err backend_cursor_position(const struct wa_backend *b, int *x, int *y)
{
    *x = *y = 0;
    return b && b->cursor_position ? b->cursor_position(x, y)
                                   : UNSUPPORTED(b, "tell where the pointer is");
}

wa_err backend_watch_person(const struct wa_backend *b, void (*on_stop)(void *ctx), void *ctx)
{
    return b && b->watch_person ? b->watch_person(on_stop, ctx)
                                : UNSUPPORTED(b, "tell a person's input from its own");
}

wa_err backend_person_idle(const struct wa_backend *b, int64_t *idle_ms, bool *keyboard)
{
    *idle_ms = INT64_MAX;
    *keyboard = false;
    return b && b->person_idle ? b->person_idle(idle_ms, keyboard)
                               : UNSUPPORTED(b, "tell a person's input from its own");
}

bool *backend_pixels_first(wa_err (*capture)(uint64_t, struct wa_image *, struct wa_rect *),
                           uint64_t hwnd, const struct wa_tree_opts *o)
{
    struct wa_tree_pixels *px = o->pixels;
    memset(px, 0, sizeof *px);
    double t0 = os_clock_ms();
    if (!capture || capture(hwnd, &px->img, &px->frame) != WA_E_OK) {
        wa_err_clear();
        image_cleanup(&px->img);
    }
    px->ms = os_clock_ms() - t0;
    return o->prev && o->prev->hwnd == hwnd && px->img.px
               ? tree_pix_same(o->prev, &px->img, px->frame)
               : NULL;
}

wa_err backend_get_tree(const struct wa_backend *b, uint64_t hwnd, const struct wa_tree_opts *o,
                        struct wa_tree *out)
{
    tree_init(out);
    if (!b || !b->get_tree)
        return UNSUPPORTED(b, "read the accessibility tree");
    if (!o || !o->pixels || b->walk_captures)
        return b->get_tree(hwnd, o, out);
    struct wa_tree_opts walk = *o;
    bool *same = backend_pixels_first(b->capture_window, hwnd, o);
    walk.prev_same = same;
    walk.pixels = NULL;
    wa_err e = b->get_tree(hwnd, &walk, out);
    free(same);
    return e;
}

wa_err backend_element_action(const struct wa_backend *b, struct wa_tree *t, size_t index,
                              enum wa_element_action a, const char *value, const char **via)
{
    *via = NULL;
    if (index >= t->count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %zu in the tree", index + 1);
    return b && b->element_action ? b->element_action(t, index, a, value, via)
                                  : UNSUPPORTED(b, "use accessibility patterns");
}

wa_err backend_element_value(const struct wa_backend *b, struct wa_tree *t, size_t index,
                             char **value)
{
    *value = NULL;
    if (index >= t->count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %zu in the tree", index + 1);
    return b && b->element_value ? b->element_value(t, index, value)
                                 : UNSUPPORTED(b, "read values back");
}

wa_err backend_element_states(const struct wa_backend *b, struct wa_tree *t, size_t index,
                              unsigned *states)
{
    *states = 0;
    if (index >= t->count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %zu in the tree", index + 1);
    return b && b->element_states ? b->element_states(t, index, states)
                                  : UNSUPPORTED(b, "read an element's states back");
}

wa_err backend_check_box_point(const struct wa_backend *b, struct wa_tree *t, size_t index, int *x,
                               int *y)
{
    *x = *y = 0;
    if (index >= t->count)
        return wa_fail(WA_E_ELEMENT_NOT_FOUND, "no element %zu in the tree", index + 1);
    return b && b->check_box_point ? b->check_box_point(t, index, x, y)
                                   : UNSUPPORTED(b, "find an item's check box");
}

wa_err backend_focused_value(const struct wa_backend *b, uint64_t top, uint64_t *hwnd, char **value)
{
    *value = NULL;
    *hwnd = 0;
    return b && b->focused_value ? b->focused_value(top, hwnd, value)
                                 : UNSUPPORTED(b, "read values back");
}

wa_err backend_post_click(const struct wa_backend *b, uint64_t top, int x, int y,
                          enum wa_button btn, int count, uint64_t *child)
{
    *child = 0;
    if (count < 1 || count > 3)
        return wa_fail(WA_E_INVALID_ARGS, "click count %d (1-3)", count);
    return b && b->post_click ? b->post_click(top, x, y, btn, count, child)
                              : UNSUPPORTED(b, "post clicks to a window");
}

wa_err backend_post_wheel(const struct wa_backend *b, uint64_t top, int x, int y, int notches,
                          bool horizontal, uint64_t *child)
{
    *child = 0;
    if (notches == 0 || notches > 100 || notches < -100)
        return wa_fail(WA_E_INVALID_ARGS, "%d notches (1-100 either way)", notches);
    return b && b->post_wheel ? b->post_wheel(top, x, y, notches, horizontal, child)
                              : UNSUPPORTED(b, "post wheel messages to a window");
}

wa_err backend_post_text(const struct wa_backend *b, uint64_t hwnd, const char *utf8,
                         uint64_t *control)
{
    *control = 0;
    if (!utf8)
        return wa_fail(WA_E_INVALID_ARGS, "no text");
    return b && b->post_text ? b->post_text(hwnd, utf8, control)
                             : UNSUPPORTED(b, "post text to a window");
}

wa_err backend_open_menus(const struct wa_backend *b, uint64_t hwnd, uint64_t *out, size_t max,
                          size_t *count)
{
    *count = 0;
    if (!hwnd)
        return wa_fail(WA_E_INVALID_ARGS, "no window named");
    return b && b->open_menus ? b->open_menus(hwnd, out, max, count)
                              : UNSUPPORTED(b, "list open menus");
}

wa_err backend_find_items(const struct wa_backend *b, struct wa_tree *t, size_t index,
                          const struct wa_item_query *q, size_t max, size_t *added)
{
    *added = 0;
    if (index >= t->count || !t->nodes[index].coll.is)
        return wa_fail(WA_E_INVALID_ARGS, "element %zu is no collection to search", index + 1);
    return b && b->find_items ? b->find_items(t, index, q, max, added)
                              : UNSUPPORTED(b, "search collections beyond what it lists");
}

bool wa_item_query_names(const struct wa_item_query *q, const char *name)
{
    if (!q->name)
        return true;
    if (!name)
        return false;
    return q->wildcard ? str_wildcard(q->name, name) : strcmp(q->name, name) == 0;
}

wa_err backend_run_shell(const struct wa_backend *b, const char *shell, const char *command,
                         int timeout_ms, size_t cap, struct wa_shell_result *out)
{
    memset(out, 0, sizeof *out);
    if (!command || !*command)
        return wa_fail(WA_E_INVALID_ARGS, "no command given");
    return b && b->run_shell ? b->run_shell(shell, command, timeout_ms, cap, out)
                             : UNSUPPORTED(b, "run shell commands");
}

/* Presses and releases a button; the release is attempted even when the press
 * reported an error, so no button is left held. */
static wa_err press_release(const struct wa_backend *b, enum wa_button btn)
{
    wa_err e = backend_mouse_button(b, btn, true);
    wa_err e2 = backend_mouse_button(b, btn, false);
    return e ? e : e2;
}

wa_err backend_click(const struct wa_backend *b, int x, int y, enum wa_button btn, int count)
{
    wa_err e = backend_mouse_move(b, x, y);
    for (int i = 0; !e && i < count; i++)
        e = press_release(b, btn);
    return e;
}

wa_err backend_scroll(const struct wa_backend *b, bool have_point, int x, int y, int notches,
                      bool horizontal)
{
    if (notches == 0)
        return wa_fail(WA_E_INVALID_ARGS, "scroll amount must not be 0");
    wa_err e = have_point ? backend_mouse_move(b, x, y) : WA_E_OK;
    int step = notches > 0 ? 1 : -1;
    for (int i = 0; !e && i != notches; i += step)
        e = backend_mouse_wheel(b, 120 * step, horizontal);
    return e;
}
