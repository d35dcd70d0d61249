/* procstat.c - what a running program holds, as Windows counts it, for the load tests.
 *
 *   procstat.exe NAME.exe
 *
 * One JSON line per process of that image name: {"pid", "handles", "threads",
 * "working_set_kb"}: its handles counted in the system's handle table
 * (NtQuerySystemInformation's SystemHandleInformation: Wine 8 answers
 * GetProcessHandleCount with 0), its threads from a Toolhelp snapshot, its working set
 * from GetProcessMemoryInfo. Under Wine these are the wineserver's own counts. Exit code
 * 1 when no such process runs.
 */
#include <windows.h>
#include <psapi.h>
#include <stdlib.h>
#include <stdio.h>
#include <tlhelp32.h>
#include <wchar.h>

/* SystemHandleInformation (16), as ntdll returns it. */
struct handle_entry {
    USHORT pid, creator_back_trace_index;
    UCHAR object_type, flags;
    USHORT handle;
    void *object;
    ACCESS_MASK access;
};
struct handle_table {
    ULONG count;
    struct handle_entry handles[1];
};
typedef LONG(WINAPI *query_system_fn)(int, void *, ULONG, ULONG *);

/* The handles of process pid in the system's table; 0 when it cannot be read. */
static unsigned long count_handles(DWORD pid)
{
    query_system_fn query = (query_system_fn)(void *)GetProcAddress(GetModuleHandleW(L"ntdll.dll"),
                                                                    "NtQuerySystemInformation");
    ULONG size = 1 << 20, got = 0;
    unsigned long n = 0;
    for (int tries = 0; query && tries < 8; tries++, size *= 2) {
        struct handle_table *t = malloc(size);
        if (!t)
            break;
        LONG status = query(16, t, size, &got);
        if (status == 0) {
            for (ULONG i = 0; i < t->count; i++)
                n += t->handles[i].pid == (USHORT)pid;
            free(t);
            break;
        }
        free(t);
        if (status != (LONG)0xC0000004) /* STATUS_INFO_LENGTH_MISMATCH: more room */
            break;
    }
    return n;
}

int wmain(int argc, wchar_t **argv)
{
    if (argc != 2) {
        fwprintf(stderr, L"usage: procstat.exe NAME.exe\n");
        return 2;
    }
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return 1;
    PROCESSENTRY32W pe = {.dwSize = sizeof pe};
    int found = 0;
    for (BOOL more = Process32FirstW(snap, &pe); more; more = Process32NextW(snap, &pe)) {
        if (_wcsicmp(pe.szExeFile, argv[1]) != 0)
            continue;
        HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE,
                               pe.th32ProcessID);
        PROCESS_MEMORY_COUNTERS mem = {.cb = sizeof mem};
        if (p) {
            GetProcessMemoryInfo(p, &mem, sizeof mem);
            CloseHandle(p);
        }
        printf("{\"pid\":%lu,\"handles\":%lu,\"threads\":%lu,\"working_set_kb\":%llu}\n",
               (unsigned long)pe.th32ProcessID, count_handles(pe.th32ProcessID),
               (unsigned long)pe.cntThreads, (unsigned long long)(mem.WorkingSetSize / 1024));
        found++;
    }
    CloseHandle(snap);
    return found ? 0 : 1;
}
