/* Act, then know: how the core waits for the input to arrive (text read back; otherwise
 * captures that stop changing), what became of the target, and what it reports as
 * changed against the look before (look.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/call/verify.h"

#include "agent/core/call/guard.h"
#include "agent/core/call/look.h"
#include "agent/core/call/target.h"
#include "automation/tree_diff.h"
#include "automation/tree_format.h"
#include "base/str.h"

#define SETTLE_POLL_MS  25  /* between two captures while waiting */
#define SETTLE_FRAME_MS 10  /* after a change, before the capture that may confirm it */
#define SETTLE_QUIET_MS 150 /* no change at all for this long: the action changed nothing */
#define SETTLE_MENU_MS                                                                             \
    600                       /* the same after input that can open a menu: a loaded program       \
                               * shows its popup later than most effects */
#define SETTLE_STABLE_MS 50   /* after a change, this long unchanged: it has settled */
#define SETTLE_MAX_MS    1500 /* the longest wait */
#define SETTLE_PROBE_MS  300  /* the last question whether the window answers */
#define VERIFY_MAX_MS    2000 /* the longest wait for an effect to be read back ... */
#define VERIFY_TYPING_MS                                                                           \
    60000 /* ... or for typed text that keeps arriving (a loaded                                   \
           * program takes long text at tens of characters a second) */
#define VERIFY_POLL_MS 20
#define CHANGE_LINES   20
#define FATE_HUNG_MS   5000 /* no answer this long after the input: hung (as Windows counts) */
#define FATE_DEBUGGED_MS                                                                           \
    12000 /* ... unless a debugger holds it: one that came for a crash (Wine's winedbg --auto)     \
           * ends it within seconds, and how it ended is worth the wait */
#define FATE_POLL_MS 100
#define FATE_EXIT_MS 500 /* a program whose last window went: the time it has to end */

/* The settle: once the window's thread has handled the input (backend_input_handled,
 * asked once: each question is a round trip to a thread that may be slow to answer on
 * a busy machine), a capture; when it shows a change, the next capture a frame later
 * ends the wait if it shows none ("one frame without change"). A backend that cannot
 * tell, or a thread that does not answer (hung, or busy past the longest wait), is
 * watched by captures every SETTLE_POLL_MS instead, until they stop changing for
 * SETTLE_STABLE_MS. Nothing changed at all: the wait goes on to SETTLE_QUIET_MS either
 * way, for an effect that comes later than the input (a timer, a program starting), and
 * to SETTLE_MENU_MS after input that can open a menu. */
