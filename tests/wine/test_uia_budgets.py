"""The UI Automation walk under load and failure (the scripted UIA client tests/uia_fake
over a real testapp window): the node budget, elements that fail mid-walk, and a
provider call that blocks."""
import time
import unittest

import uiafake
import watest
from uiafake import Scene, element
from watest import TestApp

BUDGET_S = 3.0 + 1.0  # the walk's default budget and its grace second
STARTUP_S = 6.0       # winagent starting under Wine, finding the window, printing


def setUpModule():
    uiafake.register()


def tearDownModule():
    uiafake.unregister()


def timed(scene, *args):
    start = time.monotonic()
    r = scene.run(*args)
    return r, time.monotonic() - start


def list_scene(app, count):
    """testapp's list box as a virtualising list shows it: count items of 20 px, eight
    of them in view."""
    box = app.ready["controls"]["list"]
    items = []
    for i in range(count):
        top = box[1] + 2 + 20 * i
        items.append(element("ListItem", name="Item %d" % (i + 1), cls="ListViewItem",
                             bounds=[box[0] + 2, top, box[2] - 20, top + 20],
                             offscreen=i >= 8, patterns=["selection_item"]))
    root = element("Window", [element("List", items, name="Items", bounds=box)],
                   name="winagent testapp")
    return Scene(app.ready["hwnd"], root)


def failing_scene(app, faults, **options):
    """Three groups and a button; faults maps an element's name to its faults."""
    def el(type_, name, *kids):
        return element(type_, kids, name=name, faults=faults.get(name, []))
    root = el("Window", "winagent testapp",
              el("Group", "Toolbar", el("Button", "Bold"), el("Button", "Italic")),
              el("Group", "Panel", el("Button", "First"), el("Button", "Kept 1"),
                 el("Button", "Middle"), el("Button", "Kept 2")),
              el("Group", "Status", el("Text", "Ready")),
              el("Button", "After"))
    return Scene(app.ready["hwnd"], root, **options)


def fault(call, hr=None, **kw):
    f = {"call": call}
    if hr:
        f["hr"] = hr
    f.update(kw)
    return [f]


def shape(tree):
    """(depth, name) of every node."""
    return [(n["depth"], n["name"]) for n in tree["elements"]]


class NodeBudget(unittest.TestCase):
    def test_3000_items_stop_at_500_nodes_within_the_time_budget(self):
        with TestApp() as app:
            scene = list_scene(app, 3000)
            r, secs = timed(scene, "tree", "--window", app.ready["hwnd"])
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = r.stdout.splitlines()
            self.assertEqual(lines[-1], "# WARNING: tree truncated at 500 nodes")
            self.assertEqual(len(lines), 1 + 500 + 1)  # header, nodes, warning
            self.assertEqual(lines[-2].split(" @")[0], '    [500] ListItem "Item 498"')
            self.assertIn('    [3] ListItem "Item 1" @(', r.stdout)
            self.assertIn("offscreen", lines[-2])
            self.assertRegex(r.stderr, r"; 500 nodes from uia in \d+ ms")
            walk_ms = int(r.stderr.rsplit(" in ", 1)[1].split()[0])
            self.assertLess(walk_ms, 3000)
            self.assertLess(secs, BUDGET_S + STARTUP_S)

            t, _ = scene.tree(app.ready["hwnd"])
            self.assertTrue(t["truncated"])
            self.assertFalse(t["timed_out"])
            self.assertEqual(len(t["elements"]), 500)


class FailingElements(unittest.TestCase):
    """Failed elements are skipped, their siblings and later branches kept."""

    def test_cached_walk_skips_what_cannot_be_read(self):
        with TestApp() as app:
            scene = failing_scene(app, {
                "Toolbar": fault("GetCachedChildren", "UIA_E_ELEMENTNOTAVAILABLE"),
                "First": fault("GetElement", "E_FAIL"),
                "Middle": fault("GetElement", "UIA_E_ELEMENTNOTAVAILABLE")})
            t, verdict = scene.tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "uia", verdict)
        self.assertEqual(shape(t), [(0, "winagent testapp"), (1, "Toolbar"), (1, "Panel"),
                                    (2, "Kept 1"), (2, "Kept 2"), (1, "Status"), (2, "Ready"),
                                    (1, "After")])
        self.assertFalse(t["timed_out"])
        self.assertEqual([f["on"] for f in scene.calls("fault")],
                         ["GetCachedChildren", "GetElement", "GetElement"])

    def test_per_level_walk_skips_branches_that_fail(self):
        # The subtree request is refused: one request per parent, some of which fail.
        with TestApp() as app:
            scene = failing_scene(app, {
                "winagent testapp": fault("ElementFromHandleBuildCache", "E_FAIL",
                                          scope="subtree"),
                "Toolbar": fault("BuildUpdatedCache", "UIA_E_ELEMENTNOTAVAILABLE"),
                "Panel": fault("BuildUpdatedCache", "E_FAIL")})
            t, verdict = scene.tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "uia", verdict)
        self.assertEqual(shape(t), [(0, "winagent testapp"), (1, "Toolbar"), (1, "Panel"),
                                    (1, "Status"), (2, "Ready"), (1, "After")])
        walks = scene.calls("ElementFromHandleBuildCache")
        self.assertEqual([w["scope"] for w in walks], [7, 3])  # subtree, then element+children
        updated = [c["element"] for c in scene.calls("BuildUpdatedCache")]
        self.assertEqual(updated, ["Toolbar", "Panel", "Status", "Ready", "After"])


