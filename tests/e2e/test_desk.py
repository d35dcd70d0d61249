"""The person at the desk, with real X input under Wine (xdotool plays the person; Wine
sees it as a person's, and winagent's own SendInput as injected): the loop sends nothing
while they type, waits until they have been idle, looks again and keeps their text; an
MCP click while they move the mouse is refused with user_active; the corner gesture and
the stop chord end a run and a batch within a second with exit code 8."""
import json
import os
import subprocess
import threading
import time
import unittest

import watest
from watest import TestApp, Person, fake_llm, tool_call, read_trace, WINAGENT_EXE, SRC

from test_agent import AgentRun, final
from test_batch import Batch

person = Person()


def wait_for_requests(fake, n, timeout=90):
    deadline = time.monotonic() + timeout
    while len(fake.requests) < n:
        if time.monotonic() > deadline:
            raise AssertionError("the model got %d requests, not %d" % (len(fake.requests), n))
        time.sleep(0.05)


def texts(app):
    """testapp's Name edit, every text it held (its text_changed events), with their times."""
    return [(e["t"], e["text"]) for e in app.events()
            if e.get("event") == "text_changed" and e.get("control") == "edit"]


class TheLoopWaitsForThePerson(unittest.TestCase):
    def test_nothing_is_sent_while_the_person_types_and_their_text_stays(self):
        steps = [
            {"tool_calls": [tool_call({"action": "type", "element": "${element:Edit:Name:}",
                                       "text": "alpha"})]},
            # the model thinks for 3 s, while the person types into the same field
            {"delay_s": 3, "tool_calls": [tool_call({"action": "type", "text": " beta"})]},
            # it was told the person used the desktop, with a fresh look at it
            {"tool_calls": [tool_call({"action": "type", "text": " beta"})],
             "expect": {"contains": ["user_active", "alpha PERSON"]}},
            final("done"),
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            run = AgentRun(fake, "--mode", "a11y", "--idle-seconds", "4")
            p = run.start()
            wait_for_requests(fake, 2)
            app.wait_event(lambda e: e.get("event") == "text_changed" and e["text"] == "alpha")
            person.type(" PERSON")
            out, err = p.communicate(timeout=180)
            failures = [q["expect_failures"] for q in fake.requests]
            seen = texts(app)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(failures, [[]] * 4)
        final_text = seen[-1][1]
        self.assertEqual(final_text, "alpha PERSON beta", seen)
        self.assertNotIn("alpha beta", [t for _, t in seen])  # step 2's text was never sent
        # winagent typed again only once the person had been idle for 4 s
        person_done = max(t for t, text in seen if text.endswith("PERSON"))
        agent_again = min(t for t, text in seen if text == "alpha PERSON ")
        self.assertGreaterEqual(agent_again - person_done, 3900, seen)
        self.assertRegex(err, r"paused: a person is using the mouse or keyboard")
        self.assertRegex(err, r"resumed after \d+\.\d s paused")
        log = run.agent_log()
        self.assertIn("paused: a person", log)
        results = run.results()
        self.assertEqual(results[1]["error"]["code"], "user_active", results[1])
        self.assertGreater(results[1]["error"]["paused_s"], 0)


class AnMcpClickWhileThePersonMovesTheMouse(unittest.TestCase):
    def test_is_refused_with_user_active_and_goes_through_once_they_are_idle(self):
        with TestApp() as app:
            mover = threading.Thread(target=person.move_for, args=(6,))
            started = time.time()
            mover.start()
            time.sleep(1.5)  # the server starts while the hand is on the mouse
            env = dict(os.environ, MODE="takeover", COMMAND=json.dumps(["wine", WINAGENT_EXE,
                                                                         "mcp"]))
            r = subprocess.run(["node", os.path.join(SRC, "tests", "mcp_client", "desk.mjs")],
                               env=env, capture_output=True, text=True, timeout=180)
            mover.join()
            moved_until = started + 6
            clicks = [e for e in app.events()
                      if e.get("event") == "click" and e.get("control") == "OK"]
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        facts = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(facts["first"]["error"]["code"], "user_active")
        self.assertRegex(facts["first"]["error"]["message"], "a person is using the mouse")
        self.assertEqual(set(facts["refused"]), {"user_active"})
        # through only after the hand left the mouse for the idle time (3 s)
        self.assertGreaterEqual(facts["through"]["at"] / 1000.0 - moved_until, 2.8, facts)
        self.assertEqual(len(clicks), 1, clicks)  # nothing arrived while they moved it


class OneGestureStopsIt(unittest.TestCase):
    def stopped_by(self, gesture, p):
        """Makes the gesture while winagent runs p: the seconds from its start until p
        ended with exit code 8, and p's stderr."""
        t0 = time.monotonic()
        gesture()
        out, err = p.communicate(timeout=60)
        took = time.monotonic() - t0
        print("stopped %.2f s after the gesture began" % took)
        self.assertEqual(p.returncode, 8, err)
        return took, err

    def stop_a_run(self, gesture):
        steps = [{"tool_calls": [tool_call({"action": "click", "element": "${element:Button:OK}"})]},
                 {"fault": "slow", "delay_s": 60}]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            run = AgentRun(fake, "--mode", "a11y")
            p = run.start()
            wait_for_requests(fake, 2)
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
            # Under Wine a move back to where winagent took the pointer from within a
            # second is taken for Wine's late echo of winagent's own move (win_person.c),
            # and the last test left the pointer in the corner
            time.sleep(1.2)
            took, err = self.stopped_by(gesture, p)
        summary = read_trace(run.run_dir())[-1]["summary"]
        self.assertEqual(summary["exit_code"], 8)
        self.assertEqual(summary["outcome"], "stopped by the person")
        self.assertIn(os.path.join(run.run_dir(), "report.html"),
                      [os.path.join(run.run_dir(), f) for f in os.listdir(run.run_dir())])
        self.assertEqual(run.results()[0]["success"], True)  # what was done, in the log
        return took, err

    def test_the_corner_stops_a_run_within_a_second(self):
        took, err = self.stop_a_run(person.corner)
        self.assertIn("stop gesture", err)
        self.assertLess(took, 0.5 + 1.0, "held 0.5 s, then stopped within a second")

    def test_the_chord_stops_a_run_within_a_second(self):
        took, err = self.stop_a_run(person.chord)
        self.assertIn("stop gesture", err)
        self.assertLess(took, 1.0)

    def stop_a_batch(self, gesture, hold):
        b = Batch([{"id": "first", "prompt": "click OK"}, {"id": "second", "prompt": "again"}])
        with TestApp(), fake_llm({"steps": [{"fault": "slow", "delay_s": 60}],
                                  "after_end": "repeat_last"}) as fake:
            p = b.start(fake)
            wait_for_requests(fake, 1)
            took, err = self.stopped_by(gesture, p)
        self.assertLess(took, hold + 1.0)
        results = b.results()
        self.assertEqual([(r["id"], r["outcome"]) for r in results], [("first", "stopped")], err)
        with open(os.path.join(b.folder(), "batch.json"), encoding="utf-8") as f:
            state = json.load(f)
        self.assertEqual(state["state"], "stopped")
        self.assertEqual(state["stopped_at"], "first")

    def test_the_corner_stops_a_batch_after_its_task(self):
        self.stop_a_batch(person.corner, 0.5)

    def test_the_chord_stops_a_batch_after_its_task(self):
        self.stop_a_batch(person.chord, 0)


if __name__ == "__main__":
    watest.main()
