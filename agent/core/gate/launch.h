/* Launch is not a shell: what a launch command would actually run, and whether that
 * needs the shell permission. A program named or given by path starts without it; a
 * command line with arguments, a shell, script host, interpreter or terminal, a script
 * file, a shortcut, URL or protocol handler, or a file whose association resolves to one
 * of those, needs it; so does a program that lies on a network share or where ordinary
 * users can write (the plan says so apart: an allow-list that names its whole path lets
 * it start). A file is judged as what it is, read before anything starts: an executable
 * image is a program to every check whatever its name ("invoice.ini" that is a copy of a
 * program is that program) and is started as exactly that file; any other file is a
 * document, opened only through its association, whose program is judged. A path on a
 * share, in any spelling (base/netpath.h), is refused before anything is looked up.
 * Parsing is quote-aware: an unquoted path with spaces that names an existing file is
 * that file, never a program plus arguments. The list of shells, interpreters and
 * terminals is the one the gate refuses input to when the shell is off. */
#ifndef WINAGENT_AGENT_CORE_GATE_LAUNCH_H
#define WINAGENT_AGENT_CORE_GATE_LAUNCH_H

#include <stdbool.h>

#include "automation/backend.h"

struct launch_plan {
    char *program; /* the program part, quotes removed */
    char *args;    /* the rest of the command line, or NULL */
    char *path;    /* the file the program part names, or NULL (a bare name) */
    char *runs;    /* what will run it (the program itself, or its association) */
    bool needs_shell;
    char reason[400]; /* why it needs the shell permission */
    const char *file; /* the file that will start (runs, else path; NULL: none known) */
    bool far;         /* it lies on a network share or where ordinary users can write */
    bool network;     /* on a share: nothing of it was looked up */
    char far_reason[400];
    enum wa_launch_kind kind; /* how the backend starts it */
    char *command;            /* what the backend is handed: the whole path of a program or
                               * document, or the command as typed (a line) */
};

/* Classifies command (as typed by the model or a client). WA_E_INVALID_ARGS for an
 * empty command or an unbalanced quote; WA_E_ELEMENT_NOT_FOUND when no program of
 * that name exists (and it needs no shell to say so). */
wa_err launch_plan_make(const struct wa_backend *be, const char *command, struct launch_plan *out);
void launch_plan_cleanup(struct launch_plan *p);

/* True for shells, script hosts, interpreters and terminals ("cmd.exe",
 * "C:\\x\\pwsh.exe", "python3.12", "alacritty.exe"). */
bool launch_is_interpreter(const char *program);
/* True for the shells, interpreters and terminals among them, whose windows run what is
 * typed there ("cmd.exe", "python", "alacritty.exe"; not "rundll32", "mmc", "java"). */
bool launch_takes_commands(const char *program);
/* True for files that run as scripts or indirections (.bat .cmd .ps1 .vbs .js .wsf
 * .hta .lnk .url ...). */
bool launch_is_script(const char *program);

#endif
