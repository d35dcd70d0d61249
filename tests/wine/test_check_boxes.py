"""Check boxes wherever programs draw them, through the command line: the items of a
tree view with TVS_CHECKBOXES and of a list view with LVS_EX_CHECKBOXES (testapp's
controls panel), and the components of an NSIS installer, whose tree draws its own state
images with a third, mixed state. Each box is observed as checked, unchecked or mixed;
`toggle` turns it over where a person clicks (its box, not its label) or, in background
delivery, with Space on the item, and reads it back; `select` never turns one over; and a
toggle the program ignores (NSIS's read-only component) fails with not_verified. The
program's own word is the judge: testapp's event log, the files the installer writes.
Names on the installer's pages come from their labels: the components tree is "Select
components to install:" (not the "Space required" text beside it), the folder's edit is
named by its group box, and the header image carries no bytes that are not text."""
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import watest
from watest import Cli, TestApp, ref_of

SEL = "winagent controls"
SETUP_EXE = os.environ.get("SUITE_SETUP_EXE", "")


def line_of(state, kind, name):
    """The rest of the line `[n] KIND "NAME" ...` of a listing (its words)."""
    for line in state.splitlines():
        if ('] %s "%s"' % (kind, name)) in line:
            return line
    raise AssertionError('%s "%s" not in:\n%s' % (kind, name, state))


def box(state, kind, name):
    """checked, unchecked or mixed: what the listing says of the item's box."""
    words = line_of(state, kind, name).split()
    found = [w for w in ("checked", "unchecked", "mixed") if w in words]
    if len(found) != 1:
        raise AssertionError("%s %r shows %s" % (kind, name, found))
    return found[0]


class TestappBoxes(unittest.TestCase):
    """TVS_CHECKBOXES and LVS_EX_CHECKBOXES in testapp's controls panel."""

    def setUp(self):
        self.app = TestApp(panel="controls")
        self.app.__enter__()
        self.cli = Cli("boxes-")

    def tearDown(self):
        self.app.kill()

    def state(self):
        return self.cli.run("state", "--window", SEL).stdout

    def checks(self, event):
        return [(e["item"], e["checked"]) for e in self.app.events() if e["event"] == event]

    def test_boxes_are_observed(self):
        s = self.state()
        self.assertEqual([box(s, "TreeItem", n) for n in
                          ("Spell check", "Auto save", "Backups", "Daily", "Weekly")],
                         ["checked", "unchecked", "checked", "checked", "unchecked"])
        self.assertEqual([box(s, "ListItem", n) for n in ("Name", "Size", "Date")],
                         ["checked", "unchecked", "checked"])
        # labels name the two controls
        line_of(s, "Tree", "Features:")
        line_of(s, "List", "Columns:")

    def test_toggle_clicks_the_box_and_reads_it_back(self):
        s = self.state()
        r = self.cli.json("toggle", ref_of(s, "TreeItem", "Auto save"), "--window", SEL)
        self.assertEqual(r["data"]["via"], "click:check box")
        self.assertTrue(r["data"]["verified"])
        self.app.wait_event(lambda e: e["event"] == "tree_check")
        self.assertEqual(self.checks("tree_check"), [("Auto save", True)])
        self.assertEqual(box(self.state(), "TreeItem", "Auto save"), "checked")
        # the list's box
        s = self.state()
        r = self.cli.json("toggle", ref_of(s, "ListItem", "Date"), "--window", SEL)
        self.assertEqual(r["data"]["via"], "click:check box")
        self.app.wait_event(lambda e: e["event"] == "list_check")
        self.assertEqual(self.checks("list_check"), [("Date", False)])
        self.assertEqual(box(self.state(), "ListItem", "Date"), "unchecked")

    def test_toggle_in_the_background_is_space_on_the_item(self):
        s = self.state()
        r = self.cli.json("toggle", ref_of(s, "TreeItem", "Weekly"), "--window", SEL,
                          "--delivery", "background")
        self.assertIn("space", r["data"]["via"])
        self.app.wait_event(lambda e: e["event"] == "tree_check")
        self.assertEqual(self.checks("tree_check"), [("Weekly", True)])
        s = self.state()
        r = self.cli.json("toggle", ref_of(s, "ListItem", "Size"), "--window", SEL,
                          "--delivery", "background")
        self.app.wait_event(lambda e: e["event"] == "list_check")
        self.assertEqual(self.checks("list_check"), [("Size", True)])

    def test_select_leaves_boxes_alone(self):
        s = self.state()
        r = self.cli.json("select", ref_of(s, "TreeItem", "Spell check"), "--window", SEL)
        self.assertTrue(r["data"]["verified"])
        s = self.cli.json("select", ref_of(self.state(), "ListItem", "Name"), "--window", SEL)
        self.assertTrue(s["data"]["verified"])
        time.sleep(0.5)  # a change of a box would have been logged by now
        now = self.state()
        self.assertIn("selected", line_of(now, "TreeItem", "Spell check"))
        self.assertEqual(box(now, "TreeItem", "Spell check"), "checked")
        self.assertEqual(box(now, "ListItem", "Name"), "checked")
        self.assertEqual(self.checks("tree_check") + self.checks("list_check"), [])


