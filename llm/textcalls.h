/* Tool calls written as text in a reply's content, for models and servers that run no
 * tool parser: Hermes/Qwen <tool_call> JSON blocks, Qwen3-Coder <function=...> blocks,
 * Llama-style bare JSON objects, and UI-TARS's "Action: click(...)" grammar. Pure
 * parsing: nothing here talks to a server. */
#ifndef WINAGENT_LLM_TEXTCALLS_H
#define WINAGENT_LLM_TEXTCALLS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "llm/assemble.h"
#include "llm/llm.h"

/* The grammars to look for; textcalls_parse takes a mask of them. */
enum textcall_format {
    TEXTCALL_HERMES = 1 << 0,      /* <tool_call>{"name":..,"arguments":{..}}</tool_call> */
    TEXTCALL_QWEN3_CODER = 1 << 1, /* <function=NAME><parameter=K>V</parameter></function> */
    TEXTCALL_JSON = 1 << 2,        /* the whole text is {"name":..,"parameters"|"arguments":..} */
    TEXTCALL_UITARS = 1 << 3,      /* Thought: ...\nAction: click(start_box='(x,y)') */
};
/* The formats a server without a tool parser produces for function-calling models
 * (UI-TARS is a grounding model's own grammar: ask for it explicitly). */
#define TEXTCALL_FUNCTION_FORMATS (TEXTCALL_HERMES | TEXTCALL_QWEN3_CODER | TEXTCALL_JSON)

/* Which space the coordinates of a parsed call are in. */
enum textcall_coords {
    TEXTCALL_COORDS_FRAME_999, /* winagent's own 0-999 over the frame (function calls) */
    TEXTCALL_COORDS_PIXELS,    /* pixels of the image sent (UI-TARS-1.5 after its smart
                                * resize, Qwen2.5-VL): the loop scales by the image size */
    TEXTCALL_COORDS_NORM_1000, /* 0-1000 relative (UI-TARS 1.0, Qwen3-VL) */
};

struct textcalls {
    /* The calls in the order written; ids made up ("call_<n>_<hex>"), id_synthetic set.
     * UI-TARS actions become calls of the `desktop` tool (SPEC section 3) whose x, y,
     * to_x, to_y are the numbers as the model wrote them, in the space `coords` names:
     * the loop converts them to 0-999 before running the call. */
    struct llm_tool_call *calls;
    size_t n_calls;
    enum textcall_coords coords;
    enum textcall_format format; /* the grammar the calls were found in (0: none) */
    /* The reply's text with the calls taken out, trimmed (UI-TARS: the Thought without
     * its "Thought:" label); NULL when nothing is left. */
    char *text;
    /* UI-TARS finished(content='...'): the model's final answer; NULL otherwise. */
    char *final_answer;
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
wa_err textcalls_parse(const char *text, unsigned mask, enum textcall_coords uitars_coords,
                       struct llm_ids *ids, struct textcalls *out);

#endif
