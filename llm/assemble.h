/* Builds an llm_reply from the pieces a provider parses (streamed deltas or one whole
 * body): text, reasoning and tool calls under a size cap, with ids made up where the
 * server gave none. */
#ifndef WINAGENT_LLM_ASSEMBLE_H
#define WINAGENT_LLM_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/dynbuf.h"
#include "llm/llm.h"

/* Source of made-up tool-call ids, "call_<n>_<8 hex>": n counts up per client, the
 * hex part is random, so ids stay unique within a conversation and across runs. */
struct llm_ids {
    unsigned long next;
    uint32_t rng;
};
void asm_ids_init(struct llm_ids *ids, uint32_t seed);
/* Writes a new id into out (at least 32 bytes). */
void asm_ids_make(struct llm_ids *ids, char *out, size_t outsz);
/* A pseudo-random number (xorshift); used for ids and backoff jitter. */
uint32_t asm_ids_random(struct llm_ids *ids);

struct asm_call {
    long index; /* the stream's tool-call index; -1 when it gave none */
    char *id;   /* NULL until the server sends one */
    char *name;
    struct dynbuf args; /* argument text as received (may be malformed JSON) */
    char *thought_signature;
    char *toolset; /* Anthropic: the toolset the call is a member of; NULL otherwise */
};

/* A member of a streamed block that its deltas grow: a string appended to, or JSON text
 * parsed once the block is whole (a tool_use's input). */
struct asm_grow {
    char key[16];
    bool json;
    struct dynbuf buf;
};

/* One block of the turn as its service wrote it (llm_reply.verbatim): a content block,
 * output item or part, whole as received or started by a stream and grown by its deltas. */
struct asm_block {
    long index; /* the stream's index of it (its place in a whole reply) */
    cJSON *block;
    struct asm_grow grow[2];
    int n_grow;
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
    /* The turn as its service wrote it, block by block (providers whose service wants
     * parts of it back unchanged fill it); the wire's name goes with it. */
    struct asm_block *blocks;
    size_t n_blocks, cap_blocks;
    const char *verbatim_wire;
    bool cut_by_cap; /* the reply ended at the output-token cap with nothing usable */
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

/* A block of the turn as received (a copy is kept) at the stream's index (or its place in
 * a whole reply), after the blocks before it. */
wa_err asm_block_add(struct reply_asm *a, long index, const cJSON *block);
/* The latest block kept under that index, or NULL. */
struct asm_block *asm_block_at(struct reply_asm *a, long index);
/* Grows member key of the block at index by a delta: appended to the string it holds
 * (json: JSON text, parsed when the reply is taken; malformed becomes {}). WA_E_OK and
 * nothing done when no block has that index; WA_E_TOO_LARGE past max. */
wa_err asm_block_grow(struct reply_asm *a, long index, const char *key, bool json, const char *s,
                      size_t n);
/* Drops every block kept (a whole list that replaces the streamed one follows). */
void asm_blocks_clear(struct reply_asm *a);

/* Moves the assembled reply into out (which the caller has zeroed or cleaned up): empty
 * text becomes NULL, with ordered the text after the last call is copied to after_calls, calls get
 * ids (made up when missing, empty or repeated within the reply) and "{}" for empty arguments;
 * usage totals are filled in; the blocks kept become out->verbatim. */
wa_err asm_take_reply(struct reply_asm *a, struct llm_reply *out);

/* True when the reply has something the loop can use: text or tool calls. */
bool asm_has_content(const struct reply_asm *a);

#endif
