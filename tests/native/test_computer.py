"""The computer tool protocol in whole native runs (fake desktop, fake model servers that
refuse what the services refuse): Gemini's predefined functions, OpenAI's computer_call
actions and Anthropic's computer tool act through the core on one display for the whole
run (the monitor, every screenshot of one size within the service's limits, coordinates
mapped back to the exact screen pixel), each answer carries its screenshot the way the
protocol wants it, every documented action of each version does what it says, a safety
check is acknowledged only after a person agreed, and a refused or blocked one ends the
run with its own exit code instead of an answer the service would refuse."""
import json
import os
import subprocess
import tempfile
import unittest

import watest  # first: it puts tests/fake_llm on the path
import computer_rules  # noqa: E402
import server  # noqa: E402
from test_loop import Run, SCENE  # noqa: E402
from watest import fake_llm, read_trace  # noqa: E402

# Notepad's window is [100,50][1100,850] on a 1920x1080 monitor; its Save button is
# [200,70][260,90]. Every display here is that monitor at 1280x720.
SAVE = {"x": 120, "y": 74}  # Gemini's grid: screen (230,80)
SAVE_PX = [153, 53]  # pixels of the 1280x720 screenshot: screen (230,80) exactly
DISPLAY = (1280, 720)


def call(name, **args):
    return {"name": name, "arguments": args}


def responses(req):
    """The functionResponse parts of a Gemini request, in order."""
    return [p["functionResponse"] for c in req["body"]["contents"] for p in c.get("parts", [])
            if "functionResponse" in p]


def image_sizes(req):
    """The size of every image a request carries."""
    return [computer_rules.png_size(data) for _, data in
            server.request_images(server.ModelRequest(
                req["provider"], req["path"], "", req["headers"], b"", req["body"], "", False,
                False))]


class ComputerRun(Run):
    def __init__(self, fake, *args, answer=None, model="fake-model", provider="gemini",
                 scene=SCENE):
        super().__init__(fake, "--tool-protocol", "computer", "--model", model, *args,
                         provider=provider, env={"WINAGENT_FAKE_SCENE": scene},
                         stdin=subprocess.PIPE if answer is not None else subprocess.DEVNULL)
        self.answer = answer

    def run(self, timeout=60):
        p = self.start()
        self.out, self.err = p.communicate(self.answer, timeout=timeout)
        self.code = p.returncode
        return self

    def presses(self, down=True):
        """(x, y) of every mouse button going down (or up)."""
        return [(a["x"], a["y"]) for a in self.actions()
                if a["op"] == "mouse_button" and a["down"] == down]

    def ops(self):
        return [a["op"] for a in self.actions() if a["op"] != "capture_screen"]

    def summary(self):
        return [t for t in read_trace(self.run_dir())
                if isinstance(t.get("summary"), dict)][-1]["summary"]


def clicked_save(r):
    return any(200 <= x < 260 and 70 <= y < 90 for x, y in r.presses())


def run_steps(test, steps, *args, provider="gemini", code=0, **kw):
    """Runs steps; every request must be one the service takes. (run, requests)"""
    with fake_llm({"steps": steps}) as fake:
        r = ComputerRun(fake, *args, provider=provider, **kw).run()
        reqs = list(fake.requests)
    test.assertEqual(r.code, code, r.err)
    test.assertEqual([q["response"].get("problems") for q in reqs], [None] * len(reqs))
    test.assertEqual([q.get("protocol_errors") for q in reqs], [None] * len(reqs))
    return r, reqs


