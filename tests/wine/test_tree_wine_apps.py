"""The accessibility tree of Wine's own programs (notepad, regedit): what the HWND +
MSAA source finds in applications that are not ours."""
import json
import os
import subprocess
import time
import unittest

import watest
from watest import run_winagent, WineProgram


def wait_tree(sel, timeout=30.0, ready=None):
    """The tree of the window sel once it exists (the program may still be starting) and,
    with ready, once ready(tree) holds: a program fills its window after showing it, so a
    tree taken at once may hold a toolbar without its buttons yet. Past the timeout, the
    last tree is returned for the test's own assertions to judge."""
    deadline = time.monotonic() + timeout
    while True:
        r = run_winagent("tree", "--window", sel, "--json")
        if r.returncode == 0:
            t = json.loads(r.stdout)["data"]
            if ready is None or ready(t) or time.monotonic() > deadline:
                return t, r.stderr
        elif time.monotonic() > deadline:
            raise AssertionError("no tree of %r within %.0fs: %s" % (sel, timeout, r.stderr))
        time.sleep(0.5)


def toolbars_filled(tree):
    bars = [n for n in tree["elements"] if n["type"] == "ToolBar"]
    return bool(bars) and all(len(children(tree, b)) > 3 for b in bars)


def types(tree):
    return [(n["type"], n["name"]) for n in tree["elements"]]


REGEDIT = "Registry Editor"
WINECFG = "Wine configuration"




class Notepad(unittest.TestCase):
    def test_edit_menu_bar_and_value(self):
        with WineProgram("windows/system32/notepad.exe"):
            t, verdict = wait_tree("Untitled - Notepad")
            self.assertEqual(t["window"]["process"].lower(), "notepad.exe", verdict)
            self.assertEqual(t["elements"][0]["type"], "Window")
            edits = [n for n in t["elements"] if n["type"] == "Edit"]
            self.assertEqual(len(edits), 1, types(t))
            self.assertEqual(edits[0].get("value"), "")
            self.assertTrue([n for n in t["elements"] if n["type"] in ("MenuBar", "MenuItem")],
                            types(t))
            self.assertLess(t["walk_ms"], 3000)

            # set_value reaches the edit, and the next tree shows it as the value.
            r = run_winagent("act", json.dumps({"action": "set_value", "element": edits[0]["id"],
                                                "value": "hello from winagent"}),
                             "--window", "Untitled - Notepad")
            out = json.loads(r.stdout)
            self.assertTrue(out.get("success"), (out, r.stderr))
            t, _ = wait_tree("Notepad")
            edit = [n for n in t["elements"] if n["type"] == "Edit"][0]
            self.assertEqual(edit.get("value"), "hello from winagent")


class Regedit(unittest.TestCase):
    def test_tree_view_and_list_view(self):
        with WineProgram("windows/regedit.exe"):
            t, verdict = wait_tree("Registry Editor")
            self.assertEqual(t["window"]["process"].lower(), "regedit.exe", verdict)
            kinds = [n["type"] for n in t["elements"]]
            self.assertIn("Tree", kinds, types(t))
            self.assertIn("List", kinds, types(t))
            self.assertIn("StatusBar", kinds, types(t))
            tree_view = [n for n in t["elements"] if n["type"] == "Tree"][0]
            self.assertEqual(tree_view.get("class"), "SysTreeView32")
            self.assertLess(t["walk_ms"], 3000)

    def test_tree_and_list_items(self):
        # Tree view and list view items come through a buffer in regedit's process.
        with WineProgram("windows/regedit.exe"):
            t, _ = wait_tree("Registry Editor")
            hkcu = item(t, "TreeItem", "HKEY_CURRENT_USER")
            if "expanded" in hkcu["states"]:
                act_ok(REGEDIT, "collapse", hkcu)
                t, _ = wait_tree("Registry Editor")
                hkcu = item(t, "TreeItem", "HKEY_CURRENT_USER")
            self.assertIn("collapsed", hkcu["states"])
            self.assertFalse(children(t, hkcu))
            act_ok(REGEDIT, "expand", hkcu)
            t, _ = wait_tree("Registry Editor")
            hkcu = item(t, "TreeItem", "HKEY_CURRENT_USER")
            self.assertIn("expanded", hkcu["states"])
            keys = [n["name"] for n in children(t, hkcu)]
            self.assertIn("Software", keys)
            self.assertIn("Environment", keys)

            act_ok(REGEDIT, "select", [n for n in children(t, hkcu) if n["name"] == "Environment"][0])
            t, _ = wait_tree("Registry Editor")
            hkcu = item(t, "TreeItem", "HKEY_CURRENT_USER")
            env = [n for n in children(t, hkcu) if n["name"] == "Environment"][0]
            self.assertIn("selected", env["states"])
            lst = [n for n in t["elements"] if n["type"] == "List"][0]
            values = [n for n in children(t, lst) if n["type"] == "ListItem"]
            self.assertEqual(values[0]["name"], "(Default)")
            # A report-mode row carries its other cells: regedit's type and data.
            self.assertRegex(values[0].get("value", ""), r"^Type: REG_SZ; Data: ")
            named = {v["name"]: v.get("value", "") for v in values}
            self.assertIn("TEMP", named, values)
            self.assertRegex(named["TEMP"], r"^Type: REG_(EXPAND_)?SZ; Data: .+")
            self.assertNotIn("selected", values[0]["states"])
            act_ok(REGEDIT, "select", values[0])
            t, _ = wait_tree("Registry Editor")
            self.assertIn("selected", t["elements"][values[0]["id"] - 1]["states"])
            self.assertEqual(t["elements"][values[0]["id"] - 1]["name"], "(Default)")


