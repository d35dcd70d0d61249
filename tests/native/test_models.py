"""Whole runs with the models of now (fake desktop, fake model servers as strict as their
services): Claude Opus 5.5 batching toolset actions, Opus 5 thinking, Fable 5.1 with a
history longer than --history-images (bound thinking), a refused tool version adapted
once, GPT-5.5 through the Responses API with functions and with its computer tool,
Gemini 3.6 Flash on the desktop, and each model's own image limits."""
import json
import os
import unittest

import watest  # first: it puts tests/fake_llm on the path  # noqa: F401
from test_computer import ComputerRun, SAVE, call, image_sizes, run_steps
from test_loop import Run, final
from watest import fake_llm, tool_call, read_trace

SAVE_AT = [230, 80]  # Save's middle on the 1920x1080 monitor, sent whole to Claude 4.7+
HALT = "Not executed: an earlier computer action in this turn failed."


def functions_run(test, model, steps, *args, provider="anthropic", code=0):
    """A run speaking functions; every request must be one the service takes."""
    with fake_llm({"steps": steps}) as fake:
        r = Run(fake, "--model", model, *args, provider=provider).run()
        reqs = list(fake.requests)
    test.assertEqual(r.code, code, r.err)
    return r, reqs


def refusals(reqs):
    return [q["response"].get("problems") for q in reqs if q["response"].get("problems")]