void verify_settle(struct call *k)
{
    struct before_look *b = &k->look.before;
    int64_t t0 = os_now_ms();
    double c0 = os_clock_ms(); /* the phase, finer than the loop needs */
    uint64_t hwnd = b->have ? b->window : k->r->hwnd;
    struct wa_image prev = {0};
    bool have_prev = false, changed = false;
    bool idle = false, first = true; /* idle: the thread has handled the input */
    int64_t stable_since = t0;
    uint64_t fg = b->fg;
    struct wa_rect prev_frame = b->frame;
    if (b->have_image) { /* the baseline is the look before the action */
        prev = b->image;
        have_prev = true;
    }
    for (;;) {
        int64_t now = os_now_ms();
        if (now - t0 >= SETTLE_MAX_MS) {
            op_result_note(k->r, "the window was still changing after %d ms", SETTLE_MAX_MS);
            break;
        }
        if (first && hwnd) {
            wa_err answered = backend_input_handled(k->be, hwnd, SETTLE_MAX_MS);
            idle = answered == WA_E_OK;
            k->verify.silent = answered == WA_E_TIMEOUT || answered == WA_E_WINDOW_NOT_FOUND;
            wa_err_clear(); /* not idle: the pixels alone tell */
        } else if (os_sleep_ms(idle && changed ? SETTLE_FRAME_MS : SETTLE_POLL_MS) != WA_E_OK) {
            break;
        }
        first = false;
        struct wa_image img = {0};
        struct wa_rect frame = {0, 0, 0, 0};
        uint64_t now_fg = 0;
        backend_foreground_window(k->be, &now_fg);
        bool got = hwnd && backend_capture_window(k->be, hwnd, &img, &frame) == WA_E_OK;
        bool differs = now_fg != fg || !got || !have_prev || image_changed(&prev, &img, NULL);
        /* prev was taken after the input was handled too (not the look before) */
        bool frame_quiet = idle && !differs && prev.px != b->image.px;
        now = os_now_ms();
        if (differs) {
            changed = changed || have_prev || now_fg != fg || !got;
            stable_since = now;
            fg = now_fg;
        }
        if (have_prev && prev.px != b->image.px)
            image_cleanup(&prev);
        prev = img;
        prev_frame = frame;
        have_prev = got;
        if (!got && !target_alive(k, hwnd))
            break; /* the window went (closed): nothing more will change in it */
        if (changed && (frame_quiet || now - stable_since >= SETTLE_STABLE_MS))
            break;
        if (!changed && now - t0 >= (k->verify.may_open_menu ? SETTLE_MENU_MS : SETTLE_QUIET_MS)) {
            k->verify.unchanged = b->have_image && got; /* quiet from the look before on */
            break;
        }
    }
    /* Under Wine the click reaches the thread after the first round trips (the X
     * server in between), and a program that crashed or hung over it stops answering
     * only then: asked once more, now that the input has had its effect. */
    if (!k->verify.silent && hwnd && b->watch) {
        wa_err answered = backend_input_handled(k->be, hwnd, SETTLE_PROBE_MS);
        k->verify.silent = answered == WA_E_TIMEOUT || answered == WA_E_WINDOW_NOT_FOUND;
        wa_err_clear();
    }
    if (have_prev && prev.px != b->image.px) {
        image_cleanup(&b->after_image);
        b->after_image = prev; /* the last capture: what the window looks like now */
        b->after_frame = prev_frame;
        b->have_after_image = true;
    }
    k->r->settle_ms = os_clock_ms() - c0;
}

/* ---- what became of the target ---- */

/* An exit code that is an exception's: the program crashed (0xC0000005 and the other
 * errors, a breakpoint). */
static bool crash_code(unsigned long code)
{
    return (code & 0xC0000000UL) == 0xC0000000UL || code == 0x80000003UL;
}

/* Whether process pid still shows a window of its own. */
static bool has_windows(struct call *k, unsigned long pid)
{
    struct wa_window_list l;
    bool any = false;
    if (!pid || backend_list_windows(k->be, &l) != WA_E_OK) {
        wa_err_clear();
        return true; /* not known: as if it had, so nobody waits for it to end */
    }
    for (size_t i = 0; i < l.count && !any; i++)
        any = l.items[i].pid == pid;
    wa_window_list_cleanup(&l);
    return any;
}

wa_err verify_target_fate(struct call *k)
{
    struct before_look *b = &k->look.before;
    if (!b->have || !b->watch)
        return WA_E_OK;
    const char *who = *b->process ? b->process : "the program";
    int64_t exit_by = 0;
    for (;;) {
        struct wa_process_state ps;
        if (backend_process_state(k->be, b->watch, &ps) != WA_E_OK)
            memset(&ps, 0, sizeof ps);
        if (ps.ended) {
            if (!crash_code(ps.exit_code))
                return WA_E_OK; /* it exited: the action closed it */
            return wa_fail(WA_E_TARGET_GONE,
                           "%s (pid %lu) ended with exception 0x%08lx %.0f ms after the input: "
                           "it crashed; what the action did is not known",
                           who, b->pid, ps.exit_code, (double)(os_now_ms() - b->at_ms));
        }
        wa_err_clear();
        int64_t now = os_now_ms();
        if (!target_alive(k, b->window)) {
            /* Its window closed: a program whose last window went is given a moment
             * to end, to read how it ended; one that shows others goes on. */
            if (!exit_by && has_windows(k, b->pid))
                return WA_E_OK;
            if (!exit_by)
                exit_by = now + FATE_EXIT_MS;
            if (now >= exit_by)
                return WA_E_OK;
        } else if (backend_input_handled(k->be, b->window, FATE_POLL_MS) == WA_E_OK) {
            return WA_E_OK; /* it answers again: it was busy */
        } else if (now - b->at_ms >= (ps.debugged ? FATE_DEBUGGED_MS : FATE_HUNG_MS)) {
            wa_err_clear();
            return wa_fail(WA_E_TARGET_HUNG,
                           "%s (pid %lu) has not answered for %.0f ms since the input: %s; what "
                           "the action did is not known",
                           who, b->pid, (double)(now - b->at_ms),
                           ps.debugged ? "a debugger holds it (it crashed and a crash dialog "
                                         "waits, or it stopped at a breakpoint)"
                                       : "it is hung");
        }
        wa_err_clear();
        os_sleep_ms(FATE_POLL_MS);
    }
}

