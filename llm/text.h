/* String helpers the LLM layer shares: copies, one-line snippets of server text, and
 * scrubbing the API key out of anything that may reach a log or an error detail. */
#ifndef WINAGENT_LLM_TEXT_H
#define WINAGENT_LLM_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/wa_err.h"

/* Heap copies; NULL in gives NULL out (and so does running out of memory). */
char *text_strdup(const char *s);
char *text_strndup(const char *s, size_t n);

/* Sets *dst to a copy of s (NULL allowed), freeing the old value. WA_E_NOMEM. */
wa_err text_set_str(char **dst, const char *s);

/* Copies at most max bytes of s (n bytes long) into out (size outsz) as one line:
 * control characters and runs of white space become one space, the ends are trimmed,
 * and "..." marks a cut. Never splits a UTF-8 sequence. Returns out. */
char *text_snippet(char *out, size_t outsz, const char *s, size_t n, size_t max);

/* Replaces every occurrence of secret (when non-empty and at least 4 bytes) in the
 * NUL-terminated buffer s with "[redacted]", in place, never writing past size bytes
 * (the text may be cut). Returns true when something was replaced. */
bool text_redact(char *s, size_t size, const char *secret);

/* Case-insensitive ASCII search; NULL when needle is not in hay. */
const char *text_stristr(const char *hay, const char *needle);

#endif
