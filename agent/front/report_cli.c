/* `winagent report DIR|LOGDIR|BATCHDIR...`: a run's report.html again, the index of runs or
 * of a batch, or several batch folders merged into one. */
#include "agent/front/report_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/args.h"
#include "agent/front/cli.h"
#include "agent/report/junit.h"
#include "agent/batch/merge.h"
#include "agent/report/report.h"
#include "agent/report/report_index.h"
#include "agent/report/results.h"
#include "base/os.h"

#define DIRS_MAX 200

static const char report_usage[] =
    "usage: winagent report DIR|LOGDIR|BATCHDIR [--junit FILE]\n"
    "       winagent report BATCHDIR BATCHDIR... [--out DIR] [--junit FILE]\n"
    "  DIR       a run folder (with trace.jsonl): rebuilds DIR/report.html\n"
    "  LOGDIR    a folder of run folders: writes LOGDIR/index.html, building the\n"
    "            report.html of runs that have none\n"
    "  BATCHDIR  a batch folder (with results.jsonl): writes its index.html, and with\n"
    "            --junit its results as JUnit XML\n"
    "  several BATCHDIRs (the shards of a batch): merges them into one results.jsonl,\n"
    "            index.html and JUnit file (--junit, default DIR/junit.xml) in --out DIR,\n"
    "            a folder that holds them all (default: the deepest one that does)\n";

/* The one folder given: a run, a folder of runs, or a batch. */
static int report_one(const char *dir, const char *junit)
{
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
    wa_err e;
    if (os_path_exists(probe)) {
        if (junit)
            return exit_fail(wa_fail(WA_E_USAGE, "--junit is for batch folders; %s is a run", dir));
        if ((e = report_rebuild(path)))
            return exit_fail(e);
        printf("%s/report.html\n", path);
        return EXIT_OK;
    }
    if (junit && !report_is_batch(path))
        return exit_fail(
            wa_fail(WA_E_USAGE, "%s is not a batch folder: it has no results.jsonl", dir));
    int rows;
    if ((e = report_index(path, &rows)))
        return exit_fail(e);
    printf("%s/index.html\n", path);
    if (junit) {
        struct results res;
        results_init(&res);
        const char *one[] = {path};
        char suite[128];
        merge_suite_name(one, 1, suite, sizeof suite);
        e = results_load(&res, path, NULL);
        if (!e)
            e = junit_write(&res, suite, results_attempts_allowed(path), junit);
        results_cleanup(&res);
        if (e)
            return exit_fail(e);
        printf("%s\n", junit);
    }
    fprintf(stderr, "%d %s%s\n", rows, report_is_batch(path) ? "result" : "run",
            rows == 1 ? "" : "s");
    return EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    struct args a;
    args_init(&a, argc, argv, 1);
    if (args_flag(&a, "help", "h")) {
        fputs(report_usage, stdout);
        return EXIT_OK;
    }
    const char *out = args_value(&a, "out", NULL);
    const char *junit = args_value(&a, "junit", NULL);
    wa_err e = a.err ? a.err : args_check_unknown(&a);
    if (e)
        return exit_fail(e);
    int n = args_positional_count(&a);
    if (n == 0 || n > DIRS_MAX || (out && n < 2)) {
        fputs(report_usage, stderr);
        return EXIT_USAGE;
    }
    if (n == 1)
        return report_one(args_positional(&a, 0), junit);
    const char *dirs[DIRS_MAX];
    for (int i = 0; i < n; i++)
        dirs[i] = args_positional(&a, i);
    char *merged, *junit_path;
    struct tally t;
    if ((e = merge_batches(dirs, (size_t)n, out, junit, &merged, &junit_path, &t)))
        return exit_fail(e);
    char counts[256], pass_at[96];
    tally_line(&t, counts, sizeof counts);
    tally_pass_at(&t, pass_at, sizeof pass_at);
    printf("%s/index.html\n%s\n", merged, junit_path);
    fprintf(stderr, "merged %d batch folders: %d tasks: %s; %s\n", n, t.tasks, counts, pass_at);
    free(merged);
    free(junit_path);
    return EXIT_OK;
}
