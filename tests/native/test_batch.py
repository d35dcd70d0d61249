"""`winagent batch` on the native winagent (fake desktop, fake model): results.jsonl is
written a whole line at a time and --resume reads past a torn last line (a batch killed
while writing it) without losing the records written after it; shards split a file by
task id and merge into one report and one JUnit file valid against Jenkins' schema;
budgets stop a run before the model call that would pass them; --attempts runs a task
that did not pass again."""
import glob
import json
import os
import subprocess
import tempfile
import unittest

import wabrowser
import wajunit
from watest import fake_llm, tool_call, read_trace, run_dirs, assert_secret_absent

EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")
SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scene_notepad.json")
KEY = "sk-test-SECRET-b47c"


def shard_of(task_id, n):
    """The shard of a task id, computed apart from winagent: FNV-1a (64 bits) of its
    UTF-8 bytes, modulo n, counted from 1."""
    h = 14695981039346656037
    for byte in task_id.encode("utf-8"):
        h = ((h ^ byte) * 1099511628211) % 2 ** 64
    return h % n + 1


class Batch:
    def __init__(self, ids=(), tasks=None, tmp=None, name="nightly"):
        self.tmp = tmp or tempfile.mkdtemp(prefix="wa-batch-")
        self.log_dir = os.path.join(self.tmp, "logs")
        self.actions_path = os.path.join(self.tmp, "actions.jsonl")
        self.name = name
        self.file = os.path.join(self.tmp, name + ".jsonl")
        tasks = tasks if tasks is not None else [{"id": i, "prompt": "say done"} for i in ids]
        with open(self.file, "w", encoding="utf-8") as f:
            for t in tasks:
                f.write(json.dumps(t) + "\n")

    def run(self, fake, *extra, log_dir=None, timeout=120):
        env = dict(os.environ, WINAGENT_FAKE_SCENE=SCENE, LLM_API_KEY=KEY,
                   WINAGENT_LLM_RETRIES="0", TMPDIR=self.tmp,
                   WINAGENT_FAKE_LOG=self.actions_path)
        for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "WINAGENT_MODE"):
            env.pop(k, None)
        p = subprocess.run([EXE, "batch", self.file, *extra, "--provider", "openai-compatible",
                            "--base-url", fake.url + "/v1", "--model", "fake-model",
                            "--log-dir", log_dir or self.log_dir],
                           env=env, cwd=self.tmp, stdin=subprocess.DEVNULL,
                           capture_output=True, encoding="utf-8", timeout=timeout)
        return p.returncode, p.stderr

    def folder(self, log_dir=None):
        found = glob.glob(os.path.join(log_dir or self.log_dir, "batch-*-" + self.name + "*"))
        assert len(found) == 1, found
        return found[0]

    def results_path(self, log_dir=None):
        return os.path.join(self.folder(log_dir), "results.jsonl")

    def results(self, log_dir=None):
        with open(self.results_path(log_dir), encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def shell_commands(self):
        """The commands the fake desktop's shell ran (setups and checks)."""
        if not os.path.exists(self.actions_path):
            return []
        with open(self.actions_path, encoding="utf-8") as f:
            return [a["command"] for a in map(json.loads, f) if a.get("op") == "run_shell"]


def model():
    return fake_llm({"steps": [{"text": "done"}], "after_end": "repeat_last"})


def turn(tokens, **kw):
    """A model turn that acts (so the run goes on) and costs tokens."""
    return dict({"tool_calls": [tool_call({"action": "wait", "seconds": 0})],
                 "usage": {"prompt_tokens": tokens - 50, "completion_tokens": 50}}, **kw)


def answer(text, tokens=100, **kw):
    return dict({"text": text, "usage": {"prompt_tokens": tokens - 20,
                                          "completion_tokens": 20}}, **kw)


def report(*argv):
    return subprocess.run([EXE, "report", *argv], capture_output=True, text=True, timeout=120)


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


class Shards(unittest.TestCase):
    IDS = ["t%d" % i for i in range(1, 8)]

    def test_three_shards_run_every_task_once_and_merge_into_one_report(self):
        self.assertEqual({shard_of(i, 3) for i in self.IDS}, {1, 2, 3})  # none is empty
        b = Batch(self.IDS)
        shards = os.path.join(b.tmp, "shards")
        folders, ran = [], {}
        with model() as fake:
            for i in (1, 2, 3):
                log_dir = os.path.join(shards, "shard-%d" % i)
                code, err = b.run(fake, "--shard", "%d/3" % i, log_dir=log_dir)
                self.assertEqual(code, 0, err)
                self.assertIn("(shard %d/3 of its 7)" % i, err)
                folders.append(b.folder(log_dir))
                self.assertTrue(folders[-1].endswith("-nightly-shard-%d-of-3" % i), folders[-1])
                ran[i] = [r["id"] for r in b.results(log_dir)]
            self.assertEqual(len(fake.requests), 7)
        # disjoint, together every task, each where its id's hash puts it
        self.assertEqual(sorted(sum(ran.values(), [])), sorted(self.IDS))
        for i, ids in ran.items():
            self.assertEqual(ids, [t for t in self.IDS if shard_of(t, 3) == i])

        p = report(*folders, "--out", shards)
        self.assertEqual(p.returncode, 0, p.stderr)
        index, junit = os.path.join(shards, "index.html"), os.path.join(shards, "junit.xml")
        self.assertEqual(p.stdout.split(), [index, junit])
        self.assertIn("merged 3 batch folders: 7 tasks: pass 7 fail 0", p.stderr)
        with open(os.path.join(shards, "results.jsonl"), encoding="utf-8") as f:
            merged = [json.loads(line) for line in f]
        self.assertEqual(sorted(r["id"] for r in merged), sorted(self.IDS))
        for r in merged:
            shard = "shard-%d" % shard_of(r["id"], 3)
            self.assertTrue(r["batch"].startswith(shard + "/batch-"), r)
            self.assertTrue(r["run_folder"].startswith(r["batch"] + "/"), r)
            self.assertTrue(os.path.isfile(os.path.join(shards, r["run_folder"], "trace.jsonl")))
        j = wajunit.read_valid(self, junit)
        self.assertEqual(sorted(c["name"] for c in j["cases"]), sorted(self.IDS))
        self.assertEqual([c["verdict"] for c in j["cases"]], [None] * 7)
        self.assertEqual(j["suite"]["name"], "nightly")
        self.assertEqual((j["suite"]["tests"], j["suite"]["failures"], j["suite"]["errors"]),
                         ("7", "0", "0"))
        self.assertEqual(j["properties"]["pass@1"], "7/7")

        # the merged index in a browser: a row per task, each leading to its run's report
        facts = wabrowser.page_facts(index, follow=True)
        wabrowser.assert_page_sound(self, facts, shards)
        self.assertEqual(facts["rows"], 7)
        self.assertIn("7 tasks: pass 7 fail 0 error 0 timeout 0", facts["bodyText"])
        self.assertEqual(sorted(p["url"] for p in facts["followed"]),
                         sorted(wabrowser.file_url(os.path.join(shards, r["run_folder"],
                                                                 "report.html"))
                                for r in merged))
        for page in facts["followed"]:
            self.assertTrue(page["loaded"])
            self.assertEqual(page["pageErrors"], [])
            self.assertEqual(page["finalAnswer"], "done")
        assert_secret_absent(self, b.tmp, KEY)

        # without --out: the folder that holds them all; a folder elsewhere is refused
        os.remove(index)
        p = report(*folders)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(index))
        p = report(*folders, "--out", os.path.join(b.tmp, "elsewhere"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("is not inside", p.stderr)
        p = report(folders[0], os.path.join(shards, "shard-1"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("not a batch folder", p.stderr)

    def test_an_empty_shard_runs_nothing_and_merges(self):
        b = Batch(["only"])
        other = 3 - shard_of("only", 2)
        with model() as fake:
            code, err = b.run(fake, "--shard", "%d/2" % other)
            self.assertEqual(fake.requests, [])
        self.assertEqual(code, 0, err)
        self.assertIn("batch: 0 tasks from", err)
        self.assertEqual(b.results(), [])
        self.assertTrue(os.path.exists(os.path.join(b.folder(), "index.html")))
        p = report(b.folder(), "--junit", os.path.join(b.tmp, "j.xml"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(wajunit.read_valid(self, os.path.join(b.tmp, "j.xml"))["cases"], [])

    def test_bad_shards_are_refused(self):
        b = Batch(["a"])
        with model() as fake:
            for bad in ("0/3", "4/3", "1/0", "1", "a/b", "1/3x", "2/1001"):
                code, err = b.run(fake, "--shard", bad)
                self.assertEqual(code, 1, bad)
                self.assertIn("--shard takes I/N", err)
            self.assertEqual(fake.requests, [])


class JUnit(unittest.TestCase):
    def test_junit_of_a_whole_batch_has_a_case_per_task(self):
        tasks = [
            {"id": "checked", "prompt": "say done", "check": "echo hi"},
            {"id": "plain", "prompt": "say done"},
            {"id": "check-fails", "prompt": "say done", "check": "exit 3"},
            {"id": "no-answer", "prompt": "act once", "max_steps": 1},
            {"id": "over-budget", "prompt": "act", "budget_tokens": 500},
            {"id": "model-down", "prompt": "say done"},
            {"id": "too-slow", "prompt": "wait", "timeout_s": 1},
        ]
        steps = [answer("done"), answer("done"), answer("done"), turn(300), turn(300),
                 {"status": 500}, answer("late", delay_s=8), answer("never")]
        b = Batch(tasks=tasks)
        junit = os.path.join(b.tmp, "out", "junit.xml")
        os.makedirs(os.path.dirname(junit))
        with fake_llm({"steps": steps}) as fake:
            code, err = b.run(fake, "--junit", junit)
        self.assertEqual(code, 5, err)
        res = {r["id"]: r for r in b.results()}
        self.assertEqual({i: r["outcome"] for i, r in res.items()},
                         {"checked": "pass", "plain": "pass", "check-fails": "fail",
                          "no-answer": "fail", "over-budget": "budget", "model-down": "error",
                          "too-slow": "timeout"})
        self.assertIn("batch did not pass: pass 2 fail 2 error 1 timeout 1 budget 1 of 7", err)
        j = wajunit.read_valid(self, junit)
        cases = {c["name"]: c for c in j["cases"]}
        self.assertEqual([c["name"] for c in j["cases"]], [t["id"] for t in tasks])
        self.assertEqual({n: (c["verdict"], c["type"]) for n, c in cases.items()},
                         {"checked": (None, None), "plain": (None, None),
                          "check-fails": ("failure", "fail"), "no-answer": ("failure", "fail"),
                          "over-budget": ("error", "budget"), "model-down": ("error", "error"),
                          "too-slow": ("error", "timeout")})
        self.assertEqual(cases["check-fails"]["message"], "check exited with 127")
        self.assertEqual((j["suite"]["tests"], j["suite"]["failures"], j["suite"]["errors"],
                          j["suite"]["skipped"]), ("7", "2", "3", "0"))
        # time, steps and tokens of each task; its run folder
        for name, r in res.items():
            self.assertEqual(j["properties"][name + ".tokens"], str(r["tokens"]))
            self.assertEqual(j["properties"][name + ".steps"], str(r["steps"]))
            self.assertEqual(j["properties"][name + ".run_folder"], r["run_folder"])
            self.assertAlmostEqual(cases[name]["time"], r["time_s"], delta=0.06)
            self.assertIn("%d tokens" % r["tokens"], cases[name]["out"])
        self.assertEqual(res["over-budget"]["tokens"], 300)
        self.assertIn("budget spent: 300 tokens", cases["over-budget"]["message"])
        self.assertEqual(j["properties"]["tokens"], str(sum(r["tokens"] for r in res.values())))

    def test_confirmation_and_dry_runs_are_skipped(self):
        tmp = tempfile.mkdtemp(prefix="wa-junit-")
        folder = os.path.join(tmp, "batch-20260101-120000-by-hand")
        os.makedirs(folder)
        lines = [
            {"id": "asks", "outcome": "needs_confirmation", "attempts": 1, "exit_code": 7,
             "steps": 2, "tokens": 40, "time_s": 3.0, "run_folder": "",
             "reason": "an action needed a person's <yes> & nobody was there"},
            {"id": "dry", "outcome": "dry_run", "attempts": 1, "exit_code": 0, "steps": 1,
             "tokens": 10, "time_s": 1.0, "run_folder": ""},
            {"id": "ok", "outcome": "pass", "attempts": 1, "exit_code": 0, "steps": 1,
             "tokens": 10, "time_s": 1.0, "run_folder": ""},
        ]
        with open(os.path.join(folder, "results.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(l) + "\n" for l in lines)
        junit = os.path.join(tmp, "j.xml")
        p = report(folder, "--junit", junit)
        self.assertEqual(p.returncode, 0, p.stderr)
        j = wajunit.read_valid(self, junit)
        self.assertEqual([(c["name"], c["verdict"]) for c in j["cases"]],
                         [("asks", "skipped"), ("dry", "skipped"), ("ok", None)])
        self.assertEqual(j["cases"][0]["text"], "needs_confirmation: " + lines[0]["reason"])
        self.assertEqual((j["suite"]["tests"], j["suite"]["skipped"], j["suite"]["failures"],
                          j["suite"]["errors"]), ("3", "2", "0", "0"))
        self.assertEqual(j["suite"]["name"], "by-hand")
        self.assertEqual(j["properties"]["needs_confirmation"], "1")
        with open(os.path.join(folder, "index.html"), encoding="utf-8") as f:
            page = f.read()
        self.assertIn("needs_confirmation 1 dry_run 1", page)
        self.assertIn("&lt;yes&gt; &amp; nobody", page)
        p = report(os.path.join(tmp, "not-there"), "--junit", junit)
        self.assertEqual(p.returncode, 1)


class Budgets(unittest.TestCase):
    def run_one(self, fake, *args):
        tmp = tempfile.mkdtemp(prefix="wa-budget-")
        env = dict(os.environ, WINAGENT_FAKE_SCENE=SCENE, LLM_API_KEY=KEY,
                   WINAGENT_LLM_RETRIES="0")
        for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "WINAGENT_MODE"):
            env.pop(k, None)
        p = subprocess.run([EXE, "--base-url", fake.url + "/v1", "--model", "fake-model",
                            "--log-dir", os.path.join(tmp, "logs"), *args, "keep acting"],
                           env=env, cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True,
                           encoding="utf-8", timeout=120)
        dirs = run_dirs(os.path.join(tmp, "logs"))
        self.assertEqual(len(dirs), 1)
        return p, dirs[0]

    def test_budget_tokens_stops_a_run_of_300_token_turns(self):
        with fake_llm({"steps": [turn(300)], "after_end": "repeat_last"}) as fake:
            p, run_dir = self.run_one(fake, "--budget-tokens", "1000")
            turns = len(fake.requests)
        self.assertEqual(p.returncode, 6, p.stderr)
        self.assertLessEqual(turns, 4)
        self.assertEqual(turns, 3)  # a fourth would pass 1000
        said = "budget spent: 900 tokens of 1000 (a turn takes about 300)"
        self.assertIn(said, p.stderr)  # the progress line
        with open(os.path.join(run_dir, "agent.log"), encoding="utf-8") as f:
            self.assertIn(said, f.read())
        summary = read_trace(run_dir)[-1]["summary"]
        self.assertEqual((summary["exit_code"], summary["outcome"], summary["total_tokens"],
                          summary["steps"]), (6, "budget spent", 900, 3))
        self.assertEqual(summary["error"], said)
        facts = wabrowser.page_facts(os.path.join(run_dir, "report.html"))
        self.assertIn("budget spent", facts["summary"])
        self.assertIn(said, facts["summary"])
        self.assertEqual(facts["exitCode"], "6")

    def test_budget_tokens_of_a_batch_run_is_the_budget_outcome(self):
        b = Batch(["long"])
        with fake_llm({"steps": [turn(300)], "after_end": "repeat_last"}) as fake:
            code, err = b.run(fake, "--budget-tokens", "1000", "--junit",
                              os.path.join(b.tmp, "j.xml"))
            self.assertLessEqual(len(fake.requests), 4)
        self.assertEqual(code, 5, err)
        (r,) = b.results()
        self.assertEqual((r["outcome"], r["exit_code"], r["tokens"], r["steps"]),
                         ("budget", 6, 900, 3))
        self.assertEqual(r["reason"][:len("budget spent: 900 tokens")], "budget spent: 900 tokens")
        self.assertIn("of a budget of 1000 tokens", r["reason"])
        (case,) = wajunit.read_valid(self, os.path.join(b.tmp, "j.xml"))["cases"]
        self.assertEqual((case["verdict"], case["type"]), ("error", "budget"))

    def test_budget_seconds_stops_a_run_of_slow_turns(self):
        with fake_llm({"steps": [turn(100, delay_s=1.2)], "after_end": "repeat_last"}) as fake:
            p, run_dir = self.run_one(fake, "--budget-seconds", "2")
            turns = len(fake.requests)
        self.assertEqual(p.returncode, 6, p.stderr)
        self.assertLessEqual(turns, 2)
        self.assertRegex(p.stderr, r"budget spent: [0-9.]+ s of 2 s \(a turn takes about")

    def test_budgets_are_settings(self):
        p = subprocess.run([EXE, "config", "--budget-tokens", "1000"], capture_output=True,
                           text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"budget_tokens\s+= 1000\s+\(flag --budget-tokens\)")
        self.assertRegex(p.stdout, r"budget_seconds\s+= \(unset\)")
        for flag, value in (("--budget-tokens", "0"), ("--budget-seconds", "soon")):
            p = subprocess.run([EXE, "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                                flag, value, "a task"], capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=30)
            self.assertEqual(p.returncode, 1, flag)
            self.assertIn("must be a", p.stderr)
            self.assertIn("'%s'" % value, p.stderr)

    def test_a_batch_budget_leaves_later_tasks_unrun(self):
        tasks = [{"id": i, "prompt": "say done"} for i in ("a", "b", "c")]
        b = Batch(tasks=tasks)
        with fake_llm({"steps": [answer("a", 400), answer("b", 300)],
                       "after_end": "repeat_last"}) as fake:
            code, err = b.run(fake, "--batch-budget-tokens", "500")
            self.assertEqual(len(fake.requests), 2)
        self.assertEqual(code, 5, err)
        res = b.results()
        self.assertEqual([(r["id"], r["outcome"]) for r in res],
                         [("a", "pass"), ("b", "pass"), ("c", "budget")])
        self.assertEqual(res[2]["reason"],
                         "not run: the batch's budget of 500 tokens was spent (700)")
        self.assertEqual((res[2]["run_folder"], res[2]["exit_code"]), ("", None))


class Attempts(unittest.TestCase):
    def test_attempts_3_pass_a_task_that_fails_once(self):
        # the first attempt acts and runs out of steps; the second answers
        b = Batch(tasks=[{"id": "flaky", "prompt": "act, then answer", "max_steps": 1,
                          "setup": "echo hi"}])
        with fake_llm({"steps": [turn(200), answer("done")],
                       "after_end": "repeat_last"}) as fake:
            code, err = b.run(fake, "--attempts", "3")
            self.assertEqual(len(fake.requests), 2)
        self.assertEqual(code, 0, err)
        res = b.results()
        self.assertEqual([(r["attempts"], r["outcome"]) for r in res], [(1, "fail"), (2, "pass")])
        self.assertNotEqual(res[0]["run_folder"], res[1]["run_folder"])
        self.assertEqual(b.shell_commands(), ["echo hi", "echo hi"])  # setup before each
        self.assertIn("flaky: fail at attempt 1/3", err)
        self.assertIn("trying again", err)
        self.assertIn("flaky: pass at attempt 2/3", err)
        self.assertIn("pass@1 0/1, pass@3 1/1", err)
        p = report(b.folder(), "--junit", os.path.join(b.tmp, "j.xml"))
        self.assertEqual(p.returncode, 0, p.stderr)
        j = wajunit.read_valid(self, os.path.join(b.tmp, "j.xml"))
        self.assertEqual(len(j["cases"]), 1)
        self.assertIsNone(j["cases"][0]["verdict"])
        self.assertIn("attempt 1: fail", j["cases"][0]["out"])
        self.assertIn("attempt 2: pass", j["cases"][0]["out"])
        self.assertEqual((j["properties"]["pass@1"], j["properties"]["pass@3"]), ("0/1", "1/1"))
        with open(os.path.join(b.folder(), "index.html"), encoding="utf-8") as f:
            self.assertIn("pass@1 0/1, pass@3 1/1", f.read())

    def test_every_attempt_failing_is_recorded_and_resume_goes_on(self):
        b = Batch(tasks=[{"id": "stuck", "prompt": "act", "max_steps": 1}])
        with fake_llm({"steps": [turn(100)], "after_end": "repeat_last"}) as fake:
            code, err = b.run(fake, "--attempts", "2")
            self.assertEqual(len(fake.requests), 2)
        self.assertEqual(code, 5, err)
        self.assertEqual([(r["attempts"], r["outcome"]) for r in b.results()],
                         [(1, "fail"), (2, "fail")])
        # a third attempt allowed now: --resume goes on with it, and only it
        with fake_llm({"steps": [answer("done")]}) as fake:
            code, err = b.run(fake, "--resume", "--attempts", "3")
            self.assertEqual(len(fake.requests), 1)
        self.assertEqual(code, 0, err)
        self.assertEqual([(r["attempts"], r["outcome"]) for r in b.results()],
                         [(1, "fail"), (2, "fail"), (3, "pass")])
        # every attempt made: kept
        with model() as fake:
            code, err = b.run(fake, "--resume", "--attempts", "3")
            self.assertEqual(fake.requests, [])
        self.assertIn("1 task kept", err)

    def test_bad_attempts_are_refused(self):
        b = Batch(["a"])
        with model() as fake:
            for bad in ("0", "101", "x"):
                code, err = b.run(fake, "--attempts", bad)
                self.assertEqual(code, 1, bad)
            self.assertEqual(fake.requests, [])


if __name__ == "__main__":
    unittest.main()
