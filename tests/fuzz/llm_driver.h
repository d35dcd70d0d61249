/* The model's replies as the client meets them, for every provider's target. */
#ifndef WINAGENT_TESTS_FUZZ_LLM_DRIVER_H
#define WINAGENT_TESTS_FUZZ_LLM_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "llm/provider.h"

/* One input: its first byte picks how the rest arrives (data[0] % 3): 0 a whole 2xx
 * body (parse_body), 1 an event stream cut into pieces of 1 + data[0] / 3 bytes
 * (sse_feed, each event through parse_event as llm/client.c does), 2 an error reply
 * ("RETRY_AFTER\nRETRY_AFTER_MS\nBODY", status 400 + data[0] / 3) for the retry
 * classifier. A reply that assembles has every tool call's arguments read as the loop
 * reads them (wire_request_text). */
void llm_fuzz_one(const struct llm_provider_ops *ops, const uint8_t *data, size_t size);

/* A provider's whole fuzz target: libFuzzer's two entry points over llm_fuzz_one. */
#define LLM_FUZZ_TARGET(ops)                                                                       \
    int LLVMFuzzerInitialize(int *argc, char ***argv)                                              \
    {                                                                                              \
        (void)argc;                                                                                \
        (void)argv;                                                                                \
        fuzz_setup();                                                                              \
        return 0;                                                                                  \
    }                                                                                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                   \
    {                                                                                              \
        llm_fuzz_one(&(ops), data, size);                                                          \
        return 0;                                                                                  \
    }

#endif
