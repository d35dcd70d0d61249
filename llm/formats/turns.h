/* The turns of a conversation as every format writes them: turns in order, a tool
 * round as the assistant's calls, a result for each (found among the tool messages that
 * follow, or a stand-in) and the results that answer none of them, calls written as text
 * answered by one user turn. A provider says how each piece is written with a const
 * table of functions (llm_encoder). Internal to llm/formats/. */
#ifndef WINAGENT_LLM_FORMATS_TURNS_H
#define WINAGENT_LLM_FORMATS_TURNS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "llm/llm.h"

/* What a call whose result is missing is answered with (each API wants every call
 * answered). */
#define LLM_NO_RESULT "(no result: the call was not executed)"

/* How one provider writes each piece into its list of turns (messages, input items,
 * contents). Every function returns false only when out of memory. */
struct llm_encoder {
    /* A user turn: text (NULL or empty allowed) and images. */
    bool (*user)(cJSON *list, const char *text, const struct llm_image *images, size_t n);
    /* The assistant's turn: its text and, with_calls, its calls (false for a reply
     * without calls, and for calls written as text, whose text carries them). */
    bool (*assistant)(cJSON *list, const struct llm_message *msg, bool with_calls);
    /* The answer to call tc: its result r, or NULL when it has none (LLM_NO_RESULT). */
    bool (*result)(cJSON *list, const struct llm_tool_call *tc, const struct llm_message *r);
    /* A result in a tool round that answers none of its calls; NULL: a user turn of
     * provider_orphan_result_text and the result's images. */
    bool (*orphan)(cJSON *list, const struct llm_message *r);
    /* After the results of the round at index i, before its orphans; may be NULL. */
    bool (*after_results)(cJSON *list, const struct llm_conversation *conv, size_t i);
    /* At the end of the round at index i; may be NULL. */
    bool (*after_round)(cJSON *list, const struct llm_conversation *conv, size_t i);
};

/* An assistant message's text as it stood around its calls: *head (heap, the caller
 * frees it) the text before them, *tail the text after (inside msg->text). Both NULL
 * when no text came after the calls (all of msg->text came first). False when out of
 * memory. */
bool turns_text_around_calls(const struct llm_message *msg, char **head, const char **tail);

/* Writes every message of conv into list through enc. False when out of memory. */
bool turns_write(cJSON *list, const struct llm_conversation *conv, const struct llm_encoder *enc);

#endif
