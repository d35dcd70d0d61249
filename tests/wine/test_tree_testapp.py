"""testapp's accessibility tree through `winagent tree`, and pattern actions on its
elements through `winagent act`, checked against what testapp really received."""
import json
import unittest

import watest
from watest import run_winagent, TestApp


def get_tree(sel, *extra):
    """The tree of window sel as `tree --json` gives it, and the stderr verdict line."""
    r = run_winagent("tree", "--window", sel, "--json", *extra)
    if r.returncode != 0:
        raise AssertionError("tree failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
    j = json.loads(r.stdout)
    assert j["success"], j
    return j["data"], r.stderr


def nodes_of(tree, type_, name=None):
    return [n for n in tree["elements"]
            if n["type"] == type_ and (name is None or n["name"] == name)]


def one(tree, type_, name):
    found = nodes_of(tree, type_, name)
    if len(found) != 1:
        raise AssertionError("expected one %s %r, found %d in: %s" % (
            type_, name, len(found), [(n["type"], n["name"]) for n in tree["elements"]]))
    return found[0]


def center(rect):
    return ((rect[0] + rect[2]) // 2, (rect[1] + rect[3]) // 2)


def act(sel, call):
    r = run_winagent("act", json.dumps(call), "--window", sel, timeout=60)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        raise AssertionError("act printed no JSON (%d): %s %s" % (r.returncode, r.stdout,
                                                                  r.stderr))
    return r, out


class TestappTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = TestApp().__enter__()
        cls.sel = cls.app.ready["hwnd"]

    @classmethod
    def tearDownClass(cls):
        cls.app.__exit__(None, None, None)

    def test_named_controls_have_their_types(self):
        t, verdict = get_tree(self.sel)
        self.assertIn(t["source"], ("msaa", "uia"))
        self.assertTrue(t["useful"], verdict)
        self.assertIn("tree useful", verdict)
        root = t["elements"][0]
        self.assertEqual((root["type"], root["name"]), ("Window", "winagent testapp"))
        self.assertEqual(t["window"]["process"].lower(), "testapp.exe")
        for name in ("OK", "Apply", "Open dialog..."):
            one(t, "Button", name)
        one(t, "CheckBox", "Enable feature")
        edit = one(t, "Edit", "Name:")  # named by its label, its text is its value
        self.assertIn("value", edit)
        combo = one(t, "ComboBox", "Color:")
        items = [n["name"] for n in t["elements"] if n["parent"] == combo["id"]]
        self.assertEqual(items, ["Red", "Green", "Blue"])
        lst = one(t, "List", "Items:")
        items = [n for n in t["elements"] if n["parent"] == lst["id"]]
        # 60 items, seven views' worth: the eight rows that show are listed, with two more
        # below them (one cut by the bottom edge, then the margin), and the count.
        self.assertEqual(lst["items"], {"count": 60, "shown": [0, 7], "in_view": 8})
        self.assertEqual(items[0]["type"], "ListItem")
        self.assertEqual([n["name"] for n in items], ["Item %d" % i for i in range(1, 12)])
        self.assertEqual([n["index"] for n in items], list(range(11)))
        shown = [n["name"] for n in items if "offscreen" not in n["states"]]
        self.assertEqual(shown, ["Item %d" % i for i in range(1, 9)])
        # Three owner-drawn buttons without text: buttons, unnamed.
        self.assertEqual(len(nodes_of(t, "Button", "")), 3)

    def test_menu_bar(self):
        t, _ = get_tree(self.sel)
        items = nodes_of(t, "MenuItem")
        if items:  # where MSAA reads menus (Windows)
            self.assertEqual([n["name"] for n in items][:3], ["File", "Edit", "Help"])
            return
        # Wine cannot read another process's menu: its bar is still there, in place.
        bar = one(t, "MenuBar", "Application")
        menu = self.app.ready["menu"]
        left, top, right, bottom = bar["bounds"]
        for name in ("File", "Edit", "Help"):
            x, y = center(menu[name])
            self.assertTrue(left <= x < right and top <= y < bottom, (name, menu[name], bar))

    def test_centres_match_documented_rects(self):
        t, _ = get_tree(self.sel, "--verbose")
        frame = t["frame"]
        self.assertEqual(frame, self.app.ready["rect"])
        controls = self.app.ready["controls"]
        owner = nodes_of(t, "Button", "")
        expect = {
            "label_name": one(t, "Text", "Name:"),
            "edit": one(t, "Edit", "Name:"),
            "checkbox": one(t, "CheckBox", "Enable feature"),
            "OK": one(t, "Button", "OK"),
            "Apply": one(t, "Button", "Apply"),
            "Open dialog...": one(t, "Button", "Open dialog..."),
            "owner1": owner[0], "owner2": owner[1], "owner3": owner[2],
            "combo": one(t, "ComboBox", "Color:"),
            "list": one(t, "List", "Items:"),
        }
        for key, node in expect.items():
            want = center(controls[key])
            got = center(node["bounds"])
            self.assertLessEqual(abs(got[0] - want[0]), 3, (key, node))
            self.assertLessEqual(abs(got[1] - want[1]), 3, (key, node))
            # ... and the 0-999 centre the model sees is that point over the frame.
            nx = round((want[0] - frame[0]) * 999 / (frame[2] - frame[0] - 1))
            ny = round((want[1] - frame[1]) * 999 / (frame[3] - frame[1] - 1))
            self.assertLessEqual(abs(node["center"][0] - nx), 5, (key, node))
            self.assertLessEqual(abs(node["center"][1] - ny), 5, (key, node))

    def test_text_format(self):
        r = run_winagent("tree", "--window", self.sel)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r'^Window: "winagent testapp" \(testapp\.exe\) hwnd=0x[0-9a-f]+ '
                                   r'frame=\[-?\d+,-?\d+\]\[\d+,\d+\]$')
        self.assertRegex(lines[1], r'^\[1\] Window "winagent testapp" @\(\d+,\d+\)')
        self.assertTrue(any(l.startswith('  [') and 'CheckBox "Enable feature"' in l
                            for l in lines), lines)
        self.assertRegex(r.stderr, r"tree useful .*; \d+ nodes from (msaa|uia) in \d+ ms")


class TestappActions(unittest.TestCase):
    """Each action goes through a pattern or message path (not a click) and arrives."""

    def setUp(self):
        self.app = TestApp().__enter__()
        self.sel = self.app.ready["hwnd"]
        self.tree, _ = get_tree(self.sel)

    def tearDown(self):
        self.app.__exit__(None, None, None)

    def do(self, action, node, **extra):
        call = {"action": action, "element": node["id"]}
        call.update(extra)
        r, out = act(self.sel, call)
        self.assertTrue(out.get("success"), (r.returncode, out, r.stderr))
        self.assertNotIn("click", out["data"].get("via", "click"), out)
        return out

    def test_invoke_button(self):
        self.do("invoke", one(self.tree, "Button", "OK"))
        self.app.wait_event(lambda e: e["event"] == "click" and e.get("control") == "OK")

    def test_invoke_owner_drawn_button(self):
        self.do("invoke", nodes_of(self.tree, "Button", "")[1])
        self.app.wait_event(lambda e: e["event"] == "click" and e.get("control") == "owner2")

    def test_invoke_button_that_opens_a_modal_dialog(self):
        # BM_CLICK does not return while the dialog is open: the action still succeeds.
        out = self.do("invoke", one(self.tree, "Button", "Open dialog..."))
        self.app.wait_event(lambda e: e["event"] == "dialog_open")
        self.assertTrue(out["success"])

    def test_toggle_checkbox_twice(self):
        box = one(self.tree, "CheckBox", "Enable feature")
        self.do("toggle", box)
        self.app.wait_event(lambda e: e["event"] == "checkbox" and e["checked"] is True)
        t, _ = get_tree(self.sel)
        self.assertIn("checked", one(t, "CheckBox", "Enable feature")["states"])
        self.do("toggle", box)
        self.app.wait_event(lambda e: e["event"] == "checkbox" and e["checked"] is False)

    def test_select_list_item(self):
        lst = one(self.tree, "List", "Items:")
        item = [n for n in self.tree["elements"]
                if n["parent"] == lst["id"] and n["name"] == "Item 3"][0]
        self.do("select", item)
        e = self.app.wait_event(lambda e: e["event"] == "list_select")
        self.assertEqual((e["index"], e["text"]), (2, "Item 3"))
        t, _ = get_tree(self.sel)
        self.assertIn("selected", t["elements"][item["id"] - 1]["states"])

    def test_select_offscreen_list_item(self):
        # Item 42 is no node of the tree (the list shows its first eight): select names it
        # and the list finds it.
        lst = one(self.tree, "List", "Items:")
        self.assertNotIn("Item 42", [n["name"] for n in self.tree["elements"]])
        self.do("select", lst, item="Item 42")
        e = self.app.wait_event(lambda e: e["event"] == "list_select")
        self.assertEqual((e["index"], e["text"]), (41, "Item 42"))
        # Scrolled into view: eight rows from the new top, 20 px apart, inside the list.
        t, _ = get_tree(self.sel, "--verbose")
        lst = one(t, "List", "Items:")
        items = [n for n in t["elements"] if n["parent"] == lst["id"]]
        shown = [n for n in items if "offscreen" not in n["states"]]
        self.assertEqual(len(shown), 8, [n["name"] for n in shown])
        self.assertIn("Item 42", [n["name"] for n in shown])
        first = int(shown[0]["name"].split()[1])
        self.assertEqual([n["name"] for n in shown], ["Item %d" % i for i in range(first, first + 8)])
        self.assertEqual([n["name"] for n in items if "selected" in n["states"]], ["Item 42"])
        left, top, right, bottom = lst["bounds"]
        for k, n in enumerate(shown):
            l, t_, r, b = n["bounds"]
            self.assertEqual(b - t_, 20, n)
            self.assertEqual(t_, shown[0]["bounds"][1] + 20 * k, n)
            self.assertTrue(left <= l and r <= right and top <= t_ and b <= bottom, (n, lst))
        # the row above the first shown, listed beside the view, out of it
        above = [n for n in items if n["name"] == "Item %d" % (first - 1)][0]
        self.assertIn("offscreen", above["states"])
        self.assertEqual(above["bounds"][1], shown[0]["bounds"][1] - 20)

    def test_select_combo_item(self):
        self.do("select", one(self.tree, "ListItem", "Blue"))
        e = self.app.wait_event(lambda e: e["event"] == "combo_select")
        self.assertEqual((e["index"], e["text"]), (2, "Blue"))
        t, _ = get_tree(self.sel)
        self.assertEqual(one(t, "ComboBox", "Color:").get("value"), "Blue")

    def test_expand_and_collapse_combo(self):
        combo = one(self.tree, "ComboBox", "Color:")
        self.do("expand", combo)
        self.app.wait_event(lambda e: e["event"] == "combo_dropdown" and e["open"] is True)
        self.do("collapse", combo)
        self.app.wait_event(lambda e: e["event"] == "combo_dropdown" and e["open"] is False)

    def test_set_value_edit(self):
        text = "héllo wörld \"quoted\""
        self.do("set_value", one(self.tree, "Edit", "Name:"), value=text)
        self.app.wait_event(lambda e: e["event"] == "text_changed" and e["control"] == "edit"
                            and e["text"] == text)
        t, _ = get_tree(self.sel)
        self.assertEqual(one(t, "Edit", "Name:").get("value"), text)


class KeypadTree(unittest.TestCase):
    def test_unnamed_owner_drawn_panel_is_not_useful(self):
        with TestApp(panel="keypad") as app:
            t, verdict = get_tree(app.ready["hwnd"])
            self.assertFalse(t["useful"])
            self.assertEqual(len(nodes_of(t, "Button", "")), 12)
            self.assertIn("tree not useful (12 interactive elements but none has Name)", verdict)


class MultiSelectList(unittest.TestCase):
    def test_every_selected_item_is_marked(self):
        # One question answers for the whole list (LB_GETSELITEMS), not one per item.
        with TestApp("--list-select", "extended") as app:
            t, _ = get_tree(app.ready["hwnd"])
            lst = one(t, "List", "Items:")
            items = [n for n in t["elements"] if n["parent"] == lst["id"]]
            self.assertEqual(lst["items"]["count"], 60)
            self.assertEqual([n["name"] for n in items if "selected" in n["states"]],
                             ["Item 3", "Item 5"])


if __name__ == "__main__":
    watest.main()
