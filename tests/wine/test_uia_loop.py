"""Whole agent runs on UIA-only windows (the scripted UIA client tests/uia_fake over
testapp's keypad) against the fake LLM: the loop sees the tree through UI Automation,
says so on every step's progress line and in agent.log, and clicks by element id."""
import os
import re
import tempfile
import time
import unittest

import uiafake
import watest
from uiafake import KEY_IDS, calculator_scene, element
from watest import TestApp, fake_llm, read_trace, run_dirs, tool_call

KEY = "sk-uia-SECRET-7e1a"


def setUpModule():
    uiafake.register()


def tearDownModule():
    uiafake.unregister()


class Run:
    """winagent.exe's loop against a fake LLM, with a scene."""

    def __init__(self, scene, fake, *args):
        self.log_dir = os.path.join(tempfile.mkdtemp(prefix="wa-uia-run-"), "logs")
        env = scene.env()
        env.update(LLM_API_KEY=KEY, WINAGENT_LLM_RETRIES="2", WINAGENT_LLM_MAX_WAIT_MS="300",
                   LLM_PROVIDER="", LLM_BASE_URL="", LLM_MODEL="")
        self.args = ["--base-url", fake.url + "/v1", "--model", "fake-model",
                     "--log-dir", watest.win_path(self.log_dir), *args, "use the calculator"]
        self.env = env

    def run(self, timeout=180):
        start = time.monotonic()
        r = watest.run_winagent(*self.args, timeout=timeout, env=self.env)
        self.secs = time.monotonic() - start
        self.code, self.out, self.err = r.returncode, r.stdout, r.stderr
        dirs = run_dirs(self.log_dir)
        assert len(dirs) == 1, (dirs, self.err)
        self.dir = dirs[0]
        with open(os.path.join(self.dir, "agent.log"), encoding="utf-8") as f:
            self.log = f.read()
        return self

    def step_lines(self):
        """The stderr progress lines of the steps, by step number."""
        lines = {}
        for line in self.err.splitlines():
            m = re.match(r"\[step (\d+)/\d+\] ", line)
            if m:
                lines[int(m.group(1))] = line
        return lines


def agent_run(scene, steps, *args):
    """A whole run with a scripted model: (Run, the model's request records)."""
    with fake_llm({"steps": steps}) as fake:
        r = Run(scene, fake, *args).run()
        return r, list(fake.requests)


def click(key):
    return {"tool_calls": [tool_call({"action": "click",
                                      "element": "${element:Button:%s}" % KEY_IDS[key]})],
            "expect": {"has_tree": True}}


# The end of a step's progress line (after "observe -> " on step 0, "| " after).
ACCEPTED = re.compile(r"[>|] auto: tree accepted \(\d+ elements \(\d+ interactive\), "
                      r"\d+ with names\); source uia$")


class CalculatorTask(unittest.TestCase):
    def test_the_loop_computes_by_clicking_elements_it_saw_through_uia(self):
        with TestApp(panel="keypad") as app:
            client = app.ready["client_rect"]
            mode = element("CheckBox", name="Scientific", patterns=["toggle"],
                           bounds=[client[0] + 2, client[1] + 2, client[0] + 12, client[1] + 12])
            scene = calculator_scene(app, extra=[mode])
            steps = [click("7"), click("+"), click("8"),
                     {"tool_calls": [tool_call({"action": "toggle",
                                                "element": "${element:CheckBox:Scientific}"})]},
                     click("="),
                     {"text": "7 + 8 = 15", "expect": {"has_tree": True}}]
            r, reqs = agent_run(scene, steps)
            for key in "7+8=":
                app.wait_event(lambda e: e["event"] == "click" and e.get("label") == key)
            labels = [e["label"] for e in app.events() if e["event"] == "click"]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "7 + 8 = 15")
        self.assertEqual(labels, list("7+8="))
        self.assertEqual([q["template_error"] for q in reqs], [None] * 6)
        self.assertEqual([q["expect_failures"] for q in reqs], [[]] * 6)
        # Every observation came from UI Automation, and each step's line says so.
        lines = r.step_lines()
        self.assertEqual(sorted(lines), [0, 1, 2, 3, 4, 5, 6])
        for step in range(0, 6):
            self.assertRegex(lines[step], ACCEPTED)
            self.assertIn(lines[step], r.log)
        self.assertRegex(lines[1], r'^\[step 1/30\] click \(\d+,\d+\) -> ok[, ]')
        # one walk per look, but a look after an action that changed nothing reuses its tree
        self.assertIn(len(scene.calls("ElementFromHandleBuildCache")), (5, 6))
        self.assertEqual(scene.calls("not_implemented"), [])
        # The toggle went through the pattern, and the next walk saw its effect.
        self.assertEqual([c["element"] for c in scene.calls("Toggle")], ["Scientific"])
        with open(os.path.join(r.dir, "step-04-toggle+a11y.txt"), encoding="utf-8") as f:
            self.assertRegex(f.read(), r'CheckBox "Scientific" @\(\d+,\d+\) checked')
        # The model's first click named the element the first tree showed for "7".
        with open(os.path.join(r.dir, "step-00-window_screenshot+a11y.txt"),
                  encoding="utf-8") as f:
            seven = int(re.search(r'\[(\d+)\] Button "num7Button"', f.read()).group(1))
        self.assertEqual(read_trace(r.dir)[1]["tool_calls"][0]["result"]["data"]["element"]["id"], seven)
        watest.assert_secret_absent(self, r.log_dir, KEY)


