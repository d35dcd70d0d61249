"""The Windows backend's window slots under Wine: listing, focus, move, state, close and
launch of testapp and of Wine's notepad, through `winagent windows` and `winagent act`,
checked against window information and testapp's own event log."""
import json
import subprocess
import tempfile
import time
import unittest

import watest
from watest import TestApp, WINAGENT_EXE


def winagent(*args, timeout=120):
    """Runs winagent.exe; returns (exit code, stdout, stderr).

    stderr goes through a file, not a pipe: under Wine a program winagent launches
    inherits its Unix stderr (Wine keeps fd 2 for its debug output), so a pipe would
    stay open, and the call hang, until notepad exits."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.run(["wine", WINAGENT_EXE, *args], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=err, timeout=timeout)
        err.seek(0)
        return (p.returncode, p.stdout.decode("utf-8", "replace"),
                err.read().decode("utf-8", "replace"))


def windows():
    code, out, err = winagent("windows", "--json")
    if code != 0:
        raise AssertionError("windows --json failed: %s" % err)
    return json.loads(out)["data"]["windows"]


def window(hwnd):
    """The listed window with this handle, or None."""
    return next((w for w in windows() if w["hwnd"] == hwnd), None)


def act(call, window=None):
    """Runs one desktop call; returns its result JSON (the last stdout line)."""
    args = ["act", json.dumps(call)]
    if window:
        args += ["--window", window]
    code, out, err = winagent(*args)
    lines = out.strip().splitlines()
    if not lines:
        raise AssertionError("act printed nothing (exit %d): %s" % (code, err))
    return json.loads(lines[-1])


def wait_for(pred, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.2)


class Notepad:
    """Wine's notepad started with `winagent act launch` (the backend's launch by
    name); closed without saving at the end."""

    def __enter__(self):
        self.result = act({"action": "launch", "command": "notepad"})
        self.hwnd = self.result.get("data", {}).get("window", {}).get("hwnd")
        return self

    def __exit__(self, *exc):
        for w in windows():
            if w["process"] == "notepad.exe":
                act({"action": "close_window", "window": w["hwnd"]})
        # An unsaved-changes prompt answers "No" to Alt+N.
        for _ in range(3):
            if not any(w["process"] == "notepad.exe" for w in windows()):
                break
            act({"action": "key", "keys": "alt+n"})
            time.sleep(0.5)
        return False


class WindowList(unittest.TestCase):
    def test_testapp_is_listed_with_its_pid_process_class_and_frame(self):
        with TestApp() as app:
            w = window(app.ready["hwnd"])
            self.assertIsNotNone(w, windows())
            self.assertEqual(w["title"], "winagent testapp")
            self.assertEqual(w["class"], "WinagentTestApp")
            self.assertEqual(w["pid"], app.ready["pid"])
            self.assertEqual(w["process"], "testapp.exe")
            self.assertEqual(w["rect"], app.ready["rect"])
            self.assertEqual(w["state"], "normal")
            self.assertTrue(w["foreground"])

    def test_list_is_in_z_order_and_skips_invisible_windows(self):
        with TestApp() as app, Notepad() as pad:
            listed = windows()
            hwnds = [w["hwnd"] for w in listed]
            self.assertIn(pad.hwnd, hwnds)
            self.assertIn(app.ready["hwnd"], hwnds)
            # notepad came up last, so it is above testapp
            self.assertLess(hwnds.index(pad.hwnd), hwnds.index(app.ready["hwnd"]))
            # only titled windows: no IME, DDE or tray helpers
            self.assertTrue(all(w["title"] for w in listed), listed)
            self.assertFalse(any(w["class"] in ("IME", "Shell_TrayWnd") for w in listed))


class TestappWindow(unittest.TestCase):
    def test_focus_brings_it_back_over_notepad(self):
        with TestApp() as app, Notepad() as pad:
            hwnd = app.ready["hwnd"]
            self.assertTrue(window(pad.hwnd)["foreground"])
            r = act({"action": "focus_window", "window": hwnd})
            self.assertTrue(r["success"], r)
            self.assertTrue(window(hwnd)["foreground"])
            app.wait_event(lambda e: e.get("event") == "activate" and e["active"]
                           and e["t"] > app.ready["t"])
            r = act({"action": "focus_window", "window": "notepad"})
            self.assertTrue(r["success"], r)
            self.assertTrue(window(pad.hwnd)["foreground"])
            self.assertFalse(window(hwnd)["foreground"])

    def test_focus_raises_a_foreground_window_another_program_lies_over(self):
        # A window shown without activation comes up over the foreground window, which
        # keeps the foreground: focusing that window must bring it back on top, or
        # clicks on it go to the other program.
        with TestApp() as app:
            hwnd = app.ready["hwnd"]
            with TestApp("--activate", "0", "--title", "cover") as cover:
                self.assertTrue(window(hwnd)["foreground"])
                self.assertFalse(window(cover.ready["hwnd"])["foreground"])
                r = act({"action": "focus_window", "window": hwnd})
                self.assertTrue(r["success"], r)
                l, t, rr, b = app.ready["rect"]
                bl, bt, br, bb = app.ready["controls"]["OK"]
                r = act({"action": "click",
                         "x": int(((bl + br) // 2 - l) * 999 / (rr - l - 1) + 0.5),
                         "y": int(((bt + bb) // 2 - t) * 999 / (b - t - 1) + 0.5)}, window=hwnd)
                self.assertTrue(r["success"], r)
                app.wait_event(lambda e: e.get("event") == "click" and e["control"] == "OK")
                self.assertFalse([e for e in cover.events() if e.get("event") == "click"])

    def test_focus_on_a_window_with_a_modal_dialog_activates_the_dialog(self):
        with TestApp() as app:
            hwnd = app.ready["hwnd"]
            l, t, r, b = app.ready["rect"]
            bl, bt, br, bb = app.ready["controls"]["Open dialog..."]
            act({"action": "click", "x": int(((bl + br) // 2 - l) * 999 / (r - l - 1) + 0.5),
                 "y": int(((bt + bb) // 2 - t) * 999 / (b - t - 1) + 0.5)}, window=hwnd)
            app.wait_event(lambda e: e.get("event") == "dialog_open")
            with Notepad() as pad:
                self.assertTrue(window(pad.hwnd)["foreground"])
                r = act({"action": "focus_window", "window": hwnd})
                self.assertTrue(r["success"], r)
                dialog = [w for w in windows() if w["title"] == "testapp dialog"]
                self.assertTrue(dialog and dialog[0]["foreground"], windows())
                act({"action": "type", "text": "to the dialog"})
                app.wait_event(lambda e: e.get("event") == "text_changed"
                               and e["control"] == "dialog_edit" and e["text"] == "to the dialog")

    def test_move_and_resize_to_the_exact_frame(self):
        with TestApp() as app:
            hwnd = app.ready["hwnd"]
            r = act({"action": "move_window", "window": hwnd,
                     "x": 230, "y": 150, "width": 800, "height": 600})
            self.assertTrue(r["success"], r)
            self.assertEqual(window(hwnd)["rect"], [230, 150, 1030, 750])
            app.wait_event(lambda e: e.get("event") == "window"
                           and e["rect"] == [230, 150, 1030, 750] and e["state"] == "restored")

    def test_minimize_maximize_restore(self):
        with TestApp() as app:
            hwnd = app.ready["hwnd"]
            for state, logged, listed in (("minimize", "minimized", "minimized"),
                                          ("maximize", "maximized", "maximized"),
                                          ("restore", "restored", "normal"),
                                          ("minimize", "minimized", "minimized"),
                                          ("restore", "restored", "normal")):
                r = act({"action": "set_window_state", "window": hwnd, "state": state})
                self.assertTrue(r["success"], r)
                self.assertEqual(window(hwnd)["state"], listed, state)
                app.wait_event(lambda e: e.get("event") == "window" and e["state"] == logged)
            # restored to where it was, and a maximised frame covers the work area only
            self.assertEqual(window(hwnd)["rect"], app.ready["rect"])
            act({"action": "set_window_state", "window": hwnd, "state": "maximize"})
            self.assertEqual(window(hwnd)["rect"], [0, 0] + app.ready["screen"])

    def test_focus_restores_a_minimised_window(self):
        with TestApp() as app:
            hwnd = app.ready["hwnd"]
            act({"action": "set_window_state", "window": hwnd, "state": "minimize"})
            self.assertEqual(window(hwnd)["state"], "minimized")
            r = act({"action": "focus_window", "window": hwnd})
            self.assertTrue(r["success"], r)
            w = window(hwnd)
            self.assertEqual(w["state"], "normal")
            self.assertTrue(w["foreground"])

    def test_close_sends_wm_close_and_the_window_goes(self):
        with TestApp() as app:
            hwnd = app.ready["hwnd"]
            r = act({"action": "close_window", "window": hwnd})
            self.assertTrue(r["success"], r)
            app.wait_event(lambda e: e.get("event") == "close")
            self.assertIsNone(window(hwnd))
            self.assertEqual(app.proc.wait(10), 0)

    def test_a_stale_handle_is_window_not_found(self):
        with TestApp() as app:
            hwnd = app.ready["hwnd"]
            act({"action": "close_window", "window": hwnd})
            app.proc.wait(10)
            r = act({"action": "focus_window", "window": hwnd})
            self.assertFalse(r["success"], r)
            self.assertEqual(r["error"]["code"], "window_not_found")
            self.assertIn(hwnd, r["error"]["message"])


class NotepadWindow(unittest.TestCase):
    def test_launch_by_name_returns_its_window(self):
        with Notepad() as pad:
            self.assertTrue(pad.result["success"], pad.result)
            w = pad.result["data"]["window"]
            self.assertEqual(w["process"], "notepad.exe")
            self.assertEqual(w["class"], "Notepad")
            self.assertIn("Notepad", w["title"])
            self.assertIsNotNone(window(pad.hwnd))

    def test_move_state_and_focus(self):
        with TestApp() as app, Notepad() as pad:
            r = act({"action": "move_window", "window": pad.hwnd,
                     "x": 300, "y": 200, "width": 640, "height": 480})
            self.assertTrue(r["success"], r)
            self.assertEqual(window(pad.hwnd)["rect"], [300, 200, 940, 680])
            for state, listed in (("maximize", "maximized"), ("minimize", "minimized"),
                                  ("restore", "normal")):
                r = act({"action": "set_window_state", "window": pad.hwnd, "state": state})
                self.assertTrue(r["success"], r)
                self.assertEqual(window(pad.hwnd)["state"], listed)
            self.assertEqual(window(pad.hwnd)["rect"], [300, 200, 940, 680])
            act({"action": "focus_window", "window": app.ready["hwnd"]})
            r = act({"action": "focus_window", "window": pad.hwnd})
            self.assertTrue(r["success"], r)
            self.assertTrue(window(pad.hwnd)["foreground"])

    def test_close_with_unsaved_text_leaves_the_prompt_up(self):
        with Notepad() as pad:
            act({"action": "type", "text": "unsaved words"}, window=pad.hwnd)
            r = act({"action": "close_window", "window": pad.hwnd})
            self.assertTrue(r["success"], r)  # not an error: the application asks first
            listed = windows()
            self.assertIsNotNone(window(pad.hwnd), "notepad closed without asking")
            prompt = [w for w in listed if w["process"] == "notepad.exe"
                      and w["hwnd"] != pad.hwnd]
            self.assertTrue(prompt, listed)
            self.assertTrue(prompt[0]["foreground"], prompt)
            act({"action": "key", "keys": "alt+n"})
            wait_for(lambda: window(pad.hwnd) is None, what="notepad to close")


if __name__ == "__main__":
    watest.main()