/* ---- text read back ---- */

/* Occurrences of needle in hay, ignoring carriage returns in both (edits store a typed
 * newline as CR LF). */
static size_t occurrences(const char *hay, const char *needle)
{
    char *h = str_dup(hay ? hay : ""), *n = str_dup(needle ? needle : "");
    size_t count = 0;
    if (h && n) {
        char *w = h;
        for (char *p = h; *p; p++)
            if (*p != '\r')
                *w++ = *p;
        *w = '\0';
        w = n;
        for (char *p = n; *p; p++)
            if (*p != '\r')
                *w++ = *p;
        *w = '\0';
        if (*n)
            for (const char *p = h; (p = strstr(p, n)); p += strlen(n))
                count++;
    }
    free(h);
    free(n);
    return count;
}

/* Equal but for carriage returns. */
static bool same_text(const char *a, const char *b)
{
    for (;;) {
        while (*a == '\r')
            a++;
        while (*b == '\r')
            b++;
        if (*a != *b)
            return false;
        if (!*a)
            return true;
        a++, b++;
    }
}

/* The value of the element typed into, or of the control with the keyboard focus in
 * the window that received the typing: read only while that window is in front (before
 * and after the read), so that a prompt that took the keyboard is never read. In
 * background delivery, the focused control of the call's window, in front or not. */
static wa_err read_value(struct call *k, const size_t *index, char **out)
{
    if (index) {
        wa_err e = guard_element(k, *index);
        return e ? e : backend_element_value(k->be, &k->s->tree, *index, out);
    }
    uint64_t hwnd, fg = 0, after = 0;
    if (k->send.background) { /* the control of the call's window that took the characters */
        if (!k->r->hwnd)
            return wa_fail(WA_E_UNSUPPORTED, "no window to read back from");
        wa_err e = guard_observe(k, k->r->hwnd);
        return e ? e : backend_focused_value(k->be, k->r->hwnd, &hwnd, out);
    }
    backend_foreground_window(k->be, &fg);
    if (k->receiver && fg != k->receiver)
        return wa_fail(WA_E_DENIED, "the window typed into is no longer in front");
    if (!k->receiver && guard_observe(k, fg)) /* before typing: only what may be read */
        return WA_E_DENIED;
    wa_err e = backend_focused_value(k->be, 0, &hwnd, out);
    backend_foreground_window(k->be, &after);
    if (!e && k->receiver && after != k->receiver) {
        free(*out);
        *out = NULL;
        return wa_fail(WA_E_DENIED, "the window typed into is no longer in front");
    }
    return e;
}

char *verify_read_before(struct call *k, const size_t *index)
{
    char *v = NULL;
    if (k->dry || read_value(k, index, &v) != WA_E_OK) {
        wa_err_clear();
        return NULL;
    }
    return v;
}

