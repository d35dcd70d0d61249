"""The computer tool protocol under Wine: the real winagent.exe asked by a scripted
computer-use model of Gemini, OpenAI or Anthropic (the fake server speaking its wire
format, requests checked) clicks testapp's red target, found in the screenshot it was
sent, within 3 pixels."""
import unittest

import watest
from watest import TestApp, fake_llm

KEY = "sk-computer-SECRET-2b7c"


class GeminiComputerUseOnTestapp(unittest.TestCase):
    def test_click_at_lands_on_the_red_target(self):
        steps = [
            {"tool_calls": [{"name": "click_at", "arguments": {"x": "${color_x:ff0000}",
                                                               "y": "${color_y:ff0000}"}}],
             "expect": {"has_image": True}},
            {"text": "clicked red", "expect": {"has_image": True}},
        ]
        with TestApp() as app, fake_llm({"steps": steps}) as fake:
            r = watest.AgentRun(fake, "--tool-protocol", "computer", provider="gemini",
                                key=KEY).run()
            hit = app.wait_event(lambda e: e.get("event") == "click"
                                 and e.get("control") == "canvas")
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual(r.out.strip(), "clicked red")
        self.assertEqual([q["template_error"] for q in reqs], [None, None])
        self.assertEqual([q.get("protocol_errors") for q in reqs], [None, None])
        self.assertIn("computerUse", reqs[0]["body"]["tools"][0])
        # testapp's red target is [40,40][100,100) in the canvas: its centre is (69.5,69.5)
        self.assertEqual(hit["target"], "red", hit)
        self.assertLessEqual(abs(hit["x"] - 69.5), 3, hit)
        self.assertLessEqual(abs(hit["y"] - 69.5), 3, hit)
        # the click's answer carried the screenshot after it inside the function response
        fr = [p["functionResponse"] for c in reqs[1]["body"]["contents"]
              for p in c.get("parts", []) if "functionResponse" in p][-1]
        self.assertEqual(fr["name"], "click_at")
        self.assertEqual(fr["parts"][0]["inlineData"]["mimeType"], "image/png")
        watest.assert_secret_absent(self, r.log_dir, KEY)


def click_red(test, provider, model, call):
    """Runs one click of the red target through provider's computer tool: the requests,
    after checking the run and where the click landed."""
    steps = [{"tool_calls": [call], "expect": {"has_image": True}},
             {"text": "clicked red", "expect": {"has_image": True}}]
    with TestApp() as app, fake_llm({"steps": steps}) as fake:
        r = watest.AgentRun(fake, "--tool-protocol", "computer", "--model", model,
                            provider=provider, key=KEY).run()
        hit = app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "canvas")
        reqs = list(fake.requests)
    test.assertEqual(r.code, 0, r.err)
    test.assertEqual(r.out.strip(), "clicked red")
    test.assertEqual([q["template_error"] for q in reqs], [None, None])
    test.assertEqual([q["response"].get("problems") for q in reqs], [None, None])
    test.assertEqual(hit["target"], "red", hit)
    test.assertLessEqual(abs(hit["x"] - 69.5), 3, hit)
    test.assertLessEqual(abs(hit["y"] - 69.5), 3, hit)
    watest.assert_secret_absent(test, r.log_dir, KEY)
    return reqs


class OpenAIComputerUseOnTestapp(unittest.TestCase):
    def test_click_lands_on_the_red_target(self):
        reqs = click_red(self, "responses", "computer-use-preview", {
            "name": "computer", "arguments": {"action": {
                "type": "click", "button": "left",
                "x": "${pixel_x:ff0000}", "y": "${pixel_y:ff0000}"}}})
        self.assertEqual(reqs[0]["body"]["tools"][0]["type"], "computer_use_preview")
        out = [i for i in reqs[1]["body"]["input"] if i.get("type") == "computer_call_output"]
        self.assertEqual(out[-1]["output"]["type"], "computer_screenshot")


class AnthropicComputerUseOnTestapp(unittest.TestCase):
    def test_left_click_lands_on_the_red_target(self):
        reqs = click_red(self, "anthropic", "claude-sonnet-4-5", {
            "name": "computer", "arguments": {
                "action": "left_click", "coordinate": ["${pixel_x:ff0000}", "${pixel_y:ff0000}"]}})
        self.assertEqual(reqs[0]["body"]["tools"][0]["type"], "computer_20250124")
        res = [b for m in reqs[1]["body"]["messages"] if m["role"] == "user"
               for b in m["content"] if b.get("type") == "tool_result"]
        self.assertEqual([b["type"] for b in res[-1]["content"]], ["text", "image"])


if __name__ == "__main__":
    watest.main()
