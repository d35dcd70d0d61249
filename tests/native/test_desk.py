"""The person at the desk and the loop guards, in whole runs of the native winagent on
the fake desktop: ask_user answered at a console (a pseudo-terminal), answered "no
person is available" at once with nobody there, and through an MCP client that declares
elicitation (the official TypeScript SDK); the loop waiting for a scripted person; a run
that alternates between two calls, or acts on a screen that never changes, ends early
with exit code 4 naming the pattern."""
import json
import os
import pty
import select
import subprocess
import tempfile
import time
import unittest

import watest
from watest import fake_llm, tool_call, read_trace, SRC

from test_loop import Run, final, page_of, EXE

ASK = {"name": "ask_user", "arguments": {"question": "Which report should I open?"}}

SCENE = {
    "monitors": [{"rect": [0, 0, 1920, 1080], "primary": True}],
    "windows": [{
        "hwnd": 256, "title": "Report - Viewer", "process": "viewer.exe", "pid": 42,
        "rect": [100, 50, 1100, 850], "foreground": True, "color": "#ffffff",
        "tree": {"type": "Window", "name": "Report - Viewer", "bounds": [100, 50, 1100, 850],
                 "children": [
                     {"type": "ComboBox", "name": "Zoom", "bounds": [200, 70, 400, 90],
                      "patterns": ["expand"], "states": ["collapsed"]},
                     {"type": "Edit", "name": "Notes", "bounds": [100, 100, 1100, 850],
                      "states": ["focused"], "value": "", "patterns": ["value"]}]}}]}


def scene_file(extra=None):
    fd, path = tempfile.mkstemp(prefix="scene-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(dict(SCENE, **(extra or {})), f)
    return path


class AskUser(unittest.TestCase):
    def test_answered_by_the_person_at_the_console(self):
        steps = [{"tool_calls": [ASK]},
                 final("opening the Monday report")]
        master, slave = pty.openpty()
        try:
            with fake_llm({"steps": steps}) as fake:
                run = Run(fake, stdin=slave, env={"WINAGENT_FAKE_SCENE": scene_file()})
                p = run.start()
                os.close(slave)
                slave = None
                err = b""
                deadline = time.monotonic() + 30
                while b"\n> " not in err and time.monotonic() < deadline:
                    ready, _, _ = select.select([p.stderr.fileno()], [], [], 0.5)
                    if ready:
                        err += os.read(p.stderr.fileno(), 4096)
                err = err.decode()
                self.assertIn("winagent asks: Which report should I open?\n> ", err)
                os.write(master, b"the one from Monday\n")
                out, rest = p.communicate(timeout=60)
                reqs = list(fake.requests)
        finally:
            os.close(master)
            if slave is not None:
                os.close(slave)
        self.assertEqual(p.returncode, 0, err + rest)
        answer = reqs[1]["body"]["messages"][-1]["content"]
        self.assertIn('"answer":"the one from Monday"', answer)
        self.assertIn('"answered":true', answer)
        # the question and the answer are in the trace and the report
        calls = [c for t in read_trace(run.run_dir()) for c in t.get("tool_calls", [])]
        self.assertEqual(calls[0]["arguments"]["question"], "Which report should I open?")
        self.assertEqual(calls[0]["result"]["data"]["answer"], "the one from Monday")
        page = page_of(run.run_dir())
        self.assertIn("Which report should I open?", page)
        self.assertIn("the one from Monday", page)

    def nobody(self, *args, stdin=subprocess.DEVNULL):
        steps = [{"tool_calls": [ASK]},
                 final("deciding on my own") | {"expect": {"contains": "no person is available"}}]
        with fake_llm({"steps": steps}) as fake:
            t0 = time.monotonic()
            r = Run(fake, *args, stdin=stdin,
                    env={"WINAGENT_FAKE_SCENE": scene_file()}).run()
            took = time.monotonic() - t0
            failures = [q["expect_failures"] for q in fake.requests]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(failures, [[], []])
        self.assertNotIn("winagent asks", r.err)
        self.assertLess(took, 20)
        return r

    def test_no_person_when_stdin_is_no_terminal(self):
        self.nobody()

    def test_no_person_when_unattended(self):
        master, slave = pty.openpty()
        try:
            self.nobody("--unattended", stdin=slave)
        finally:
            os.close(master)
            os.close(slave)

    def test_through_mcp_elicitation(self):
        env = dict(os.environ, MODE="elicit", ANSWER="the one from Monday",
                   COMMAND=json.dumps([EXE, "mcp"]), WINAGENT_FAKE_SCENE=scene_file())
        r = subprocess.run(["node", os.path.join(SRC, "tests", "mcp_client", "desk.mjs")],
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        facts = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(facts["answer"], {"answer": "the one from Monday", "answered": True})
        self.assertEqual(facts["asked"][0]["message"], "Which report should I open?")
        self.assertLess(facts["plain"]["ms"], 5000)


class TheLoopAndThePerson(unittest.TestCase):
    def test_the_run_pauses_and_says_so(self):
        steps = [{"tool_calls": [tool_call({"action": "type", "text": "mine"})]},
                 {"tool_calls": [tool_call({"action": "type", "text": " again"})]},
                 final("done") | {"expect": {"contains": ["user_active", "[person]"]}}]
        person = {"person": [{"after_inputs": 1, "for_ms": 3000, "type": "[person]"}]}
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--idle-seconds", "0.5",
                    env={"WINAGENT_FAKE_SCENE": scene_file(person)}).run()
            failures = [q["expect_failures"] for q in fake.requests]
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(failures, [[], [], []])
        self.assertIn("paused: a person is using the mouse or keyboard", r.err)
        self.assertRegex(r.err, r"resumed after \d+\.\d s paused")
        self.assertIn("-> error: user_active", r.err)
        typed = [a["text"] for a in r.actions() if a["op"] == "type_text"]
        self.assertEqual(typed, ["mine"])  # " again" was never sent

    def test_takeover_stop_ends_the_run(self):
        steps = [{"tool_calls": [tool_call({"action": "type", "text": "mine"})]},
                 {"tool_calls": [tool_call({"action": "type", "text": " again"})]},
                 final("never")]
        person = {"person": [{"after_inputs": 1, "for_ms": 3000, "type": "[person]"}]}
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--takeover", "stop",
                    env={"WINAGENT_FAKE_SCENE": scene_file(person)}).run()
        self.assertEqual(r.code, 8, r.err)
        self.assertIn("the person took over", r.err)
        summary = read_trace(r.run_dir())[-1]["summary"]
        self.assertEqual(summary["outcome"], "stopped by the person")


