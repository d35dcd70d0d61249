/* What a run records of one performed call, shared by the loop and replay: the
 * observation files exactly as sent, the debug crosshair, the identity of the element
 * acted on, the window that received the input, and the time of every phase. */
#ifndef WINAGENT_AGENT_RUN_CALLTRACE_H
#define WINAGENT_AGENT_RUN_CALLTRACE_H

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/run/steplog.h"

/* Saves the observation's file (step-XX-<action>.png or +a11y.txt, <action> the name
 * of op in the operation table, "call" when there is none: nothing a model or a trace
 * wrote becomes part of a file name) and adds "observation": {kind, file, verdict,
 * frame, width, height} to trace. Also writes the DEBUG lines of unnamed interactive
 * elements of tree (may be NULL) to agent.log. */
void calltrace_observation(struct steplog *log, int step, const struct op_def *op,
                           const struct observation *o, const struct wa_tree *tree, cJSON *trace);

/* Adds to trace what the result of one call says beyond its JSON result:
 * "element_ref" {type, name, automation_id}, "receiver" {hwnd, title, class, process},
 * the observation (as calltrace_observation), "annotate" (the crosshair image file)
 * and "ms" {before, action, annotate, settle, capture, encode, tree, diff, other} where
 * other is what total_ms leaves unexplained. */
void calltrace_result(struct steplog *log, int step, const struct op_def *op,
                      const struct op_result *res, const struct wa_tree *tree, double total_ms,
                      cJSON *trace);

#endif
