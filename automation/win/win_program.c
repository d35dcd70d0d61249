/* What a program file is, read from the file: its PE header (an image at all, console
 * or GUI subsystem) and its version resource's original name. Launch decides on these,
 * not on the name it was given. */
#include <windows.h>
#include <shlobj.h>

#include <stdlib.h>
#include <string.h>

#include "automation/win/win_program.h"
#include "base/win/win_utf8.h"
#include "base/str.h"

#define PE_SUBSYSTEM_OFFSET 68 /* of the optional header, PE32 and PE32+ alike */

/* Reads the DOS and PE headers: an image, and whether its subsystem is the console. */
static void read_pe(const wchar_t *path, struct wa_program_info *out)
{
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return;
    unsigned char buf[1024];
    DWORD got = 0;
    if (ReadFile(h, buf, sizeof buf, &got, NULL) && got >= 64 && buf[0] == 'M' && buf[1] == 'Z') {
        DWORD pe =
            (DWORD)buf[60] | (DWORD)buf[61] << 8 | (DWORD)buf[62] << 16 | (DWORD)buf[63] << 24;
        /* signature (4) + file header (20) + the optional header's subsystem */
        if (pe <= got - 4 && memcmp(buf + pe, "PE\0\0", 4) == 0) {
            out->executable = true;
            DWORD at = pe + 24 + PE_SUBSYSTEM_OFFSET;
            if (at + 2 <= got)
                out->console = (buf[at] | buf[at + 1] << 8) == IMAGE_SUBSYSTEM_WINDOWS_CUI;
        }
    }
    CloseHandle(h);
}

/* OriginalFilename, else InternalName, of the file's first version-resource language. */
static char *original_name(const wchar_t *path)
{
    DWORD ignored = 0, size = GetFileVersionInfoSizeW(path, &ignored);
    if (!size || size > (1u << 20))
        return NULL;
    void *data = malloc(size);
    char *name = NULL;
    struct lang {
        WORD language, codepage;
    } *langs = NULL;
    UINT n = 0;
    if (data && GetFileVersionInfoW(path, 0, size, data) &&
        VerQueryValueW(data, L"\\VarFileInfo\\Translation", (void **)&langs, &n) &&
        n >= sizeof *langs) {
        static const wchar_t *const keys[] = {L"OriginalFilename", L"InternalName"};
        for (size_t i = 0; !name && i < sizeof keys / sizeof keys[0]; i++) {
            wchar_t q[96];
            _snwprintf(q, sizeof q / sizeof q[0], L"\\StringFileInfo\\%04x%04x\\%ls",
                       langs[0].language, langs[0].codepage, keys[i]);
            q[sizeof q / sizeof q[0] - 1] = 0;
            wchar_t *value = NULL;
            UINT len = 0;
            if (VerQueryValueW(data, q, (void **)&value, &len) && len > 1 && value && *value)
                name = win_wide_to_utf8(value);
        }
    }
    free(data);
    return name;
}

/* Whether full (a whole path) lies inside folder (no trailing separator needed). */
static bool inside(const wchar_t *full, const wchar_t *folder)
{
    size_t n = wcslen(folder);
    while (n > 0 && (folder[n - 1] == L'\\' || folder[n - 1] == L'/'))
        n--;
    return n > 0 && _wcsnicmp(full, folder, n) == 0 && (full[n] == L'\\' || full[n] == L'/');
}

/* Where the file lies, its path made whole first: "..", short 8.3 names and relative
 * parts would otherwise pass for a system folder. */
static enum wa_program_place place_of(const wchar_t *path)
{
    wchar_t full[MAX_PATH * 2], longer[MAX_PATH * 2];
    DWORD n = GetFullPathNameW(path, MAX_PATH * 2, full, NULL);
    if (!n || n >= MAX_PATH * 2)
        return WA_PLACE_ELSEWHERE;
    n = GetLongPathNameW(full, longer, MAX_PATH * 2);
    const wchar_t *p = n && n < MAX_PATH * 2 ? longer : full;
    if (_wcsnicmp(p, L"\\\\?\\UNC\\", 8) == 0 ||
        ((p[0] == L'\\' || p[0] == L'/') && (p[1] == L'\\' || p[1] == L'/') && p[2] != L'?' &&
         p[2] != L'.'))
        return WA_PLACE_NETWORK;
    if (_wcsnicmp(p, L"\\\\?\\", 4) == 0)
        p += 4;
    if (!p[0] || p[1] != L':')
        return WA_PLACE_ELSEWHERE;
    wchar_t root[4] = {p[0], L':', L'\\', 0};
    if (GetDriveTypeW(root) == DRIVE_REMOTE)
        return WA_PLACE_NETWORK;
    static const int folders[] = {CSIDL_WINDOWS, CSIDL_PROGRAM_FILES, CSIDL_PROGRAM_FILESX86};
    for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++) {
        wchar_t dir[MAX_PATH];
        if (SUCCEEDED(SHGetFolderPathW(NULL, folders[i], NULL, SHGFP_TYPE_CURRENT, dir)) &&
            inside(p, dir))
            return WA_PLACE_SYSTEM;
    }
    return WA_PLACE_ELSEWHERE;
}

wa_err win_program_info(const char *path, struct wa_program_info *out)
{
    memset(out, 0, sizeof *out);
    wchar_t *w = win_utf8_to_wide(path);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (GetFileAttributesW(w) == INVALID_FILE_ATTRIBUTES) {
        free(w);
        return wa_fail(WA_E_UNSUPPORTED, "no file %s to read", path);
    }
    out->place = place_of(w);
    read_pe(w, out);
    if (out->executable)
        out->original_name = original_name(w);
    free(w);
    return WA_E_OK;
}
