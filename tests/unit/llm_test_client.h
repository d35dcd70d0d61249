/* Test helper for the unit.llm_* tests that talk to the fake server: a client
 * pointed at it, capture of log lines and streamed deltas. */
#ifndef WINAGENT_TESTS_LLM_TEST_CLIENT_H
#define WINAGENT_TESTS_LLM_TEST_CLIENT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/dynbuf.h"
#include "base/os.h"
#include "fake_llm_proc.h"
#include "json_path.h"
#include "llm/llm.h"

#define TEST_KEY "sk-test-SECRET-4f1d2c3b5a697887"

struct capture {
    struct dynbuf log;    /* every log line, each ending in \n */
    struct dynbuf deltas; /* streamed text */
    struct dynbuf thinking;
};

static void capture_log(void *ctx, const char *line)
{
    struct capture *c = ctx;
    dynbuf_addf(&c->log, "%s\n", line);
    if (getenv("LLM_TEST_VERBOSE"))
        fprintf(stderr, "%s\n", line);
}

static void capture_delta(void *ctx, const char *text, bool is_reasoning)
{
    struct capture *c = ctx;
    dynbuf_adds(is_reasoning ? &c->thinking : &c->deltas, text);
}

static void capture_init(struct capture *c)
{
    dynbuf_init(&c->log, 1 << 20);
    dynbuf_init(&c->deltas, 1 << 20);
    dynbuf_init(&c->thinking, 1 << 20);
}

static void capture_cleanup(struct capture *c)
{
    dynbuf_cleanup(&c->log);
    dynbuf_cleanup(&c->deltas);
    dynbuf_cleanup(&c->thinking);
}

/* A config for the fake server: OpenAI (both APIs) at URL/v1, Gemini and Anthropic at
 * URL; fast retries. */
static struct llm_config test_config(const struct fake_llm *f, enum llm_provider_kind p,
                                     bool stream, struct capture *cap, char *url, size_t urlsz)
{
    bool v1 = p == LLM_PROVIDER_OPENAI || p == LLM_PROVIDER_OPENAI_RESPONSES;
    snprintf(url, urlsz, "%s%s", f->url, v1 ? "/v1" : "");
    struct llm_config cfg = {
        .provider = p,
        .base_url = url,
        .model = p == LLM_PROVIDER_OPENAI ? "gpt-test" : "gemini-test",
        .api_key = TEST_KEY,
        .stream = stream,
        .connect_timeout_s = 5,
        .timeout_s = 30,
        .max_retries = 3,
        .max_backoff_ms = 50,
        .temperature = -1,
        .log = capture_log,
        .on_delta = capture_delta,
        .ctx = cap,
    };
    return cfg;
}

/* Tools as the loop declares them (the schema uses keywords Gemini rejects). */
static const char *const test_tool_schemas[] = {
    "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
    "\"additionalProperties\":false,\"properties\":{\"action\":{\"type\":\"string\","
    "\"enum\":[\"click\",\"type\",\"key\",\"screenshot\",\"launch\",\"wait\"]},"
    "\"x\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":999},"
    "\"seconds\":{\"type\":\"number\",\"enum\":[1,2,5]},"
    "\"mode\":{\"const\":\"auto\"}},\"required\":[\"action\"]}",
    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},"
    "\"timeout_s\":{\"type\":[\"integer\",\"null\"]}},\"required\":[\"command\"]}",
};

/* The tools, their schemas parsed once (kept for the whole test program). */
static const struct llm_tool *test_tools_get(void)
{
    static struct llm_tool tools[2];
    if (!tools[0].name) {
        tools[0] = (struct llm_tool){"desktop", "Observe and act on the desktop.",
                                     cJSON_Parse(test_tool_schemas[0]), NULL};
        tools[1] = (struct llm_tool){"powershell", "Run a PowerShell command.",
                                     cJSON_Parse(test_tool_schemas[1]), NULL};
    }
    return tools;
}
#define test_tools   (test_tools_get())
#define N_TEST_TOOLS 2

/* A one-user-turn conversation. */
static void test_conversation(struct llm_conversation *c)
{
    llm_conversation_init(c);
    llm_conversation_set_system(c, "You are a test.");
    llm_conversation_add_user(c, "Open Notepad.", NULL, 0);
}

/* A client of the fake server and a one-user-turn conversation (cmocka's asserts: include
 * cmocka.h first). */
struct session {
    struct fake_llm f; /* the session's own server (session_start) */
    struct capture cap;
    struct llm_config cfg; /* for the fake server; change it before session_connect */
    struct llm_client *c;
    struct llm_conversation conv;
    char url[128];
};

/* Starts the fake server on scenario and sets s->cfg for it (test_config). */
static inline void session_start(struct session *s, const char *scenario, enum llm_provider_kind p,
                                 bool stream)
{
    assert_true(fake_llm_start(&s->f, scenario));
    capture_init(&s->cap);
    s->cfg = test_config(&s->f, p, stream, &s->cap, s->url, sizeof s->url);
}

/* A session on a server already running (f, shared by several sessions, since a server
 * start is slow): s->cfg is set for it, s->f is not used; session_disconnect ends it. */
static inline void session_attach(struct session *s, const struct fake_llm *f,
                                  enum llm_provider_kind p, bool stream)
{
    capture_init(&s->cap);
    s->cfg = test_config(f, p, stream, &s->cap, s->url, sizeof s->url);
}

/* The client of s->cfg, and the conversation. */
static inline void session_connect(struct session *s)
{
    assert_int_equal(llm_client_new(&s->cfg, &s->c), WA_E_OK);
    test_conversation(&s->conv);
}

static inline void session_open(struct session *s, const char *scenario, enum llm_provider_kind p,
                                bool stream)
{
    session_start(s, scenario, p, stream);
    session_connect(s);
}

/* Asks the model of s for a reply to its conversation, with the test tools. */
static inline wa_err session_complete(struct session *s, struct llm_reply *r)
{
    return llm_complete(s->c, &s->conv, test_tools, N_TEST_TOOLS, r);
}

/* Frees the client, the conversation and the capture; the fake server keeps running
 * (its requests can still be read). */
static inline void session_disconnect(struct session *s)
{
    llm_conversation_cleanup(&s->conv);
    llm_client_free(s->c);
    capture_cleanup(&s->cap);
}

static inline void session_close(struct session *s)
{
    session_disconnect(s);
    fake_llm_stop(&s->f);
}

/* A tiny valid PNG (1x1), base64. */
#define TEST_PNG_B64                                                                               \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

#endif
