"""Element actions through UI Automation patterns (the scripted UIA client tests/uia_fake
over testapp's main window): `winagent act` with invoke, toggle, expand, collapse,
select, set_value and type, and the CLI's state + fill, checked on the scene's call log
and, where a fallback clicks, on what testapp really received."""
import os
import tempfile
import time
import unittest

import uiafake
import watest
from uiafake import Scene, element
from watest import TestApp

STARTUP_S = 6.0


def setUpModule():
    uiafake.register()


def tearDownModule():
    uiafake.unregister()


def form_scene(app, faults=None, **options):
    """Virtual elements laid over testapp's real controls, so that a click that should
    not happen (or should) shows in testapp's log."""
    c = app.ready["controls"]
    faults = faults or {}

    def el(type_, name, bounds, *kids, **props):
        return element(type_, kids, name=name, bounds=bounds, faults=faults.get(name, []),
                       **props)

    root = element("Window", [
        el("Button", "Save", c["OK"], patterns=["invoke", "legacy"], default_action="Press"),
        el("CheckBox", "Dark mode", c["checkbox"], patterns=["toggle"]),
        el("ComboBox", "Size", c["combo"], patterns=["expand_collapse", "value"], value="10"),
        el("List", "Fonts", c["list"],
           el("ListItem", "Arial", None, patterns=["selection_item"], selected=True),
           el("ListItem", "Courier", None, patterns=["selection_item"]),
           el("ListItem", "Wingdings", None, patterns=["selection_item"], offscreen=True)),
        el("Edit", "Title", c["edit"], patterns=["value"], value="draft", focusable=True,
           focused=True),
        el("Button", "Legacy", c["Apply"], patterns=["legacy"], default_action="Press"),
        el("Button", "Plain", c["Apply"]),
        el("Button", "Unavailable", c["Open dialog..."], patterns=["invoke"], enabled=False),
        el("Edit", "PIN", c["edit"], patterns=["value"], value="1234", password=True),
    ], name="winagent testapp")
    # Elements without bounds: the list items ride on their list.
    for item in root["children"][3]["children"]:
        del item["bounds"]
    return Scene(app.ready["hwnd"], root, **options)


def ids(tree):
    return {n["name"]: n["id"] for n in tree["elements"]}