class LoopGuards(unittest.TestCase):
    def test_an_alternation_ends_the_run_after_one_warning(self):
        steps = [{"tool_calls": [tool_call({"action": "expand", "element": "${element:ComboBox:Zoom}"})]},
                 {"tool_calls": [tool_call({"action": "collapse",
                                            "element": "${element:ComboBox:Zoom}"})]}] * 4
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, env={"WINAGENT_FAKE_SCENE": scene_file()}).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 4, r.err)
        self.assertEqual(len(reqs), 6)  # ended at the sixth call, not the eighth
        self.assertRegex(r.err, r"stopping: stuck \(alternation\): the last 6 calls went back "
                                r"and forth between expand .* and collapse")
        told = [json.dumps(q["body"]).count("go back and forth between two actions")
                for q in reqs]
        self.assertEqual(told[4], 1)  # told once, after the fourth call
        summary = read_trace(r.run_dir())[-1]["summary"]
        self.assertEqual(summary["exit_code"], 4)
        self.assertIn("alternation", summary["error"])

    def test_actions_that_change_nothing_end_the_run(self):
        steps = [{"tool_calls": [tool_call({"action": "mouse_move", "x": 100 + 50 * i,
                                            "y": 600})]} for i in range(10)]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, env={"WINAGENT_FAKE_SCENE": scene_file()}).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 4, r.err)
        self.assertRegex(r.err, r"stopping: stuck \(no change\): 6 actions in a row changed "
                                r"nothing on screen")
        self.assertLess(len(reqs), 8)
        self.assertIn("the run ends", json.dumps(reqs[-1]["body"]))


if __name__ == "__main__":
    watest.main()
