"""`winagent batch` with the real winagent.exe under Wine, the scripted model and the
real shell (cmd.exe): checks decide pass and fail, each task's wall time is enforced,
an interrupted batch resumes with only what was left, and the batch's index.html opens
cleanly in headless Chromium; a task that fails once passes at its second attempt (its
setup run again first), and shards given Windows paths merge into one report and one
valid JUnit file."""
import glob
import json
import os
import subprocess
import tempfile
import time
import unittest

import wabrowser
import wajunit
import watest
from watest import TestApp, fake_llm, tool_call, win_path, run_dirs, WINAGENT_EXE

from test_agent import KEY, final

SHELL = "cmd.exe /c"


class Batch:
    """One `winagent batch` of a tasks file against a fake model."""

    def __init__(self, tasks, log_dir=None):
        self.tmp = tempfile.mkdtemp(prefix="wa-batch-")
        self.log_dir = log_dir or os.path.join(self.tmp, "logs")
        self.file = os.path.join(self.tmp, "nightly.jsonl")
        with open(self.file, "w", encoding="utf-8") as f:
            for t in tasks:
                f.write(json.dumps(t) + "\n")

    def argv(self, fake, *extra, log_dir=None):
        return ["wine", WINAGENT_EXE, "batch", win_path(self.file), *extra,
                "--provider", "openai-compatible", "--base-url", fake.url + "/v1",
                "--model", "fake-model", "--log-dir", win_path(log_dir or self.log_dir)]

    def env(self):
        env = dict(os.environ, LLM_API_KEY=KEY, WINAGENT_SHELL=SHELL, WINAGENT_LLM_RETRIES="0")
        for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "WINAGENT_SHELL_POLICY"):
            env.pop(k, None)
        return env

    def start(self, fake, *extra, log_dir=None):
        return subprocess.Popen(self.argv(fake, *extra, log_dir=log_dir), env=self.env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, encoding="utf-8", errors="replace")

    def run(self, fake, *extra, timeout=240, log_dir=None):
        p = self.start(fake, *extra, log_dir=log_dir)
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err

    def folder(self, log_dir=None):
        found = glob.glob(os.path.join(log_dir or self.log_dir, "batch-*-nightly*"))
        assert len(found) == 1, os.listdir(self.log_dir) if os.path.isdir(self.log_dir) else None
        return found[0]

    def results(self, log_dir=None):
        if not glob.glob(os.path.join(log_dir or self.log_dir, "batch-*-nightly*")):
            return []  # not made yet
        path = os.path.join(self.folder(log_dir), "results.jsonl")
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]


def outcomes(results):
    return [(r["id"], r["outcome"]) for r in results]


