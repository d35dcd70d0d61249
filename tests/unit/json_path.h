/* Test helper: reading a JSON document (a request as it went on the wire) by a path of
 * object keys and array indexes, such as "body/messages/3/role". */
#ifndef WINAGENT_TESTS_JSON_PATH_H
#define WINAGENT_TESTS_JSON_PATH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* The node at path, or NULL. */
static inline const cJSON *at(const cJSON *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *n = root;
    for (char *tok = strtok(buf, "/"); tok && n; tok = strtok(NULL, "/"))
        n = (*tok >= '0' && *tok <= '9') ? cJSON_GetArrayItem(n, atoi(tok))
                                         : cJSON_GetObjectItemCaseSensitive(n, tok);
    return n;
}

/* The string at path, or NULL. */
static inline const char *str_at(const cJSON *root, const char *path)
{
    const cJSON *n = at(root, path);
    return cJSON_IsString(n) ? n->valuestring : NULL;
}

#endif
