/* `serve --port` lines: serve_handle, the token required, on the fake desktop. */
#include <cjson/cJSON.h>

#include "agent/front/serve.h"
#include "tests/fuzz/harness.h"

static struct session *ses;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct session_opts so;
    session_opts_default(&so);
    so.front = "serve";
    so.refs = true;
    so.settle_ms = 150;
    if (session_new(fuzz_core(), &so, &ses))
        __builtin_trap();
    fuzz_freeze_time();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *o = serve_handle(ses, (const char *)data, size, "fuzz-token", "fallback");
    /* every answer has the envelope */
    if (!cJSON_IsObject(o) || !cJSON_GetObjectItemCaseSensitive(o, "id") ||
        !cJSON_GetObjectItemCaseSensitive(o, "timestamp"))
        __builtin_trap();
    cJSON_Delete(o);
    return 0;
}
