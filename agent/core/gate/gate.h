/* The security gate's policy pieces, used by the core on every operation: which
 * processes are restricted (credential and security prompts, password managers), the
 * allow-list (--apps: when given, the only programs whose windows exist for winagent),
 * the refusal of a window (restricted, outside the allow-list, or whose process cannot
 * be identified: fail closed), the rate limit of acting requests, and the audit log
 * (JSON lines, typed text as its length). Thread-safe: several sessions of one process
 * share one gate. */
#ifndef WINAGENT_AGENT_CORE_GATE_GATE_H
#define WINAGENT_AGENT_CORE_GATE_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "automation/backend.h"
#include "base/wa_err.h"

struct gate_config {
    /* Comma-separated process names (or wildcards) added to the built-in list. */
    const char *restricted_extra;
    /* Replaces the built-in list when not NULL ("" leaves none; for tests only). */
    const char *restricted_only;
    /* Comma-separated program file names ("notepad.exe", "notepad", wildcards) or whole
     * paths ("C:\\Tools\\app.exe"): when not NULL or empty, windows of every other
     * program are refused as restricted ones are, and left out of everything. A whole
     * path names that file wherever it lies; a name names only an installed program of
     * that name (installed below): "notepad" is C:\\Windows\\notepad.exe, not a copy
     * named notepad.exe in a folder users write. */
    const char *apps;
    /* Whether the program at a whole path is installed (where no ordinary user can write:
     * backend_program_place); NULL: none is. */
    bool (*installed)(void *ctx, const char *path);
    void *installed_ctx;
    double max_actions_per_s; /* 0: 10 per second */
    const char *audit_path;   /* NULL: no audit log */
};

struct gate;

wa_err gate_new(const struct gate_config *c, struct gate **out);
void gate_free(struct gate *g);

/* Whether an allow-list was given. */
bool gate_has_apps(const struct gate *g);
/* Whether the program (its file name, and its whole path when known: either may be
 * NULL) is one the allow-list names: by its whole path, or by its name when it is
 * installed (a program whose path is unknown matches no name); true when there is no
 * allow-list. */
bool gate_app_listed(const struct gate *g, const char *name, const char *path);
/* Whether the allow-list has a name entry (not a path) that name matches, wherever the
 * program lies: to say why a program of a listed name was refused. */
bool gate_app_named(const struct gate *g, const char *name);
/* Whether the shell program the user set (WINAGENT_SHELL, a name or a path as given) is
 * one the allow-list names, by its name or its path as given: the user's own setting,
 * not a file found by a model. */
bool gate_shell_listed(const struct gate *g, const char *program);
/* Whether the allow-list names exactly this whole path (not only its file name): the
 * user's word that this file may start wherever it lies. */
bool gate_app_path_listed(const struct gate *g, const char *path);
/* The allow-list as given, for messages ("" when none). */
const char *gate_apps_text(const struct gate *g);
/* Whether w may be acted on or observed: WA_E_DENIED for a restricted process (the
 * detail names it), one outside the allow-list or one that cannot be identified (the
 * detail names neither its title nor its process). what names the operation for the
 * message ("click", "observing"). */
wa_err gate_check_window(const struct gate *g, const struct wa_window *w, const char *what);

/* The input a receiver gets: the pointer's, keys and text that stay in the control with
 * the focus, or keys that may take the focus elsewhere (tab, any alt chord, F4, F6, F10,
 * ctrl+l, ctrl+e, ctrl+f: in Explorer, to its address bar or search box). */
enum gate_input { GATE_POINTER, GATE_KEYS, GATE_KEYS_AWAY };

/* Why w is a route to a shell, which receives no input while the shell permission is
 * off (NULL when it is none), by what it is rather than by its title: a console or a
 * terminal, a window of a shell, interpreter or terminal on launch's list (by its name,
 * or its file's version resource: file may be NULL), of a console program, of a program
 * that runs from a network share (its file is never read), the Run dialog
 * in any language (shell32's, by its controls: kind may be NULL; or a dialog of
 * Explorer), the taskbar, the desktop, the Start menu and search, an address bar (kind:
 * the control the input reaches), and for keys and text Explorer's own windows, whose
 * address bar has no window of its own on Windows 11: they take keys and text only in
 * their items (kind->item_view: F2's rename, type-ahead, enter) and only those that
 * stay there (GATE_KEYS, not GATE_KEYS_AWAY). */
const char *gate_shell_route(const struct wa_window *w, const struct wa_window_kind *kind,
                             const struct wa_program_info *file, enum gate_input input);

/* What results say of a window the gate refuses: no title, class, image or tree. */
#define GATE_RESTRICTED_TITLE "(restricted window)"
/* Masks w in place when the gate refuses it (title GATE_RESTRICTED_TITLE, no class);
 * true when it did. Its handle and process stay (the process is what is restricted). */
bool gate_mask_window(const struct gate *g, struct wa_window *w);
/* Whether the gate allows w (an identified, unrestricted process the allow-list names),
 * without an error. */
bool gate_allows(const struct gate *g, const struct wa_window *w);
/* Whether w is refused only for being outside the allow-list: an identified,
 * unrestricted program the list does not name. */
bool gate_outside_apps(const struct gate *g, const struct wa_window *w);
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
