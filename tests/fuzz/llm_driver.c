/* The model's replies, bytes in, through the provider's parser and the loop's tool
 * argument parser. */
#include "tests/fuzz/llm_driver.h"

#include <stdlib.h>
#include <string.h>

#include "agent/core/request/ops.h"
#include "agent/core/request/wire.h"
#include "llm/retry.h"
#include "llm/sse.h"
#include "llm/text.h"
#include "tests/fuzz/harness.h"

#define MAX_BYTES (64u << 10) /* small, so that the size caps are reached too */
#define API_KEY   "sk-fuzz-key"

struct stream {
    const struct llm_provider_ops *ops;
    struct reply_asm *a;
};

/* As llm/client.c's on_event: the key scrubbed, then the provider's parser. */
static wa_err on_event(void *ctx, const char *event, char *data, size_t len)
{
    struct stream *s = ctx;
    (void)event;
    text_redact(data, len + 1, API_KEY);
    return s->ops->parse_event(s->a, data, strlen(data));
}

/* As the loop's tool_request: the desktop tool or the shell. */
static void read_arguments(const struct llm_tool_call *call)
{
    struct op_request q;
    if (call->name && strcmp(call->name, "desktop") == 0)
        wire_request_text(call->arguments, WIRE_MODEL, NULL, &q);
    else
        wire_request_text(call->arguments, WIRE_MODEL, op_def(OP_SHELL), &q);
    op_request_cleanup(&q);
}

static void classify_error(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data + 1, size - 1);
    if (!text)
        return;
    char *retry_after = text, *retry_after_ms = NULL, *body = NULL;
    char *nl = strchr(text, '\n');
    if (nl) {
        *nl = '\0';
        retry_after_ms = nl + 1;
        if ((nl = strchr(retry_after_ms, '\n'))) {
            *nl = '\0';
            body = nl + 1;
        }
    }
    struct retry_verdict v;
    retry_classify_http(400 + data[0] / 3, body ? body : "", body ? strlen(body) : 0, retry_after,
                        retry_after_ms, 1764000000000, &v);
    free(text);
}

void llm_fuzz_one(const struct llm_provider_ops *ops, const uint8_t *data, size_t size)
{
    if (size < 1)
        return;
    int mode = data[0] % 3;
    if (mode == 2) {
        classify_error(data, size);
        return;
    }
    struct llm_ids ids;
    asm_ids_init(&ids, 1);
    struct reply_asm a;
    asm_init(&a, MAX_BYTES, &ids, NULL, NULL);
    a.ordered = ops->ordered; /* as the client does: text after the calls is told apart */
    wa_err e;
    if (mode == 0) {
        /* the client hands the body over NUL-terminated, scrubbed of the key */
        char *body = fuzz_text(data + 1, size - 1);
        if (!body) {
            asm_cleanup(&a);
            return;
        }
        text_redact(body, size, API_KEY);
        e = ops->parse_body(&a, body, strlen(body));
        free(body);
    } else {
        struct stream s = {ops, &a};
        struct sse_parser p;
        sse_init(&p, MAX_BYTES, on_event, &s);
        size_t piece = 1 + data[0] / 3;
        e = WA_E_OK;
        for (size_t at = 1; at < size && !e; at += piece)
            e = sse_feed(&p, (const char *)data + at, size - at < piece ? size - at : piece);
        if (!e)
            e = sse_finish(&p);
        sse_cleanup(&p);
    }
    if (!e)
        e = ops->finish(&a, mode == 1);
    struct llm_reply reply;
    memset(&reply, 0, sizeof reply);
    if (!e && asm_take_reply(&a, &reply) == WA_E_OK)
        for (size_t i = 0; i < reply.n_calls; i++)
            read_arguments(&reply.calls[i]);
    llm_reply_cleanup(&reply);
    asm_cleanup(&a);
}
