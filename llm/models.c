/* The table of model families and how a model's name finds its row. */
#include "llm/models.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Anthropic's computer tools, newest first ---- */

#define TOOLSET    "computer_toolset_20260801"
#define CU_2025_11 "computer_20251124"
#define CU_2025_01 "computer_20250124"

static const struct model_claude_tool claude_tools[] = {
    {TOOLSET, NULL, false, true},
    {CU_2025_11, "computer-use-2025-11-24", true, false},
    {CU_2025_01, "computer-use-2025-01-24", false, false},
};

const struct model_claude_tool *model_claude_tool(const char *type)
{
    for (size_t i = 0; type && i < sizeof claude_tools / sizeof claude_tools[0]; i++)
        if (strcmp(claude_tools[i].type, type) == 0)
            return &claude_tools[i];
    return NULL;
}

const struct model_claude_tool *model_claude_tool_row(size_t i)
{
    return i < sizeof claude_tools / sizeof claude_tools[0] ? &claude_tools[i] : NULL;
}

/* ---- the families ---- */

/* Claude 4.7 and later take images up to 2576 px on the long edge (4784 visual tokens of
 * 750 pixels each); earlier ones 1568 px and about 1.15 megapixels; past 20 images in one
 * request each at most 2000 px. OpenAI's high detail: within 2048 square, the shorter edge
 * at most 768. Gemini's 0-999 grid spans whatever it is sent: no limit of its own. */
#define CLAUDE_NEW_IMAGES 2576, 3588000L, 0, 20, 2000
#define CLAUDE_OLD_IMAGES 1568, 1150000L, 0, 20, 2000
#define OPENAI_IMAGES     2048, 0L, 768, 0, 0
#define NO_IMAGE_LIMIT    0, 0L, 0, 0, 0

#define SRC_CLAUDE_NEW                                                                             \
    "platform.claude.com 2026: computer use tool (API support), preserved thinking (prefix "       \
    "checks), errors, images; Opus 5 migration guide (max_tokens)"
#define SRC_CLAUDE_4                                                                               \
    "platform.claude.com 2026: computer use tool (earlier tool versions), models overview, "       \
    "images"
#define SRC_OPENAI "platform.openai.com: computer use guide, Responses API reference, images"
#define SRC_GEMINI "ai.google.dev: computer use (2026-07-30)"

