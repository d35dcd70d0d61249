"""The same testapp task under Wine through every provider and the ways local servers
really answer: each provider's own wire format with the functions protocol, a server
that writes its calls as text and refuses images in tool messages, one that refuses
streaming with tools, the text protocol, and UI-TARS's grammar in its own pixels.
testapp's event log proves what the application received."""
import json
import unittest

import watest
from watest import TestApp, fake_llm, tool_call, read_trace, assert_secret_absent

KEY = "sk-e2e-SECRET-51d0"


class AgentRun(watest.AgentRun):
    def __init__(self, fake, *args, **kw):
        super().__init__(fake, *args, key=KEY, **kw)


def clicked(control):
    return lambda e: e.get("event") == "click" and e.get("control") == control


def typed(text):
    return lambda e: e.get("event") == "text_changed" and e.get("text") == text


# The task: press OK, type a name, answer. Calls by element, from the tree.
TASK = [
    {"text": "Pressing OK first.",
     "tool_calls": [tool_call({"action": "click", "element": "${element:Button:OK}"})],
     "expect": {"has_tree": True}},
    {"tool_calls": [tool_call({"action": "type", "element": "${element:Edit:Name:}",
                               "text": "héllo wörld"})]},
    {"text": "Typed the name."},
]


class Providers(unittest.TestCase):
    def task(self, provider, *args, scenario_extra=None, step_quirks=None):
        steps = [dict(s) for s in TASK]
        if step_quirks:
            for s in steps[:2]:
                s["quirks"] = step_quirks
        scenario = dict({"steps": steps}, **(scenario_extra or {}))
        with TestApp() as app, fake_llm(scenario) as fake:
            r = AgentRun(fake, "--mode", "a11y", *args, provider=provider).run()
            reqs = list(fake.requests)
            self.assertEqual(r.code, 0, r.err + r.out)
            try:
                app.wait_event(clicked("OK"))
                app.wait_event(typed("héllo wörld"))
            except AssertionError as exc:
                raise AssertionError("%s\nthe run said:\n%s" % (exc, r.err))
        self.assertEqual(r.out.strip(), "Typed the name.")
        self.assertEqual([q["template_error"] for q in reqs if q["step"] is not None],
                         [None] * 3)
        self.assertEqual([q["expect_failures"] for q in reqs], [[]] * len(reqs))
        assert_secret_absent(self, r.log_dir, KEY)
        return r, reqs

    def test_openai_compatible(self):
        _, reqs = self.task("openai")
        self.assertEqual(reqs[1]["body"]["messages"][3]["role"], "tool")

    def test_openai_responses(self):
        _, reqs = self.task("responses")
        self.assertEqual([q["response"]["kind"] for q in reqs], ["reply"] * 3)
        kinds = [i.get("type", "message") for i in reqs[1]["body"]["input"]]
        self.assertEqual(kinds, ["message", "message", "function_call", "function_call_output"])
        self.assertEqual(reqs[0]["headers"].get("Authorization"), "Bearer " + KEY)

    def test_google(self):
        _, reqs = self.task("gemini")
        self.assertIn("functionResponse", json.dumps(reqs[1]["body"]))

    def test_anthropic(self):
        _, reqs = self.task("anthropic", "--no-stream")
        self.assertEqual([q["response"]["kind"] for q in reqs], ["reply"] * 3)
        self.assertEqual(reqs[0]["headers"].get("x-api-key"), KEY)
        self.assertEqual(reqs[1]["body"]["messages"][2]["content"][0]["type"], "tool_result")

    def test_anthropic_streaming(self):
        self.task("anthropic")


class LocalServers(unittest.TestCase):
    def test_calls_written_as_text_and_no_images_in_tool_messages(self):
        # vLLM without a tool parser: calls come back as text; it refuses a tool message
        # with an image (HTTP 400) and tool_choice. Observations are images here.
        steps = [
            {"text": "I click the red target.", "quirks": {"calls_as_text": "hermes"},
             "tool_calls": [tool_call({"action": "click", "x": "${color_x:ff0000}",
                                       "y": "${color_y:ff0000}"})],
             "expect": {"has_image": True}},
            {"text": "Clicked it.", "expect": {"contains": "Result of desktop (call_",
                                               "has_image": True}},
        ]
        scenario = {"steps": steps, "refuse": ["images_in_tool", "tool_choice"]}
        with TestApp() as app, fake_llm(scenario) as fake:
            r = AgentRun(fake, "--mode", "pixel").run()
            hit = app.wait_event(clicked("canvas"))
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "Clicked it.")
        self.assertEqual(hit["target"], "red", hit)
        self.assertEqual([q["response"]["kind"] for q in reqs], ["reply", "reply"])
        self.assertEqual(reqs[1]["expect_failures"], [])
        self.assertNotIn("tool", [m["role"] for m in reqs[1]["body"]["messages"]])
        self.assertEqual(r.agent_log().count("wrote its tool calls as text"), 1)

    def test_server_refusing_streaming_with_tools_is_asked_without(self):
        steps = [dict(s) for s in TASK]
        with TestApp() as app, fake_llm({"steps": steps,
                                         "refuse": ["stream_with_tools"]}) as fake:
            r = AgentRun(fake, "--mode", "a11y").run()
            app.wait_event(typed("héllo wörld"))
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        # refused once, then never streamed again
        self.assertEqual([q["response"]["kind"] for q in reqs], ["refused"] + ["reply"] * 3)
        self.assertEqual([q["stream"] for q in reqs], [True, False, False, False])
        self.assertEqual(r.agent_log().count("refuses streaming with tools"), 1)

    def test_text_protocol(self):
        steps = [dict(s, quirks={"calls_as_text": "qwen3_coder"}) for s in TASK[:2]] + [TASK[2]]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, "--mode", "a11y", "--tool-protocol", "text").run()
            app.wait_event(clicked("OK"))
            app.wait_event(typed("héllo wörld"))
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        for q in reqs:
            self.assertNotIn("tools", q["body"])
        self.assertIn("<tool_call>", reqs[0]["body"]["messages"][0]["content"])

    def test_uitars_grammar_lands_on_its_target(self):
        # UI-TARS-1.5 writes points in pixels of the screenshot after its smart resize.
        steps = [
            {"text": "Thought: The red square is the target.\nAction: click(point="
                     "'<point>${tars_x:ff0000} ${tars_y:ff0000}</point>')",
             "expect": {"has_image": True}},
            {"text": "Thought: Done.\nAction: finished(content='clicked red')"},
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = AgentRun(fake, "--model", "UI-TARS-1.5-7B").run()
            hit = app.wait_event(clicked("canvas"))
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "clicked red")
        self.assertEqual([q["template_error"] for q in reqs], [None, None])
        self.assertEqual(hit["target"], "red", hit)
        call = read_trace(r.run_dir())[1]["tool_calls"][0]
        self.assertEqual(call["arguments"]["action"], "click")


if __name__ == "__main__":
    watest.main()
