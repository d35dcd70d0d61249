"""Act, then know, under Wine: typed text is in the control when the call returns (read
back by the core, and by the test at once), a click reports what it changed (a dialog and
its buttons as new) or that nothing changed, a window of another process that takes the
foreground gets none of the text (the core refocuses the target once and says so), and
a window of unnamed buttons comes as an image with numbered marks the model clicks by
number."""
import json
import os
import subprocess
import tempfile
import time
import unittest

import watest
from watest import (AgentRun, TestApp, fake_llm, tool_call, read_trace, WINAGENT_EXE)
from png_decode import decode_png  # tests/fake_llm is on sys.path (watest)

TEXT = "Grüße aus Köln — 東京と大阪 ✓ naïve café, ümlaut 12345 done"  # 50 characters
MAGENTA = (255, 0, 255)


def act(call, window=None, timeout=90):
    """One `winagent act`; stderr goes to a file, since a program it launches under Wine
    inherits it and would hold a pipe open."""
    args = ["act", json.dumps(call)]
    if window:
        args += ["--window", window]
    with tempfile.TemporaryFile() as err:
        r = subprocess.run(["wine", WINAGENT_EXE, *args], stdout=subprocess.PIPE, stderr=err,
                           timeout=timeout, stdin=subprocess.DEVNULL)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    lines = r.stdout.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        raise AssertionError("act printed nothing (exit %d): %s" % (r.returncode, stderr))
    return json.loads(lines[-1])


def tree(window):
    r = subprocess.run(["wine", WINAGENT_EXE, "tree", "--window", window, "--json"],
                       capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
                       encoding="utf-8", errors="replace")
    return json.loads(r.stdout)["data"]


def element_id(t, type_, name):
    return next(e["id"] for e in t["elements"] if e["type"] == type_ and e["name"] == name)


def norm(px, origin, size):
    return round((px - origin) * 999 / (size - 1))


