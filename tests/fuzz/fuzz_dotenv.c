/* .env files: dotenv_parse, and every key it keeps can be looked up again. */
#include <stdlib.h>

#include "agent/core/config/dotenv.h"
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
    struct dotenv d;
    dotenv_init(&d);
    dotenv_parse(&d, text);
    for (size_t i = 0; i < d.count; i++)
        if (!d.items[i].key[0] || dotenv_get(&d, d.items[i].key) != d.items[i].value)
            __builtin_trap();
    dotenv_cleanup(&d);
    free(text);
    return 0;
}
