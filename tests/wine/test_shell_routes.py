"""The gate with the real winagent.exe under Wine.

With the shell off (MCP without --allow-shell, the loop with --shell off, replay),
routes to a shell receive nothing, known by what they are: shell32's Run dialog titled
"Ausführen", Wine's Task Manager's "Create New Task" (the same dialog, in taskmgr.exe),
Wine's Explorer window (keys that could reach its address bar), an address bar of Explorer's make (tests/apps/shellmimic.exe:
Wine's own file dialogs have none), terminals by their name (testapp copied as
alacritty.exe) and by their file (termmimic.exe, a copy named notes.exe that carries
WezTerm's version resource), the keys win+x, win+r and ctrl+shift+esc; a program on a
share (a UNC path, a drive Wine maps as a network drive) is not started.

With --apps notepad.exe nothing but notepad is listed, launched, observed or typed
into; its own dialogs work; a program it starts (F1's winhlp32.exe) is named in the
result of the key that started it and takes no input while it is in front."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

import watest
from watest import (AgentRun, TESTAPP_EXE, TestApp, WINAGENT_EXE, WineProgram, fake_llm,
                    read_trace, tool_call, win_path)

APPS = os.path.dirname(TESTAPP_EXE)
SHELLMIMIC = os.path.join(APPS, "shellmimic.exe")
TERMMIMIC = os.path.join(APPS, "termmimic.exe")
STATE = watest.Cli("wa-routes-state-")


def mcp(*args):
    return watest.McpSession(*args, env=STATE.env())


def wait_window(s, title, timeout=30):
    """The listed window whose title holds `title`, once it is there."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        j, _ = s.call("windows")
        for w in j["data"]["windows"]:
            if title in w["title"]:
                return w
        time.sleep(0.3)
    raise AssertionError("no window %r" % title)


def value_of(s, window, kind):
    """The value of the first element of that kind in window's state ("" when none)."""
    _, res = s.call("state", window=window)
    for c in res["content"][1:]:
        for line in c.get("text", "").splitlines():
            if "] %s " % kind in line and 'value="' in line:
                return line.split('value="', 1)[1].rsplit('"', 1)[0]
    return ""


