/* The provider-neutral conversation: messages, their copies and their cleanup. */
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"

#include <cjson/cJSON.h>

#include "llm/text.h"
#include "base/str.h"

static void clear_image(struct llm_image *im)
{
    free(im->mime);
    free(im->base64);
    im->mime = im->base64 = NULL;
}

static void call_cleanup(struct llm_tool_call *c)
{
    free(c->id);
    free(c->name);
    free(c->arguments);
    cJSON_Delete(c->parsed);
    free(c->thought_signature);
    free(c->toolset);
    memset(c, 0, sizeof *c);
}

static void images_free(struct llm_image *images, size_t n)
{
    for (size_t i = 0; i < n; i++)
        clear_image(&images[i]);
    free(images);
}

static void message_cleanup(struct llm_message *m)
{
    free(m->text);
    images_free(m->images, m->n_images);
    for (size_t i = 0; i < m->n_calls; i++)
        call_cleanup(&m->calls[i]);
    free(m->calls);
    free(m->tool_call_id);
    free(m->tool_name);
    free(m->thought_signature);
    free(m->after_calls);
    free(m->verbatim);
    memset(m, 0, sizeof *m);
}

static wa_err nomem(void)
{
    return wa_fail(WA_E_NOMEM, "out of memory copying a conversation message");
}

/* Copies n images; *out is NULL for none. */
static wa_err images_copy(const struct llm_image *src, size_t n, struct llm_image **out)
{
    *out = NULL;
    if (!n)
        return WA_E_OK;
    struct llm_image *dst = calloc(n, sizeof *dst);
    if (!dst)
        return nomem();
    for (size_t i = 0; i < n; i++) {
        dst[i].mime = text_strdup(src[i].mime ? src[i].mime : "image/png");
        dst[i].base64 = text_strdup(src[i].base64 ? src[i].base64 : "");
        if (!dst[i].mime || !dst[i].base64) {
            images_free(dst, n);
            return nomem();
        }
    }
    *out = dst;
    return WA_E_OK;
}

static wa_err call_copy(const struct llm_tool_call *src, struct llm_tool_call *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->id = text_strdup(src->id ? src->id : "");
    dst->name = text_strdup(src->name ? src->name : "");
    dst->arguments = text_strdup(src->arguments ? src->arguments : "{}");
    dst->thought_signature = text_strdup(src->thought_signature);
    dst->toolset = text_strdup(src->toolset);
    dst->id_synthetic = src->id_synthetic;
    /* the parse travels with the call: a copy, not a second parse */
    dst->parsed = src->parsed                        ? cJSON_Duplicate(src->parsed, true)
                  : src->arguments && dst->arguments ? llm_parse_arguments(dst->arguments)
                                                     : NULL;
    dst->coords = src->coords;
    if (!dst->id || !dst->name || !dst->arguments ||
        (src->thought_signature && !dst->thought_signature) || (src->toolset && !dst->toolset)) {
        call_cleanup(dst);
        return nomem();
    }
    return WA_E_OK;
}

