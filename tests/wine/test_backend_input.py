"""The Windows backend's input slots under Wine: mouse clicks, drags and wheel at exact
pixels, Unicode typing and key chords, each checked against what testapp received."""
import time
import unittest

import watest
from watest import TestApp
from test_backend_windows import act


def to_norm(px, origin, size):
    """The 0-999 value that maps back to pixel px (docs/contract.md §4); exact for frames
    narrower than 1000 pixels."""
    return int((px - origin) * 999 / (size - 1) + 0.5)


def centre(rect):
    return ((rect[0] + rect[2]) // 2, (rect[1] + rect[3]) // 2)


class Input(unittest.TestCase):
    def setUp(self):
        self.app = TestApp().__enter__()
        self.addCleanup(self.app.kill)
        self.frame = self.app.ready["rect"]
        canvas = self.app.ready["controls"]["canvas"]
        self.canvas_origin = (canvas[0] + 1, canvas[1] + 1)  # inside its 1 px border

    def act_at(self, action, px, py, **extra):
        """Runs a pointer action aimed at screen pixel (px, py) of testapp's frame."""
        l, t, r, b = self.frame
        call = dict({"action": action, "x": to_norm(px, l, r - l), "y": to_norm(py, t, b - t)},
                    **extra)
        res = act(call, window=self.app.ready["hwnd"])
        self.assertTrue(res.get("success"), res)
        return res

    def act(self, call):
        res = act(call, window=self.app.ready["hwnd"])
        self.assertTrue(res.get("success"), res)
        return res

    def mark(self):
        """A position in testapp's log: new_event(mark, ...) sees only what comes later."""
        return len(self.app.events())

    def new_event(self, mark, pred, count=1):
        """The count-th event after mark matching pred, waiting up to 10 s for it."""
        deadline = time.monotonic() + 10
        while True:
            events = self.app.events()[mark:]
            hits = [e for e in events if pred(e)]
            if len(hits) >= count:
                return hits[count - 1]
            if time.monotonic() > deadline:
                raise AssertionError("%d matching events wanted; after the mark: %s"
                                     % (count, events[-10:]))
            time.sleep(0.05)

    def assert_near(self, got, want, what):
        self.assertTrue(abs(got[0] - want[0]) <= 1 and abs(got[1] - want[1]) <= 1,
                        "%s at %s, expected %s (+-1 px)" % (what, got, want))

    def test_clicks_land_on_the_canvas_pixel_with_each_button(self):
        controls = self.app.ready["controls"]
        for action, button, target in (("click", "left", "red"),
                                       ("right_click", "right", "green"),
                                       ("middle_click", "middle", "blue")):
            px, py = centre(controls["target_" + target])
            m = self.mark()
            self.act_at(action, px, py)
            down = self.new_event(m, lambda e: e.get("event") == "mouse" and e["kind"] == "down")
            self.assertEqual(down["button"], button, down)
            self.assertEqual(down["target"], target, down)
            self.assert_near((down["x"], down["y"]),
                             (px - self.canvas_origin[0], py - self.canvas_origin[1]), action)
            self.new_event(m, lambda e: e.get("event") == "mouse" and e["kind"] == "up"
                           and e["button"] == button)
        # a white pixel near the canvas corner: exact coordinates, no target
        px, py = self.canvas_origin[0] + 7, self.canvas_origin[1] + 283
        m = self.mark()
        self.act_at("click", px, py)
        down = self.new_event(m, lambda e: e.get("event") == "mouse" and e["kind"] == "down")
        self.assertIsNone(down["target"])
        self.assert_near((down["x"], down["y"]), (7, 283), "click")

    def test_double_click(self):
        px, py = self.canvas_origin[0] + 200, self.canvas_origin[1] + 40
        m = self.mark()
        self.act_at("double_click", px, py)
        dbl = self.new_event(m, lambda e: e.get("event") == "mouse" and e["kind"] == "double")
        self.assertEqual(dbl["button"], "left")
        self.assert_near((dbl["x"], dbl["y"]), (200, 40), "double click")

    def test_drag_from_one_point_to_another(self):
        ox, oy = self.canvas_origin
        l, t0, r, b = self.frame
        m = self.mark()
        self.act_at("drag", ox + 30, oy + 250, to_x=to_norm(ox + 300, l, r - l),
                    to_y=to_norm(oy + 60, t0, b - t0))
        drag = self.new_event(m, lambda e: e.get("event") == "drag")
        self.assertEqual(drag["button"], "left")
        self.assert_near(drag["from"], (30, 250), "drag start")
        self.assert_near(drag["to"], (300, 60), "drag end")

    def test_wheel_reaches_the_list_vertically_and_horizontally(self):
        px, py = centre(self.app.ready["controls"]["list"])
        m = self.mark()
        self.act_at("scroll", px, py, direction="down", amount=2)
        self.new_event(m, lambda e: e.get("event") == "wheel", count=2)
        wheels = [e for e in self.app.events()[m:] if e.get("event") == "wheel"]
        self.assertEqual([(e["control"], e["delta"], e["horizontal"]) for e in wheels],
                         [("list", -120, False)] * 2, wheels)
        self.assertGreater(wheels[-1]["top_index"], 0, "the list did not scroll")
        m = self.mark()
        self.act_at("scroll", px, py, direction="right", amount=1)
        h = self.new_event(m, lambda e: e.get("event") == "wheel" and e["horizontal"])
        self.assertEqual((h["control"], h["delta"]), ("list", 120), h)

    def click_edit(self):
        px, py = centre(self.app.ready["controls"]["edit"])
        self.act_at("click", px, py)

    def test_typing_ascii_and_non_ascii_arrives_exactly(self):
        self.click_edit()
        self.act({"action": "type", "text": "Hello, World! 123"})
        self.app.wait_event(lambda e: e.get("event") == "text_changed"
                            and e["text"] == "Hello, World! 123")
        # Latin accents, a BMP symbol, CJK and a character outside the BMP (a surrogate pair)
        self.act({"action": "type", "text": " héllo wörld ✓ 日本 😀"})
        self.app.wait_event(lambda e: e.get("event") == "text_changed"
                            and e["text"] == "Hello, World! 123 héllo wörld ✓ 日本 😀")
        chars = [e for e in self.app.events() if e.get("event") == "char"]
        self.assertIn("😀", [c["text"] for c in chars])

    def test_ctrl_s_reaches_the_accelerator_and_ctrl_is_released(self):
        self.click_edit()
        m = self.mark()
        self.act({"action": "key", "keys": "ctrl+s"})
        self.new_event(m, lambda e: e.get("event") == "accelerator" and e["name"] == "save")
        self.new_event(m, lambda e: e.get("event") == "key_up" and e["name"] == "S")
        self.new_event(m, lambda e: e.get("event") == "key_up" and e["name"] == "Ctrl")
        # typing afterwards is plain text, not more shortcuts
        self.act({"action": "type", "text": "abc"})
        self.app.wait_event(lambda e: e.get("event") == "text_changed" and e["text"] == "abc")

    def test_what_a_process_holds_down_is_let_go_when_it_ends(self):
        """key-down and mouse-down leave their input down; the command's process ends,
        and it goes up: on the canvas where it went down, the key as a key_up."""
        cli = watest.Cli("wa-held-")
        red = centre(self.app.ready["controls"]["target_red"])
        m = self.mark()
        cli.json("mouse-down", str(red[0]), str(red[1]))
        down = self.new_event(m, lambda e: e.get("event") == "mouse" and e["kind"] == "down")
        up = self.new_event(m, lambda e: e.get("event") == "mouse" and e["kind"] == "up")
        self.assertEqual((down["target"], up["target"]), ("red", "red"))
        m = self.mark()
        cli.json("key-down", "shift", "--window", self.app.ready["hwnd"])
        self.new_event(m, lambda e: e.get("event") == "key" and e["name"] == "Shift")
        self.new_event(m, lambda e: e.get("event") == "key_up" and e["name"] == "Shift")
        # where the pointer is, as the pointer command reads it back
        cli.json("hover-at", str(red[0] + 7), str(red[1] - 5))
        got = cli.json("pointer")["data"]["pixel"]
        self.assertEqual(got, [red[0] + 7, red[1] - 5])

    def test_shift_tab_moves_the_focus_back(self):
        px, py = centre(self.app.ready["controls"]["checkbox"])
        self.act_at("click", px, py)  # the checkbox follows the edit in tab order
        m = self.mark()
        self.act({"action": "key", "keys": "shift+tab"})
        tab = self.new_event(m, lambda e: e.get("event") == "key" and e["name"] == "Tab")
        self.assertTrue(tab["shift"], tab)
        self.assertEqual(tab["focus"], "checkbox")
        self.act({"action": "type", "text": "x"})
        self.app.wait_event(lambda e: e.get("event") == "text_changed" and e["text"] == "x")

    def test_extended_keys_keep_their_identity(self):
        self.click_edit()
        self.act({"action": "type", "text": "abcd"})
        m = self.mark()
        self.act({"action": "key", "keys": "home"})
        self.act({"action": "key", "keys": "delete"})
        self.act({"action": "key", "keys": "right"})
        for name in ("Home", "Delete", "Right"):
            self.new_event(m, lambda e, n=name: e.get("event") == "key" and e["name"] == n)
        self.app.wait_event(lambda e: e.get("event") == "text_changed" and e["text"] == "bcd")

    def test_alt_f4_closes_the_window(self):
        self.click_edit()
        self.act({"action": "key", "keys": "alt+f4"})
        self.app.wait_event(lambda e: e.get("event") == "close")
        self.assertEqual(self.app.proc.wait(10), 0)


if __name__ == "__main__":
    watest.main()
