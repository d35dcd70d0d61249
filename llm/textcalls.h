/* Tool calls written as text in a reply's content, for models and servers that run no
 * tool parser: Hermes/Qwen <tool_call> JSON blocks, Qwen3-Coder <function=...> blocks,
 * Llama-style bare JSON objects, and UI-TARS's "Action: click(...)" grammar. Pure
 * parsing: nothing here talks to a server. */
#ifndef WINAGENT_LLM_TEXTCALLS_H
#define WINAGENT_LLM_TEXTCALLS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/wa_err.h"
#include "llm/assemble.h"
#include "llm/llm.h"

/* The grammars (enum llm_text_format) and coordinate spaces (enum llm_coords) are in
 * llm/llm.h, where the client's settings name them. */

struct textcalls {
    /* The calls in the order written; ids made up ("call_<n>_<hex>"), id_synthetic set.
     * UI-TARS actions become calls of the `desktop` tool (docs/contract.md §3) whose x, y,
     * to_x, to_y are the numbers as the model wrote them, in the space `coords` names:
     * the loop converts them to 0-999 before running the call. Each call's own coords
     * field says the same. */
    struct llm_tool_call *calls;
    size_t n_calls;
    enum llm_coords coords;
    enum llm_text_format format; /* the grammar the calls were found in (0: none) */
    /* The reply's text with the calls taken out, trimmed (UI-TARS: the Thought without
     * its "Thought:" label); NULL when nothing is left. */
    char *text;
    /* UI-TARS finished(content='...'): the model's final answer; NULL otherwise. */
    char *final_answer;
    /* The text after the last <tool_call> or <function=> block, trimmed (the end of text,
     * when text is more than this); NULL when nothing follows the calls. */
    char *after_calls;
};

void textcalls_init(struct textcalls *t);
void textcalls_cleanup(struct textcalls *t);

/* Looks for calls of the formats in mask in text and fills out (init it first).
 * WA_E_OK with n_calls == 0 and final_answer NULL: the text holds no call, it is
 * plain text. WA_E_PARSE: the text starts a call of one of the formats but it is
 * malformed (unclosed block, arguments that are not a JSON object, an unknown UI-TARS
 * action, a point without two numbers...); the detail says what, for the model to read,
 * and out holds nothing. uitars_coords is the space UI-TARS coordinates are in (the
 * model's, as configured). ids makes the call ids. */
wa_err textcalls_parse(const char *text, unsigned mask, enum llm_coords uitars_coords,
                       struct llm_ids *ids, struct textcalls *out);

/* UI-TARS-1.5's (Qwen2.5-VL's) "smart resize" of a w x h image, as the model server
 * does it before the model sees the image: both sides rounded to multiples of 28, the
 * pixel count kept within [100, 16384] * 28 * 28 by scaling with the aspect ratio. The
 * sides round as Python's round() does (halves to the even multiple), as the servers do. */
void textcalls_smart_resize(int w, int h, int *rw, int *rh);

/* The call's arguments with x, y, to_x, to_y moved from the call's space (c->coords) to
 * winagent's 0-999 over an image of image_w x image_h pixels (the one the model saw):
 * a new object (the others keys copied), NULL when out of memory or when c->parsed is
 * none. LLM_COORDS_PIXELS needs the image's size (WA_E_INVALID_ARGS without it). */
wa_err textcalls_args_to_999(const struct llm_tool_call *c, int image_w, int image_h,
                             struct cJSON **out);

#endif
