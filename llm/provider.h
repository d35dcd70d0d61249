/* The seam between the client (transport, retries) and one wire format: a const table
 * of functions per provider (llm/formats/openai.c, llm/formats/gemini.c, llm/formats/responses.c,
 * llm/formats/anthropic.c), and the pieces they share. Internal to llm/. */
#ifndef WINAGENT_LLM_PROVIDER_H
#define WINAGENT_LLM_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "llm/assemble.h"
#include "llm/llm.h"
#include "llm/models.h"

/* The client's own copy of the settings a provider needs. */
struct llm_settings {
    enum llm_provider_kind provider;
    char *base_url;
    char *model;
    char *api_key; /* NULL when the server needs none */
    bool stream;
    int max_tokens;
    double temperature;
    char *tool_choice; /* OpenAI-compatible: sent with tools when not NULL */
    bool store;        /* Responses: llm_config.store */
    /* OpenAI-compatible, streaming: stream_options.include_usage is sent (cleared for the
     * client's life when the server refuses stream_options) */
    bool stream_options;
    const struct model_family *family; /* the model's row (llm/models.h) */
    /* The computer tool declared: Anthropic's tool or toolset type, OpenAI's tool type;
     * the family's at first, another when the service names what it takes instead. */
    char computer_tool[40];
    int server_keep;          /* llm_config.server_keep */
    bool drop_stale_thinking; /* llm_config.drop_stale_thinking */
    unsigned dropped;         /* LLM_PARAM_* the service refused: no longer sent */
    unsigned tools_tried;     /* computer tool types refused (bits by llm/adapt.c) */
};

/* Optional request parameters a service may refuse by name; once refused, each is left
 * out for the client's life (llm_settings.dropped). */
enum {
    LLM_PARAM_TEMPERATURE = 1u << 0,
    LLM_PARAM_TOOL_CHOICE = 1u << 1,
    LLM_PARAM_CONTEXT = 1u << 2,    /* Anthropic context_management (its beta header too) */
    LLM_PARAM_THINKING = 1u << 3,   /* Anthropic thinking (the binding control) */
    LLM_PARAM_TRUNCATION = 1u << 4, /* Responses truncation */
};

#define LLM_WIRE_MAX_HEADERS 8

/* One request as it goes on the wire. The key may only be in a header. */
struct llm_wire {
    char *url;
    char *headers[LLM_WIRE_MAX_HEADERS]; /* "Name: value" */
    size_t n_headers;
    char *body;
    size_t body_len;
};

void provider_wire_cleanup(struct llm_wire *w);
/* Appends a formatted header line. WA_E_NOMEM, or WA_E_INVALID_ARGS when full. */
wa_err provider_wire_add_header(struct llm_wire *w, const char *fmt, ...) WA_PRINTF(2, 3);

struct llm_provider_ops {
    const char *name; /* "openai-compatible", "google", "openai-responses", "anthropic" */
    /* Builds URL, headers and JSON body for the conversation and tools. */
    wa_err (*build)(const struct llm_settings *s, const struct llm_conversation *conv,
                    const struct llm_tool *tools, size_t n_tools, struct llm_wire *out);
    /* Parses a whole 2xx body into a. */
    wa_err (*parse_body)(struct reply_asm *a, const char *body, size_t len);
    /* Consumes the data of one server-sent event. */
    wa_err (*parse_event)(struct reply_asm *a, const char *data, size_t len);
    /* Judges the assembled reply once the body or stream has ended: missing end,
     * finish reasons that are errors. Sets a->retryable where another try may help. */
    wa_err (*finish)(struct reply_asm *a, bool streamed);
    /* The reply keeps its text and calls in the order written (content blocks, parts,
     * output items): text after the last call is told apart (llm_reply.after_calls). */
    bool ordered;
    /* The service wants parts of a turn back as it sent them: the parser keeps the turn's
     * blocks (asm_block_add), and build sends them back (provider_add_verbatim). */
    bool verbatim;
};

extern const struct llm_provider_ops llm_openai_ops;
extern const struct llm_provider_ops llm_gemini_ops;
extern const struct llm_provider_ops llm_responses_ops;
extern const struct llm_provider_ops llm_anthropic_ops;

/* The table of a provider kind. */
const struct llm_provider_ops *provider_ops_for(enum llm_provider_kind k);

/* base + path, keeping a query the base carries ("...?api-version=x" stays last) and
 * adding extra_query (may be NULL) to it. A base that already ends with path is kept.
 * Heap string, NULL when out of memory. */
char *provider_url_join(const char *base, const char *path, const char *extra_query);

/* WA_E_PARSE "WHAT is not valid JSON: <a snippet of data>". */
wa_err provider_not_json(const char *what, const char *data, size_t len);

