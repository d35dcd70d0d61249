/* `winagent report DIR|LOGDIR`: a run's report.html again, or the index of runs. */
#include "agent/front/report_cli.h"

#include <stdio.h>
#include <string.h>

#include "base/args.h"
#include "agent/front/cli.h"
#include "agent/run/report.h"
#include "agent/run/report_index.h"
#include "base/os.h"

static const char report_usage[] =
    "usage: winagent report DIR|LOGDIR\n"
    "  DIR     a run folder (with trace.jsonl): rebuilds DIR/report.html\n"
    "  LOGDIR  a folder of run folders: writes LOGDIR/index.html, building the\n"
    "          report.html of runs that have none\n";

int cmd_report(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    if (args_flag(&a, "help", "h")) {
        fputs(report_usage, stdout);
        return EXIT_OK;
    }
    wa_err e = args_check_unknown(&a);
    const char *dir = args_positional(&a, 0);
    if (!e && (!dir || args_positional(&a, 1))) {
        fputs(report_usage, stderr);
        return EXIT_USAGE;
    }
    if (e)
        return exit_fail(e);
    char path[4200];
    snprintf(path, sizeof path, "%s", dir);
    size_t len = strlen(path);
    while (len > 1 && (path[len - 1] == '/' || path[len - 1] == '\\'))
        path[--len] = '\0';
    /* DIR/trace.jsonl names its run folder. */
    if (!os_is_dir(path) && len > 12 && strcmp(path + len - 11, "trace.jsonl") == 0 &&
        (path[len - 12] == '/' || path[len - 12] == '\\'))
        path[len - 12] = '\0';
    if (!os_is_dir(path))
        return exit_fail(wa_fail(WA_E_USAGE, "%s is not a folder", dir));
    char probe[4300];
    snprintf(probe, sizeof probe, "%s/trace.jsonl", path);
    if (os_path_exists(probe)) {
        if ((e = report_rebuild(path)))
            return exit_fail(e);
        printf("%s/report.html\n", path);
        return EXIT_OK;
    }
    int runs;
    if ((e = report_index(path, &runs)))
        return exit_fail(e);
    printf("%s/index.html\n", path);
    fprintf(stderr, "%d run%s\n", runs, runs == 1 ? "" : "s");
    return EXIT_OK;
}
