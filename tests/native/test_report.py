"""report.html of native winagent runs (fake desktop, fake LLM), checked in headless
Chromium: one step element per step line of trace.jsonl (every line but the summary
line), every image decoded, no console error, the final answer or the error shown,
the key absent; `winagent report DIR` writes the same page again and
`winagent report LOGDIR` an index whose links lead to working reports."""
import os
import signal
import subprocess
import tempfile
import time
import unittest

import watest
import wabrowser
from watest import fake_llm, tool_call, run_dirs, read_trace, assert_secret_absent

from test_loop import EXE, KEY, Run, final


class ReportChecks(unittest.TestCase):
    def check_report(self, run_dir, keys=()):
        facts = wabrowser.check_run_report(self, run_dir, KEY, keys=keys)
        assert_secret_absent(self, run_dir, KEY)
        return facts


class FinishedRun(ReportChecks):
    def test_every_step_call_observation_and_the_answer_are_shown(self):
        steps = [
            {"tool_calls": [tool_call({"action": "click", "element": "${element:Button:Save}"})],
             "text": "I will click Save. The key is " + KEY + " (it must not show)."},
            {"tool_calls": [tool_call({"action": "window_screenshot", "window": "Keypad"})]},
            {"tool_calls": [tool_call({"action": "click", "x": 500, "y": 500}),
                            tool_call({"command": "echo hi"}, name="powershell")]},
            {"tool_calls": [tool_call({"action": "teleport"})]},
            final("Saved <b>it</b> & done."),
        ]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake).run()
        self.assertEqual(r.code, 0, r.err)
        d = r.run_dir()
        facts = self.check_report(d, keys=["j", "j", "k", "e"])
        self.assertEqual(facts["title"], "save the file")
        self.assertEqual(facts["finalAnswer"], "Saved <b>it</b> & done.")
        self.assertEqual(facts["exitCode"], "0")
        self.assertIn("ok", facts["summaryClass"])
        # Pictures: the tree of steps 0-1 inline, the image of step 2, the crosshairs.
        self.assertIn("step-02-window_screenshot.png", [i["src"] for i in facts["images"]])
        self.assertIn("step-03-click+annotate.png", [i["src"] for i in facts["images"]])
        self.assertGreaterEqual(facts["trees"], 2)
        self.assertIn('[3] Button "Save"', facts["bodyText"])
        # Verdict, tool result, shell output, the failed call standing out.
        self.assertIn("auto: tree rejected (3 interactive elements but none has Name)",
                      facts["bodyText"])
        self.assertIn("I will click Save. The key is [redacted]", facts["bodyText"])
        self.assertEqual(facts["failedSteps"], ["step-4"])
        self.assertIn('unknown action "teleport"', facts["bodyText"])
        # Timing bars: every phase of the trace, the longest one full width.
        phases = {b["phase"] for b in facts["timingBars"]}
        self.assertTrue({"llm", "action", "capture", "encode", "tree"} <= phases, phases)
        self.assertTrue(all(b["width"] >= 1 for b in facts["timingBars"]))
        # Keys: j, j, k step through, e jumps to the failed step.
        self.assertEqual(facts["focusAfterKeys"], ["step-0", "step-1", "step-0", "step-4"])

        # `winagent report DIR` writes the same page from trace.jsonl.
        path = os.path.join(d, "report.html")
        with open(path, "rb") as f:
            live = f.read()
        os.remove(path)
        p = subprocess.run([EXE, "report", d], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), os.path.join(d, "report.html"))
        with open(path, "rb") as f:
            self.assertEqual(f.read(), live)


    def test_an_answer_after_the_calls_is_shown_with_the_text_before_them(self):
        steps = [{"text": "I will click Save.", "text_after": "Saved the file.",
                  "tool_calls": [tool_call({"action": "click",
                                            "element": "${element:Button:Save}"})]}]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, provider="anthropic").run()
        self.assertEqual(r.code, 0, r.err)
        facts = self.check_report(r.run_dir())
        self.assertEqual(facts["finalAnswer"], "Saved the file.")
        self.assertIn("I will click Save.", facts["bodyText"])  # the model's words before
        self.assertIn('[3] Button "Save"', facts["bodyText"])  # the call's step


