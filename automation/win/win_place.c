/* Where a program file lies: on a share, installed where ordinary users cannot write, or
 * elsewhere (win_place.h says what each platform decides and why). */
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <shlobj.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/win_place.h"
#include "automation/win/desktop/win_window.h"
#include "base/win/win_utf8.h"
#include "base/netpath.h"
#include "base/os.h"
#include "base/str.h"

#define PLACE_PATH_MAX  1024
#define PLACE_CACHE     32
#define PLACE_CACHE_MS  30000 /* a verdict is asked again after this (ACLs change) */
#define SUBST_DEPTH_MAX 4

/* The only principals that may change an installed program: SYSTEM, Administrators,
 * TrustedInstaller. */
static const char *const trusted_sids[] = {
    "S-1-5-18",
    "S-1-5-32-544",
    "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464",
};

/* Names of the SIDs ordinary users are, for messages (no lookup: a domain SID's name
 * would be asked of a domain controller). */
static const struct {
    const char *sid, *name;
} known_sids[] = {
    {"S-1-1-0", "Everyone"},         {"S-1-5-11", "Authenticated Users"},
    {"S-1-5-32-545", "Users"},       {"S-1-5-4", "INTERACTIVE"},
    {"S-1-3-0", "CREATOR OWNER"},    {"S-1-3-4", "OWNER RIGHTS"},
    {"S-1-5-32-547", "Power Users"}, {"S-1-5-7", "ANONYMOUS LOGON"},
    {"S-1-5-32-546", "Guests"},      {"S-1-15-2-1", "ALL APPLICATION PACKAGES"},
};

/* Folders of the Windows folder ordinary users may write (create files in, and run
 * them from): the known application-control bypasses. Refused on every platform,
 * whatever their ACLs say. */
static const wchar_t *const writable_folders[] = {
    L"Tasks",
    L"Temp",
    L"tracing",
    L"Registration\\CRMLog",
    L"debug\\WIA",
    L"PLA\\Reports",
    L"PLA\\Rules",
    L"PLA\\Templates",
    L"ServiceProfiles\\LocalService\\AppData\\Local\\Temp",
    L"System32\\Tasks",
    L"System32\\Tasks_Migrated",
    L"System32\\FxsTmp",
    L"System32\\com\\dmp",
    L"System32\\Microsoft\\Crypto\\RSA\\MachineKeys",
    L"System32\\spool\\PRINTERS",
    L"System32\\spool\\SERVERS",
    L"System32\\spool\\drivers\\color",
    L"System32\\LogFiles\\WMI",
    L"SysWOW64\\Tasks",
    L"SysWOW64\\FxsTmp",
    L"SysWOW64\\com\\dmp",
};

/* What the ACL of an object on the path is asked: the file, the folder it is in, or a
 * folder above that. */
enum scope { THE_FILE, ITS_FOLDER, ABOVE };

/* The rights that change what runs, by scope, and their words for messages. */
static const struct {
    ACCESS_MASK right;
    const char *words[3];
} rights[] = {
    {FILE_WRITE_DATA, {"write", "create files in", NULL}},
    {FILE_APPEND_DATA, {"append to", "create folders in", NULL}},
    {FILE_DELETE_CHILD, {NULL, "delete what is in", "delete what is in"}},
    {DELETE, {"delete", "delete", "delete"}},
    {WRITE_DAC, {"change the ACL of", "change the ACL of", "change the ACL of"}},
    {WRITE_OWNER, {"take", "take", "take"}},
};

static void sid_text(PSID sid, char *out, size_t cap)
{
    char *s = NULL;
    snprintf(out, cap, "?");
    if (!sid || !ConvertSidToStringSidA(sid, &s))
        return;
    snprintf(out, cap, "%s", s);
    for (size_t i = 0; i < sizeof known_sids / sizeof *known_sids; i++)
        if (strcmp(s, known_sids[i].sid) == 0)
            snprintf(out, cap, "%s", known_sids[i].name);
    LocalFree(s);
}

