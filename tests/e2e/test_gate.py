"""The security gate is one property of the core: under Wine, the loop, `act`, replay,
the CLI and MCP are each refused on the window of a password manager (a copy of testapp
named keepass.exe), for acting and for observing, and that window receives nothing; a
click at a point where a restricted window lies on top is refused even when another
window was named; launch is not a shell; a window given by number is that window."""
import json
import os
import subprocess
import tempfile
import time
import unittest

import watest
from watest import AgentRun, McpSession, TestApp, fake_llm, tool_call, win_path, WINAGENT_EXE
from png_decode import decode_png  # tests/fake_llm is on sys.path (watest)

VAULT = "Vault - KeePass"
INPUT = ("click", "mouse", "char", "key", "text_changed", "accelerator", "checkbox",
         "list_select", "combo_select", "drag", "wheel")


def env(**extra):
    e = dict(os.environ, WINAGENT_STATE_DIR=win_path(tempfile.mkdtemp(prefix="wa-gate-st-")))
    for k in ("WINAGENT_RESTRICTED", "WINAGENT_MAX_ACTIONS_PER_S", "WINAGENT_AUDIT_LOG"):
        e.pop(k, None)
    e.update(extra)
    return e


def wa(*args, environ=None, timeout=60):
    return subprocess.run(["wine", WINAGENT_EXE, *args], capture_output=True, text=True,
                          encoding="utf-8", errors="replace", timeout=timeout,
                          stdin=subprocess.DEVNULL, env=environ or env())


def received(app):
    """The input events the app got after it was ready."""
    return [e for e in app.events() if e.get("event") in INPUT]


def norm(px, origin, size):
    return round((px - origin) * 999 / (size - 1))


def final(text):
    return {"text": text}


class EveryFrontEndIsRefused(unittest.TestCase):
    """keepass.exe is on the built-in list of restricted processes."""

    def vault(self, *args):
        return TestApp("--title", VAULT, "--x", "500", "--y", "200", *args,
                       exe_name="keepass.exe")

    def assert_untouched(self, app):
        time.sleep(1.0)  # input is asynchronous: give anything sent time to arrive
        self.assertEqual(received(app), [])

    def test_the_loop_is_refused_and_its_first_image_blacks_the_vault_out(self):
        steps = [
            {"tool_calls": [tool_call({"action": "window_screenshot", "window": VAULT})]},
            {"tool_calls": [tool_call({"action": "focus_window", "window": VAULT})]},
            {"tool_calls": [tool_call({"action": "type", "text": "hunter2"})]},
            {"tool_calls": [tool_call({"action": "click", "x": 500, "y": 500})]},
            {"tool_calls": [tool_call({"action": "key", "keys": "ctrl+a"})]},
            final("could not"),
        ]
        with self.vault() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, "--mode", "a11y").run()
            self.assertEqual(r.code, 0, r.err)
            codes = [res.get("error", {}).get("code") for res in r.results()]
            # named, it is not there (as a window that does not exist); in front, it is
            # refused at the moment of sending
            self.assertEqual(codes, ["window_not_found"] * 2 + ["denied"] * 3, r.results())
            for res in r.results()[:2]:
                self.assertNotIn("keepass", res["error"]["message"].lower().replace(
                    VAULT.lower(), ""))
            self.assert_untouched(app)
            # The first observation could not be the vault's tree: the monitor, with
            # the vault's rectangle black.
            shot = os.path.join(r.run_dir(), "step-00-screenshot.png")
            with open(shot, "rb") as f:
                img = decode_png(f.read())
            l, t, rr, b = app.ready["rect"]
            sx, sy = img.width / 1920, img.height / 1080
            for fx, fy in ((0.2, 0.2), (0.5, 0.5), (0.8, 0.7)):
                x, y = int((l + (rr - l) * fx) * sx), int((t + (b - t) * fy) * sy)
                self.assertEqual(img.pixel(x, y)[:3], (0, 0, 0), (x, y))
            first = watest.read_trace(r.run_dir())[0]["observation"]
            self.assertEqual(first["kind"], "image", first)

    def test_act_cli_and_mcp_are_refused(self):
        with self.vault() as app:
            # act, pinned to the vault and not
            # act pinned to the vault: no such window; in front, refused at sending
            r = wa("act", json.dumps({"action": "click", "x": 500, "y": 500}), "--window", VAULT)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("window_not_found", r.stdout + r.stderr)
            r = wa("act", json.dumps({"action": "type", "text": "hunter2"}))
            self.assertEqual(json.loads(r.stdout)["error"]["code"], "denied", r.stdout)
            # the CLI: observing and acting, named: as a window that is not there, so that
            # no fragment of its title can be read from the answers
            for args in (("state", "--window", VAULT), ("click", "OK", "--window", VAULT),
                         ("keys", "ctrl+a", "--window", VAULT),
                         ("screenshot", "--window", VAULT)):
                r = wa(*args)
                self.assertEqual(r.returncode, 1, (args, r.stdout))
                self.assertIn("window_not_found", r.stderr, args)
                self.assertNotIn("keepass.exe", r.stderr, args)
            # MCP
            s = McpSession(env=env())
            for name, args in (("state", {"window": VAULT}), ("click", {"window": VAULT,
                                                                        "ref": "OK"}),
                               ("type", {"window": VAULT, "text": "hunter2"})):
                j, res = s.call(name, **args)
                self.assertTrue(res["isError"], (name, j))
                self.assertEqual(j["error"]["code"], "window_not_found", (name, j))
                self.assertNotIn("keepass.exe", j["error"]["message"])
                self.assertNotIn("image", [c["type"] for c in res["content"]])
            j, _ = s.call("windows")
            self.assertNotIn("keepass.exe", [w["process"] for w in j["data"]["windows"]])
            self.assertEqual(s.close(), 0)
            self.assert_untouched(app)

    def test_replay_of_a_recorded_run_is_refused(self):
        # Recorded on an ordinary window of that title, replayed on the vault.
        steps = [{"tool_calls": [tool_call({"action": "click",
                                            "element": "${element:Button:OK}"})]},
                 {"tool_calls": [tool_call({"action": "type", "text": "hunter2"})]},
                 final("done")]
        with TestApp("--title", VAULT) as plain, fake_llm({"steps": steps}) as fake:
            rec = AgentRun(fake, "--mode", "a11y").run()
            self.assertEqual(rec.code, 0, rec.err)
            plain.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
        trace = os.path.join(rec.run_dir(), "trace.jsonl")
        with self.vault() as app:
            r = wa("--replay", win_path(trace), "--log-dir",
                   win_path(tempfile.mkdtemp(prefix="wa-gate-replay-")))
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn("denied", r.stderr)
            self.assert_untouched(app)


