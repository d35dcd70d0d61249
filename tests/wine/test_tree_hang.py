"""A window whose UI thread stopped answering never hangs winagent: tree walks return
within their budget (3 s) plus a grace second, with what can be read without the
target's help; actions give up."""
import json
import os
import time
import unittest

import watest
from watest import run_winagent, win_path

HANGAPP_EXE = os.path.join(os.path.dirname(watest.TESTAPP_EXE), "hangapp.exe")
BUDGET_S = 3.0 + 1.0  # the tree's default budget and its grace
STARTUP_S = 5.0       # winagent starting under Wine, finding the window, printing


class HangApp(watest.TestApp):
    """tests/apps/hangapp.exe: ready, then its UI thread sleeps for good. Started, awaited
    and killed as testapp is; it takes no --panel."""

    def __init__(self, *args):
        super().__init__()
        self.exe = HANGAPP_EXE
        self.args = ["--log", win_path(self.log_path), *args]

    def wait(self, name, timeout):
        """The first event called name, waiting up to timeout seconds."""
        return self.wait_event(lambda e: e.get("event") == name, timeout)


def timed(*args):
    start = time.monotonic()
    r = run_winagent(*args, timeout=60)
    return r, time.monotonic() - start


@unittest.skipUnless(os.path.exists(HANGAPP_EXE), "hangapp.exe was not built next to testapp")
class HungWindow(unittest.TestCase):
    def test_tree_of_a_hung_window_returns_with_stored_texts(self):
        with HangApp("--hang-after", "200") as app:
            app.wait("hanging", 10)
            time.sleep(0.5)  # well into the hang
            r, secs = timed("tree", "--window", app.ready["hwnd"], "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertLess(secs, BUDGET_S + STARTUP_S)
            t = json.loads(r.stdout)["data"]
            names = [(n["type"], n["name"]) for n in t["elements"]]
            # Class, style, rectangle and stored text need no message to the target.
            self.assertIn(("Window", "winagent hangapp"), names)
            self.assertIn(("Button", "Hung button"), names)
            self.assertIn(("Text", "Notes:"), names)
            self.assertIn("Edit", [n["type"] for n in t["elements"]])

    def test_hang_inside_a_call_gives_the_partial_tree(self):
        # The window answers pings, then hangs on WM_GETOBJECT, in the middle of the walk.
        for how in ("--hang-on-getobject",
                    # its button hangs on WM_GETTEXT, which oleacc's standard object sends
                    "--hang-on-gettext"):
            with self.subTest(how):
                self.hang_inside_a_call(how)

    def hang_inside_a_call(self, how):
        with HangApp(how) as app:
            r, secs = timed("tree", "--window", app.ready["hwnd"], "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertLess(secs, BUDGET_S + STARTUP_S)
            t = json.loads(r.stdout)["data"]
            self.assertTrue(t["timed_out"], t)
            self.assertEqual(t["elements"][0]["name"], "winagent hangapp")
            app.wait("hanging", 1)  # it really hung (and was asked by us)

            # Asked again, the window fails the ping: no call goes into it, and the
            # tree of what needs no message is complete.
            r, secs = timed("tree", "--window", app.ready["hwnd"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertLess(secs, BUDGET_S + STARTUP_S)
            self.assertIn('Button "Hung button"', r.stdout)
            self.assertNotIn("the tree is partial", r.stdout)

    def test_action_on_a_hung_window_gives_up(self):
        with HangApp("--hang-after", "200") as app:
            app.wait("hanging", 10)
            time.sleep(0.5)
            r, _ = timed("tree", "--window", app.ready["hwnd"], "--json")
            button = [n for n in json.loads(r.stdout)["data"]["elements"] if n["name"] == "Hung button"][0]
            r, secs = timed("act", json.dumps({"action": "invoke", "element": button["id"]}),
                            "--window", app.ready["hwnd"])
            # Whatever the outcome, it comes back: the pattern path gives up after 5 s,
            # a fallback click does not wait for the target.
            self.assertLess(secs, 5.0 + BUDGET_S + STARTUP_S + 10.0, r.stdout)
            self.assertTrue(r.stdout.strip().startswith("{"), (r.stdout, r.stderr))


if __name__ == "__main__":
    watest.main()
