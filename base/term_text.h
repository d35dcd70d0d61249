/* Text bound for a terminal: what a window title, a model, a trace or a client wrote
 * never becomes a terminal control sequence. Control characters (C0 and DEL, and the C1
 * controls written as UTF-8, such as U+009B, a CSI of its own), the characters that
 * reorder text (bidi embeddings, overrides, isolates and marks, the line and paragraph
 * separators) and bytes that are not UTF-8 are written as visible escapes (\n \r \t
 * \x1b \u{202E}); every other character stays as it is. */
#ifndef WINAGENT_BASE_TERM_TEXT_H
#define WINAGENT_BASE_TERM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/dynbuf.h"
#include "base/wa_err.h"

/* Escapes in into out (cap bytes, always terminated when cap > 0). True when all of it
 * fitted; false when it was cut, at a character boundary, never inside an escape. */
bool term_escape(const char *in, char *out, size_t cap);
/* The same, appended to b; keep_newlines keeps '\n' (and '\t') as they are, for text
 * of several lines (a tree, a command's output). On failure b may hold part of it. */
wa_err term_escape_buf(struct dynbuf *b, const char *in, bool keep_newlines);
/* JSON text as cJSON prints it (the C0 controls are already \u escapes in its strings):
 * DEL, the C1 controls and the bidi characters it leaves raw become \u escapes too, so
 * the JSON means exactly the same and shows nothing a terminal would obey. */
wa_err term_json_buf(struct dynbuf *b, const char *json);

/* One line to f: the formatted text escaped whole (a newline inside it as \n), then a
 * newline. */
void term_line(FILE *f, const char *fmt, ...) WA_PRINTF(2, 3);
/* Text of several lines to f, escaped with its newlines kept. */
void term_text(FILE *f, const char *text);
/* JSON text to f as term_json_buf makes it, then a newline. */
void term_json(FILE *f, const char *json);

#endif