def tool_results(req):
    return [b for m in req["body"]["messages"] if m["role"] == "user"
            and isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_result"]


def agent_log(r):
    with open(os.path.join(r.run_dir(), "agent.log"), encoding="utf-8") as f:
        return f.read()


class ClaudeToday(unittest.TestCase):
    def test_opus_5_5_batches_actions_and_halts_after_a_failure(self):
        steps = [
            {"tool_calls": [call("computer", action="left_click", coordinate=SAVE_AT),
                            call("computer", action="type", text="hi"),
                            call("computer", action="key", text="Return", repeat=2)]},
            {"tool_calls": [call("computer", action="left_click", coordinate=[5000, 10]),
                            call("computer", action="type", text="never")]},
            {"text": "done"},
        ]
        r, reqs = run_steps(self, steps, provider="anthropic", model="claude-opus-5-5")
        self.assertEqual(r.out.strip(), "done")
        # the toolset alone, no beta header; the whole monitor, which the model takes
        self.assertEqual(reqs[0]["body"]["tools"][0], {"type": "computer_toolset_20260801"})
        betas = {k.lower(): v for k, v in reqs[0]["headers"].items()}.get("anthropic-beta", "")
        self.assertNotIn("computer-use", betas)  # (context editing's is there: --history)
        self.assertEqual(set(image_sizes(reqs[1])), {(1920, 1080)})
        # three actions of one turn, in order: a click on Save, the text, Enter twice
        self.assertEqual(r.presses(), [tuple(SAVE_AT)])
        self.assertIn({"op": "type_text", "text": "hi"}, r.actions())
        enters = [a for a in r.actions() if a["op"] == "press_keys" and a.get("keys") == "Enter"]
        self.assertEqual(len(enters), 2, r.actions())
        results = tool_results(reqs[1])
        self.assertEqual([b["toolset_name"] for b in results], ["computer"] * 3)
        # the failed click halts the rest of its turn, word for word
        second = tool_results(reqs[2])[-2:]
        self.assertIs(second[0].get("is_error"), True)
        self.assertEqual(second[1]["content"][0]["text"], HALT)
        self.assertNotIn({"op": "type_text", "text": "never"}, r.actions())
        # every thinking block went back as it came (the fake refuses anything else)
        self.assertEqual(reqs[1]["body"]["messages"][1]["content"][0]["type"], "thinking")

    def test_opus_5_thinks_and_its_blocks_go_back(self):
        for args in ((), ("--no-stream",)):
            steps = [
                {"tool_calls": [tool_call({"action": "click",
                                           "element": "${element:Button:Save}"})],
                 "quirks": {"redacted_thinking": True}},
                {"reasoning": "Saved; now the text.",
                 "tool_calls": [tool_call({"action": "type", "text": "hello"})]},
                final("All done."),
            ]
            r, reqs = functions_run(self, "claude-opus-5", steps, *args)
            self.assertEqual(r.out.strip(), "All done.")
            self.assertEqual(refusals(reqs), [])
            turns = [m for m in reqs[2]["body"]["messages"] if m["role"] == "assistant"]
            self.assertEqual([b["type"] for b in turns[0]["content"][:2]],
                             ["thinking", "redacted_thinking"])
            self.assertEqual(turns[1]["content"][0]["thinking"], "Saved; now the text.")
            self.assertEqual(reqs[0]["body"]["max_tokens"], 64000)
            # the reasoning is in the trace, as before
            self.assertIn("Saved; now the text.",
                          json.dumps(read_trace(r.run_dir()), ensure_ascii=False))

    def fable_steps(self):
        return [{"tool_calls": [tool_call({"action": "click", "x": 120, "y": 74})]}
                for _ in range(5)] + [final("All done.")]

    def test_fable_5_1_keeps_its_history_past_history_images(self):
        r, reqs = functions_run(self, "claude-fable-5-1", self.fable_steps(),
                                "--history-images", "2", "--mode", "pixel")
        self.assertEqual(refusals(reqs), [])
        self.assertIn("history=server", agent_log(r))
        # nothing sent changes: the last request holds every observation whole...
        self.assertEqual(len(image_sizes(reqs[-1])), 6)
        # ...and the service clears all but the last two results itself
        cm = reqs[-1]["body"]["context_management"]["edits"][0]
        self.assertEqual(cm["keep"], {"type": "tool_uses", "value": 2})
        self.assertEqual(reqs[-1]["context_edits"][0]["cleared_tool_uses"], 3)
        self.assertLess(reqs[-1]["input_tokens"], reqs[-2]["input_tokens"] + 2000)

    def test_trimming_a_bound_history_is_refused_by_the_service(self):
        """What --history trim, the rule before, does to Fable 5.1: refused at the step
        after the first observation is trimmed."""
        r, reqs = functions_run(self, "claude-fable-5-1", self.fable_steps(),
                                "--history-images", "2", "--mode", "pixel", "--history", "trim",
                                code=2)
        self.assertIn("The block is bound to a different conversation", r.err)
        # with the binding control the service drops the stale blocks instead
        r, reqs = functions_run(self, "claude-fable-5-1", self.fable_steps(),
                                "--history-images", "2", "--mode", "pixel",
                                "--history", "drop-thinking")
        self.assertEqual(refusals(reqs), [])
        self.assertTrue(any(q.get("thinking_dropped") for q in reqs))

    def test_requests_too_large_for_the_service_shorten_the_history(self):
        """Nothing older shortened, the requests outgrow what a gateway takes: answered
        413 once, the run trims older observations from then on (the service dropping the
        thinking that no longer fits) and finishes."""
        with fake_llm({"max_request_bytes": 15000, "steps": self.fable_steps()}) as fake:
            r = Run(fake, "--model", "claude-fable-5-1", "--history-images", "2", "--mode",
                    "pixel", provider="anthropic").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        kinds = [q["response"]["kind"] for q in reqs]
        self.assertEqual(kinds.count("too_large"), 1, kinds)
        self.assertIn("older observations are trimmed from now on (--history drop-thinking)",
                      r.err)
        after = kinds.index("too_large") + 1
        self.assertEqual(reqs[after]["body"]["thinking"]["block_binding"],
                         {"prefix_mismatch_behavior": "drop_block"})
        self.assertEqual(refusals(reqs), [])

    def test_a_refused_tool_version_is_adapted_once(self):
        """Opus 5.5 on Bedrock keeps computer_20251124: refused once, declared from then
        on, the run goes on and finishes."""
        steps = [{"tool_calls": [call("computer", action="left_click", coordinate=SAVE_AT)]},
                 {"tool_calls": [call("computer", action="screenshot")]},
                 {"text": "done"}]
        with fake_llm({"platform": "bedrock", "steps": steps}) as fake:
            r = ComputerRun(fake, provider="anthropic", model="claude-opus-5-5").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["response"]["kind"] for q in reqs],
                         ["invalid", "reply", "reply", "reply"])
        self.assertEqual(reqs[1]["body"]["tools"][0]["type"], "computer_20251124")
        log = agent_log(r)
        self.assertEqual(log.count("declaring computer_20251124 from now on"), 1, log)
        self.assertEqual(r.presses(), [tuple(SAVE_AT)])


