/* The LLM layer's public face: a provider-neutral conversation, tool declarations,
 * and one call that sends the conversation to a model and returns its reply.
 * Providers (OpenAI-compatible, Gemini) turn this into wire requests; the loop
 * never sees a wire format. */
#ifndef WINAGENT_LLM_LLM_H
#define WINAGENT_LLM_LLM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/wa_err.h"

struct llm_reply;
struct model_family;

/* ---- conversation model ---- */

enum llm_role {
    LLM_ROLE_USER,      /* text and images from the user (or observations we add) */
    LLM_ROLE_ASSISTANT, /* the model's text and tool calls */
    LLM_ROLE_TOOL,      /* the result of one tool call: text, optional image */
};

/* An image attached to a user turn or a tool result. base64 is the encoded bytes
 * (no data: prefix), kept encoded so history re-sends cost no re-encoding. */
struct llm_image {
    char *mime; /* "image/png" */
    char *base64;
};

/* Which space a call's coordinates (x, y, to_x, to_y) are in. */
enum llm_coords {
    LLM_COORDS_FRAME_999, /* winagent's own 0-999 over the frame (every function call) */
    LLM_COORDS_PIXELS,    /* pixels of the image sent (UI-TARS-1.5 after its smart resize,
                           * Qwen2.5-VL): the loop scales by that image's size */
    LLM_COORDS_NORM_1000, /* 0-1000 relative (UI-TARS 1.0, Qwen3-VL) */
};

/* Grammars of tool calls written as text in a reply's content (llm/textcalls.h). */
enum llm_text_format {
    LLM_TEXT_HERMES = 1 << 0,      /* <tool_call>{"name":..,"arguments":{..}}</tool_call> */
    LLM_TEXT_QWEN3_CODER = 1 << 1, /* <function=NAME><parameter=K>V</parameter></function> */
    LLM_TEXT_JSON = 1 << 2,        /* the whole text is {"name":..,"parameters"|"arguments":..} */
    LLM_TEXT_UITARS = 1 << 3,      /* Thought: ...\nAction: click(start_box='(x,y)') */
};
/* What a server without a tool parser writes for function-calling models (UI-TARS is a
 * grounding model's own grammar: ask for it explicitly). */
#define LLM_TEXT_FUNCTION_FORMATS (LLM_TEXT_HERMES | LLM_TEXT_QWEN3_CODER | LLM_TEXT_JSON)

struct llm_tool_call {
    char *id; /* never NULL or empty after parsing: made up when the server omits it */
    char *name;
    char *arguments; /* JSON object text; "{}" when the model sent none */
    /* The arguments parsed once, when the reply was read (an object, owned; NULL for
     * text that is no JSON object): what the loop turns into a request and providers
     * send back each turn. Copies of the call copy it. */
    struct cJSON *parsed;
    /* Gemini's opaque thoughtSignature for this call, echoed back exactly (Responses: the
     * reasoning items that came before a computer_call, a JSON array); NULL if none. */
    char *thought_signature;
    /* Anthropic: the toolset the call is a member of ("computer": its name is the action,
     * its result echoes the toolset's name); NULL for a call of a tool of its own. */
    char *toolset;
    /* The id was made up here because the server sent none (Gemini is then sent no id). */
    bool id_synthetic;
    /* The space of the arguments' x, y, to_x, to_y: LLM_COORDS_FRAME_999 except for calls
     * a grounding model wrote as text (UI-TARS), which the loop converts before running. */
    enum llm_coords coords;
};