class Wordpad(unittest.TestCase):
    def test_toolbar_buttons_and_combo_boxes(self):
        with WineProgram("Program Files/Windows NT/Accessories/wordpad.exe"):
            t, _ = wait_tree("Wine Wordpad", ready=toolbars_filled)
            bars = [n for n in t["elements"] if n["type"] == "ToolBar"]
            self.assertTrue(bars, types(t))
            for bar in bars:
                buttons = children(t, bar)
                self.assertGreater(len(buttons), 3, types(t))
                left, top, right, bottom = bar["bounds"]
                for b in buttons:
                    self.assertEqual(b["type"], "Button")
                    x, y = (b["bounds"][0] + b["bounds"][2]) // 2, \
                        (b["bounds"][1] + b["bounds"][3]) // 2
                    self.assertTrue(left <= x < right and top <= y < bottom, (b, bar))
            # The font and size boxes show their choice as value, not as name.
            combos = [n for n in t["elements"] if n["type"] == "ComboBox" and n.get("value")]
            self.assertTrue(combos, types(t))
            for c in combos:
                self.assertNotEqual(c["name"], c["value"])
            edits = [n for n in t["elements"] if n["type"] == "Edit"]
            self.assertTrue(edits)


class Winecfg(unittest.TestCase):
    def test_tabs(self):
        with WineProgram("windows/system32/winecfg.exe"):
            t, _ = wait_tree("Wine configuration")
            tabs = [n["name"] for n in t["elements"] if n["type"] == "TabItem"]
            self.assertIn("Graphics", tabs)
            self.assertIn("Applications", tabs)
            act_ok(WINECFG, "select", item(t, "TabItem", "Graphics"))
            t, _ = wait_tree("Wine configuration")
            self.assertIn("selected", item(t, "TabItem", "Graphics")["states"])
            # The property sheet switched to the page of that tab.
            self.assertTrue([n for n in t["elements"] if n["type"] == "CheckBox"
                             and "virtual desktop" in n["name"]], types(t))


def item(tree, type_, name):
    found = [n for n in tree["elements"] if n["type"] == type_ and n["name"] == name]
    if not found:
        raise AssertionError("no %s %r in %s" % (type_, name, types(tree)))
    return found[0]


def children(tree, node):
    return [n for n in tree["elements"] if n["parent"] == node["id"]]


def act_ok(sel, action, node):
    """Runs the action on a node of window sel's last tree (ids hold between two walks
    of an unchanged window) and checks that a pattern or message path did it."""
    r = run_winagent("act", json.dumps({"action": action, "element": node["id"]}),
                     "--window", sel)
    out = json.loads(r.stdout)
    if not out.get("success") or out["data"].get("via", "click").startswith("click"):
        raise AssertionError("%s on %s %r: %s %s" % (action, node["type"], node["name"], out,
                                                     r.stderr))
    return out


if __name__ == "__main__":
    watest.main()