class GPTToday(unittest.TestCase):
    def test_gpt_5_5_functions_every_reasoning_item_comes_back(self):
        steps = [
            {"tool_calls": [tool_call({"action": "click", "element": "${element:Button:Save}"})],
             "text": "Saving."},
            {"tool_calls": [tool_call({"action": "type", "text": "hello"})]},
            final("All done."),
        ]
        r, reqs = functions_run(self, "gpt-5.5", steps, provider="responses")
        self.assertEqual(r.out.strip(), "All done.")
        self.assertEqual([q.get("reasoning_dropped") for q in reqs], [None] * 3)
        kinds = [i.get("type") for i in reqs[2]["body"]["input"]]
        self.assertEqual(kinds.count("reasoning"), 2)
        for k, kind in enumerate(kinds):
            if kind == "reasoning":  # each before what followed it
                self.assertIn(kinds[k + 1], ("message", "function_call"))

    def test_gpt_5_5_takes_the_ga_computer_tool(self):
        steps = [{"tool_calls": [call("computer", action={"type": "click", "button": "left",
                                                           "x": 153, "y": 53})]},
                 {"text": "done"}]
        r, reqs = run_steps(self, steps, "--max-edge", "1280", provider="responses",
                            model="gpt-5.5")
        self.assertEqual(reqs[0]["body"]["tools"][0], {"type": "computer"})
        self.assertEqual(r.presses(), [tuple(SAVE_AT)])
        self.assertEqual(reqs[1]["body"]["input"][1]["type"], "reasoning")


class GeminiToday(unittest.TestCase):
    def test_gemini_3_6_flash_on_the_desktop(self):
        steps = [{"tool_calls": [call("click", **SAVE)]}, {"text": "done"}]
        r, reqs = run_steps(self, steps, model="gemini-3.6-flash")
        self.assertEqual(reqs[0]["body"]["tools"][0],
                         {"computerUse": {"environment": "ENVIRONMENT_DESKTOP"}})
        self.assertEqual(len(r.presses()), 1)
        x, y = r.presses()[0]
        self.assertTrue(200 <= x < 260 and 70 <= y < 90, r.presses())  # on Save

    def test_a_model_no_longer_listed_is_a_configuration_error(self):
        with fake_llm({"steps": []}) as fake:
            r = ComputerRun(fake, model="gemini-3.1-pro-preview").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 1, r.err)
        self.assertIn("takes no computer tool", r.err)
        self.assertEqual(reqs, [])


class ModelLimits(unittest.TestCase):
    """Without --max-edge a screenshot is as large as the model takes it as sent."""

    def display(self, provider, model):
        steps = [{"tool_calls": [call("computer", action="screenshot")]}, {"text": "done"}]
        if provider == "responses":
            steps[0] = {"tool_calls": [call("computer", action={"type": "screenshot"})]}
        r, reqs = run_steps(self, steps, provider=provider, model=model)
        sizes = set(image_sizes(reqs[1]))
        self.assertEqual(len(sizes), 1, sizes)
        return sizes.pop()

    def test_each_model_its_own(self):
        self.assertEqual(self.display("anthropic", "claude-opus-5-5"), (1920, 1080))
        self.assertEqual(self.display("anthropic", "claude-opus-4-7"), (1920, 1080))
        w, h = self.display("anthropic", "claude-sonnet-4-5")
        self.assertLessEqual(max(w, h), 1568)
        self.assertLessEqual(w * h, 1150000)
        self.assertGreater(w, 1280)  # not cut to 1280 as before
        self.assertEqual(self.display("responses", "computer-use-preview"), (1366, 768))


if __name__ == "__main__":
    unittest.main(verbosity=2)