def scene_with(monitor=None, window=None):
    """A scene file: the Notepad scene with another monitor, or one more window on top."""
    with open(SCENE, encoding="utf-8") as f:
        scene = json.load(f)
    if monitor:
        scene["monitors"] = [{"rect": monitor, "primary": True}]
    if window:
        for w in scene["windows"]:
            w["foreground"] = False
        scene["windows"].insert(0, window)
    fd, path = tempfile.mkstemp(suffix=".json", prefix="wa-scene-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(scene, f)
    return path


class GeminiComputerUse(unittest.TestCase):
    def test_predefined_functions_act_and_answer_with_their_screenshot(self):
        steps = [
            {"tool_calls": [call("click_at", **SAVE)], "expect": {"has_image": True}},
            {"tool_calls": [call("type_text_at", x=500, y=500, text="hi", press_enter=True),
                            call("open_web_browser")]},
            {"text": "done"},
        ]
        r, reqs = run_steps(self, steps)
        tools = reqs[0]["body"]["tools"]
        self.assertEqual(tools[0], {"computerUse": {"environment": "ENVIRONMENT_DESKTOP"}})
        names = [d["name"] for d in tools[1]["functionDeclarations"]]
        self.assertEqual(names, ["launch", "window_tree", "ask_user", "powershell"])
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
        # the grid spans the monitor: one size for every screenshot of the run
        for q in reqs:
            self.assertEqual(set(image_sizes(q)), {DISPLAY})

    def test_a_browser_only_model_gets_the_browser_without_its_browser_functions(self):
        r, reqs = run_steps(self, [{"text": "nothing to do"}],
                            model="gemini-2.5-computer-use-preview-10-2025")
        cu = reqs[0]["body"]["tools"][0]["computerUse"]
        self.assertEqual(cu["environment"], "ENVIRONMENT_BROWSER")
        self.assertEqual(cu["excludedPredefinedFunctions"],
                         ["open_web_browser", "search", "navigate", "go_back", "go_forward"])

    def test_a_35_drag_presses_on_its_start_and_releases_on_its_end(self):
        steps = [{"tool_calls": [call("drag_and_drop", start_x=120, start_y=74, end_x=500,
                                      end_y=500)]},
                 {"tool_calls": [call("drag_and_drop", x=500, y=500, destination_x=120,
                                      destination_y=74)]},
                 {"text": "dragged"}]
        r, _ = run_steps(self, steps)
        downs, ups = r.presses(True), r.presses(False)
        self.assertEqual(len(downs), 2, r.actions())
        self.assertEqual(downs[0], (231, 80))  # the middle of grid cell (120,74)
        self.assertLessEqual(abs(ups[0][0] - 960), 3)
        self.assertLessEqual(abs(ups[0][1] - 540), 3)
        # the first set's names: the other way round
        self.assertEqual(downs[1], ups[0])
        self.assertEqual(ups[1], (231, 80))

    def test_a_35_scroll_goes_its_pixels(self):
        steps = [{"tool_calls": [call("scroll", x=500, y=500, direction="down")]},
                 {"tool_calls": [call("scroll", x=500, y=500, direction="up",
                                      magnitude_in_pixels=100)]},
                 {"text": "scrolled"}]
        r, _ = run_steps(self, steps)
        wheels = [a["delta"] for a in r.actions() if a["op"] == "mouse_wheel"]
        self.assertEqual(wheels, [-120] * 6 + [120] * 2)  # 300 px, then 100, ~50 a notch

    def test_keys_and_buttons_held_go_through_the_core_and_are_let_go_at_the_end(self):
        steps = [{"tool_calls": [call("key_down", key="shift"),
                                 call("mouse_down", x=300, y=300),
                                 call("move", x=400, y=300)]},
                 {"tool_calls": [call("wait", seconds=0)]},
                 {"text": "left them down"}]
        r, reqs = run_steps(self, steps)
        ops = r.ops()
        self.assertEqual(ops[:3], ["key_down", "mouse_move", "mouse_button"])
        # the run ended with both held: it let them go
        self.assertEqual(ops[-2:], ["mouse_button", "key_up"])
        self.assertEqual(r.presses(False), [(768, 324)])  # where the pointer went
        self.assertEqual([a["keys"] for a in r.actions() if a["op"] == "key_up"], ["Shift"])
        self.assertTrue(all(f["response"]["output"].find('"success":true') >= 0
                            for f in responses(reqs[1])))


class SafetyConfirmation(unittest.TestCase):
    def flagged(self, decision="require_confirmation"):
        return [
            {"tool_calls": [call("click_at", safety_decision={
                "decision": decision, "explanation": "Saving over a file"}, **SAVE)]},
            {"text": "over"},
        ]

    def test_unattended_the_run_ends_saying_why_and_nothing_is_clicked(self):
        r, reqs = run_steps(self, self.flagged(), code=7)
        self.assertFalse(clicked_save(r), r.actions())
        self.assertEqual(len(reqs), 1)  # no answer the service would refuse
        self.assertIn("click_at needs a person's confirmation", r.err)
        self.assertIn("Saving over a file", r.err)
        summary = r.summary()
        self.assertEqual(summary["exit_code"], 7)
        self.assertEqual(summary["outcome"], "needs confirmation")
        self.assertIn("Saving over a file", summary["error"])
        self.assertIn("click_at", summary["error"])

    def test_a_person_who_agrees_lets_it_run_and_it_is_acknowledged(self):
        r, reqs = run_steps(self, self.flagged(), "--shell", "confirm", answer="y\n")
        self.assertTrue(clicked_save(r), r.actions())
        fr = responses(reqs[1])[-1]
        self.assertEqual(fr["response"]["safety_acknowledgement"], "true")
        self.assertIn("Saving over a file", r.err)  # the question the person was asked

    def test_a_person_who_declines_stops_the_run(self):
        r, reqs = run_steps(self, self.flagged(), "--shell", "confirm", answer="n\n", code=7)
        self.assertFalse(clicked_save(r), r.actions())
        self.assertEqual(len(reqs), 1)
        self.assertIn("the person declined click_at", r.err)

    def test_a_blocked_action_is_never_performed(self):
        r, reqs = run_steps(self, self.flagged("blocked"), "--shell", "confirm", answer="y\n",
                            code=4)
        self.assertFalse(clicked_save(r), r.actions())
        self.assertEqual(len(reqs), 1)
        self.assertIn("blocked click_at", r.err)
        self.assertNotIn("Run it?", r.err)  # nobody is asked: it cannot be allowed


def items(req, kind):
    return [i for i in req["body"]["input"] if i.get("type") == kind]


class OpenAIComputerUse(unittest.TestCase):
    # the display these tests map is 1280x720: --max-edge 1280 (without it, the model's own
    # limits, 2048 px with a 768 px shorter edge: ModelLimits)
    def run_steps(self, steps, *args, answer=None, code=0):
        return run_steps(self, steps, "--max-edge", "1280", *args, answer=answer, code=code,
                         provider="responses", model="computer-use-preview")

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
        self.assertEqual((tools[0]["display_width"], tools[0]["display_height"]), DISPLAY)
        self.assertEqual([t.get("name") for t in tools[1:]], ["launch", "window_tree", "ask_user", "powershell"])
        self.assertEqual(r.presses(), [(230, 80)])  # the exact pixel
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

    def test_keys_are_held_during_a_click_a_drag_and_a_scroll(self):
        steps = [{"tool_calls": [call("computer", actions=[
            {"type": "click", "button": "left", "x": 400, "y": 300, "keys": ["CTRL"]},
            {"type": "drag", "path": [{"x": 400, "y": 300}, {"x": 500, "y": 300}],
             "keys": ["SHIFT"]},
            {"type": "scroll", "x": 400, "y": 300, "scroll_x": 0, "scroll_y": 100,
             "keys": ["CTRL", "SHIFT"]}])]},
            {"text": "done"}]
        r, _ = self.run_steps(steps)
        ops = [(a["op"], a.get("keys") or a.get("down")) for a in r.actions()
               if a["op"] in ("key_down", "key_up", "mouse_button", "mouse_wheel")]
        self.assertEqual(ops, [("key_down", "Ctrl"), ("mouse_button", True),
                               ("mouse_button", False), ("key_up", "Ctrl"),
                               ("key_down", "Shift"), ("mouse_button", True),
                               ("mouse_button", False), ("key_up", "Shift"),
                               ("key_down", "Ctrl+Shift"), ("mouse_wheel", None),
                               ("mouse_wheel", None), ("key_up", "Ctrl+Shift")])

    CHECK = {"id": "cu_sc_1", "code": "malicious_instructions",
             "message": "The screen holds instructions that look unsafe"}

    def flagged(self):
        return [{"tool_calls": [call("computer", pending_safety_checks=[self.CHECK],
                                     action={"type": "click", "button": "left",
                                             "x": SAVE_PX[0], "y": SAVE_PX[1]})]},
                {"text": "over"}]

    def test_a_safety_check_agreed_to_is_acknowledged(self):
        r, reqs = self.run_steps(self.flagged(), "--shell", "confirm", answer="y\n")
        self.assertTrue(clicked_save(r), r.actions())
        out = items(reqs[1], "computer_call_output")[-1]
        self.assertEqual(out["acknowledged_safety_checks"], [self.CHECK])
        self.assertIn("look unsafe", r.err)  # the question the person was asked

    def test_unattended_a_safety_check_ends_the_run(self):
        r, reqs = self.run_steps(self.flagged(), code=7)
        self.assertFalse(clicked_save(r), r.actions())
        self.assertEqual(len(reqs), 1)
        self.assertIn("click needs a person's confirmation", r.err)
        self.assertIn("look unsafe", r.err)
        self.assertIn("look unsafe", r.summary()["error"])

    def test_a_safety_check_declined_is_not_performed_nor_answered(self):
        r, reqs = self.run_steps(self.flagged(), "--shell", "confirm", answer="n\n", code=7)
        self.assertFalse(clicked_save(r), r.actions())
        self.assertEqual(len(reqs), 1)
        self.assertIn("the person declined click", r.err)


def tool_results(req):
    return [b for m in req["body"]["messages"] if m["role"] == "user"
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def result_text(res):
    return " ".join(b["text"] for b in res["content"] if b["type"] == "text")


class AnthropicComputerUse(unittest.TestCase):
    # the display these tests map is 1280x720: --max-edge 1280 (without it, the model's own
    # limits: ModelLimits)
    def run_steps(self, steps, *args, model="claude-sonnet-4-5", scene=SCENE):
        return run_steps(self, steps, "--max-edge", "1280", *args, provider="anthropic",
                         model=model, scene=scene)

    def test_actions_act_and_tool_results_carry_the_report_and_screenshot(self):
        self.check_actions()

    def test_whole_replies_too(self):
        self.check_actions("--no-stream")

    def test_claude_sonnet_4_6_gets_its_tool_version(self):
        # the strict fake refuses computer_20250124 for this model, as the API does
        steps = [{"tool_calls": [call("computer", action="left_click", coordinate=SAVE_PX)]},
                 {"text": "done"}]
        with fake_llm({"steps": steps}) as fake:
            r = ComputerRun(fake, "--max-edge", "1280", provider="anthropic",
                            model="claude-sonnet-4-6").run()
            reqs = list(fake.requests)
        self.assertEqual(r.code, 0, r.err)
        self.assertEqual([q["response"].get("problems") for q in reqs], [None] * 2)
        self.assertEqual(reqs[0]["body"]["tools"][0],
                         {"type": "computer_20251124", "name": "computer", "enable_zoom": True,
                          "display_width_px": DISPLAY[0], "display_height_px": DISPLAY[1]})
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
        r, reqs = self.run_steps(steps, *args)
        tools = reqs[0]["body"]["tools"]
        self.assertEqual(tools[0], {"type": "computer_20250124", "name": "computer",
                                    "display_width_px": 1280, "display_height_px": 720})
        self.assertEqual([t["name"] for t in tools[1:]], ["launch", "window_tree", "ask_user", "powershell"])
        headers = {k.lower(): v for k, v in reqs[0]["headers"].items()}
        self.assertEqual(headers["anthropic-beta"], "computer-use-2025-01-24")
        self.assertEqual(r.presses(), [(230, 80)])
        self.assertIn({"op": "type_text", "text": "hi"}, r.actions())
        res = tool_results(reqs[1])[-1]
        self.assertEqual([b["type"] for b in res["content"]], ["text", "image"])
        self.assertIn('"success":true', res["content"][0]["text"])
        self.assertEqual(res["content"][1]["source"]["media_type"], "image/png")
        self.assertEqual(len(tool_results(reqs[2])), 3)

    def test_a_4_3_screen_is_one_display_inside_the_limits_and_clicks_land(self):
        """1280x1024 at --max-edge 1280 is 1.31 megapixels: the display is scaled to fit
        1.15, and a click on a window found in it lands within a pixel of its middle,
        whichever window is in front."""
        red = {"hwnd": 4000, "title": "Target", "process": "target.exe", "pid": 40,
               "rect": [700, 500, 760, 560], "foreground": True, "color": "#ff0000"}
        scene = scene_with(monitor=[0, 0, 1280, 1024], window=red)
        steps = [{"tool_calls": [call("computer", action="left_click",
                                      coordinate=["${pixel_x:ff0000}", "${pixel_y:ff0000}"])]},
                 {"tool_calls": [call("computer", action="left_click", coordinate=SAVE_PX)]},
                 {"tool_calls": [call("computer", action="screenshot")]},
                 {"text": "clicked"}]
        r, reqs = self.run_steps(steps, scene=scene)
        os.unlink(scene)
        tool = reqs[0]["body"]["tools"][0]
        display = (tool["display_width_px"], tool["display_height_px"])
        self.assertEqual(display, (1199, 959))
        self.assertLessEqual(display[0] * display[1], 1150000)
        for q in reqs:
            self.assertEqual(set(image_sizes(q)), {display})
        x, y = r.presses()[0]
        self.assertLessEqual(abs(x - 729.5), 3)
        self.assertLessEqual(abs(y - 529.5), 3)

    def test_a_window_image_is_never_sent_beside_the_display(self):
        """window_tree of a window whose tree cannot be read gets no image of the window:
        the model's only images are of its display."""
        red = {"hwnd": 4000, "title": "Target", "process": "target.exe", "pid": 40,
               "rect": [700, 500, 760, 560], "foreground": True, "color": "#ff0000"}
        scene = scene_with(window=red)
        steps = [{"tool_calls": [call("window_tree")]}, {"text": "no tree"}]
        r, reqs = self.run_steps(steps, scene=scene)
        os.unlink(scene)
        res = tool_results(reqs[1])[-1]
        self.assertIn("no tree could be read", json.dumps(res))
        self.assertEqual(set(image_sizes(reqs[1])), {DISPLAY})

    def test_the_actions_of_each_version(self):
        steps = [
            {"tool_calls": [call("computer", action="mouse_move", coordinate=[300, 200]),
                            call("computer", action="cursor_position")]},
            {"tool_calls": [call("computer", action="left_click", text="shift"),
                            call("computer", action="triple_click", coordinate=[310, 200]),
                            call("computer", action="left_mouse_down"),
                            call("computer", action="mouse_move", coordinate=[400, 200]),
                            call("computer", action="left_mouse_up"),
                            call("computer", action="hold_key", text="ctrl", duration=0.1),
                            call("computer", action="scroll", scroll_direction="down",
                                 scroll_amount=2, text="ctrl"),
                            call("computer", action="zoom", region=[0, 0, 320, 180])]},
            {"text": "done"},
        ]
        r, reqs = self.run_steps(steps, model="claude-opus-4-5")
        tool = reqs[0]["body"]["tools"][0]
        self.assertEqual(tool["type"], "computer_20251124")
        self.assertIs(tool["enable_zoom"], True)
        moved, pointer = tool_results(reqs[1])[-2:]
        self.assertIn("X=300,Y=200", result_text(pointer))
        res = tool_results(reqs[2])[-8:]
        self.assertTrue(all('"success":true' in result_text(b) for b in res), res)
        # a click without a coordinate where the pointer is, shift held
        acts = [a for a in r.actions() if a["op"] != "capture_screen"]
        ops = [a["op"] for a in acts]
        first = ops.index("key_down")
        self.assertEqual(acts[first]["keys"], "Shift")
        self.assertEqual(ops[first + 1:first + 5],
                         ["mouse_move", "mouse_button", "mouse_button", "key_up"])
        self.assertEqual((acts[first + 2]["x"], acts[first + 2]["y"]), (450, 300))
        # a triple click, then a press where the pointer is and a release 135 px on
        self.assertEqual(r.presses()[1:5], [(465, 300)] * 4)
        self.assertEqual(r.presses(False)[1:5], [(465, 300)] * 3 + [(600, 300)])
        held = [(a["op"], a["keys"]) for a in acts if a["op"] in ("key_down", "key_up")]
        self.assertEqual(held, [("key_down", "Shift"), ("key_up", "Shift"), ("key_down", "Ctrl"),
                                ("key_up", "Ctrl"), ("key_down", "Ctrl"), ("key_up", "Ctrl")])
        self.assertEqual(len([a for a in acts if a["op"] == "mouse_wheel"]), 2)
        # the zoom: the region's image at the screen's own resolution
        zoom = res[-1]
        sizes = [computer_rules.png_size(b["source"]["data"]) for b in zoom["content"]
                 if b["type"] == "image"]
        self.assertEqual(sizes, [(480, 270)])


if __name__ == "__main__":
    watest.main()
