/* The state of one agent run, and the tool calls of its turns (loop_call.c). */
#ifndef WINAGENT_AGENT_RUN_LOOP_CALL_H
#define WINAGENT_AGENT_RUN_LOOP_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "agent/core/core.h"
#include "agent/run/computer.h"
#include "agent/run/config.h"
#include "agent/run/guards.h"
#include "agent/run/seen.h"
#include "agent/run/steplog.h"
#include "base/dynbuf.h"
#include "llm/llm.h"

struct run_outcome; /* loop.h */

/* A message that carries an observation, and what it becomes when trimmed. */
struct obs_ref {
    size_t msg;
    char *trimmed;
    bool done;
};

struct run {
    const struct agent_config *cfg;
    const struct wa_backend *be;
    struct steplog log;
    struct llm_client *llm;
    struct llm_conversation conv;
    struct core *core;
    struct session *ses;
    struct obs_ref *obs;
    size_t n_obs;
    int image_w, image_h;    /* size of the latest image sent, pixels (0: none yet) */
    struct guards guards;    /* loop detection */
    const char *stop_reason; /* set when a repetition or a refused action ends the run */
    int stop_code;           /* its exit code (0: EXIT_ACTION) */
    char stop_text[700];     /* what stop_reason points to when it is made up */
    int bad_text_calls;      /* replies whose call written as text could not be read */
    /* The protocol spoken now: the configured one, until a server that takes no tools
     * turns auto's functions into text for the rest of the run. */
    struct llm_protocol_choice proto;
    /* How older observations are kept now: the configured way, until the requests grow
     * past what the service takes (HTTP 413) with nothing older shortened. */
    enum history_policy history;
    /* totals */
    struct llm_usage usage;
    double llm_ms, agent_ms;
    int64_t start_ms;
    struct run_outcome *out; /* NULL: nobody asked */
    /* The computer tool protocol: the provider's computer tool, its protocol, the one
     * display the model is told of (what its coordinates are in, fixed by the first
     * screenshot) and whether a person can be asked to confirm what a safety check
     * flags. */
    bool computer;
    enum computer_proto cu_proto;
    struct llm_computer_tool computer_tool;
    struct computer_view view;
    bool can_confirm;
};

/* Marks the message just appended as one carrying an observation, with what it becomes
 * when trimmed (trimmed: copied). */
void loop_call_remember_observation(struct run *r, const char *trimmed);

/* The observation as the model gets it: text to append, and an image if any (whose
 * size is remembered: calls written in pixels refer to it). */
void loop_call_observation_for_model(struct run *r, const struct observation *o,
                                     struct dynbuf *text, struct llm_image *img, bool *has_img);

/* --shell confirm: the command as it will run (control characters already escaped). */
bool loop_call_confirm_on_console(void *ctx, const char *what, const char *command);

/* The request of a tool call from its arguments, parsed once (args NULL: they were no
 * JSON): the desktop tool's action, or the shell. */
wa_err loop_call_request(struct run *r, const struct llm_tool_call *call, const cJSON *args,
                         struct op_request *q);

/* Runs one tool call and appends its result to the conversation; fills the call's
 * trace object. The arguments were parsed once, when the reply was read. True when the
 * call succeeded (performed, and no error in its result). */
bool loop_call_run(struct run *r, int step, const struct llm_tool_call *call,
                   const char *step_stats, cJSON *trace);

/* Observes the window in front (else the monitor) for the first turn; the computer
 * tool's display (the monitor in front, the first time). */
wa_err loop_call_first_observation(struct run *r, struct op_result *res);

#endif