class FailingRoot(unittest.TestCase):
    def test_a_window_ui_automation_cannot_give_is_walked_through_msaa(self):
        with TestApp() as app:
            scene = failing_scene(app, {"winagent testapp": fault("ElementFromHandleBuildCache",
                                                                  "UIA_E_ELEMENTNOTAVAILABLE")})
            t, verdict = scene.tree(app.ready["hwnd"])
        self.assertEqual(t["source"], "msaa", verdict)
        self.assertIn(("Button", "OK"), [(n["type"], n["name"]) for n in t["elements"]])
        walks = scene.calls("ElementFromHandleBuildCache")
        self.assertEqual([w["scope"] for w in walks], [7, 3])  # both requests, then MSAA


class BlockingProvider(unittest.TestCase):
    def test_timed_out_subtree_request_falls_back_within_the_budget(self):
        # UI Automation ends the hung call at the transaction timeout winagent set.
        with TestApp() as app:
            scene = failing_scene(app, {"winagent testapp": fault(
                "ElementFromHandleBuildCache", block_ms=20000, times=1)})
            r, secs = timed(scene, "tree", "--window", app.ready["hwnd"], "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(secs, BUDGET_S + STARTUP_S)
        blocked = scene.calls("fault")
        timeouts = [c["ms"] for c in scene.calls("put_TransactionTimeout")]
        # half the budget for the subtree request: of what the look for open popup menus
        # (a few ms) left of the 3 s
        self.assertTrue(1400 <= timeouts[0] <= 1500, timeouts)
        self.assertEqual([(f["hr"], f["block_ms"]) for f in blocked],
                         [("UIA_E_TIMEOUT", timeouts[0])])
        # The second request gets what is left of the budget, not a fresh one.
        self.assertEqual(len(timeouts), 2, timeouts)
        self.assertLessEqual(timeouts[1], 1500)
        self.assertGreaterEqual(timeouts[1], 500)
        self.assertIn("nodes from uia", r.stderr)

    def test_hung_call_mid_walk_gives_the_partial_tree(self):
        # A core without timeouts: the call blocks for good; winagent gives up at its
        # deadline with what it has.
        with TestApp() as app:
            scene = failing_scene(app, {
                "winagent testapp": fault("ElementFromHandleBuildCache", "E_FAIL",
                                          scope="subtree"),
                "Panel": fault("BuildUpdatedCache", block_ms=60000)},
                honor_timeouts=False)
            r, secs = timed(scene, "tree", "--window", app.ready["hwnd"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(secs, BUDGET_S + STARTUP_S)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[-1], r"^# WARNING: tree walk stopped after \d+ ms; the tree is "
                                    r"partial$")
        self.assertEqual([l.split(" @")[0].strip() for l in lines[1:-1]],
                         ['[1] Window "winagent testapp"', '[2] Group "Toolbar"',
                          '[3] Button "Bold"', '[4] Button "Italic"', '[5] Group "Panel"'])
        self.assertIn("nodes from uia", r.stderr)

    def test_hung_first_call_fails_the_walk_in_time(self):
        with TestApp() as app:
            scene = failing_scene(app, {"winagent testapp": fault(
                "ElementFromHandleBuildCache", block_ms=60000)}, honor_timeouts=False)
            r, secs = timed(scene, "tree", "--window", app.ready["hwnd"])
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("did not answer", r.stderr)
        self.assertLess(secs, BUDGET_S + STARTUP_S)


if __name__ == "__main__":
    watest.main()
