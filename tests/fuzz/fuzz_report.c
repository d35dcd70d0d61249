/* trace.jsonl as `winagent report` reads it: each input is a run folder's trace, from
 * which report_rebuild writes report.html (a trace shared for debugging is outside input
 * too: its numbers, texts and file names all reach the page). */
#include <stdio.h>
#include <stdlib.h>

#include "agent/report/report.h"
#include "base/os.h"
#include "tests/fuzz/harness.h"

static char run[4200], trace[4300];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(run, sizeof run, "%s/20261126-120000-fuzz", fuzz_setup());
    snprintf(trace, sizeof trace, "%s/trace.jsonl", run);
    char tree[4300];
    snprintf(tree, sizeof tree, "%s/step-01-click+a11y.txt", run);
    if (os_mkdir_p(run) || os_write_file(tree, "[1] Window \"Notepad\"\n", 21)) {
        fprintf(stderr, "fuzz: no run folder: %s\n", wa_err_detail());
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (os_write_file(trace, data, size) == WA_E_OK)
        report_rebuild(run);
    return 0;
}