class PatternActions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = TestApp().__enter__()
        cls.hwnd = cls.app.ready["hwnd"]
        cls.scene = form_scene(cls.app)
        cls.tree, verdict = cls.scene.tree(cls.hwnd)
        if cls.tree["source"] != "uia":
            raise AssertionError("the tree did not come from UI Automation: " + verdict)
        cls.ids = ids(cls.tree)

    @classmethod
    def tearDownClass(cls):
        cls.app.__exit__(None, None, None)

    def setUp(self):
        self.scene.clear()

    def tearDown(self):
        # Everything winagent called is scripted: no method answered E_NOTIMPL.
        self.assertEqual(self.scene.calls("not_implemented"), [])

    def act(self, action, name, **extra):
        call = {"action": action, "element": self.ids[name]}
        call.update(extra)
        r, out = self.scene.act(self.hwnd, call)
        self.assertTrue(out.get("success"), (out, r.stderr))
        self.assertEqual(out.get("name", name), name, out)
        return out

    def pattern_calls(self):
        """The calls that change something, without the ones that look."""
        skip = {"scene_loaded", "CreateInstance", "put_ConnectionTimeout",
                "put_TransactionTimeout", "ElementFromHandleBuildCache", "GetCurrentPatternAs",
                "BuildUpdatedCache"}
        return [c for c in self.scene.calls() if c["call"] not in skip]

    def assert_read_back(self, out, name):
        """The action's effect was read back from the element itself (its properties
        asked again), and held."""
        self.assertTrue(out["data"].get("verified"), out)
        self.assertIn(name, [c["element"] for c in self.scene.calls("BuildUpdatedCache")])

    def assert_no_click(self):
        self.assertFalse([e for e in self.app.events() if e["event"] == "click"],
                         "a pattern action clicked")

    def test_states_and_values_as_the_tree_shows_them(self):
        got = {n["name"]: (n["states"], n.get("value")) for n in self.tree["elements"]}
        self.assertEqual(got["Dark mode"], (["unchecked"], None))
        self.assertEqual(got["Size"], (["collapsed"], "10"))
        self.assertEqual(got["Arial"], (["selected"], None))
        self.assertEqual(got["Courier"], ([], None))
        self.assertEqual(got["Wingdings"], (["offscreen"], None))
        self.assertEqual(got["Title"], (["focused", "focusable"], "draft"))
        self.assertEqual(got["Unavailable"], (["disabled"], None))
        self.assertEqual(got["PIN"], ([], None))  # a password's value is never shown

    def test_invoke(self):
        out = self.act("invoke", "Save")
        self.assertEqual(out["data"]["via"], "uia:Invoke")
        self.assertEqual(self.pattern_calls(), [{"call": "Invoke", "element": "Save",
                                                 "t": self.pattern_calls()[0]["t"]}])
        self.assert_no_click()

    def test_toggle(self):
        out = self.act("toggle", "Dark mode")
        self.assertEqual(out["data"]["via"], "uia:Toggle")
        calls = self.pattern_calls()
        self.assertEqual([(c["call"], c["element"], c["toggle_state"]) for c in calls],
                         [("Toggle", "Dark mode", 1)])
        self.assert_read_back(out, "Dark mode")

    def test_expand_and_collapse(self):
        out = self.act("expand", "Size")
        self.assertEqual(out["data"]["via"], "uia:ExpandCollapse.Expand")
        self.assert_read_back(out, "Size")
        self.assertEqual(self.act("collapse", "Size")["data"]["via"], "uia:ExpandCollapse.Collapse")
        self.assertEqual([(c["call"], c["element"]) for c in self.pattern_calls()],
                         [("Expand", "Size"), ("Collapse", "Size")])

    def test_select(self):
        out = self.act("select", "Courier")
        self.assertEqual(out["data"]["via"], "uia:SelectionItem.Select")
        self.assert_read_back(out, "Courier")
        self.assertEqual([(c["call"], c["element"]) for c in self.pattern_calls()],
                         [("Select", "Courier")])

    def test_set_value(self):
        text = 'héllo "wörld" \\ ✓'
        out = self.act("set_value", "Title", value=text)
        self.assertEqual(out["data"]["via"], "uia:Value.SetValue")
        self.assertEqual([(c["call"], c["element"], c["value"]) for c in self.pattern_calls()],
                         [("SetValue", "Title", text)])

    def test_legacy_default_action_when_there_is_no_invoke(self):
        out = self.act("invoke", "Legacy")
        self.assertEqual(out["data"]["via"], "uia:LegacyIAccessible.DoDefaultAction")
        self.assertEqual([(c["call"], c["element"]) for c in self.pattern_calls()],
                         [("DoDefaultAction", "Legacy")])
        self.assert_no_click()

    def test_no_pattern_clicks_the_centre(self):
        out = self.act("invoke", "Plain")
        self.assertEqual(out["data"]["via"], "click")
        self.app.wait_event(lambda e: e["event"] == "click" and e.get("control") == "Apply")
        self.assertEqual(self.pattern_calls(), [])

    def test_type_into_an_element_focuses_it_first(self):
        r, out = self.scene.act(self.hwnd, {"action": "type", "element": self.ids["Title"],
                                            "text": "ab"})
        self.assertEqual([(c["call"], c["element"]) for c in self.pattern_calls()],
                         [("SetFocus", "Title")])
        # The keys themselves are real input to the window in front ...
        self.app.wait_event(lambda e: e["event"] == "char" and e["text"] == "b")
        # ... which is not the scripted element: read back through its Value pattern, it
        # still holds its text, and the result says so instead of claiming success.
        self.assertEqual(out["error"]["code"], "not_verified", (out, r.stderr))
        self.assertEqual(out["error"]["read_back"], "draft")


class Win32Fallbacks(unittest.TestCase):
    """Elements with a window handle and no pattern fall back to window messages."""

    def test_invoke_and_set_value_through_messages(self):
        with TestApp() as app:
            scene = uiafake.win32_scene(app)
            t, verdict = scene.tree(app.ready["hwnd"])
            self.assertEqual(t["source"], "uia", verdict)
            ok = [n for n in t["elements"] if n["name"] == "OK"][0]
            r, out = scene.act(app.ready["hwnd"], {"action": "invoke", "element": ok["id"]})
            self.assertTrue(out.get("success"), (out, r.stderr))
            self.assertEqual(out["data"]["via"], "message:BM_CLICK")
            app.wait_event(lambda e: e["event"] == "click" and e.get("control") == "OK")
            edit = [n for n in t["elements"] if n["type"] == "Edit"][0]
            r, out = scene.act(app.ready["hwnd"], {"action": "set_value", "element": edit["id"],
                                                   "value": "via WM_SETTEXT"})
            self.assertTrue(out.get("success"), (out, r.stderr))
            self.assertEqual(out["data"]["via"], "message:WM_SETTEXT")
            app.wait_event(lambda e: e["event"] == "text_changed" and e["control"] == "edit"
                           and e["text"] == "via WM_SETTEXT")
        asked = {(c["element"], c["pattern"]) for c in scene.calls("GetCurrentPatternAs")}
        self.assertIn(("#1", 10000), asked)  # Invoke was looked for first
        self.assertIn(("#2", 10002), asked)  # and Value


