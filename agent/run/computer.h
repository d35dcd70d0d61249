/* The providers' own computer tools (Gemini's predefined functions, OpenAI's
 * computer_call actions, Anthropic's computer tool) as requests of the core's
 * operations, so the gate, verification, change reports and logs apply to them
 * unchanged. The model sees one display for the whole run (a screen rectangle sent at
 * one size); its coordinates come from the protocol's space to exact screen pixels. */
#ifndef WINAGENT_AGENT_RUN_COMPUTER_H
#define WINAGENT_AGENT_RUN_COMPUTER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/core/request/request.h"

enum computer_proto {
    COMPUTER_GEMINI,    /* functions click_at, type_text_at...; x, y 0-999 over the screenshot */
    COMPUTER_OPENAI,    /* computer_call {action | actions[]}; pixels of the screenshot sent */
    COMPUTER_ANTHROPIC, /* tool_use input {action, coordinate}; pixels of the screenshot sent */
};

/* The display the model is told of: the screen rectangle its screenshots show and
 * their size, the same for every screenshot of the run. */
struct computer_view {
    struct wa_rect frame; /* screen pixels */
    int width, height;    /* pixels of the images sent: smaller than frame when downscaled */
};

struct model_family;

/* What the model takes as an image without scaling it again or refusing it, from its
 * family (llm/models.h): the longest edge (max_edge when the user set --max-edge, 0 when
 * not; never past the family's own), the pixels in all (0: no limit) and the shorter edge
 * (0: no such limit); when a request may carry more images than the family takes at full
 * size (images: the most one request of the run carries), the smaller edge it takes
 * then. Claude 4.7 and later: 2576 px (2000 past 20 images); earlier: 1568 px and about
 * 1.15 megapixels; OpenAI: 2048 px and a shorter edge of 768 px (its high detail);
 * Gemini: none of its own (its 0-999 grid spans whatever it is sent): max_edge, else
 * 1280. */
void computer_image_limits(const struct model_family *f, int max_edge, int images, int *edge,
                           long *pixels, int *short_edge);

#define COMPUTER_MAX_STEPS 16

/* What a call becomes: core requests performed in order (type_text_at: a click, the
 * old text cleared, the text typed, Enter), or none when a screenshot is all it asks.
 * A step marked `release` runs even after an earlier one failed: it lets go of what
 * the call pressed (hold_key's key up). */
struct computer_plan {
    struct op_request steps[COMPUTER_MAX_STEPS];
    bool release[COMPUTER_MAX_STEPS];
    size_t n;
};

void computer_plan_init(struct computer_plan *p);
void computer_plan_cleanup(struct computer_plan *p); /* leaves it initialised */

/* Translates one call of the computer tool into *out (initialise it first; on failure
 * it holds the steps translated so far, clean it up either way). name: Gemini's
 * function name, an Anthropic toolset member's name (its action), else "computer"; args:
 * the call's arguments (Gemini: the function's; OpenAI: the computer_call item with
 * "action" or "actions"; Anthropic: the tool input, with "action" for the older tools;
 * "repeat" on key). Waits and key holds take Anthropic's 300 seconds, the others' 30.
 * Every point becomes a screen pixel of the
 * view. WA_E_INVALID_ARGS with a detail written for the model: an unknown action
 * (listing the known ones), a missing or outside coordinate, an action winagent cannot
 * perform (and what to do instead). */
wa_err computer_plan_call(enum computer_proto p, const char *name, const cJSON *args,
                          const struct computer_view *view, struct computer_plan *out);

/* A pixel of the screenshot to the screen pixel it shows (its centre, rounded down).
 * WA_E_INVALID_ARGS when (x,y) is outside the image. */
wa_err computer_pixel_to_screen(const struct computer_view *v, int x, int y, int *sx, int *sy);
/* A screen pixel to the pixel of the screenshot that shows it; false when the display
 * does not show it. */
bool computer_screen_to_pixel(const struct computer_view *v, int sx, int sy, int *x, int *y);

/* What the service's safety check says of a call. */
enum computer_safety {
    COMPUTER_SAFE,    /* no check, or one that lets it run */
    COMPUTER_CONFIRM, /* it may run only after a person agreed (Gemini require_confirmation,
                       * OpenAI pending_safety_checks) */
    COMPUTER_BLOCKED, /* it must never run (Gemini "blocked") */
};

/* The call's safety check (Gemini: args.safety_decision.decision; OpenAI: a non-empty
 * pending_safety_checks); why gets the service's explanation. */
enum computer_safety computer_safety_check(enum computer_proto p, const cJSON *args, char *why,
                                           size_t cap);

/* The action a call names, for messages: Gemini's function name, Anthropic's "action",
 * OpenAI's action "type" (the first of a batch). */
const char *computer_action_name(enum computer_proto p, const char *name, const cJSON *args);

/* Gemini's predefined functions that only a browser has, left out on a desktop
 * (NULL-ended). */
extern const char *const computer_gemini_browser_only[];

/* Whether a Gemini model takes ENVIRONMENT_DESKTOP (its family's environment, llm/models.h):
 * every Gemini 3.x model does; gemini-2.5-computer-use-preview-10-2025 takes the browser
 * environment only. */
bool computer_gemini_desktop(const char *model);

#endif
