"""Clicks on a scaled screen: the prefix's LogPixels at 144 (150%) and 120 (125%), which
Wine reads in every process started after it is set. testapp, started then, reports
the scale it runs at and is laid out at it (its title bar and menu grow); a click by
ref (from `state`) and clicks by pixel (0-999 over its frame) land within 2 px of
their target, as testapp's canvas reports them."""
import re
import subprocess
import tempfile
import time
import unittest

import watest
from watest import TestApp, run_winagent
from test_backend_input import centre, to_norm
from test_backend_windows import act

KEY = r"HKCU\Control Panel\Desktop"


def logpixels():
    """The prefix's LogPixels, or None when it is not set (Wine's default, 96)."""
    r = subprocess.run(["wine", "reg", "query", KEY, "/v", "LogPixels"], capture_output=True,
                       text=True, errors="replace")
    m = re.search(r"LogPixels\s+REG_DWORD\s+0x([0-9a-fA-F]+)", r.stdout)
    return int(m.group(1), 16) if m else None


def set_logpixels(value):
    if value is None:
        cmd = ["wine", "reg", "delete", KEY, "/v", "LogPixels", "/f"]
    else:
        cmd = ["wine", "reg", "add", KEY, "/v", "LogPixels", "/t", "REG_DWORD", "/d",
               str(value), "/f"]
    subprocess.run(cmd, capture_output=True, check=value is not None)


class LogPixels(unittest.TestCase):
    def setUp(self):
        saved = logpixels()
        self.addCleanup(set_logpixels, saved)
        self.state_dir = tempfile.mkdtemp(prefix="wa-dpi-state-")

    def wa(self, *args):
        r = run_winagent(*args, env={"WINAGENT_STATE_DIR": watest.win_path(self.state_dir)})
        self.assertEqual(r.returncode, 0, "winagent %s: %s %s" % (args, r.stdout, r.stderr))
        return r.stdout

    def canvas_down(self, app, mark):
        """The canvas's first mouse-down after mark, and where it was in screen pixels."""
        deadline = time.monotonic() + 10
        while True:
            downs = [e for e in app.events()[mark:]
                     if e.get("event") == "mouse" and e.get("kind") == "down"]
            if downs:
                break
            self.assertLess(time.monotonic(), deadline, "no click reached the canvas")
            time.sleep(0.05)
        canvas = app.ready["controls"]["canvas"]
        return downs[0], (canvas[0] + 1 + downs[0]["x"], canvas[1] + 1 + downs[0]["y"])

    def assert_within_2px(self, got, want, what):
        self.assertTrue(abs(got[0] - want[0]) <= 2 and abs(got[1] - want[1]) <= 2,
                        "%s landed at %s, aimed at %s (+-2 px)" % (what, got, want))

    def clicks_land(self, dpi):
        set_logpixels(dpi)
        self.assertEqual(logpixels(), dpi)
        with TestApp() as app:
            # The scale took: testapp runs at it, so the clicks below are tested under it.
            self.assertEqual(app.ready["dpi"], dpi, app.ready)
            file_item = app.ready["menu"]["File"]
            self.assertGreater(file_item[3] - file_item[1], 18,  # its height at 96
                               "the menu row did not grow: %s" % app.ready)
            hwnd = app.ready["hwnd"]
            l, t, r, b = app.ready["rect"]

            # By pixel: the red target's centre, then a white pixel near the corner.
            red = centre(app.ready["controls"]["target_red"])
            canvas = app.ready["controls"]["canvas"]
            white = (canvas[0] + 1 + 7, canvas[1] + 1 + 283)
            for what, (px, py), target in (("red", red, "red"), ("white", white, None)):
                mark = len(app.events())
                res = act({"action": "click", "x": to_norm(px, l, r - l),
                           "y": to_norm(py, t, b - t)}, window=hwnd)
                self.assertTrue(res.get("success"), res)
                down, at = self.canvas_down(app, mark)
                self.assertEqual(down["target"], target, down)
                self.assert_within_2px(at, (px, py), "click by pixel at %s" % what)

            # By ref: the canvas (a Pane of its own) from `state`, clicked at its centre.
            listing = self.wa("state", "--window", hwnd)
            refs = re.findall(r"^\s*\[(\d+)\] Pane \"\" @", listing, re.M)
            self.assertTrue(refs, listing)
            mark = len(app.events())
            self.wa("click", refs[-1], "--window", hwnd)
            down, at = self.canvas_down(app, mark)
            self.assert_within_2px(at, centre(canvas), "click by ref on the canvas")

    def test_150_percent(self):
        self.clicks_land(144)

    def test_125_percent(self):
        self.clicks_land(120)


if __name__ == "__main__":
    watest.main()