wa_err verify_text(struct call *k, const size_t *index, const char *before, const char *text,
                   bool whole)
{
    struct op_result *r = k->r;
    int64_t t0 = os_now_ms();
    double c0 = os_clock_ms();
    size_t had = whole ? 0 : occurrences(before, text);
    char *v = NULL;
    wa_err e = WA_E_OK;
    k->verify.settled = true; /* the read back is the wait */
    size_t last_len = (size_t)-1;
    int64_t moved = t0; /* when what it holds last changed */
    for (;;) {
        free(v);
        v = NULL;
        e = read_value(k, index, &v);
        if (e)
            break;
        const char *held = v ? v : "";
        bool holds = whole ? same_text(held, text) : occurrences(held, text) > had;
        if (holds) {
            r->has_verified = r->verified = true;
            break;
        }
        int64_t now = os_now_ms();
        if (strlen(held) != last_len) { /* still taking the text: wait on */
            last_len = strlen(held);
            moved = now;
        }
        if (now - moved >= VERIFY_MAX_MS || now - t0 >= VERIFY_TYPING_MS)
            break;
        os_sleep_ms(VERIFY_POLL_MS);
    }
    r->settle_ms = os_clock_ms() - c0;
    if (e == WA_E_UNSUPPORTED || e == WA_E_DENIED) {
        op_result_note(r, "not read back: %s", wa_err_detail());
        wa_err_clear();
        free(v);
        k->verify.settled = false; /* nothing to read: wait for the window instead */
        return WA_E_OK;
    }
    if (e) {
        free(v);
        return e;
    }
    free(r->read_back);
    r->read_back = v;
    if (r->verified)
        return WA_E_OK;
    r->has_verified = true;
    /* what it holds goes in the result's read_back, never in the message (which the
     * audit log keeps) */
    return wa_fail(WA_E_NOT_VERIFIED,
                   "the control does not hold what was %s: it held still for %d ms holding "
                   "%zu bytes of other text (see read_back)",
                   whole ? "set" : "typed", VERIFY_MAX_MS, strlen(v ? v : ""));
}

/* ---- states read back ---- */

/* Whether states `now` show what `want` asks of an element whose states were `before`. */
static bool states_hold(enum verify_want want, const char *type, unsigned before, unsigned now)
{
    unsigned was = before & WA_ST_CHECK_STATES, is = now & WA_ST_CHECK_STATES;
    switch (want) {
    case VERIFY_CHECK_CHANGED:
        /* a radio button is only ever turned on */
        return strcmp(type, "RadioButton") == 0 ? (now & WA_ST_CHECKED) != 0 : is && is != was;
    case VERIFY_SELECTED:
        return strcmp(type, "RadioButton") == 0 ? (now & WA_ST_CHECKED) != 0
                                                : (now & WA_ST_SELECTED) != 0;
    case VERIFY_EXPANDED:
        return (now & WA_ST_EXPANDED) != 0;
    case VERIFY_COLLAPSED:
        return (now & WA_ST_COLLAPSED) != 0;
    }
    return false;
}

/* Whether the element says enough of itself for `want` to be read back: a check box's
 * state, a selection state, an expanded or collapsed state. Menu items open and close
 * their menus, which the change report shows; their own state is not read. */
static bool states_tell(enum verify_want want, const struct wa_node *n, unsigned before)
{
    bool radio = strcmp(n->type, "RadioButton") == 0;
    switch (want) {
    case VERIFY_CHECK_CHANGED:
        return radio || (before & WA_ST_CHECK_STATES) != 0;
    case VERIFY_SELECTED:
        return radio || (n->patterns & WA_PAT_SELECT);
    case VERIFY_EXPANDED:
    case VERIFY_COLLAPSED:
        return (n->patterns & WA_PAT_EXPAND) && strcmp(n->type, "MenuItem") != 0 &&
               (before & (WA_ST_EXPANDED | WA_ST_COLLAPSED));
    }
    return false;
}

/* The words of a node's shown states ("unchecked selected"), or "no state" (heap). */
static char *state_words(unsigned states)
{
    struct dynbuf b;
    dynbuf_init(&b, 256);
    unsigned shown = states & ~(unsigned)(WA_ST_FOCUSED | WA_ST_FOCUSABLE | WA_ST_OFFSCREEN);
    for (int i = 0; i < WA_ST__COUNT; i++)
        if (shown & (1u << i))
            dynbuf_addf(&b, "%s%s", b.len ? " " : "", wa_state_words[i]);
    if (!b.len)
        dynbuf_adds(&b, "no state");
    char *s = dynbuf_take(&b);
    dynbuf_cleanup(&b);
    return s;
}