static bool trusted(PSID sid)
{
    char *s = NULL;
    if (!sid || !ConvertSidToStringSidA(sid, &s))
        return false;
    bool yes = false;
    for (size_t i = 0; i < sizeof trusted_sids / sizeof *trusted_sids; i++)
        yes = yes || strcmp(s, trusted_sids[i]) == 0;
    LocalFree(s);
    return yes;
}

/* Whether sid is OWNER RIGHTS or CREATOR OWNER: the owner, judged as the owner. */
static bool owner_alias(PSID sid)
{
    char *s = NULL;
    if (!sid || !ConvertSidToStringSidA(sid, &s))
        return false;
    bool yes = strcmp(s, "S-1-3-4") == 0 || strcmp(s, "S-1-3-0") == 0;
    LocalFree(s);
    return yes;
}

/* Who other than the trusted principals may change the object at path (in scope), as
 * a reason in why, or NULL. wine: the owner is not asked, and what the owner's own SID
 * is granted is left out (Wine gives the one user every file). */
static const char *object_verdict(const wchar_t *path, enum scope sc, bool wine, char *why,
                                  size_t cap)
{
    PSECURITY_DESCRIPTOR sd = NULL;
    PSID owner = NULL;
    PACL dacl = NULL;
    DWORD r = GetNamedSecurityInfoW(path, SE_FILE_OBJECT,
                                    OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner,
                                    NULL, &dacl, NULL, &sd);
    if (r != ERROR_SUCCESS) {
        snprintf(why, cap, "the ACL of %ls cannot be read (error %lu)", path, (unsigned long)r);
        return why;
    }
    const char *v = NULL;
    char who[200];
    if (!wine && !trusted(owner)) {
        sid_text(owner, who, sizeof who);
        snprintf(why, cap, "%ls is owned by %s, not by SYSTEM, Administrators or TrustedInstaller",
                 path, who);
        v = why;
    } else if (!dacl) {
        snprintf(why, cap, "%ls has no ACL: everyone may change it", path);
        v = why;
    }
    GENERIC_MAPPING map = {FILE_GENERIC_READ, FILE_GENERIC_WRITE, FILE_GENERIC_EXECUTE,
                           FILE_ALL_ACCESS};
    for (DWORD i = 0; !v && i < dacl->AceCount; i++) {
        ACE_HEADER *h = NULL;
        if (!GetAce(dacl, i, (void **)&h) || (h->AceFlags & INHERIT_ONLY_ACE) ||
            (h->AceType != ACCESS_ALLOWED_ACE_TYPE &&
             h->AceType != ACCESS_ALLOWED_CALLBACK_ACE_TYPE))
            continue;
        ACCESS_ALLOWED_ACE *a = (ACCESS_ALLOWED_ACE *)h;
        PSID sid = (PSID)&a->SidStart;
        ACCESS_MASK mask = a->Mask;
        MapGenericMask(&mask, &map);
        if (trusted(sid) || (owner_alias(sid) && (wine || trusted(owner))) ||
            (wine && owner && EqualSid(sid, owner)))
            continue;
        for (size_t j = 0; !v && j < sizeof rights / sizeof *rights; j++)
            if ((mask & rights[j].right) && rights[j].words[sc]) {
                sid_text(sid, who, sizeof who);
                snprintf(why, cap, "%s may %s %ls", who, rights[j].words[sc], path);
                v = why;
            }
    }
    LocalFree(sd);
    return v;
}

/* The verdict over the file and each folder above it up to its drive's root. */
static const char *chain_verdict(const wchar_t *full, bool wine, char *why, size_t cap)
{
    wchar_t p[PLACE_PATH_MAX];
    if (wcslen(full) >= PLACE_PATH_MAX) {
        snprintf(why, cap, "the path is too long to judge");
        return why;
    }
    wcscpy(p, full);
    enum scope sc = THE_FILE;
    for (;;) {
        const char *v = object_verdict(p, sc, wine, why, cap);
        if (v)
            return v;
        wchar_t *cut = wcsrchr(p, L'\\');
        if (!cut || cut - p < 2)
            return NULL;
        if (cut - p == 2) { /* "C:\\x" -> "C:\\" */
            if (!cut[1])
                return NULL;
            cut[1] = L'\0';
        } else {
            *cut = L'\0';
        }
        sc = sc == THE_FILE ? ITS_FOLDER : ABOVE;
    }
}

