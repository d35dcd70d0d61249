/* `winagent batch` task lines, and results.jsonl as --resume, the tally and the JUnit file
 * read it: the input is a tasks file, optionally after a first line "#shard I/N attempts K"
 * and followed by a line "--" and a results.jsonl text (batch_check_tasks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/batch/batch.h"
#include "tests/fuzz/harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    struct dynbuf junit;
    dynbuf_init(&junit, 1u << 20);
    struct batch_check_opts o = {.junit = &junit};
    char *tasks = text;
    if (strncmp(text, "#shard ", 7) == 0) {
        /* out-of-range values are the caller's to refuse: keep them in range here */
        int i = 0, n = 0, k = 0;
        sscanf(text + 7, "%3d/%3d attempts %3d", &i, &n, &k);
        o.shard_n = n >= 1 && n <= 1000 ? n : 0;
        o.shard_i = o.shard_n && i >= 1 && i <= n ? i : o.shard_n ? 1 : 0;
        o.attempts = k >= 1 && k <= 100 ? k : 1;
        char *nl = strchr(text, '\n');
        tasks = nl ? nl + 1 : text + strlen(text);
    }
    char *results = strstr(tasks, "\n--\n");
    if (results) {
        *results = '\0';
        results += 4;
    }
    struct batch_check out;
    if (batch_check_tasks(tasks, results, &o, &out) == WA_E_OK && out.done > out.tasks)
        abort(); /* more tasks kept than there are */
    dynbuf_cleanup(&junit);
    free(text);
    return 0;
}
