/* Input through the gate: every mouse, keyboard and element action is checked against
 * the window that will receive it, at the moment it is sent. */
#include <stdio.h>
#include <string.h>

#include "agent/core/call/send.h"

#include "agent/core/call/guard.h"
#include "agent/core/call/target.h"
#include "base/str.h"

#define KEY_CHORD_PAUSE_MS 30
#define SEND_TEXT_MAX      65536 /* bytes of text one call types */
#define SEND_TEXT_BATCH    32    /* characters typed between two checks of the receiver */

/* "title" (process) of a window, for messages. */
static void describe_window(struct call *k, uint64_t hwnd, char *out, size_t cap)
{
    struct wa_window w;
    if (hwnd && backend_window_info(k->be, hwnd, &w) == WA_E_OK) {
        snprintf(out, cap, "\"%.80s\" (%s)", w.title ? w.title : "",
                 w.process && *w.process ? w.process : "?");
        wa_window_cleanup(&w);
    } else {
        snprintf(out, cap, "no window");
    }
}

/* The same, masked as the gate masks it: a restricted window is named as such only. */
static void describe_masked(struct call *k, uint64_t hwnd, char *out, size_t cap)
{
    struct wa_window w;
    if (hwnd && backend_window_info(k->be, hwnd, &w) == WA_E_OK) {
        target_mask(k, &w);
        snprintf(out, cap, "\"%.80s\" (%s, 0x%llx)", w.title ? w.title : "",
                 w.process && *w.process ? w.process : "?", (unsigned long long)hwnd);
        wa_window_cleanup(&w);
    } else {
        snprintf(out, cap, "no window");
    }
}

/* Whether window w belongs to the target: the target, a window it owns, an open menu of
 * its thread, or any window of its program. */
static bool of_target(struct call *k, uint64_t target, uint64_t w)
{
    if (target_in_family(k, target, w))
        return true;
    struct wa_window a, b;
    bool same = false;
    if (backend_window_info(k->be, target, &a) == WA_E_OK) {
        if (backend_window_info(k->be, w, &b) == WA_E_OK) {
            same = a.pid && a.pid == b.pid;
            wa_window_cleanup(&b);
        }
        wa_window_cleanup(&a);
    }
    wa_err_clear();
    return same;
}

/* The window a point's input goes to, checked by the gate and recorded. When the call
 * names its target (a ref, --window, the window observed) and another program's window
 * lies over the point, the target is raised once, as focusing does; still covered:
 * WA_E_COVERED naming the window there, and nothing is sent. A call that names no target
 * says in a note which window got the input. */
static wa_err point_receiver(struct call *k, int px, int py)
{
    bool named = k->target.names_window;
    /* What the gate refuses is refused as it lies, before anything is raised. */
    wa_err e = guard_receiver_at(k, px, py);
    if (e)
        return e;
    uint64_t at = k->receiver;    /* the window under the point, as the gate saw it */
    uint64_t target = k->r->hwnd; /* the call's window, chosen when it came to the front */
    if (named && !target && target_window(k, &target) != WA_E_OK)
        target = 0;
    if (named && target && at && !of_target(k, target, at)) {
        char over[200], ours[200];
        describe_masked(k, at, over, sizeof over);
        describe_masked(k, target, ours, sizeof ours);
        backend_focus_window(k->be, target);
        wa_err_clear();
        if (backend_window_at(k->be, px, py, &at) == WA_E_OK && at && !of_target(k, target, at)) {
            describe_masked(k, at, over, sizeof over);
            return wa_fail(WA_E_COVERED,
                           "%s at (%d,%d) would go to %s, which lies over %s there and stayed "
                           "in front when the target was raised; nothing was sent",
                           k->name, px, py, over, ours);
        }
        op_result_note(k->r, "%s lay over %s at (%d,%d): raised the target first", over, ours, px,
                       py);
    }
    wa_err_clear();
    if (at != k->receiver) /* raised: the receiver is checked again */
        e = guard_receiver_at(k, px, py);
    if (!e && !named && k->r->has_receiver) {
        char got[200];
        describe_masked(k, k->receiver, got, sizeof got);
        op_result_note(k->r, "no target was named: %s went to %s", k->name, got);
    }
    return e;
}

