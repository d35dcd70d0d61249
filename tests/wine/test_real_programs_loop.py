"""The real-program suite through the agent loop: for each task of tests/lib/realtasks.py,
winagent's loop runs against the fake LLM, whose scripted model reads each observation
it is sent and picks the elements of its plan by type and name from it (never a ref
known in advance); the judge then looks at what the program left behind. Each task is a
test; the report (pass, calls, model turns, seconds) goes to BUILD/real_programs/ as
JSON and markdown. WINAGENT_SUITE_TASKS=name,name runs only those."""
import os
import unittest

import realtasks
import watest

ROWS = []


def selected():
    only = [n for n in os.environ.get("WINAGENT_SUITE_TASKS", "").split(",") if n]
    return [t for t in realtasks.TASKS if not only or t.name in only]


class RealPrograms(unittest.TestCase):
    @classmethod
    def tearDownClass(cls):
        path = realtasks.write_report("loop", ROWS)
        print("report: " + path)


def make_test(task):
    def test(self):
        row = realtasks.run_task(task, realtasks.LoopDriver())
        ROWS.append(row)
        realtasks.print_row(row)
        if not row["pass"]:
            self.fail("%s: %s\n%s" % (task.name, row["detail"], "\n".join(row["transcript"])[-6000:]))
    test.__doc__ = task.about
    return test


for _t in selected():
    setattr(RealPrograms, "test_" + _t.name, make_test(_t))


if __name__ == "__main__":
    watest.main()
