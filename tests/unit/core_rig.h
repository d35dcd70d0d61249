/* Test helper: a desktop core and one session on the fake backend, driven through
 * core_perform as every front end drives it, with requests written in the CLI's argument
 * names ("window=notepad|ref=Button:Save"). Included by the unit tests of the core;
 * include <cmocka.h> (and what it needs) first. */
#ifndef WINAGENT_TESTS_CORE_RIG_H
#define WINAGENT_TESTS_CORE_RIG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/core.h"
#include "automation/fake/fake_backend.h"

struct rig {
    struct core *core;
    struct session *s;  /* the test's session, of front "test" */
    struct op_result r; /* what the last rig_do answered */
};

/* A folder for the state (refs) of rigs, made before a group's tests and removed after
 * them: cmocka_run_group_tests(tests, rig_state_setup, rig_state_teardown). */
static char rig_state_dir[64];

static inline int rig_state_setup(void **state)
{
    (void)state;
    snprintf(rig_state_dir, sizeof rig_state_dir, "/tmp/winagent_rig.XXXXXX");
    return mkdtemp(rig_state_dir) ? 0 : -1;
}

static inline int rig_state_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", rig_state_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Loads scene into the fake backend (so no action is recorded yet), makes a core of
 * *cfg with the fields the test left zero filled in (the default backend, keepass.exe
 * restricted, 1000 actions a second) and its state kept in state_dir, and opens a
 * session that does not wait for the desktop to settle. refs: element ids are refs of
 * `state`, kept on disk as the CLI keeps them. rig_close frees it all. */
static inline void rig_open(struct rig *t, const char *scene, struct core_config *cfg,
                            const char *state_dir, bool refs)
{
    assert_int_equal(fake_load_scene(scene, NULL), WA_E_OK);
    cfg->be = backend_default();
    cfg->restricted_only = cfg->restricted_only ? cfg->restricted_only : "keepass.exe";
    cfg->state_dir = state_dir;
    if (!cfg->max_actions_per_s)
        cfg->max_actions_per_s = 1000;
    assert_int_equal(core_new(cfg, &t->core), WA_E_OK);
    struct session_opts o;
    session_opts_default(&o);
    o.front = "test";
    o.refs = refs;
    o.refs_on_disk = refs;
    o.settle_ms = 0;
    t->s = NULL;
    assert_int_equal(session_new(t->core, &o, &t->s), WA_E_OK);
    op_result_init(&t->r);
}

static inline void rig_close(struct rig *t)
{
    op_result_cleanup(&t->r);
    session_free(t->s);
    core_free(t->core);
}

/* Fills q from "name=value|name=value" in the CLI's argument names: the operation's own
 * argument of a name first, else any argument of that name. */
static inline void rig_request(struct op_request *q, enum op_id id, const char *args)
{
    op_request_init(q, op_def(id));
    static char buf[70000];
    snprintf(buf, sizeof buf, "%s", args);
    for (char *save = NULL, *kv = strtok_r(buf, "|", &save); kv; kv = strtok_r(NULL, "|", &save)) {
        char *eq = strchr(kv, '=');
        assert_non_null(eq);
        *eq = '\0';
        enum op_arg a = ARG_NONE;
        for (int i = 0; i < OP_MAX_ARGS && q->op->args[i].arg != ARG_NONE && a == ARG_NONE; i++)
            if (strcmp(arg_def(q->op->args[i].arg)->name, kv) == 0)
                a = q->op->args[i].arg;
        for (int i = 1; i < ARG__COUNT && a == ARG_NONE; i++)
            if (strcmp(arg_def((enum op_arg)i)->name, kv) == 0)
                a = (enum op_arg)i;
        if (a == ARG_NONE)
            fail_msg("no argument named %s", kv);
        assert_int_equal(op_request_set_text(q, a, eq + 1), WA_E_OK);
    }
}

/* Performs operation id with args on session s into r; TEST_VERBOSE=1 prints each. */
static inline wa_err perform(struct session *s, enum op_id id, const char *args,
                             struct op_result *r)
{
    struct op_request q;
    rig_request(&q, id, args);
    wa_err e = core_perform(s, &q, r);
    op_request_cleanup(&q);
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "%s %s: %s %s\n", op_def(id)->name, args, wa_err_code(e), r->message);
    return e;
}

/* perform on the rig's own session, into t->r. */
static inline wa_err rig_do(struct rig *t, enum op_id id, const char *args)
{
    return perform(t->s, id, args, &t->r);
}

/* Whether the actions the fake backend recorded hold the text `what`. */
static inline bool actions_hold(const char *what)
{
    char *a = fake_actions_json();
    bool found = a && strstr(a, what) != NULL;
    free(a);
    return found;
}

#endif
