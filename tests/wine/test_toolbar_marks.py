"""Toolbar buttons nobody names, on a program written by others: under Wine 8 wordpad's
toolbar buttons have no text, and their tooltips are callbacks it does not answer
across processes, so its tree is rejected and the observation is the image with a
numbered mark on each button. Bold is clicked by its mark, text typed after it comes
out bold: judged outside winagent, in the RTF file wordpad saves."""
import json
import os
import re
import tempfile
import time
import unittest

import watest
from watest import WineProgram
from test_menus import wa, wait_window

WORDPAD = "Wine Wordpad"
MARK = re.compile(r'^\[(\d+)\] (\S+) "((?:[^"\\]|\\.)*)" bounds=\[(\d+),(\d+)\]\[(\d+),(\d+)\]$',
                  re.M)


def act(sel, request):
    r = wa("act", json.dumps(request), "--window", sel, check=False)
    out = json.loads(r.stdout)
    if not out.get("success"):
        raise AssertionError("act %s: %s %s" % (request, out, r.stderr))
    return out


class WordpadToolbar(unittest.TestCase):
    def test_bold_by_its_mark(self):
        out_file = os.path.join(tempfile.mkdtemp(prefix="wa-bold-"), "bold.rtf")
        with WineProgram("Program Files/Windows NT/Accessories/wordpad.exe"):
            wait_window(WORDPAD)
            ob = act(WORDPAD, {"action": "window_screenshot"})["observation"]
            self.assertEqual(ob["kind"], "image", ob)
            self.assertIn("with numbered marks", ob["verdict"])
            buttons = [(int(m[0]), int(m[3]), int(m[4])) for m in MARK.findall(ob["marks"])
                       if m[1] == "Button"]
            self.assertGreaterEqual(len(buttons), 16, ob["marks"])
            # Two toolbars, one above the other: the standard one (New, Open, Save...) and
            # the format bar, whose first button is Bold (then Italic, Underline...).
            rows = sorted({top for _, _, top in buttons})
            self.assertEqual(len(rows), 2, ob["marks"])
            fmt = sorted((left, ref) for ref, left, top in buttons if top == rows[1])
            self.assertEqual(len(fmt), 8, ob["marks"])
            bold = fmt[0][1]

            r = act(WORDPAD, {"action": "click", "element": bold})
            self.assertEqual(r["data"]["element"]["type"], "Button", r)
            # The toggle shows it took: the change report of the click says so.
            self.assertIn('states: [%d] Button "" +checked' % bold, r.get("changes", []), r)

            wa("type", "boldly", "--window", WORDPAD)
            wa("keys", "ctrl+s", "--window", WORDPAD)
            wait_window("Save As")
            wa("type", watest.win_path(out_file), "--window", "Save As")
            wa("keys", "enter", "--window", "Save As")
            deadline = time.monotonic() + 20
            rtf = b""
            while time.monotonic() < deadline and b"boldly" not in rtf:
                time.sleep(0.2)
                if os.path.exists(out_file):
                    with open(out_file, "rb") as f:
                        rtf = f.read()
        self.assertIn(b"boldly", rtf, rtf)
        # \b turns bold on; only \b0 (or a new paragraph) turns it off again.
        before = rtf[:rtf.index(b"boldly")]
        self.assertRegex(before, rb"\\b(?![0a-z])", rtf)
        self.assertNotRegex(before[before.rindex(b"\\b"):], rb"\\b0", rtf)
        self.assertNotRegex(before, rb"\\i(?![0a-z])", rtf)  # not Italic's


if __name__ == "__main__":
    watest.main()