class UnnamedCalculator(unittest.TestCase):
    def test_rejected_tree_logs_each_unnamed_button_and_clicks_by_id(self):
        with TestApp(panel="keypad") as app:
            scene = calculator_scene(app, unnamed=True)
            # Ids as walked: [1] window, [2] display, [3] pad, [4]... the keys 7 8 9 4 5.
            steps = [{"tool_calls": [tool_call({"action": "click", "element": 8})],
                      "expect": {"has_image": True}},
                     {"text": "pressed 5", "expect": {"has_image": True}}]
            r, reqs = agent_run(scene, steps)
            app.wait_event(lambda e: e["event"] == "click" and e.get("label") == "5")
            keys = app.ready["controls"]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["expect_failures"] for q in reqs], [[], []])
        verdict = ("auto: tree rejected (13 interactive elements but none has Name), "
                   "fell back to pixel; source uia")
        lines = r.step_lines()
        self.assertTrue(lines[0].endswith("observe -> " + verdict + ", with numbered marks"),
                        lines[0])
        self.assertTrue(lines[1].endswith("| " + verdict + ", with numbered marks"), lines[1])
        self.assertIn(lines[1], r.log)
        debug = [l.split("DEBUG: ", 1)[1] for l in r.log.splitlines() if "DEBUG: unnamed" in l]
        want = ['unnamed Button hwnd=0x0 autoId="" class="Button" bounds=[%d,%d][%d,%d]'
                % tuple(keys["key_" + k]) for k in uiafake.KEYS]
        pad = uiafake.inset(app.ready["client_rect"], 10)
        want.append('unnamed Button hwnd=0x0 autoId="" class="Button" bounds=[%d,%d][%d,%d]'
                    % (pad[0], pad[3] - 8, pad[0] + 8, pad[3]))
        self.assertEqual(debug, want * 2)  # both observations
        self.assertIn("step-00-window_screenshot.png", os.listdir(r.dir))


class BlockingProvider(unittest.TestCase):
    def test_a_hung_walk_costs_one_step_and_the_next_walk_works(self):
        with TestApp(panel="keypad") as app:
            # The first walk's first call hangs for a minute, in a core without timeouts.
            scene = calculator_scene(app, faults=[{"call": "ElementFromHandleBuildCache",
                                                   "block_ms": 60000, "times": 1}],
                                     honor_timeouts=False)
            steps = [{"tool_calls": [tool_call({"action": "window_screenshot"})],
                      "expect": {"has_image": True}},
                     {"tool_calls": [tool_call({"action": "click",
                                                "element": "${element:Button:num5Button}"})],
                      "expect": {"has_tree": True}},
                     {"text": "done", "expect": {"has_tree": True}}]
            r, reqs = agent_run(scene, steps)
            app.wait_event(lambda e: e["event"] == "click" and e.get("label") == "5")
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["expect_failures"] for q in reqs], [[], [], []])
        lines = r.step_lines()
        self.assertRegex(lines[0], r"observe -> auto: tree rejected \(no tree: timed out: "
                                   r".*did not answer.*\), fell back to pixel$")
        self.assertRegex(lines[1], ACCEPTED)
        self.assertRegex(lines[2], ACCEPTED)
        self.assertEqual(len(scene.calls("fault")), 1)
        # One lost walk (its budget and grace second), not a minute.
        self.assertLess(r.secs, 30)


if __name__ == "__main__":
    watest.main()
