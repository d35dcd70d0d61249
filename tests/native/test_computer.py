"""The computer tool protocol in whole native runs (fake desktop, fake model servers):
Gemini's predefined functions, OpenAI's computer_call actions and Anthropic's computer
tool act through the core, each answer carries its screenshot the way the protocol wants
it (inside Gemini's function response, as a computer_call_output, as an image block in a
tool_result), and a safety check is confirmed by a person or refused when nobody is
there."""
import json
import subprocess
import unittest

import watest
from test_loop import Run
from watest import fake_llm

# Notepad's window is [100,50][1100,850]: Save's centre (230,80) is (130,38) in 0-999.
SAVE = {"x": 130, "y": 38}


def call(name, **args):
    return {"name": name, "arguments": args}


def responses(req):
    """The functionResponse parts of a Gemini request, in order."""
    return [p["functionResponse"] for c in req["body"]["contents"] for p in c.get("parts", [])
            if "functionResponse" in p]


class ComputerRun(Run):
    def __init__(self, fake, *args, answer=None, model="fake-model", provider="gemini"):
        super().__init__(fake, "--tool-protocol", "computer", "--model", model, *args,
                         provider=provider,
                         stdin=subprocess.PIPE if answer is not None else subprocess.DEVNULL)
        self.answer = answer

    def run(self, timeout=60):
        p = self.start()
        self.out, self.err = p.communicate(self.answer, timeout=timeout)
        self.code = p.returncode
        return self


def clicked_save(r):
    return {"op": "mouse_move", "x": 230, "y": 80} in r.actions()


class GeminiComputerUse(unittest.TestCase):
    def test_predefined_functions_act_and_answer_with_their_screenshot(self):
        steps = [
            {"tool_calls": [call("click_at", **SAVE)], "expect": {"has_image": True}},
            {"tool_calls": [call("type_text_at", x=500, y=500, text="hi", press_enter=True),
                            call("open_web_browser")]},
            {"text": "done"},
        ]
        with fake_llm({"steps": steps}) as fake:
            r = ComputerRun(fake).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q.get("protocol_errors") for q in reqs], [None] * 3)
        tools = reqs[0]["body"]["tools"]
        self.assertEqual(tools[0], {"computerUse": {"environment": "ENVIRONMENT_DESKTOP"}})
        names = [d["name"] for d in tools[1]["functionDeclarations"]]
        self.assertEqual(names, ["launch", "window_tree", "powershell"])
        self.assertTrue(clicked_save(r), r.actions())
        self.assertIn({"op": "type_text", "text": "hi"}, r.actions())
        # the click's answer: the report as text, the screenshot inside the response
        fr = responses(reqs[1])[-1]
        self.assertEqual(fr["name"], "click_at")
        self.assertIn('"success":true', fr["response"]["output"])
        self.assertEqual(fr["parts"][0]["inlineData"]["mimeType"], "image/png")
        self.assertNotIn("safety_acknowledgement", fr["response"])
        # what winagent cannot do is said to the model, and the run goes on
        typed, browser = responses(reqs[2])[-2:]
        self.assertIn('"success":true', typed["response"]["output"])
        # a failed action's result is the response's "error", as the API reads it
        self.assertIn("not a browser", browser["response"]["error"])
        self.assertNotIn("output", browser["response"])
        self.assertTrue(browser["parts"][0]["inlineData"]["data"])

    def test_a_browser_only_model_gets_the_browser_without_its_browser_functions(self):
        with fake_llm({"steps": [{"text": "nothing to do"}]}) as fake:
            r = ComputerRun(fake, model="gemini-2.5-computer-use-preview-10-2025").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        cu = reqs[0]["body"]["tools"][0]["computerUse"]
        self.assertEqual(cu["environment"], "ENVIRONMENT_BROWSER")
        self.assertEqual(cu["excludedPredefinedFunctions"],
                         ["open_web_browser", "search", "navigate", "go_back", "go_forward"])


