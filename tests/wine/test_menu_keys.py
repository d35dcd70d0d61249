"""Menus driven from the keyboard under Wine, one `keys` call per step, as a user (or an
outside agent) works a menu: alt+letter opens it, arrows and letters move and pick,
enter runs, esc closes. The popup belongs to the target (the call neither fails with
focus_lost nor brings the window back, which would close the menu), and each step's
change report says which menu is open now: `menu opened`, `menu open` (with the item
that has the keyboard where it can be read) or `menu closed`."""
import json
import re
import unittest

import watest
from watest import TestApp, WineProgram
from test_menus import TESTAPP, find, has_menu, state, wa, wa_json, wait_state, wait_window


def step(keys, sel):
    """One keyboard step; its change report as one text (the call must succeed)."""
    r = wa_json("keys", keys, "--window", sel)
    ch = r.get("changes", [])
    return ch if isinstance(ch, str) else "\n".join(ch), r


class TestappKeyboardMenus(unittest.TestCase):
    def setUp(self):
        self.app = TestApp()
        self.app.__enter__()

    def tearDown(self):
        wa("keys", "esc", "--window", TESTAPP, check=False)
        wa("keys", "esc", "--window", TESTAPP, check=False)
        self.app.kill()

    def test_arrows_move_and_enter_runs_the_item(self):
        ch, _ = step("alt+f", TESTAPP)
        self.assertIn('menu opened: "File" ([2] Menu, 9 items)', ch)
        self.assertNotIn("menu open:", ch)

        ch, _ = step("down", TESTAPP)
        self.assertNotIn("menu opened", ch)
        self.assertNotIn("menu closed", ch)
        self.assertRegex(ch, r'menu open: "File" \(\[2\] Menu, 9 items, at \[\d+\] MenuItem '
                             r'"Open\.\.\."\)')
        ch, _ = step("up", TESTAPP)
        self.assertRegex(ch, r'menu open: "File" \(\[2\] Menu, 9 items, at \[\d+\] MenuItem '
                             r'"New"\)')

        # Right: the next menu of the bar replaces this one.
        ch, _ = step("right", TESTAPP)
        self.assertIn('menu closed: "File"', ch)
        self.assertIn('menu opened: "Edit" ([2] Menu, 2 items)', ch)
        lines, text, _ = state(TESTAPP)
        self.assertEqual((lines[1]["type"], lines[1]["name"]), ("Menu", "Edit"), text)

        ch, _ = step("down", TESTAPP)
        self.assertRegex(ch, r'menu open: "Edit" \(\[2\] Menu, 2 items, at \[\d+\] MenuItem '
                             r'"Clear"\)')
        ch, _ = step("enter", TESTAPP)
        self.assertIn('menu closed: "Edit"', ch)
        self.assertNotIn("menu open", ch)
        e = self.app.wait_event(lambda e: e["event"] == "menu")
        self.assertEqual(e["item"], "Clear")
        lines, text, _ = state(TESTAPP)
        self.assertFalse(has_menu(lines), text)

    def test_a_letter_picks_and_esc_closes(self):
        ch, _ = step("alt+e", TESTAPP)
        self.assertIn('menu opened: "Edit"', ch)
        ch, _ = step("c", TESTAPP)
        self.assertIn('menu closed: "Edit"', ch)
        self.assertEqual(self.app.wait_event(lambda e: e["event"] == "menu")["item"], "Clear")

        ch, _ = step("alt+f", TESTAPP)
        self.assertIn('menu opened: "File"', ch)
        ch, _ = step("esc", TESTAPP)
        self.assertIn('menu closed: "File"', ch)
        self.assertNotIn("menu open:", ch)


class WineProgramKeyboardMenus(unittest.TestCase):
    """Menus nobody can read under Wine: each step still shows the open popup, a Menu
    element with its bounds, and says its items cannot be read."""

    def walk(self, path, sel, opener):
        with WineProgram(path):
            wait_window(sel)
            ch, _ = step(opener, sel)
            self.assertRegex(ch, r"menu opened: \"[^\"]*\" \(\[2\] Menu, items not readable\)")
            data = wa_json("state", "--window", sel)["data"]
            menu = data["elements"][1]
            self.assertEqual(menu["type"], "Menu", data["elements"][:3])
            left, top, right, bottom = menu["bounds"]
            self.assertTrue(right - left > 20 and bottom - top > 20, menu)
            frame = data["elements"][0]["bounds"]
            self.assertTrue(frame[0] <= left < frame[2] and top >= frame[1], (menu, frame))

            ch, _ = step("down", sel)
            self.assertRegex(ch, r"menu open: \"[^\"]*\" \(\[2\] Menu, items not readable\)")
            self.assertNotIn("menu closed", ch)
            ch, _ = step("down", sel)
            self.assertRegex(ch, r"menu open: \"[^\"]*\" \(\[2\] Menu, items not readable\)")

            ch, _ = step("esc", sel)
            self.assertIn("menu closed", ch)
            self.assertNotIn("menu open", ch)
            wa("keys", "esc", "--window", sel)  # the bar stays selected after the first
            lines, text, _ = state(sel)
            self.assertFalse(has_menu(lines), text)

    def test_notepad(self):
        self.walk("windows/system32/notepad.exe", "Untitled - Notepad", "alt+f")

    def test_regedit(self):
        self.walk("windows/regedit.exe", "Registry Editor", "alt+e")


if __name__ == "__main__":
    watest.main()
