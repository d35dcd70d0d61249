"""`winagent batch` on the native winagent (fake desktop, fake model): results.jsonl is
written a whole line at a time, --resume reads past a torn last line (a batch
killed while writing it) without losing the records written after it, and a task line's
"apps" is the allow-list of its run, within the batch's own."""
import glob
import json
import os
import subprocess
import tempfile
import unittest

from watest import fake_llm, read_trace, tool_call

EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")
SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scene_notepad.json")
KEY = "sk-test-SECRET-b47c"


class Batch:
    def __init__(self, ids):
        self.tmp = tempfile.mkdtemp(prefix="wa-batch-")
        self.log_dir = os.path.join(self.tmp, "logs")
        self.file = os.path.join(self.tmp, "nightly.jsonl")
        with open(self.file, "w", encoding="utf-8") as f:
            for i in ids:
                f.write(json.dumps({"id": i, "prompt": "say done"}) + "\n")

    def run(self, fake, *extra):
        env = dict(os.environ, WINAGENT_FAKE_SCENE=SCENE, LLM_API_KEY=KEY,
                   WINAGENT_LLM_RETRIES="0", TMPDIR=self.tmp)
        for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "WINAGENT_MODE"):
            env.pop(k, None)
        p = subprocess.run([EXE, "batch", self.file, *extra, "--provider", "openai-compatible",
                            "--base-url", fake.url + "/v1", "--model", "fake-model",
                            "--log-dir", self.log_dir],
                           env=env, cwd=self.tmp, stdin=subprocess.DEVNULL,
                           capture_output=True, encoding="utf-8", timeout=120)
        return p.returncode, p.stderr

    def results_path(self):
        found = glob.glob(os.path.join(self.log_dir, "batch-*-nightly"))
        assert len(found) == 1, found
        return os.path.join(found[0], "results.jsonl")


def model():
    return fake_llm({"steps": [{"text": "done"}], "after_end": "repeat_last"})


class DryRun(unittest.TestCase):
    def test_a_dry_run_batch_reports_dry_run_not_pass(self):
        b = Batch(["a", "b"])
        # a check that would fail: a dry run judges nothing, so it is not run at all
        with open(b.file, "w", encoding="utf-8") as f:
            for i in ("a", "b"):
                f.write(json.dumps({"id": i, "prompt": "say done", "check": "exit 1",
                                    "setup": "del x"}) + "\n")
        with model() as fake:
            code, err = b.run(fake, "--dry-run", "--shell", "on")
        self.assertEqual(code, 0, err)
        with open(b.results_path(), encoding="utf-8") as f:
            outcomes = [json.loads(line)["outcome"] for line in f]
        self.assertEqual(outcomes, ["dry_run", "dry_run"])
        self.assertIn("dry_run 2 of 2", err)
        self.assertNotIn("pass 2", err)


class TornResults(unittest.TestCase):
    def test_each_result_is_one_whole_line(self):
        b = Batch(["a", "b", "c"])
        with model() as fake:
            code, err = b.run(fake)
        self.assertEqual(code, 0, err)
        with open(b.results_path(), "rb") as f:
            data = f.read()
        self.assertTrue(data.endswith(b"\n"))
        lines = data.decode("utf-8").splitlines()
        self.assertEqual([json.loads(line)["id"] for line in lines], ["a", "b", "c"])
        self.assertEqual({json.loads(line)["outcome"] for line in lines}, {"pass"})

    def torn(self, cut, add=None):
        """A batch of a, b, c whose last record is cut to cut(its length) bytes, resumed
        (with task `add` appended to the tasks file first)."""
        b = Batch(["a", "b", "c"])
        with model() as fake:
            code, err = b.run(fake)
            self.assertEqual(code, 0, err)
            path = b.results_path()
            with open(path, "rb") as f:
                lines = f.read().splitlines(keepends=True)
            whole = lines[-1].rstrip(b"\n")
            with open(path, "wb") as f:  # killed while writing c's record
                f.write(b"".join(lines[:-1]) + whole[:cut(len(whole))])
            if add:
                with open(b.file, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"id": add, "prompt": "say done"}) + "\n")
            code, err = b.run(fake, "--resume")
            self.assertEqual(code, 0, err)
            self.assertIn("has no line end", err)
            self.requests = len(fake.requests) - 3
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.assertEqual(self.lines[-1], "")  # every record ends its line
        return b

    def resumed_again(self, b, n):
        """A second --resume asks the model nothing and keeps all n tasks."""
        with model() as fake:
            code, err = b.run(fake, "--resume")
            self.assertEqual(len(fake.requests), 0)
        self.assertEqual(code, 0, err)
        self.assertIn("%d tasks kept (pass or fail), 0 to run" % n, err)

    def test_resume_skips_a_torn_last_line(self):
        b = self.torn(lambda n: n // 2)
        self.assertEqual(self.requests, 1)  # only c asked the model again
        # the torn piece stands alone on its line, c's new record is a line of its own
        self.assertEqual(json.loads(self.lines[-2])["id"], "c")
        self.assertEqual(json.loads(self.lines[-2])["outcome"], "pass")
        self.assertRaises(ValueError, json.loads, self.lines[-3])
        self.resumed_again(b, 3)

    def test_a_whole_last_record_without_its_line_end_counts(self):
        # c's record is whole but lost its line end; d, added, runs and is recorded on a
        # line of its own instead of running into c's
        b = self.torn(lambda n: n, add="d")
        self.assertEqual(self.requests, 1)  # only d
        self.assertEqual([json.loads(line)["id"] for line in self.lines[:-1]],
                         ["a", "b", "c", "d"])
        self.resumed_again(b, 4)

class TaskApps(unittest.TestCase):
    def test_a_task_lines_apps_is_its_runs_allow_list(self):
        b = Batch([])
        with open(b.file, "w", encoding="utf-8") as f:
            f.write(json.dumps({"id": "pad", "prompt": "list pad", "apps": "notepad.exe"}) + "\n")
            f.write(json.dumps({"id": "all", "prompt": "list all"}) + "\n")
        listing = {"tool_calls": [tool_call({"action": "list_windows"})]}
        with fake_llm({"steps": [listing, {"text": "done"}, listing, {"text": "done"}]}) as fake:
            code, err = b.run(fake)
        self.assertEqual(code, 0, err)
        seen = {}
        for trace in glob.glob(os.path.join(self.log_dir(b), "*", "trace.jsonl")):
            lines = read_trace(os.path.dirname(trace))
            task = lines[0]["task"]
            windows = lines[1]["tool_calls"][0]["result"]["data"]["windows"]
            seen[task] = sorted(w["process"] for w in windows)
        self.assertEqual(sorted(seen.values()), [["calc.exe", "notepad.exe"], ["notepad.exe"]])

    def test_a_task_narrows_the_batchs_allow_list_and_never_widens_it(self):
        b = Batch([])
        with open(b.file, "w", encoding="utf-8") as f:
            f.write(json.dumps({"id": "calc", "prompt": "x", "apps": "calc.exe"}) + "\n")
        with model() as fake:
            code, err = b.run(fake, "--apps", "notepad.exe")
            self.assertEqual(len(fake.requests), 0)
        self.assertEqual(code, 1, err)
        self.assertIn("never widens it", err)

    def log_dir(self, b):
        found = glob.glob(os.path.join(b.log_dir, "batch-*-nightly"))
        self.assertEqual(len(found), 1, found)
        return found[0]


if __name__ == "__main__":
    unittest.main()