struct cJSON *llm_parse_arguments(const char *arguments)
{
    cJSON *j = cJSON_Parse(arguments ? arguments : "");
    if (j && !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

void llm_conversation_init(struct llm_conversation *c)
{
    memset(c, 0, sizeof *c);
}

void llm_conversation_cleanup(struct llm_conversation *c)
{
    for (size_t i = 0; i < c->n_messages; i++)
        message_cleanup(&c->messages[i]);
    free(c->messages);
    free(c->system);
    memset(c, 0, sizeof *c);
}

wa_err llm_conversation_set_system(struct llm_conversation *c, const char *text)
{
    return text_set_str(&c->system, text);
}

/* A zeroed message at the end, or NULL when out of memory. */
static struct llm_message *push(struct llm_conversation *c)
{
    if (c->n_messages == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct llm_message *p = wa_reallocarray(c->messages, cap, sizeof *p);
        if (!p)
            return NULL;
        c->messages = p;
        c->cap = cap;
    }
    struct llm_message *m = &c->messages[c->n_messages];
    memset(m, 0, sizeof *m);
    return m;
}

wa_err llm_conversation_add_user(struct llm_conversation *c, const char *text,
                                 const struct llm_image *images, size_t n_images)
{
    struct llm_message *m = push(c);
    if (!m)
        return nomem();
    m->role = LLM_ROLE_USER;
    if ((text && !(m->text = text_strdup(text))) ||
        images_copy(images, images ? n_images : 0, &m->images)) {
        message_cleanup(m);
        return nomem();
    }
    m->n_images = m->images ? n_images : 0;
    c->n_messages++;
    return WA_E_OK;
}

wa_err llm_conversation_add_reply(struct llm_conversation *c, const struct llm_reply *r)
{
    struct llm_message *m = push(c);
    if (!m)
        return nomem();
    m->role = LLM_ROLE_ASSISTANT;
    /* calls written as text go back as written: the model reads its own words */
    const char *text = r->calls_from_text && r->written ? r->written : r->text;
    m->calls_as_text = r->calls_from_text;
    if ((text && !(m->text = text_strdup(text))) ||
        (r->thought_signature && !(m->thought_signature = text_strdup(r->thought_signature))))
        goto fail;
    /* the written text keeps its own order */
    if (!r->calls_from_text && r->after_calls && !(m->after_calls = text_strdup(r->after_calls)))
        goto fail;
    /* what the service wants back goes back as it came */
    if (r->verbatim && !(m->verbatim = text_strdup(r->verbatim)))
        goto fail;
    m->verbatim_wire = m->verbatim ? r->verbatim_wire : NULL;
    if (r->n_calls) {
        if (!(m->calls = calloc(r->n_calls, sizeof *m->calls)))
            goto fail;
        for (size_t i = 0; i < r->n_calls; i++) {
            if (call_copy(&r->calls[i], &m->calls[i]))
                goto fail;
            m->n_calls = i + 1;
        }
    }
    c->n_messages++;
    return WA_E_OK;
fail:
    message_cleanup(m);
    return nomem();
}

wa_err llm_conversation_add_tool_result(struct llm_conversation *c, const char *call_id,
                                        const char *name, const char *text,
                                        const struct llm_image *image)
{
    if (!call_id || !call_id[0])
        return wa_fail(WA_E_INVALID_ARGS, "a tool result needs the id of its call");
    struct llm_message *m = push(c);
    if (!m)
        return nomem();
    m->role = LLM_ROLE_TOOL;
    m->tool_call_id = text_strdup(call_id);
    m->tool_name = text_strdup(name ? name : "");
    if (!m->tool_call_id || !m->tool_name || (text && !(m->text = text_strdup(text))) ||
        images_copy(image, image ? 1 : 0, &m->images)) {
        message_cleanup(m);
        return nomem();
    }
    m->n_images = m->images ? 1 : 0;
    c->n_messages++;
    return WA_E_OK;
}

wa_err llm_conversation_add_computer_result(struct llm_conversation *c, const char *call_id,
                                            const char *name, const char *text,
                                            const struct llm_image *image, bool acknowledged)
{
    wa_err e = llm_conversation_add_tool_result(c, call_id, name, text, image);
    if (e)
        return e;
    c->messages[c->n_messages - 1].computer = true;
    c->messages[c->n_messages - 1].safety_acknowledged = acknowledged;
    return WA_E_OK;
}

bool llm_conversation_mark_failed(struct llm_conversation *c)
{
    if (!c->n_messages || c->messages[c->n_messages - 1].role != LLM_ROLE_TOOL)
        return false;
    c->messages[c->n_messages - 1].failed = true;
    return true;
}

wa_err llm_message_replace_content(struct llm_message *m, const char *text)
{
    wa_err e = text_set_str(&m->text, text);
    if (e)
        return e;
    free(m->after_calls); /* the new text is all one piece */
    m->after_calls = NULL;
    images_free(m->images, m->n_images);
    m->images = NULL;
    m->n_images = 0;
    return WA_E_OK;
}

void llm_reply_cleanup(struct llm_reply *r)
{
    if (!r)
        return;
    free(r->text);
    free(r->reasoning);
    for (size_t i = 0; i < r->n_calls; i++)
        call_cleanup(&r->calls[i]);
    free(r->calls);
    free(r->finish_reason);
    free(r->thought_signature);
    free(r->text_call_error);
    free(r->written);
    free(r->after_calls);
    free(r->verbatim);
    memset(r, 0, sizeof *r);
}
