"""Common controls as users meet them, read through the HWND + MSAA source under Wine
(testapp's controls panel): toolbar buttons named by their text or their callback
tooltip, a report-mode list view's rows with their cells, tree items expanded and
collapsed, a slider, a progress bar and a spin button with their values, and a
status bar's parts."""
import json
import unittest

import watest
from watest import TestApp, run_winagent

SEL = "winagent controls"


def tree():
    r = run_winagent("tree", "--window", SEL, "--json")
    if r.returncode != 0:
        raise AssertionError("tree failed: %s %s" % (r.stdout, r.stderr))
    return json.loads(r.stdout)["data"], r.stderr


def one(t, type_, name):
    found = [n for n in t["elements"] if n["type"] == type_ and n["name"] == name]
    if len(found) != 1:
        raise AssertionError("%d %s %r in %s" % (len(found), type_, name,
                                                 [(n["type"], n["name"]) for n in t["elements"]]))
    return found[0]


def kids(t, node):
    return [n for n in t["elements"] if n["parent"] == node["id"]]


class ControlsPanel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = TestApp(panel="controls")
        cls.app.__enter__()
        cls.t, cls.verdict = tree()

    @classmethod
    def tearDownClass(cls):
        cls.app.kill()

    def test_toolbar_buttons_are_named(self):
        bar = [n for n in self.t["elements"] if n["type"] == "ToolBar"][0]
        # "Open" is the button's text; the others only have callback tooltips.
        self.assertEqual([(b["type"], b["name"]) for b in kids(self.t, bar)],
                         [("Button", "Open"), ("Button", "Bold"), ("Button", "Italic")])
        self.assertIn("tree useful", self.verdict)

    def test_report_rows_carry_their_cells(self):
        report = [n for n in self.t["elements"] if n["type"] == "List"][0]
        rows = [n for n in kids(self.t, report) if n["type"] == "ListItem"]
        self.assertEqual([(r["name"], r.get("value")) for r in rows], [
            ("(Default)", "Type: REG_SZ; Data: (value not set)"),
            ("Greeting", "Type: REG_SZ; Data: hello"),
            ("Count", "Type: REG_DWORD; Data: 0x00000005 (5)"),
        ])

    def test_tree_items_say_expanded_or_collapsed(self):
        fruits = one(self.t, "TreeItem", "Fruits")
        self.assertIn("expanded", fruits["states"])
        self.assertEqual([n["name"] for n in kids(self.t, fruits)], ["Apple", "Pear"])
        veg = one(self.t, "TreeItem", "Vegetables")
        self.assertIn("collapsed", veg["states"])
        self.assertEqual(kids(self.t, veg), [])

    def test_ranges_have_values_and_labels(self):
        self.assertEqual(one(self.t, "Slider", "Volume:").get("value"), "30")
        self.assertEqual(one(self.t, "ProgressBar", "Progress:").get("value"), "60")
        self.assertEqual(one(self.t, "Spinner", "Copies:").get("value"), "5")

    def test_status_bar_parts(self):
        bar = [n for n in self.t["elements"] if n["type"] == "StatusBar"][0]
        parts = kids(self.t, bar)
        self.assertEqual([(p["type"], p["name"]) for p in parts],
                         [("Text", "Ready"), ("Text", "Ln 3, Col 7"), ("Text", "UTF-8")])
        # Left to right, inside the bar.
        lefts = [p["bounds"][0] for p in parts]
        self.assertEqual(lefts, sorted(lefts))
        for p in parts:
            self.assertTrue(bar["bounds"][1] <= p["bounds"][1] < bar["bounds"][3], (p, bar))


if __name__ == "__main__":
    watest.main()
