/* The tool protocols, the providers' names and the models known by name. */
#include "llm/protocol.h"

#include "llm/models.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const char *help;
} protocols[LLM_PROTO__COUNT] = {
#define X_ROW(id, name, help) {name, help},
    LLM_TOOL_PROTOCOL_MAP(X_ROW)
#undef X_ROW
};

/* Case-insensitive equality. */
static bool same(const char *a, const char *b)
{
    while (*a && *b && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
        a++;
        b++;
    }
    return !*a && !*b;
}

wa_err llm_tool_protocol_from_name(const char *name, enum llm_tool_protocol *out)
{
    for (int i = 0; name && i < LLM_PROTO__COUNT; i++)
        if (same(name, protocols[i].name)) {
            *out = (enum llm_tool_protocol)i;
            return WA_E_OK;
        }
    return wa_fail(WA_E_CONFIG,
                   "unknown tool protocol \"%s\" (use auto, functions, computer or text)",
                   name ? name : "");
}

const char *llm_tool_protocol_name(enum llm_tool_protocol p)
{
    return p >= 0 && p < LLM_PROTO__COUNT ? protocols[p].name : "?";
}

wa_err llm_coords_choice_from_name(const char *name, enum llm_coords_choice *out)
{
    if (name && same(name, "auto"))
        *out = LLM_COORDS_CHOICE_AUTO;
    else if (name && (same(name, "pixels") || same(name, "pixel")))
        *out = LLM_COORDS_CHOICE_PIXELS;
    else if (name && (same(name, "1000") || same(name, "0-1000")))
        *out = LLM_COORDS_CHOICE_1000;
    else
        return wa_fail(WA_E_CONFIG, "unknown coordinate space \"%s\" (use auto, pixels or 1000)",
                       name ? name : "");
    return WA_E_OK;
}

/* Every name a provider goes by; the first of each kind is the one shown. */
static const struct {
    const char *name;
    enum llm_provider_kind kind;
} provider_names[] = {
    {"openai-compatible", LLM_PROVIDER_OPENAI},
    {"google", LLM_PROVIDER_GOOGLE},
    {"openai-responses", LLM_PROVIDER_OPENAI_RESPONSES},
    {"anthropic", LLM_PROVIDER_ANTHROPIC},
    {"openai", LLM_PROVIDER_OPENAI},
    {"gemini", LLM_PROVIDER_GOOGLE},
    {"claude", LLM_PROVIDER_ANTHROPIC},
};

wa_err llm_provider_from_name(const char *name, enum llm_provider_kind *out)
{
    for (size_t i = 0; name && i < sizeof provider_names / sizeof provider_names[0]; i++)
        if (same(name, provider_names[i].name)) {
            *out = provider_names[i].kind;
            return WA_E_OK;
        }
    return wa_fail(WA_E_CONFIG,
                   "unknown LLM provider \"%s\" (use openai-compatible, openai-responses, google "
                   "or anthropic)",
                   name ? name : "");
}

const char *llm_provider_name(enum llm_provider_kind k)
{
    for (size_t i = 0; i < sizeof provider_names / sizeof provider_names[0]; i++)
        if (provider_names[i].kind == k)
            return provider_names[i].name;
    return "?";
}

bool llm_provider_has_computer(enum llm_provider_kind k)
{
    return k == LLM_PROVIDER_GOOGLE || k == LLM_PROVIDER_OPENAI_RESPONSES ||
           k == LLM_PROVIDER_ANTHROPIC;
}

/* Models known by a fragment of their name (compared without case and punctuation):
 * the first matching row wins, so a longer fragment comes before a shorter one. */
