/* The providers' own computer tools (Gemini's predefined functions, OpenAI's
 * computer_call actions, Anthropic's computer tool) as requests of the core's
 * operations, so the gate, verification, change reports and logs apply to them
 * unchanged; coordinates come from the protocol's space to the frame. */
#ifndef WINAGENT_AGENT_RUN_COMPUTER_H
#define WINAGENT_AGENT_RUN_COMPUTER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/core/request.h"

enum computer_proto {
    COMPUTER_GEMINI,    /* functions click_at, type_text_at...; x, y 0-999 over the screenshot */
    COMPUTER_OPENAI,    /* computer_call {action | actions[]}; pixels of the screenshot sent */
    COMPUTER_ANTHROPIC, /* tool_use input {action, coordinate}; pixels of the screenshot sent */
};

/* The screenshot the model last saw: the screen rectangle it shows and its size. */
struct computer_view {
    struct wa_rect frame; /* screen pixels */
    int width, height;    /* pixels of the image sent: smaller than frame when downscaled */
};

#define COMPUTER_MAX_STEPS 16

/* What a call becomes: core requests performed in order (type_text_at: a click, the
 * old text cleared, the text typed, Enter), or none when a screenshot is all it asks. */
struct computer_plan {
    struct op_request steps[COMPUTER_MAX_STEPS];
    size_t n;
};

void computer_plan_init(struct computer_plan *p);
void computer_plan_cleanup(struct computer_plan *p); /* leaves it initialised */

/* Translates one call of the computer tool into *out (initialise it first; on failure
 * it holds the steps translated so far, clean it up either way). name: Gemini's
 * function name (the others' tool is named "computer"); args: the call's arguments
 * (Gemini: the function's; OpenAI: the computer_call item with "action" or "actions";
 * Anthropic: the tool input with "action"). WA_E_INVALID_ARGS with a detail written
 * for the model: an unknown action (listing the known ones), a missing or outside
 * coordinate, an action winagent cannot perform (and what to do instead). */
wa_err computer_plan_call(enum computer_proto p, const char *name, const cJSON *args,
                          const struct computer_view *view, struct computer_plan *out);

/* A pixel of the screenshot to the screen pixel it shows (its centre, rounded down).
 * WA_E_INVALID_ARGS when (x,y) is outside the image. */
wa_err computer_pixel_to_screen(const struct computer_view *v, int x, int y, int *sx, int *sy);

/* Whether the call carries a safety check a person must agree to before it runs
 * (Gemini: args.safety_decision.decision "require_confirmation"; OpenAI: a non-empty
 * pending_safety_checks); why gets its explanation. */
bool computer_needs_confirmation(enum computer_proto p, const cJSON *args, char *why, size_t cap);

/* Gemini's predefined functions that only a browser has, left out on a desktop
 * (NULL-ended). */
extern const char *const computer_gemini_browser_only[];

/* Whether a Gemini model takes ENVIRONMENT_DESKTOP: the models of the first action set
 * (gemini-2.5-computer-use-preview-10-2025, gemini-3-flash-preview,
 * gemini-3.1-pro-preview) take the browser environment only. */
bool computer_gemini_desktop(const char *model);

#endif
