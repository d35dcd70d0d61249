/* The parts of base/os.h that are the same on every platform. */
#include <stdlib.h>
#include <string.h>

#include "base/os.h"

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
