/* The refusals a client adapts to, one rule each, and the output-token cap. */
#include "llm/adapt.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/text.h"

#define MORE_TOKENS_CAP 128000 /* what is asked for at most when the model's cap is unknown */

/* ---- the rules ---- */

/* The word after `after` in m (letters, digits, '_', '-', '.' not at its end), into out. */
static bool word_after(const char *m, const char *after, char *out, size_t cap)
{
    const char *p = text_stristr(m, after);
    if (!p)
        return false;
    p += strlen(after);
    while (*p == ' ' || *p == '\'' || *p == '"' || *p == '`')
        p++;
    size_t n = 0;
    while ((isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-' || p[n] == '.') &&
           n + 1 < cap)
        n++;
    while (n && p[n - 1] == '.')
        n--;
    memcpy(out, p, n);
    out[n] = '\0';
    return n > 0;
}

/* Anthropic: "'MODEL' does not support tool types: TYPE." (with the types it takes, where
 * the message names them): the computer tool becomes a type it names, else the newest
 * known one not yet tried. OpenAI's two computer tools likewise. */
static bool tool_types(struct llm_settings *s, const char *m, size_t n_tools, char *what,
                       size_t cap)
{
    char refused[48];
    if (!n_tools || !s->computer_tool[0] ||
        !word_after(m, "does not support tool types:", refused, sizeof refused) ||
        strcmp(refused, s->computer_tool) != 0)
        return false;
    const char *pick = NULL;
    if (s->provider == LLM_PROVIDER_ANTHROPIC) {
        const struct model_claude_tool *t;
        size_t first = SIZE_MAX; /* the type the message names first, besides the refused */
        for (size_t i = 0; (t = model_claude_tool_row(i)) != NULL; i++) {
            const char *at = strstr(m, t->type);
            if (at && strcmp(t->type, refused) != 0 && !(s->tools_tried & (1u << i)) &&
                (size_t)(at - m) < first) {
                first = (size_t)(at - m);
                pick = t->type;
            }
        }
        for (size_t i = 0; !pick && (t = model_claude_tool_row(i)) != NULL; i++)
            if (strcmp(t->type, refused) != 0 && !(s->tools_tried & (1u << i)))
                pick = t->type;
        for (size_t i = 0; (t = model_claude_tool_row(i)) != NULL; i++)
            if (strcmp(t->type, refused) == 0)
                s->tools_tried |= 1u << i;
    } else if (s->provider == LLM_PROVIDER_OPENAI_RESPONSES && !(s->tools_tried & 1u)) {
        pick = strcmp(refused, "computer") == 0 ? "computer_use_preview" : "computer";
        s->tools_tried |= 1u;
    }
    if (!pick)
        return false;
    snprintf(what, cap, "the model does not take the computer tool %s; declaring %s from now on",
             refused, pick);
    snprintf(s->computer_tool, sizeof s->computer_tool, "%s", pick);
    return true;
}

/* Anthropic: "max_tokens: 64001 > 64000, which is the maximum allowed number of output
 * tokens for MODEL": asked for what it takes. */
static bool output_limit(struct llm_settings *s, const char *m, size_t n_tools, char *what,
                         size_t cap)
{
    (void)n_tools;
    const char *p = text_stristr(m, "max_tokens:");
    long asked, most;
    char *end;
    if (!p || !text_stristr(m, "maximum allowed"))
        return false;
    asked = strtol(p + strlen("max_tokens:"), &end, 10);
    while (*end == ' ')
        end++;
    if (*end != '>')
        return false;
    most = strtol(end + 1, &end, 10);
    if (most < 1 || most >= asked || most >= s->max_tokens)
        return false;
    snprintf(what, cap, "the model takes at most %ld output tokens; asking for %ld from now on",
             most, most);
    s->max_tokens = (int)most;
    return true;
}

/* A forced or any tool choice refused (vLLM without auto tool choice; Claude models that
 * take no forced choice: "tool_choice: type "tool" and "any" are not supported for this
 * model."): left out. */
static bool tool_choice(struct llm_settings *s, const char *m, size_t n_tools, char *what,
                        size_t cap)
{
    if (!s->tool_choice || !n_tools || (s->dropped & LLM_PARAM_TOOL_CHOICE) ||
        !(text_stristr(m, "tool_choice") || text_stristr(m, "tool choice")))
        return false;
    s->dropped |= LLM_PARAM_TOOL_CHOICE;
    snprintf(what, cap, "the server rejects tool_choice; leaving it out from now on");
    return true;
}

/* Older Azure api-versions refuse stream_options alone ("Unrecognized request argument
 * supplied: stream_options"): still streaming, usage then comes without it or not at all. */
static bool stream_options(struct llm_settings *s, const char *m, size_t n_tools, char *what,
                           size_t cap)
{
    (void)n_tools;
    if (s->provider != LLM_PROVIDER_OPENAI || !s->stream || !s->stream_options ||
        !text_stristr(m, "stream_options"))
        return false;
    s->stream_options = false;
    snprintf(what, cap, "the server refuses stream_options; streaming without it from now on");
    return true;
}

/* A request parameter the service does not know or take for this model: left out.
 * Anthropic "temperature: Extra inputs are not permitted", OpenAI "Unsupported parameter:
 * 'temperature' is not supported with this model." and "Unknown parameter: 'truncation'.",
 * Azure "Unrecognized request argument supplied: truncation". */
static bool unknown_parameter(struct llm_settings *s, const char *m, size_t n_tools, char *what,
                              size_t cap)
{
    (void)n_tools;
    static const struct {
        const char *name;
        unsigned bit;
    } params[] = {
        {"temperature", LLM_PARAM_TEMPERATURE},
        {"context_management", LLM_PARAM_CONTEXT},
        {"thinking", LLM_PARAM_THINKING},
        {"truncation", LLM_PARAM_TRUNCATION},
    };
    static const char *const openai_forms[] = {"Unsupported parameter:", "Unknown parameter:",
                                               "Unrecognized request argument supplied:", NULL};
    char name[48] = "";
    if (text_stristr(m, "Extra inputs are not permitted")) {
        /* the path before the colon: "thinking.block_binding: Extra inputs..." */
        const char *colon = strstr(m, ": Extra inputs");
        size_t n = 0;
        const char *p = colon;
        while (p > m && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.'))
            p--;
        while (p + n < colon && p[n] != '.' && n + 1 < sizeof name)
            n++;
        memcpy(name, p, n);
        name[n] = '\0';
    } else {
        for (size_t i = 0; openai_forms[i] && !name[0]; i++)
            word_after(m, openai_forms[i], name, sizeof name);
    }
    for (size_t i = 0; name[0] && i < sizeof params / sizeof params[0]; i++)
        if (strcmp(name, params[i].name) == 0 && !(s->dropped & params[i].bit)) {
            s->dropped |= params[i].bit;
            snprintf(what, cap, "the service does not take %s here; leaving it out from now on",
                     name);
            return true;
        }
    return false;
}

/* Local servers (llama.cpp builds, some proxies) refuse streaming together with tools. */
static bool stream_with_tools(struct llm_settings *s, const char *m, size_t n_tools, char *what,
                              size_t cap)
{
    if (s->provider != LLM_PROVIDER_OPENAI || !s->stream || !n_tools || !text_stristr(m, "stream"))
        return false;
    s->stream = false;
    snprintf(what, cap,
             "the server refuses streaming with tools; asking without streaming from "
             "now on");
    return true;
}

/* The rules in the order they are tried: the most specific first. */
static bool (*const rules[])(struct llm_settings *, const char *, size_t, char *, size_t) = {
    tool_types, output_limit, tool_choice, stream_options, unknown_parameter, stream_with_tools,
};

bool adapt_refusal(struct llm_settings *s, long status, const char *message, size_t n_tools,
                   char *what, size_t cap)
{
    if (status != 400 || !message)
        return false;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i](s, message, n_tools, what, cap))
            return true;
    return false;
}

bool adapt_output_cap(struct llm_settings *s, char *what, size_t cap)
{
    int most = s->family && s->family->output_cap ? s->family->output_cap : MORE_TOKENS_CAP;
    if (s->max_tokens <= 0 || s->max_tokens >= most)
        return false;
    int more = s->max_tokens * 2 < most ? s->max_tokens * 2 : most;
    snprintf(what, cap, "the reply was cut at the %d-token output cap; asking for %d from now on",
             s->max_tokens, more);
    s->max_tokens = more;
    return true;
}
