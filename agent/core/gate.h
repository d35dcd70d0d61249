/* The security gate's policy pieces, used by the core on every operation: which
 * processes are restricted (credential and security prompts, password managers), the
 * refusal of a window (restricted, or whose process cannot be identified: fail closed),
 * the rate limit of acting requests, and the audit log (JSON lines, typed text as its
 * length). Thread-safe: several sessions of one process share one gate. */
#ifndef WINAGENT_AGENT_CORE_GATE_H
#define WINAGENT_AGENT_CORE_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "automation/backend.h"
#include "base/error.h"

struct gate_config {
    /* Comma-separated process names (or wildcards) added to the built-in list. */
    const char *restricted_extra;
    /* Replaces the built-in list when not NULL ("" leaves none; for tests only). */
    const char *restricted_only;
    double max_actions_per_s; /* 0: 10 per second */
    const char *audit_path;   /* NULL: no audit log */
};

struct gate;

wa_err gate_new(const struct gate_config *c, struct gate **out);
void gate_free(struct gate *g);

/* The entry of the restricted list that process (an exe name or path) matches, or NULL. */
const char *gate_restricted(const struct gate *g, const char *process);
/* Whether w may be acted on or observed: WA_E_DENIED (the detail names the window, its
 * process and why) for a restricted process or one that cannot be identified. what
 * names the operation for the message ("click", "observing"). */
wa_err gate_check_window(const struct gate *g, const struct wa_window *w, const char *what);
/* Whether w is a way into a shell: a console or terminal window (conhost, Windows
 * Terminal, cmd, PowerShell hosts, Wine's console) or the Run dialog. With the shell
 * off, such windows receive no input. */
bool gate_shell_window(const struct wa_window *w);

/* What results say of a window the gate refuses: no title, class, image or tree. */
#define GATE_RESTRICTED_TITLE "(restricted window)"
/* Masks w in place when the gate refuses it (title GATE_RESTRICTED_TITLE, no class);
 * true when it did. Its handle and process stay (the process is what is restricted). */
bool gate_mask_window(const struct gate *g, struct wa_window *w);
/* Whether the gate allows w (an identified, unrestricted process), without an error. */
bool gate_allows(const struct gate *g, const struct wa_window *w);
/* One slot of the rate limit, waiting at most one second for it; WA_E_DENIED beyond. */
wa_err gate_take_slot(struct gate *g);

struct gate_audit_line {
    const char *front;   /* "loop", "act", "cli", "mcp", "serve", "replay" */
    const char *command; /* the name the front end used */
    const char *op;      /* the canonical operation */
    const cJSON *params; /* typed text already replaced by its length */
    uint64_t window;     /* the window that received the action (0: none) */
    const char *process; /* its process */
    bool dry_run;
    wa_err outcome;
    const char *error; /* the detail when outcome is not WA_E_OK */
};

/* Appends one JSON line {"time","pid","front","command","op","params","window",
 * "process","dry_run","outcome","error"} when an audit log is open. */
void gate_audit(struct gate *g, const struct gate_audit_line *l);

#endif