/* v's value as a long when it is a number within [lo, hi] (a fraction is cut off), else
 * def: a number from the server or the model is range-checked before it becomes an
 * integer, since converting 1e300 is undefined. lo and hi are below 2^53 in size. */
long provider_json_long(const cJSON *v, long lo, long hi, long def);

/* Token counts: 0 to half a billion, anything else counts as none; a reply's sum of
 * two counts then still fits a 32-bit long (Windows). */
#define LLM_TOKENS_MAX 500000000L

/* Replaces *dst with v's text when v is a non-empty JSON string; else leaves it. */
wa_err provider_set_json_str(char **dst, const cJSON *v);

/* "Result of NAME: TEXT" for a tool result no call precedes (sent as user text, since
 * both APIs reject an unanswered result); heap string, NULL when out of memory. */
char *provider_orphan_result_text(const struct llm_message *m);

/* The results of an assistant turn whose calls were written as text (calls_as_text,
 * at index i): the tool messages after it, in order, as the text of one user turn
 * ("Result of desktop (call_1):\n..." each) and their images (*images a heap array
 * of shallow copies the caller frees, NULL when none). *last is the index of the last
 * message consumed (i when none follows; *text is then NULL). False when out of memory. */
bool provider_text_round_results(const struct llm_conversation *conv, size_t i, char **text,
                                 struct llm_image **images, size_t *n_images, size_t *last);

/* The tool result answering call_id in the messages that follow the assistant message
 * at index i (consecutive tool messages), or NULL. */
const struct llm_message *provider_find_result(const struct llm_conversation *conv, size_t i,
                                               const char *call_id);

/* Whether the assistant message m goes back as its service wrote it on the wire of that
 * name (it carries the turn as received from that wire). */
bool provider_goes_verbatim(const struct llm_message *m, const char *wire);
/* Appends each block of m->verbatim to list (content blocks, input items, parts), in
 * order, as they came. False when out of memory. */
bool provider_add_verbatim(cJSON *list, const struct llm_message *m);

/* ---- JSON pieces every wire format uses ---- */

/* o's member key (case-sensitive), or NULL; o may be NULL. */
const cJSON *provider_get(const cJSON *o, const char *key);
/* Whether o's "type" is the string type. */
bool provider_is_type(const cJSON *o, const char *type);
/* Adds item to an object under key (or to an array, key NULL). Building a request only
 * fails for want of memory: false then, and item (NULL allowed) is freed. */
bool provider_add(cJSON *parent, const char *key, cJSON *item);
/* "data:MIME;base64,DATA" (mime NULL: image/png); heap string, NULL out of memory. */
char *provider_data_url(const char *mime, const char *base64);

/* Adds t's "name", "description" (when it has one) and its schema under schema_key
 * (llm_tool_schema) to obj. False when out of memory, or with *err set. */
bool provider_add_function(cJSON *obj, const struct llm_tool *t, const char *schema_key,
                           wa_err *err);

/* How one provider declares a function, and its computer tool (as the settings have it:
 * s->computer_tool), into the tools list. False when out of memory, or with *err set. */
typedef bool (*llm_function_fn)(cJSON *list, const struct llm_tool *t, wa_err *err);
typedef bool (*llm_computer_fn)(cJSON *list, const struct llm_computer_tool *ct,
                                const struct llm_settings *s, wa_err *err);

/* root's "tools": one entry per tool, in order, written by function or computer. */
bool provider_add_tools(cJSON *root, const struct llm_tool *tools, size_t n_tools,
                        const struct llm_settings *s, llm_function_fn function,
                        llm_computer_fn computer, wa_err *err);

/* Ends a request body: prints root into out->body when ok and frees root. Returns
 * WA_E_OK, else err when set, else WA_E_NOMEM. */
wa_err provider_wire_set_body(struct llm_wire *out, cJSON *root, bool ok, wa_err err);
/* Content-Type: application/json and the Accept header of a streamed or whole reply. */
wa_err provider_wire_json_headers(struct llm_wire *out, bool stream);
/* The OpenAI key header: api-key on Azure (base under .azure.com), else a bearer token.
 * Nothing when key is NULL or empty. */
wa_err provider_wire_openai_key(struct llm_wire *out, const char *base, const char *key);

/* ---- reply checks every provider makes ---- */

/* A streamed reply that ended before its end was seen (cut: the provider's judgement):
 * a retryable WA_E_NETWORK. A reply that ended at the token limit (max_tokens, the
 * provider's name for it) is marked a->cut_by_cap. Otherwise, for a reply with neither
 * text nor calls, the finish reasons that are errors: the token limit (WA_E_PARSE) and
 * blocked (a filter or refusal, WA_E_BLOCKED with why). WA_E_OK else. */
wa_err provider_finish_reply(struct reply_asm *a, bool cut, const char *max_tokens,
                             const char *blocked, const char *why);

#endif
