"""The bench's part 6 (tests/bench/serving.py) measures what it says, natively for 2 s a
server: a row per native server, printed in the serving table's columns and written with
--json as table.py records them, each with calls answered, none failed, the clients of
the load tests and what the server held before and after."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from table import SERVING_COLUMNS  # noqa: E402

EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")


class Serving(unittest.TestCase):
    def test_a_short_native_run_prints_and_writes_one_row_per_server(self):
        with tempfile.TemporaryDirectory(prefix="bench-serving-") as tmp:
            out = os.path.join(tmp, "serving.json")
            p = subprocess.run([sys.executable, os.path.join(HERE, "serving.py"), EXE,
                                "--seconds", "2", "--json", out],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(out, encoding="utf-8") as f:
                rows = json.load(f)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], " | ".join(title for _, title, _ in SERVING_COLUMNS))
        self.assertEqual([r["server"] for r in rows],
                         ["`mcp --http` native, 2 s", "`serve --port` native, 2 s"])
        self.assertEqual(lines[1:], [" | ".join(fmt % r[key] for key, _, fmt in SERVING_COLUMNS)
                                     for r in rows])
        for r, clients in zip(rows, ("14 new + 2 kept, 2 resetting",
                                     "12 new + 2 kept, 2 resetting")):
            self.assertEqual(sorted(r), sorted(key for key, _, _ in SERVING_COLUMNS))
            self.assertEqual(r["clients"], clients)
            self.assertGreater(r["calls"], 0, r)
            self.assertGreater(r["per_s"], 0, r)
            self.assertEqual(r["failed"], 0, r)
            self.assertLessEqual(r["p50_ms"], r["p99_ms"], r)
            self.assertRegex(r["held"], r"^\d+ -> \d+ fds, \d+ -> \d+$")
            self.assertGreaterEqual(r["load"], 0)

    def test_a_server_that_does_not_start_is_an_error(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "serving.py"), "/bin/false",
                            "--seconds", "1"], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("serving.py: `mcp --http` native: no mcp --http server", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
