/* Pieces both providers share: the wire request, URL joining, finding tool results. */
#include "llm/provider.h"
#include "llm/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynbuf.h"

void llm_wire_cleanup(struct llm_wire *w)
{
    free(w->url);
    for (size_t i = 0; i < w->n_headers; i++)
        free(w->headers[i]);
    free(w->body);
    memset(w, 0, sizeof *w);
}

wa_err llm_wire_add_header(struct llm_wire *w, const char *fmt, ...)
{
    if (w->n_headers == LLM_WIRE_MAX_HEADERS)
        return wa_fail(WA_E_INVALID_ARGS, "too many request headers");
    struct dynbuf b;
    dynbuf_init(&b, 64 * 1024);
    va_list ap;
    va_start(ap, fmt);
    wa_err e = dynbuf_vaddf(&b, fmt, ap);
    va_end(ap);
    if (e) {
        dynbuf_cleanup(&b);
        return e;
    }
    if (!(w->headers[w->n_headers] = dynbuf_take(&b)))
        return wa_fail(WA_E_NOMEM, "out of memory");
    w->n_headers++;
    return WA_E_OK;
}

char *llm_url_join(const char *base, const char *path, const char *extra_query)
{
    const char *q = strchr(base, '?');
    size_t blen = q ? (size_t)(q - base) : strlen(base);
    while (blen && base[blen - 1] == '/')
        blen--;
    size_t plen = strlen(path);
    struct dynbuf b;
    dynbuf_init(&b, 64 * 1024);
    wa_err e = dynbuf_add(&b, base, blen);
    if (!e && !(blen >= plen && memcmp(base + blen - plen, path, plen) == 0))
        e = dynbuf_adds(&b, path);
    if (!e && q && q[1])
        e = dynbuf_adds(&b, q);
    if (!e && extra_query && extra_query[0])
        e = dynbuf_addf(&b, "%c%s", q && q[1] ? '&' : '?', extra_query);
    if (e) {
        dynbuf_cleanup(&b);
        return NULL;
    }
    return dynbuf_take(&b);
}

const struct llm_message *llm_find_result(const struct llm_conversation *conv, size_t i,
                                          const char *call_id)
{
    for (size_t j = i + 1; j < conv->n_messages && conv->messages[j].role == LLM_ROLE_TOOL; j++) {
        const struct llm_message *m = &conv->messages[j];
        if (m->tool_call_id && call_id && strcmp(m->tool_call_id, call_id) == 0)
            return m;
    }
    return NULL;
}

char *llm_orphan_result_text(const struct llm_message *m)
{
    const char *name = m->tool_name ? m->tool_name : "tool";
    const char *text = m->text ? m->text : "";
    size_t n = strlen(name) + strlen(text) + 16;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "Result of %s: %s", name, text);
    return out;
}

long llm_json_long(const cJSON *v, long lo, long hi, long def)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)lo && v->valuedouble <= (double)hi))
        return def; /* NaN fails both comparisons */
    return (long)v->valuedouble;
}

wa_err llm_set_json_str(char **dst, const cJSON *v)
{
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return WA_E_OK;
    return llm_set_str(dst, v->valuestring);
}

wa_err llm_not_json(const char *what, const char *data, size_t len)
{
    char snip[160];
    llm_snippet(snip, sizeof snip, data, len, 120);
    return wa_fail(WA_E_PARSE, "%s is not valid JSON: %s", what, snip);
}
