/* Mouse and keyboard on Windows: the backend's input slots (SendInput). */
#ifndef WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_INPUT_H
#define WINAGENT_AUTOMATION_WIN_DESKTOP_WIN_INPUT_H

#include <stdbool.h>

#include "automation/backend.h"

/* Moves the pointer to screen pixel (x, y) (virtual screen, physical) and checks
 * that it got there; WA_E_INVALID_ARGS outside every monitor. */
wa_err win_mouse_move(int x, int y);
/* Presses or releases a logical button (swapped mouse buttons are accounted for). */
wa_err win_mouse_button(enum wa_button b, bool down);
/* delta in WHEEL_DELTA units, positive = up / right; sent one notch per event. */
wa_err win_mouse_wheel(int delta, bool horizontal);
/* Types UTF-8 text as Unicode key events into the focused control; "\n" (or "\r\n")
 * presses Enter and "\t" Tab. Independent of the keyboard layout. */
wa_err win_type_text(const char *utf8);
/* Presses a chord: keys down in order, up in reverse. Never leaves a key down. */
wa_err win_press_keys(const struct wa_key_combo *k);
/* Presses a chord's keys and leaves them down, or releases them in reverse order. */
wa_err win_hold_keys(const struct wa_key_combo *k, bool down);
/* The pointer's position in screen pixels (physical: the process is DPI aware). */
wa_err win_cursor_position(int *x, int *y);

#endif
