"""Trees of UIA-only applications through winagent's UI Automation path (the scripted
UIA client tests/uia_fake over real testapp windows): the name fallbacks, the
Pane-as-Button rule and the usefulness verdict, with the source named as uia."""
import unittest

import uiafake
import watest
from uiafake import KEY_IDS, KEYS, Scene, calculator_scene, element, win32_scene
from watest import TestApp

def setUpModule():
    uiafake.register()


def tearDownModule():
    uiafake.unregister()


def names(tree, type_=None):
    return [n["name"] for n in tree["elements"] if type_ is None or n["type"] == type_]


class CalculatorLike(unittest.TestCase):
    def test_names_fall_back_to_automation_id_on_virtual_elements(self):
        with TestApp(panel="keypad") as app:
            scene = calculator_scene(app)
            t, verdict = scene.tree(app.ready["hwnd"], "--verbose")
        self.assertEqual(t["source"], "uia", verdict)
        self.assertRegex(verdict, r"^tree useful \(.*\); 16 nodes from uia in \d+ ms")
        root = t["elements"][0]
        self.assertEqual((root["type"], root["name"]), ("Window", "winagent keypad"))
        self.assertEqual(t["frame"], app.ready["rect"])
        self.assertEqual(names(t, "Text"), ["Display is 0"])
        self.assertEqual(names(t, "Group"), ["NumberPad"])
        buttons = [n for n in t["elements"] if n["type"] == "Button"]
        self.assertEqual([b["name"] for b in buttons],
                         [KEY_IDS[k] for k in KEYS] + [""])
        # Handle 0 everywhere below the root: neither the window text nor MSAA was
        # asked, or the last button would carry "winagent keypad" or "Desktop".
        for b, k in zip(buttons, KEYS):
            self.assertEqual(b["bounds"], app.ready["controls"]["key_" + k])
            self.assertEqual(b["automation_id"], KEY_IDS[k])
            self.assertIn("focusable", b["states"])
        self.assertEqual(scene.calls("not_implemented"), [])
        walks = scene.calls("ElementFromHandleBuildCache")
        self.assertEqual([w["hwnd"] for w in walks], [app.ready["hwnd"]])
        self.assertEqual(walks[0]["scope"], 7)  # the whole subtree in one request

    def test_text_and_stderr_name_the_source(self):
        with TestApp(panel="keypad") as app:
            scene = calculator_scene(app)
            r = scene.run("tree", "--window", "winagent keypad")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r'^Window: "winagent keypad" \(testapp\.exe\) hwnd=0x[0-9a-f]+ ')
        self.assertEqual(lines[1].split(" @")[0], '[1] Window "winagent keypad"')
        self.assertIn('    [4] Button "num7Button" @(', r.stdout)
        self.assertRegex(r.stderr, r"tree useful .*; 16 nodes from uia in \d+ ms")

    def test_unnamed_virtual_buttons_make_the_tree_not_useful(self):
        with TestApp(panel="keypad") as app:
            scene = calculator_scene(app, unnamed=True)
            t, verdict = scene.tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "uia")
        self.assertFalse(t["useful"])
        self.assertIn("tree not useful (13 interactive elements but none has Name); "
                      "16 nodes from uia", verdict)

    def test_without_a_scene_the_class_is_not_there(self):
        # The registration alone changes nothing: winagent falls back to MSAA.
        with TestApp(panel="keypad") as app:
            r = watest.run_winagent("tree", "--window", app.ready["hwnd"], "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nodes from msaa", r.stderr)


class Win32Controls(unittest.TestCase):
    def test_fallbacks_ask_the_window_where_there_is_one(self):
        with TestApp() as app:
            scene = win32_scene(app)
            t, verdict = scene.tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "uia", verdict)
        self.assertEqual([(n["type"], n["name"]) for n in t["elements"]], [
            ("Window", "winagent testapp"),  # its window text
            ("Button", "OK"),                # its window text
            ("Edit", "Name:"),               # text is content: MSAA, which names it by its label
            ("CheckBox", "102"),             # AutomationId comes before the window text
            ("Button", ""),                  # owner-drawn: neither has a name for it
        ])


class LabeledBy(unittest.TestCase):
    def test_an_unnamed_control_takes_its_labels_name(self):
        """UI Automation's LabeledBy: the label is asked for its name then (it comes
        without a cache); a control with a name of its own keeps it, and a check box
        shows its Toggle state as checked, unchecked or mixed."""
        with TestApp() as app:
            c = app.ready["controls"]
            root = element("Window", [
                element("Text", name="Server:", id="server-label", bounds=c["label_name"]),
                element("Edit", labeled_by="server-label", patterns=["value"], value="",
                        bounds=c["edit"]),
                element("Edit", name="Own name", labeled_by="server-label", bounds=c["edit"]),
                element("CheckBox", name="Wrap", patterns=["toggle"], toggle_state="off",
                        bounds=c["checkbox"]),
                element("CheckBox", name="Some", patterns=["toggle"],
                        toggle_state="indeterminate", bounds=c["checkbox"]),
            ], name="winagent testapp")
            scene = Scene(app.ready["hwnd"], root)
            t, verdict = scene.tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "uia", verdict)
        self.assertEqual([(n["type"], n["name"]) for n in t["elements"][1:3]],
                         [("Text", "Server:"), ("Edit", "Server:")])
        self.assertEqual(t["elements"][3]["name"], "Own name")
        self.assertIn("unchecked", t["elements"][4]["states"])
        self.assertIn("mixed", t["elements"][5]["states"])
        asked = scene.calls("GetCurrentPropertyValue")
        self.assertEqual([a["element"] for a in asked], ["server-label"])


class OwnerDrawn(unittest.TestCase):
    def test_pane_of_class_button_is_a_button(self):
        with TestApp() as app:
            c = app.ready["controls"]
            root = element("Window", [
                element("Pane", name="Orange", cls="Button", bounds=c["owner1"]),
                element("Pane", automation_id="purpleKey", cls="button", bounds=c["owner2"]),
                element("Pane", cls="Button", bounds=c["owner3"]),
                element("Pane", name="Drawing area", cls="WinagentCanvas", bounds=c["canvas"]),
            ], name="winagent testapp")
            scene = Scene(app.ready["hwnd"], root)
            t, verdict = scene.tree(app.ready["hwnd"])
            self.assertEqual(t["source"], "uia", verdict)
            got = [(n["type"], n["name"], n.get("class")) for n in t["elements"][1:]]
            self.assertEqual(got, [("Button", "Orange", "Button"),
                                   ("Button", "purpleKey", "button"),
                                   ("Button", "", "Button"),
                                   ("Pane", "Drawing area", "WinagentCanvas")])
            # No pattern on it: invoke clicks its centre, and the real button gets it.
            r, out = scene.act(app.ready["hwnd"], {"action": "invoke", "element": 3})
            self.assertTrue(out.get("success"), (out, r.stderr))
            self.assertEqual(out["data"].get("via"), "click", out)
            app.wait_event(lambda e: e["event"] == "click" and e.get("control") == "owner2")
            asked = scene.calls("GetCurrentPatternAs")
            self.assertEqual([(a["element"], a["found"]) for a in asked],
                             [("purpleKey", False)] * len(asked))
            self.assertTrue(asked)


if __name__ == "__main__":
    watest.main()