static const struct model_family families[] = {
    /* Anthropic, newest first; the first row takes the names newer than all the others */
    {"a later Claude model", "", LLM_PROVIDER_ANTHROPIC, TOOLSET, NULL, MODEL_THINK_ALWAYS,
     MODEL_BIND_REFUSES, CLAUDE_NEW_IMAGES, false, 64000, 0,
     "the newest shapes, as the newest row: a name newer than the table"},
    {"Claude Opus 5.5", "claude-opus-5-5", LLM_PROVIDER_ANTHROPIC, TOOLSET, NULL,
     MODEL_THINK_ALWAYS, MODEL_BIND_REFUSES, CLAUDE_NEW_IMAGES, false, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Sonnet 5.5", "claude-sonnet-5-5", LLM_PROVIDER_ANTHROPIC, TOOLSET, NULL,
     MODEL_THINK_DEFAULT, MODEL_BIND_DROPS, CLAUDE_NEW_IMAGES, true, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Haiku 5.5", "claude-haiku-5-5", LLM_PROVIDER_ANTHROPIC, TOOLSET, NULL,
     MODEL_THINK_DEFAULT, MODEL_BIND_DROPS, CLAUDE_NEW_IMAGES, true, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Fable 5.1", "claude-fable-5-1", LLM_PROVIDER_ANTHROPIC, TOOLSET, CU_2025_11,
     MODEL_THINK_ALWAYS, MODEL_BIND_REFUSES, CLAUDE_NEW_IMAGES, false, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Mythos 5.1", "claude-mythos-5-1", LLM_PROVIDER_ANTHROPIC, TOOLSET, CU_2025_11,
     MODEL_THINK_ALWAYS, MODEL_BIND_DROPS, CLAUDE_NEW_IMAGES, false, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Fable 5", "claude-fable-5", LLM_PROVIDER_ANTHROPIC, TOOLSET, CU_2025_11,
     MODEL_THINK_ALWAYS, MODEL_BIND_NONE, CLAUDE_NEW_IMAGES, true, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Mythos 5", "claude-mythos-5", LLM_PROVIDER_ANTHROPIC, TOOLSET, CU_2025_11,
     MODEL_THINK_ALWAYS, MODEL_BIND_NONE, CLAUDE_NEW_IMAGES, true, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Opus 5", "claude-opus-5", LLM_PROVIDER_ANTHROPIC, TOOLSET, CU_2025_11,
     MODEL_THINK_DEFAULT, MODEL_BIND_NONE, CLAUDE_NEW_IMAGES, true, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Sonnet 5", "claude-sonnet-5", LLM_PROVIDER_ANTHROPIC, TOOLSET, CU_2025_11,
     MODEL_THINK_DEFAULT, MODEL_BIND_NONE, CLAUDE_NEW_IMAGES, true, 64000, 0, SRC_CLAUDE_NEW},
    {"Claude Opus 4.8", "claude-opus-4-8", LLM_PROVIDER_ANTHROPIC, TOOLSET, CU_2025_11,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_NEW_IMAGES, true, 8192, 0, SRC_CLAUDE_NEW},
    {"Claude Opus 4.7", "claude-opus-4-7", LLM_PROVIDER_ANTHROPIC, CU_2025_11, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_NEW_IMAGES, true, 8192, 128000, SRC_CLAUDE_4},
    {"Claude Opus 4.6", "claude-opus-4-6", LLM_PROVIDER_ANTHROPIC, CU_2025_11, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 128000, SRC_CLAUDE_4},
    {"Claude Sonnet 4.6", "claude-sonnet-4-6", LLM_PROVIDER_ANTHROPIC, CU_2025_11, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 64000, SRC_CLAUDE_4},
    {"Claude Opus 4.5", "claude-opus-4-5", LLM_PROVIDER_ANTHROPIC, CU_2025_11, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 64000, SRC_CLAUDE_4},
    {"Claude Sonnet 4.5", "claude-sonnet-4-5", LLM_PROVIDER_ANTHROPIC, CU_2025_01, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 64000, SRC_CLAUDE_4},
    {"Claude Haiku 4.5", "claude-haiku-4-5", LLM_PROVIDER_ANTHROPIC, CU_2025_01, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 64000, SRC_CLAUDE_4},
    {"Claude Opus 4.1", "claude-opus-4-1", LLM_PROVIDER_ANTHROPIC, CU_2025_01, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 32000, SRC_CLAUDE_4},
    {"Claude Opus 4", "claude-opus-4-0", LLM_PROVIDER_ANTHROPIC, CU_2025_01, NULL, MODEL_THINK_NONE,
     MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 32000, SRC_CLAUDE_4},
    {"Claude Sonnet 4", "claude-sonnet-4-0", LLM_PROVIDER_ANTHROPIC, CU_2025_01, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 64000, SRC_CLAUDE_4},
    {"Claude Sonnet 3.7", "claude-3-7-sonnet", LLM_PROVIDER_ANTHROPIC, CU_2025_01, NULL,
     MODEL_THINK_NONE, MODEL_BIND_NONE, CLAUDE_OLD_IMAGES, true, 8192, 64000, SRC_CLAUDE_4},

    /* OpenAI (the Responses API; Chat Completions takes no computer tool) */
    {"a later GPT model", "", LLM_PROVIDER_OPENAI_RESPONSES, "computer", NULL, MODEL_THINK_DEFAULT,
     MODEL_BIND_NONE, OPENAI_IMAGES, true, 0, 0,
     "the newest shapes, as the newest row: a name newer than the table"},
    {"GPT-5.5", "gpt-5.5", LLM_PROVIDER_OPENAI_RESPONSES, "computer", NULL, MODEL_THINK_DEFAULT,
     MODEL_BIND_NONE, OPENAI_IMAGES, true, 0, 0, SRC_OPENAI},
    {"GPT-5.4", "gpt-5.4", LLM_PROVIDER_OPENAI_RESPONSES, "computer", NULL, MODEL_THINK_DEFAULT,
     MODEL_BIND_NONE, OPENAI_IMAGES, true, 0, 0, SRC_OPENAI},
    {"GPT-5 to 5.3", "gpt-5", LLM_PROVIDER_OPENAI_RESPONSES, NULL, NULL, MODEL_THINK_DEFAULT,
     MODEL_BIND_NONE, OPENAI_IMAGES, true, 0, 0, SRC_OPENAI " (the GA computer tool: 5.4 on)"},
    {"computer-use-preview", "computer-use-preview", LLM_PROVIDER_OPENAI_RESPONSES,
     "computer_use_preview", NULL, MODEL_THINK_DEFAULT, MODEL_BIND_NONE, OPENAI_IMAGES, true, 0, 0,
     SRC_OPENAI},

    /* Gemini */
    {"a later Gemini model", "", LLM_PROVIDER_GOOGLE, "desktop", NULL, MODEL_THINK_DEFAULT,
     MODEL_BIND_NONE, NO_IMAGE_LIMIT, true, 0, 0,
     "the newest shapes, as the newest row: a name newer than the table"},
    {"Gemini 3.6 Flash", "gemini-3.6-flash", LLM_PROVIDER_GOOGLE, "desktop", NULL,
     MODEL_THINK_DEFAULT, MODEL_BIND_NONE, NO_IMAGE_LIMIT, true, 0, 0, SRC_GEMINI " (recommended)"},
    {"Gemini 3.5 Flash-Lite", "gemini-3.5-flash-lite", LLM_PROVIDER_GOOGLE, "desktop", NULL,
     MODEL_THINK_DEFAULT, MODEL_BIND_NONE, NO_IMAGE_LIMIT, true, 0, 0, SRC_GEMINI},
    {"Gemini 3.5 Flash", "gemini-3.5-flash", LLM_PROVIDER_GOOGLE, "desktop", NULL,
     MODEL_THINK_DEFAULT, MODEL_BIND_NONE, NO_IMAGE_LIMIT, true, 0, 0,
     SRC_GEMINI " (legacy stable)"},
    {"Gemini 3.1 Pro (preview)", "gemini-3.1-pro-preview", LLM_PROVIDER_GOOGLE, NULL, NULL,
     MODEL_THINK_DEFAULT, MODEL_BIND_NONE, NO_IMAGE_LIMIT, true, 0, 0,
     SRC_GEMINI " (no longer listed for computer use)"},
    {"Gemini 3 Flash (preview)", "gemini-3-flash-preview", LLM_PROVIDER_GOOGLE, "desktop", NULL,
     MODEL_THINK_DEFAULT, MODEL_BIND_NONE, NO_IMAGE_LIMIT, true, 0, 0,
     SRC_GEMINI " (Gemini 3.x: browser, mobile and desktop)"},
    {"Gemini 2.5 Computer Use (preview)", "gemini-2.5-computer-use-preview", LLM_PROVIDER_GOOGLE,
     "browser", NULL, MODEL_THINK_NONE, MODEL_BIND_NONE, NO_IMAGE_LIMIT, true, 0, 0,
     SRC_GEMINI " (browser only)"},

    /* a name of no vendor above: a local server's model, a proxy's own name */
    {"any other model", "", LLM_PROVIDER_OPENAI, NULL, NULL, MODEL_THINK_NONE, MODEL_BIND_NONE,
     NO_IMAGE_LIMIT, true, 0, 0, "nothing known: winagent's defaults"},
};

