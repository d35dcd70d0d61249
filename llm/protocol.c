/* The tool protocols, the providers' names and the models known by name. */
#include "llm/protocol.h"

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

/* ---- the Anthropic computer tool's versions ---- */

/* X(ID, tool type, beta header, takes enable_zoom): oldest first, the last the newest. */
#define CLAUDE_COMPUTER_MAP(X)                                                                     \
    X(V20250124, "computer_20250124", "computer-use-2025-01-24", false)                            \
    X(V20251124, "computer_20251124", "computer-use-2025-11-24", true)

enum claude_computer_id {
#define X_ENUM(id, tool, beta, zoom) CLAUDE_##id,
    CLAUDE_COMPUTER_MAP(X_ENUM)
#undef X_ENUM
        CLAUDE__COUNT
};

static const struct llm_claude_computer claude_computers[CLAUDE__COUNT] = {
#define X_ROW(id, tool, beta, zoom) {tool, beta, zoom},
    CLAUDE_COMPUTER_MAP(X_ROW)
#undef X_ROW
};

/* The models the computer use tool page names, with the version each takes (platform.
 * claude.com, "Computer use tool", 2026). A model named in no row takes the newest. */
static const struct {
    const char *name, *id;
    enum claude_computer_id version;
} claude_models[] = {
    {"Claude Opus 4.7", "claude-opus-4-7", CLAUDE_V20251124},
    {"Claude Opus 4.6", "claude-opus-4-6", CLAUDE_V20251124},
    {"Claude Sonnet 4.6", "claude-sonnet-4-6", CLAUDE_V20251124},
    {"Claude Opus 4.5", "claude-opus-4-5", CLAUDE_V20251124},
    {"Claude Sonnet 4.5", "claude-sonnet-4-5", CLAUDE_V20250124},
    {"Claude Haiku 4.5", "claude-haiku-4-5", CLAUDE_V20250124},
    {"Claude Opus 4.1", "claude-opus-4-1", CLAUDE_V20250124},
    {"Claude Opus 4", "claude-opus-4-0", CLAUDE_V20250124},
    {"Claude Sonnet 4", "claude-sonnet-4-0", CLAUDE_V20250124},
    {"Claude Sonnet 3.7", "claude-3-7-sonnet", CLAUDE_V20250124},
};

/* A Claude model's family and version as its name gives them. */
struct claude_family {
    char family[8]; /* "opus", "sonnet", "haiku" */
    int major, minor;
};

/* A version number in a model's name: one or two digits (a date has eight). */
static int version_token(const char *tok)
{
    size_t n = strlen(tok);
    if (n < 1 || n > 2 || !isdigit((unsigned char)tok[0]) ||
        (n == 2 && !isdigit((unsigned char)tok[1])))
        return -1;
    return atoi(tok);
}

/* "claude-sonnet-4-5-20250929", "anthropic.claude-3-7-sonnet-20250219-v1:0",
 * "claude-opus-4-1@20250805", "claude-sonnet-4.6": the family's word, then the version
 * after it (or before it, as Claude 3 names were written). False when no family is named
 * (model not NULL). */
static bool claude_family_of(const char *model, struct claude_family *out)
{
    enum { MAX_TOKENS = 24 };
    char tok[MAX_TOKENS][16];
    int n = 0, f = -1;
    for (const char *p = model; *p && n < MAX_TOKENS;) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        size_t k = 0;
        while (*p && isalnum((unsigned char)*p)) {
            if (k + 1 < sizeof tok[0])
                tok[n][k++] = (char)tolower((unsigned char)*p);
            p++;
        }
        if (!k)
            break;
        tok[n][k] = '\0';
        if (f < 0 &&
            (!strcmp(tok[n], "opus") || !strcmp(tok[n], "sonnet") || !strcmp(tok[n], "haiku")))
            f = n;
        n++;
    }
    if (f < 0)
        return false;
    memset(out, 0, sizeof *out);
    snprintf(out->family, sizeof out->family, "%s", tok[f]);
    int after = f + 1 < n ? version_token(tok[f + 1]) : -1;
    if (after >= 0) {
        out->major = after;
        out->minor = f + 2 < n && version_token(tok[f + 2]) >= 0 ? version_token(tok[f + 2]) : 0;
    } else if (f >= 1 && version_token(tok[f - 1]) >= 0) {
        bool two = f >= 2 && version_token(tok[f - 2]) >= 0;
        out->major = version_token(tok[two ? f - 2 : f - 1]);
        out->minor = two ? version_token(tok[f - 1]) : 0;
    } else {
        out->major = out->minor = -1; /* a family without a version: no row names it */
    }
    return true;
}

const struct llm_claude_computer *llm_claude_computer_for(const char *model)
{
    struct claude_family m, row;
    if (model && claude_family_of(model, &m))
        for (size_t i = 0; i < sizeof claude_models / sizeof claude_models[0]; i++)
            if (claude_family_of(claude_models[i].id, &row) && !strcmp(row.family, m.family) &&
                row.major == m.major && row.minor == m.minor)
                return &claude_computers[claude_models[i].version];
    return &claude_computers[CLAUDE__COUNT - 1];
}

bool llm_claude_computer_row(size_t i, const char **name, const char **id,
                             const struct llm_claude_computer **version)
{
    if (i >= sizeof claude_models / sizeof claude_models[0])
        return false;
    *name = claude_models[i].name;
    *id = claude_models[i].id;
    *version = &claude_computers[claude_models[i].version];
    return true;
}
