/* Reply assembly: capped text buffers, tool calls by index, made-up ids. */
#include "llm/assemble.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/text.h"
#include "base/str.h"

void asm_ids_init(struct llm_ids *ids, uint32_t seed)
{
    ids->next = 1;
    ids->rng = seed ? seed : 0x9E3779B9u;
}

uint32_t asm_ids_random(struct llm_ids *ids)
{
    uint32_t x = ids->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    ids->rng = x;
    return x;
}

void asm_ids_make(struct llm_ids *ids, char *out, size_t outsz)
{
    unsigned long n = ids->next++;
    snprintf(out, outsz, "call_%lu_%08x", n, (unsigned)asm_ids_random(ids));
}

void asm_init(struct reply_asm *a, size_t max, struct llm_ids *ids, llm_delta_fn on_delta,
              void *ctx)
{
    memset(a, 0, sizeof *a);
    a->max = max;
    dynbuf_init(&a->text, max);
    dynbuf_init(&a->reasoning, max);
    a->on_delta = on_delta;
    a->ctx = ctx;
    a->ids = ids;
}

static void asm_call_cleanup(struct asm_call *c)
{
    free(c->id);
    free(c->name);
    free(c->thought_signature);
    free(c->toolset);
    dynbuf_cleanup(&c->args);
}

void asm_blocks_clear(struct reply_asm *a)
{
    for (size_t i = 0; i < a->n_blocks; i++) {
        cJSON_Delete(a->blocks[i].block);
        for (int g = 0; g < a->blocks[i].n_grow; g++)
            dynbuf_cleanup(&a->blocks[i].grow[g].buf);
    }
    a->n_blocks = 0;
}

void asm_cleanup(struct reply_asm *a)
{
    dynbuf_cleanup(&a->text);
    dynbuf_cleanup(&a->reasoning);
    for (size_t i = 0; i < a->n_calls; i++)
        asm_call_cleanup(&a->calls[i]);
    free(a->calls);
    asm_blocks_clear(a);
    free(a->blocks);
    a->blocks = NULL;
    a->cap_blocks = 0;
    free(a->finish_reason);
    free(a->finish_message);
    free(a->thought_signature);
    a->calls = NULL;
    a->n_calls = a->cap_calls = 0;
    a->finish_reason = a->finish_message = a->thought_signature = NULL;
}

wa_err asm_add_text(struct reply_asm *a, const char *s, size_t n, bool reasoning)
{
    if (!n)
        return WA_E_OK;
    wa_err e = dynbuf_add(reasoning ? &a->reasoning : &a->text, s, n);
    if (e == WA_E_TOO_LARGE)
        return wa_fail(e, "reply %s exceeds the %zu-byte limit", reasoning ? "reasoning" : "text",
                       a->max);
    if (e)
        return e;
    if (a->on_delta) {
        char *piece = text_strndup(s, n);
        if (!piece)
            return wa_fail(WA_E_NOMEM, "out of memory");
        a->on_delta(a->ctx, piece, reasoning);
        free(piece);
    }
    return WA_E_OK;
}

wa_err asm_new_call(struct reply_asm *a, struct asm_call **out)
{
    *out = NULL;
    if (a->n_calls == a->cap_calls) {
        size_t cap = a->cap_calls ? a->cap_calls * 2 : 4;
        if (cap > 4096)
            return wa_fail(WA_E_TOO_LARGE, "reply has more than 4096 tool calls");
        struct asm_call *p = wa_reallocarray(a->calls, cap, sizeof *p);
        if (!p)
            return wa_fail(WA_E_NOMEM, "out of memory");
        a->calls = p;
        a->cap_calls = cap;
    }
    struct asm_call *c = &a->calls[a->n_calls++];
    memset(c, 0, sizeof *c);
    a->text_at_call = a->text.len;
    c->index = -1;
    dynbuf_init(&c->args, a->max);
    *out = c;
    return WA_E_OK;
}

struct asm_call *asm_call_at(struct reply_asm *a, long index)
{
    for (size_t i = a->n_calls; i-- > 0;)
        if (a->calls[i].index == index)
            return &a->calls[i];
    return NULL;
}

wa_err asm_call_add_args(struct reply_asm *a, struct asm_call *c, const char *s, size_t n)
{
    wa_err e = dynbuf_add(&c->args, s, n);
    if (e == WA_E_TOO_LARGE)
        return wa_fail(e, "tool-call arguments exceed the %zu-byte limit", a->max);
    return e;
}

