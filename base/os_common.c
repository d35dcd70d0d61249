/* The parts of base/os.h that are the same on every platform. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/os.h"

static atomic_int interrupt_reason; /* 0 none, 1 ctrl-c, 2 stdin closed, 3 requested */

void os_interrupt_mark(int reason)
{
    int expected = 0;
    atomic_compare_exchange_strong(&interrupt_reason, &expected, reason);
}

bool os_interrupt_unmark(int reason)
{
    int expected = reason;
    return atomic_compare_exchange_strong(&interrupt_reason, &expected, 0);
}

bool os_interrupted(void)
{
    return atomic_load(&interrupt_reason) != 0;
}

const char *os_interrupt_reason(void)
{
    switch (atomic_load(&interrupt_reason)) {
    case 1:
        return "ctrl-c";
    case 2:
        return "stdin closed";
    case 3:
        return "requested";
    default:
        return NULL;
    }
}

void os_dir_list_cleanup(struct os_dir_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->count = 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void os_dir_list_sort(struct os_dir_list *l)
{
    if (l->count > 1)
        qsort(l->names, l->count, sizeof *l->names, compare_names);
}

void os_path_native(char *path)
{
#ifdef _WIN32
    for (char *p = path; p && *p; p++)
        if (*p == '/')
            *p = '\\';
#else
    (void)path;
#endif
}
