"""The computer tool protocol under Wine: the real winagent.exe asked by a scripted
computer-use model of Gemini, OpenAI or Anthropic (the fake server speaking its wire
format and refusing what the service refuses) acts on testapp, judged by testapp's own
log. The model is told one display for the run (the 1920x1080 screen at 1280x720): a
click found in the screenshot lands within 3 pixels whichever window is in front, a
drag presses on its start and releases on its end, ctrl held during a click selects a
second list item, and a click the model's safety check flags is performed and
acknowledged only after a person said yes; unattended, the run ends saying why with
nothing clicked and no request the service would refuse."""
import subprocess
import unittest

import watest
from watest import TestApp, fake_llm
import computer_rules  # noqa: E402 (watest put tests/fake_llm on the path)
import server  # noqa: E402

KEY = "sk-computer-SECRET-2b7c"
DISPLAY = (1280, 720)  # the 1920x1080 screen, the same for the three services at 1280


def centre(rect):
    return ((rect[0] + rect[2]) / 2.0, (rect[1] + rect[3]) / 2.0)


def to_pixel(x, y, screen):
    """The pixel of the 1280x720 screenshot that shows screen pixel (x, y)."""
    return [int(x * DISPLAY[0] / screen[0]), int(y * DISPLAY[1] / screen[1])]


def to_grid(x, y, screen):
    """Gemini's 0-999 cell that holds screen pixel (x, y)."""
    return int(x * 1000 / screen[0]), int(y * 1000 / screen[1])


def image_sizes(req):
    model_req = server.ModelRequest(req["provider"], req["path"], "", req["headers"], b"",
                                    req["body"], "", False, False)
    return [computer_rules.png_size(data) for _, data in server.request_images(model_req)]


def run(test, steps, provider, model, *args, answer=None, code=0, display=DISPLAY):
    """One run of steps; every request one the service takes. (run, requests) The display
    is the screen at 1280 (--max-edge 1280), or, given another, the model's own limits."""
    edge = ("--max-edge", "1280") if display == DISPLAY else ()
    with fake_llm({"steps": steps}) as fake:
        r = watest.AgentRun(fake, "--tool-protocol", "computer", "--model", model, *edge,
                            *args, provider=provider, key=KEY)
        p = r.start(stdin=subprocess.PIPE if answer is not None else subprocess.DEVNULL)
        r.out, r.err = p.communicate(answer, timeout=180)
        r.code = p.returncode
        reqs = list(fake.requests)
    test.assertEqual(r.code, code, r.err)
    test.assertEqual([q["template_error"] for q in reqs], [None] * len(reqs))
    test.assertEqual([q["response"].get("problems") for q in reqs], [None] * len(reqs))
    for q in reqs:  # one display, whatever was in front
        test.assertEqual(set(image_sizes(q)) - {display}, set(), q["n"])
    watest.assert_secret_absent(test, r.log_dir, KEY)
    return r, reqs


def canvas_clicks(app):
    return [e for e in app.events() if e.get("event") == "click" and e.get("control") == "canvas"]


def assert_near(test, got, want, what):
    test.assertLessEqual(abs(got[0] - want[0]), 3, (what, got, want))
    test.assertLessEqual(abs(got[1] - want[1]), 3, (what, got, want))


def function_responses(req):
    return [p["functionResponse"] for c in req["body"]["contents"] for p in c.get("parts", [])
            if "functionResponse" in p]


def click_red(test, provider, model, call):
    """One call of the computer tool aimed at testapp's red target, found in the
    screenshot: the requests, after checking that the click landed within 3 pixels."""
    steps = [{"tool_calls": [call], "expect": {"has_image": True}},
             {"text": "clicked red", "expect": {"has_image": True}}]
    with TestApp() as app:
        r, reqs = run(test, steps, provider, model)
        hit = app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "canvas")
    test.assertEqual(r.out.strip(), "clicked red")
    test.assertEqual(hit["target"], "red", hit)
    assert_near(test, (hit["x"], hit["y"]), RED, "click")
    return reqs


RED = (69.5, 69.5)  # the red target's middle, canvas client pixels
GREEN = (179.5, 149.5)
BLUE = (289.5, 229.5)


