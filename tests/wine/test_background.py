"""Background delivery under Wine: with another window in front and the cursor parked,
click, type, fill, select, toggle, invoke and the wheel reach testapp (its event log) and notepad
(its text, read back), while the foreground window, the cursor position and the
focused control of the window in front stay exactly as they were. Operations without a
background route answer background_unavailable and send nothing."""
import ctypes
import ctypes.util
import json
import os
import time
import unittest

import watest
from watest import TestApp, WineProgram, ref_of

CLI = watest.Cli("wa-bg-state-")
PARKED = (1700, 950)  # on the desktop, clear of every window here


class X11Pointer:
    """The real X pointer, as a person at the display sees it (libX11 through ctypes:
    Wine's GetCursorPos reads the same)."""

    def __init__(self):
        self.x = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        self.x.XOpenDisplay.restype = ctypes.c_void_p
        self.x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x.XDefaultRootWindow.restype = ctypes.c_ulong
        self.x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self.x.XQueryPointer.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [
            ctypes.c_void_p] * 7
        self.x.XWarpPointer.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong] + [
            ctypes.c_int] * 2 + [ctypes.c_uint] * 2 + [ctypes.c_int] * 2
        self.x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self.dpy = self.x.XOpenDisplay(os.environ["DISPLAY"].encode())
        if not self.dpy:
            raise AssertionError("cannot open display %s" % os.environ["DISPLAY"])
        self.root = self.x.XDefaultRootWindow(self.dpy)

    def where(self):
        root, child = ctypes.c_ulong(), ctypes.c_ulong()
        rx, ry, wx, wy = (ctypes.c_int() for _ in range(4))
        mask = ctypes.c_uint()
        self.x.XQueryPointer(self.dpy, self.root, ctypes.byref(root), ctypes.byref(child),
                             ctypes.byref(rx), ctypes.byref(ry), ctypes.byref(wx),
                             ctypes.byref(wy), ctypes.byref(mask))
        return (rx.value, ry.value)

    def park(self, x, y):
        self.x.XWarpPointer(self.dpy, 0, self.root, 0, 0, 0, 0, x, y)
        self.x.XSync(self.dpy, 0)

    def close(self):
        self.x.XCloseDisplay(self.dpy)


def wa(*args, timeout=60):
    return CLI.run(*args, check=False, timeout=timeout)


def wa_json(*args):
    return CLI.json(*args, check=False)


def bg(*args):
    """An action in background delivery; its JSON result, which must be a success."""
    res = wa_json(*args, "--delivery", "background")
    if not res.get("success"):
        raise AssertionError("winagent %s: %s" % (args, res))
    if res.get("data", {}).get("delivery") != "background":
        raise AssertionError("not delivered in the background: %s" % res)
    return res


def foreground():
    res = wa_json("windows")
    front = [w for w in res["data"]["windows"] if w.get("foreground")]
    return front[0]["hwnd"] if front else None


def focused_elements(window):
    """The elements of window with the focused state: the control that has its focus."""
    res = wa_json("state", "--window", window)
    if not res.get("success"):
        raise AssertionError("no state of %s: %s" % (window, res))
    return [(e["type"], e["name"]) for e in res["data"]["elements"]
            if "focused" in e.get("states", [])]


