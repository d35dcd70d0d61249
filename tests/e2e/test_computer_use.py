"""The computer tool protocol under Wine: the real winagent.exe asked by a scripted
Gemini computer-use model (the fake server speaking its wire format, requests checked)
clicks testapp's red target, found in the screenshot it was sent, within 3 pixels."""
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


if __name__ == "__main__":
    watest.main()
