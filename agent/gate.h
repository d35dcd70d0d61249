/* The security gate in front of every mutating command, for all transports and the
 * CLI: the window must exist, windows of restricted processes are refused, actions are
 * rate-limited, dry-run is honoured, and every action and its outcome is appended to an
 * audit log (JSON lines, no secrets). */
#ifndef WINAGENT_AGENT_GATE_H
#define WINAGENT_AGENT_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "automation/backend.h"
#include "base/error.h"

struct gate_opts {
    /* Comma-separated process names whose windows are never acted on. NULL: the
     * default list (credential and security dialogs, password managers) extended by
     * WINAGENT_RESTRICTED; "" turns the list off. */
    const char *restricted;
    double max_actions_per_s; /* 0: the default (10 per second) */
    const char *audit_path;   /* NULL: WINAGENT_AUDIT_LOG, else no audit log */
    bool dry_run;
};

struct gate;

wa_err gate_new(const struct gate_opts *o, struct gate **out);
void gate_free(struct gate *g);

/* Before a mutating command on window hwnd (0 when the command has none yet):
 * WA_E_WINDOW_NOT_FOUND for a stale handle, WA_E_DENIED for a restricted process
 * (the detail names it) or when the rate limit is exceeded (after waiting at most
 * one second for a slot). */
wa_err gate_check(struct gate *g, const struct wa_backend *be, const char *command,
                  uint64_t hwnd);
bool gate_dry_run(const struct gate *g);
/* Appends {"time","command","params","window","outcome","error"} to the audit log.
 * params is copied with "text"/"value"/"command" values replaced by their length, so
 * typed secrets never reach the log. */
void gate_audit(struct gate *g, const char *command, const cJSON *params, uint64_t hwnd,
                wa_err outcome, const char *message);

#endif