class ShellOff(unittest.TestCase):
    def refused(self, s, window, text="cmd /c calc"):
        """type and keys into window are refused as routes to a shell; the reason."""
        j, _ = s.call("type", window=window, text=text, screenshot=False)
        self.assertEqual(j["error"]["code"], "shell_disabled", j)
        k, _ = s.call("keys", window=window, keys="enter", screenshot=False)
        self.assertEqual(k["error"]["code"], "shell_disabled", k)
        return j["error"]["message"]

    def test_the_run_dialog_in_any_language_and_task_managers_create_new_task(self):
        with WineProgram(SHELLMIMIC, "run", "Ausf\u00fchren"), \
                WineProgram("windows/system32/taskmgr.exe"):
            s = mcp()
            wait_window(s, "Ausf\u00fchren")
            why = self.refused(s, "Ausf\u00fchren")
            self.assertIn("Run dialog", why)
            self.assertEqual(value_of(s, "Ausf\u00fchren", "ComboBox"), "")
            # Task Manager's File > New Task opens shell32's Run dialog in taskmgr.exe:
            # opened with the permission, refused without it
            wait_window(s, "Task Manager")
            admin = mcp("--allow-shell")
            j, _ = admin.call("keys", window="Task Manager", keys="alt+f n", screenshot=False)
            self.assertTrue(j["success"], j)
            self.assertEqual(admin.close(), 0)
            wait_window(s, "Create New Task")
            self.assertIn("Run dialog", self.refused(s, "Create New Task"))
            self.assertEqual(value_of(s, "Create New Task", "ComboBox"), "")
            self.assertEqual(s.close(), 0)

    def test_address_bars_and_explorer_windows(self):
        with WineProgram(SHELLMIMIC, "addressbar"), \
                WineProgram("windows/explorer.exe", "C:\\"):
            s = mcp()
            wait_window(s, "file dialog")
            self.assertIn("address bar", self.refused(s, "file dialog", "powershell -nop"))
            # the file name box beside it takes text
            name = s.ref("Edit", "File name:", "file dialog")
            j, _ = s.call("type", window="file dialog", ref=name, text="hello.txt",
                          screenshot=False)
            self.assertTrue(j["success"], j)
            self.assertEqual(value_of(s, "file dialog", "Edit"), "")  # the address stays empty
            explorer = wait_window(s, "(C:)")
            # its items take browsing keys (the realprog suite renames with F2); keys that
            # can move the focus to its address bar, and text with a tab, are refused
            for keys in ("ctrl+l", "alt+d", "f4", "f6", "tab"):
                k, _ = s.call("keys", window=explorer["hwnd"], keys=keys, screenshot=False)
                self.assertEqual(k["error"]["code"], "shell_disabled", (keys, k))
                self.assertIn("Explorer window", k["error"]["message"])
            j, _ = s.call("type", window=explorer["hwnd"], text="\tcmd /c calc",
                          screenshot=False)
            self.assertEqual(j["error"]["code"], "shell_disabled", j)
            self.assertEqual(s.close(), 0)

    def test_terminals_by_name_and_by_their_file(self):
        tmp = tempfile.mkdtemp(prefix="wa-term-")
        notes = os.path.join(tmp, "notes.exe")
        shutil.copyfile(TERMMIMIC, notes)
        try:
            with TestApp(exe_name="alacritty.exe") as app, \
                    WineProgram(notes, "window", "notes"):
                s = mcp()
                self.assertIn("terminal", self.refused(s, "winagent testapp"))
                wait_window(s, "notes")
                self.assertIn("terminal", self.refused(s, "notes"))
                self.assertEqual(s.close(), 0)
                time.sleep(0.5)
                self.assertFalse([e for e in app.events() if e.get("event") == "char"])
            with TestApp() as app:  # the same program under its own name takes text
                s = mcp()
                j, _ = s.call("type", window="winagent testapp", text="ok", screenshot=False)
                self.assertTrue(j["success"], j)
                self.assertEqual(s.close(), 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_launcher_keys(self):
        with TestApp() as app:
            s = mcp()
            for keys in ("win+x", "win+r", "win+e", "ctrl+shift+esc"):
                j, _ = s.call("keys", window="winagent testapp", keys=keys, screenshot=False)
                self.assertEqual(j["error"]["code"], "shell_disabled", (keys, j))
            self.assertEqual(s.close(), 0)
            time.sleep(0.5)
            self.assertFalse([e for e in app.events() if e.get("event") == "key"])

    def test_a_program_on_a_share_is_not_started(self):
        prefix = os.environ["WINEPREFIX"]
        share = tempfile.mkdtemp(prefix="wa-share-")
        shutil.copyfile(TESTAPP_EXE, os.path.join(share, "update.exe"))
        link = os.path.join(prefix, "dosdevices", "y:")
        os.symlink(share, link)
        key = "HKLM\\Software\\Wine\\Drives"
        subprocess.run(["wine", "reg", "add", key, "/v", "y:", "/d", "network", "/f"],
                       capture_output=True, timeout=60, check=True)
        try:
            s = mcp()
            # a UNC path is not even looked up; a mapped drive is a network one where
            # Windows says so (GetDriveTypeW: Wine answers it for drives its mount manager
            # made, not for this one), and far from the system's folders either way
            j, _ = s.call("launch", command="\\\\127.0.0.1\\share\\update.exe")
            self.assertEqual(j["error"]["code"], "shell_disabled", j)
            self.assertIn("network share", j["error"]["message"])
            j, _ = s.call("launch", command="Y:\\update.exe")
            self.assertEqual(j["error"]["code"], "shell_disabled", j)
            time.sleep(1.0)
            j, _ = s.call("windows")
            self.assertNotIn("winagent testapp", [w["title"] for w in j["data"]["windows"]])
            self.assertEqual(s.close(), 0)
        finally:
            subprocess.run(["wine", "reg", "delete", key, "/v", "y:", "/f"],
                           capture_output=True, timeout=60)
            os.unlink(link)
            shutil.rmtree(share, ignore_errors=True)


class ShellOffInTheLoopAndReplay(unittest.TestCase):
    def test_the_loop_and_its_replay_type_into_no_run_dialog(self):
        with WineProgram(SHELLMIMIC, "run", "Ausf\u00fchren"):
            s = mcp("--allow-shell")  # the dialog in front: it is where the loop's input goes
            wait_window(s, "Ausf\u00fchren")
            j, _ = s.call("focus", window="Ausf\u00fchren", screenshot=False)
            self.assertTrue(j["success"], j)
            self.assertEqual(s.close(), 0)
            steps = [{"tool_calls": [tool_call({"action": "type", "text": "calc"}),
                                     tool_call({"action": "key", "keys": "win+x"})]},
                     {"text": "done"}]
            with fake_llm({"steps": steps}) as fake:
                run = AgentRun(fake, "--shell", "off", env=STATE.env()).run()
            self.assertEqual(run.code, 0, run.err)
            typed, keys = run.results()
            self.assertEqual(typed["error"]["code"], "shell_disabled", typed)
            self.assertIn("Run dialog", typed["error"]["message"])
            self.assertEqual(keys["error"]["code"], "shell_disabled", keys)
            # a trace that did type there (with the permission) replays nothing into it
            trace = os.path.join(tempfile.mkdtemp(prefix="wa-replay-"), "trace.jsonl")
            typed_call = read_trace(run.run_dir())[1]["tool_calls"][0]
            typed_call["result"] = {"success": True}
            typed_call["receiver"] = {"title": "Ausf\u00fchren", "class": "#32770",
                                      "process": "shellmimic.exe"}
            with open(trace, "w", encoding="utf-8") as f:
                f.write(json.dumps({"step": 0, "task": "recorded"}) + "\n")
                f.write(json.dumps({"step": 1, "tool_calls": [typed_call]}) + "\n")
            r = subprocess.run(["wine", WINAGENT_EXE, "--replay", win_path(trace),
                                "--log-dir", win_path(os.path.dirname(trace))],
                               capture_output=True, text=True, timeout=120,
                               stdin=subprocess.DEVNULL, env=STATE.env())
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("skipped", r.stderr)
            s = mcp()
            self.assertEqual(value_of(s, "Ausf\u00fchren", "ComboBox"), "")
            self.assertEqual(s.close(), 0)


class StoreApps(unittest.TestCase):
    def test_a_store_app_is_known_by_its_own_process_when_minimised_too(self):
        """A Store app's frame belongs to ApplicationFrameHost.exe; minimised, its app's
        CoreWindow leaves the frame for a top-level window of its own. The frame is the
        app's (matched by that window's title), and unidentified (left out, refused)
        when no such window tells whose it is."""
        tmp = tempfile.mkdtemp(prefix="wa-store-")
        host, app = os.path.join(tmp, "ApplicationFrameHost.exe"), os.path.join(tmp, "Vault.exe")
        shutil.copyfile(SHELLMIMIC, host)
        shutil.copyfile(SHELLMIMIC, app)
        try:
            with WineProgram(host, "class", "ApplicationFrameWindow", "Secrets"):
                s = mcp()
                time.sleep(3)  # its window is up (it is never listed)
                j, _ = s.call("windows")
                self.assertNotIn("Secrets", [w["title"] for w in j["data"]["windows"]])
                j, _ = s.call("state", window="Secrets")
                self.assertEqual(j["error"]["code"], "window_not_found", j)
                with WineProgram(app, "class", "Windows.UI.Core.CoreWindow", "Secrets"):
                    deadline = time.time() + 30
                    while True:
                        j, _ = s.call("windows")
                        mine = [w for w in j["data"]["windows"] if w["title"] == "Secrets"]
                        if len(mine) == 2 or time.time() > deadline:
                            break
                        time.sleep(0.3)
                    self.assertEqual({w["process"] for w in mine}, {"Vault.exe"}, mine)
                    self.assertEqual({w["class"] for w in mine},
                                     {"ApplicationFrameWindow", "Windows.UI.Core.CoreWindow"})
                self.assertEqual(s.close(), 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class AllowList(unittest.TestCase):
    def test_with_apps_notepad_nothing_but_notepad_exists(self):
        with TestApp() as app:
            s = mcp("--apps", "notepad.exe")
            j, _ = s.call("launch", command="notepad")
            self.assertTrue(j["success"], j)
            pad = j["data"]["window"]
            try:
                j, _ = s.call("windows")
                self.assertEqual({w["process"] for w in j["data"]["windows"]}, {"notepad.exe"})
                j, _ = s.call("state", window="winagent testapp")
                self.assertEqual(j["error"]["code"], "window_not_found", j)
                j, _ = s.call("type", window=pad["hwnd"], text="only notepad",
                              screenshot=False)
                self.assertTrue(j["success"], j)
                j, res = s.call("screenshot", window="winagent testapp")
                self.assertEqual(j["error"]["code"], "window_not_found", j)
                self.assertNotIn("image", [c["type"] for c in res["content"]])
                j, _ = s.call("launch", command=win_path(TESTAPP_EXE))
                self.assertEqual(j["error"]["code"], "denied", j)
                # input that would reach testapp at its point is refused (notepad moved
                # off it first, so that the point is testapp's)
                j, _ = s.call("move", window=pad["hwnd"], x=1300, y=700, width=500,
                              height=300, screenshot=False)
                self.assertTrue(j["success"], j)
                x, y = app.ready["rect"][0] + 60, app.ready["rect"][1] + 60
                j, _ = s.call("click-at", x=x, y=y, screenshot=False)
                self.assertEqual(j["error"]["code"], "denied", j)
                self.assertEqual(s.close(), 0)
            finally:  # notepad holds typed text: ended, not asked to close
                subprocess.run(["wine", "taskkill", "/f", "/pid", str(pad["pid"])],
                               capture_output=True, timeout=60)
            time.sleep(0.5)
            self.assertFalse([e for e in app.events() if e.get("event") in ("char", "click")])


class ProgramsOutsideTheList(unittest.TestCase):
    """F1 in notepad starts winhlp32.exe, which takes the foreground: with --apps notepad
    the result of that key names it (its program, not its title), and input is refused
    while it is in front, by a command that never saw it come up too. (Wine's winhlp32
    shows an error box that notepad waits for: notepad answers again once it is gone.)"""

    def end_winhlp32(self):
        r = subprocess.run(["wine", os.path.join(APPS, "procstat.exe"), "winhlp32.exe"],
                           capture_output=True, text=True, timeout=60)
        for line in r.stdout.splitlines():
            subprocess.run(["wine", "taskkill", "/f", "/pid", str(json.loads(line)["pid"])],
                           capture_output=True, timeout=60)

    def cli(self, *args, apps="notepad.exe"):
        r = subprocess.run(["wine", WINAGENT_EXE, *args, "--json"], capture_output=True,
                           text=True, encoding="utf-8", errors="replace", timeout=120,
                           stdin=subprocess.DEVNULL, env=STATE.env(WINAGENT_APPS=apps))
        return json.loads(r.stdout)

    def test_a_listed_name_is_only_the_installed_program_of_that_name(self):
        with TestApp(exe_name="notepad.exe") as app:  # a notepad.exe users could write
            for apps in ("notepad", "notepad.exe", "NOTE*"):
                j = self.cli("windows", apps=apps)
                self.assertNotIn(app.ready["hwnd"], [w["hwnd"] for w in j["data"]["windows"]])
                j = self.cli("state", "--window", str(app.ready["hwnd"]), apps=apps)
                self.assertEqual(j["error"]["code"], "window_not_found", j)
                j = self.cli("launch", win_path(app.exe), apps=apps)
                self.assertEqual(j["error"]["code"], "denied", j)
                self.assertIn("not installed", j["error"]["message"])
            # its whole path names it
            j = self.cli("state", "--window", str(app.ready["hwnd"]), apps=win_path(app.exe))
            self.assertTrue(j["success"], j)

    def test_a_window_it_brings_up_is_named_and_takes_no_input(self):
        with WineProgram("windows/system32/notepad.exe"):
            deadline = time.time() + 30
            while not self.cli("state", "--window", "Notepad").get("success"):
                self.assertLess(time.time(), deadline, "notepad did not come up")
                time.sleep(0.5)
            try:
                j = self.cli("keys", "f1", "--window", "Notepad")
                self.assertTrue(j["success"], j)
                changes = "\n".join(j["changes"]) if isinstance(j["changes"], list) \
                    else j["changes"]
                self.assertIn("outside --apps: a window of winhlp32.exe", changes)
                self.assertNotEqual(changes, "nothing changed")
                j = self.cli("type", "hello", "--window", "Notepad")
                self.assertEqual(j["error"]["code"], "denied", j)
                self.assertIn("winhlp32.exe", j["error"]["message"])
                self.assertIn("is in front", j["error"]["message"])
                self.end_winhlp32()
                j = self.cli("type", "hello", "--window", "Notepad")
                self.assertTrue(j["success"], j)
                self.assertTrue(j["data"].get("verified"), j)
            finally:
                self.end_winhlp32()


if __name__ == "__main__":
    watest.main()
