/* What a program file is, from the file itself (win_program.c). */
#ifndef WINAGENT_AUTOMATION_WIN_WIN_PROGRAM_H
#define WINAGENT_AUTOMATION_WIN_WIN_PROGRAM_H

#include <windows.h>

#include <stdbool.h>

#include "automation/backend.h"

/* The backend's program_info: PE or not, console or GUI, the version resource's
 * original name. WA_E_UNSUPPORTED when there is no file at path. */
wa_err win_program_info(const char *path, struct wa_program_info *out);
/* The backend's program_place: win_place_of, the file not read. */
wa_err win_program_place(const char *path, struct wa_program_info *out);

/* Opens the file at path for reading, letting no one write, rename or delete it while
 * the handle is held (so that what is read is what is then started), and reads whether
 * it is an executable image (*image). NULL when it cannot be opened. */
HANDLE win_program_open(const wchar_t *path, bool *image);
/* Whether the file at path is an executable image, by its headers. */
bool win_program_is_image(const wchar_t *path);

#endif
