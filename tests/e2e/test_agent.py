"""Whole agent runs of the real winagent.exe under Wine against the fake LLM server:
testapp's event log proves what the application received."""
import os
import signal
import subprocess
import tempfile
import time
import unittest

import watest
from watest import (TestApp, fake_llm, tool_call, run_dirs, read_trace, win_path,
                    assert_secret_absent, WINAGENT_EXE)

KEY = "sk-e2e-SECRET-51d0"


class AgentRun(watest.AgentRun):
    def __init__(self, fake, *args, **kw):
        super().__init__(fake, *args, key=KEY, **kw)


def final(text, **kw):
    return dict({"text": text}, **kw)


class AgentOnTestapp(unittest.TestCase):
    def test_a11y_mode_clicks_by_element_and_coordinates_and_types(self):
        steps = [
            {"tool_calls": [tool_call({"action": "click", "element": "${element:Button:OK}"})],
             "expect": {"has_tree": True}},
            {"tool_calls": [tool_call({"action": "click",
                                       "x": "${element_x:Button:Apply}",
                                       "y": "${element_y:Button:Apply}"})]},
            {"tool_calls": [tool_call({"action": "type", "element": "${element:Edit:Name:}",
                                       "text": "héllo wörld"})]},
            final("typed"),
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, "--mode", "a11y").run()
            reqs = list(fake.requests)
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "Apply")
            app.wait_event(lambda e: e.get("event") == "text_changed"
                           and e.get("text") == "héllo wörld")
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "typed")
        self.assertEqual([q["template_error"] for q in reqs], [None] * 4)
        files = os.listdir(r.run_dir())
        self.assertIn("step-01-click+annotate.png", files)
        self.assertIn("step-02-click+annotate.png", files)
        assert_secret_absent(self, r.log_dir, KEY)

    def test_pixel_mode_finds_the_red_target_in_the_image(self):
        steps = [
            {"tool_calls": [tool_call({"action": "click", "x": "${color_x:ff0000}",
                                       "y": "${color_y:ff0000}"})],
             "expect": {"has_image": True}},
            final("clicked red"),
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, "--mode", "pixel", provider="gemini").run()
            hit = app.wait_event(lambda e: e.get("event") == "click"
                                 and e.get("control") == "canvas")
            errors = [q["template_error"] for q in fake.requests]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(errors, [None, None])
        self.assertEqual(hit["target"], "red", hit)
        self.assertIn("step-00-window_screenshot.png", os.listdir(r.run_dir()))

    def test_auto_mode_on_unnamed_owner_drawn_buttons_falls_back_to_pixels(self):
        with TestApp(panel="keypad"), fake_llm({"steps": [
                final("looked", expect={"has_image": True})]}) as fake:
            r = AgentRun(fake).run()
            failures = fake.requests[0]["expect_failures"]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(failures, [])
        self.assertRegex(r.agent_log(),
                         r"auto: tree rejected \(\d+ interactive elements but none has Name\), "
                         r"fell back to pixel")

    def test_faults_end_as_spec_says(self):
        steps = [
            {"tool_calls": [tool_call({"action": "left_click", "element": "${element:Button:OK}"})]},
            {"tool_calls": [tool_call({"action": "click"})],
             "quirks": {"invalid_arguments": "{\"action\": \"click\", \"x\":"}},
            {"tool_calls": [tool_call({"action": "invoke", "element": 999})],
             "expect": {"contains": "not valid JSON"}},
            final("survived", expect={"contains": "element_not_found"}),
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake).run()
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
            failures = [q["expect_failures"] for q in fake.requests]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(failures, [[]] * 4)

    def test_429_storm_exits_2_and_max_steps_exits_3(self):
        with TestApp(), fake_llm({"steps": [{"status": 429, "headers": {"Retry-After": "0"}}],
                                  "after_end": "repeat_last"}) as fake:
            r = AgentRun(fake).run()
        self.assertEqual(r.code, 2, r.err)
        self.assertEqual(read_trace(r.run_dir())[-1]["summary"]["exit_code"], 2)
        with TestApp(), fake_llm({"steps": [{"tool_calls": [tool_call({"action": "wait",
                                                                      "seconds": 0})]}],
                                  "after_end": "repeat_last"}) as fake:
            r = AgentRun(fake, "--max-steps", "2").run()
        self.assertEqual(r.code, 3, r.err)
        assert_secret_absent(self, r.log_dir, KEY)

    def interrupt_mid_step(self, how):
        with TestApp(), fake_llm({"steps": [{"fault": "slow", "delay_s": 30}]}) as fake:
            run = AgentRun(fake)
            p = run.start(stdin=subprocess.PIPE)
            deadline = time.monotonic() + 60
            while not fake.requests and time.monotonic() < deadline:
                time.sleep(0.2)
            t0 = time.monotonic()
            if how == "ctrl-c":
                p.send_signal(signal.SIGINT)  # Wine turns it into CTRL_C_EVENT
            else:
                p.stdin.close()  # the parent died: stdin closes
                p.stdin = None
            out, err = p.communicate(timeout=30)
            took = time.monotonic() - t0
        self.assertEqual(p.returncode, 130, err)
        self.assertLess(took, 10)
        if how == "ctrl-c":
            # Wine hands a Unix SIGINT to a process without a console by ending its stdin
            # pipe, so the reason may read either way; what matters is the exit code.
            self.assertRegex(err, r"interrupted \((ctrl-c|stdin closed)\)")
        else:
            self.assertIn("interrupted (stdin closed)", err)
        self.assertEqual(read_trace(run.run_dir())[-1]["summary"]["exit_code"], 130)

    def test_ctrl_c_mid_step_exits_130_with_log_intact(self):
        self.interrupt_mid_step("ctrl-c")

    def test_parent_death_mid_step_exits_130_with_log_intact(self):
        self.interrupt_mid_step("stdin")


class AgentOnNotepad(unittest.TestCase):
    def test_multi_step_task_saves_a_file(self):
        out_dir = tempfile.mkdtemp(prefix="wa-notepad-")
        target = os.path.join(out_dir, "hello.txt")
        steps = [
            {"tool_calls": [tool_call({"action": "launch", "command": "notepad"})]},
            {"tool_calls": [tool_call({"action": "type", "text": "hello from winagent"})]},
            {"tool_calls": [tool_call({"action": "key", "keys": "ctrl+s"})]},
            {"tool_calls": [tool_call({"action": "wait", "seconds": 1})]},
            {"tool_calls": [tool_call({"action": "type", "text": win_path(target)}),
                            tool_call({"action": "key", "keys": "enter"})]},
            {"tool_calls": [tool_call({"action": "wait", "seconds": 1})]},
            {"tool_calls": [tool_call({"action": "close_window"})]},
            final("saved"),
        ]
        with fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, prompt="open Notepad, type hello, save it").run()
        self.assertEqual(r.code, 0, r.err + r.out)
        deadline = time.monotonic() + 10
        while not os.path.exists(target) and time.monotonic() < deadline:
            time.sleep(0.2)
        with open(target, "rb") as f:
            data = f.read()
        self.assertIn(b"hello from winagent", data)


if __name__ == "__main__":
    watest.main()