class Batches(unittest.TestCase):
    def test_checks_decide_and_resume_runs_only_what_was_left(self):
        tasks = [
            {"id": "ok-button", "prompt": "click OK in the test app", "check": "exit 0"},
            {"id": "wrong-answer", "prompt": "say hello", "check": "exit 3"},
            {"id": "slow", "prompt": "take your time", "check": "exit 0", "max_steps": 4},
        ]
        b = Batch(tasks)
        steps = [
            {"tool_calls": [tool_call({"action": "click", "element": "${element:Button:OK}"})]},
            final("clicked OK"),
            final("hello"),
            final("never sent: the batch is killed first", delay_s=60),
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            p = b.start(fake)
            deadline = time.time() + 120
            while time.time() < deadline and len(b.results()) < 2 and p.poll() is None:
                time.sleep(0.2)
            self.assertEqual(outcomes(b.results()), [("ok-button", "pass"),
                                                     ("wrong-answer", "fail")])
            while time.time() < deadline and len(fake.requests) < 4:
                time.sleep(0.2)
            p.kill()  # mid-task: an interruption nobody could handle
            p.communicate(timeout=30)
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
        first = b.results()
        self.assertEqual(first[1]["reason"], "check exited with 3")
        self.assertEqual(first[0]["steps"], 2)
        self.assertTrue(first[0]["tokens"] > 0)
        self.assertTrue(os.path.isdir(os.path.join(b.folder(), first[0]["run_folder"])))

        # --resume: only "slow" runs again, against a model that now answers
        with fake_llm({"steps": [final("done slowly")]}) as fake:
            code, out, err = b.run(fake, "--resume")
            self.assertEqual(len(fake.requests), 1)
        self.assertEqual(code, 5, err)  # wrong-answer still failed
        self.assertIn("resuming: 2 tasks kept", err)
        self.assertIn("[task 3/3] pass 2 fail 1 error 0 timeout 0", err)
        self.assertEqual(outcomes(b.results()), [("ok-button", "pass"), ("wrong-answer", "fail"),
                                                 ("slow", "pass")])
        self.assertEqual(len(run_dirs(b.folder())), 4)  # three tasks, slow twice
        with open(os.path.join(b.folder(), "batch.json"), encoding="utf-8") as f:
            state = json.load(f)
        self.assertEqual(state["state"], "finished")
        index = wabrowser.page_facts(os.path.join(b.folder(), "index.html"))
        wabrowser.assert_page_sound(self, index, b.folder())
        self.assertEqual(index["rows"], 4)
        for prompt in ("click OK in the test app", "say hello", "take your time"):
            self.assertIn(prompt, index["bodyText"])
        watest.assert_secret_absent(self, b.log_dir, KEY)

    def test_all_passing_exits_0(self):
        b = Batch([{"id": 1, "prompt": "answer", "check": "exit 0"},
                   {"id": 2, "prompt": "answer again"}])
        with fake_llm({"steps": [final("a"), final("b")]}) as fake:
            code, out, err = b.run(fake)
        self.assertEqual(code, 0, err)
        self.assertEqual(outcomes(b.results()), [("1", "pass"), ("2", "pass")])
        self.assertIn("[task 1/2] pass 1 fail 0", err)
        self.assertIn("batch passed", err)

    def test_wall_time_is_enforced(self):
        b = Batch([{"id": "hangs", "prompt": "wait forever", "timeout_s": 3},
                   {"id": "after", "prompt": "answer"}])
        with fake_llm({"steps": [final("too late", delay_s=60), final("fine")]}) as fake:
            t0 = time.time()
            code, out, err = b.run(fake)
            took = time.time() - t0
        self.assertEqual(code, 5, err)
        self.assertLess(took, 40, err)
        res = b.results()
        self.assertEqual(outcomes(res), [("hangs", "timeout"), ("after", "pass")])
        self.assertIn("wall time of 3 s", res[0]["reason"])
        self.assertLess(res[0]["time_s"], 15)

    def test_checks_with_the_shell_off_refuse_to_start(self):
        b = Batch([{"id": "x", "prompt": "p", "check": "exit 0"}])
        with fake_llm({"steps": [final("unused")]}) as fake:
            code, out, err = b.run(fake, "--shell", "off")
            self.assertEqual(fake.requests, [])
        self.assertEqual(code, 1, err)
        self.assertIn("shell policy is 'off'", err)
        self.assertFalse(os.path.isdir(b.log_dir) and os.listdir(b.log_dir))

    def test_a_malformed_tasks_file_names_its_line(self):
        b = Batch([{"id": "a", "prompt": "p"}, {"id": "b", "promt": "typo"}])
        with fake_llm({"steps": [final("unused")]}) as fake:
            code, out, err = b.run(fake)
        self.assertEqual(code, 1, err)
        self.assertIn("nightly.jsonl line 2", err)
        self.assertIn('unknown key "promt"', err)

    def test_a_task_that_fails_once_passes_at_its_second_attempt(self):
        b = Batch([])
        setups, mark = os.path.join(b.tmp, "setups.txt"), os.path.join(b.tmp, "checked")
        # the first check fails and leaves a mark; the second finds it
        check = 'if exist "%s" (exit 0) else (type nul > "%s" & exit 1)' % (win_path(mark),
                                                                           win_path(mark))
        with open(b.file, "w", encoding="utf-8") as f:
            f.write(json.dumps({"id": "flaky", "prompt": "answer", "check": check,
                                "setup": 'echo attempt>> "%s"' % win_path(setups)}) + "\n")
        junit = os.path.join(b.tmp, "junit.xml")
        with fake_llm({"steps": [final("first"), final("second")]}) as fake:
            code, out, err = b.run(fake, "--attempts", "3", "--junit", win_path(junit))
            self.assertEqual(len(fake.requests), 2)
        self.assertEqual(code, 0, err)
        self.assertEqual([(r["attempts"], r["outcome"]) for r in b.results()],
                         [(1, "fail"), (2, "pass")])
        self.assertEqual(b.results()[0]["reason"], "check exited with 1")
        with open(setups, encoding="utf-8") as f:
            self.assertEqual(f.read().split(), ["attempt", "attempt"])  # before each attempt
        self.assertIn("pass@1 0/1, pass@3 1/1", err)
        j = wajunit.read_valid(self, junit)
        self.assertEqual([(c["name"], c["verdict"]) for c in j["cases"]], [("flaky", None)])
        self.assertEqual(j["properties"]["pass@3"], "1/1")

    def test_shards_with_windows_paths_merge_into_one_report(self):
        tasks = [{"id": "task-%d" % i, "prompt": "answer %d" % i, "check": "exit 0"}
                 for i in range(1, 5)]
        b = Batch(tasks)
        shards = os.path.join(b.tmp, "shards")
        folders, ids = [], []
        with fake_llm({"steps": [final("done")], "after_end": "repeat_last"}) as fake:
            for i in (1, 2):
                log_dir = os.path.join(shards, "shard-%d" % i)
                code, out, err = b.run(fake, "--shard", "%d/2" % i, log_dir=log_dir)
                self.assertEqual(code, 0, err)
                folders.append(b.folder(log_dir))
                ids += [r["id"] for r in b.results(log_dir)]
            self.assertEqual(len(fake.requests), 4)
        self.assertEqual(sorted(ids), [t["id"] for t in tasks])
        p = watest.run_winagent("report", *[win_path(f) + "\\" for f in folders],
                                "--out", win_path(shards), timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("merged 2 batch folders: 4 tasks: pass 4", p.stderr)
        with open(os.path.join(shards, "results.jsonl"), encoding="utf-8") as f:
            merged = [json.loads(line) for line in f]
        self.assertEqual(sorted(r["id"] for r in merged), sorted(ids))
        for r in merged:  # relative, with "/", whatever the separators given
            self.assertRegex(r["run_folder"], r"^shard-[12]/batch-[0-9-]+-nightly-shard-[12]"
                                              r"-of-2/[^/\\]+$")
        j = wajunit.read_valid(self, os.path.join(shards, "junit.xml"))
        self.assertEqual(sorted(c["name"] for c in j["cases"]), sorted(ids))
        index = wabrowser.page_facts(os.path.join(shards, "index.html"), follow=True)
        wabrowser.assert_page_sound(self, index, shards)
        self.assertEqual(index["rows"], 4)
        self.assertEqual(len(index["followed"]), 4)
        for page in index["followed"]:
            self.assertTrue(page["loaded"])
            self.assertEqual(page["finalAnswer"], "done")
        watest.assert_secret_absent(self, b.tmp, KEY)


if __name__ == "__main__":
    watest.main()
