/* JSON at the edges: a request from a JSON object of arguments (the model's tool
 * calls, `act`, MCP tools, serve commands), and the one JSON shape of every result:
 *
 *   {"success": true, "op": "click", "data": {...}, "notes": [...],
 *    "window_state": {"hwnd","title","is_foreground","rect"}, "dry_run": true}
 *   {"success": false, "op": "click", "error": {"code": "...", "message": "..."}}
 */
#ifndef WINAGENT_AGENT_CORE_REQUEST_WIRE_H
#define WINAGENT_AGENT_CORE_REQUEST_WIRE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "agent/core/request/request.h"

/* Whose names the JSON uses: the model's (desktop tool: "action", "element", "to_x")
 * or the CLI's (MCP tools and serve commands: "ref", "x2"). */
enum wire_names { WIRE_MODEL, WIRE_CLI };

/* Fills out from args (a JSON object). op NULL with WIRE_MODEL: the operation comes
 * from args' "action" (misspellings mapped). Model requests forgive what models send
 * ("coordinate": [x, y], keys as an array, numbers as strings, unknown extra keys);
 * CLI-named requests refuse unknown arguments. Required arguments are checked. The
 * request is initialised either way (clean it up); the error names the problem. */
wa_err wire_request(const cJSON *args, enum wire_names names, const struct op_def *op,
                    struct op_request *out);

/* The same from JSON text; malformed JSON gives an invalid_args error that quotes it. */
wa_err wire_request_text(const char *json, enum wire_names names, const struct op_def *op,
                         struct op_request *out);

/* The typed request back as JSON arguments in a front end's names, as it was parsed
 * (the model's: with its "action"; numbers as stored, enums as their words, elements as
 * ids or selectors): what the trace records and the audit writes. Only arguments
 * given. WIRE_TEXT_AS_LENGTH: typed text and items as {"length": N}. A new object. */
enum { WIRE_TEXT_AS_LENGTH = 1u << 0 };
cJSON *wire_request_args(const struct op_request *q, enum wire_names names, unsigned flags);

struct wire_opts {
    enum wire_names names;
    /* Add "observation": {"kind","verdict","frame", "tree": text} for an observation
     * the result carries (act prints it; the loop sends the tree text on its own). */
    bool observation;
};

/* The result as the one JSON shape (a new object). */
cJSON *wire_result(const struct op_result *r, const struct wire_opts *o);

/* An element as JSON: {"id","type","name", and what it has of "value", "automation_id",
 * "class", "items" (a collection's summary), "index" (an item's in its collection),
 * "states", "bounds", ...}; full adds patterns, hwnd, runtime id and path. */
cJSON *wire_element(const struct op_elem *e, bool full);
/* An element's states and patterns as arrays of words ("focused", "invoke", ...). */
cJSON *wire_states(unsigned states);
cJSON *wire_patterns(unsigned patterns);
/* A failure in the one shape, for errors met before a request exists. */
cJSON *wire_error(const char *op, wa_err e, const char *message);

#endif
