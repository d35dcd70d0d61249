"""Menus in the observation under Wine: testapp's menu bar and open menus, served as
MSAA objects the way Windows' oleacc serves every program's (testapp answers
WM_GETOBJECT for its bar and its own open popups), read item by item and clicked by
ref; and the menus of Wine's own programs, which no cross-process route reads under
Wine 8: their open menu is still a Menu element, and the tree is rejected for it."""
import json
import re
import time
import unittest

import watest
from watest import TestApp, WineProgram

CLI = watest.Cli("wa-menus-state-")  # refs travel through its folder, as for an agent
wa, wa_json = CLI.run, CLI.json
TESTAPP = "winagent testapp"


LINE = re.compile(r'^(\s*)\[(\d+)\] (\S+) "((?:[^"\\]|\\.)*)"(.*)$')


def parse_state(text):
    """The element lines of a state listing: dicts with ref, depth, type, name, rest."""
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out.append({"ref": m.group(2), "depth": len(m.group(1)) // 2, "type": m.group(3),
                        "name": m.group(4), "rest": m.group(5)})
    return out


def state(sel):
    r = wa("state", "--window", sel)
    return parse_state(r.stdout), r.stdout, r.stderr


def find(lines, type_, name, text=""):
    for l in lines:
        if l["type"] == type_ and l["name"] == name:
            return l
    raise AssertionError("no %s %r in\n%s" % (type_, name, text))


def children(lines, parent):
    """The lines one level below `parent` in its subtree."""
    i = lines.index(parent)
    out = []
    for l in lines[i + 1:]:
        if l["depth"] <= parent["depth"]:
            break
        if l["depth"] == parent["depth"] + 1:
            out.append(l)
    return out


def wait_state(sel, pred, timeout=5.0):
    """The state of sel once pred(lines) holds (a menu opens in its own time)."""
    deadline = time.monotonic() + timeout
    while True:
        lines, text, err = state(sel)
        if pred(lines):
            return lines, text, err
        if time.monotonic() > deadline:
            raise AssertionError("state never matched:\n%s\n%s" % (text, err))
        time.sleep(0.2)


def has_menu(lines):
    return any(l["type"] == "Menu" for l in lines)


