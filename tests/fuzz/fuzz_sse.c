/* Server-sent event streams, cut into pieces anywhere (llm/sse.c). */
#include <string.h>

#include "llm/sse.h"
#include "tests/fuzz/harness.h"

/* Checks what the parser promises of every event: NUL-terminated data of len bytes
 * that the callee may change, a NUL-terminated name. */
static wa_err on_event(void *ctx, const char *event, char *data, size_t len)
{
    size_t *events = ctx;
    if (data[len] != '\0' || strlen(event) > 256)
        __builtin_trap();
    if (len)
        memset(data, 'x', len);
    return ++*events > 100000 ? WA_E_TOO_LARGE : WA_E_OK;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup();
    return 0;
}

/* data[0]: the size of the pieces (1-256) and of the cap (small caps reach the limits). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t piece = 1 + data[0], events = 0;
    struct sse_parser p;
    sse_init(&p, data[0] & 1 ? 64 : 1u << 16, on_event, &events);
    wa_err e = WA_E_OK;
    for (size_t at = 1; at < size && !e; at += piece)
        e = sse_feed(&p, (const char *)data + at, size - at < piece ? size - at : piece);
    if (!e)
        sse_finish(&p);
    sse_cleanup(&p);
    return 0;
}