#define N_FAMILIES (sizeof families / sizeof families[0])
#define GENERIC    (&families[N_FAMILIES - 1])

const struct model_family *model_row(size_t i)
{
    return i < N_FAMILIES ? &families[i] : NULL;
}

/* ---- names ---- */

/* What a name says: its vendor's family word ("opus", "gpt", "gemini"...) and version. */
struct parsed_name {
    char word[16];
    int major, minor; /* -1 when the name carries no version */
};

static const char *const claude_words[] = {"opus", "sonnet", "haiku", "fable", "mythos", NULL};
static const char *const other_words[] = {"gpt", "gemini", NULL};

static bool in_list(const char *tok, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(tok, *list) == 0)
            return true;
    return false;
}

/* A version number in a name: one or two digits (a date has eight). */
static int version_token(const char *tok)
{
    size_t n = strlen(tok);
    if (n < 1 || n > 2 || !isdigit((unsigned char)tok[0]) ||
        (n == 2 && !isdigit((unsigned char)tok[1])))
        return -1;
    return atoi(tok);
}

/* "claude-sonnet-4-5-20250929", "anthropic.claude-3-7-sonnet-20250219-v1:0",
 * "claude-opus-4-1@20250805", "claude-sonnet-4.6", "gpt-5.4-mini", "models/gemini-3.6-flash":
 * the first family word, then the version after it (or before it, as Claude 3 names were
 * written). False when no family word is in the name. */