class TestappMenus(unittest.TestCase):
    def setUp(self):
        self.app = TestApp()
        self.app.__enter__()

    def tearDown(self):
        wa("keys", "esc", "--window", TESTAPP, check=False)
        self.app.kill()

    def test_menu_bar_lists_its_items_with_refs(self):
        lines, text, err = state(TESTAPP)
        bar = find(lines, "MenuBar", "Application", text)
        self.assertNotIn("items not readable", bar["rest"])
        items = children(lines, bar)
        self.assertEqual([(i["type"], i["name"]) for i in items],
                         [("MenuItem", "File"), ("MenuItem", "Edit"), ("MenuItem", "Help")])
        # Each item sits where testapp says it drew it.
        t = wa_json("tree", "--window", TESTAPP, "--verbose")["data"]
        for node in t["elements"]:
            if node["type"] == "MenuItem":
                l, top, r, b = self.app.ready["menu"][node["name"]]
                x = (node["bounds"][0] + node["bounds"][2]) // 2
                y = (node["bounds"][1] + node["bounds"][3]) // 2
                self.assertTrue(l <= x < r and top <= y < b, (node, self.app.ready["menu"]))
        self.assertIn("tree useful", err)

    def test_click_opens_the_menu_and_an_item_by_ref(self):
        lines, text, _ = state(TESTAPP)
        r = wa_json("click", find(lines, "MenuItem", "File", text)["ref"], "--window", TESTAPP)
        self.assertIn('menu opened: "File"', "\n".join(r.get("changes", [])), r)
        lines, text, err = wait_state(TESTAPP, has_menu)
        # The open menu is listed first, before the window's own elements.
        menu = lines[1]
        self.assertEqual((menu["type"], menu["name"]), ("Menu", "File"), text)
        items = {i["name"]: i for i in children(lines, menu) if i["type"] == "MenuItem"}
        self.assertEqual(list(items), ["New", "Open...", "Save", "Save as...", "Recent",
                                       "Print...", "Word wrap", "Open dialog...", "Exit"], text)
        self.assertIn('accelerator="Ctrl+S"', items["Save"]["rest"])
        self.assertIn("disabled", items["Print..."]["rest"])
        self.assertIn("checked", items["Word wrap"]["rest"])
        self.assertNotIn("checked", items["Save"]["rest"])
        self.assertIn("tree useful", err)

        wa("click", items["Save as..."]["ref"], "--window", TESTAPP)
        e = self.app.wait_event(lambda e: e["event"] == "menu")
        self.assertEqual(e["item"], "Save as...")
        lines, text, _ = wait_state(TESTAPP, lambda ls: not has_menu(ls))

    def test_invoke_runs_an_item_through_its_msaa_object(self):
        lines, text, _ = state(TESTAPP)
        wa("click", find(lines, "MenuItem", "File", text)["ref"], "--window", TESTAPP)
        lines, text, _ = wait_state(TESTAPP, has_menu)
        r = wa_json("invoke", find(lines, "MenuItem", "New", text)["ref"], "--window", TESTAPP)
        self.assertEqual(r["data"].get("via"), "msaa:accDoDefaultAction", r)
        e = self.app.wait_event(lambda e: e["event"] == "menu")
        self.assertEqual(e["item"], "New")
        self.assertIn('menu closed: "File"', "\n".join(r.get("changes", [])), r)
        # A disabled item is refused rather than clicked for nothing.
        wa("click", find(lines, "MenuItem", "File", text)["ref"], "--window", TESTAPP,
           check=False)
        lines, text, _ = wait_state(TESTAPP, has_menu)
        r = wa("invoke", find(lines, "MenuItem", "Print...", text)["ref"], "--window", TESTAPP,
               check=False)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("disabled", r.stdout + r.stderr)

    def test_submenu_is_a_second_menu(self):
        lines, text, _ = state(TESTAPP)
        wa("click", find(lines, "MenuItem", "File", text)["ref"], "--window", TESTAPP)
        lines, text, _ = wait_state(TESTAPP, has_menu)
        wa("click", find(lines, "MenuItem", "Recent", text)["ref"], "--window", TESTAPP)
        lines, text, _ = wait_state(
            TESTAPP, lambda ls: len([l for l in ls if l["type"] == "Menu"]) == 2)
        menus = [l for l in lines if l["type"] == "Menu"]
        self.assertEqual([m["name"] for m in menus], ["File", "Recent"], text)
        recent = [i["name"] for i in children(lines, menus[1])]
        self.assertEqual(recent, ["1 notes.txt", "2 todo.txt"], text)
        wa("click", find(lines, "MenuItem", "2 todo.txt", text)["ref"], "--window", TESTAPP)
        e = self.app.wait_event(lambda e: e["event"] == "menu")
        self.assertEqual(e["item"], "2 todo.txt")

    def test_keyboard_opens_and_closes_the_menu(self):
        r = wa_json("keys", "alt+f", "--window", TESTAPP)
        self.assertIn('menu opened: "File"', "\n".join(r.get("changes", [])), r)
        lines, text, _ = wait_state(TESTAPP, has_menu)
        self.assertEqual(lines[1]["name"], "File", text)
        r = wa_json("keys", "esc", "--window", TESTAPP)
        changes = "\n".join(r.get("changes", []))
        wa("keys", "esc", "--window", TESTAPP)  # the bar stays selected after the first
        lines, text, _ = wait_state(TESTAPP, lambda ls: not has_menu(ls))
        self.assertIn('menu closed: "File"', changes, r)

    def test_context_menu(self):
        # A right click on the window's own client area, where no control is.
        x, y = self.app.ready["client_rect"][0] + 600, self.app.ready["client_rect"][1] + 450
        wa("click-at", str(x), str(y), "--button", "right", "--window", TESTAPP)
        lines, text, _ = wait_state(TESTAPP, has_menu)
        menu = lines[1]
        self.assertEqual((menu["type"], menu["name"]), ("Menu", "Context"), text)
        self.assertEqual([i["name"] for i in children(lines, menu)], ["Cut", "Copy", "Paste"])
        wa("click", find(lines, "MenuItem", "Copy", text)["ref"], "--window", TESTAPP)
        e = self.app.wait_event(lambda e: e["event"] == "menu")
        self.assertEqual(e["item"], "Copy")




def wait_window(sel, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        r = wa("state", "--window", sel, check=False)
        if r.returncode == 0:
            return
        if time.monotonic() > deadline:
            raise AssertionError("no window %r: %s" % (sel, r.stderr))
        time.sleep(0.5)


class WineProgramMenus(unittest.TestCase):
    """Wine serves no other program's menus: the open menu is a Menu without items,
    says so, and the tree is not used for it (auto mode sends the image)."""

    def check(self, path, sel, keys):
        with WineProgram(path):
            wait_window(sel)
            lines, text, err = state(sel)
            self.assertFalse(has_menu(lines), text)
            bar = find(lines, "MenuBar", "Application", text)
            self.assertIn("items not readable", bar["rest"])
            r = wa_json("keys", keys, "--window", sel)
            self.assertIn("menu opened:", "\n".join(r.get("changes", [])), r)
            lines, text, err = wait_state(sel, has_menu)
            self.assertEqual(lines[1]["type"], "Menu", text)
            self.assertIn("items not readable", lines[1]["rest"])
            self.assertIn("tree not useful (an open menu's items cannot be read", err)
            data = wa_json("state", "--window", sel)["data"]
            self.assertFalse(data["useful"], data)
            # Auto mode shows the image instead, saying why.
            ob = json.loads(wa("act", '{"action":"window_screenshot"}', "--window", sel).stdout)
            self.assertEqual(ob["observation"]["kind"], "image", ob)
            self.assertIn("an open menu's items cannot be read", ob["observation"]["verdict"])
            r = wa_json("keys", "esc", "--window", sel)
            wa("keys", "esc", "--window", sel)
            self.assertIn("menu closed", "\n".join(r.get("changes", [])), r)

    def test_notepad(self):
        self.check("windows/system32/notepad.exe", "Untitled - Notepad", "alt+f")

    def test_regedit(self):
        self.check("windows/regedit.exe", "Registry Editor", "alt+r")

    def test_winemine(self):
        self.check("windows/system32/winemine.exe", "WineMine", "alt+g")


if __name__ == "__main__":
    watest.main()