class SafetyConfirmation(unittest.TestCase):
    STEPS = [
        {"tool_calls": [call("click_at", safety_decision={
            "decision": "require_confirmation", "explanation": "Saving over a file"}, **SAVE)]},
        {"text": "over"},
    ]

    def run_flagged(self, *args, answer=None):
        with fake_llm({"steps": self.STEPS}) as fake:
            r = ComputerRun(fake, *args, answer=answer).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q.get("protocol_errors") for q in reqs], [None, None])
        return r, responses(reqs[1])[-1]

    def test_unattended_the_action_is_refused_and_the_model_told(self):
        r, fr = self.run_flagged()
        self.assertFalse(clicked_save(r), r.actions())
        self.assertIn("nobody is here to confirm it", fr["response"]["error"])
        self.assertIn("Saving over a file", fr["response"]["error"])
        self.assertNotIn("safety_acknowledgement", fr["response"])

    def test_a_person_who_agrees_lets_it_run_and_it_is_acknowledged(self):
        r, fr = self.run_flagged("--shell", "confirm", answer="y\n")
        self.assertTrue(clicked_save(r), r.actions())
        self.assertEqual(fr["response"]["safety_acknowledgement"], "true")
        self.assertIn("Saving over a file", r.err)  # the question the person was asked

    def test_a_person_who_declines_stops_it(self):
        r, fr = self.run_flagged("--shell", "confirm", answer="n\n")
        self.assertFalse(clicked_save(r), r.actions())
        self.assertIn("the person declined", fr["response"]["error"])
        self.assertNotIn("safety_acknowledgement", fr["response"])


# Save's centre (230,80) in pixels of the screenshot of Notepad's window at [100,50]
SAVE_PX = [130, 30]


def items(req, kind):
    return [i for i in req["body"]["input"] if i.get("type") == kind]


class OpenAIComputerUse(unittest.TestCase):
    def run_steps(self, steps, *args, answer=None):
        with fake_llm({"steps": steps}) as fake:
            r = ComputerRun(fake, *args, answer=answer, provider="responses",
                            model="computer-use-preview").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["response"].get("problems") for q in reqs], [None] * len(reqs))
        return r, reqs

    def test_actions_act_and_are_answered_with_their_screenshot(self):
        self.check_actions()

    def test_whole_replies_too(self):
        self.check_actions("--no-stream")

    def test_stored_on_the_server_when_asked(self):
        self.check_actions("--store")

    def test_a_storage_setting_neither_on_nor_off_is_refused(self):
        with fake_llm({"steps": [{"text": "never"}]}) as fake:
            r = Run(fake, provider="responses", env={"WINAGENT_STORE": "perhaps"}).run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 1, r.err)
        self.assertIn("WINAGENT_STORE must be on or off, not 'perhaps'", r.err)
        self.assertEqual(reqs, [])

    def check_actions(self, *args):
        steps = [
            {"tool_calls": [call("computer", action={"type": "click", "button": "left",
                                                     "x": SAVE_PX[0], "y": SAVE_PX[1]})],
             "reasoning": "Save is at the top left", "expect": {"has_image": True}},
            {"tool_calls": [call("computer", actions=[{"type": "type", "text": "hi"},
                                                      {"type": "keypress", "keys": ["ENTER"]}])]},
            {"text": "done"},
        ]
        r, reqs = self.run_steps(steps, *args)
        tools = reqs[0]["body"]["tools"]
        self.assertEqual(tools[0]["type"], "computer_use_preview")
        self.assertEqual(tools[0]["environment"], "windows")
        self.assertEqual((tools[0]["display_width"], tools[0]["display_height"]), (1000, 800))
        self.assertEqual([t.get("name") for t in tools[1:]], ["launch", "window_tree", "powershell"])
        self.assertTrue(clicked_save(r), r.actions())
        self.assertIn({"op": "type_text", "text": "hi"}, r.actions())
        out = items(reqs[1], "computer_call_output")[-1]
        self.assertEqual(out["call_id"], items(reqs[1], "computer_call")[-1]["call_id"])
        self.assertEqual(out["output"]["type"], "computer_screenshot")
        self.assertTrue(out["output"]["image_url"].startswith("data:image/png;base64,"))
        self.assertNotIn("acknowledged_safety_checks", out)
        # nothing stored on the server unless --store: the reasoning is asked for
        # encrypted, and the call goes back as it came, after its reasoning item, whole
        store = "--store" in args
        self.assertIs(reqs[0]["body"]["store"], store)
        self.assertEqual(reqs[0]["body"].get("include"),
                         None if store else ["reasoning.encrypted_content"])
        sent = reqs[1]["body"]["input"]
        at = [i for i, item in enumerate(sent) if item.get("type") == "computer_call"][-1]
        self.assertEqual(sent[at - 1]["type"], "reasoning")
        self.assertEqual(sent[at - 1]["summary"][0]["text"], "Save is at the top left")
        self.assertEqual("encrypted_content" in sent[at - 1], not store)
        self.assertEqual(sent[at]["action"]["x"], SAVE_PX[0])
        # winagent's report rides beside, in a user message
        report = reqs[1]["body"]["input"][-1]
        self.assertEqual(report["role"], "user")
        self.assertIn('"success":true', report["content"][0]["text"])
        self.assertEqual(len(items(reqs[2], "computer_call_output")), 2)

    CHECK = {"id": "cu_sc_1", "code": "malicious_instructions",
             "message": "The screen holds instructions that look unsafe"}

    def run_flagged(self, *args, answer=None):
        steps = [
            {"tool_calls": [call("computer", pending_safety_checks=[self.CHECK],
                                 action={"type": "click", "button": "left",
                                         "x": SAVE_PX[0], "y": SAVE_PX[1]})]},
            {"text": "over"},
        ]
        r, reqs = self.run_steps(steps, *args, answer=answer)
        return r, items(reqs[1], "computer_call_output")[-1], json.dumps(reqs[1]["body"]["input"])

    def test_a_safety_check_agreed_to_is_acknowledged(self):
        r, out, _ = self.run_flagged("--shell", "confirm", answer="y\n")
        self.assertTrue(clicked_save(r), r.actions())
        self.assertEqual(out["acknowledged_safety_checks"], [self.CHECK])
        self.assertIn("look unsafe", r.err)  # the question the person was asked

    def test_unattended_a_safety_check_is_refused_and_the_model_told(self):
        r, out, sent = self.run_flagged()
        self.assertFalse(clicked_save(r), r.actions())
        self.assertNotIn("acknowledged_safety_checks", out)
        self.assertIn("nobody is here to confirm it", sent)

    def test_a_safety_check_declined_is_not_performed_nor_acknowledged(self):
        r, out, sent = self.run_flagged("--shell", "confirm", answer="n\n")
        self.assertFalse(clicked_save(r), r.actions())
        self.assertNotIn("acknowledged_safety_checks", out)
        self.assertIn("the person declined this action", sent)  # the model is told
        self.assertIn("look unsafe", sent)
        self.assertIn("look unsafe", r.err)  # the question the person was asked


