/* What every part of the core shares about a call: its summary line. */
#include "agent/core/call/call.h"

#include <stdarg.h>
#include <stdio.h>

void call_summary(struct call *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->r->summary, sizeof k->r->summary, fmt, ap);
    va_end(ap);
}
