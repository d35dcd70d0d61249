"""The workers that run tree walks and element actions (automation/win/desktop/win_tree_job.c):
kept between jobs (a new thread under Wine first runs 4-10 ms after it is made), one for
each job at once, never reused after its job was given up on (a slow or hung target), and
running the tasks beside a walk (a list's texts read ahead) as well.
tests/apps/jobcheck.exe makes the checks against the real code under Wine."""
import os
import subprocess
import unittest

import watest

JOBCHECK_EXE = os.path.join(os.path.dirname(watest.TESTAPP_EXE), "jobcheck.exe")


@unittest.skipUnless(os.path.exists(JOBCHECK_EXE), "jobcheck.exe was not built next to testapp")
class Workers(unittest.TestCase):
    def test_workers_are_kept_separate_and_never_reused_once_abandoned(self):
        r = subprocess.run(["wine", JOBCHECK_EXE], capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        lines = r.stdout.splitlines()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(len([l for l in lines if l.startswith("ok: ")]), 16, r.stdout)
        self.assertIn("0 failure(s)", lines)


if __name__ == "__main__":
    watest.main()
