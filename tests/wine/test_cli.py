"""The desktop as a command line (`state`, `click 3`, ...) under Wine, on testapp and
notepad: each command's effect proven by testapp's event log or by reading back."""
import json
import os
import subprocess
import time
import unittest

import watest
from watest import TestApp, ref_of

CLI = watest.Cli("wa-cli-state-")  # separate processes; refs travel through its folder
wa, wa_json = CLI.run, CLI.json


class CliOnTestapp(unittest.TestCase):
    def setUp(self):
        self.app = TestApp().__enter__()

    def tearDown(self):
        self.app.__exit__(None, None, None)

    def event(self, **fields):
        return self.app.wait_event(lambda e: all(e.get(k) == v for k, v in fields.items()))

    def test_refs_work_across_processes(self):
        state = wa("state", "--window", "winagent testapp").stdout
        self.assertIn('Button "OK"', state)
        ok = ref_of(state, "Button", "OK")
        edit = ref_of(state, "Edit", "Name:")
        box = ref_of(state, "CheckBox", "Enable feature")
        item = ref_of(state, "ListItem", "Item 3")
        blue = ref_of(state, "ListItem", "Blue")
        # Each action below is its own process.
        self.assertIn("ok: click", wa("click", ok, "--window", "testapp").stdout)
        self.event(event="click", control="OK")
        wa("fill", edit, "héllo ✓", "--window", "testapp")
        self.event(event="text_changed", control="edit", text="héllo ✓")
        self.assertEqual(wa("get", "value", edit, "--window", "testapp").stdout.strip(),
                         "héllo ✓")
        wa("toggle", box, "--window", "testapp")
        self.event(event="checkbox", checked=True)
        wa("select", "e" + item, "--window", "testapp")
        self.event(event="list_select", text="Item 3")
        wa("select", "@e" + blue, "--window", "testapp")
        self.event(event="combo_select", text="Blue")
        wa("invoke", "Apply", "--window", "testapp")  # a plain-name selector
        self.event(event="click", control="Apply")

    def test_json_output_and_errors(self):
        d = wa_json("state", "--window", "testapp", "-i")
        self.assertTrue(d["success"])
        self.assertIn("tree", d["data"])
        self.assertGreater(len(d["data"]["elements"]), 10)
        d = wa_json("click", "Button:OK", "--window", "testapp")
        ws = d["window_state"]
        self.assertTrue(ws["is_foreground"])
        self.assertEqual(ws["title"], "winagent testapp")
        self.assertEqual(len(ws["rect"]), 4)
        d = wa_json("click", "Button:Nope", "--window", "testapp", check=False)
        self.assertEqual(d["error"]["code"], "element_not_found")
        d = wa_json("click", "~*", "--window", "testapp", check=False)
        self.assertEqual(d["error"]["code"], "ambiguous")
        d = wa_json("click", "3", "--window", "no such window", check=False)
        self.assertIn(d["error"]["code"], ("window_not_found", "stale_ref"))
        r = wa("click", "--window", "testapp", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('click needs "ref"', r.stderr)

    def test_selectors_of_each_kind(self):
        m = wa_json("find", "~Appl?", "--window", "testapp")["data"]["matches"]
        self.assertEqual([x["name"] for x in m], ["Apply"])
        m = wa_json("find", ".Button", "--all", "--window", "testapp")["data"]["matches"]
        self.assertGreaterEqual(len(m), 6)
        m = wa_json("find", "CheckBox:Enable feature", "--window", "testapp")["data"]["matches"]
        self.assertEqual(m[0]["type"], "CheckBox")
        m = wa_json("find", "Open dialog...", "--window", "testapp")["data"]["matches"]
        self.assertEqual(m[0]["type"], "Button")
        # Refs printed by find are refs for the next command.
        wa("click", str(m[0]["id"]), "--window", "testapp")
        self.event(event="dialog_open")
        wa("keys", "esc", "--window", "testapp dialog")

    def test_ref_to_a_closed_dialog_is_stale(self):
        wa("invoke", "Open dialog...", "--window", "testapp")
        self.event(event="dialog_open")
        state = wa("state", "--window", "testapp dialog").stdout
        ok = ref_of(state, "Button", "OK")
        wa("keys", "esc", "--window", "testapp dialog")
        self.event(event="dialog_close", result="cancel")
        d = wa_json("click", ok, check=False)
        self.assertEqual(d["error"]["code"], "stale_ref", d)
        d = wa_json("wait", "--gone", "Button:Cancel", "--window", "testapp", "--timeout", "2")
        self.assertTrue(d["success"])

    def test_keys_reach_the_named_window_when_another_is_in_front(self):
        notepad = subprocess.Popen(["wine", "notepad"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                if "notepad" in wa("windows").stdout.lower():
                    break
                time.sleep(0.3)
            wa("focus", "notepad")
            wa("keys", "ctrl+s", "--window", "winagent testapp")
            self.event(event="accelerator", name="save")
            wa("type", "xyz", "--window", "winagent testapp")
            self.event(event="char", text="z")
            # Nothing reached notepad: its edit is still empty.
            np = wa("state", "--window", "notepad").stdout
            self.assertNotIn('value="xyz', np)
        finally:
            notepad.kill()
            notepad.wait(10)

    def test_return_state_and_screenshot(self):
        r = wa("click", "Button:OK", "--window", "testapp", "--return-state", "--screenshot")
        self.assertIn('Button "OK"', r.stdout)  # the state after the click
        path = [l for l in r.stdout.splitlines() if l.startswith("screenshot: ")][0][12:]
        local = path.replace("\\", "/")
        if local.startswith("Z:"):
            local = local[2:]
        if os.path.exists(local):
            with open(local, "rb") as f:
                self.assertEqual(f.read(4), b"\x89PNG")

    def test_scroll_drag_and_pixels(self):
        lst = ref_of(wa("state", "--window", "testapp").stdout, "List", "Items:")
        wa("scroll", lst, "down", "2", "--window", "testapp")
        ev = self.event(event="wheel", control="list")
        self.assertEqual(ev["delta"], -120)
        red = self.app.ready["controls"]["target_red"]
        cx, cy = (red[0] + red[2]) // 2, (red[1] + red[3]) // 2
        wa("click-at", str(cx), str(cy), "--window", "testapp")
        ev = self.event(event="click", control="canvas")
        self.assertEqual(ev["target"], "red")
        green = self.app.ready["controls"]["target_green"]
        wa("drag-at", str(cx), str(cy), str(green[0] + 5), str(green[1] + 5), "--window",
           "testapp")
        ev = self.event(event="drag", control="canvas")
        self.assertEqual(ev["target_to"], "green")


if __name__ == "__main__":
    watest.main()