struct llm_message {
    enum llm_role role;
    char *text;               /* may be NULL */
    struct llm_image *images; /* user and tool messages */
    size_t n_images;
    struct llm_tool_call *calls; /* assistant messages */
    size_t n_calls;
    char *tool_call_id; /* tool messages: the call this answers */
    char *tool_name;    /* tool messages: that call's function name */
    /* Assistant messages from Gemini: a thoughtSignature on a text-only part, echoed back. */
    char *thought_signature;
    /* Assistant messages: the end of text that the model wrote after its calls (text ends
     * with it), sent back after them so the turn keeps its order; NULL when all the text
     * came first. */
    char *after_calls;
    /* Tool messages answering an action of the provider's computer tool: the image is
     * the screenshot the protocol carries inside the result (Gemini: the function
     * response's own parts), the text winagent's report beside it. */
    bool computer;
    /* ... and a person agreed to the safety check the call carried: the result says so
     * as the protocol wants (Gemini: "safety_acknowledgement": "true"). */
    bool safety_acknowledged;
    /* Tool messages: the call failed or was not run (the text says why): the result says
     * so where the wire has a place for it (Anthropic's is_error, Gemini's "error" key). */
    bool failed;
    /* Assistant messages whose calls the model wrote in its text (text holds it as
     * written): they go back as that text, and their results as one user turn of text
     * and images, since such a server knows no tool calls or tool messages. */
    bool calls_as_text;
    /* Assistant messages: the turn as its service wrote it, for a service that wants it, or
     * parts of it, back unchanged (Anthropic's thinking and redacted_thinking blocks with
     * their signatures, the Responses API's reasoning items with their encrypted content,
     * Gemini's thought signatures): the content blocks, output items or parts as received,
     * in order, as one JSON array. The wire named verbatim_wire (a provider's name) sends
     * it back in the turn's place instead of rebuilding the turn; NULL for wires that
     * need nothing back. */
    char *verbatim;
    const char *verbatim_wire;
};

struct llm_conversation {
    char *system; /* system prompt, may be NULL */
    struct llm_message *messages;
    size_t n_messages;
    size_t cap;
};

struct cJSON;

/* Tool-call arguments as a JSON object (a new one), or NULL when the text is none. */
struct cJSON *llm_parse_arguments(const char *arguments);

/* The provider's own computer-use tool, declared instead of a function. */
struct llm_computer_tool {
    /* Gemini: ENVIRONMENT_DESKTOP; false: ENVIRONMENT_BROWSER (the models that take no
     * other), with the browser's own functions left out through `excluded`. */
    bool desktop;
    const char *const *excluded; /* Gemini: predefined functions not offered; NULL-ended */
    /* Pixels of the screenshots sent (the declared display of the pixel protocols). */
    int display_width, display_height;
};

/* A tool the model may call; parameters is its JSON-schema object (NULL: none). Written
 * once, rendered per provider (Gemini gets its accepted subset of JSON schema). With
 * computer set it is the provider's computer tool instead (name, description and
 * parameters unused). */
struct llm_tool {
    const char *name;
    const char *description;
    const struct cJSON *parameters;
    const struct llm_computer_tool *computer;
};

void llm_conversation_init(struct llm_conversation *c);
void llm_conversation_cleanup(struct llm_conversation *c);
wa_err llm_conversation_set_system(struct llm_conversation *c, const char *text);
/* Appends a user turn; images may be NULL/0. Copies everything. */
wa_err llm_conversation_add_user(struct llm_conversation *c, const char *text,
                                 const struct llm_image *images, size_t n_images);
/* Appends the assistant turn of a reply (text and tool calls), copying them. */
wa_err llm_conversation_add_reply(struct llm_conversation *c, const struct llm_reply *r);
/* Appends the result of tool call `call_id` (named `name`); image may be NULL. */
wa_err llm_conversation_add_tool_result(struct llm_conversation *c, const char *call_id,
                                        const char *name, const char *text,
                                        const struct llm_image *image);
/* The same for an action of the computer tool: image is the screenshot after it;
 * acknowledged: a person agreed to the safety check the call carried. */
wa_err llm_conversation_add_computer_result(struct llm_conversation *c, const char *call_id,
                                            const char *name, const char *text,
                                            const struct llm_image *image, bool acknowledged);
/* Marks the last message, a tool result, as a failure (llm_message.failed); false when
 * the last message is no tool result. */
bool llm_conversation_mark_failed(struct llm_conversation *c);
/* Replaces a message's text and drops its images (history trimming): the message
 * keeps its role, ids and tool calls, so the conversation stays well-formed. */
wa_err llm_message_replace_content(struct llm_message *m, const char *text);

