/* Small string helpers the C library lacks or hides behind POSIX feature macros. */
#ifndef WINAGENT_BASE_STR_H
#define WINAGENT_BASE_STR_H

#include <stdbool.h>
#include <stddef.h>

/* Heap copy (free() it); NULL for NULL or out of memory. */
char *str_dup(const char *s);
/* Heap copy of at most n bytes, terminated. */
char *str_ndup(const char *s, size_t n);
/* ASCII case-insensitive equality / substring search (UTF-8 safe: only
 * ASCII letters fold). NULL equals nothing. */
bool str_ieq(const char *a, const char *b);
/* a equals the first n bytes of b, ASCII case-insensitively. */
bool str_ieq_n(const char *a, const char *b, size_t n);
bool str_icontains(const char *haystack, const char *needle);
bool str_starts_with(const char *s, const char *prefix);
/* Wildcard match, '*' any run and '?' one byte, ASCII case-insensitive. */
bool str_wildcard(const char *pattern, const char *s);

/* The last component of a path ("b" of "a\\b", "a/b/" too). */
const char *str_path_base(const char *path);

/* Equal strings, in a time that depends only on the length of expected (tokens). */
bool str_equal_secret(const char *expected, const char *given);
/* realloc of n elements of size bytes; NULL (ptr untouched) when n * size overflows or
 * memory runs out. Every growing array goes through it. */
void *wa_reallocarray(void *ptr, size_t n, size_t size);

/* Replaces *dst with a copy of src (freeing the old one); false when out of memory. */
bool str_set(char **dst, const char *src);

#endif