static const struct {
    const char *fragment;
    enum llm_tool_protocol protocol;
    enum llm_text_format grammar; /* with LLM_PROTO_TEXT */
    enum llm_coords coords;
    const char *why;
} known_models[] = {
    {"ui-tars-1.5", LLM_PROTO_TEXT, LLM_TEXT_UITARS, LLM_COORDS_PIXELS,
     "UI-TARS-1.5 writes Action: lines in pixels of its resized screenshot"},
    {"ui-tars", LLM_PROTO_TEXT, LLM_TEXT_UITARS, LLM_COORDS_NORM_1000,
     "UI-TARS writes Action: lines in 0-1000"},
    {"computer-use", LLM_PROTO_COMPUTER, 0, LLM_COORDS_FRAME_999, "a computer-use model"},
};

/* Whether the model's name holds the fragment, both without case and punctuation. */
static bool name_has(const char *model, const char *fragment)
{
    char a[256], b[64];
    size_t na = 0, nb = 0;
    for (const char *p = model; *p && na + 1 < sizeof a; p++)
        if (isalnum((unsigned char)*p))
            a[na++] = (char)tolower((unsigned char)*p);
    for (const char *p = fragment; *p && nb + 1 < sizeof b; p++)
        if (isalnum((unsigned char)*p))
            b[nb++] = (char)tolower((unsigned char)*p);
    a[na] = b[nb] = '\0';
    return nb && strstr(a, b) != NULL;
}

wa_err llm_protocol_choose(enum llm_provider_kind provider, const char *model,
                           enum llm_tool_protocol requested, enum llm_coords_choice coords,
                           struct llm_protocol_choice *out)
{
    memset(out, 0, sizeof *out);
    out->coords = LLM_COORDS_PIXELS; /* UI-TARS-1.5, the common one, unless told */
    size_t row = sizeof known_models / sizeof known_models[0];
    for (size_t i = 0; model && i < sizeof known_models / sizeof known_models[0]; i++)
        if (name_has(model, known_models[i].fragment)) {
            row = i;
            break;
        }
    bool known = row < sizeof known_models / sizeof known_models[0];
    enum llm_tool_protocol p = requested;
    if (p == LLM_PROTO_AUTO) {
        p = LLM_PROTO_FUNCTIONS;
        out->why = "the default; calls written as text are read too";
        if (known && (known_models[row].protocol != LLM_PROTO_COMPUTER ||
                      llm_provider_has_computer(provider))) {
            p = known_models[row].protocol;
            out->why = known_models[row].why;
        }
    } else {
        out->why = "as configured";
    }
    if (p == LLM_PROTO_COMPUTER && !llm_provider_has_computer(provider))
        return wa_fail(WA_E_CONFIG,
                       "the computer tool protocol needs a provider with a computer tool, and "
                       "%s has none (use LLM_PROVIDER openai-responses, anthropic or google, "
                       "or --tool-protocol functions or text)",
                       llm_provider_name(provider));
    const struct model_family *f = model_family(model);
    if (p == LLM_PROTO_COMPUTER && f->provider == provider && !f->computer)
        return wa_fail(WA_E_CONFIG,
                       "%s takes no computer tool (%s: %s); use --tool-protocol functions, or "
                       "a model that takes one (winagent models lists them)",
                       model, f->name, f->source);
    out->protocol = p;
    if (p == LLM_PROTO_TEXT) {
        out->text_calls = LLM_TEXT_FUNCTION_FORMATS | LLM_TEXT_UITARS;
        out->grammar =
            known && known_models[row].grammar ? known_models[row].grammar : LLM_TEXT_HERMES;
        if (known && known_models[row].grammar == LLM_TEXT_UITARS)
            out->coords = known_models[row].coords;
    } else if (p == LLM_PROTO_FUNCTIONS && requested == LLM_PROTO_AUTO) {
        out->text_calls = LLM_TEXT_FUNCTION_FORMATS;
    }
    if (coords == LLM_COORDS_CHOICE_PIXELS)
        out->coords = LLM_COORDS_PIXELS;
    else if (coords == LLM_COORDS_CHOICE_1000)
        out->coords = LLM_COORDS_NORM_1000;
    return WA_E_OK;
}
