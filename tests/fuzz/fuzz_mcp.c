/* MCP lines (JSON-RPC 2.0 messages and batches) as `winagent mcp` reads them on stdin:
 * mcp_handle_message on a fresh server per input, one call per line, on the fake
 * desktop. Every reply must be one line of JSON. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/mcp/mcp.h"
#include "tests/fuzz/harness.h"

static void sink(void *ctx, const char *json, size_t len)
{
    (void)ctx;
    (void)json;
    (void)len;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_core();
    fuzz_freeze_time();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mcp_server *s;
    if (mcp_server_new(fuzz_core(), &s))
        return 0;
    mcp_server_set_image_limits(s, 64 << 10, 200);
    struct mcp_sink k = {sink, NULL};
    mcp_server_set_sink(s, &k);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct dynbuf out;
        dynbuf_init(&out, 16u << 20);
        if (mcp_handle_message(s, p, n, &out, &k) == WA_E_OK && out.len) {
            /* a reply is one JSON text on one line */
            cJSON *reply = cJSON_ParseWithLength(out.data, out.len);
            if (!reply || memchr(out.data, '\n', out.len))
                __builtin_trap();
            cJSON_Delete(reply);
        }
        dynbuf_cleanup(&out);
        p += n + (nl != NULL);
    }
    mcp_server_free(s);
    return 0;
}
