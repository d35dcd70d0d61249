/* Test helper: runs tests/fake_llm/server.py on a scenario, reads back what it
 * recorded, and checks recorded OpenAI requests against the reference schema.
 * Included (as fake_llm_proc.c) by the unit.llm_* tests that need a server. */
#ifndef WINAGENT_TESTS_FAKE_LLM_PROC_H
#define WINAGENT_TESTS_FAKE_LLM_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

struct fake_llm {
    pid_t pid;
    int port;
    char url[64];       /* "http://127.0.0.1:PORT" */
    char scenario[256]; /* temporary scenario file */
    char record[272];   /* JSONL request records (--record) */
};

/* Starts the server on a scenario given as JSON text in which ' stands for " (so
 * tests can write {'steps':[{'text':'hi'}]}; write \\' for a literal \"). Returns
 * false (after printing why) when it could not start. */
bool fake_llm_start(struct fake_llm *f, const char *scenario);
/* Stops the server and removes its files; harmless on a stopped one. */
void fake_llm_stop(struct fake_llm *f);

/* The recorded requests (GET /__requests), or NULL. cJSON_Delete the result. */
cJSON *fake_llm_requests(const struct fake_llm *f);
/* Number of recorded requests (-1 on error). */
int fake_llm_count(const struct fake_llm *f);
/* Request n (0-based) body / headers from a list fake_llm_requests returned. */
const cJSON *fake_llm_body(const cJSON *list, int n);
const char *fake_llm_header(const cJSON *list, int n, const char *name);

/* Runs tests/fake_llm/validate_schema.py over the recorded OpenAI requests against
 * tests/fake_llm/specs/openai-chat-completions.schema.json (which the server also checks
 * each request against as it comes). Returns 0 when all are valid, 77 when the schema is
 * not there (the caller skips), anything else on failure. */
int fake_llm_validate_openai(const struct fake_llm *f);

/* Where the repository is (WINAGENT_SRC, else "."). */
const char *fake_llm_src(void);

#endif
