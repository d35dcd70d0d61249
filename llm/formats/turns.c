/* The turns of a conversation, written in order by every format's request builder. */
#include "llm/formats/turns.h"

#include <stdlib.h>
#include <string.h>

#include "llm/provider.h"
#include "llm/text.h"

/* A tool result no call precedes (or none in its round answers): user text, since every
 * API rejects an unanswered result. */
static bool orphan_as_user(cJSON *list, const struct llm_encoder *enc, const struct llm_message *r)
{
    char *text = provider_orphan_result_text(r);
    bool ok = text && enc->user(list, text, r->images, r->n_images);
    free(text);
    return ok;
}

static bool answers_a_call(const struct llm_message *msg, const struct llm_message *r)
{
    for (size_t k = 0; k < msg->n_calls; k++)
        if (msg->calls[k].id && r->tool_call_id && strcmp(msg->calls[k].id, r->tool_call_id) == 0)
            return true;
    return false;
}

/* The assistant turn at index i with its calls, an answer to every call, then the
 * results that answer none of them. *last: the index of the last message consumed. */
static bool tool_round(cJSON *list, const struct llm_conversation *conv, size_t i, size_t *last,
                       const struct llm_encoder *enc)
{
    const struct llm_message *msg = &conv->messages[i];
    if (!enc->assistant(list, msg, true))
        return false;
    size_t end = i + 1;
    while (end < conv->n_messages && conv->messages[end].role == LLM_ROLE_TOOL)
        end++;
    *last = end - 1;
    for (size_t k = 0; k < msg->n_calls; k++)
        if (!enc->result(list, &msg->calls[k], provider_find_result(conv, i, msg->calls[k].id)))
            return false;
    if (enc->after_results && !enc->after_results(list, conv, i))
        return false;
    for (size_t j = i + 1; j < end; j++) {
        const struct llm_message *r = &conv->messages[j];
        if (answers_a_call(msg, r))
            continue;
        if (!(enc->orphan ? enc->orphan(list, r) : orphan_as_user(list, enc, r)))
            return false;
    }
    return !enc->after_round || enc->after_round(list, conv, i);
}

/* Calls written as text: that text, then the results as one user turn. */
static bool text_round(cJSON *list, const struct llm_conversation *conv, size_t i, size_t *last,
                       const struct llm_encoder *enc)
{
    char *text;
    struct llm_image *images;
    size_t n_images;
    if (!enc->assistant(list, &conv->messages[i], false) ||
        !provider_text_round_results(conv, i, &text, &images, &n_images, last))
        return false;
    bool ok = !text || enc->user(list, text, images, n_images);
    free(text);
    free(images);
    return ok;
}

bool turns_write(cJSON *list, const struct llm_conversation *conv, const struct llm_encoder *enc)
{
    bool ok = true;
    for (size_t i = 0; ok && i < conv->n_messages; i++) {
        const struct llm_message *m = &conv->messages[i];
        switch (m->role) {
        case LLM_ROLE_USER:
            ok = enc->user(list, m->text, m->images, m->n_images);
            break;
        case LLM_ROLE_ASSISTANT:
            ok = m->calls_as_text ? text_round(list, conv, i, &i, enc)
                 : m->n_calls     ? tool_round(list, conv, i, &i, enc)
                                  : enc->assistant(list, m, false);
            break;
        case LLM_ROLE_TOOL:
            ok = orphan_as_user(list, enc, m);
            break;
        }
    }
    return ok;
}

bool turns_text_around_calls(const struct llm_message *msg, char **head, const char **tail)
{
    *head = NULL;
    *tail = NULL;
    size_t n = msg->text ? strlen(msg->text) : 0;
    size_t k = msg->after_calls ? strlen(msg->after_calls) : 0;
    if (!msg->n_calls || !k || k > n || strcmp(msg->text + n - k, msg->after_calls) != 0)
        return true;
    if (!(*head = text_strndup(msg->text, n - k)))
        return false;
    *tail = msg->text + n - k;
    return true;
}