/* A window of a program outside the allow-list in front that an action brought up: the
 * session's intruder (named in that action's result), or a window of a program the
 * target started (F1's help viewer, a program its menu ran): no input is sent while it
 * is in front, not even after bringing the target back, which would hide it. */
static wa_err intruder_in_front(struct call *k, uint64_t target, uint64_t fg)
{
    struct wa_window f, t;
    if (!fg || !gate_has_apps(k->c->gate) || backend_window_info(k->be, fg, &f) != WA_E_OK) {
        wa_err_clear();
        return WA_E_OK;
    }
    bool outside = gate_outside_apps(k->c->gate, &f), started = false;
    unsigned long parent = 0;
    if (outside && fg != k->s->intruder && backend_window_info(k->be, target, &t) == WA_E_OK) {
        started =
            backend_process_parent(k->be, f.pid, &parent) == WA_E_OK && parent && parent == t.pid;
        wa_window_cleanup(&t);
    }
    wa_err_clear();
    wa_err e = WA_E_OK;
    if (outside && (fg == k->s->intruder || started))
        e = wa_fail(WA_E_DENIED,
                    "%s refused: a window of %s (0x%llx), a program outside --apps %s, is in "
                    "front; no input is sent while it is (bring the target back with "
                    "focus_window to go on)",
                    k->name, f.process, (unsigned long long)fg,
                    started ? "that the target started" : "that an action brought up");
    wa_window_cleanup(&f);
    return e;
}

/* Brings the call's window to the front when another one is there. */
static wa_err send_foreground(struct call *k)
{
    uint64_t hwnd;
    wa_err e = target_window(k, &hwnd);
    if (e)
        return e;
    struct wa_window w;
    e = backend_window_info(k->be, hwnd, &w);
    if (e == WA_E_WINDOW_NOT_FOUND)
        return wa_fail(e, "the target window 0x%llx is gone; observe again",
                       (unsigned long long)hwnd);
    if (e)
        return e;
    e = target_check(k, &w); /* never focus a restricted window */
    wa_window_cleanup(&w);
    if (e)
        return e;
    if (k->send.background)
        return WA_E_OK; /* the user's window stays in front */
    /* The target is the window with the pop-ups and dialogs it owns: one of them in
     * front is where the input should go. */
    uint64_t fg = 0, ours = 0;
    backend_foreground_window(k->be, &fg);
    if (target_in_family(k, hwnd, fg) || k->dry)
        return WA_E_OK;
    if ((e = intruder_in_front(k, hwnd, fg)))
        return e;
    /* Something else took the foreground: nothing is sent before the target is back. */
    char thief[200], target[200];
    describe_window(k, fg, thief, sizeof thief);
    describe_window(k, hwnd, target, sizeof target);
    backend_default_window(k->be, &ours); /* differs from fg when winagent's console is in front */
    wa_err_clear();
    e = backend_focus_window(k->be, hwnd);
    uint64_t now = 0;
    backend_foreground_window(k->be, &now);
    if (e == WA_E_WINDOW_NOT_FOUND)
        return e;
    if (!target_in_family(k, hwnd, now)) {
        describe_window(k, now, thief, sizeof thief);
        return wa_fail(WA_E_FOCUS_LOST,
                       "%s is in front and kept the foreground when %s was brought back; "
                       "nothing was sent",
                       thief, target);
    }
    wa_err_clear();
    if (fg && ours == fg) /* not our console: another program took the foreground */
        op_result_note(k->r, "refocused %s: %s had taken the foreground", target, thief);
    return WA_E_OK;
}

/* Background: no route for what the real mouse or keyboard does. */
static wa_err no_background(struct call *k, const char *what)
{
    return wa_fail(WA_E_BACKGROUND_UNAVAILABLE, "%s has no background route: %s", k->name, what);
}