static const char *want_words(enum verify_want want)
{
    switch (want) {
    case VERIFY_CHECK_CHANGED:
        return "its check box to change";
    case VERIFY_SELECTED:
        return "it to be selected";
    case VERIFY_EXPANDED:
        return "it to be expanded";
    case VERIFY_COLLAPSED:
        return "it to be collapsed";
    }
    return "";
}

wa_err verify_states(struct call *k, size_t index, unsigned before, enum verify_want want)
{
    struct op_result *r = k->r;
    struct wa_tree *t = &k->s->tree;
    if (k->dry || index >= t->count)
        return WA_E_OK;
    const struct wa_node *n = &t->nodes[index];
    if (!states_tell(want, n, before)) {
        op_result_note(r, "not read back: %s \"%.60s\" shows no state for %s", n->type, n->name,
                       want_words(want));
        return WA_E_OK;
    }
    char type[32];
    snprintf(type, sizeof type, "%s", n->type); /* the tree may not outlive a read */
    int64_t t0 = os_now_ms();
    double c0 = os_clock_ms();
    unsigned now = 0;
    wa_err e;
    bool holds = false;
    for (;;) {
        e = guard_element(k, index);
        if (!e)
            e = backend_element_states(k->be, t, index, &now);
        if (e || (holds = states_hold(want, type, before, now)))
            break;
        if (os_now_ms() - t0 >= VERIFY_MAX_MS)
            break;
        os_sleep_ms(VERIFY_POLL_MS);
    }
    r->settle_ms += os_clock_ms() - c0;
    if (e == WA_E_UNSUPPORTED || e == WA_E_DENIED) {
        op_result_note(r, "not read back: %s", wa_err_detail());
        wa_err_clear();
        return WA_E_OK;
    }
    if (e)
        return e;
    char *words = state_words(now);
    free(r->read_back);
    r->read_back = words;
    r->has_verified = true;
    r->verified = holds;
    if (holds) {
        k->verify.settled = true; /* what it shows now is the effect waited for */
        return WA_E_OK;
    }
    char *was = state_words(before);
    wa_err fail = wa_fail(WA_E_NOT_VERIFIED,
                          "%s \"%.60s\" was %s and is %s after %d ms: the action did not "
                          "happen (expected %s)",
                          type, n->name, was ? was : "?", words ? words : "?", VERIFY_MAX_MS,
                          want_words(want));
    free(was);
    return fail;
}

static const char *window_state_word(enum wa_window_state s)
{
    return s == WA_WINDOW_MINIMIZED   ? "minimized"
           : s == WA_WINDOW_MAXIMIZED ? "maximized"
                                      : "normal";
}

wa_err verify_window_state(struct call *k, uint64_t hwnd, enum wa_window_state want)
{
    struct op_result *r = k->r;
    if (k->dry)
        return WA_E_OK;
    int64_t t0 = os_now_ms();
    enum wa_window_state now = WA_WINDOW_NORMAL;
    for (;;) {
        struct wa_window w;
        wa_err e = backend_window_info(k->be, hwnd, &w);
        if (e == WA_E_UNSUPPORTED) {
            op_result_note(r, "not read back: %s", wa_err_detail());
            wa_err_clear();
            return WA_E_OK;
        }
        if (e)
            return e;
        now = w.state;
        wa_window_cleanup(&w);
        if (now == want || os_now_ms() - t0 >= VERIFY_MAX_MS)
            break;
        os_sleep_ms(VERIFY_POLL_MS);
    }
    free(r->read_back);
    r->read_back = str_dup(window_state_word(now));
    r->has_verified = true;
    r->verified = now == want;
    if (r->verified)
        return WA_E_OK;
    return wa_fail(WA_E_NOT_VERIFIED, "the window is %s, not %s, after %d ms: it did not change",
                   window_state_word(now), window_state_word(want), VERIFY_MAX_MS);
}

