/* Anthropic Messages replies (whole, streamed, errors) and their tool arguments. */
#include "tests/fuzz/harness.h"
#include "tests/fuzz/llm_driver.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    llm_fuzz_one(&llm_anthropic_ops, data, size);
    return 0;
}
