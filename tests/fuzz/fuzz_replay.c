/* trace.jsonl as `--replay` reads it, line by line into each recorded call's request
 * (replay_parse_trace; nothing is performed). */
#include <stdlib.h>

#include "agent/run/replay.h"
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
    replay_parse_trace(text);
    free(text);
    return 0;
}
