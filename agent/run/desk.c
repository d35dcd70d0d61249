/* The person at the desk for a run: the console asker and the lines of a pause. */
#include "agent/run/desk.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

#define ANSWER_MAX  2000 /* bytes of an answer kept */
#define ASK_POLL_MS 100  /* how often a wait for the answer looks at interrupts */

bool desk_attended(const struct settings *s, bool in_batch)
{
    return !in_batch && !settings_on(s, SET_UNATTENDED) && os_stdin_is_console();
}

/* One line read from stdin on a thread of its own, so that the one waiting for it can
 * give up at an interrupt: the reader then keeps it (it still points at it). */
struct console_line {
    char text[ANSWER_MAX];
    atomic_int state; /* 0 reading, 1 read, 2 end of input, 3 abandoned by the waiter */
};

static void read_line(void *arg)
{
    struct console_line *l = arg;
    int got = fgets(l->text, sizeof l->text, stdin) ? 1 : 2;
    int reading = 0;
    if (!atomic_compare_exchange_strong(&l->state, &reading, got))
        free(l); /* the waiter gave up on it */
}

/* The asker of a run with a person at the console (struct person_asker): the question on
 * stderr (control and bidi characters escaped), one line of answer from stdin; an empty
 * line is declined. Waiting, it stops at an interrupt or a cancel. */
static enum person_answer desk_ask_console(void *ctx, const char *question, bool confirm,
                                           const volatile bool *cancel, char **answer)
{
    (void)ctx;
    *answer = NULL;
    char shown[4096];
    term_escape(question, shown, sizeof shown); /* nothing the model wrote moves the cursor */
    fprintf(stderr, "\nwinagent asks: %s\n%s", shown, confirm ? "[y/N] " : "> ");
    fflush(stderr);
    struct console_line *l = calloc(1, sizeof *l);
    if (!l || os_thread_start(read_line, l) != WA_E_OK) {
        free(l);
        return PERSON_NOBODY;
    }
    while (atomic_load(&l->state) == 0 && !os_interrupted() && !(cancel && *cancel))
        os_nap_ms(ASK_POLL_MS);
    int reading = 0;
    if (atomic_compare_exchange_strong(&l->state, &reading, 3))
        return PERSON_DECLINED; /* interrupted: the reader frees the line */
    enum person_answer a = PERSON_DECLINED;
    if (atomic_load(&l->state) == 1) {
        l->text[strcspn(l->text, "\r\n")] = '\0';
        bool yes = l->text[0] == 'y' || l->text[0] == 'Y';
        if (confirm ? yes : l->text[0] != '\0') {
            *answer = str_dup(confirm ? "yes" : l->text);
            a = *answer ? PERSON_ANSWERED : PERSON_DECLINED;
        }
    }
    free(l);
    return a;
}

/* session_opts.paused for a run (ctx: its steplog): "paused: ..." when the wait begins,
 * "resumed after N s" when it ends, on stderr and in agent.log. */
static void desk_paused(void *ctx, double ms)
{
    struct steplog *log = ctx;
    if (ms < 0)
        steplog_progress(log, "paused: a person is using the mouse or keyboard; winagent sends "
                              "nothing until they have been idle");
    else
        steplog_progress(log, "resumed after %.1f s paused: looking again before acting",
                         ms / 1000.0);
}

void desk_session(struct session_opts *so, bool attended, struct steplog *log)
{
    so->wait_for_person = true;
    so->paused = desk_paused;
    so->paused_ctx = log;
    if (attended)
        so->person = (struct person_asker){desk_ask_console, NULL};
}