/* ---- what changed ---- */

#define STARTED_WAIT_MS 2500 /* for the first windows of programs an action started */
#define STARTED_POLL_MS 50

/* Whether a visible window of process pid is up. */
static bool has_window(struct call *k, unsigned long pid)
{
    struct wa_window_list l;
    bool yes = false;
    if (backend_list_windows(k->be, &l) == WA_E_OK) {
        for (size_t i = 0; i < l.count && !yes; i++)
            yes = l.items[i].pid == pid;
        wa_window_list_cleanup(&l);
    }
    wa_err_clear();
    return yes;
}

void verify_started(struct call *k)
{
    const struct before_look *b = &k->look.before;
    k->verify.n_started = 0;
    if (!gate_has_apps(k->c->gate) || !b->have || !b->pid ||
        backend_started_by(k->be, b->pid, b->wall_ms, k->verify.started,
                           sizeof k->verify.started / sizeof *k->verify.started,
                           &k->verify.n_started) != WA_E_OK) {
        wa_err_clear();
        return;
    }
    int64_t until = os_now_ms() + STARTED_WAIT_MS;
    for (size_t i = 0; i < k->verify.n_started; i++) {
        int64_t left = until - os_now_ms();
        if (left > 0)
            backend_wait_ready(k->be, k->verify.started[i].pid, (int)left);
        /* ready is not always shown (Wine says it at the first message): its window */
        while (os_now_ms() < until && !has_window(k, k->verify.started[i].pid) &&
               os_sleep_ms(STARTED_POLL_MS) == WA_E_OK)
            ;
    }
    wa_err_clear();
}

static bool listed(const struct wa_window_list *l, uint64_t hwnd)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].hwnd == hwnd)
            return true;
    return false;
}

static const struct wa_window *find_listed(const struct wa_window_list *l, uint64_t hwnd)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].hwnd == hwnd)
            return &l->items[i];
    return NULL;
}

/* A window's title in a change line: a window the gate refuses is named as restricted
 * only. */
static void window_title(struct call *k, const struct wa_window *w, struct dynbuf *b)
{
    if (!gate_allows(k->c->gate, w)) {
        dynbuf_adds(b, GATE_RESTRICTED_TITLE);
        return;
    }
    tree_quote(w->title ? w->title : "", b);
}

static void window_line(struct call *k, struct dynbuf *b, const char *what,
                        const struct wa_window *w, const struct wa_window_list *l)
{
    dynbuf_addf(b, "%s: ", what);
    window_title(k, w, b);
    dynbuf_addf(b, " (%s, 0x%llx)", w->process && *w->process ? w->process : "?",
                (unsigned long long)w->hwnd);
    const struct wa_window *owner = w->owner ? find_listed(l, w->owner) : NULL;
    if (owner) {
        dynbuf_adds(b, ", a dialog of ");
        window_title(k, owner, b);
    }
    dynbuf_addc(b, '\n');
}

/* A window of a program outside the allow-list that an action brought up (what: how):
 * said plainly, by its program (the gate never shows its title), and remembered as the
 * session's intruder when it is in front. */
static void outsider_line(struct call *k, struct dynbuf *b, const struct wa_window *w,
                          const char *what)
{
    if (!gate_outside_apps(k->c->gate, w))
        return;
    for (size_t i = 0; i < k->verify.n_started; i++)
        if (k->verify.started[i].pid == w->pid)
            k->verify.started[i].pid = 0; /* named by its window */
    bool front = strcmp(what, "opened") != 0;
    dynbuf_addf(b,
                "outside --apps: a window of %s (0x%llx) %s; nothing of it is shown or acted "
                "on%s\n",
                w->process, (unsigned long long)w->hwnd, what,
                front ? ", and no input is sent while it is in front" : "");
    if (front)
        k->s->intruder = w->hwnd;
}

/* Windows that opened, closed or came to the front; true when one opened that is
 * after_hwnd (its elements are all new). */