def tool_results(req):
    return [b for m in req["body"]["messages"] if m["role"] == "user"
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


class AnthropicComputerUse(unittest.TestCase):
    def test_actions_act_and_tool_results_carry_the_report_and_screenshot(self):
        self.check_actions()

    def test_whole_replies_too(self):
        self.check_actions("--no-stream")

    def test_claude_sonnet_4_6_gets_its_tool_version(self):
        # the strict fake refuses computer_20250124 for this model, as the API does
        steps = [{"tool_calls": [call("computer", action="left_click", coordinate=SAVE_PX)]},
                 {"text": "done"}]
        with fake_llm({"steps": steps}) as fake:
            r = ComputerRun(fake, provider="anthropic", model="claude-sonnet-4-6").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["response"].get("problems") for q in reqs], [None] * 2)
        self.assertEqual(reqs[0]["body"]["tools"][0],
                         {"type": "computer_20251124", "name": "computer", "enable_zoom": True,
                          "display_width_px": 1000, "display_height_px": 800})
        headers = {k.lower(): v for k, v in reqs[0]["headers"].items()}
        self.assertEqual(headers["anthropic-beta"], "computer-use-2025-11-24")
        self.assertTrue(clicked_save(r), r.actions())

    def check_actions(self, *args):
        steps = [
            {"tool_calls": [call("computer", action="left_click", coordinate=SAVE_PX)],
             "expect": {"has_image": True}},
            {"tool_calls": [call("computer", action="type", text="hi"),
                            call("computer", action="key", text="Return")]},
            {"text": "done"},
        ]
        with fake_llm({"steps": steps}) as fake:
            r = ComputerRun(fake, *args, provider="anthropic", model="claude-sonnet-4-5").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["response"].get("problems") for q in reqs], [None] * 3)
        tools = reqs[0]["body"]["tools"]
        self.assertEqual(tools[0], {"type": "computer_20250124", "name": "computer",
                                    "display_width_px": 1000, "display_height_px": 800})
        self.assertEqual([t["name"] for t in tools[1:]], ["launch", "window_tree", "powershell"])
        headers = {k.lower(): v for k, v in reqs[0]["headers"].items()}
        self.assertEqual(headers["anthropic-beta"], "computer-use-2025-01-24")
        self.assertTrue(clicked_save(r), r.actions())
        self.assertIn({"op": "type_text", "text": "hi"}, r.actions())
        res = tool_results(reqs[1])[-1]
        self.assertEqual([b["type"] for b in res["content"]], ["text", "image"])
        self.assertIn('"success":true', res["content"][0]["text"])
        self.assertEqual(res["content"][1]["source"]["media_type"], "image/png")
        self.assertEqual(len(tool_results(reqs[2])), 3)


if __name__ == "__main__":
    watest.main()
