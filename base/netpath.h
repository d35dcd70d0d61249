/* Network paths known by their spelling, before anything is looked up: a lookup of a
 * path on a share is already a connection to that server (SMB, WebDAV) that offers the
 * user's credentials, so the spelling alone must say "remote" for every form Windows
 * resolves to its network redirector. */
#ifndef WINAGENT_BASE_NETPATH_H
#define WINAGENT_BASE_NETPATH_H

#include <stdbool.h>

/* Why path (UTF-8, as given: no environment variables expanded, nothing made whole) is
 * to be taken as remote and never looked up, or NULL when its spelling is local: a
 * drive path ("C:\\x"), a path relative to the current folder or drive, or a device
 * path of a drive ("\\\\?\\C:\\x", "\\\\.\\C:\\x", either slash). Remote is every path
 * that begins with two separators (either slash) and is no such drive path: UNC
 * ("\\\\host\\share"), "\\\\?\\UNC\\", "\\\\.\\UNC\\", "//?/UNC/",
 * "\\\\?\\GLOBALROOT\\Device\\Mup\\", volume GUIDs, pipes and every other device; an NT path
 * ("\\??\\UNC\\..."); and a drive device path with a "." or ".." part, which "\\\\.\\" paths
 * resolve ("\\\\.\\C:\\..\\UNC\\host" is \\\\.\\UNC\\host). A relative path or one rooted at the
 * current drive ("\\x") is local by its spelling only: made whole against a current folder on a
 * share it is remote, so whoever makes it whole asks again (the Windows backend does). */
const char *netpath_remote(const char *path);

/* Whether path begins with a drive letter and a colon ("C:", "c:\\x"). */
bool netpath_has_drive(const char *path);

#endif
