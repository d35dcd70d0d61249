/* What each family of models takes, as data: one table (llm/models.c) of the shapes
 * winagent sends a model — its computer tool, whether it thinks, whether its service binds
 * replayed thinking to the history before it, the images it takes as sent, forced tool
 * choice, output tokens — each row with the page it came from. The providers, the loop,
 * `winagent models` and the docs all read it; nothing else knows a model by its name. */
#ifndef WINAGENT_LLM_MODELS_H
#define WINAGENT_LLM_MODELS_H

#include <stdbool.h>
#include <stddef.h>

#include "llm/llm.h"

/* Whether a model thinks before it answers (its service's default; winagent never asks
 * for more). A thinking Claude model's thinking blocks go back unchanged every turn. */
enum model_thinking {
    MODEL_THINK_NONE,    /* not unless asked */
    MODEL_THINK_DEFAULT, /* unless told not to */
    MODEL_THINK_ALWAYS,  /* always (adaptive) */
};

/* What the service does with a replayed thinking block whose history before it changed
 * (Anthropic's prefix check on models with preserved thinking). */
enum model_binding {
    MODEL_BIND_NONE,    /* nothing: older turns may be shortened freely */
    MODEL_BIND_DROPS,   /* the block is dropped, silently: the model loses that thinking */
    MODEL_BIND_REFUSES, /* HTTP 400 "The block is bound to a different conversation" */
};

/* One family: the row that names it, or the row for names newer than every other. */
struct model_family {
    const char *name; /* as its vendor writes it: "Claude Opus 5.5" */
    const char *id;   /* an API id of it: "claude-opus-5-5"; "" for a row of later models */
    enum llm_provider_kind provider; /* the service whose shapes these are */
    /* The computer tool it takes: Anthropic's tool or toolset type, OpenAI's tool type
     * ("computer", "computer_use_preview"), Gemini's environment ("desktop",
     * "browser"); NULL when it has none. `computer_also`: another type it takes too. */
    const char *computer;
    const char *computer_also;
    enum model_thinking thinking;
    enum model_binding binding;
    /* The largest image it takes as sent, neither scaled down nor refused: the longest
     * edge and the pixels in all (0: no limit of its own), the shorter edge (0: none);
     * past `many_images` images in one request, each at most `many_edge` (0: no rule). */
    int image_edge;
    long image_pixels;
    int image_short_edge;
    int many_images, many_edge;
    bool forced_choice; /* takes a forced tool choice (Anthropic "any", OpenAI "required") */
    int max_tokens;     /* output tokens winagent asks for (thinking included); 0: none sent */
    int output_cap;     /* the most it takes; 0: not documented */
    const char *source; /* where the row comes from */
};

/* The family a model belongs to, from its name (API ids, Bedrock and Vertex ids, dots
 * for dashes; a date is not read): the row that names it; for a name newer than every
 * row of its vendor, that vendor's row of later models (the newest shapes); for an older
 * one, the oldest row of its kind. A name of no vendor the table knows gets the generic
 * row. Never NULL. */
const struct model_family *model_family(const char *model);

/* Row i of the table, in the order printed (newest first within a vendor); NULL past
 * the last. */
const struct model_family *model_row(size_t i);

/* The words of the table's columns, for `winagent models` and the docs. */
const char *model_thinking_name(enum model_thinking t);
const char *model_binding_name(enum model_binding b);

/* The table as a markdown table (the one docs/providers.md holds between its markers),
 * into out (cap bytes, always terminated); false when it did not fit. */
bool model_table_markdown(char *out, size_t cap);

/* ---- Anthropic's computer tools ---- */

/* One type of Anthropic's computer tool: its beta header (NULL: none), whether it takes
 * enable_zoom, whether it is a toolset (its calls are member tool_use blocks named by
 * the action, each result echoes toolset_name, no display is declared). */
struct model_claude_tool {
    const char *type;
    const char *beta;
    bool zoom;
    bool toolset;
};

/* The type of that name, or NULL when winagent knows no such type. */
const struct model_claude_tool *model_claude_tool(const char *type);

/* The types winagent knows, newest first: i from 0; NULL past the last. */
const struct model_claude_tool *model_claude_tool_row(size_t i);

#endif