/* The call's window as the receiver of background input (checked by the gate, and
 * for posted messages, whether Windows would deliver them). */
static wa_err background_receiver(struct call *k, uint64_t *top)
{
    wa_err e = send_foreground(k);
    if (!e)
        e = target_window(k, top);
    return e ? e : guard_receiver(k, *top, "");
}

/* The call's window as the receiver of a message posted at (px, py), which must lie
 * inside it: what posts there reaches that window only. */
static wa_err background_point(struct call *k, int px, int py, const char *what, uint64_t *top)
{
    wa_err e = background_receiver(k, top);
    if (e)
        return e;
    struct wa_rect r = k->r->receiver.rect;
    if (px < r.left || px >= r.right || py < r.top || py >= r.bottom)
        return wa_fail(WA_E_BACKGROUND_UNAVAILABLE,
                       "%s has no background route: the point is outside the window, and %s "
                       "that window only",
                       k->name, what);
    return WA_E_OK;
}

/* A click posted to the child of the call's window under the point: the cursor and the
 * foreground stay. */
static wa_err post_click(struct call *k, int px, int py, enum wa_button b, int count)
{
    uint64_t top = 0, child = 0;
    wa_err e = background_point(k, px, py, "a background click reaches", &top);
    if (e || k->dry)
        return e;
    e = backend_post_click(k->be, top, px, py, b, count, &child);
    return e == WA_E_UNSUPPORTED ? no_background(k, "this backend posts no clicks") : e;
}

wa_err send_click(struct call *k, int px, int py, enum wa_button b, int count)
{
    if (k->send.background)
        return post_click(k, px, py, b, count);
    wa_err e = send_foreground(k);
    if (!e)
        e = point_receiver(k, px, py);
    if (e || k->dry)
        return e;
    return backend_click(k->be, px, py, b, count);
}

wa_err send_move(struct call *k, int px, int py)
{
    if (k->send.background)
        return no_background(k, "hovering is the real cursor's position");
    wa_err e = send_foreground(k);
    if (!e)
        e = point_receiver(k, px, py);
    if (e || k->dry)
        return e;
    return backend_mouse_move(k->be, px, py);
}

/* Press at (x1,y1), move in steps to (x2,y2), and release there: the window under the
 * release point is checked again right before releasing (it may have changed while the
 * button was held); when it is refused now, the button goes up back at the start. */
wa_err send_drag(struct call *k, int x1, int y1, int x2, int y2, enum wa_button b, int ms)
{
    if (k->send.background)
        return no_background(k, "a drag needs the real mouse button held while it moves");
    wa_err e = send_foreground(k);
    if (!e)
        e = guard_receiver_at(k, x2, y2);
    if (!e)
        e = point_receiver(k, x1, y1);
    if (e || k->dry)
        return e;
    if ((e = backend_mouse_move(k->be, x1, y1)) || (e = backend_mouse_button(k->be, b, true)))
        return e;
    /* Move in steps: many applications start a drag only after seeing motion. */
    int steps = ms / 16;
    steps = steps < 8 ? 8 : steps > 200 ? 200 : steps;
    int pause = ms > 0 ? ms / steps : 0;
    for (int i = 1; !e && i <= steps; i++) {
        e = backend_mouse_move(k->be, x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps);
        if (pause > 0)
            os_sleep_ms(pause);
    }
    if (!e && (e = guard_receiver_at(k, x2, y2))) {
        char why[512];
        snprintf(why, sizeof why, "%s", wa_err_detail());
        backend_mouse_move(k->be, x1, y1); /* dropped nowhere it may not go */
        backend_mouse_button(k->be, b, false);
        return wa_fail(e, "%s; the button was released back at the start", why);
    }
    wa_err up = backend_mouse_button(k->be, b, false); /* never leave the button held */
    return e ? e : up;
}

/* Wheel notches posted to the child of the call's window under the point, as the wheel
 * reaches the window under the mouse: the cursor and the foreground stay. */
