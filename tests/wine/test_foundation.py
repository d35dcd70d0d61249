"""The win64 product runs under Wine and the test ground is a proper desktop."""
import watest
from watest import run_winagent, TestApp
import unittest


class Foundation(unittest.TestCase):
    def test_version_runs_under_wine(self):
        r = run_winagent("--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout.strip(), r"^winagent \d+\.\d+\.\d+ \(win64\)$")

    def test_unknown_command_is_a_usage_error(self):
        r = run_winagent("no-such-command-é")
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown command 'no-such-command-é'", r.stderr)
        self.assertIn("usage:", r.stderr)

    def test_testapp_has_a_title_bar_on_a_1920x1080_desktop(self):
        with TestApp() as app:
            ready = app.ready
            self.assertEqual(ready["panel"], "main")
            wl, wt, wr, wb = ready["rect"]
            cl, ct, cr, cb = ready["client_rect"]
            # Virtual-desktop mode draws a frame: the client area sits below a caption.
            self.assertGreater(ct - wt, 15, ready)
            self.assertEqual(ready.get("screen"), [1920, 1080], ready)

    def test_wine_processes_start_without_address_randomisation(self):
        # tests/wine/no_aslr.sh: a randomly placed loader heap can take 0x7ffe0000, the
        # shared user data's address, and the process then dies before its main runs.
        ADDR_NO_RANDOMIZE = 0x0040000
        with TestApp() as app:
            pid = app.proc.pid
            with open("/proc/%d/personality" % pid) as f:
                self.assertTrue(int(f.read(), 16) & ADDR_NO_RANDOMIZE)
            with open("/proc/%d/maps" % pid) as f:
                heap = [l.split()[0] for l in f if l.rstrip().endswith("[heap]")]
            self.assertTrue(heap)
            start, end = (int(x, 16) for x in heap[0].split("-"))
            self.assertLess(end, 0x7ffe0000, heap)  # beside the loader at 0x7d000000


if __name__ == "__main__":
    watest.main()
