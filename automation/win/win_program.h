/* What a program file is, from the file itself (win_program.c). */
#ifndef WINAGENT_AUTOMATION_WIN_WIN_PROGRAM_H
#define WINAGENT_AUTOMATION_WIN_WIN_PROGRAM_H

#include "automation/backend.h"

/* The backend's program_info: PE or not, console or GUI, the version resource's
 * original name. WA_E_UNSUPPORTED when there is no file at path. */
wa_err win_program_info(const char *path, struct wa_program_info *out);

#endif