/* Whether full lies inside folder (either separator). */
static bool inside(const wchar_t *full, const wchar_t *folder)
{
    size_t n = wcslen(folder);
    while (n > 0 && (folder[n - 1] == L'\\' || folder[n - 1] == L'/'))
        n--;
    return n > 0 && _wcsnicmp(full, folder, n) == 0 && (full[n] == L'\\' || full[n] == L'/');
}

/* The known folder of the Windows folder ordinary users may write that full lies in,
 * or NULL. */
static const wchar_t *in_writable_folder(const wchar_t *full)
{
    wchar_t win[MAX_PATH], dir[MAX_PATH + 64];
    UINT n = GetWindowsDirectoryW(win, MAX_PATH);
    if (!n || n >= MAX_PATH)
        return NULL;
    for (size_t i = 0; i < sizeof writable_folders / sizeof *writable_folders; i++) {
        _snwprintf(dir, sizeof dir / sizeof *dir, L"%ls\\%ls", win, writable_folders[i]);
        dir[sizeof dir / sizeof *dir - 1] = 0;
        if (inside(full, dir))
            return writable_folders[i];
    }
    return NULL;
}

/* Whether full lies in the Windows folder or a Program Files folder. */
static bool in_system_folders(const wchar_t *full)
{
    static const int folders[] = {CSIDL_WINDOWS, CSIDL_PROGRAM_FILES, CSIDL_PROGRAM_FILESX86};
    for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++) {
        wchar_t dir[MAX_PATH];
        if (SUCCEEDED(SHGetFolderPathW(NULL, folders[i], NULL, SHGFP_TYPE_CURRENT, dir)) &&
            inside(full, dir))
            return true;
    }
    return false;
}