/* ---- the reply ---- */

struct llm_usage {
    long prompt_tokens;
    long completion_tokens;
    long total_tokens;
};

struct llm_reply {
    char *text; /* final or accompanying text; NULL when none */
    /* The end of text that came after the reply's last call (text ends with it), where
     * the wire keeps the order of text and calls (Anthropic's blocks, Gemini's parts,
     * Responses' items, calls written as text; never Chat Completions): a final answer
     * given with the calls. NULL when none, or only white space, came after them. */
    char *after_calls;
    char *reasoning; /* thinking text the server streamed separately; NULL if none */
    struct llm_tool_call *calls;
    size_t n_calls;
    char *finish_reason;     /* as the server said it ("stop", "tool_calls", "STOP", ...) */
    char *thought_signature; /* Gemini: signature on a text part, echoed back */
    /* The turn as its service wrote it (llm_message.verbatim) and its wire; NULL when the
     * wire keeps none. */
    char *verbatim;
    const char *verbatim_wire;
    struct llm_usage usage;
    /* The calls were parsed from the reply's text (llm_config.text_calls); text is then
     * what was written around them (UI-TARS: the Thought), or a UI-TARS finished()
     * answer, whose Thought goes to reasoning. */
    bool calls_from_text;
    /* With calls_from_text: the reply's text as the model wrote it, calls and all (what
     * the conversation keeps, so the model reads back its own words). NULL otherwise. */
    char *written;
    /* A call was started in the text but is malformed: why, to tell the model; the reply
     * is then left as the server sent it. NULL otherwise. */
    char *text_call_error;
    /* The server refuses any request with tools (HTTP 400: vLLM started without a tool
     * parser says "auto" tool choice requires --enable-auto-tool-choice): no retry
     * helps, but the same request without tools would pass. Set on failure only. */
    bool tools_refused;
    int attempts;      /* HTTP attempts this reply took (1 = no retry) */
    long http_status;  /* status of the last attempt */
    double elapsed_ms; /* whole call, retries and waits included */
};

void llm_reply_cleanup(struct llm_reply *r);

/* ---- the client ---- */

enum llm_provider_kind {
    LLM_PROVIDER_OPENAI,           /* "openai-compatible" (Chat Completions) */
    LLM_PROVIDER_GOOGLE,           /* "google" (Gemini generateContent) */
    LLM_PROVIDER_OPENAI_RESPONSES, /* "openai-responses" (the Responses API) */
    LLM_PROVIDER_ANTHROPIC,        /* "anthropic" (the Messages API) */
};

/* Receives progress and diagnostic lines (retries, waits, stream errors). Never given
 * the API key. */
typedef void (*llm_log_fn)(void *ctx, const char *line);
/* Receives streamed text as it arrives (for live progress); may be NULL. */
typedef void (*llm_delta_fn)(void *ctx, const char *text, bool is_reasoning);