def centre_norm(rect, frame):
    l, t, r, b = frame
    return norm((rect[0] + rect[2]) // 2, l, r - l), norm((rect[1] + rect[3]) // 2, t, b - t)


def edit_texts(app):
    return [e["text"] for e in app.events()
            if e.get("event") == "text_changed" and e.get("control") == "edit"]


class TypedTextArrives(unittest.TestCase):
    def test_act_type_is_complete_when_it_returns_ten_times_of_ten(self):
        self.assertGreaterEqual(len(TEXT), 40)
        with TestApp() as app:
            window = app.ready["hwnd"]
            edit = element_id(tree(window), "Edit", "Name:")
            for i in range(10):
                act({"action": "set_value", "element": edit, "value": ""}, window)
                r = act({"action": "type", "text": TEXT}, window)
                # read at once, without waiting: testapp logged every change it made
                texts = edit_texts(app)
                self.assertTrue(r["success"], r)
                self.assertTrue(r["data"]["verified"], r)
                self.assertEqual(texts[-1], TEXT, "try %d: %r" % (i + 1, texts[-3:]))

    def test_act_type_into_notepad_reads_back_whole(self):
        launched = act({"action": "launch", "command": "notepad"})
        hwnd = launched["data"]["window"]["hwnd"]
        try:
            for i in range(3):
                act({"action": "key", "keys": "ctrl+a delete"}, hwnd)
                r = act({"action": "type", "text": TEXT}, hwnd)
                self.assertTrue(r["success"], r)
                self.assertTrue(r["data"]["verified"], r)
                value = [e.get("value") for e in tree(hwnd)["elements"] if e["type"] == "Edit"]
                self.assertEqual(value, [TEXT], "try %d" % (i + 1))
        finally:
            act({"action": "close_window", "window": hwnd})
            act({"action": "key", "keys": "alt+n"})

    def test_the_loop_sees_the_whole_text_in_the_next_observation(self):
        steps = [
            {"tool_calls": [tool_call({"action": "type", "element": "${element:Edit:Name:}",
                                       "text": TEXT})]},
            {"text": "done", "expect": {"contains": "verified"}},
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, "--mode", "a11y").run()
            reqs = list(fake.requests)
            self.assertEqual(edit_texts(app)[-1], TEXT)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(reqs[1]["expect_failures"], [])
        body = json.dumps(reqs[1]["body"], ensure_ascii=False)
        self.assertIn('value=\\"%s\\"' % TEXT, body)
        call = read_trace(r.run_dir())[1]["tool_calls"][0]
        self.assertTrue(call["result"]["data"]["verified"], call)
        self.assertIn("settle", call["ms"])

    def test_a_control_without_a_value_is_said_so(self):
        # Typing into a focused check box: there is no value to read back, and the
        # result says so instead of claiming it was verified.
        with TestApp() as app:
            window = app.ready["hwnd"]
            t = tree(window)
            act({"action": "click", "element": element_id(t, "CheckBox", "Enable feature")},
                window)
            r = act({"action": "type", "text": "abc"}, window)
            self.assertTrue(r["success"], r)
            self.assertNotIn("verified", r["data"])
            self.assertTrue(any("not read back" in n for n in r.get("notes", [])), r)


class ChangesReported(unittest.TestCase):
    def test_a_click_that_opens_a_dialog_reports_it_and_its_buttons_as_new(self):
        with TestApp() as app:
            window = app.ready["hwnd"]
            opener = element_id(tree(window), "Button", "Open dialog...")
            r = act({"action": "click", "element": opener}, window)
            app.wait_event(lambda e: e.get("event") == "dialog_open")
            self.assertTrue(r["success"], r)
            changes = r["changes"]
            self.assertIsInstance(changes, list, r)
            opened = [c for c in changes if c.startswith("window opened:")]
            self.assertTrue(opened and '"testapp dialog"' in opened[0], changes)
            self.assertIn('a dialog of "winagent testapp"', opened[0])
            lines = r["observation"]["tree"].splitlines()
            for name in ("OK", "Cancel"):
                line = [l for l in lines if '] Button "%s"' % name in l]
                self.assertTrue(line and line[0].endswith(" new"), lines)
            act({"action": "key", "keys": "esc"}, "testapp dialog")

    def test_a_click_on_empty_space_reports_nothing_changed(self):
        with TestApp() as app:
            frame = app.ready["rect"]
            cl, ct, cr, cb = app.ready["client_rect"]
            # between the OK row and the owner-drawn row, left of the canvas: nothing there
            x, y = norm(cl + 420, frame[0], frame[2] - frame[0]), norm(ct + 120, frame[1],
                                                                    frame[3] - frame[1])
            r = act({"action": "click", "x": x, "y": y}, app.ready["hwnd"])
            self.assertTrue(r["success"], r)
            self.assertEqual(r["changes"], "nothing changed", r)


    def test_the_loop_does_not_walk_a_window_that_did_not_change(self):
        # A click on empty space changes nothing: the look after reuses the tree of the
        # look before (trace: tree_reused, no tree time); typing changes the window, so
        # the next look walks it again and shows the new value.
        with TestApp() as app:
            # The tree is reused when the window looks exactly as it did when it was
            # walked; a caret blinking in the Name box between the first observation and
            # the look before the click would make it walk again. A check box has no caret.
            focused = subprocess.run(
                ["wine", WINAGENT_EXE, "focus-element", "CheckBox:Enable feature", "--window",
                 "winagent testapp"], capture_output=True, text=True, timeout=90,
                stdin=subprocess.DEVNULL)
            self.assertEqual(focused.returncode, 0, focused.stderr)
            frame = app.ready["rect"]
            cl, ct, _, _ = app.ready["client_rect"]
            x = norm(cl + 420, frame[0], frame[2] - frame[0])
            y = norm(ct + 120, frame[1], frame[3] - frame[1])
            steps = [
                {"tool_calls": [tool_call({"action": "click", "x": x, "y": y})]},
                {"tool_calls": [tool_call({"action": "type", "element": "${element:Edit:Name:}",
                                           "text": "walked again"})]},
                {"text": "done"},
            ]
            with fake_llm({"steps": steps}) as fake:
                r = AgentRun(fake, "--mode", "a11y").run()
                reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertIn('value=\\"walked again\\"', json.dumps(reqs[2]["body"]))
        calls = [c for t in read_trace(r.run_dir()) for c in t.get("tool_calls", [])]
        click, typed = calls[0], calls[1]
        self.assertEqual(click["result"]["changes"], "nothing changed", click)
        self.assertTrue(click["observation"].get("tree_reused"), click)
        self.assertEqual(click["ms"]["tree"], 0)
        self.assertIn('Button \\"OK\\"', json.dumps(reqs[1]["body"]))
        self.assertNotIn("tree_reused", typed["observation"])
        self.assertGreater(typed["ms"]["tree"], 0)


class FocusKept(unittest.TestCase):
    def test_a_pop_up_of_another_process_never_gets_the_text(self):
        with TestApp() as app:
            window = app.ready["hwnd"]
            with TestApp("--title", "thief", "--x", "600", "--y", "300") as thief:
                # the thief took the foreground after the target was shown
                self.assertTrue(thief.ready["foreground"], thief.ready)
                r = act({"action": "type", "text": "hello world"}, window)
                self.assertTrue(r["success"], r)
                notes = " ".join(r.get("notes", []))
                self.assertIn("refocused", notes, r)
                self.assertIn('"thief"', notes, r)
                self.assertEqual(edit_texts(app)[-1], "hello world")
                time.sleep(0.5)
                self.assertEqual([e for e in thief.events()
                                  if e.get("event") in ("char", "key", "text_changed")], [])


class NumberedMarks(unittest.TestCase):
    def test_the_model_clicks_an_unnamed_key_by_its_number(self):
        with TestApp(panel="keypad") as app:
            frame = app.ready["rect"]
            x, y = centre_norm(app.ready["controls"]["key_7"], frame)
            steps = [
                {"tool_calls": [tool_call({"action": "click",
                                           "element": "${mark_at:%d:%d}" % (x, y)})],
                 "expect": {"has_image": True}},
                {"text": "pressed"},
            ]
            with fake_llm({"steps": steps}) as fake:
                r = AgentRun(fake).run()
                reqs = list(fake.requests)
            self.assertEqual(r.code, 0, r.err)
            self.assertIsNone(reqs[0]["template_error"], reqs[0])
            app.wait_event(lambda e: e.get("event") == "click" and e.get("label") == "7")
        first = read_trace(r.run_dir())[0]["observation"]
        self.assertIn("with numbered marks", first["verdict"])
        body = json.dumps(reqs[0]["body"])
        self.assertIn("numbered box on each interactive element", body)
        # The debug image of the click shows the same marks: magenta boxes.
        with open(os.path.join(r.run_dir(), "step-01-click+annotate.png"), "rb") as f:
            img = decode_png(f.read())
        k = app.ready["controls"]["key_7"]
        sx, sy = k[0] - frame[0], (k[1] + k[3]) // 2 - frame[1]
        self.assertEqual(img.pixel(sx, sy)[:3], MAGENTA)


if __name__ == "__main__":
    watest.main()
