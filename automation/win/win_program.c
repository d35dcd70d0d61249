/* What a program file is, read from the file: where it lies (win_place.c), its PE
 * header (an image at all, console or GUI subsystem) and its version resource's
 * original name. Launch decides on these, not on the name it was given. */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/win_program.h"
#include "automation/win/win_place.h"
#include "base/win/win_utf8.h"
#include "base/str.h"

#define PE_SUBSYSTEM_OFFSET 68 /* of the optional header, PE32 and PE32+ alike */

/* The DOS and PE headers of an open file (read from its start): an image, and whether
 * its subsystem is the console. */
static void read_pe_handle(HANDLE h, struct wa_program_info *out)
{
    unsigned char buf[1024];
    DWORD got = 0;
    LARGE_INTEGER zero = {0};
    if (!SetFilePointerEx(h, zero, NULL, FILE_BEGIN))
        return;
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
}

HANDLE win_program_open(const wchar_t *path, bool *image)
{
    *image = false;
    /* no FILE_SHARE_WRITE or _DELETE: while it is held, the file is what was read */
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return NULL;
    struct wa_program_info info = {0};
    read_pe_handle(h, &info);
    *image = info.executable;
    return h;
}

bool win_program_is_image(const wchar_t *path)
{
    bool image = false;
    HANDLE h = win_program_open(path, &image);
    if (h)
        CloseHandle(h);
    return image;
}

/* Reads the DOS and PE headers of the file at path. */
static void read_pe(const wchar_t *path, struct wa_program_info *out)
{
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return;
    read_pe_handle(h, out);
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

wa_err win_program_place(const char *path, struct wa_program_info *out)
{
    memset(out, 0, sizeof *out);
    wchar_t *w = win_utf8_to_wide(path);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    const char *why = NULL;
    out->place = win_place_of(w, &why);
    snprintf(out->place_why, sizeof out->place_why, "%s", why ? why : "");
    free(w);
    return WA_E_OK;
}

wa_err win_program_info(const char *path, struct wa_program_info *out)
{
    /* a share is known before anything is opened */
    wa_err e = win_program_place(path, out);
    if (e || out->place == WA_PLACE_NETWORK)
        return e;
    wchar_t *w = win_utf8_to_wide(path);
    if (!w)
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (GetFileAttributesW(w) == INVALID_FILE_ATTRIBUTES) {
        free(w);
        return wa_fail(WA_E_UNSUPPORTED, "no file %s to read", path);
    }
    read_pe(w, out);
    if (out->executable)
        out->original_name = original_name(w);
    free(w);
    return WA_E_OK;
}
