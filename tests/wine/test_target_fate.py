"""A target that hangs or crashes over an action: the action comes back within its
bounds with target_hung or target_gone, naming the windows that came and went, and a
point action that names no target says which window got it. hangapp's button stops its
thread (--hang-on-click) or writes through a null pointer (--crash-on-click) when it is
clicked; Wine's crash debugger then ends the program."""
import json
import os
import subprocess
import time
import unittest

import watest

HANGAPP = os.path.join(os.path.dirname(watest.TESTAPP_EXE), "hangapp.exe")


class HangApp:
    def __init__(self, flag):
        self.flag = flag

    def __enter__(self):
        self.proc = subprocess.Popen(["wine", HANGAPP, self.flag], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 30
        while "winagent hangapp" not in watest.run_winagent("windows").stdout:
            if time.monotonic() > deadline:
                raise AssertionError("hangapp never showed its window")
            time.sleep(0.3)
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
            self.proc.wait(10)
        # Wine's crash debugger shows a console for a while: the next test starts without it
        deadline = time.monotonic() + 30
        while ("Wine Debugger" in watest.run_winagent("windows").stdout
               and time.monotonic() < deadline):
            time.sleep(0.5)
        return False


class TargetFate(unittest.TestCase):
    def click_button(self, cli):
        cli.run("state", "--window", "winagent hangapp")
        t0 = time.monotonic()
        r = cli.run("click", "Button:Hung button", "--window", "winagent hangapp", "--json",
                    check=False, timeout=60)
        took = time.monotonic() - t0
        return json.loads(r.stdout), took

    def test_a_hang_over_a_click_ends_it_as_target_hung(self):
        cli = watest.Cli("fate-hang-")
        with HangApp("--hang-on-click"):
            res, took = self.click_button(cli)
        self.assertFalse(res["success"], res)
        self.assertEqual(res["error"]["code"], "target_hung", res)
        self.assertIn("hangapp.exe", res["error"]["message"])
        # 5 s without an answer, plus winagent's own start under Wine
        self.assertLess(took, 20, res)

    def test_a_crash_over_a_click_ends_it_and_says_which_windows_went(self):
        cli = watest.Cli("fate-crash-")
        with HangApp("--crash-on-click") as app:
            res, took = self.click_button(cli)
            gone = app.proc.wait(30) is not None
        self.assertFalse(res["success"], res)
        # Gone once the crash debugger ended it; hung while it still held it (a loaded
        # machine): both come back in bounds and say what happened.
        self.assertIn(res["error"]["code"], ("target_gone", "target_hung"), res)
        self.assertLess(took, 25, res)
        self.assertTrue(gone, "hangapp still runs")
        if res["error"]["code"] == "target_gone":
            self.assertIn("exception 0xc0000005", res["error"]["message"])
            self.assertIn('window closed: "winagent hangapp"', "\n".join(res["changes"]))

    def test_a_point_without_a_named_target_says_who_got_it(self):
        cli = watest.Cli("fate-point-")
        with watest.TestApp(panel="main"):
            # testapp is in front: a screen point of its client area, no --window
            r = cli.run("windows", "--json")
            wins = json.loads(r.stdout)["data"]["windows"]
            rect = [w for w in wins if w["title"] == "winagent testapp"][0]["rect"]
            x, y = (rect[0] + rect[2]) // 2, rect[3] - 20
            res = cli.json("click-at", str(x), str(y))
        self.assertEqual(res["data"]["received_by"]["process"], "testapp.exe", res)
        self.assertTrue(any("went to" in n for n in res.get("notes", [])), res)


if __name__ == "__main__":
    watest.main()
