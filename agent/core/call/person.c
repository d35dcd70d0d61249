/* The person at the desk: their input checked at the moment of acting, the wait for
 * them to be idle, and the watch of the stop gesture. */
#include "agent/core/call/person.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "base/os.h"

#define PERSON_POLL_MS 100 /* how often the wait asks whether the person is idle */

/* The stop gesture, from the backend's watching thread: every run of the process ends,
 * and the core sends nothing more. */
static void stopped_by_person(void *ctx)
{
    (void)ctx;
    os_interrupt_raise(OS_INTERRUPT_STOP_GESTURE);
}

void person_watch(struct core *c)
{
    static atomic_int started; /* the backend's watch is one per process */
    if (atomic_exchange(&started, 1))
        return;
    if (backend_watch_person(c->be, stopped_by_person, NULL) != WA_E_OK) {
        fprintf(stderr,
                "winagent: cannot watch the person's own input (%s): takeover and the "
                "stop gesture are off\n",
                wa_err_detail());
        wa_err_clear();
    }
}

/* Whether the call's input is the person's business: it sends foreground input, changes
 * windows or starts a program, and takeover is on. */
static bool applies(const struct call *k)
{
    const struct op_def *op = k->q->op;
    return k->c->cfg.takeover != TAKEOVER_OFF && !k->dry && !k->send.background &&
           (op->flags & (OPF_INPUT | OPF_WINDOWS | OPF_LAUNCH));
}

wa_err person_check(struct call *k)
{
    if (os_interrupted_by_person())
        return wa_fail(WA_E_INTERRUPTED,
                       "%s refused: the person stopped winagent (%s); nothing more is sent",
                       k->name, os_interrupt_reason());
    if (!applies(k))
        return WA_E_OK;
    person_watch(k->c);
    int64_t idle;
    bool keys;
    if (backend_person_idle(k->be, &idle, &keys) != WA_E_OK) {
        wa_err_clear(); /* nobody can be told apart: nobody is refused */
        return WA_E_OK;
    }
    int need = k->c->cfg.idle_ms;
    if (idle >= need)
        return WA_E_OK;
    if (k->c->cfg.takeover == TAKEOVER_STOP && k->s->o.wait_for_person) {
        os_interrupt_raise(OS_INTERRUPT_TAKEN_OVER);
        return wa_fail(WA_E_USER_ACTIVE,
                       "%s refused: a person used the %s %.1f s ago, and with --takeover stop "
                       "that ends the run; nothing was sent",
                       k->name, keys ? "keyboard" : "mouse", (double)idle / 1000.0);
    }
    return wa_fail(WA_E_USER_ACTIVE,
                   "%s refused: a person is using the %s (their last input %.1f s ago); nothing "
                   "was sent. Look again once they have been idle for %.1f s",
                   k->name, keys ? "keyboard" : "mouse", (double)idle / 1000.0,
                   (double)need / 1000.0);
}

void person_wait(struct call *k)
{
    struct session *s = k->s;
    int need = k->c->cfg.idle_ms;
    double t0 = os_clock_ms();
    if (s->o.paused)
        s->o.paused(s->o.paused_ctx, -1);
    for (;;) {
        int64_t idle;
        bool keys;
        if (backend_person_idle(k->be, &idle, &keys) != WA_E_OK || idle >= need)
            break;
        /* at most until they would have been idle long enough, and a tenth of a second */
        int64_t left = need - idle;
        if (os_sleep_ms(left < PERSON_POLL_MS ? (int)left : PERSON_POLL_MS) != WA_E_OK)
            break;
    }
    wa_err_clear();
    k->r->paused_ms = os_clock_ms() - t0;
    if (s->o.paused)
        s->o.paused(s->o.paused_ctx, k->r->paused_ms);
}
