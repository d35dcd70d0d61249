/* The loop guards: each call is remembered by a hash of what it was and of what it saw,
 * and the patterns are read from the last few. */
#include "agent/run/guards.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/core/request/wire.h"

static uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) { /* FNV-1a */
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

#define HASH_START 1469598103934665603ULL

/* What a call saw: its observation (tree text or image), else its result as the model
 * reads it. */
static uint64_t screen_of(const struct op_result *res)
{
    const struct observation *o = &res->obs;
    if (o->kind == OBS_TREE && o->text)
        return hash_bytes(HASH_START, o->text, strlen(o->text));
    if (o->kind == OBS_IMAGE)
        return hash_bytes(HASH_START, o->png.data, o->png.len);
    struct wire_opts wo = {.names = WIRE_MODEL};
    cJSON *j = wire_result(res, &wo);
    char *text = cJSON_PrintUnformatted(j);
    uint64_t h = text ? hash_bytes(HASH_START, text, strlen(text)) : 0;
    cJSON_free(text);
    cJSON_Delete(j);
    return h;
}

static void remember(struct guards *g, const struct guard_call *c)
{
    if (g->n == GUARD_HISTORY) {
        memmove(&g->last[0], &g->last[1], (GUARD_HISTORY - 1) * sizeof g->last[0]);
        g->n--;
    }
    g->last[g->n++] = *c;
}

/* How many of the last calls alternate between two different calls, each seeing again
 * what it saw two calls before (A, B, A, B: 4); 0 when the last two are not two. */
static int alternation(const struct guards *g)
{
    if (g->n < 2 || g->last[g->n - 1].sig == g->last[g->n - 2].sig)
        return 0;
    int len = 2;
    for (int i = g->n - 1; i >= 2; i--) {
        if (g->last[i].sig != g->last[i - 2].sig || g->last[i].screen != g->last[i - 2].screen)
            break;
        len++;
    }
    return len;
}

const char *guards_after_call(struct guards *g, int step, const char *name, const char *arguments,
                              const char *action, const struct op_result *res, bool acted,
                              bool *stop, char *reason, size_t cap)
{
    *stop = false;
    bool failed = res->err != WA_E_OK;
    struct guard_call c = {.sig = hash_bytes(hash_bytes(HASH_START, name, strlen(name)), arguments,
                                             arguments ? strlen(arguments) : 0),
                           .screen = screen_of(res)};
    const char *arrow = strstr(action, " -> "); /* "click [3] ..." of "click [3] ... -> ok" */
    snprintf(c.what, sizeof c.what, "%.*s", arrow ? (int)(arrow - action) : (int)strlen(action),
             action);
    bool same = g->n > 0 && g->last[g->n - 1].sig == c.sig;
    remember(g, &c);
    g->same_failures = failed ? (same ? g->same_failures + 1 : 1) : 0;
    bool changed = true;
    if (acted && res->obs.kind != OBS_NONE) {
        changed = !g->have_screen || c.screen != g->last_screen;
        if (res->has_changes && res->nothing_changed)
            changed = false; /* the change report says so, whatever the pixels did */
        g->last_screen = c.screen;
        g->have_screen = true;
        g->unchanged = changed ? 0 : g->unchanged + 1;
        if (g->unchanged == 1)
            g->unchanged_from = step;
    }
    g->same_calls = same && !changed ? g->same_calls + 1 : 1;
    int alt = alternation(g);
    if (alt < ALTERNATION_WARN)
        g->told_alternation = false; /* a new alternation is told again */
    if (g->same_failures >= SAME_FAILURE_STOP) {
        snprintf(reason, cap, "stuck (repeated failure): the same call failed 5 times in a row");
    } else if (g->same_calls >= SAME_CALL_STOP) {
        snprintf(reason, cap,
                 "stuck (exact repeat): the same call was repeated 8 times without changing "
                 "anything");
    } else if (alt >= ALTERNATION_STOP) {
        snprintf(reason, cap,
                 "stuck (alternation): the last %d calls went back and forth between %s and %s, "
                 "and the window came back to the same state each time",
                 alt, g->last[g->n - 2].what, g->last[g->n - 1].what);
    } else if (g->unchanged >= UNCHANGED_STOP && step - g->unchanged_from >= 2) {
        snprintf(reason, cap, "stuck (no change): %d actions in a row changed nothing on screen",
                 g->unchanged);
    } else if (g->same_failures >= SAME_FAILURE_WARN) {
        return "Note: this exact call has failed several times in a row. Do not repeat it; "
               "try a different approach.";
    } else if (alt >= ALTERNATION_WARN && !g->told_alternation) {
        g->told_alternation = true;
        return "Note: your last calls go back and forth between two actions, and the window "
               "comes back to the same state each time. Stop alternating: try another way, or "
               "give your final answer. If it goes on, the run ends.";
    } else if (g->unchanged >= UNCHANGED_WARN) {
        return "Note: the window has not changed after your last few actions. Check that "
               "they are reaching the right place, or try another way; if nothing changes, "
               "the run ends.";
    } else {
        return NULL;
    }
    *stop = true;
    return NULL;
}
