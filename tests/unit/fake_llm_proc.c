/* Test helper: the fake LLM server as a child process (see fake_llm_proc.h). */
#include "fake_llm_proc.h"

#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

const char *fake_llm_src(void)
{
    const char *s = getenv("WINAGENT_SRC");
    return s && s[0] ? s : ".";
}

static bool write_scenario(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return false;
    for (const char *p = text; *p; p++)
        fputc(*p == '\'' ? '"' : *p, fp);
    return fclose(fp) == 0;
}

bool fake_llm_start(struct fake_llm *f, const char *scenario)
{
    memset(f, 0, sizeof *f);
    f->pid = -1;
    /* Loopback never goes through a proxy a developer may have configured. */
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    snprintf(f->scenario, sizeof f->scenario, "/tmp/wa-llm-scn-%d-XXXXXX", (int)getpid());
    int fd = mkstemp(f->scenario);
    if (fd < 0)
        return false;
    close(fd);
    snprintf(f->record, sizeof f->record, "%s.jsonl", f->scenario);
    if (!write_scenario(f->scenario, scenario)) {
        fprintf(stderr, "fake_llm: cannot write %s\n", f->scenario);
        return false;
    }
    char server[1024];
    snprintf(server, sizeof server, "%s/tests/fake_llm/server.py", fake_llm_src());
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return false;
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        dup2(pipefd[1], STDOUT_FILENO);
        close(pipefd[0]);
        close(pipefd[1]);
        execlp("python3", "python3", server, "--scenario", f->scenario, "--port", "0", "--record",
               f->record, "--idle-exit", "120", "--quiet", (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    f->pid = pid;
    char line[256];
    size_t n = 0;
    while (n + 1 < sizeof line) {
        struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
        if (poll(&p, 1, 15000) <= 0)
            break;
        ssize_t r = read(pipefd[0], line + n, 1);
        if (r <= 0 || line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    close(pipefd[0]);
    const char *port = strstr(line, "\"port\":");
    if (!port || (f->port = atoi(port + 7)) <= 0) {
        fprintf(stderr, "fake_llm: server did not report a port (got \"%s\")\n", line);
        fake_llm_stop(f);
        return false;
    }
    snprintf(f->url, sizeof f->url, "http://127.0.0.1:%d", f->port);
    return true;
}

void fake_llm_stop(struct fake_llm *f)
{
    if (f->pid > 0) {
        kill(f->pid, SIGTERM);
        int status;
        while (waitpid(f->pid, &status, 0) < 0 && errno == EINTR)
            ;
        f->pid = -1;
    }
    if (f->scenario[0])
        unlink(f->scenario);
    if (f->record[0])
        unlink(f->record);
    f->scenario[0] = f->record[0] = '\0';
}

struct grow {
    char *data;
    size_t len;
};

static size_t grow_write(char *p, size_t size, size_t n, void *ud)
{
    struct grow *g = ud;
    char *d = realloc(g->data, g->len + size * n + 1);
    if (!d)
        return 0;
    memcpy(d + g->len, p, size * n);
    g->len += size * n;
    d[g->len] = '\0';
    g->data = d;
    return size * n;
}

cJSON *fake_llm_requests(const struct fake_llm *f)
{
    char url[128];
    snprintf(url, sizeof url, "%s/__requests", f->url);
    CURL *c = curl_easy_init();
    struct grow g = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, grow_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &g);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_cleanup(c);
    cJSON *list = rc == CURLE_OK && g.data ? cJSON_Parse(g.data) : NULL;
    free(g.data);
    return list;
}

int fake_llm_count(const struct fake_llm *f)
{
    cJSON *list = fake_llm_requests(f);
    int n = list ? cJSON_GetArraySize(list) : -1;
    cJSON_Delete(list);
    return n;
}

const cJSON *fake_llm_body(const cJSON *list, int n)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, n), "body");
}

const char *fake_llm_header(const cJSON *list, int n, const char *name)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, n), "headers");
    const cJSON *v;
    cJSON_ArrayForEach(v, h)
    {
        if (strcasecmp(v->string, name) == 0 && cJSON_IsString(v))
            return v->valuestring;
    }
    return NULL;
}

int fake_llm_validate_openai(const struct fake_llm *f)
{
    char schema[1024], cmd[3072];
    snprintf(schema, sizeof schema, "%s/tests/fake_llm/specs/openai-chat-completions.schema.json",
             fake_llm_src());
    if (access(schema, R_OK) != 0) {
        fprintf(stderr, "schema %s not found: OpenAI request validation skipped\n", schema);
        return 77;
    }
    snprintf(cmd, sizeof cmd,
             "python3 '%s/tests/fake_llm/validate_schema.py' --schema '%s' "
             "--definition CreateChatCompletionRequest --records '%s'",
             fake_llm_src(), schema, f->record);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
