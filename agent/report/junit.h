/* A batch's results as JUnit XML, the file CI systems read (GitHub Actions reporters,
 * GitLab, Jenkins, Azure Pipelines), valid against Jenkins' JUnit schema
 * (jenkins-junit.xsd): one <testsuite> with one <testcase> per task, by its final state.
 *
 *   fail                            <failure type="fail" message="reason">
 *   error, timeout, budget          <error type="timeout" message="reason">
 *   dry_run, needs_confirmation,
 *   stopped                         <skipped>reason</skipped>
 *
 * A test case's time is its attempts' time; its <system-out> tells each attempt (outcome,
 * steps, tokens, time, run folder). That schema has no properties in a test case, so the
 * suite's <properties> hold the tally (each outcome, pass@1, pass@N, tokens) and each
 * task's figures under "<id>.steps", "<id>.tokens", "<id>.time_s", "<id>.attempts" and
 * "<id>.run_folder". Text is escaped, control characters and invalid UTF-8 replaced. */
#ifndef WINAGENT_AGENT_REPORT_JUNIT_H
#define WINAGENT_AGENT_REPORT_JUNIT_H

#include "agent/report/results.h"
#include "base/dynbuf.h"
#include "base/wa_err.h"

/* The XML of the tasks of r into out; suite names the test suite; attempts is the N of
 * pass@N (the batch's --attempts; 0: the most attempts a task had). */
wa_err junit_render(const struct results *r, const char *suite, int attempts, struct dynbuf *out);
/* The same, written (atomically) to path. */
wa_err junit_write(const struct results *r, const char *suite, int attempts, const char *path);

#endif