class GeminiComputerUseOnTestapp(unittest.TestCase):
    def test_click_at_lands_on_the_red_target(self):
        reqs = click_red(self, "gemini", "gemini-3.5-flash", {"name": "click_at", "arguments": {
            "x": "${color_x:ff0000}", "y": "${color_y:ff0000}"}})
        self.assertIn("computerUse", reqs[0]["body"]["tools"][0])
        # the click's answer carried the screenshot after it inside the function response
        fr = function_responses(reqs[1])[-1]
        self.assertEqual(fr["name"], "click_at")
        self.assertEqual(fr["parts"][0]["inlineData"]["mimeType"], "image/png")

    def flagged_click(self, app):
        red = centre(app.ready["controls"]["target_red"])
        x, y = to_grid(red[0], red[1], app.ready["screen"])
        return [{"tool_calls": [{"name": "click_at", "arguments": {
                    "x": x, "y": y, "safety_decision": {
                        "decision": "require_confirmation",
                        "explanation": "The red target starts the launch"}}}]},
                {"text": "clicked red"}]

    def test_unattended_a_flagged_click_ends_the_run_saying_why_with_nothing_clicked(self):
        with TestApp() as app:
            r, reqs = run(self, self.flagged_click(app), "gemini", "gemini-3.5-flash", code=7)
            # the run waits for its input to be handled: a click would be logged by now
            self.assertEqual(canvas_clicks(app), [])
        self.assertEqual(len(reqs), 1)  # nothing the service would answer with a 400
        self.assertIn("click_at needs a person's confirmation", r.err)
        self.assertIn("The red target starts the launch", r.err)

    def test_a_person_who_says_yes_gets_the_click_and_it_is_acknowledged(self):
        with TestApp() as app:
            r, reqs = run(self, self.flagged_click(app), "gemini", "gemini-3.5-flash",
                          "--shell", "confirm", answer="y\n")
            hit = app.wait_event(lambda e: e.get("event") == "click"
                                 and e.get("control") == "canvas")
        self.assertEqual(hit["target"], "red", hit)
        self.assertIn("The red target starts the launch", r.err)  # what the person was asked
        fr = function_responses(reqs[1])[-1]
        self.assertEqual(fr["response"]["safety_acknowledgement"], "true")

    def test_a_35_drag_presses_on_its_start_and_releases_on_its_end(self):
        with TestApp() as app:
            screen = app.ready["screen"]
            sx, sy = to_grid(*centre(app.ready["controls"]["target_red"]), screen)
            ex, ey = to_grid(*centre(app.ready["controls"]["target_blue"]), screen)
            steps = [{"tool_calls": [{"name": "drag_and_drop", "arguments": {
                "start_x": sx, "start_y": sy, "end_x": ex, "end_y": ey}}]},
                {"text": "dragged"}]
            run(self, steps, "gemini", "gemini-3.5-flash")
            drag = app.wait_event(lambda e: e.get("event") == "drag")
        self.assertEqual(drag["target_from"], "red", drag)
        assert_near(self, drag["from"], RED, "press")
        assert_near(self, drag["to"], BLUE, "release")


class OpenAIComputerUseOnTestapp(unittest.TestCase):
    def test_click_lands_on_the_red_target(self):
        reqs = click_red(self, "responses", "computer-use-preview", {
            "name": "computer", "arguments": {"action": {
                "type": "click", "button": "left",
                "x": "${pixel_x:ff0000}", "y": "${pixel_y:ff0000}"}}})
        tool = reqs[0]["body"]["tools"][0]
        self.assertEqual(tool["type"], "computer_use_preview")
        self.assertEqual((tool["display_width"], tool["display_height"]), DISPLAY)
        out = [i for i in reqs[1]["body"]["input"] if i.get("type") == "computer_call_output"]
        self.assertEqual(out[-1]["output"]["type"], "computer_screenshot")

    def test_ctrl_click_selects_a_second_list_item(self):
        with TestApp("--list-select", "extended") as app:
            screen, lst = app.ready["screen"], app.ready["controls"]["list"]
            first = to_pixel(lst[0] + 40, lst[1] + 10, screen)  # Item 1, 20 px a row
            second = to_pixel(lst[0] + 40, lst[1] + 30, screen)  # Item 2
            steps = [{"tool_calls": [{"name": "computer", "arguments": {"actions": [
                {"type": "click", "button": "left", "x": first[0], "y": first[1]},
                {"type": "click", "button": "left", "x": second[0], "y": second[1],
                 "keys": ["CTRL"]}]}}]},
                {"text": "selected two"}]
            run(self, steps, "responses", "gpt-5.4")
            last = app.wait_event(lambda e: e.get("event") == "list_select"
                                  and e.get("selected") == [0, 1])
        self.assertEqual(last["text"], "Item 2")


