"""A menu path in one call under Wine: `winagent menu "File > Save as..."` opens each
level of testapp's menus and picks the last item (testapp logs the command it got); a
submenu is a level of its own; a name that is not there fails with element_not_found
listing the items there are, and nothing is chosen."""
import json
import os
import subprocess
import time
import unittest

import watest
from watest import TestApp, WINAGENT_EXE

TESTAPP = "winagent testapp"


def wa(*args, timeout=60):
    return subprocess.run(["wine", WINAGENT_EXE, *args], capture_output=True, text=True,
                          encoding="utf-8", errors="replace", timeout=timeout,
                          stdin=subprocess.DEVNULL)


def menu_events(app):
    return [e for e in app.events() if e.get("event") == "menu"]


class MenuPath(unittest.TestCase):
    def setUp(self):
        self.app = TestApp()
        self.app.__enter__()

    def tearDown(self):
        wa("keys", "esc", "--window", TESTAPP)
        self.app.kill()

    def choose(self, path):
        """`winagent menu PATH`, which must succeed; the menu event testapp logged."""
        r = wa("menu", path, "--window", TESTAPP, "--json")
        res = json.loads(r.stdout)
        self.assertTrue(res["success"], (res, r.stderr))
        return self.app.wait_event(lambda e: e.get("event") == "menu")

    def test_a_path_opens_each_level_and_picks_the_last(self):
        e = self.choose("File > Save as...")
        self.assertEqual(e["item"], "Save as...")
        self.assertEqual([m["item"] for m in menu_events(self.app)], ["Save as..."])

    def test_a_submenu_is_a_level_of_its_own(self):
        # names as people write them: any case, and a recent-file list's number left out
        e = self.choose("file > recent > notes.txt")
        self.assertEqual(e["item"], "1 notes.txt")

    def test_an_unknown_name_lists_what_is_there_and_chooses_nothing(self):
        r = wa("menu", "File > Frobnicate", "--window", TESTAPP, "--json")
        res = json.loads(r.stdout)
        self.assertFalse(res["success"])
        self.assertEqual(res["error"]["code"], "element_not_found")
        self.assertIn('"Save as..."', res["error"]["message"])
        time.sleep(0.5)
        self.assertEqual(menu_events(self.app), [])
        # the menu it opened on the way is closed again
        state = wa("state", "--window", TESTAPP).stdout
        self.assertNotRegex(state, r'\] Menu "', state)


if __name__ == "__main__":
    watest.main()