class Background(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pointer = X11Pointer()
        # The target and, over it at the same place, the window the user works in.
        cls.target = TestApp("--title", "background target", "--x", "40", "--y", "40").__enter__()
        cls.notepad = WineProgram("windows/system32/notepad.exe").__enter__()
        deadline = time.monotonic() + 30
        while not wa_json("state", "--window", "Notepad").get("success"):
            if time.monotonic() > deadline:
                raise AssertionError("notepad did not come up")
            time.sleep(0.5)
        cls.front = TestApp("--title", "user window", "--x", "40", "--y", "40").__enter__()
        r = wa("focus", cls.front.ready["hwnd"])
        if r.returncode != 0:
            raise AssertionError("could not bring the user's window to the front: %s" % r.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.front.__exit__(None, None, None)
        cls.notepad.__exit__(None, None, None)
        cls.target.__exit__(None, None, None)
        cls.pointer.close()

    def setUp(self):
        self.pointer.park(*PARKED)
        self.assertEqual(self.pointer.where(), PARKED)
        self.fg = foreground()
        self.assertEqual(self.fg, self.front.ready["hwnd"], "the user's window is not in front")
        self.focus = focused_elements(self.front.ready["hwnd"])
        self.front_mark = len(self.front.events())

    def assert_nobody_noticed(self):
        self.assertEqual(self.pointer.where(), PARKED, "the cursor moved")
        self.assertEqual(foreground(), self.fg, "the foreground window changed")
        self.assertEqual(focused_elements(self.front.ready["hwnd"]), self.focus,
                         "the focus of the window in front changed")
        seen = self.front.events()[self.front_mark:]
        noticed = [e for e in seen if e.get("event") in ("activate", "key", "char", "click",
                                                         "mouse", "text_changed", "wheel")]
        self.assertEqual(noticed, [], "the user's window got input")

    def event(self, app, mark, **fields):
        deadline = time.monotonic() + 10
        while True:
            for e in app.events()[mark:]:
                if all(e.get(k) == v for k, v in fields.items()):
                    return e
            if time.monotonic() > deadline:
                raise AssertionError("no event %s; after the mark: %s"
                                     % (fields, app.events()[mark:][-10:]))
            time.sleep(0.05)

    def test_testapp_actions_arrive_unnoticed(self):
        win = self.target.ready["hwnd"]
        state = wa("state", "--window", win).stdout
        ok, apply_ = ref_of(state, "Button", "OK"), ref_of(state, "Button", "Apply")
        edit = ref_of(state, "Edit", "Name:")
        box = ref_of(state, "CheckBox", "Enable feature")
        item, combo = ref_of(state, "ListItem", "Item 3"), ref_of(state, "ComboBox", "Color:")
        app = self.target
        mark = len(app.events())
        bg("click", ok, "--window", win)
        self.event(app, mark, event="click", control="OK")
        bg("type", "hi", "--ref", edit, "--window", win)
        self.event(app, mark, event="text_changed", control="edit", text="hi")
        res = bg("fill", edit, "filled in", "--window", win)
        self.assertTrue(res["data"].get("verified"), res)
        self.event(app, mark, event="text_changed", control="edit", text="filled in")
        bg("select", combo, "Green", "--window", win)
        self.event(app, mark, event="combo_select", text="Green")
        bg("select", item, "--window", win)
        self.event(app, mark, event="list_select", text="Item 3")
        bg("toggle", box, "--window", win)
        self.event(app, mark, event="checkbox", checked=True)
        bg("invoke", apply_, "--window", win)
        self.event(app, mark, event="click", control="Apply")
        # A pixel: the red square of the canvas, covered on screen by the user's window.
        red = app.ready["controls"]["target_red"]
        bg("click-at", str((red[0] + red[2]) // 2), str((red[1] + red[3]) // 2), "--window", win)
        self.event(app, mark, event="click", control="canvas", target="red")
        # The wheel: two notches down over the list, which scrolls its first item away.
        lst = ref_of(state, "List", "Items:")
        res = bg("scroll", lst, "down", "2", "--window", win)
        self.assertEqual(res["data"].get("via"), "message:WM_MOUSEWHEEL", res)
        self.event(app, mark, event="wheel", control="list", delta=-120)
        deadline = time.monotonic() + 10
        while True:
            lists = [e.get("items", {}) for e in wa_json("state", "--window", win)["data"]
                     ["elements"] if e["type"] == "List" and e["name"] == "Items:"]
            if lists and lists[0].get("shown", [0])[0] > 0:  # Item 1 no longer shows
                break
            self.assertLess(time.monotonic(), deadline, "the list did not scroll: %s" % lists)
            time.sleep(0.2)
        wheels = [e for e in app.events()[mark:] if e.get("event") == "wheel"]
        self.assertEqual([e["delta"] for e in wheels], [-120, -120], wheels)
        self.assert_nobody_noticed()

    def test_notepad_type_and_fill_arrive_unnoticed(self):
        state = wa("state", "--window", "Notepad").stdout
        doc = None
        for kind in ("Edit", "Document"):
            try:
                doc = ref_of(state, kind, "")
                break
            except AssertionError:
                pass
        self.assertIsNotNone(doc, state)
        # No ref: the characters go to notepad's own edit, which a thread that is not in
        # front keeps no focus on.
        res = bg("type", "typed unseen", "--window", "Notepad")
        self.assertTrue(res["data"].get("verified"), res)
        got = wa("get", "value", doc, "--window", "Notepad").stdout.strip()
        self.assertEqual(got, "typed unseen")
        res = bg("fill", doc, "filled unseen", "--window", "Notepad")
        self.assertTrue(res["data"].get("verified"), res)
        got = wa("get", "value", doc, "--window", "Notepad").stdout.strip()
        self.assertEqual(got, "filled unseen")
        # ... and into the element named, at its caret (the start, after WM_SETTEXT)
        res = bg("type", "now ", "--ref", doc, "--window", "Notepad")
        self.assertTrue(res["data"].get("verified"), res)
        got = wa("get", "value", doc, "--window", "Notepad").stdout.strip()
        self.assertEqual(got, "now filled unseen")
        self.assert_nobody_noticed()

    def test_image_of_a_covered_window_says_what_it_shows(self):
        # Wine 8's PrintWindow draws nothing of another process's window: the image is
        # copied from the screen, where the user's window covers the target, and the
        # result says so.
        res = wa_json("screenshot", "--window", self.target.ready["hwnd"])
        self.assertTrue(res["success"], res)
        notes = " ".join(res.get("notes", []))
        self.assertIn("copied from the screen", notes, res.get("notes"))
        self.assert_nobody_noticed()

    def test_no_route_no_input(self):
        win = self.target.ready["hwnd"]
        mark = len(self.target.events())
        for args in (("keys", "ctrl+a"), ("drag-at", "300", "300", "400", "400"),
                     ("hover", "1")):
            res = wa_json(*args, "--window", win, "--delivery", "background")
            self.assertFalse(res["success"], res)
            self.assertEqual(res["error"]["code"], "background_unavailable", res)
        time.sleep(0.3)  # nothing may come late either
        got = [e for e in self.target.events()[mark:]
               if e.get("event") in ("key", "char", "mouse", "drag", "click")]
        self.assertEqual(got, [])
        self.assert_nobody_noticed()


if __name__ == "__main__":
    watest.main()
