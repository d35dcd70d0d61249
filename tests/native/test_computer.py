"""The computer tool protocol in whole native runs (fake desktop, fake Gemini server):
Gemini's predefined functions act through the core, each answer carries its screenshot
inside the function response, and a safety check is confirmed by a person or refused
when nobody is there."""
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
    def __init__(self, fake, *args, answer=None, model="fake-model"):
        super().__init__(fake, "--tool-protocol", "computer", "--model", model, *args,
                         provider="gemini",
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
        self.assertIn('"success":true', fr["response"]["content"])
        self.assertEqual(fr["parts"][0]["inlineData"]["mimeType"], "image/png")
        self.assertNotIn("safety_acknowledgement", fr["response"])
        # what winagent cannot do is said to the model, and the run goes on
        typed, browser = responses(reqs[2])[-2:]
        self.assertIn('"success":true', typed["response"]["content"])
        self.assertIn("not a browser", browser["response"]["content"])
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
        self.assertIn("nobody is here to confirm it", fr["response"]["content"])
        self.assertIn("Saving over a file", fr["response"]["content"])
        self.assertNotIn("safety_acknowledgement", fr["response"])

    def test_a_person_who_agrees_lets_it_run_and_it_is_acknowledged(self):
        r, fr = self.run_flagged("--shell", "confirm", answer="y\n")
        self.assertTrue(clicked_save(r), r.actions())
        self.assertEqual(fr["response"]["safety_acknowledgement"], "true")
        self.assertIn("Saving over a file", r.err)  # the question the person was asked

    def test_a_person_who_declines_stops_it(self):
        r, fr = self.run_flagged("--shell", "confirm", answer="n\n")
        self.assertFalse(clicked_save(r), r.actions())
        self.assertIn("the person declined", fr["response"]["content"])
        self.assertNotIn("safety_acknowledgement", fr["response"])


if __name__ == "__main__":
    watest.main()