/* Devices of network redirectors, as a drive letter's target names them. */
static bool redirector(const wchar_t *target)
{
    static const wchar_t *const prefixes[] = {
        L"\\Device\\Mup",
        L"\\Device\\LanmanRedirector",
        L"\\Device\\WebDavRedirector",
        L"\\Device\\RdpDr",
        L"\\Device\\P9Rdr",
        L"\\Device\\vmsmb",
        L"\\Device\\CscFileSystem",
        L"\\Device\\VBoxMiniRdr",
        L"\\??\\UNC\\",
        L"\\DosDevices\\UNC\\",
        L"\\GLOBAL??\\UNC\\",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (_wcsnicmp(target, prefixes[i], wcslen(prefixes[i])) == 0)
            return true;
    return wcsstr(target, L"Redirector") != NULL || wcsstr(target, L"Rdr\\") != NULL;
}

static bool local_disk(const wchar_t *target)
{
    static const wchar_t *const prefixes[] = {L"\\Device\\HarddiskVolume", L"\\Device\\Harddisk",
                                              L"\\Device\\CdRom", L"\\Device\\Floppy"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (_wcsnicmp(target, prefixes[i], wcslen(prefixes[i])) == 0)
            return true;
    return false;
}

static bool remote_drive(const wchar_t *p, int depth)
{
    if (_wcsnicmp(p, L"\\\\?\\", 4) == 0 || _wcsnicmp(p, L"\\\\.\\", 4) == 0)
        p += 4;
    if (!p[0] || p[1] != L':' || depth > SUBST_DEPTH_MAX)
        return depth > SUBST_DEPTH_MAX;
    wchar_t drive[3] = {p[0], L':', 0}, target[1024];
    if (!QueryDosDeviceW(drive, target, sizeof target / sizeof *target))
        return false; /* no such drive: nothing of it is reached either */
    if (redirector(target))
        return true;
    /* a subst drive: "\\??\\C:\\somewhere", judged by its own drive */
    if (_wcsnicmp(target, L"\\??\\", 4) == 0 && target[4] && target[5] == L':')
        return remote_drive(target + 4, depth + 1);
    if (local_disk(target))
        return false;
    wchar_t root[4] = {p[0], L':', L'\\', 0};
    return GetDriveTypeW(root) == DRIVE_REMOTE;
}

bool win_place_remote_drive(const wchar_t *p)
{
    return remote_drive(p, 0);
}

/* The verdict, without the cache. */
static enum wa_program_place judge(const wchar_t *path, char *why, size_t cap)
{
    *why = '\0';
    char *u = win_wide_to_utf8(path);
    const char *remote = u ? netpath_remote(u) : "a path that cannot be read";
    free(u);
    if (remote) {
        snprintf(why, cap, "%s", remote);
        return WA_PLACE_NETWORK;
    }
    /* made whole (a string operation: a relative path against a current folder on a
     * share is on that share), then asked again */
    wchar_t full[PLACE_PATH_MAX], longer[PLACE_PATH_MAX];
    DWORD n = GetFullPathNameW(path, PLACE_PATH_MAX, full, NULL);
    if (!n || n >= PLACE_PATH_MAX) {
        snprintf(why, cap, "its path cannot be made whole");
        return WA_PLACE_ELSEWHERE;
    }
    u = win_wide_to_utf8(full);
    remote = u ? netpath_remote(u) : "a path that cannot be read";
    free(u);
    if (remote) {
        snprintf(why, cap, "%s", remote);
        return WA_PLACE_NETWORK;
    }
    if (win_place_remote_drive(full)) {
        snprintf(why, cap, "a network drive");
        return WA_PLACE_NETWORK;
    }
    /* its long name ("PROGRA~1" is "Program Files"): lookups on a local drive only */
    n = GetLongPathNameW(full, longer, PLACE_PATH_MAX);
    const wchar_t *p = n && n < PLACE_PATH_MAX ? longer : full;
    if (_wcsnicmp(p, L"\\\\?\\", 4) == 0 || _wcsnicmp(p, L"\\\\.\\", 4) == 0)
        p += 4;
    const wchar_t *loose = in_writable_folder(p);
    if (loose) {
        snprintf(why, cap, "in the Windows folder's %ls, which ordinary users may write", loose);
        return WA_PLACE_ELSEWHERE;
    }
    bool wine = win_under_wine();
    if (wine && !in_system_folders(p)) {
        snprintf(why, cap,
                 "outside the Windows and Program Files folders (Wine's only "
                 "installed places)");
        return WA_PLACE_ELSEWHERE;
    }
    if (chain_verdict(p, wine, why, cap))
        return WA_PLACE_ELSEWHERE;
    *why = '\0';
    return WA_PLACE_SYSTEM;
}

/* Verdicts of the last paths asked (every window's program is asked of the allow-list),
 * each for PLACE_CACHE_MS. */
static struct {
    wchar_t path[MAX_PATH];
    enum wa_program_place place;
    char why[240];
    int64_t at;
} cache[PLACE_CACHE];
static SRWLOCK cache_lock = SRWLOCK_INIT;
static unsigned cache_next;

enum wa_program_place win_place_of(const wchar_t *path, const char **why)
{
    static __thread char reason[240];
    int64_t now = os_now_ms();
    bool cacheable = wcslen(path) < MAX_PATH;
    AcquireSRWLockExclusive(&cache_lock);
    for (size_t i = 0; cacheable && i < PLACE_CACHE; i++)
        if (cache[i].at && now - cache[i].at < PLACE_CACHE_MS && wcscmp(cache[i].path, path) == 0) {
            enum wa_program_place place = cache[i].place;
            snprintf(reason, sizeof reason, "%s", cache[i].why);
            ReleaseSRWLockExclusive(&cache_lock);
            *why = reason[0] ? reason : NULL;
            return place;
        }
    ReleaseSRWLockExclusive(&cache_lock);
    enum wa_program_place place = judge(path, reason, sizeof reason);
    if (cacheable) {
        AcquireSRWLockExclusive(&cache_lock);
        unsigned i = cache_next++ % PLACE_CACHE;
        wcscpy(cache[i].path, path);
        cache[i].place = place;
        snprintf(cache[i].why, sizeof cache[i].why, "%s", reason);
        cache[i].at = now;
        ReleaseSRWLockExclusive(&cache_lock);
    }
    *why = reason[0] ? reason : NULL;
    return place;
}