class StoppedRuns(ReportChecks):
    def test_report_is_whole_mid_run_and_after_ctrl_c(self):
        steps = [{"tool_calls": [tool_call({"action": "click", "element": "${element:Button:Save}"})]},
                 {"fault": "slow", "delay_s": 30}]
        with fake_llm({"steps": steps}) as fake:
            run = Run(fake)
            p = run.start()
            deadline = time.monotonic() + 30
            while len(fake.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertEqual(len(fake.requests), 2)
            # Mid-run: step 0 and step 1 are on the page, the end is still open.
            facts = self.check_report(run.run_dir())
            self.assertEqual(facts["steps"], 2)
            self.assertIn("pending", facts["summaryClass"])
            self.assertIn("No summary yet", facts["summary"])
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130, err)
        facts = self.check_report(run.run_dir())
        self.assertEqual(facts["exitCode"], "130")
        self.assertIn("failed", facts["summaryClass"])
        self.assertIn("interrupted (ctrl-c)", facts["summary"])
        self.assertIsNone(facts["finalAnswer"])

    def test_llm_error_is_shown(self):
        with fake_llm({"steps": [{"status": 429, "headers": {"Retry-After": "0"}}],
                       "after_end": "repeat_last"}) as fake:
            r = Run(fake).run()
        self.assertEqual(r.code, 2, r.err)
        facts = self.check_report(r.run_dir())
        self.assertEqual(facts["steps"], 1)  # step 0: the task and the first observation
        self.assertEqual(facts["exitCode"], "2")
        self.assertIn("failed", facts["summaryClass"])
        self.assertIn("LLM error: ", facts["summary"])
        self.assertIn("429", facts["summary"])

    def test_step_limit_is_shown(self):
        steps = [{"tool_calls": [tool_call({"action": "wait", "seconds": 0})]}]
        with fake_llm({"steps": steps, "after_end": "repeat_last"}) as fake:
            r = Run(fake, "--max-steps", "2").run()
        self.assertEqual(r.code, 3, r.err)
        facts = self.check_report(r.run_dir())
        self.assertEqual(facts["steps"], 3)
        self.assertEqual(facts["exitCode"], "3")
        self.assertIn("step limit of 2 reached without a final answer", facts["summary"])

    def test_partial_last_line_of_a_killed_run(self):
        with fake_llm({"steps": [final("done")]}) as fake:
            r = Run(fake).run()
        d = r.run_dir()
        trace = os.path.join(d, "trace.jsonl")
        with open(trace, encoding="utf-8") as f:
            lines = f.read().splitlines()
        with open(trace, "w", encoding="utf-8") as f:  # as if killed while writing the end
            f.write("\n".join(lines[:-1]) + "\n" + lines[-1][:20])
        p = subprocess.run([EXE, "report", d], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        facts = wabrowser.page_facts(os.path.join(d, "report.html"))
        wabrowser.assert_page_sound(self, facts, d)
        self.assertEqual(facts["steps"], len(lines) - 1)
        self.assertIn("No summary yet", facts["summary"])
        self.assertIn("1 line of trace.jsonl could not be read", facts["summary"])
        self.assertEqual(facts["finalAnswer"], "done")


class Index(unittest.TestCase):
    def test_index_of_runs_links_to_every_report(self):
        with fake_llm({"steps": [final("first done")]}) as fake:
            first = Run(fake, prompt="first task").run()
        log_dir = first.log_dir
        with fake_llm({"steps": [{"tool_calls": [tool_call({"action": "wait", "seconds": 0})]}],
                       "after_end": "repeat_last"}) as fake:
            second = Run(fake, "--max-steps", "1", "--log-dir", log_dir, prompt="second task")
            second.run()
        with fake_llm({"steps": [{"status": 500}], "after_end": "repeat_last"}) as fake:
            third = Run(fake, "--log-dir", log_dir, prompt="third task").run()
        self.assertEqual((first.code, second.code, third.code), (0, 3, 2))
        dirs = run_dirs(log_dir)
        self.assertEqual(len(dirs), 3)
        os.remove(os.path.join(dirs[1], "report.html"))  # rebuilt by the index
        os.makedirs(os.path.join(log_dir, "not-a-run"))  # ignored
        p = subprocess.run([EXE, "report", log_dir], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        index = os.path.join(log_dir, "index.html")
        self.assertEqual(p.stdout.strip(), index)
        self.assertTrue(os.path.exists(os.path.join(dirs[1], "report.html")))
        facts = wabrowser.page_facts(index, follow=True)
        wabrowser.assert_page_sound(self, facts, log_dir)
        self.assertEqual(facts["rows"], 3)
        for word in ("first task", "second task", "third task", "finished (0)",
                     "step limit reached (3)", "LLM error (2)"):
            self.assertIn(word, facts["bodyText"])
        self.assertEqual(len(facts["followed"]), 3)
        for page, d in zip(facts["followed"], reversed(dirs)):  # newest first
            wabrowser.assert_page_sound(self, page, d)
            self.assertEqual(page["url"], wabrowser.file_url(os.path.join(d, "report.html")))
            self.assertEqual(page["steps"], len(wabrowser.step_lines(read_trace(d))))
        assert_secret_absent(self, log_dir, KEY)

    def test_usage_errors(self):
        empty = os.path.join(tempfile.mkdtemp(prefix="wa-report-"), "empty")
        os.makedirs(empty)
        for argv, words in (([], "usage: winagent report"),
                            ([empty], "neither a run folder"),
                            ([empty + "/nope"], "is not a folder"),
                            ([empty, empty], "not a batch folder"),  # a merge of batches
                            ([empty, "--out", empty], "usage: winagent report"),
                            (["--bogus", empty], "--bogus")):
            p = subprocess.run([EXE, "report", *argv], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, (argv, p.stderr))
            self.assertIn(words, p.stderr)
        p = subprocess.run([EXE, "report", "--help"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("LOGDIR", p.stdout)


if __name__ == "__main__":
    watest.main()
