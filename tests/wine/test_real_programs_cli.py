"""The real-program suite through the command line, as an outside agent drives it: for
each task of tests/lib/realtasks.py, read `winagent state`, pick an element by type and
name, act on its ref (`click N`, `fill N ...`, `keys`, `menu`), and let the judge look at
what the program left behind (registry, file, process, testapp's log). Each task is a
test; the report (pass, calls, seconds) goes to BUILD/real_programs/ as JSON and
markdown. WINAGENT_SUITE_TASKS=name,name runs only those."""
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
        path = realtasks.write_report("cli", ROWS)
        print("report: " + path)


def make_test(task):
    def test(self):
        row = realtasks.run_task(task, realtasks.CliDriver())
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