@unittest.skipUnless(SETUP_EXE and os.path.exists(SETUP_EXE),
                     "no suite installer (makensis missing when the build ran)")
class NsisComponents(unittest.TestCase):
    """An NSIS installer's pages: components with their own state images."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nsis-boxes-")
        self.proc = subprocess.Popen(["wine", SETUP_EXE], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        self.cli = Cli("nsis-")
        self.sel = None

    def tearDown(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
            self.proc.wait(10)
        subprocess.run(["wine", "reg", "delete", r"HKCU\Software\WinagentSuiteSetup", "/f"],
                       capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def wait_state(self, sel, want, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            r = self.cli.run("state", "--window", sel, check=False)
            if r.returncode == 0 and want in r.stdout:
                return r.stdout
            if time.monotonic() > deadline:
                raise AssertionError("%r never showed %r: %s %s" % (sel, want, r.stdout,
                                                                    r.stderr))
            time.sleep(0.5)

    def press(self, sel, kind, name, then=None):
        """Clicks the button; with `then`, waits for the page that shows it, clicking once
        more after 10 s without it (as a person would when a click seemed lost)."""
        for attempt in range(2):
            s = self.wait_state(sel, '%s "%s"' % (kind, name))
            self.cli.run("click", ref_of(s, kind, name), "--window", sel)
            if not then:
                return
            try:
                return self.wait_state(sel, then, 10)
            except AssertionError:
                if attempt:
                    raise
                print("clicked %s %r again: %r did not show" % (kind, name, then), flush=True)

    def test_components_are_observed_toggled_and_read_back(self):
        self.press("Installer Language", "Button", "OK")
        s = self.wait_state("Suite Notes Setup", "I accept")
        self.assertNotIn("\uffff", s)  # the header image's resource id is no name
        self.cli.run("toggle", ref_of(s, "CheckBox", "I accept the terms of the License "
                                                    "Agreement"), "--window", "Suite Notes Setup")
        s = self.press("Suite Notes Setup", "Button", "Next >", 'TreeItem "Samples"')
        line_of(s, "Tree", "Select components to install:")
        self.assertEqual([box(s, "TreeItem", n) for n in ("Program", "Extras", "Manual",
                                                          "Samples")],
                         ["checked", "mixed", "checked", "unchecked"])
        # turned over where the box is, and read back: the group follows
        r = self.cli.json("toggle", ref_of(s, "TreeItem", "Samples"), "--window",
                          "Suite Notes Setup")
        self.assertEqual(r["data"]["via"], "click:check box")
        self.assertTrue(r["data"]["verified"])
        self.assertTrue(any("Extras" in c and "+checked" in c for c in r["changes"]), r)
        # the read-only component ignores it: not_verified, saying what was read
        r = self.cli.json("toggle", ref_of(self.cli.run("state", "--window",
                                                        "Suite Notes Setup").stdout,
                                           "TreeItem", "Program"),
                          "--window", "Suite Notes Setup", check=False)
        self.assertFalse(r["success"])
        self.assertEqual(r["error"]["code"], "not_verified")
        self.assertIn("checked", r["error"]["read_back"])
        # Manual off, by Space on it (background delivery)
        s = self.cli.run("state", "--window", "Suite Notes Setup").stdout
        r = self.cli.json("toggle", ref_of(s, "TreeItem", "Manual"), "--window",
                          "Suite Notes Setup", "--delivery", "background")
        self.assertEqual(box(self.cli.run("state", "--window", "Suite Notes Setup").stdout,
                             "TreeItem", "Manual"), "unchecked")
        # selecting an item leaves its box alone
        s = self.cli.run("state", "--window", "Suite Notes Setup").stdout
        self.cli.run("select", ref_of(s, "TreeItem", "Samples"), "--window", "Suite Notes Setup")
        self.assertEqual(box(self.cli.run("state", "--window", "Suite Notes Setup").stdout,
                             "TreeItem", "Samples"), "checked")
        s = self.press("Suite Notes Setup", "Button", "Next >", "Destination Folder")
        folder = re.search(r'\[(\d+)\] Edit "Destination Folder"', s)
        self.assertIsNotNone(folder, s)
        self.cli.run("fill", folder.group(1), watest.win_path(self.dir), "--window",
                     "Suite Notes Setup")
        self.press("Suite Notes Setup", "Button", "Install", 'Button "Finish"')
        self.press("Suite Notes Setup", "Button", "Finish")
        self.assertEqual(self.proc.wait(30), 0)
        self.assertEqual(sorted(os.listdir(self.dir)), ["program.txt", "samples.txt"])


if __name__ == "__main__":
    watest.main()
