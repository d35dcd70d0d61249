"""Whole runs of the native winagent (fake desktop) against the fake LLM server:
the loop, its logs, both providers, and every way a run can end."""
import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

import watest
from watest import fake_llm, tool_call, run_dirs, read_trace, assert_secret_absent

EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")
SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scene_notepad.json")
KEY = "sk-test-SECRET-7f3a9c"


class Run:
    """One native winagent run with its own log folder and fake-desktop action log."""

    def __init__(self, fake, *args, provider="openai", env=None, stdin=subprocess.DEVNULL,
                 prompt="save the file"):
        self.tmp = tempfile.mkdtemp(prefix="wa-run-")
        self.log_dir = os.path.join(self.tmp, "logs")
        self.actions_path = os.path.join(self.tmp, "actions.jsonl")
        base = fake.url + ("/v1" if provider in ("openai", "responses") else "")
        self.env = dict(os.environ, WINAGENT_FAKE_SCENE=SCENE,
                        WINAGENT_FAKE_LOG=self.actions_path, LLM_API_KEY=KEY,
                        WINAGENT_LLM_RETRIES="2", WINAGENT_LLM_MAX_WAIT_MS="200")
        for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "WINAGENT_MODE"):
            self.env.pop(k, None)
        if env:
            self.env.update(env)
        names = {"openai": "openai-compatible", "gemini": "google",
                 "responses": "openai-responses", "anthropic": "anthropic"}
        self.argv = [EXE, "--provider", names[provider],
                     "--base-url", base, "--model", "fake-model", "--log-dir", self.log_dir,
                     *args]
        if prompt is not None:
            self.argv.append(prompt)
        self.stdin = stdin

    def start(self):
        return subprocess.Popen(self.argv, env=self.env, stdin=self.stdin,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                encoding="utf-8", cwd=self.tmp)

    def run(self, timeout=60):
        p = self.start()
        self.out, self.err = p.communicate(timeout=timeout)
        self.code = p.returncode
        return self

    def actions(self):
        if not os.path.exists(self.actions_path):
            return []
        with open(self.actions_path, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def run_dir(self):
        dirs = run_dirs(self.log_dir)
        assert len(dirs) == 1, dirs
        return dirs[0]


def final(text):
    return {"text": text}


def page_of(run_dir):
    """The run's report page as it is now, or "" before the first one is written."""
    try:
        with open(os.path.join(run_dir, "report.html"), encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


class LoopRuns(unittest.TestCase):
    def flow(self, provider, *args):
        steps = [
            {"tool_calls": [tool_call({"action": "click", "element": "${element:Button:Save}"})],
             "text": "I will click Save.", "expect": {"has_tree": True}},
            {"tool_calls": [tool_call({"action": "type", "text": "hello wörld"})],
             "quirks": {"thought_signature": "SIG-1"} if provider == "gemini" else {}},
            final("All done."),
        ]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, *args, provider=provider).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "All done.")
        self.assertIn("[step 1/30] click (130,38) -> ok", r.err)
        # The click landed on Save's centre, the text reached the focused edit.
        acts = r.actions()
        self.assertIn({"op": "mouse_move", "x": 230, "y": 80}, acts)
        self.assertIn({"op": "type_text", "text": "hello wörld"}, acts)
        # The first request carried the task and the tree; later ones the results.
        self.assertEqual(len(reqs), 3)
        self.assertEqual(reqs[0]["expect_failures"], [])
        body2 = json.dumps(reqs[2]["body"], ensure_ascii=False)
        self.assertIn('value=\\"hello wörld\\"', body2)
        self.assertEqual([q["response"]["kind"] for q in reqs], ["reply"] * 3)
        if provider in ("openai", "responses"):
            self.assertEqual(reqs[0]["headers"].get("Authorization"), "Bearer " + KEY)
        elif provider == "anthropic":
            self.assertEqual(reqs[0]["headers"].get("x-api-key"), KEY)
        else:
            self.assertEqual(reqs[0]["headers"].get("x-goog-api-key"), KEY)
            self.assertIn('"thoughtSignature": "SIG-1"', json.dumps(reqs[2]["body"]))
        for q in reqs:
            self.assertNotIn(KEY, q["path"] + (q.get("query") or ""))
        # The log folder: agent.log, trace with per-phase timings and usage, step files.
        d = r.run_dir()
        files = sorted(os.listdir(d))
        self.assertIn("agent.log", files)
        self.assertIn("step-00-window_screenshot+a11y.txt", files)
        self.assertIn("step-01-click+a11y.txt", files)
        self.assertIn("step-01-click+annotate.png", files)
        self.assertIn("step-02-type+a11y.txt", files)
        trace = read_trace(d)
        self.assertEqual([t.get("step") for t in trace if "step" in t], [0, 1, 2, 3])
        s1 = trace[1]
        self.assertEqual(s1["model_text"], "I will click Save.")
        self.assertEqual(s1["tool_calls"][0]["arguments"], {"action": "click", "element": 3})
        self.assertEqual(s1["tool_calls"][0]["element_ref"], {"type": "Button", "name": "Save"})
        self.assertEqual(s1["tool_calls"][0]["annotate"], "step-01-click+annotate.png")
        for phase in ("wait", "before", "action", "annotate", "settle", "capture", "encode",
                      "tree", "after", "diff", "record", "other"):
            self.assertIn(phase, s1["tool_calls"][0]["ms"])
        self.assertIn("llm_ms", s1["timings"])
        self.assertGreater(s1["usage"]["total_tokens"], 0)
        summary = trace[-1]["summary"]
        self.assertEqual(summary["steps"], 3)
        self.assertEqual(summary["exit_code"], 0)
        self.assertGreater(summary["total_tokens"], 0)
        with open(os.path.join(d, "step-01-click+annotate.png"), "rb") as f:
            self.assertEqual(f.read(4), b"\x89PNG")
        assert_secret_absent(self, r.log_dir, KEY)
        return r

    def test_openai_streaming(self):
        self.flow("openai")

    def test_openai_responses_streaming_and_not(self):
        self.flow("responses")
        self.flow("responses", "--no-stream")

    def test_anthropic_streaming_and_not(self):
        self.flow("anthropic")
        self.flow("anthropic", "--no-stream")

    def test_openai_without_streaming(self):
        self.flow("openai", "--no-stream")

    def test_gemini_streaming(self):
        self.flow("gemini")

    def test_gemini_without_streaming(self):
        self.flow("gemini", "--no-stream")

    def test_bad_calls_are_answered_not_fatal(self):
        steps = [
            {"tool_calls": [tool_call({"action": "teleport", "x": 1})]},
            {"tool_calls": [tool_call({"action": "click"})],
             "quirks": {"invalid_arguments": "{\"action\": \"click\", \"x\": 12,"},
             "expect": {"contains": "valid actions: screenshot, window_screenshot, click"}},
            {"tool_calls": [tool_call({"action": "click", "element": 99})],
             "expect": {"contains": "not valid JSON"}},
            {"tool_calls": [tool_call({"action": "click", "x": 5000, "y": 1})],
             "expect": {"contains": "element_not_found"}},
            {"tool_calls": [tool_call({"command": "x"}, name="no_such_tool")],
             "expect": {"contains": "outside 0-999"}},
            dict(final("gave up politely"), expect={"contains": "there is no tool"}),
        ]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["expect_failures"] for q in reqs], [[]] * 6)
        self.assertIn("teleport -> error: unknown action", r.err)

    def test_step_limit_ends_with_exit_3(self):
        steps = [{"tool_calls": [tool_call({"action": "wait", "seconds": 0})]}]
        with fake_llm({"steps": steps, "after_end": "repeat_last"}) as fake:
            r = Run(fake, "--max-steps", "2").run()
        self.assertEqual(r.code, 3, r.err)
        self.assertIn("step limit of 2 reached", r.err)
        self.assertEqual(read_trace(r.run_dir())[-1]["summary"]["exit_code"], 3)

    def test_429_then_success(self):
        steps = [{"status": 429, "headers": {"Retry-After": "0"}}, final("ok after waiting")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake).run()
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "ok after waiting")
        with open(os.path.join(r.run_dir(), "agent.log"), encoding="utf-8") as f:
            self.assertIn("retry 1/2", f.read())

    def test_429_storm_gives_up_with_exit_2(self):
        steps = [{"status": 429, "headers": {"Retry-After": "0"}}]
        with fake_llm({"steps": steps, "after_end": "repeat_last"}) as fake:
            r = Run(fake).run()
            n = len(fake.requests)
        self.assertEqual(r.code, 2, r.err)
        self.assertEqual(n, 3)  # the first attempt and WINAGENT_LLM_RETRIES=2
        self.assertIn("LLM error", r.err)
        self.assertEqual(read_trace(r.run_dir())[-1]["summary"]["exit_code"], 2)
        assert_secret_absent(self, r.log_dir, KEY)

    def test_daily_quota_fails_fast(self):
        with fake_llm({"steps": [{"status": 429, "quota": "daily"}],
                       "after_end": "repeat_last"}) as fake:
            r = Run(fake).run()
            n = len(fake.requests)
        self.assertEqual(r.code, 2, r.err)
        self.assertEqual(n, 1)

    def interrupt(self, how):
        steps = [{"fault": "slow", "delay_s": 20}]
        with fake_llm({"steps": steps}) as fake:
            run = Run(fake, stdin=subprocess.PIPE)
            p = run.start()
            time.sleep(1.5)
            t0 = time.monotonic()
            if how == "sigint":
                p.send_signal(signal.SIGINT)
            else:
                p.stdin.close()  # the parent died
                p.stdin = None
            out, err = p.communicate(timeout=15)
            took = time.monotonic() - t0
        self.assertEqual(p.returncode, 130, err)
        self.assertLess(took, 5)
        trace = read_trace(run.run_dir())
        self.assertEqual(trace[-1]["summary"]["exit_code"], 130)

    def test_ctrl_c_mid_step_exits_130_with_log_intact(self):
        self.interrupt("sigint")

    def test_parent_death_closes_stdin_and_exits_130(self):
        self.interrupt("stdin")

    def test_missing_model_is_a_configuration_error(self):
        env = dict(os.environ, LLM_BASE_URL="http://127.0.0.1:9/v1")
        env.pop("LLM_MODEL", None)
        p = subprocess.run([EXE, "do something"], env=env, capture_output=True, text=True,
                           cwd=tempfile.mkdtemp(), stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 1)
        self.assertIn("LLM_MODEL is not set", p.stderr)
        p = subprocess.run([EXE, "--api-key", "x", "do"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("never taken on the command line", p.stderr)

    def test_env_file_is_read_with_bom(self):
        tmp = tempfile.mkdtemp()
        with fake_llm({"steps": [final("from dotenv")]}) as fake:
            with open(os.path.join(tmp, ".env"), "wb") as f:
                f.write(("\ufeffLLM_BASE_URL=" + fake.url + "/v1\nLLM_MODEL='m'\n"
                         "LLM_API_KEY=\"" + KEY + "\"\n").encode("utf-8"))
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith("LLM_") and k != "WINAGENT_FAKE_SCENE"}
            env["WINAGENT_FAKE_SCENE"] = SCENE
            # A working folder's .env decides neither where the key goes nor the key
            # itself unless the user names it: nothing reaches the server it names.
            p = subprocess.run([EXE, "--log-dir", "logs", "say hi"], env=env, cwd=tmp,
                               capture_output=True, text=True, stdin=subprocess.DEVNULL,
                               timeout=60)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("sets LLM_BASE_URL, LLM_API_KEY: not taken", p.stderr)
            self.assertIn("--env-file", p.stderr)
            self.assertEqual(list(fake.requests), [])
            p = subprocess.run([EXE, "--env-file", ".env", "--log-dir", "logs", "say hi"],
                               env=env, cwd=tmp, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=60)
            auth = fake.requests[0]["headers"].get("Authorization")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "from dotenv")
        self.assertEqual(auth, "Bearer " + KEY)

    def test_repeated_failing_call_ends_the_run(self):
        steps = [{"tool_calls": [tool_call({"action": "click", "element": 77})]}]
        with fake_llm({"steps": steps, "after_end": "repeat_last"}) as fake:
            r = Run(fake).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 4, r.err)
        self.assertIn("the same call failed 5 times", r.err)
        self.assertIn("Do not repeat it", json.dumps(reqs[-1]["body"]))

    def test_history_keeps_only_the_last_observations(self):
        steps = [{"tool_calls": [tool_call({"action": "type", "text": str(i)})]}
                 for i in range(6)] + [final("done")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--history-images", "2").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        last = json.dumps(reqs[-1]["body"])
        self.assertEqual(last.count("Observation (accessibility tree"), 2)
        self.assertIn("[observation of step 3 omitted]", last)
        self.assertIn("[first observation omitted]", last)
        # Bounded: the 7th request is not much larger than the 3rd.
        self.assertLess(reqs[-1]["body_bytes"], reqs[2]["body_bytes"] * 1.6)

    def test_auto_mode_falls_back_to_pixels_on_unnamed_buttons(self):
        steps = [{"tool_calls": [tool_call({"action": "window_screenshot", "window": "Keypad"})]},
                 {"tool_calls": [tool_call({"action": "click", "element": 3})],
                  "expect": {"has_image": True,
                             "contains": "numbered box on each interactive element"}},
                 final("seen")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(reqs[1]["expect_failures"], [])
        verdict = ("auto: tree rejected (3 interactive elements but none has Name), "
                   "fell back to pixel; source fake, with numbered marks")
        # The marks are listed by id with their 0-999 bounds, and element 3 is clicked
        # at its centre: the keypad's second button [1300,110][1380,190].
        body = json.dumps(reqs[1]["body"])
        self.assertIn('[3] Button \\"\\" bounds=[', body)
        # ... and the model is told why it got an image and not the tree.
        self.assertIn("Why not the tree: " + verdict, body)
        self.assertIn({"op": "mouse_move", "x": 1340, "y": 150}, r.actions())
        with open(os.path.join(r.run_dir(), "agent.log"), encoding="utf-8") as f:
            log = f.read()
        self.assertIn(verdict, log)
        # The step's progress line carries the verdict, on stderr as in agent.log ...
        step1 = [l for l in r.err.splitlines() if l.startswith("[step 1/")]
        self.assertEqual(len(step1), 1, r.err)
        self.assertIn("window_screenshot", step1[0])
        self.assertTrue(step1[0].endswith("  | " + verdict), step1[0])
        self.assertIn(step1[0], log)
        # ... and agent.log names each unnamed interactive element (step 1, then again
        # after the click's look at the keypad).
        debug = [l for l in log.splitlines() if "DEBUG: unnamed" in l]
        self.assertEqual(len(debug), 6, log)
        self.assertRegex(debug[0], r'DEBUG: unnamed Button hwnd=0x0 autoId="" class="" '
                                   r'bounds=\[\d+,\d+\]\[\d+,\d+\]$')
        self.assertIn("step-01-window_screenshot.png", os.listdir(r.run_dir()))

    def test_dry_run_touches_nothing(self):
        steps = [{"tool_calls": [tool_call({"action": "click", "x": 10, "y": 10}),
                                 tool_call({"action": "type", "text": "x"}),
                                 tool_call({"command": "echo hi"}, name="powershell")]},
                 final("planned")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--dry-run").run()
        self.assertEqual(r.code, 0, r.err)
        ops = [a["op"] for a in r.actions()]
        for op in ("mouse_button", "type_text", "run_shell"):
            self.assertNotIn(op, ops)
        self.assertIn("-> dry-run", r.err)

    def test_powershell_policies(self):
        steps = [{"tool_calls": [tool_call({"command": "echo hi"}, name="powershell")]},
                 dict(final("ran"), expect={"contains": "hi\\r\\n"})]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake).run()
            self.assertEqual(fake.requests[1]["expect_failures"], [])
            self.assertEqual([t["function"]["name"] for t in fake.requests[0]["body"]["tools"]],
                             ["desktop", "powershell", "ask_user"])
        self.assertEqual(r.code, 0, r.err)
        with fake_llm({"steps": [final("no shell")]}) as fake:
            r = Run(fake, "--shell", "off").run()
            self.assertEqual([t["function"]["name"] for t in fake.requests[0]["body"]["tools"]],
                             ["desktop", "ask_user"])
        steps[1] = dict(final("declined"), expect={"contains": "declined"})
        with fake_llm({"steps": steps}) as fake:
            run = Run(fake, "--shell", "confirm", stdin=subprocess.PIPE)
            p = run.start()
            out, err = p.communicate("n\n", timeout=60)
            self.assertEqual(fake.requests[1]["expect_failures"], [])
        self.assertEqual(p.returncode, 0, err)
        self.assertNotIn("run_shell", [a["op"] for a in run.actions()])

    def test_replay_reruns_the_recorded_calls(self):
        r = self.flow("openai")
        trace = os.path.join(r.run_dir(), "trace.jsonl")
        env = dict(r.env, WINAGENT_FAKE_LOG=os.path.join(r.tmp, "replay-actions.jsonl"))
        p = subprocess.run([EXE, "--replay", trace, "--log-dir", r.log_dir], env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "replayed 2 calls")
        with open(env["WINAGENT_FAKE_LOG"], encoding="utf-8") as f:
            acts = [json.loads(line) for line in f]
        self.assertIn({"op": "mouse_move", "x": 230, "y": 80}, acts)
        self.assertIn({"op": "type_text", "text": "hello wörld"}, acts)
        p = subprocess.run([EXE, "--replay", trace, "--dry-run", "--log-dir", r.log_dir],
                           env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('1. step 1: desktop {"action":"click","element":3}', p.stdout)

    def test_a_run_killed_mid_step_keeps_the_calls_it_did(self):
        steps = [{"tool_calls": [tool_call({"action": "type", "text": "first"}),
                                 tool_call({"action": "wait", "seconds": 30})]},
                 final("never reached")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake)
            p = r.start()
            # The first call's line comes while the second call (30 s) is under way; the
            # report is rewritten just after the trace line, so wait for both.
            deadline = time.time() + 60
            while time.time() < deadline and p.poll() is None:
                dirs = run_dirs(r.log_dir)
                if dirs and any("call_done" in t for t in read_trace(dirs[0], call_done=True)) \
                        and "the run stopped during it" in page_of(dirs[0]):
                    break
                time.sleep(0.05)
            self.assertIsNone(p.poll())
            p.kill()  # no chance to write anything more
            p.communicate(timeout=30)
        trace = read_trace(r.run_dir(), call_done=True)
        self.assertNotIn("tool_calls", trace[-1])  # the step's own line never came
        done = [t for t in trace if "call_done" in t]
        self.assertEqual(len(done), 1, trace)
        self.assertEqual(done[0]["step"], 1)
        self.assertEqual(done[0]["call_done"]["arguments"]["text"], "first")
        self.assertTrue(done[0]["call_done"]["result"]["success"])
        # The report was written with it, and a rebuild shows it too.
        for rebuild in (False, True):
            if rebuild:
                self.assertEqual(subprocess.run([EXE, "report", r.run_dir()],
                                                capture_output=True).returncode, 0)
            with open(os.path.join(r.run_dir(), "report.html"), encoding="utf-8") as f:
                page = f.read()
            self.assertIn("the run stopped during it", page)
            self.assertIn("first", page)
        # Replay does what the killed run did.
        env = dict(r.env, WINAGENT_FAKE_LOG=os.path.join(r.tmp, "replay-actions.jsonl"))
        p = subprocess.run([EXE, "--replay", os.path.join(r.run_dir(), "trace.jsonl"),
                            "--log-dir", r.log_dir], env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "replayed 1 call")
        self.assertIn("the run stopped during it", p.stderr)
        with open(env["WINAGENT_FAKE_LOG"], encoding="utf-8") as f:
            self.assertIn({"op": "type_text", "text": "first"}, [json.loads(l) for l in f])

    def test_calls_after_one_that_renumbered_their_elements_are_skipped(self):
        with open(SCENE, encoding="utf-8") as f:
            scene = json.load(f)
        scene["launch"] = {"finder": {
            "title": "Find", "process": "finder.exe", "pid": 9, "rect": [300, 200, 700, 400],
            "tree": {"type": "Window", "name": "Find", "bounds": [300, 200, 700, 400],
                     "children": [
                         {"type": "Edit", "name": "Find what", "bounds": [310, 230, 600, 250]},
                         {"type": "Button", "name": "Delete all", "bounds": [610, 230, 690, 250],
                          "patterns": ["invoke"]}]}}}
        tmp = tempfile.mkdtemp(prefix="wa-scene-")
        path = os.path.join(tmp, "scene.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(scene, f)
        save = "${element:Button:Save}"
        steps = [{"tool_calls": [tool_call({"action": "click", "element": save}),
                                 tool_call({"action": "launch", "command": "finder"}),
                                 tool_call({"action": "click", "element": save}),
                                 tool_call({"action": "type", "text": "never typed"})]},
                 final("stopped")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, env={"WINAGENT_FAKE_SCENE": path}).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        acts = r.actions()
        # The first click and the launch ran; the second click, whose [3] is now the
        # Find window's "Delete all", and everything after it did not.
        self.assertEqual([a["command"] for a in acts if a["op"] == "launch"], ["finder"])
        self.assertEqual(acts.count({"op": "mouse_move", "x": 230, "y": 80}), 1, acts)
        self.assertNotIn({"op": "mouse_move", "x": 650, "y": 240}, acts)
        self.assertFalse([a for a in acts if a["op"] == "type_text"], acts)
        calls = read_trace(r.run_dir())[1]["tool_calls"]
        self.assertEqual(len(calls), 4)
        self.assertTrue(calls[0]["result"]["success"])
        self.assertTrue(calls[1]["result"]["success"])
        for skipped in calls[2:]:
            self.assertEqual(skipped["result"]["error"]["code"], "stale_ref", skipped)
            msg = skipped["result"]["error"]["message"]
            self.assertIn("call 2 of this reply (launch) changed the window", msg)
            self.assertIn('[3] no longer means Button "Save"', msg)
        self.assertIn("skipping the rest of the reply", r.err)
        # The model is told, in the results of the very calls it made.
        body = json.dumps(reqs[1]["body"])
        self.assertEqual(body.count("This call and the ones after it were skipped"), 2)

    def test_an_answer_after_successful_calls_ends_the_run_without_another_turn(self):
        save = tool_call({"action": "click", "element": "${element:Button:Save}"})
        for provider in ("anthropic", "gemini", "responses"):
            for stream in ((), ("--no-stream",)):
                with self.subTest(provider=provider, stream=bool(not stream)):
                    steps = [{"text": "I will click Save.", "tool_calls": [save],
                              "text_after": "Saved the file."}]
                    with fake_llm({"steps": steps}) as fake:
                        r = Run(fake, *stream, provider=provider).run()
                        reqs = list(fake.requests)
                    self.assertEqual(r.code, 0, r.err)
                    self.assertEqual(r.out.strip(), "Saved the file.")
                    self.assertEqual(len(reqs), 1)  # one model turn: the answer came with it
                    self.assertIn({"op": "mouse_move", "x": 230, "y": 80}, r.actions())
                    self.assertIn("[step 1/30] final answer", r.err)
                    trace = read_trace(r.run_dir())
                    step = trace[1]
                    self.assertEqual(step["final_answer"], "Saved the file.")
                    self.assertTrue(step["tool_calls"][0]["result"]["success"])
                    self.assertEqual(trace[-1]["summary"]["steps"], 1)
                    self.assertEqual(trace[-1]["summary"]["exit_code"], 0)

    def test_an_answer_after_calls_waits_when_a_call_failed_or_the_wire_keeps_no_order(self):
        missing = tool_call({"action": "click", "element": 99})
        save = tool_call({"action": "click", "element": "${element:Button:Save}"})
        cases = [("anthropic", missing, {"contains": "element_not_found"}),
                 ("gemini", missing, {"contains": "element_not_found"}),
                 ("openai", save, {"has_tree": True})]  # Chat Completions: no order
        for provider, call, expect in cases:
            with self.subTest(provider=provider):
                steps = [{"tool_calls": [call], "text_after": "Saved the file."},
                         dict(final("Could not be sure; looked again."), expect=expect)]
                with fake_llm({"steps": steps}) as fake:
                    r = Run(fake, provider=provider).run()
                    reqs = list(fake.requests)
                self.assertEqual(r.code, 0, r.err)
                self.assertEqual(r.out.strip(), "Could not be sure; looked again.")
                self.assertEqual(len(reqs), 2)
                self.assertEqual(reqs[1]["expect_failures"], [])
                trace = read_trace(r.run_dir())
                self.assertNotIn("final_answer", trace[1])
                self.assertEqual(trace[2]["final_answer"], "Could not be sure; looked again.")

    def test_replay_runs_no_shell_command_unless_asked(self):
        steps = [{"tool_calls": [tool_call({"command": "echo hi"}, name="powershell")]},
                 {"tool_calls": [tool_call({"action": "type", "text": "after"})]},
                 final("ran")]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake).run()
        self.assertEqual(r.code, 0, r.err)
        self.assertIn("run_shell", [a["op"] for a in r.actions()])
        trace = os.path.join(r.run_dir(), "trace.jsonl")

        def replay(*args, env_extra=None):
            log = os.path.join(r.tmp, "replay-%d.jsonl" % len(os.listdir(r.tmp)))
            env = dict(r.env, WINAGENT_FAKE_LOG=log, **(env_extra or {}))
            p = subprocess.run([EXE, "--replay", trace, "--log-dir", r.log_dir, *args],
                               env=env, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=60)
            acts = []
            if os.path.exists(log):
                with open(log, encoding="utf-8") as f:
                    acts = [json.loads(line)["op"] for line in f]
            return p, acts

        # the policy of the environment (on by default) is not enough: the shell call is
        # skipped and said so, and the replay goes on to the next call
        p, acts = replay(env_extra={"WINAGENT_SHELL_POLICY": "on"})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("run_shell", acts)
        self.assertIn("type_text", acts)
        self.assertIn("skipped 1 shell call", p.stderr)
        self.assertIn("skipped (shell)", p.stderr)
        # asked for on the command line, it runs
        p, acts = replay("--shell", "on")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("run_shell", acts)
        self.assertNotIn("skipped", p.stderr)


def roles(req):
    """The roles of an OpenAI request's messages, in order."""
    return [m.get("role") for m in req["body"].get("messages", [])]


class ToolProtocols(unittest.TestCase):
    """--tool-protocol: calls written as text (read by auto, asked for by text), a grounding
    model's own grammar and coordinates, and computer refused for now."""

    def test_auto_reads_calls_a_local_server_writes_as_text(self):
        steps = [
            {"text": "I will click Save.", "quirks": {"calls_as_text": "hermes"},
             "tool_calls": [tool_call({"action": "click", "x": 130, "y": 38})]},
            {"quirks": {"calls_as_text": "qwen3_coder"},
             "tool_calls": [tool_call({"action": "type", "text": "hello"})],
             "expect": {"contains": "Result of desktop (call_"}},
            final("All done."),
        ]
        # the server refuses images in tool messages, as vLLM does: none is ever sent
        with fake_llm({"steps": steps, "refuse": ["images_in_tool"]}) as fake:
            r = Run(fake, "--mode", "pixel").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "All done.")
        self.assertIn({"op": "mouse_move", "x": 230, "y": 80}, r.actions())
        self.assertIn({"op": "type_text", "text": "hello"}, r.actions())
        self.assertEqual([q["response"]["kind"] for q in reqs], ["reply"] * 3)
        self.assertEqual(reqs[1]["expect_failures"], [])
        for q in reqs:
            self.assertIn("tools", q["body"])  # auto speaks functions ...
            self.assertNotIn("tool", roles(q))  # ... but answers text calls with text
        said = reqs[1]["body"]["messages"][2]
        self.assertEqual(said["role"], "assistant")
        self.assertIn("<tool_call>", said["content"])
        self.assertNotIn("tool_calls", said)
        result = reqs[1]["body"]["messages"][3]
        self.assertEqual(result["role"], "user")
        self.assertEqual([p["type"] for p in result["content"]], ["text", "image_url"])
        with open(os.path.join(r.run_dir(), "agent.log"), encoding="utf-8") as f:
            log = f.read()
        self.assertEqual(log.count("wrote its tool calls as text"), 1, log)
        self.assertIn("tool_protocol=functions", log)

    def test_auto_declares_the_tools_in_text_to_a_server_that_takes_none(self):
        # vLLM without a tool parser refuses every request with tools (HTTP 400)
        steps = [{"quirks": {"calls_as_text": "hermes"},
                  "tool_calls": [tool_call({"action": "click", "element": "${element:Button:Save}"})]},
                 final("Clicked.")]
        with fake_llm({"steps": steps, "refuse": ["tools_without_parser"]}) as fake:
            r = Run(fake).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "Clicked.")
        self.assertIn({"op": "mouse_move", "x": 230, "y": 80}, r.actions())
        self.assertEqual([q["response"]["kind"] for q in reqs], ["refused", "reply", "reply"])
        for q in reqs[1:]:
            self.assertNotIn("tools", q["body"])
            self.assertIn("<tool_call>", q["body"]["messages"][0]["content"])
        self.assertEqual(r.err.count("the server takes no tools"), 1, r.err)

    def test_text_protocol_declares_the_tools_in_the_prompt(self):
        steps = [
            {"quirks": {"calls_as_text": "json"},
             "tool_calls": [tool_call({"action": "click", "element": "${element:Button:Save}"})]},
            {"text": "<tool_call>{\"name\": \"desktop\", \"arguments\": {\"x\": 1,}}</tool_call>"},
            {"quirks": {"calls_as_text": "hermes"},
             "tool_calls": [tool_call({"action": "type", "text": "hi"})],
             "expect": {"contains": "could not be read"}},
            final("Typed."),
        ]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--tool-protocol", "text", "--no-stream").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "Typed.")
        self.assertIn({"op": "mouse_move", "x": 230, "y": 80}, r.actions())
        self.assertIn({"op": "type_text", "text": "hi"}, r.actions())
        self.assertEqual(reqs[2]["expect_failures"], [])
        system = reqs[0]["body"]["messages"][0]["content"]
        self.assertIn("<tool_call>", system)
        self.assertIn('"name":"desktop"', system)
        self.assertIn('"name":"powershell"', system)
        for q in reqs:
            self.assertNotIn("tools", q["body"])
            self.assertNotIn("tool", roles(q))
        self.assertIn("a call written as text could not be read, asked again", r.err)

    def test_uitars_grammar_in_smart_resized_pixels(self):
        # Notepad's window is 1000x800 pixels; the model sees it as 1008x812 (multiples of
        # 28): Save's centre (130,30) in the image is written as (131,30), in UI-TARS-1.5's
        # own grammar, which its prompt teaches.
        steps = [
            {"text": "Thought: I click Save.\nAction: click(point='<point>131 30</point>')",
             "expect": {"has_image": True}},
            {"text": "Thought: Saved.\nAction: finished(content='saved it')",
             "expect": {"contains": "A screenshot of the screen is attached."}},
        ]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--model", "UI-TARS-1.5-7B").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "saved it")
        self.assertEqual([q["expect_failures"] for q in reqs], [[], []])
        self.assertIn({"op": "mouse_move", "x": 230, "y": 80}, r.actions())
        system = reqs[0]["body"]["messages"][0]["content"]
        self.assertIn("Action Space", system)
        self.assertIn("click(point='<point>x1 y1</point>')", system)
        self.assertNotIn("start_box", system)
        self.assertNotIn("tools", reqs[0]["body"])
        trace = read_trace(r.run_dir())
        self.assertEqual(trace[1]["tool_calls"][0]["arguments"],
                         {"action": "click", "x": 130, "y": 37})

    def test_uitars_1_0_is_taught_its_own_grammar(self):
        steps = [{"text": "Thought: Nothing to do.\nAction: finished(content='nothing')"}]
        with fake_llm({"steps": steps}) as fake:
            r = Run(fake, "--model", "UI-TARS-7B-DPO").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        system = reqs[0]["body"]["messages"][0]["content"]
        self.assertIn("click(start_box='<|box_start|>(x1,y1)<|box_end|>')", system)
        self.assertNotIn("<point>", system)

    def test_computer_needs_a_provider_with_one_and_config_shows_the_protocol(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "WINAGENT_"))}
        p = subprocess.run([EXE, "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                            "--tool-protocol", "computer", "do"], env=env, capture_output=True,
                           text=True, cwd=tempfile.mkdtemp(), stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("openai-compatible has none", p.stderr)
        p = subprocess.run([EXE, "--tool-protocol", "sideways", "--model", "m", "do"], env=env,
                           capture_output=True, text=True, cwd=tempfile.mkdtemp(),
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("tool protocol must be auto, functions, computer or text", p.stderr)
        env.update(LLM_MODEL="ui-tars-1.5-7b", LLM_PROVIDER="openai-compatible")
        p = subprocess.run([EXE, "config"], env=env, capture_output=True, text=True,
                           cwd=tempfile.mkdtemp(), stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"tool_protocol\s+= auto")
        self.assertIn("run: provider openai-compatible, model ui-tars-1.5-7b, tool protocol text",
                      p.stdout)


if __name__ == "__main__":
    watest.main()
