"""Menus through winagent's UI Automation path (the scripted UIA client tests/uia_fake
over testapp's real window): a menu bar's items, an open menu that UI Automation
reports inside the window's tree (listed first, before the window's own elements),
and a real open popup menu that the UIA tree lacks, added from its MSAA object."""
import time
import unittest

import uiafake
import watest
from uiafake import Scene, element
from watest import TestApp


def setUpModule():
    uiafake.register()


def tearDownModule():
    uiafake.unregister()


def menu_bar(app):
    m = app.ready["menu"]
    return element("MenuBar", [
        element("MenuItem", name=name, bounds=m[name], patterns=["expand_collapse", "legacy"],
                default_action="Open")
        for name in ("File", "Edit", "Help")
    ], name="Application", bounds=[m["File"][0], m["File"][1], m["Help"][2], m["Help"][3]])


def bar_and_ok(app):
    """testapp's window as UI Automation shows it here: its menu bar and its OK button."""
    return element("Window", [
        menu_bar(app),
        element("Button", name="OK", bounds=app.ready["controls"]["OK"], patterns=["invoke"]),
    ], name="winagent testapp")


def summary(tree):
    return [(n["type"], n["name"], n["parent"]) for n in tree["elements"]]


class UiaMenus(unittest.TestCase):
    def test_menu_bar_items(self):
        with TestApp() as app:
            t, verdict = Scene(app.ready["hwnd"], bar_and_ok(app)).tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "uia", verdict)
        self.assertEqual(summary(t), [("Window", "winagent testapp", 0),
                                      ("MenuBar", "Application", 1),
                                      ("MenuItem", "File", 2), ("MenuItem", "Edit", 2),
                                      ("MenuItem", "Help", 2), ("Button", "OK", 1)])
        self.assertIn("collapsed", t["elements"][2]["states"])
        self.assertIn("tree useful", verdict)

    def test_open_menu_inside_the_tree_is_listed_first(self):
        with TestApp() as app:
            c = app.ready["controls"]
            f = app.ready["menu"]["File"]
            drop = [f[0], f[3], f[0] + 160, f[3] + 100]
            menu = element("Menu", [
                element("MenuItem", name="New", bounds=[drop[0], drop[1], drop[2], drop[1] + 20],
                        patterns=["invoke"], accelerator="Ctrl+N"),
                element("MenuItem", name="Print...", enabled=False,
                        bounds=[drop[0], drop[1] + 20, drop[2], drop[1] + 40]),
            ], name="File", bounds=drop)
            # UI Automation puts it where it likes: here below a pane, after the rest.
            root = element("Window", [
                menu_bar(app),
                element("Pane", [element("Button", name="OK", bounds=c["OK"]), menu],
                        name="Body", bounds=app.ready["client_rect"]),
            ], name="winagent testapp")
            t, verdict = Scene(app.ready["hwnd"], root).tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "uia", verdict)
        self.assertEqual(summary(t)[:4], [("Window", "winagent testapp", 0),
                                          ("Menu", "File", 1), ("MenuItem", "New", 2),
                                          ("MenuItem", "Print...", 2)])
        self.assertIn("disabled", t["elements"][3]["states"])
        self.assertIn('[3] MenuItem "New" @', t["tree"])
        self.assertIn('accelerator="Ctrl+N"', t["tree"].splitlines()[3])
        self.assertEqual(summary(t)[4:], [("MenuBar", "Application", 1),
                                          ("MenuItem", "File", 5), ("MenuItem", "Edit", 5),
                                          ("MenuItem", "Help", 5), ("Pane", "Body", 1),
                                          ("Button", "OK", 9)])
        self.assertIn("tree useful", verdict)

    def test_real_popup_missing_from_the_uia_tree_is_added(self):
        with TestApp() as app:
            scene = Scene(app.ready["hwnd"], bar_and_ok(app))
            f = app.ready["menu"]["File"]
            r = scene.run("click-at", str((f[0] + f[2]) // 2), str((f[1] + f[3]) // 2),
                          "--window", "winagent testapp")
            self.assertEqual(r.returncode, 0, r.stderr)
            try:
                deadline = time.monotonic() + 5
                while True:
                    t, verdict = scene.tree(app.ready["hwnd"])
                    if len(t["elements"]) > 1 and t["elements"][1]["type"] == "Menu":
                        break
                    self.assertLess(time.monotonic(), deadline, summary(t))
                    time.sleep(0.2)
                self.assertEqual(t["source"], "uia", verdict)
                self.assertEqual(t["elements"][1]["name"], "File")
                items = [n["name"] for n in t["elements"] if n["parent"] == 2]
                self.assertEqual(items[:4], ["New", "Open...", "Save", "Save as..."])
                self.assertEqual(summary(t)[-5:], [("MenuBar", "Application", 1),
                                                   ("MenuItem", "File", len(t["elements"]) - 4),
                                                   ("MenuItem", "Edit", len(t["elements"]) - 4),
                                                   ("MenuItem", "Help", len(t["elements"]) - 4),
                                                   ("Button", "OK", 1)])
            finally:
                scene.run("keys", "esc", "--window", "winagent testapp")
                scene.run("keys", "esc", "--window", "winagent testapp")


if __name__ == "__main__":
    watest.main()