struct llm_config {
    enum llm_provider_kind provider;
    const char *base_url; /* OpenAI-compatible: required (…/v1, Azure deployment URL with
                           * ?api-version=, Ollama…); the others: optional, defaults
                           * https://generativelanguage.googleapis.com,
                           * https://api.openai.com/v1, https://api.anthropic.com */
    const char *model;
    const char *api_key; /* NULL or "" when the server needs none */
    bool stream;         /* server-sent events (default on in the CLI) */
    /* For the numbers below, 0 picks the default; max_retries < 0 means no retries. A
     * server-requested wait longer than max_backoff_ms fails the call at once. */
    int connect_timeout_s;     /* default 20 */
    int timeout_s;             /* whole transfer, default 300 */
    int max_retries;           /* retries after the first attempt, default 5 */
    int max_backoff_ms;        /* cap of one wait, default 60000 */
    size_t max_response_bytes; /* default 32 MiB; larger bodies fail with WA_E_TOO_LARGE */
    /* Output tokens asked for (thinking included); 0: the model family's default
     * (llm/models.h: Anthropic requires one; the others get none unless set). A reply cut
     * at it is asked again with more, up to what the model takes. */
    int max_tokens;
    /* Mask of enum llm_text_format: when a reply carries no tool call but its text holds
     * a well-formed call of one of these grammars, the calls are taken from the text
     * (as llm_protocol_choose settles it for --tool-protocol). Logged once per client.
     * 0: replies are taken as sent. */
    unsigned text_calls;
    /* OpenAI-compatible: "auto", "required" or "none" sent as tool_choice with tools;
     * NULL: not sent. A server that rejects it (HTTP 400 naming tool_choice) is asked
     * again without it, for the client's lifetime (logged once). */
    const char *tool_choice;
    enum llm_coords text_coords; /* the space UI-TARS coordinates are written in */
    /* Responses: the server keeps the responses ("store": true). False (the default, and
     * what zero-data-retention organisations must use): "store": false, with the reasoning
     * items' encrypted content asked for and sent back whole. */
    bool store;
    double temperature; /* < 0: not sent */
    /* Anthropic: the service clears older tool results itself, keeping the last
     * server_keep (context editing), while the history sent stays whole. */
    bool server_clears;
    int server_keep;
    /* Anthropic, models whose service binds replayed thinking to the history before it: a
     * block whose history changed is dropped by the service instead of refused (the
     * binding control). */
    bool drop_stale_thinking;
    llm_log_fn log;
    llm_delta_fn on_delta;
    void *ctx;
};

struct llm_client;

/* Copies what it needs from cfg. Parses "openai-compatible" / "google" elsewhere:
 * see llm_provider_from_name. */
wa_err llm_client_new(const struct llm_config *cfg, struct llm_client **out);
void llm_client_free(struct llm_client *c);

/* The model family the client speaks to (llm/models.h); never NULL. */
const struct model_family *llm_client_family(const struct llm_client *c);

/* The conversation's older turns are shortened from now on (the requests grew past what
 * the service takes): where its service binds replayed thinking to the history, it is
 * asked to drop the blocks that no longer fit (Anthropic's binding control) rather than
 * refuse the request. */
void llm_client_history_shortened(struct llm_client *c);

/* Sends the conversation and the tools; fills *out (cleanup it even on failure).
 * Retries 408, 409, 429, 500, 502, 503, 504, 529 and dropped connections with exponential
 * backoff and jitter, honouring Retry-After, retry-after-ms and Gemini's RetryInfo;
 * fails fast on quotas that waiting will not clear. os_interrupted() cuts waits and
 * transfers short (WA_E_INTERRUPTED). Errors: WA_E_NETWORK, WA_E_HTTP, WA_E_RATE_LIMITED,
 * WA_E_QUOTA, WA_E_BLOCKED, WA_E_PARSE, WA_E_TOO_LARGE, WA_E_TIMEOUT, WA_E_INTERRUPTED,
 * with the server's message in wa_err_detail() (never the key). A body cut short
 * (connection dropped, fewer bytes than announced, a stream without its end) and an
 * error object mid-stream are retried; a complete body that is not JSON fails at once
 * with WA_E_PARSE; Gemini's MALFORMED_FUNCTION_CALL is retried, then WA_E_PARSE.
 * An OpenAI-compatible server that answers HTTP 400 naming "stream_options" is asked
 * again at once without stream_options, still streaming; one that names "stream" to a
 * streamed request with tools is asked again without streaming; likewise without
 * tool_choice when the 400 names that. Likewise for the refusals llm/adapt.h knows (a
 * computer tool version the model does not take, a parameter it does not know, more
 * output tokens than it takes) and a reply cut at the output-token cap (asked again with
 * more). Each holds for the client's life (logged once).
 * out->text etc. stay empty on failure; attempts, http_status, elapsed_ms are set. */
wa_err llm_complete(struct llm_client *c, const struct llm_conversation *conv,
                    const struct llm_tool *tools, size_t n_tools, struct llm_reply *out);

/* "openai-compatible" (also "openai"), "openai-responses", "google" (also "gemini"),
 * "anthropic"; see also llm/protocol.h for the names going the other way. */
wa_err llm_provider_from_name(const char *name, enum llm_provider_kind *out);

#endif
