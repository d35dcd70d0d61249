"""report.html of a real winagent.exe run under Wine on testapp, checked in headless
Chromium like the native runs' reports: a step element per step line, every
observation and crosshair image decoded, tree text inline, the error and the final
answer shown, the key absent; winagent.exe report rebuilds the same page and writes
the index."""
import os
import unittest

import watest
import wabrowser
from watest import TestApp, fake_llm, tool_call, read_trace, win_path, assert_secret_absent

from test_agent import KEY, AgentRun, final


class ReportOfAWineRun(unittest.TestCase):
    def test_report_of_a_run_on_testapp(self):
        steps = [
            {"tool_calls": [tool_call({"action": "click", "element": "${element:Button:OK}"})],
             "text": "Clicking OK first.", "expect": {"has_tree": True}},
            {"tool_calls": [tool_call({"action": "window_screenshot", "mode": "pixel"})]},
            {"tool_calls": [tool_call({"action": "click", "x": "${color_x:ff0000}",
                                       "y": "${color_y:ff0000}"})],
             "expect": {"has_image": True}},
            {"tool_calls": [tool_call({"action": "invoke", "element": 999})]},
            final("Clicked OK and the red target."),
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, prompt="click OK, then the red target").run()
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "canvas")
            errors = [q["template_error"] for q in fake.requests]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(errors, [None] * 5)
        d = r.run_dir()
        shot = os.path.join(r.tmp, "report.png")
        facts = wabrowser.check_run_report(self, d, KEY, keys=["j", "e"], screenshot=shot)
        self.assertEqual(facts["steps"], 6)  # step 0 and five model turns
        self.assertEqual(facts["finalAnswer"], "Clicked OK and the red target.")
        self.assertEqual(facts["exitCode"], "0")
        self.assertEqual(facts["failedSteps"], ["step-4"])
        self.assertEqual(facts["focusAfterKeys"], ["step-0", "step-4"])
        srcs = [i["src"] for i in facts["images"]]
        for name in ("step-01-click+annotate.png", "step-02-window_screenshot.png",
                     "step-03-click+annotate.png"):
            self.assertIn(name, srcs)
        self.assertIn('Button "OK"', facts["bodyText"])
        self.assertIn("element_not_found", facts["bodyText"])
        with open(shot, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        assert_secret_absent(self, r.log_dir, KEY)

        # winagent.exe report DIR writes the same page; LOGDIR gets an index.
        path = os.path.join(d, "report.html")
        with open(path, "rb") as f:
            live = f.read()
        os.remove(path)
        p = watest.run_winagent("report", win_path(d))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), live)
        p = watest.run_winagent("report", win_path(r.log_dir))
        self.assertEqual(p.returncode, 0, p.stderr)
        index = wabrowser.page_facts(os.path.join(r.log_dir, "index.html"), follow=True)
        wabrowser.assert_page_sound(self, index, r.log_dir)
        self.assertEqual(index["rows"], 1)
        self.assertIn("click OK, then the red target", index["bodyText"])
        self.assertEqual(index["followed"][0]["steps"],
                         len(wabrowser.step_lines(read_trace(d))))
        wabrowser.assert_page_sound(self, index["followed"][0], d)

    def test_report_of_a_run_that_hit_the_step_limit(self):
        with TestApp(), fake_llm({"steps": [{"tool_calls": [tool_call({"action": "wait",
                                                                      "seconds": 0})]}],
                                  "after_end": "repeat_last"}) as fake:
            r = AgentRun(fake, "--max-steps", "2").run()
        self.assertEqual(r.code, 3, r.err)
        facts = wabrowser.check_run_report(self, r.run_dir(), KEY)
        self.assertEqual(facts["exitCode"], "3")
        self.assertIn("failed", facts["summaryClass"])
        self.assertIn("step limit of 2 reached", facts["summary"])
        self.assertIsNone(facts["finalAnswer"])


if __name__ == "__main__":
    watest.main()
