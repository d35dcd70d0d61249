/* UTF-8 <-> UTF-16 at the Win32 boundary: winagent is UTF-8 inside. */
#ifndef WINAGENT_WIN_UTF8_H
#define WINAGENT_WIN_UTF8_H

#include <wchar.h>

/* Heap copies (free() them); NULL for NULL input or when out of memory. Invalid
 * sequences become U+FFFD rather than failing. */
wchar_t *win_utf8_to_wide(const char *s);
char *win_wide_to_utf8(const wchar_t *w);
/* The same for a counted UTF-16 run (n code units, need not be terminated). */
char *win_wide_to_utf8_n(const wchar_t *w, int n);

#endif
