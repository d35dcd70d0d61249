/* .env parsing: the forgiving subset of shell syntax people write by hand. */
#include "agent/core/config/dotenv.h"

#include <stdlib.h>
#include <string.h>

#include "base/dynbuf.h"
#include "base/os.h"
#include "base/str.h"

void dotenv_init(struct dotenv *d)
{
    memset(d, 0, sizeof *d);
}

void dotenv_cleanup(struct dotenv *d)
{
    for (size_t i = 0; i < d->count; i++) {
        free(d->items[i].key);
        free(d->items[i].value);
    }
    free(d->items);
    free(d->path);
    dotenv_init(d);
}

static wa_err put(struct dotenv *d, char *key, char *value)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].key, key) == 0) {
            free(d->items[i].value);
            free(key);
            d->items[i].value = value;
            return WA_E_OK;
        }
    struct dotenv_entry *p = wa_reallocarray(d->items, d->count + 1, sizeof *p);
    if (!p) {
        free(key);
        free(value);
        return wa_fail(WA_E_NOMEM, "out of memory");
    }
    d->items = p;
    d->items[d->count].key = key;
    d->items[d->count].value = value;
    d->count++;
    return WA_E_OK;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* Parses the value starting at p (line ends at end); returns a heap string. */
static char *parse_value(const char *p, const char *end)
{
    while (p < end && is_space(*p))
        p++;
    struct dynbuf b;
    dynbuf_init(&b, 1 << 20);
    if (p < end && (*p == '"' || *p == '\'')) {
        char q = *p++;
        while (p < end && *p != q) {
            if (q == '"' && *p == '\\' && p + 1 < end) {
                p++;
                char c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
                dynbuf_addc(&b, c);
            } else {
                dynbuf_addc(&b, *p);
            }
            p++;
        }
        return dynbuf_take(&b);
    }
    const char *stop = p;
    while (stop < end && !(*stop == '#' && (stop == p || is_space(stop[-1]))))
        stop++;
    while (stop > p && is_space(stop[-1]))
        stop--;
    dynbuf_add(&b, p, (size_t)(stop - p));
    return dynbuf_take(&b);
}

wa_err dotenv_parse(struct dotenv *d, const char *text)
{
    const char *p = text;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    for (int line = 1; *p; line++) {
        const char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        const char *next = *end ? end + 1 : end;
        if (end > p && end[-1] == '\r')
            end--;
        while (p < end && is_space(*p))
            p++;
        if (p == end || *p == '#') {
            p = next;
            continue;
        }
        if ((size_t)(end - p) > 7 && strncmp(p, "export", 6) == 0 && is_space(p[6]))
            for (p += 6; p < end && is_space(*p);)
                p++;
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq)
            return wa_fail(WA_E_CONFIG, "%s line %d: expected KEY=VALUE",
                           d->path ? d->path : ".env", line);
        const char *kend = eq;
        while (kend > p && is_space(kend[-1]))
            kend--;
        if (kend == p)
            return wa_fail(WA_E_CONFIG, "%s line %d: empty key", d->path ? d->path : ".env", line);
        char *key = str_ndup(p, (size_t)(kend - p));
        char *value = parse_value(eq + 1, end);
        if (!key || !value) {
            free(key);
            free(value);
            return wa_fail(WA_E_NOMEM, "out of memory");
        }
        wa_err e = put(d, key, value);
        if (e)
            return e;
        p = next;
    }
    return WA_E_OK;
}

wa_err dotenv_load(struct dotenv *d, const char *path)
{
    char *text = NULL;
    wa_err e = os_read_file(path, 1u << 20, &text, NULL);
    if (e)
        return e;
    free(d->path);
    d->path = str_dup(path);
    e = dotenv_parse(d, text);
    free(text);
    return e;
}

const char *dotenv_get(const struct dotenv *d, const char *key)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].key, key) == 0)
            return d->items[i].value;
    return NULL;
}
