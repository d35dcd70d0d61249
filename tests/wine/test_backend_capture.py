"""The Windows backend's capture slots under Wine: `winagent screenshot` of the screen
and of testapp, decoded here, with testapp's exact colours where its layout says."""
import os
import re
import tempfile
import unittest

import watest
from watest import TestApp, win_path
from png_decode import decode_png  # tests/fake_llm, put on sys.path by watest
from test_backend_windows import act, winagent

RED, GREEN, BLUE = (255, 0, 0), (0, 200, 0), (0, 0, 255)
ORANGE, PURPLE, TEAL = (255, 128, 0), (128, 0, 160), (0, 160, 160)


def centre(rect):
    return ((rect[0] + rect[2]) // 2, (rect[1] + rect[3]) // 2)


class Screenshot(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wa-capture-")

    def shoot(self, *args):
        """Runs `winagent screenshot ARGS -o F.png`; returns (image, frame)."""
        path = os.path.join(self.dir, "shot.png")
        code, out, err = winagent("screenshot", *args, "-o", win_path(path))
        self.assertEqual(code, 0, err)
        m = re.search(r"frame=\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]", out)
        self.assertIsNotNone(m, out)
        with open(path, "rb") as f:
            return decode_png(f.read()), [int(v) for v in m.groups()]

    def assert_colours(self, img, origin, controls):
        """The pixels at the centres of testapp's coloured controls, in an image whose
        top-left is screen pixel origin."""
        for name, rgb in (("target_red", RED), ("target_green", GREEN), ("target_blue", BLUE),
                          ("owner1", ORANGE), ("owner2", PURPLE), ("owner3", TEAL)):
            x, y = centre(controls[name])
            self.assertEqual(img.pixel(x - origin[0], y - origin[1]), rgb, name)

    def test_the_whole_screen(self):
        with TestApp() as app:
            img, frame = self.shoot()
            self.assertEqual((img.width, img.height), tuple(app.ready["screen"]))
            self.assertEqual(frame, [0, 0] + app.ready["screen"])
            self.assert_colours(img, (0, 0), app.ready["controls"])

    def test_the_screen_scaled_down(self):
        with TestApp():
            img, frame = self.shoot("--max-edge", "960")
            self.assertEqual((img.width, img.height), (960, 540))
            self.assertEqual(frame, [0, 0, 1920, 1080])

    def test_a_window_is_its_frame(self):
        with TestApp() as app:
            img, frame = self.shoot("--window", app.ready["hwnd"])
            l, t, r, b = app.ready["rect"]
            self.assertEqual(frame, [l, t, r, b])
            self.assertEqual((img.width, img.height), (r - l, b - t))
            self.assert_colours(img, (l, t), app.ready["controls"])
            # no pixel of shift: the canvas's border column, then its white inside
            cl, ct = app.ready["controls"]["canvas"][:2]
            self.assertNotEqual(img.pixel(cl - l, ct - t + 150), (255, 255, 255))
            self.assertEqual(img.pixel(cl - l + 1, ct - t + 150), (255, 255, 255))
            rl, rt = app.ready["controls"]["target_red"][:2]
            self.assertEqual(img.pixel(rl - l - 1, rt - t), (255, 255, 255))
            self.assertEqual(img.pixel(rl - l, rt - t), RED)

    def test_a_partly_covered_window_still_shows_its_uncovered_part(self):
        # Under Wine PrintWindow draws nothing for other processes, so this takes the
        # screen-copy fallback: the covered part shows notepad, the rest is testapp.
        with TestApp() as app:
            act({"action": "launch", "command": "notepad"})
            try:
                act({"action": "move_window", "window": "notepad",
                     "x": 0, "y": 0, "width": 300, "height": 300})
                img, frame = self.shoot("--window", app.ready["hwnd"])
                self.assertEqual(frame, app.ready["rect"])
                l, t = frame[:2]
                controls = app.ready["controls"]
                for name, rgb in (("target_red", RED), ("target_blue", BLUE)):
                    x, y = centre(controls[name])
                    self.assertEqual(img.pixel(x - l, y - t), rgb, name)
            finally:
                act({"action": "close_window", "window": "notepad"})

    def test_a_maximised_window_is_the_work_area(self):
        with TestApp() as app:
            act({"action": "set_window_state", "window": app.ready["hwnd"], "state": "maximize"})
            img, frame = self.shoot("--window", app.ready["hwnd"])
            self.assertEqual(frame, [0, 0] + app.ready["screen"])
            self.assertEqual((img.width, img.height), tuple(app.ready["screen"]))


if __name__ == "__main__":
    watest.main()