static bool window_changes(struct call *k, uint64_t after_hwnd, struct dynbuf *lines)
{
    struct before_look *b = &k->look.before;
    struct wa_window_list now;
    if (!b->have_windows || backend_list_windows(k->be, &now) != WA_E_OK)
        return false;
    bool opened_after = false;
    uint64_t fg = 0;
    backend_foreground_window(k->be, &fg);
    for (size_t i = 0; i < now.count; i++)
        if (!listed(&b->windows, now.items[i].hwnd)) {
            window_line(k, lines, "window opened", &now.items[i], &now);
            opened_after = opened_after || now.items[i].hwnd == after_hwnd;
            outsider_line(k, lines, &now.items[i],
                          now.items[i].hwnd == fg ? "opened in front" : "opened");
        }
    for (size_t i = 0; i < b->windows.count; i++)
        if (!listed(&now, b->windows.items[i].hwnd))
            window_line(k, lines, "window closed", &b->windows.items[i], &b->windows);
    const struct wa_window *front = find_listed(&now, fg);
    if (fg != b->fg && front && listed(&b->windows, fg)) {
        window_line(k, lines, "in front now", front, &now);
        outsider_line(k, lines, front, "came to the front");
    }
    wa_window_list_cleanup(&now);
    /* programs started that show no window yet: named by their program */
    for (size_t i = 0; i < k->verify.n_started; i++) {
        const struct wa_started *st = &k->verify.started[i];
        struct wa_window w = {.pid = st->pid,
                              .process = (char *)str_path_base(st->path),
                              .process_path = (char *)st->path};
        if (st->pid && *st->path && gate_outside_apps(k->c->gate, &w))
            dynbuf_addf(lines,
                        "outside --apps: %s (pid %lu) started and has no window yet; nothing "
                        "of it will be shown or acted on, and no input is sent while a window "
                        "of it is in front\n",
                        w.process, st->pid);
    }
    return opened_after;
}

void verify_report_changes(struct call *k)
{
    struct session *s = k->s;
    struct before_look *b = &k->look.before;
    struct op_result *r = k->r;
    double t0 = os_clock_ms();
    dynbuf_reset(&r->changes);
    uint64_t after_hwnd = s->have_tree ? s->tree.hwnd : 0;
    bool opened = window_changes(k, after_hwnd, &r->changes);
    struct tree_diff d;
    tree_diff_init(&d);
    if (s->have_tree && b->have_tree && b->tree.hwnd == s->tree.hwnd) {
        if (tree_diff(&b->tree, &s->tree, CHANGE_LINES, &d) == WA_E_OK) {
            dynbuf_adds(&r->changes, dynbuf_str(&d.lines));
            r->n_new = d.n_new;
            r->n_vanished = d.n_vanished;
            r->n_changed = d.n_changed;
        }
    } else if (s->have_tree && opened) {
        tree_mark_all_new(&s->tree);
        r->n_new = s->tree.count;
    }
    /* Pixels, for what the trees do not show (a canvas, an image). */
    struct wa_rect box;
    if (!r->changes.len && b->have_image && b->have_after_image &&
        image_changed(&b->image, &b->after_image, &box))
        dynbuf_addf(&r->changes, "pixels: the window changed at [%d,%d][%d,%d] of its image\n",
                    box.left, box.top, box.right, box.bottom);
    r->has_changes = true;
    r->nothing_changed = r->changes.len == 0;
    /* Each step of keyboard menu work shows what is open now, changed or not. */
    dynbuf_adds(&r->changes, dynbuf_str(&d.still_open));
    tree_diff_cleanup(&d);
    /* The observation marks what is new. */
    if (r->obs.kind == OBS_TREE && r->n_new && s->have_tree) {
        struct dynbuf text;
        dynbuf_init(&text, 16u << 20);
        if (tree_format(&s->tree, NULL, &text) == WA_E_OK) {
            free(r->obs.text);
            r->obs.text = dynbuf_take(&text);
        }
        dynbuf_cleanup(&text);
    }
    r->diff_ms = os_clock_ms() - t0;
}