static bool parse_name(const char *model, struct parsed_name *out)
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
        if (f < 0 && (in_list(tok[n], claude_words) || in_list(tok[n], other_words)))
            f = n;
        n++;
    }
    if (f < 0)
        return false;
    memset(out, 0, sizeof *out);
    snprintf(out->word, sizeof out->word, "%s", tok[f]);
    int after = f + 1 < n ? version_token(tok[f + 1]) : -1;
    if (after >= 0) {
        out->major = after;
        out->minor = f + 2 < n && version_token(tok[f + 2]) >= 0 ? version_token(tok[f + 2]) : 0;
    } else if (f >= 1 && version_token(tok[f - 1]) >= 0) {
        bool two = f >= 2 && version_token(tok[f - 2]) >= 0;
        out->major = version_token(tok[two ? f - 2 : f - 1]);
        out->minor = two ? version_token(tok[f - 1]) : 0;
    } else {
        out->major = out->minor = -1;
    }
    return true;
}

static int version_cmp(const struct parsed_name *a, const struct parsed_name *b)
{
    if (a->major != b->major)
        return a->major < b->major ? -1 : 1;
    return a->minor < b->minor ? -1 : a->minor > b->minor;
}

/* The name lowercased, without a vendor's or a path's prefix ("models/", "anthropic.",
 * "us.anthropic.", "openai/"). */
static void plain_name(const char *model, char *out, size_t cap)
{
    const char *slash = strrchr(model, '/');
    const char *p = slash ? slash + 1 : model;
    const char *dot = strstr(p, "anthropic.");
    if (dot)
        p = dot + strlen("anthropic.");
    size_t i = 0;
    for (; p[i] && i + 1 < cap; i++)
        out[i] = (char)tolower((unsigned char)p[i]);
    out[i] = '\0';
}

/* The vendor's row of later models: the first row of the vendor's block. */
static const struct model_family *later_row(enum llm_provider_kind vendor)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].provider == vendor && !families[i].id[0])
            return &families[i];
    return GENERIC;
}

static enum llm_provider_kind vendor_of(const char *word)
{
    return in_list(word, claude_words)   ? LLM_PROVIDER_ANTHROPIC
           : strcmp(word, "gemini") == 0 ? LLM_PROVIDER_GOOGLE
                                         : LLM_PROVIDER_OPENAI_RESPONSES;
}

/* Whether what follows a row's id in a name goes on with its version ("-7" after
 * "claude-opus-5", ".4" after "gpt-5", "5" after "gpt-5.") rather than naming a variant or
 * a date ("-mini", "-20261010", "@20250805"). */
static bool continues_version(const char *rest)
{
    if (isdigit((unsigned char)rest[0]))
        return true;
    if (rest[0] != '-' && rest[0] != '.')
        return false;
    size_t d = 0;
    while (isdigit((unsigned char)rest[1 + d]))
        d++;
    return d >= 1 && d <= 2;
}

