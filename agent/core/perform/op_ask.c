/* Asking the person at the desk: ask_user's question goes to whoever the session says
 * answers (the console, an MCP client's elicitation); with nobody there it says so at
 * once, so that the model decides on its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/perform/operations.h"
#include "base/str.h"

#define QUESTION_MAX 2000 /* bytes of one question: a sentence or two, shown whole */

wa_err perform_ask_user(struct call *k)
{
    const char *question = k->q->question ? k->q->question : "";
    const struct person_asker *who = &k->s->o.person;
    call_summary(k, "%s \"%.60s\"", k->name, question);
    if (!*question)
        return wa_fail(WA_E_INVALID_ARGS, "%s needs a question", k->name);
    if (strlen(question) > QUESTION_MAX)
        return wa_fail(WA_E_INVALID_ARGS,
                       "the question is %zu bytes; at most %d are shown: ask it shorter",
                       strlen(question), QUESTION_MAX);
    char *answer = NULL;
    enum person_answer a =
        who->ask ? who->ask(who->ctx, question, false, k->q->cancel, &answer) : PERSON_NOBODY;
    if (k->q->cancel && *k->q->cancel) {
        free(answer);
        return wa_fail(WA_E_CANCELLED, "%s was cancelled while waiting for the answer", k->name);
    }
    struct op_result *r = k->r;
    r->asked = true;
    if (a == PERSON_ANSWERED) {
        r->text = answer ? answer : str_dup("");
        r->has_text = r->text != NULL;
        return WA_E_OK;
    }
    free(answer);
    op_result_note(r, "%s",
                   a == PERSON_NOBODY
                       ? "no person is available to answer: decide on your own"
                       : "the person did not answer (they declined): decide on your own");
    return WA_E_OK;
}
