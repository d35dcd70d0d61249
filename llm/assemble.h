/* Builds an llm_reply from the pieces a provider parses (streamed deltas or one whole
 * body): text, reasoning and tool calls under a size cap, with ids made up where the
 * server gave none. */
#ifndef WINAGENT_LLM_ASSEMBLE_H
#define WINAGENT_LLM_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dynbuf.h"
#include "llm/llm.h"

/* Source of made-up tool-call ids, "call_<n>_<8 hex>": n counts up per client, the
 * hex part is random, so ids stay unique within a conversation and across runs. */
struct llm_ids {
    unsigned long next;
    uint32_t rng;
};
void llm_ids_init(struct llm_ids *ids, uint32_t seed);
/* Writes a new id into out (at least 32 bytes). */
void llm_ids_make(struct llm_ids *ids, char *out, size_t outsz);
/* A pseudo-random number (xorshift); used for ids and backoff jitter. */
uint32_t llm_ids_random(struct llm_ids *ids);

struct asm_call {
    long index; /* the stream's tool-call index; -1 when it gave none */
    char *id;   /* NULL until the server sends one */
    char *name;
    struct dynbuf args; /* argument text as received (may be malformed JSON) */
    char *thought_signature;
};

struct reply_asm {
    size_t max; /* cap of every text buffer, bytes */
    struct dynbuf text, reasoning;
    struct asm_call *calls;
    size_t n_calls, cap_calls;
    char *finish_reason;
    char *finish_message;    /* Gemini: why it stopped, in words; NULL if none */
    char *thought_signature; /* Gemini: signature on a text part */
    struct llm_usage usage;
    bool done; /* the reply's end was seen ([DONE], a finish reason) */
    /* The wire keeps text and calls in order (llm_provider_ops.ordered): text that
     * follows the last call becomes the reply's after_calls. */
    bool ordered;
    size_t text_at_call; /* bytes of text when the last call started */
    bool retryable;      /* the error just returned may clear on another attempt */
    long error_status;   /* HTTP-like code of an error object in a 2xx body, or 0 */
    llm_delta_fn on_delta;
    void *ctx;
    struct llm_ids *ids;
};

void asm_init(struct reply_asm *a, size_t max, struct llm_ids *ids, llm_delta_fn on_delta,
              void *ctx);
void asm_cleanup(struct reply_asm *a);

/* Appends reply text (or reasoning) and passes it to on_delta. WA_E_TOO_LARGE past max. */
wa_err asm_add_text(struct reply_asm *a, const char *s, size_t n, bool reasoning);

/* A new empty call at the end. */
wa_err asm_new_call(struct reply_asm *a, struct asm_call **out);
/* The latest call assembled under a stream's index, or NULL. */
struct asm_call *asm_call_at(struct reply_asm *a, long index);
/* Appends argument text; WA_E_TOO_LARGE past max. */
wa_err asm_call_add_args(struct reply_asm *a, struct asm_call *c, const char *s, size_t n);

/* Moves the assembled reply into out (which the caller has zeroed or cleaned up): empty
 * text becomes NULL, with ordered the text after the last call is copied to after_calls, calls get
 * ids (made up when missing, empty or repeated within the reply) and "{}" for empty arguments;
 * usage totals are filled in. */
wa_err asm_take_reply(struct reply_asm *a, struct llm_reply *out);

/* True when the reply has something the loop can use: text or tool calls. */
bool asm_has_content(const struct reply_asm *a);

#endif