class PointsAndWindows(unittest.TestCase):
    def test_a_click_over_a_restricted_window_on_top_is_refused(self):
        with TestApp() as app, TestApp("--title", VAULT, "--x", "300", "--y", "300",
                                       "--topmost", "1", exe_name="keepass.exe") as vault:
            l, t, r, b = app.ready["rect"]
            cl, ct, cr, cb = app.ready["controls"]["canvas"]
            vl, vt, _, _ = vault.ready["rect"]
            x, y = max(cl, vl) + 30, max(ct, vt) + 30  # testapp's canvas, under the vault
            self.assertTrue(x < cr and y < cb)
            res = wa("click-at", str(x), str(y), "--window", "winagent testapp")
            self.assertEqual(res.returncode, 1, res.stdout)
            self.assertIn("denied", res.stderr)
            self.assertIn("keepass.exe", res.stderr)
            out = wa("act", json.dumps({"action": "click", "x": norm(x, l, r - l),
                                        "y": norm(y, t, b - t)}), "--window", "winagent testapp")
            self.assertEqual(json.loads(out.stdout)["error"]["code"], "denied", out.stdout)
            # the same point is fine once nothing restricted is there
            vault.kill()
            time.sleep(0.5)
            ok = wa("click-at", str(x), str(y), "--window", "winagent testapp")
            self.assertEqual(ok.returncode, 0, ok.stderr)
            app.wait_event(lambda e: e.get("event") == "mouse" and e.get("kind") == "down")
            self.assertEqual(received(vault), [])

    def test_type_into_a_window_given_as_an_integer_handle_while_another_is_in_front(self):
        with TestApp() as app:
            notepad = subprocess.Popen(["wine", "notepad"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            try:
                deadline = time.monotonic() + 20
                while "Notepad" not in wa("windows").stdout:
                    self.assertLess(time.monotonic(), deadline, "notepad did not start")
                    time.sleep(0.3)
                s = McpSession(env=env())
                j, _ = s.call("windows")
                front = [w for w in j["data"]["windows"] if w["foreground"]]
                self.assertEqual(front[0]["process"], "notepad.exe", j)
                hwnd = int(app.ready["hwnd"], 16)
                j, res = s.call("type", window=hwnd, text="to the handle", screenshot=False)
                self.assertFalse(res["isError"], j)
                self.assertEqual(j["window_state"]["hwnd"], app.ready["hwnd"])
                app.wait_event(lambda e: e.get("event") == "text_changed"
                               and e.get("text") == "to the handle")
                # a number that is no window's handle, and a name that matches nothing
                for window in (hwnd + 4000000, "no such window at all"):
                    j, res = s.call("type", window=window, text="lost")
                    self.assertTrue(res["isError"])
                    self.assertEqual(j["error"]["code"], "window_not_found", j)
                self.assertEqual(s.close(), 0)
            finally:
                notepad.kill()
                subprocess.run(["wine", WINAGENT_EXE, "close", "Notepad"], capture_output=True,
                               timeout=60, stdin=subprocess.DEVNULL)
        r = wa("click", "3", "--window", "no such window at all")
        self.assertIn("window_not_found", r.stderr)
        r = wa("act", json.dumps({"action": "focus_window", "window": "no such window at all"}))
        self.assertEqual(json.loads(r.stdout)["error"]["code"], "window_not_found")


class KeysStayHome(unittest.TestCase):
    def test_shell_commands_and_launched_programs_get_no_key(self):
        key = "sk-gate-KEY-never-inherited"
        steps = [{"tool_calls": [tool_call({"command": "echo [%LLM_API_KEY%][%OTHER_API_KEY%]"},
                                           name="powershell")]},
                 final("done")]
        with fake_llm({"steps": steps}) as fake:
            run = AgentRun(fake, key=key, env={"WINAGENT_SHELL": "cmd.exe /c",
                                               "OTHER_API_KEY": "also-secret"}).run()
        self.assertEqual(run.code, 0, run.err)
        out = run.results()[0]["data"]["stdout"]
        # cmd leaves an undefined variable as it was written
        self.assertIn("[%LLM_API_KEY%][%OTHER_API_KEY%]", out)
        self.assertNotIn(key, out)
        watest.assert_secret_absent(self, run.log_dir, key)


class LaunchIsNotAShell(unittest.TestCase):
    def test_a_command_line_needs_the_shell_permission(self):
        tmp = tempfile.mkdtemp(prefix="wa-gate-launch-")
        marker = os.path.join(tmp, "ran.txt")
        cmd = "cmd.exe /c echo ran > %s" % win_path(marker)
        audit = os.path.join(tmp, "audit.jsonl")
        r = wa("launch", cmd, "--audit-log", win_path(audit))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("shell_disabled", r.stderr)
        s = McpSession(env=env())
        j, res = s.call("launch", command=cmd)
        self.assertEqual(j["error"]["code"], "shell_disabled", j)
        j, res = s.call("launch", command="cmd.exe")  # an interpreter on its own, too
        self.assertEqual(j["error"]["code"], "shell_disabled", j)
        self.assertEqual(s.close(), 0)
        steps = [{"tool_calls": [tool_call({"action": "launch", "command": cmd})]}, final("no")]
        with fake_llm({"steps": steps}) as fake:
            run = AgentRun(fake, "--shell", "off").run()
        self.assertEqual(run.results()[0]["error"]["code"], "shell_disabled")
        time.sleep(1.0)
        self.assertFalse(os.path.exists(marker), "the command ran")
        # The audit line holds the whole command line.
        with open(audit, encoding="utf-8") as f:
            line = json.loads(f.readline())
        self.assertEqual(line["params"]["command"], cmd)
        self.assertEqual(line["outcome"], "shell_disabled")
        # With the permission it runs.
        r = wa("launch", cmd, "--allow-shell")
        self.assertEqual(r.returncode, 0, r.stderr)
        deadline = time.monotonic() + 20
        while not os.path.exists(marker):
            self.assertLess(time.monotonic(), deadline, "the allowed command did not run")
            time.sleep(0.2)


if __name__ == "__main__":
    watest.main()