static wa_err post_wheel(struct call *k, int px, int py, int notches, bool horizontal)
{
    uint64_t top = 0, child = 0;
    wa_err e = background_point(k, px, py, "background wheel messages reach", &top);
    if (e || k->dry)
        return e;
    e = backend_post_wheel(k->be, top, px, py, notches, horizontal, &child);
    return e == WA_E_UNSUPPORTED ? no_background(k, "this backend posts no wheel messages") : e;
}

wa_err send_wheel(struct call *k, int px, int py, int notches, bool horizontal)
{
    if (k->send.background)
        return post_wheel(k, px, py, notches, horizontal);
    wa_err e = send_foreground(k);
    if (!e)
        e = point_receiver(k, px, py);
    if (e || k->dry)
        return e;
    return backend_scroll(k->be, true, px, py, notches, horizontal);
}

/* The length of the first n characters of text at most, in bytes (whole UTF-8
 * sequences). */
static size_t utf8_prefix(const char *text, size_t n)
{
    size_t i = 0;
    for (size_t chars = 0; text[i] && chars < n; chars++) {
        i++;
        while ((text[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

/* Text posted as characters to the element's own window, else to the control with the
 * focus in the call's window (which keeps it: nothing is focused). */
static wa_err post_text(struct call *k, const char *text)
{
    uint64_t top = 0, control = 0;
    wa_err e = background_receiver(k, &top);
    if (e || k->dry)
        return e;
    e = backend_post_text(k->be, k->send.text_control ? k->send.text_control : top, text, &control);
    if (e == WA_E_UNSUPPORTED)
        return no_background(k, "this backend posts no characters");
    if (e == WA_E_ELEMENT_NOT_FOUND)
        return no_background(k, "no control of the window has the keyboard focus to post "
                                "characters to; name the element to type into");
    return e;
}

/* What control character cp does when a control receives it as a character. */
static void control_words(unsigned cp, char *out, size_t cap)
{
    static const char *const does[27] = {
        [1] = ": selects all", [3] = ": copies",  [8] = ": deletes back", [22] = ": pastes",
        [24] = ": cuts",       [25] = ": redoes", [26] = ": undoes",
    };
    if (cp >= 1 && cp <= 26)
        snprintf(out, cap, "Ctrl+%c as a character%s", 'A' + (int)cp - 1, does[cp] ? does[cp] : "");
    else if (cp == 0)
        snprintf(out, cap, "NUL");
    else if (cp == 27)
        snprintf(out, cap, "Esc as a character");
    else if (cp < 32)
        snprintf(out, cap, "Ctrl+%c as a character", "\\]^_"[cp - 28]);
    else if (cp == 0x7F)
        snprintf(out, cap, "DEL, Ctrl+Backspace as a character: deletes a word");
    else
        snprintf(out, cap, "a C1 control character%s", cp == 0x85 ? " (NEL, a line break)" : "");
}

wa_err send_check_text(const char *name, const char *text)
{
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)text; p && *p; p++) {
        unsigned cp = *p;
        if ((*p & 0xC0) != 0x80)
            chars++;
        if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
            cp = p[1]; /* U+0080-U+009F */
        else if (*p >= 0x20 && *p != 0x7F)
            continue;
        if (cp == '\t' || cp == '\r' || cp == '\n')
            continue;
        char what[80];
        control_words(cp, what, sizeof what);
        return wa_fail(WA_E_INVALID_ARGS,
                       "%s refused: the text holds U+%04X (%s) at character %zu; control "
                       "characters other than tab, CR and LF are not typed (a control takes "
                       "them as commands); send keys as keys",
                       name, cp, what, chars);
    }
    return WA_E_OK;
}

wa_err send_text(struct call *k, const char *text)
{
    wa_err ce = send_check_text(k->name, text);
    if (ce)
        return ce;
    size_t len = strlen(text);
    if (len > SEND_TEXT_MAX)
        return wa_fail(WA_E_INVALID_ARGS,
                       "the text is %zu bytes; at most %d are typed in one call: split it", len,
                       SEND_TEXT_MAX);
    if (k->send.background)
        return post_text(k, text);
    k->send.keys_away = strchr(text, '\t') != NULL;
    wa_err e = send_foreground(k);
    if (!e)
        e = guard_receiver_keyboard(k);
    if (e || k->dry)
        return e;
    /* In batches, each to the window that has the keyboard right then: a prompt that
     * comes up while typing gets none of the rest. */
    uint64_t first = k->receiver;
    size_t sent = 0;
    char batch[SEND_TEXT_BATCH * 4 + 1];
    while (!e && sent < len) {
        size_t n = utf8_prefix(text + sent, SEND_TEXT_BATCH);
        if (sent > 0 && (e = guard_receiver_keyboard(k))) {
            char why[400];
            snprintf(why, sizeof why, "%s", wa_err_detail());
            e = wa_fail(e, "typing stopped after %zu of %zu bytes: %s; the rest was not sent", sent,
                        len, why);
            break;
        }
        if (k->receiver != first) {
            e = wa_fail(WA_E_FOCUS_LOST,
                        "typing stopped after %zu of %zu bytes: another window took the "
                        "keyboard; the rest was not sent",
                        sent, len);
            break;
        }
        memcpy(batch, text + sent, n);
        batch[n] = '\0';
        e = backend_type_text(k->be, batch);
        sent += n;
    }
    return e;
}

/* Whether the chord, with the keys the session holds down already (win held by key_down,
 * then r, is win+r too), has one of the keys a, b, d. */
static bool chord_has(const struct call *k, const struct wa_key_combo *c, unsigned short a,
                      unsigned short b, unsigned short d)
{
    for (int i = 0; i < c->count + k->s->n_held_keys; i++) {
        unsigned short vk = i < c->count ? c->vk[i] : k->s->held_keys[i - c->count];
        if (vk == a || vk == b || vk == d)
            return true;
    }
    return false;
}

/* Keys that open the shell's launchers: every chord with the Windows key (win+r the Run
 * dialog, win+x its menu, win+e Explorer, win+s search, win+1..9 the taskbar's programs,
 * the key alone the Start menu), ctrl+esc (the Start menu) and ctrl+shift+esc (Task
 * Manager, whose "Create new task" runs anything). */
static bool opens_launcher(const struct call *k, const struct wa_key_combo *c)
{
    bool ctrl = chord_has(k, c, WA_VK_CONTROL, 0xA2, 0xA3);
    return chord_has(k, c, WA_VK_LWIN, WA_VK_LWIN + 1, WA_VK_LWIN) ||
           (ctrl && chord_has(k, c, WA_VK_ESCAPE, WA_VK_ESCAPE, WA_VK_ESCAPE));
}

/* Keys that can take the focus out of its control (in Explorer, to the address bar or the
 * search box): tab, every alt chord, F3, F4, F6, F10, the menu key, ctrl+l, ctrl+e, ctrl+f. */
static bool moves_focus(const struct call *k, const struct wa_key_combo *c)
{
    static const unsigned short away[] = {WA_VK_TAB, 0x72, 0x73, 0x75, 0x79, 0x5D};
    for (size_t i = 0; i < sizeof away / sizeof *away; i++)
        if (chord_has(k, c, away[i], away[i], away[i]))
            return true;
    bool ctrl = chord_has(k, c, WA_VK_CONTROL, 0xA2, 0xA3);
    return chord_has(k, c, WA_VK_MENU, 0xA4, 0xA5) || (ctrl && (chord_has(k, c, 'L', 'E', 'F')));
}

/* ctrl+v, ctrl+shift+v and shift+insert: what the clipboard holds goes to the receiver. */
static bool pastes(const struct call *k, const struct wa_key_combo *c)
{
    bool ctrl = chord_has(k, c, WA_VK_CONTROL, 0xA2, 0xA3);
    bool shift = chord_has(k, c, WA_VK_SHIFT, 0xA0, 0xA1);
    return (ctrl && chord_has(k, c, 'V', 'V', 'V')) || (shift && chord_has(k, c, 0x2D, 0x2D, 0x2D));
}

wa_err send_keys(struct call *k, const struct wa_key_combo *combos, size_t n)
{
    for (size_t i = 0; k->c->cfg.shell == SHELL_DENIED && i < n; i++)
        if (opens_launcher(k, &combos[i]))
            return wa_fail(WA_E_SHELL_DISABLED,
                           "%s refused: the Windows key, ctrl+esc and ctrl+shift+esc open the "
                           "shell's launchers (Run, its win+x menu, Explorer, Start, Task "
                           "Manager), and the shell permission is off",
                           k->name);
    for (size_t i = 0; i < n; i++) {
        wa_err e = pastes(k, &combos[i]) ? guard_paste(k) : WA_E_OK;
        if (e)
            return e;
    }
    if (k->send.background)
        return no_background(k, "keys go to whatever has the keyboard focus of the foreground "
                                "window");
    k->send.keys_away = n > 0 && moves_focus(k, &combos[0]);
    wa_err e = send_foreground(k);
    if (!e)
        e = guard_receiver_keyboard(k);
    for (size_t i = 0; !e && !k->dry && i < n; i++) {
        if (i > 0) {
            /* a chord may open a window: the next one goes only where the gate allows */
            os_sleep_ms(KEY_CHORD_PAUSE_MS);
            k->send.keys_away = moves_focus(k, &combos[i]);
            if ((e = guard_receiver_keyboard(k)))
                break;
        }
        e = backend_press_keys(k->be, &combos[i]);
    }
    return e;
}

/* ---- keys and buttons held between operations ---- */

static bool holds_key(const struct session *s, unsigned short vk)
{
    for (int i = 0; i < s->n_held_keys; i++)
        if (s->held_keys[i] == vk)
            return true;
    return false;
}

/* The session now holds c's keys (down) or no longer does (up). */
static void track_keys(struct session *s, const struct wa_key_combo *c, bool down)
{
    for (int i = 0; i < c->count; i++) {
        unsigned short vk = c->vk[i];
        if (down && !holds_key(s, vk) &&
            s->n_held_keys < (int)(sizeof s->held_keys / sizeof *s->held_keys))
            s->held_keys[s->n_held_keys++] = vk;
        for (int j = 0; !down && j < s->n_held_keys; j++)
            if (s->held_keys[j] == vk) {
                memmove(&s->held_keys[j], &s->held_keys[j + 1],
                        (size_t)(s->n_held_keys - j - 1) * sizeof *s->held_keys);
                s->n_held_keys--;
                break;
            }
    }
}

wa_err send_hold_keys(struct call *k, const struct wa_key_combo *c, bool down, bool keep)
{
    if (k->send.background)
        return no_background(k, "keys held down are the real keyboard's");
    if (down && k->c->cfg.shell == SHELL_DENIED && opens_launcher(k, c))
        return wa_fail(WA_E_SHELL_DISABLED,
                       "%s refused: the Windows key, ctrl+esc and ctrl+shift+esc open the "
                       "shell's launchers, and the shell permission is off",
                       k->name);
    wa_err e = down && pastes(k, c) ? guard_paste(k) : WA_E_OK;
    k->send.keys_away = down && moves_focus(k, c);
    if (!e)
        e = send_foreground(k);
    if (!e)
        e = guard_receiver_keyboard(k);
    if (e || k->dry)
        return e;
    e = backend_hold_keys(k->be, c, down);
    if (!e && (keep || !down))
        track_keys(k->s, c, down);
    return e;
}

void send_release_keys(struct call *k, const struct wa_key_combo *c)
{
    if (k->dry)
        return;
    char why[512]; /* the operation's own error stays its detail */
    snprintf(why, sizeof why, "%s", wa_err_detail());
    backend_hold_keys(k->be, c, false);
    track_keys(k->s, c, false);
    wa_err_clear();
    if (*why)
        wa_fail(WA_E_OK, "%s", why);
}

/* The point an input is sent at: the one given, else where the pointer is now. */
static wa_err point_or_pointer(struct call *k, bool have_point, int *px, int *py)
{
    return have_point ? WA_E_OK : backend_cursor_position(k->be, px, py);
}

wa_err send_button(struct call *k, bool have_point, int px, int py, enum wa_button b, bool down)
{
    struct session *s = k->s;
    if (k->send.background)
        return no_background(k, "a button held down is the real mouse's");
    wa_err e = point_or_pointer(k, have_point, &px, &py);
    if (!e)
        e = send_foreground(k);
    if (!e)
        e = guard_receiver_at(k, px, py);
    bool held = (s->held_buttons >> b) & 1u;
    if (e && !down && held && !k->dry) {
        /* Refused where it would go up now: it goes up where it went down instead, as a
         * drag that would end on a refused window does. */
        char why[512];
        snprintf(why, sizeof why, "%s", wa_err_detail());
        wa_err back = guard_receiver_at(k, s->down_x[b], s->down_y[b]);
        if (!back)
            back = backend_mouse_move(k->be, s->down_x[b], s->down_y[b]);
        if (!back && !(back = backend_mouse_button(k->be, b, false)))
            s->held_buttons &= ~(1u << b);
        return wa_fail(e, "%s; %s", why,
                       back ? "the button is still down and goes up when the session ends"
                            : "the button was released back where it went down");
    }
    if (e || k->dry)
        return e;
    if (have_point && (e = backend_mouse_move(k->be, px, py)))
        return e;
    if ((e = backend_mouse_button(k->be, b, down)))
        return e;
    if (down) {
        s->held_buttons |= 1u << b;
        s->down_x[b] = px;
        s->down_y[b] = py;
    } else {
        s->held_buttons &= ~(1u << b);
    }
    return WA_E_OK;
}

void send_release_held(struct session *s)
{
    const struct wa_backend *be = s->core->be;
    if (!s->n_held_keys && !s->held_buttons)
        return;
    os_mutex_lock(s->core->input);
    for (int b = WA_BUTTON_LEFT; b <= WA_BUTTON_MIDDLE; b++)
        if ((s->held_buttons >> b) & 1u)
            backend_mouse_button(be, (enum wa_button)b, false);
    s->held_buttons = 0;
    /* last pressed first, as a person lets go */
    for (int i = s->n_held_keys - 1; i >= 0; i--) {
        struct wa_key_combo c = {.vk = {s->held_keys[i]}, .count = 1};
        backend_hold_keys(be, &c, false);
    }
    s->n_held_keys = 0;
    os_mutex_unlock(s->core->input);
    wa_err_clear();
}

wa_err send_element(struct call *k, size_t index, enum wa_element_action a, const char *value,
                    const char **via)
{
    *via = NULL;
    if (k->send.background && a == WA_ACT_FOCUS)
        return no_background(k, "it would move the keyboard focus, which background "
                                "delivery leaves alone");
    k->send.pattern_action = true;
    struct wa_tree *t = &k->s->tree;
    wa_err e = send_foreground(k);
    k->send.via_pattern = true;
    if (!e)
        e = guard_receiver(k, t->hwnd, "");
    k->send.via_pattern = false;
    if (!e)
        e = guard_element(k, index);
    if (e || k->dry)
        return e;
    return backend_element_action(k->be, t, index, a, value, via);
}

wa_err send_focus(struct call *k, size_t index, const char **via)
{
    wa_err e = send_element(k, index, WA_ACT_FOCUS, NULL, via);
    if (e == WA_E_OK || e == WA_E_DENIED || e == WA_E_WINDOW_NOT_FOUND || k->send.background)
        return e;
    int x, y;
    wa_rect_center(k->s->tree.nodes[index].bounds, &x, &y);
    *via = "click";
    return send_click(k, x, y, WA_BUTTON_LEFT, 1);
}
