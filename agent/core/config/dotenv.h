/* .env files: KEY=VALUE lines, UTF-8 with or without a BOM, comments, quotes. */
#ifndef WINAGENT_AGENT_CORE_CONFIG_DOTENV_H
#define WINAGENT_AGENT_CORE_CONFIG_DOTENV_H

#include <stddef.h>

#include "base/wa_err.h"

struct dotenv_entry {
    char *key;
    char *value;
};

struct dotenv {
    struct dotenv_entry *items;
    size_t count;
    char *path; /* the file read, NULL when none */
};

void dotenv_init(struct dotenv *d);
void dotenv_cleanup(struct dotenv *d);

/* Parses text: blank lines and '#' comments are skipped; an optional "export "
 * prefix; values may be "double quoted" (with \n \t \" \\ escapes), 'single quoted'
 * (literal) or bare (an inline " #" starts a comment); CRLF and a UTF-8 BOM are
 * fine. Later keys replace earlier ones. A line without '=' is an error naming
 * its line number. */
wa_err dotenv_parse(struct dotenv *d, const char *text);
/* Reads and parses a file; WA_E_IO when it does not exist. */
wa_err dotenv_load(struct dotenv *d, const char *path);
/* The value of key, or NULL. */
const char *dotenv_get(const struct dotenv *d, const char *key);

#endif
