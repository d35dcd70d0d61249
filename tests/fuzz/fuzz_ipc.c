/* agent-rdp's request files for `serve --ipc-dir`: each input is written as
 * requests/req_N.json (N counts the inputs: a controller never reuses an id) in a folder
 * of the temporary one and answered by serve_ipc_poll
 * (the BOM, the parse, agent-rdp's commands and selectors, winagent's own commands) on
 * the fake desktop. A request that does not parse is answered at the next poll that finds
 * it unchanged (no grace period). */
#include <stdio.h>
#include <stdlib.h>

#include "agent/front/serve.h"
#include "base/os.h"
#include "tests/fuzz/harness.h"

static struct serve_ipc *ipc;
static char folder[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_setup();
    struct session_opts so;
    session_opts_default(&so);
    so.front = "serve";
    so.refs = true;
    so.settle_ms = 150;
    struct session *ses;
    snprintf(folder, sizeof folder, "%s/ipc", dir);
    if (session_new(fuzz_core(), &so, &ses) || serve_ipc_open(ses, folder, 0, &ipc)) {
        fprintf(stderr, "fuzz: no ipc folder: %s\n", wa_err_detail());
        exit(1);
    }
    fuzz_freeze_time();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned long n;
    char request[4300], response[4300];
    n++;
    snprintf(request, sizeof request, "%s/requests/req_%lu.json", folder, n);
    snprintf(response, sizeof response, "%s/responses/res_%lu.json", folder, n);
    if (os_write_file(request, (const char *)data, size))
        return 0;
    bool gone;
    serve_ipc_poll(ipc, &gone);
    if (!gone && os_path_exists(request)) /* unparseable: answered once seen unchanged */
        serve_ipc_poll(ipc, &gone);
    /* every request is answered and taken away */
    if (gone || os_path_exists(request) || !os_path_exists(response))
        __builtin_trap();
    os_remove(response);
    return 0;
}