wa_err asm_block_add(struct reply_asm *a, long index, const cJSON *block)
{
    if (!cJSON_IsObject(block))
        return WA_E_OK;
    if (a->n_blocks == a->cap_blocks) {
        size_t cap = a->cap_blocks ? a->cap_blocks * 2 : 8;
        if (cap > 8192)
            return wa_fail(WA_E_TOO_LARGE, "reply has more than 8192 blocks");
        struct asm_block *p = wa_reallocarray(a->blocks, cap, sizeof *p);
        if (!p)
            return wa_fail(WA_E_NOMEM, "out of memory");
        a->blocks = p;
        a->cap_blocks = cap;
    }
    struct asm_block *b = &a->blocks[a->n_blocks];
    memset(b, 0, sizeof *b);
    b->index = index;
    if (!(b->block = cJSON_Duplicate(block, true)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    a->n_blocks++;
    return WA_E_OK;
}

struct asm_block *asm_block_at(struct reply_asm *a, long index)
{
    for (size_t i = a->n_blocks; i-- > 0;)
        if (a->blocks[i].index == index)
            return &a->blocks[i];
    return NULL;
}

wa_err asm_block_grow(struct reply_asm *a, long index, const char *key, bool json, const char *s,
                      size_t n)
{
    struct asm_block *b = asm_block_at(a, index);
    if (!b)
        return WA_E_OK;
    struct asm_grow *g = NULL;
    for (int i = 0; i < b->n_grow && !g; i++)
        if (strcmp(b->grow[i].key, key) == 0)
            g = &b->grow[i];
    if (!g) {
        if (b->n_grow == (int)(sizeof b->grow / sizeof b->grow[0]))
            return wa_fail(WA_E_PARSE, "a streamed block grows too many members");
        g = &b->grow[b->n_grow++];
        snprintf(g->key, sizeof g->key, "%s", key);
        g->json = json;
        dynbuf_init(&g->buf, a->max);
        /* a string grows from what the block started with */
        const cJSON *start = cJSON_GetObjectItemCaseSensitive(b->block, key);
        if (!json && cJSON_IsString(start) && start->valuestring[0] &&
            dynbuf_adds(&g->buf, start->valuestring))
            return wa_fail(WA_E_NOMEM, "out of memory");
    }
    wa_err e = dynbuf_add(&g->buf, s, n);
    if (e == WA_E_TOO_LARGE)
        return wa_fail(e, "a streamed block exceeds the %zu-byte limit", a->max);
    return e;
}

/* The blocks kept as one JSON array's text (NULL when none were kept): each with what its
 * deltas grew. */
static wa_err blocks_text(struct reply_asm *a, char **out)
{
    *out = NULL;
    if (!a->verbatim_wire || !a->n_blocks)
        return WA_E_OK;
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < a->n_blocks; i++) {
        struct asm_block *b = &a->blocks[i];
        for (int g = 0; g < b->n_grow; g++) {
            struct asm_grow *gr = &b->grow[g];
            cJSON *v = NULL;
            if (gr->json) {
                v = gr->buf.len ? cJSON_ParseWithLength(gr->buf.data, gr->buf.len) : NULL;
                if (gr->buf.len && !cJSON_IsObject(v)) {
                    cJSON_Delete(v);
                    v = cJSON_CreateObject(); /* malformed input: as a call's {} */
                }
            } else {
                v = cJSON_CreateString(dynbuf_str(&gr->buf));
            }
            if (v && !cJSON_ReplaceItemInObjectCaseSensitive(b->block, gr->key, v) &&
                !cJSON_AddItemToObject(b->block, gr->key, v))
                cJSON_Delete(v);
        }
        cJSON_AddItemToArray(list, b->block);
        b->block = NULL;
    }
    char *text = list ? cJSON_PrintUnformatted(list) : NULL;
    cJSON_Delete(list);
    asm_blocks_clear(a);
    if (!text)
        return wa_fail(WA_E_NOMEM, "out of memory");
    *out = text;
    return WA_E_OK;
}

bool asm_has_content(const struct reply_asm *a)
{
    return a->text.len > 0 || a->n_calls > 0;
}

static bool only_space(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

static bool id_seen(const struct llm_tool_call *calls, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (calls[i].id && strcmp(calls[i].id, id) == 0)
            return true;
    return false;
}

wa_err asm_take_reply(struct reply_asm *a, struct llm_reply *out)
{
    if (a->n_calls) {
        out->calls = calloc(a->n_calls, sizeof *out->calls);
        if (!out->calls)
            return wa_fail(WA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < a->n_calls; i++) {
        struct asm_call *c = &a->calls[i];
        struct llm_tool_call *t = &out->calls[i];
        out->n_calls = i + 1;
        if (c->id && c->id[0] && !id_seen(out->calls, i, c->id)) {
            t->id = c->id;
            c->id = NULL;
        } else {
            char buf[40];
            asm_ids_make(a->ids, buf, sizeof buf);
            t->id = text_strdup(buf);
            t->id_synthetic = true;
        }
        t->name = c->name ? c->name : text_strdup("");
        c->name = NULL;
        if (only_space(dynbuf_str(&c->args), c->args.len))
            t->arguments = text_strdup("{}");
        else
            t->arguments = dynbuf_take(&c->args);
        t->thought_signature = c->thought_signature;
        c->thought_signature = NULL;
        t->toolset = c->toolset;
        c->toolset = NULL;
        if (!t->id || !t->name || !t->arguments)
            return wa_fail(WA_E_NOMEM, "out of memory");
        t->parsed = llm_parse_arguments(t->arguments);
    }
    size_t at = a->text_at_call;
    if (a->ordered && a->n_calls && a->text.len > at &&
        !only_space(a->text.data + at, a->text.len - at) &&
        !(out->after_calls = text_strndup(a->text.data + at, a->text.len - at)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (a->text.len && !(out->text = dynbuf_take(&a->text)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    if (a->reasoning.len && !(out->reasoning = dynbuf_take(&a->reasoning)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    out->finish_reason = a->finish_reason;
    a->finish_reason = NULL;
    out->thought_signature = a->thought_signature;
    a->thought_signature = NULL;
    out->usage = a->usage;
    wa_err e = blocks_text(a, &out->verbatim);
    if (e)
        return e;
    out->verbatim_wire = out->verbatim ? a->verbatim_wire : NULL;
    if (!out->usage.total_tokens)
        out->usage.total_tokens = out->usage.prompt_tokens + out->usage.completion_tokens;
    return WA_E_OK;
}
