"""The real-program suite through the agent loop: for each task of tests/lib/realtasks.py,
winagent's loop runs against the fake LLM, whose scripted model reads each observation
it is sent and picks the elements of its plan by type and name from it (never a ref
known in advance); the judge then looks at what the program left behind. Each task is a
test; the report (pass, calls, model turns, seconds) goes to BUILD/real_programs/ as
JSON and markdown. WINAGENT_SUITE_TASKS=name,name runs only those. realtasks_other.py adds the programs that
are not Wine's own (an NSIS installer, PuTTY, Mines) and the tasks across programs."""
import realtasks
import realtasks_other
import watest

RealPrograms = realtasks.test_case(realtasks.LoopDriver, realtasks.TASKS + realtasks_other.TASKS)


if __name__ == "__main__":
    watest.main()
