"""./dev.sh demo without a model: the live loop of the real winagent.exe against the
bundled scripted model, on testapp, ending with its log folder and report."""
import json
import os
import subprocess
import tempfile
import unittest

import watest
from watest import read_trace, run_dirs

SRC = os.environ.get("WINAGENT_SRC", "")


class Demo(unittest.TestCase):
    def test_the_demo_runs_the_loop_with_the_scripted_model(self):
        logs = tempfile.mkdtemp(prefix="wa-demo-")
        env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
        env.update(WINAGENT_DEMO_SHARED="1", WINAGENT_DEMO_LOGS=logs,
                   WINAGENT_WIN64_DIR=os.path.dirname(os.environ["WINAGENT_EXE"]))
        p = subprocess.run(["bash", os.path.join(SRC, "tests/demo/demo.sh"), "--scripted"],
                           env=env, capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertIn("the live loop runs against the bundled scripted model", p.stderr)
        # Each step of the loop is shown as it happens, then what testapp received.
        for line in ("[step 1/30] set_value", "[step 2/30] toggle", "[step 3/30] select",
                     "[step 4/30] invoke"):
            self.assertIn(line, p.stderr)
        received = p.stderr.split("what testapp received:", 1)[1]
        self.assertIn('"Ada"', received)
        self.assertIn("Enable feature", received)
        self.assertIn("Blue", received)
        self.assertIn('"OK"', received)
        self.assertIn("exit code 0", p.stdout)
        self.assertIn("report.html", p.stdout)
        # The log folder holds the run: four steps of calls, then the answer.
        (run,) = run_dirs(logs)
        trace = read_trace(run)
        calls = [c["arguments"]["action"] for t in trace for c in t.get("tool_calls", [])]
        self.assertEqual(calls, ["set_value", "toggle", "select", "invoke"])
        self.assertTrue(all(c["result"]["success"] for t in trace
                            for c in t.get("tool_calls", [])), json.dumps(trace)[:2000])
        self.assertIn("pressed OK", trace[-2].get("final_answer", "") + json.dumps(trace[-1]))
        self.assertTrue(os.path.exists(os.path.join(run, "report.html")))


if __name__ == "__main__":
    watest.main()
