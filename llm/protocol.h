/* How a model is asked for actions (the tool protocol), settled from the settings and the
 * model's name: one table of protocols and one of the names that pick one (what each
 * family takes is llm/models.h). Pure: nothing here talks to a server. */
#ifndef WINAGENT_LLM_PROTOCOL_H
#define WINAGENT_LLM_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/wa_err.h"
#include "llm/llm.h"

/* X(ID, name, help) */
#define LLM_TOOL_PROTOCOL_MAP(X)                                                                   \
    X(AUTO, "auto", "picked by the model's name; calls written as text are read too")              \
    X(FUNCTIONS, "functions", "winagent's desktop and powershell functions")                       \
    X(COMPUTER, "computer", "the provider's own computer-use tool")                                \
    X(TEXT, "text", "calls written in the reply's text, results sent back as text")

enum llm_tool_protocol {
#define X_ENUM(id, name, help) LLM_PROTO_##id,
    LLM_TOOL_PROTOCOL_MAP(X_ENUM)
#undef X_ENUM
        LLM_PROTO__COUNT
};

/* Where coordinates written by a grounding model are (--coords). */
enum llm_coords_choice {
    LLM_COORDS_CHOICE_AUTO,   /* by the model's name; pixels when the name says nothing */
    LLM_COORDS_CHOICE_PIXELS, /* pixels of the image after its smart resize (UI-TARS-1.5) */
    LLM_COORDS_CHOICE_1000,   /* 0-1000 relative (UI-TARS 1.0, Qwen3-VL) */
};

/* The protocol a run speaks, settled once from the settings and the model's name. */
struct llm_protocol_choice {
    enum llm_tool_protocol protocol; /* never LLM_PROTO_AUTO */
    /* Mask of enum llm_text_format the client reads from a reply's text (llm_config.
     * text_calls): every grammar with `text`, the function-call grammars with auto's
     * functions (the fallback), 0 otherwise. */
    unsigned text_calls;
    /* The grammar the model is asked to write with `text`: LLM_TEXT_HERMES, or
     * LLM_TEXT_UITARS for grounding models; 0 with other protocols. */
    enum llm_text_format grammar;
    enum llm_coords coords; /* the space of UI-TARS coordinates */
    /* Why this protocol, for the log and `winagent config` (static text). */
    const char *why;
};

/* "auto", "functions", "computer", "text" (any case). WA_E_CONFIG otherwise. */
wa_err llm_tool_protocol_from_name(const char *name, enum llm_tool_protocol *out);
const char *llm_tool_protocol_name(enum llm_tool_protocol p);
/* "auto", "pixels", "1000" (also "0-1000"). WA_E_CONFIG otherwise. */
wa_err llm_coords_choice_from_name(const char *name, enum llm_coords_choice *out);
/* "openai-compatible", "google", ... */
const char *llm_provider_name(enum llm_provider_kind k);

/* Whether the provider speaks its own computer-use tool in this build. */
bool llm_provider_has_computer(enum llm_provider_kind k);

/* Settles the protocol: an explicit one is kept (WA_E_CONFIG when the provider cannot
 * speak it); auto picks from the model's name (a grounding model writes text, a
 * computer-use model gets its computer tool where the provider has one) and otherwise
 * speaks functions while reading calls written as text. */
wa_err llm_protocol_choose(enum llm_provider_kind provider, const char *model,
                           enum llm_tool_protocol requested, enum llm_coords_choice coords,
                           struct llm_protocol_choice *out);

#endif
