/* The fake desktop's input, foreground and background. */
#ifndef WINAGENT_FAKE_INPUT_H
#define WINAGENT_FAKE_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "automation/backend.h"

/* The wa_backend slots of input (automation/backend.h gives their contract). */
wa_err fake_input_mouse_move(int x, int y);

wa_err fake_input_mouse_button(enum wa_button b, bool down);

wa_err fake_input_mouse_wheel(int delta, bool horizontal);

/* The focused node of a tree, depth first. */
cJSON *fake_input_focused_node(cJSON *node);

void fake_input_move_focus(cJSON *n);

wa_err fake_input_type_text(const char *utf8);

/* Appends typed text to a node's value, as a control does; "readonly": true scripts a
 * control that drops what is typed. */
wa_err fake_input_type_into(cJSON *node, const char *utf8);

wa_err fake_input_press_keys(const struct wa_key_combo *k);

wa_err fake_input_hold_keys(const struct wa_key_combo *k, bool down);

wa_err fake_input_cursor_position(int *x, int *y);

wa_err fake_input_post_wheel(uint64_t top, int x, int y, int notches, bool horizontal,
                             uint64_t *child);

wa_err fake_input_post_click(uint64_t top, int x, int y, enum wa_button b, int count,
                             uint64_t *child);

wa_err fake_input_post_text(uint64_t hwnd, const char *utf8, uint64_t *control);

#endif
