"""The real-program suite through the command line, as an outside agent drives it: for
each task of tests/lib/realtasks.py, read `winagent state`, pick an element by type and
name, act on its ref (`click N`, `fill N ...`, `keys`, `menu`), and let the judge look at
what the program left behind (registry, file, process, testapp's log). Each task is a
test; the report (pass, calls, seconds) goes to BUILD/real_programs/ as JSON and
markdown. WINAGENT_SUITE_TASKS=name,name runs only those. realtasks_other.py adds the programs that
are not Wine's own (an NSIS installer, PuTTY, Mines) and the tasks across programs."""
import realtasks
import realtasks_other
import watest

RealPrograms = realtasks.test_case(realtasks.CliDriver, realtasks.TASKS + realtasks_other.TASKS)


if __name__ == "__main__":
    watest.main()
