/* Programs started and resolved (the backend's launch and resolve_program slots). */
#ifndef WINAGENT_WIN_LAUNCH_H
#define WINAGENT_WIN_LAUNCH_H

#include <stdint.h>

#include "automation/backend.h"

wa_err win_launch(enum wa_launch_kind kind, const char *command, int timeout_ms, uint64_t *hwnd);
wa_err win_resolve_program(const char *name, char **path, char **runs);

#endif
