/* Where a program file lies, decided before anything of it is trusted (win_place.c):
 * on a share (never opened), installed (neither it nor a folder above it can be changed
 * by an ordinary user), or elsewhere. */
#ifndef WINAGENT_AUTOMATION_WIN_WIN_PLACE_H
#define WINAGENT_AUTOMATION_WIN_WIN_PLACE_H

#include <stdbool.h>
#include <wchar.h>

#include "automation/backend.h"

/* The place of path (any spelling: relative, 8.3, "\\\\?\\C:\\"), *why the reason when it is
 * not WA_PLACE_SYSTEM (static text, or NULL). Nothing on a share is touched: the
 * spelling, the path made whole (a string operation) and the drive's device (the object
 * manager, not the drive) are asked first.
 * - On Windows a file is installed when the file and each folder above it are owned by
 *   SYSTEM, Administrators or TrustedInstaller and no ACE gives anyone else a right that
 *   changes them: for the file, writing, appending, deleting, its ACL or owner; for its
 *   folder, adding files or folders, deleting what is in it, itself, its ACL or owner;
 *   for the folders above, deleting them, what is in them, their ACL or owner (an ACE
 *   that only children inherit is not the folder's own).
 * - Under Wine every file belongs to the one Unix user, who has full control of all of
 *   them (Wine makes the owner and the ACL from the Unix mode bits and keeps no other),
 *   so the owner cannot tell an administrator's file from a user's: there a file is
 *   installed when it lies in the Windows folder or a Program Files folder and the ACL
 *   gives no one but that user such a right (Wine grants Everyone write where the mode
 *   bits do).
 * - On both, never in the folders of the Windows folder that ordinary users may write
 *   (Tasks, Temp, tracing, System32\\spool\\drivers\\color, ...: the known application
 *   control bypasses). */
enum wa_program_place win_place_of(const wchar_t *path, const char **why);

/* Whether the drive of whole path p (after any "\\\\?\\" or "\\\\.\\") is a network drive:
 * by the device the drive letter names (a redirector's, a subst of a share), asked of
 * the object manager, then of GetDriveType for a device that is no disk. */
bool win_place_remote_drive(const wchar_t *p);

#endif
