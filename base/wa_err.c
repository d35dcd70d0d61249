/* The error table and the per-thread detail line behind base/wa_err.h. */
#include "base/wa_err.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *code;
    const char *message;
} error_table[] = {
#define WA_X_ROW(name, code, msg) {code, msg},
    WA_ERROR_MAP(WA_X_ROW)
#undef WA_X_ROW
};

static _Thread_local char detail[512];

const char *wa_err_code(wa_err e)
{
    if ((unsigned)e >= WA_E__COUNT)
        return "unknown";
    return error_table[e].code;
}

const char *wa_err_message(wa_err e)
{
    if ((unsigned)e >= WA_E__COUNT)
        return "unknown error";
    return error_table[e].message;
}

wa_err wa_err_from_code(const char *code)
{
    for (unsigned i = 0; code && i < WA_E__COUNT; i++)
        if (strcmp(error_table[i].code, code) == 0)
            return (wa_err)i;
    return WA_E__COUNT;
}

static wa_err wa_failv(wa_err e, const char *fmt, va_list ap)
{
    if (fmt)
        vsnprintf(detail, sizeof detail, fmt, ap);
    else
        detail[0] = '\0';
    return e;
}

wa_err wa_fail(wa_err e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wa_failv(e, fmt, ap);
    va_end(ap);
    return e;
}

const char *wa_err_detail(void)
{
    return detail;
}

void wa_err_clear(void)
{
    detail[0] = '\0';
}
