/* Standard base64 (RFC 4648 section 4) for images sent inline to the model. */
#ifndef WINAGENT_AUTOMATION_IMAGE_BASE64_H
#define WINAGENT_AUTOMATION_IMAGE_BASE64_H

#include <stddef.h>

#include "base/dynbuf.h"
#include "base/wa_err.h"

/* Appends standard base64 (with padding, no line breaks) of len bytes to out. */
wa_err base64_encode(const void *data, size_t len, struct dynbuf *out);
/* Decodes standard base64 (whitespace ignored); WA_E_PARSE on bad input. */
wa_err base64_decode(const char *text, size_t len, struct dynbuf *out);

#endif
