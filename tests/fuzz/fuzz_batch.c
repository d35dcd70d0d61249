/* `winagent batch` task lines, and results.jsonl as --resume reads it: the input is a
 * tasks file, optionally followed by a line "--" and a results.jsonl text
 * (batch_check_tasks). */
#include <stdlib.h>
#include <string.h>

#include "agent/run/batch.h"
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
    char *results = strstr(text, "\n--\n");
    if (results) {
        *results = '\0';
        results += 4;
    }
    size_t n;
    batch_check_tasks(text, results, &n);
    free(text);
    return 0;
}
