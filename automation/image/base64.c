/* Standard base64 (RFC 4648 section 4) for images sent inline to the model. */
#include "automation/image/base64.h"

#include <stdint.h>

static const char b64_alphabet[64] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* What a character means to the decoder: 0-63 for alphabet characters, B64_SPACE
 * for whitespace (skipped), B64_PAD for '=', B64_BAD for anything else. */
enum { B64_BAD = 0xff, B64_SPACE = 0xfe, B64_PAD = 0xfd };

static uint8_t b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return (uint8_t)(c - 'A');
    if (c >= 'a' && c <= 'z')
        return (uint8_t)(c - 'a' + 26);
    if (c >= '0' && c <= '9')
        return (uint8_t)(c - '0' + 52);
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    if (c == '=')
        return B64_PAD;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v')
        return B64_SPACE;
    return B64_BAD;
}

/* Encodes in batches through a stack buffer: no allocation besides out's own growth. */
wa_err base64_encode(const void *data, size_t len, struct dynbuf *out)
{
    const uint8_t *s = data;
    size_t start = out->len;
    wa_err e = dynbuf_reserve(out, (len + 2) / 3 * 4);
    if (e)
        return e;
    char buf[4096];
    size_t whole = len / 3 * 3;
    for (size_t i = 0; i < whole;) {
        size_t batch = whole - i < sizeof buf / 4 * 3 ? whole - i : sizeof buf / 4 * 3;
        char *d = buf;
        for (size_t end = i + batch; i < end; i += 3, d += 4) {
            uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
            d[0] = b64_alphabet[v >> 18];
            d[1] = b64_alphabet[(v >> 12) & 63];
            d[2] = b64_alphabet[(v >> 6) & 63];
            d[3] = b64_alphabet[v & 63];
        }
        if ((e = dynbuf_add(out, buf, (size_t)(d - buf))))
            goto fail;
    }
    size_t rest = len - whole;
    if (rest) {
        uint32_t v = (uint32_t)s[whole] << 16 | (rest == 2 ? (uint32_t)s[whole + 1] << 8 : 0);
        char d[4] = {b64_alphabet[v >> 18], b64_alphabet[(v >> 12) & 63],
                     rest == 2 ? b64_alphabet[(v >> 6) & 63] : '=', '='};
        if ((e = dynbuf_add(out, d, 4)))
            goto fail;
    }
    return WA_E_OK;
fail:
    dynbuf_truncate(out, start); /* leave out as it was */
    return e;
}

/* Padding is optional at the very end. A final quantum of one character, data after
 * padding, or non-zero bits left over in the last quantum are errors. */
wa_err base64_decode(const char *text, size_t len, struct dynbuf *out)
{
    size_t start = out->len;
    uint8_t buf[3072];
    size_t used = 0;
    uint32_t acc = 0;
    int have = 0; /* sextets in acc */
    int pads = 0;
    wa_err e = WA_E_OK;
    for (size_t i = 0; i < len; i++) {
        uint8_t v = b64_value((unsigned char)text[i]);
        if (v == B64_SPACE)
            continue;
        if (v == B64_BAD) {
            e = wa_fail(WA_E_PARSE, "base64: bad character at offset %zu", i);
            goto fail;
        }
        if (v == B64_PAD) {
            if (have < 2 || have + pads >= 4) {
                e = wa_fail(WA_E_PARSE, "base64: misplaced '=' at offset %zu", i);
                goto fail;
            }
            pads++;
            continue;
        }
        if (pads) {
            e = wa_fail(WA_E_PARSE, "base64: data after padding at offset %zu", i);
            goto fail;
        }
        acc = acc << 6 | v;
        if (++have == 4) {
            buf[used++] = (uint8_t)(acc >> 16);
            buf[used++] = (uint8_t)(acc >> 8);
            buf[used++] = (uint8_t)acc;
            acc = 0;
            have = 0;
            if (used == sizeof buf) {
                if ((e = dynbuf_add(out, buf, used)))
                    goto fail;
                used = 0;
            }
        }
    }
    if (pads && have + pads != 4) {
        e = wa_fail(WA_E_PARSE, "base64: incomplete padding");
        goto fail;
    }
    if (have == 1) {
        e = wa_fail(WA_E_PARSE, "base64: truncated input");
        goto fail;
    }
    if (have == 2) {
        if (acc & 0xf) {
            e = wa_fail(WA_E_PARSE, "base64: non-zero padding bits");
            goto fail;
        }
        buf[used++] = (uint8_t)(acc >> 4);
    } else if (have == 3) {
        if (acc & 0x3) {
            e = wa_fail(WA_E_PARSE, "base64: non-zero padding bits");
            goto fail;
        }
        buf[used++] = (uint8_t)(acc >> 10);
        buf[used++] = (uint8_t)(acc >> 2);
    }
    if ((e = dynbuf_add(out, buf, used)))
        goto fail;
    return WA_E_OK;
fail:
    dynbuf_truncate(out, start); /* leave out as it was */
    return e;
}
