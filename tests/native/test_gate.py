"""The gate in whole native runs (fake desktop, fake model): the loop with an allow-list
sees and acts on its programs only; with the shell off the loop types into no terminal
and no Run dialog; a model's invented tool name in a computer-use run writes no file
outside the run folder; the confirmations show no raw control character; replay acts
only where the recording acted; over MCP a restricted window answers like a missing one,
`resources/read` too."""
import glob
import json
import os
import subprocess
import tempfile
import unittest

from test_computer import ComputerRun, call
from test_loop import EXE, SCENE, Run
from watest import fake_llm, read_trace, tool_call

ESC = "\x1b"


def final(text):
    return {"text": text}


def scene_with(*windows, **fields):
    """scene_notepad.json with more windows in front (and top-level fields): its path."""
    with open(SCENE, encoding="utf-8") as f:
        scene = json.load(f)
    scene["windows"] = list(windows) + scene["windows"]
    scene.update(fields)
    path = os.path.join(tempfile.mkdtemp(prefix="wa-gate-scene-"), "scene.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(scene, f)
    return path


KEEPASS = {"hwnd": 768, "title": "Passwords - KeePass", "class": "KeePassForm",
           "process": "keepass.exe", "pid": 90, "rect": [1300, 600, 1700, 900],
           "tree": {"type": "Window", "name": "Passwords - KeePass"}}
TERMINAL = {"hwnd": 1280, "title": "wezterm", "class": "org.wezfurlong.wezterm",
            "process": "wezterm-gui.exe", "pid": 91, "rect": [0, 900, 600, 1000],
            "foreground": True,
            "tree": {"type": "Window", "name": "wezterm", "bounds": [0, 900, 600, 1000],
                     "children": [{"type": "Document", "name": "shell", "states": ["focused"],
                                   "bounds": [0, 920, 600, 1000], "value": ""}]}}
RUN_DIALOG = {"hwnd": 1281, "title": "Ausf\u00fchren", "class": "#32770",
              "process": "explorer.exe", "pid": 92, "rect": [0, 700, 400, 850],
              "tree": {"type": "Window", "name": "Ausf\u00fchren"}}


def results(run):
    return [c["result"] for t in read_trace(run.run_dir()) for c in t.get("tool_calls", [])]


class AllowList(unittest.TestCase):
    def test_the_loop_sees_and_acts_on_the_allowed_programs_only(self):
        steps = [{"tool_calls": [tool_call({"action": "list_windows"}),
                                 tool_call({"action": "focus_window", "window": "Keypad"}),
                                 tool_call({"action": "screenshot"})]},
                 final("done")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--apps", "notepad.exe", "--mode", "pixel").run()
        self.assertEqual(r.code, 0, r.err)
        listed, focus, shot = results(r)
        self.assertEqual([w["process"] for w in listed["data"]["windows"]], ["notepad.exe"])
        self.assertEqual(focus["error"]["code"], "window_not_found")
        self.assertNotIn("focus_window", [a["op"] for a in r.actions()])
        self.assertTrue(shot["success"], shot)


class ShellOff(unittest.TestCase):
    def test_the_loop_types_into_no_terminal_and_no_run_dialog(self):
        steps = [{"tool_calls": [tool_call({"action": "type", "text": "calc"}),
                                 tool_call({"action": "key", "keys": "win+x"}),
                                 tool_call({"action": "focus_window", "window": "Ausf"}),
                                 tool_call({"action": "type", "text": "cmd"})]},
                 final("done")]
        scene = scene_with(TERMINAL, RUN_DIALOG)
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--shell", "off", env={"WINAGENT_FAKE_SCENE": scene}).run()
        self.assertEqual(r.code, 0, r.err)
        typed, keys, focused, typed_run = results(r)
        self.assertEqual(typed["error"]["code"], "shell_disabled")
        self.assertIn("terminal", typed["error"]["message"])
        self.assertEqual(keys["error"]["code"], "shell_disabled")
        self.assertEqual(typed_run["error"]["code"], "shell_disabled", typed_run)
        self.assertIn("Run dialog", typed_run["error"]["message"])
        ops = [a["op"] for a in r.actions()]
        self.assertNotIn("type_text", ops)
        self.assertNotIn("press_keys", ops)


class NothingFromTheModelBecomesAPath(unittest.TestCase):
    def test_an_invented_tool_name_writes_no_file_outside_the_run_folder(self):
        outside = tempfile.mkdtemp(prefix="wa-outside-")
        names = ["/../../../../../../" + outside.lstrip("/") + "/x",
                 "..\\..\\..\\evil", "step/../../escape"]
        steps = [{"tool_calls": [call(n) for n in names]}, {"text": "done"}]
        with fake_llm({"steps": steps}) as fake:
            r = ComputerRun(fake).run()
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(os.listdir(outside), [])
        self.assertEqual(glob.glob(os.path.join(r.tmp, "*.png")), [])
        self.assertEqual(glob.glob(os.path.join(r.log_dir, "*.png")), [])
        files = os.listdir(r.run_dir())
        shots = [f for f in files if f.endswith(".png")]
        self.assertTrue(shots, files)  # the model got its screenshots all the same
        for f in files:
            self.assertRegex(f, r"^[A-Za-z0-9_+.-]+$")
        self.assertTrue(all(f.startswith("step-") or f in ("agent.log", "trace.jsonl",
                                                            "report.html") for f in files), files)


class Confirmations(unittest.TestCase):
    def test_the_shell_confirmation_shows_no_raw_control_character(self):
        command = "echo harmless\r" + ESC + "[2K" + ESC + "[8mdel /q C:\\*\u202e"
        steps = [{"tool_calls": [tool_call({"command": command}, name="powershell")]},
                 final("declined")]
        with fake_llm({"steps": steps}) as fake:
            run = Run(fake, "--shell", "confirm", stdin=subprocess.PIPE)
            p = run.start()
            out, err = p.communicate("n\n", timeout=60)
        self.assertEqual(p.returncode, 0, err)
        prompt = err[err.index("winagent wants to run"):]
        self.assertNotIn(ESC, prompt)
        self.assertNotIn("\r", prompt)
        self.assertNotIn("\u202e", prompt)
        self.assertIn("\\x1b[2K\\x1b[8mdel /q", prompt)
        self.assertIn("\\u{202E}", prompt)
        self.assertNotIn("run_shell", [a["op"] for a in run.actions()])

    def test_the_safety_confirmation_shows_no_raw_control_character(self):
        why = "Saving\r" + ESC + "[2K" + ESC + "[8m over a file"
        steps = [{"tool_calls": [call("click_at", x=130, y=38, safety_decision={
            "decision": "require_confirmation", "explanation": why})]}, {"text": "over"}]
        with fake_llm({"steps": steps}) as fake:
            r = ComputerRun(fake, "--shell", "confirm", answer="n\n").run()
        self.assertEqual(r.code, 7, r.err)  # the person said no: the run ends
        prompt = r.err[r.err.index("winagent wants to run"):]
        self.assertNotIn(ESC, prompt)
        self.assertNotIn("\r", prompt.split("\n")[1])
        self.assertIn("\\x1b[8m over a file", prompt)


class Replay(unittest.TestCase):
    def replay(self, calls, *args, scene=SCENE):
        tmp = tempfile.mkdtemp(prefix="wa-replay-")
        trace = os.path.join(tmp, "trace.jsonl")
        with open(trace, "w", encoding="utf-8") as f:
            f.write(json.dumps({"step": 0, "task": "recorded"}) + "\n")
            f.write(json.dumps({"step": 1, "tool_calls": calls}) + "\n")
        log = os.path.join(tmp, "actions.jsonl")
        env = dict(os.environ, WINAGENT_FAKE_SCENE=scene, WINAGENT_FAKE_LOG=log)
        p = subprocess.run([EXE, "--replay", trace, "--log-dir", os.path.join(tmp, "logs"),
                            *args], env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
        acts = []
        if os.path.exists(log):
            with open(log, encoding="utf-8") as f:
                acts = [json.loads(line) for line in f]
        return p, [a["op"] for a in acts]

    def test_input_with_no_recorded_receiver_is_not_performed(self):
        typed = {"name": "desktop", "arguments": {"action": "type", "text": "x"},
                 "result": {"success": True}}
        p, ops = self.replay([typed])
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("does not name the window that received this type", p.stderr)
        self.assertNotIn("type_text", ops)
        failed = dict(typed, result={"success": False, "error": {"code": "denied"}})
        p, ops = self.replay([failed])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("skipped", p.stderr)
        self.assertNotIn("type_text", ops)

    def test_a_program_the_recording_did_not_see_launched_is_not_launched(self):
        launch = {"name": "desktop", "arguments": {"action": "launch", "command": "notepad"},
                  "result": {"success": False, "error": {"code": "shell_disabled"}}}
        p, ops = self.replay([launch], "--shell", "on")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("did not see this program launched", p.stderr)
        self.assertNotIn("launch", ops)

    def test_the_shell_off_holds_for_a_recorded_terminal(self):
        typed = {"name": "desktop", "arguments": {"action": "type", "text": "calc"},
                 "result": {"success": True},
                 "receiver": {"hwnd": "0x500", "title": "wezterm",
                              "class": "org.wezfurlong.wezterm", "process": "wezterm-gui.exe"}}
        p, ops = self.replay([typed], scene=scene_with(TERMINAL))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("type_text", ops)


class TerminalText(unittest.TestCase):
    def test_titles_and_client_text_reach_the_terminal_escaped(self):
        evil = {"hwnd": 1400, "title": "Notes" + ESC + "]0;owned\x07" + ESC + "[2J\u202etxt.exe",
                "class": "Evil", "process": "notes.exe", "pid": 93, "rect": [0, 0, 10, 10],
                "tree": {"type": "Window", "name": "x"}}
        env = dict(os.environ, WINAGENT_FAKE_SCENE=scene_with(evil))
        for args in (["windows"], ["windows", "--json"]):
            r = subprocess.run([EXE, *args], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            for raw in (ESC, "\x07", "\u202e"):
                self.assertNotIn(raw, r.stdout, args)
            self.assertIn("Notes", r.stdout)
        self.assertIn("\\x1b[2J\\u{202E}", subprocess.run(
            [EXE, "windows"], capture_output=True, text=True, env=env).stdout)
        # a client's tool name in the MCP server's log
        p = subprocess.run([EXE, "mcp"], input="\n".join(json.dumps(m) for m in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "c" + ESC + "[31m", "version": "0"}}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "state", "arguments": {"window": ESC + "[2J"}}})) + "\n",
            capture_output=True, text=True, env=env, timeout=60)
        self.assertIn("winagent mcp:", p.stderr)
        self.assertNotIn(ESC, p.stderr)


