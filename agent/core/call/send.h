/* Input through the gate: every mouse, keyboard and element action is checked against
 * the window that will receive it, at the moment it is sent. */
#ifndef WINAGENT_AGENT_CORE_CALL_SEND_H
#define WINAGENT_AGENT_CORE_CALL_SEND_H

#include <stdbool.h>

#include "agent/core/call/call.h"

/* Each checks the window that will receive the input right now (for a point the
 * top-level window under it, for keys and text the foreground window, for an
 * element its window) and refuses restricted or unidentifiable ones; in a dry run
 * it stops there. The target window is brought to the front first.
 *
 * In background delivery (call.send.background) nothing is brought to the front and the
 * receiver is the call's window: a click is posted to its child under the point (a
 * point outside it, a move, a drag, the wheel and keys are
 * WA_E_BACKGROUND_UNAVAILABLE), text is posted as characters to call.send.text_control or
 * the window's focused control, and element actions other than focus go as in the
 * foreground. */
wa_err send_click(struct call *k, int px, int py, enum wa_button b, int count);
wa_err send_move(struct call *k, int px, int py);
wa_err send_drag(struct call *k, int x1, int y1, int x2, int y2, enum wa_button b, int ms);
wa_err send_wheel(struct call *k, int px, int py, int notches, bool horizontal);
wa_err send_text(struct call *k, const char *text);
/* Typed text is text: WA_E_INVALID_ARGS naming the first control character of text
 * other than tab, CR and LF ("U+0016 (Ctrl+V as a character: pastes)"): the C0
 * controls, DEL and the C1 controls (U+0080-U+009F). An edit control takes a control
 * character as the command of its chord (0x16 pastes the clipboard, 0x18 cuts, 0x03
 * copies, 0x01 selects all, 0x08 deletes, 0x7F deletes a word), in both deliveries; a C1
 * control is no character anyone types and reaches a program of an ANSI code page as
 * some other byte. Keys are for keys. name: the operation, for the message. The core
 * asks it of every request that carries text, before anything is looked at, and
 * send_text again of what it types. */
wa_err send_check_text(const char *name, const char *text);
wa_err send_keys(struct call *k, const struct wa_key_combo *combos, size_t n);
/* An accessibility action on element index of the session's tree; *via says which
 * route took it ("uia:Invoke", "msaa:DoDefaultAction", ...). */
wa_err send_element(struct call *k, size_t index, enum wa_element_action a, const char *value,
                    const char **via);
/* Puts keyboard focus on an element: the focus pattern, else a click at its centre. */
wa_err send_focus(struct call *k, size_t index, const char **via);

/* Presses a chord's keys and leaves them down (down), or releases them, through the
 * gate (the foreground window receives them). keep: the session holds them after this
 * operation (key_down), to be released by key_up or when the session ends; otherwise
 * the operation releases them itself with send_release_keys. */
wa_err send_hold_keys(struct call *k, const struct wa_key_combo *c, bool down, bool keep);
/* Releases keys the operation pressed, whatever is in front now: a release carries
 * nothing, and a key left down would change all later input. */
void send_release_keys(struct call *k, const struct wa_key_combo *c);
/* Presses (down) or releases button b at screen pixel (px, py), or where the pointer is
 * when !have_point, through the gate. A release refused where the pointer is goes up
 * where the button went down, with the refusal as the error. */
wa_err send_button(struct call *k, bool have_point, int px, int py, enum wa_button b, bool down);
/* Releases every key and button the session holds (when it ends). */
void send_release_held(struct session *s);

#endif