def tool_results(req):
    return [b for m in req["body"]["messages"] if m["role"] == "user"
            for b in m["content"] if b.get("type") == "tool_result"]


class AnthropicComputerUseOnTestapp(unittest.TestCase):
    def test_left_click_lands_on_the_red_target(self):
        reqs = click_red(self, "anthropic", "claude-sonnet-4-5", {"name": "computer", "arguments": {
            "action": "left_click", "coordinate": ["${pixel_x:ff0000}", "${pixel_y:ff0000}"]}})
        self.assertEqual(reqs[0]["body"]["tools"][0]["type"], "computer_20250124")
        res = tool_results(reqs[1])
        self.assertEqual([b["type"] for b in res[-1]["content"]], ["text", "image"])

    def test_clicks_land_whichever_window_is_in_front(self):
        """The keypad comes in front between two clicks on the main window: the display
        stays the screen, each screenshot its size, each click within 3 pixels."""
        with TestApp() as app, TestApp("--x", "1100", "--y", "300", panel="keypad") as pad:
            screen = app.ready["screen"]
            red = to_pixel(*centre(app.ready["controls"]["target_red"]), screen)
            c = pad.ready["client_rect"]
            seven = to_pixel(c[0] + 60, c[1] + 60, screen)  # key 7: client [20,20,100,100]
            green = to_pixel(*centre(app.ready["controls"]["target_green"]), screen)
            steps = [{"tool_calls": [{"name": "computer", "arguments": {
                         "action": "left_click", "coordinate": p}}]}
                     for p in (red, seven, green)] + [{"text": "clicked three"}]
            r, reqs = run(self, steps, "anthropic", "claude-sonnet-4-5")
            hits = [app.wait_event(lambda e: e.get("event") == "click"
                                   and e.get("target") == t) for t in ("red", "green")]
            key = pad.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "key")
        tool = reqs[0]["body"]["tools"][0]
        self.assertEqual((tool["display_width_px"], tool["display_height_px"]), DISPLAY)
        assert_near(self, (hits[0]["x"], hits[0]["y"]), RED, "red")
        assert_near(self, (hits[1]["x"], hits[1]["y"]), GREEN, "green")
        self.assertEqual(key["label"], "7", key)


class ClaudeToolsetOnTestapp(unittest.TestCase):
    def test_opus_5_5_batches_a_click_and_typing_on_the_whole_screen(self):
        """Claude Opus 5.5 takes the toolset alone, and the 1920x1080 screen whole (its
        limit is 2576 px): one turn of member calls clicks the red target and types into
        the Name box, each answered with toolset_name."""
        with TestApp() as app:
            name = centre(app.ready["controls"]["edit"])  # screen pixels: the display
            steps = [{"tool_calls": [
                {"name": "computer", "arguments": {
                    "action": "left_click",
                    "coordinate": ["${pixel_x:ff0000}", "${pixel_y:ff0000}"]}},
                {"name": "computer", "arguments": {
                    "action": "left_click", "coordinate": [int(name[0]), int(name[1])]}},
                {"name": "computer", "arguments": {"action": "type", "text": "Ada"}}],
                "expect": {"has_image": True}},
                {"text": "done"}]
            r, reqs = run(self, steps, "anthropic", "claude-opus-5-5", display=(1920, 1080))
            hit = app.wait_event(lambda e: e.get("event") == "click"
                                 and e.get("control") == "canvas")
            typed = app.wait_event(lambda e: e.get("event") == "text_changed"
                                   and e.get("control") == "edit" and e.get("text") == "Ada")
        self.assertEqual(reqs[0]["body"]["tools"][0], {"type": "computer_toolset_20260801"})
        self.assertEqual(hit["target"], "red", hit)
        assert_near(self, (hit["x"], hit["y"]), RED, "click")
        self.assertEqual(typed["text"], "Ada")
        self.assertEqual([b.get("toolset_name") for b in tool_results(reqs[1])],
                         ["computer"] * 3)


if __name__ == "__main__":
    watest.main()
