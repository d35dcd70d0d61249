/* Elicitation: one question to the client at a time (requests are served one at a
 * time), numbered so that a late or foreign response is not taken for its answer. */
#include "agent/mcp/mcp_ask.h"

#include <stdio.h>
#include <string.h>

#include "agent/mcp/mcp_req.h"
#include "base/os.h"
#include "base/str.h"

#define ASK_WAIT_MS (10 * 60 * 1000) /* how long a question waits for the person */
#define ASK_POLL_MS 100

static void ask_id(long n, char *out, size_t cap)
{
    snprintf(out, cap, "winagent-ask-%ld", n);
}

/* elicitation/create: the question and the form of its answer (one text field, or a
 * yes/no for a confirmation). */
static cJSON *elicitation(long n, const char *question, bool confirm)
{
    char id[48];
    ask_id(n, id, sizeof id);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddStringToObject(m, "method", "elicitation/create");
    cJSON *p = cJSON_AddObjectToObject(m, "params");
    cJSON_AddStringToObject(p, "message", question);
    cJSON *schema = cJSON_AddObjectToObject(p, "requestedSchema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON *field = cJSON_AddObjectToObject(cJSON_AddObjectToObject(schema, "properties"),
                                           confirm ? "confirm" : "answer");
    cJSON_AddStringToObject(field, "type", confirm ? "boolean" : "string");
    cJSON_AddStringToObject(field, "title", confirm ? "Allow it" : "Your answer");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(schema, "required"),
                         cJSON_CreateString(confirm ? "confirm" : "answer"));
    return m;
}

/* The person's answer from the client's response: accepted with its field filled in. */
static enum person_answer read_answer(const cJSON *response, bool confirm, char **answer)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(response, "result");
    if (!result)
        return PERSON_NOBODY; /* the client could not ask */
    const char *action = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "action"));
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(content, confirm ? "confirm" : "answer");
    if (!action || strcmp(action, "accept") != 0)
        return PERSON_DECLINED;
    if (confirm)
        return cJSON_IsTrue(v) && (*answer = str_dup("yes")) ? PERSON_ANSWERED : PERSON_DECLINED;
    if (!cJSON_IsString(v) || !*v->valuestring)
        return PERSON_DECLINED;
    *answer = str_dup(v->valuestring);
    return *answer ? PERSON_ANSWERED : PERSON_DECLINED;
}

enum person_answer mcp_ask_person(void *ctx, const char *question, bool confirm,
                                  const volatile bool *cancel, char **answer)
{
    struct mcp_server *s = ctx;
    *answer = NULL;
    os_mutex_lock(s->state);
    bool can = s->elicit && s->answered;
    long n = can ? ++s->asked : 0;
    const struct mcp_sink *sink = s->call_sink;
    cJSON_Delete(s->answer);
    s->answer = NULL;
    os_mutex_unlock(s->state);
    if (!can)
        return PERSON_NOBODY;
    mcp_req_send(s, sink, elicitation(n, question, confirm));
    cJSON *response = NULL;
    int64_t until = os_now_ms() + ASK_WAIT_MS;
    while (!response && !os_interrupted() && !(cancel && *cancel) && os_now_ms() < until) {
        os_event_wait(s->answered, ASK_POLL_MS);
        os_mutex_lock(s->state);
        response = s->answer;
        s->answer = NULL;
        os_mutex_unlock(s->state);
    }
    os_mutex_lock(s->state);
    s->asked++; /* a response that comes after this is no answer to anything */
    os_mutex_unlock(s->state);
    enum person_answer a = response ? read_answer(response, confirm, answer) : PERSON_DECLINED;
    cJSON_Delete(response);
    return a;
}

bool mcp_ask_response(void *server, const cJSON *msg)
{
    struct mcp_server *s = server;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    char want[48];
    bool taken = false;
    os_mutex_lock(s->state);
    ask_id(s->asked, want, sizeof want);
    if (s->answered && cJSON_IsString(id) && strcmp(id->valuestring, want) == 0) {
        cJSON_Delete(s->answer);
        s->answer = cJSON_Duplicate(msg, true);
        taken = true;
    }
    os_mutex_unlock(s->state);
    if (taken)
        os_event_set(s->answered);
    return taken;
}
