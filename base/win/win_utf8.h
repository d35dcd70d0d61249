/* UTF-8 <-> UTF-16 at the Win32 boundary: winagent is UTF-8 inside (the command line
 * and the console included). */
#ifndef WINAGENT_BASE_WIN_UTF8_H
#define WINAGENT_BASE_WIN_UTF8_H

#include <wchar.h>

/* Heap copies (free() them); NULL for NULL input or when out of memory. Invalid
 * sequences become U+FFFD rather than failing. */
wchar_t *win_utf8_to_wide(const char *s);
char *win_wide_to_utf8(const wchar_t *w);
/* The same for a counted UTF-16 run (n code units, need not be terminated). */
char *win_wide_to_utf8_n(const wchar_t *w, int n);

/* The program's arguments as UTF-8: argc heap strings and a NULL after them, in a heap
 * array (free() each, then the array); NULL when out of memory. */
char **win_argv_to_utf8(int argc, wchar_t **wargv);
/* Tells an attached console that the program's output is UTF-8 bytes (pipes are
 * untouched). */
void win_console_utf8(void);

#endif