class CliFill(unittest.TestCase):
    def test_state_then_fill_sets_the_value(self):
        state_dir = tempfile.mkdtemp(prefix="wa-uia-state-")
        env = {"WINAGENT_STATE_DIR": watest.win_path(state_dir)}
        with TestApp() as app:
            scene = form_scene(app)
            r = scene.run("state", "--window", app.ready["hwnd"], env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            ref = [l for l in r.stdout.splitlines() if 'Edit "Title"' in l]
            self.assertEqual(len(ref), 1, r.stdout)
            ref = ref[0].split("]")[0].split("[")[1]
            r = scene.run("fill", ref, "filled in", "--window", app.ready["hwnd"], env=env)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("via uia:Value.SetValue", r.stdout)
        # Both processes walked the window through UI Automation (state once; fill to
        # find its ref again, and once more to see what it changed); fill set the value.
        self.assertEqual(len(scene.calls("ElementFromHandleBuildCache")), 3)
        sets = scene.calls("SetValue")
        self.assertEqual([(c["element"], c["value"]) for c in sets], [("Title", "filled in")])
        self.assertTrue(os.listdir(state_dir))


class HungAction(unittest.TestCase):
    def test_blocked_invoke_gives_up_without_clicking(self):
        with TestApp() as app:
            scene = form_scene(app, {"Save": [{"call": "Invoke", "block_ms": 60000}]},
                               honor_timeouts=False)
            t, _ = scene.tree(app.ready["hwnd"])
            start = time.monotonic()
            r, out = scene.act(app.ready["hwnd"], {"action": "invoke", "element": ids(t)["Save"]})
            secs = time.monotonic() - start
            self.assertFalse(out.get("success"), out)
            self.assertEqual(out["error"]["code"], "timeout", out)
            self.assertLess(secs, 5.0 + 3.0 + STARTUP_S)
            time.sleep(0.5)
            self.assertFalse([e for e in app.events() if e["event"] == "click"])
        self.assertEqual(scene.calls("fault")[0]["on"], "Invoke")

    def invoke_slowly(self, block_ms):
        """Invoke on "Save", which takes block_ms: (result, clicks testapp got, fault log)."""
        with TestApp() as app:
            scene = form_scene(app, {"Save": [{"call": "Invoke", "block_ms": block_ms}]})
            t, _ = scene.tree(app.ready["hwnd"])
            r, out = scene.act(app.ready["hwnd"], {"action": "invoke", "element": ids(t)["Save"]})
            time.sleep(0.5)
            clicks = [e for e in app.events() if e["event"] == "click"]
        return out, clicks, scene.calls("fault")

    def test_slow_invoke_has_the_action_time(self):
        # The walk before left UI Automation a short timeout; the action sets its own.
        out, clicks, faults = self.invoke_slowly(2000)
        self.assertTrue(out.get("success"), out)
        self.assertEqual(out["data"]["via"], "uia:Invoke")
        self.assertEqual(clicks, [])
        self.assertEqual([(f["hr"], f["block_ms"]) for f in faults], [("S_OK", 2000)])

    def test_invoke_that_times_out_is_not_clicked_again(self):
        # Ended by UI Automation's timeout, the invoke may still happen: a click on top
        # would press the button twice. It is reported as a timeout instead.
        out, clicks, faults = self.invoke_slowly(4500)
        self.assertEqual(clicks, [], out)
        self.assertEqual(out["error"]["code"], "timeout", out)
        self.assertIn("may still happen", out["error"]["message"])
        self.assertEqual([(f["hr"], f["block_ms"]) for f in faults], [("UIA_E_TIMEOUT", 4000)])

if __name__ == "__main__":
    watest.main()
