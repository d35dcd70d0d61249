"""Replay that checks, with the real winagent.exe under Wine: a run recorded on testapp
replays on the same scene with a complete log folder of its own, and on a changed scene
stops at the first step that does not fit, naming it, before anything is sent there."""
import json
import os
import tempfile
import unittest

import wabrowser
import watest
from watest import TestApp, fake_llm, tool_call, read_trace, run_dirs, win_path

from test_agent import KEY, AgentRun, final

STEPS = [
    {"tool_calls": [tool_call({"action": "click", "element": "${element:Button:OK}"})]},
    {"tool_calls": [tool_call({"action": "click", "x": "${element_x:Button:Apply}",
                               "y": "${element_y:Button:Apply}"})]},
    {"tool_calls": [tool_call({"action": "type", "element": "${element:Edit:Name:}",
                               "text": "replayed"})]},
    final("done"),
]


def clicks(app, control):
    return [e for e in app.events() if e.get("event") == "click" and e.get("control") == control]


def mouse_downs(app):
    return [e for e in app.events() if e.get("event") == "mouse" and e.get("kind") == "down"]


class Replay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with TestApp() as app, fake_llm({"steps": STEPS}) as fake:
            rec = AgentRun(fake, "--mode", "a11y", prompt="click OK and Apply, then type").run()
            assert rec.code == 0, rec.err
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
        cls.trace = os.path.join(rec.run_dir(), "trace.jsonl")
        recorded = read_trace(rec.run_dir())
        calls = [c for line in recorded for c in line.get("tool_calls", [])]
        # what replay checks against was recorded
        assert "element_ref" in calls[0], calls[0]
        assert calls[1]["receiver"]["title"] == "winagent testapp", calls[1]
        assert calls[1]["receiver"]["process"].lower() == "testapp.exe", calls[1]

    def replay(self, *extra):
        log_dir = tempfile.mkdtemp(prefix="wa-replay-")
        r = watest.run_winagent("--replay", win_path(self.trace), "--log-dir", win_path(log_dir),
                                *extra, timeout=120)
        dirs = run_dirs(log_dir)
        self.assertEqual(len(dirs), 1, (os.listdir(log_dir), r.stderr))
        return r, dirs[0]

    def test_same_scene_replays_with_a_folder_of_its_own(self):
        with TestApp() as app:
            r, d = self.replay()
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), "replayed 3 calls")
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "Apply")
            app.wait_event(lambda e: e.get("event") == "text_changed"
                           and e.get("text") == "replayed")
        for name in ("agent.log", "trace.jsonl", "report.html"):
            self.assertTrue(os.path.exists(os.path.join(d, name)), name)
        trace = read_trace(d)
        self.assertEqual([t.get("step") for t in trace if "step" in t], [0, 1, 2, 3])
        self.assertIn("Replay of", trace[0]["task"])
        self.assertEqual(trace[-1]["summary"]["outcome"], "finished")
        steps = [t for t in trace if t.get("tool_calls")]
        for t in steps:  # each step has its observation file, saved beside the trace
            obs = t["tool_calls"][0]["observation"]
            self.assertTrue(os.path.exists(os.path.join(d, obs["file"])), obs)
        # one kind of path separator in what the replay printed and logged
        log_line = [ln for ln in r.stderr.splitlines() if ln.startswith("log: ")][-1]
        self.assertNotIn("/", log_line[5:].replace(win_path(os.path.dirname(d)), ""))
        with open(os.path.join(d, "agent.log"), encoding="utf-8") as f:
            replaying = [ln for ln in f if "replaying " in ln][0]
        self.assertIn("\\", replaying)
        self.assertNotIn("/", replaying.split("replaying ", 1)[1])
        facts = wabrowser.check_run_report(self, d, KEY)
        self.assertEqual(facts["exitCode"], "0")

    def test_a_missing_element_stops_before_anything_is_sent(self):
        with TestApp(panel="keypad") as keypad:
            r, d = self.replay()
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn("diverged at recorded step 1", r.stderr)
            self.assertIn('Button "OK"', r.stderr)
            self.assertEqual(mouse_downs(keypad), [])
        trace = read_trace(d)
        self.assertIn("not in the tree", trace[1]["diverged"])
        self.assertEqual(trace[-1]["summary"]["outcome"], "diverged")
        facts = wabrowser.check_run_report(self, d, KEY)
        self.assertEqual(facts["exitCode"], "4")
        self.assertIn("diverged at recorded step 1", facts["bodyText"])

    def test_another_window_under_the_point_stops_the_replay(self):
        # The same controls in a window of another title: the element step re-aims, the
        # coordinate step finds that the window under its point is not the recorded one.
        with TestApp("--title", "winagent testapp copy") as app:
            r, d = self.replay()
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn("diverged at recorded step 2", r.stderr)
            self.assertIn("winagent testapp copy", r.stderr)
            self.assertEqual(len(clicks(app, "OK")), 1)
            self.assertEqual(clicks(app, "Apply"), [])
        trace = read_trace(d)
        self.assertIn("nothing was sent", trace[2]["diverged"])
        self.assertEqual(trace[2]["tool_calls"][0]["result"]["error"]["code"], "diverged")

    def test_dry_run_prints_the_plan_and_touches_nothing(self):
        with TestApp() as app:
            r, _ = self.replay("--dry-run")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn('1. step 1: desktop {"action":"click"', r.stdout)
            self.assertEqual(mouse_downs(app), [])


if __name__ == "__main__":
    watest.main()
