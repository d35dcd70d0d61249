/* The field names of trace.jsonl, one line per step (docs/contract.md §6): written by the loop and
 * calltrace.c, read back by replay, the report and its index. One list, so a writer and
 * its readers cannot drift apart. */
#ifndef WINAGENT_AGENT_REPORT_TRACE_H
#define WINAGENT_AGENT_REPORT_TRACE_H

#define TRACE_STEP          "step"          /* the step number (0: the line of the task) */
#define TRACE_TASK          "task"          /* the prompt of the run (step 0) */
#define TRACE_MODEL_TEXT    "model_text"    /* the model's text */
#define TRACE_REASONING     "reasoning"     /* the model's reasoning, where it sent some */
#define TRACE_FINISH_REASON "finish_reason" /* why the model stopped */
#define TRACE_TOOL_CALLS    "tool_calls"    /* the calls of the step, in order */
/* A call as soon as it is done, on a line of its own before its step's line (which
 * holds it again): a run killed mid-step keeps the record of what it did. */
#define TRACE_CALL_DONE    "call_done"
#define TRACE_FINAL_ANSWER "final_answer" /* the final answer */
#define TRACE_TIMINGS      "timings"      /* milliseconds per phase */
#define TRACE_USAGE        "usage"        /* tokens */
#define TRACE_ATTEMPTS     "attempts"     /* requests it took the provider */
#define TRACE_OUTCOME      "outcome"      /* how the run ended (the last line) */
#define TRACE_EXIT_CODE    "exit_code"    /* its exit code */
#define TRACE_STEPS        "steps"        /* steps taken */
#define TRACE_SUMMARY      "summary"      /* one line of progress */
#define TRACE_ID           "id"           /* the call's id */
#define TRACE_NAME         "name"         /* the tool's name */
#define TRACE_ARGUMENTS    "arguments"    /* the typed request as JSON (the model's names) */
#define TRACE_ARGUMENTS_RAW                                                                        \
    "arguments_raw" /* the arguments as the model wrote them, when they did not parse */
#define TRACE_RESULT            "result"            /* the one result shape */
#define TRACE_ERROR             "error"             /* the error, when the call or run failed */
#define TRACE_ELEMENT_REF       "element_ref"       /* the element acted on, by identity */
#define TRACE_RECEIVER          "receiver"          /* the window that received the input */
#define TRACE_OBSERVATION       "observation"       /* the observation returned */
#define TRACE_ANNOTATE          "annotate"          /* the debug image of a coordinate action */
#define TRACE_TREE_REUSED       "tree_reused"       /* the look after reused the tree */
#define TRACE_RECORDED_STEP     "recorded_step"     /* replay: the step of the recording */
#define TRACE_DIVERGED          "diverged"          /* replay: what differed */
#define TRACE_LLM_MS            "llm_ms"            /* waiting for the model */
#define TRACE_AGENT_MS          "agent_ms"          /* winagent's own time */
#define TRACE_TOOLS_MS          "tools_ms"          /* performing the calls */
#define TRACE_TOTAL_MS          "total_ms"          /* the whole step */
#define TRACE_PROMPT_TOKENS     "prompt_tokens"     /* tokens sent */
#define TRACE_COMPLETION_TOKENS "completion_tokens" /* tokens received */
#define TRACE_TOTAL_TOKENS      "total_tokens"      /* both */

/* An observation: */
#define TRACE_OBS_KIND    "kind"    /* "tree" or "image" */
#define TRACE_OBS_FILE    "file"    /* the file of the log folder holding what was sent */
#define TRACE_OBS_VERDICT "verdict" /* the usefulness verdict */
#define TRACE_OBS_FRAME   "frame"   /* [l,t,r,b] of what 0-999 spanned */
#define TRACE_OBS_WIDTH   "width"   /* of the image sent */
#define TRACE_OBS_HEIGHT  "height"
/* A call's phases, milliseconds, by name ("capture", "tree", ...): */
#define TRACE_CALL_MS "ms"

#endif
