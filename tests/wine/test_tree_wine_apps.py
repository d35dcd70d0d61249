"""The accessibility tree of Wine's own programs (notepad, regedit): what the HWND +
MSAA source finds in applications that are not ours."""
import json
import os
import subprocess
import time
import unittest

import watest
from watest import run_winagent


def wait_tree(sel, timeout=30.0):
    """The tree of the window sel once it exists (the program may still be starting)."""
    deadline = time.monotonic() + timeout
    while True:
        r = run_winagent("tree", "--window", sel, "--json")
        if r.returncode == 0:
            return json.loads(r.stdout), r.stderr
        if time.monotonic() > deadline:
            raise AssertionError("no tree of %r within %.0fs: %s" % (sel, timeout, r.stderr))
        time.sleep(0.5)


def types(tree):
    return [(n["type"], n["name"]) for n in tree["nodes"]]


class WineProgram:
    """A Wine program started for one test, killed afterwards. It is started by its
    path in the prefix: `wine notepad` would run it under start.exe, and killing that
    would leave the program running."""

    def __init__(self, path):
        self.cmd = ["wine", os.path.join(os.environ["WINEPREFIX"], "drive_c", *path.split("/"))]

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        return False


class Notepad(unittest.TestCase):
    def test_edit_menu_bar_and_value(self):
        with WineProgram("windows/system32/notepad.exe"):
            t, verdict = wait_tree("Untitled - Notepad")
            self.assertEqual(t["window"]["process"].lower(), "notepad.exe", verdict)
            self.assertEqual(t["nodes"][0]["type"], "Window")
            edits = [n for n in t["nodes"] if n["type"] == "Edit"]
            self.assertEqual(len(edits), 1, types(t))
            self.assertEqual(edits[0].get("value"), "")
            self.assertTrue([n for n in t["nodes"] if n["type"] in ("MenuBar", "MenuItem")],
                            types(t))
            self.assertLess(t["walk_ms"], 3000)

            # set_value reaches the edit, and the next tree shows it as the value.
            r = run_winagent("act", json.dumps({"action": "set_value", "element": edits[0]["id"],
                                                "value": "hello from winagent"}),
                             "--window", "Untitled - Notepad")
            out = json.loads(r.stdout)
            self.assertTrue(out.get("ok"), (out, r.stderr))
            t, _ = wait_tree("Notepad")
            edit = [n for n in t["nodes"] if n["type"] == "Edit"][0]
            self.assertEqual(edit.get("value"), "hello from winagent")


class Regedit(unittest.TestCase):
    def test_tree_view_and_list_view(self):
        with WineProgram("windows/regedit.exe"):
            t, verdict = wait_tree("Registry Editor")
            self.assertEqual(t["window"]["process"].lower(), "regedit.exe", verdict)
            kinds = [n["type"] for n in t["nodes"]]
            self.assertIn("Tree", kinds, types(t))
            self.assertIn("List", kinds, types(t))
            self.assertIn("StatusBar", kinds, types(t))
            tree_view = [n for n in t["nodes"] if n["type"] == "Tree"][0]
            self.assertEqual(tree_view.get("class"), "SysTreeView32")
            self.assertLess(t["walk_ms"], 3000)


if __name__ == "__main__":
    watest.main()
