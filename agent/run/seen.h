/* The elements a reply's calls name, as the model saw them when it wrote the reply.
 * A call that changes the window can renumber the latest tree under the calls after
 * it: before each of them runs, the ids it names are checked against what was seen. */
#ifndef WINAGENT_AGENT_RUN_SEEN_H
#define WINAGENT_AGENT_RUN_SEEN_H

#include <stddef.h>
#include <stdint.h>

#include "agent/core/request/request.h"
#include "automation/tree.h"

struct seen_element {
    uint64_t identity; /* type with the runtime id, else with name and automation id */
    char label[72];    /* `Button "OK"`, for the message */
};

struct seen_tree {
    uint64_t hwnd; /* 0: nothing was seen, nothing is checked */
    char title[64];
    size_t count;
    struct seen_element *elements;
};

/* Remembers tree (may be NULL: nothing seen). */
void seen_take(struct seen_tree *s, const struct wa_tree *tree);
/* Whether an id q names now stands for another element in now (the latest tree, may be
 * NULL), or for none; why then says which and what it was and is. */
bool seen_changed(const struct seen_tree *s, const struct wa_tree *now, const struct op_request *q,
                  char *why, size_t cap);
void seen_cleanup(struct seen_tree *s);

#endif