const struct model_family *model_family(const char *model)
{
    if (!model || !model[0])
        return GENERIC;
    char name[160];
    plain_name(model, name, sizeof name);
    /* a row whose id the name starts with (the longest), then the version's neighbours */
    const struct model_family *best = NULL;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        size_t n = strlen(families[i].id);
        if (n && strncmp(name, families[i].id, n) == 0 && !continues_version(name + n) &&
            (!best || n > strlen(best->id)))
            best = &families[i];
    }
    if (best)
        return best;
    struct parsed_name want;
    if (!parse_name(name, &want))
        return strstr(name, "claude") ? later_row(LLM_PROVIDER_ANTHROPIC) : GENERIC;
    enum llm_provider_kind vendor = vendor_of(want.word);
    if (want.major < 0)
        return later_row(vendor);
    /* the newest row of the same word at or below the name's version; the oldest when
     * the name is older than every row; the later row when newer than every row */
    const struct model_family *below = NULL, *oldest = NULL;
    struct parsed_name below_v = {0};
    bool newer_than_all = true;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        struct parsed_name row;
        if (!families[i].id[0] || !parse_name(families[i].id, &row) ||
            strcmp(row.word, want.word) != 0)
            continue;
        oldest = &families[i];
        int c = version_cmp(&row, &want);
        if (c >= 0)
            newer_than_all = false;
        if (c <= 0 && (!below || version_cmp(&row, &below_v) > 0)) {
            below = &families[i];
            below_v = row;
        }
    }
    if (!oldest || newer_than_all)
        return later_row(vendor);
    return below ? below : oldest;
}

/* ---- words ---- */

const char *model_thinking_name(enum model_thinking t)
{
    return t == MODEL_THINK_ALWAYS ? "always" : t == MODEL_THINK_DEFAULT ? "by default" : "no";
}

const char *model_binding_name(enum model_binding b)
{
    return b == MODEL_BIND_REFUSES ? "refused (400)" : b == MODEL_BIND_DROPS ? "dropped" : "no";
}

bool model_table_markdown(char *out, size_t cap)
{
    size_t len = 0;
    int n = snprintf(out, cap,
                     "| Family | API id | Computer tool | Thinks | Replayed thinking bound to "
                     "the history | Images taken as sent | Forced tool choice | max tokens "
                     "(cap) | Source |\n|---|---|---|---|---|---|---|---|---|\n");
    if (n < 0 || (size_t)n >= cap)
        return false;
    len = (size_t)n;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        const struct model_family *f = &families[i];
        char tool[96] = "none", images[64] = "no limit of its own", tokens[48] = "not sent";
        if (f->computer)
            snprintf(tool, sizeof tool, "`%s`%s%s%s", f->computer, f->computer_also ? ", `" : "",
                     f->computer_also ? f->computer_also : "", f->computer_also ? "`" : "");
        if (f->image_edge)
            snprintf(images, sizeof images, "%d px", f->image_edge);
        if (f->image_pixels)
            snprintf(images + strlen(images), sizeof images - strlen(images), ", %.2f MP",
                     f->image_pixels / 1e6);
        if (f->image_short_edge)
            snprintf(images + strlen(images), sizeof images - strlen(images), ", short edge %d px",
                     f->image_short_edge);
        if (f->many_images)
            snprintf(images + strlen(images), sizeof images - strlen(images),
                     "; %d px past %d images", f->many_edge, f->many_images);
        if (f->max_tokens && f->output_cap)
            snprintf(tokens, sizeof tokens, "%d (%d)", f->max_tokens, f->output_cap);
        else if (f->max_tokens)
            snprintf(tokens, sizeof tokens, "%d", f->max_tokens);
        n = snprintf(out + len, cap - len, "| %s | %s%s%s | %s | %s | %s | %s | %s | %s | %s |\n",
                     f->name, f->id[0] ? "`" : "", f->id, f->id[0] ? "`" : "", tool,
                     model_thinking_name(f->thinking), model_binding_name(f->binding), images,
                     f->forced_choice ? "yes" : "refused", tokens, f->source);
        if (n < 0 || (size_t)n >= cap - len)
            return false;
        len += (size_t)n;
    }
    return true;
}