class McpOracle(unittest.TestCase):
    def test_a_restricted_title_answers_like_a_missing_one(self):
        p = subprocess.Popen([EXE, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True,
                             env=dict(os.environ, WINAGENT_FAKE_SCENE=scene_with(KEEPASS)))
        n = [0]

        def ask(method, params):
            n[0] += 1
            p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method,
                                      "params": params}) + "\n")
            p.stdin.flush()
            while True:  # log notifications come between
                answer = json.loads(p.stdout.readline())
                if answer.get("id") == n[0]:
                    return answer

        try:
            ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "0"}})
            answers = {}
            for sel in ("KeePass", "KeePasX", "Passwords - KeeP", "Passwords - KeeX"):
                read = ask("resources/read", {"uri": "winagent://window/%s/tree" % sel})
                state = ask("tools/call", {"name": "state", "arguments": {"window": sel}})
                error = state["result"]["structuredContent"]["error"]
                answers[sel] = (read["error"]["code"],
                                read["error"]["message"].replace(sel, "SEL"),
                                error["code"], error["message"].replace(sel, "SEL"))
        finally:
            p.stdin.close()
            p.wait(10)
        self.assertEqual(answers["KeePass"], answers["KeePasX"])
        self.assertEqual(answers["Passwords - KeeP"], answers["Passwords - KeeX"])
        self.assertEqual(answers["KeePass"][2], "window_not_found")
        self.assertNotIn("keepass.exe", json.dumps(answers))


if __name__ == "__main__":
    unittest.main(verbosity=2)
