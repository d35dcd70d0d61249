"""`winagent doctor` on the fake desktop: scenes of a healthy machine and of one with
session 0, two monitors at different scales and UAC's prompt on the secure desktop; the
model's settings and a real request to the fake model server (its answer, a refused key,
no server, incomplete settings); text and JSON; the key never shown."""
import json
import os
import socket
import subprocess
import tempfile
import unittest

import watest
from watest import fake_llm

EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")
KEY = "sk-doctor-SECRET-51d2e0"

HEALTHY = {
    "monitors": [{"rect": [0, 0, 1920, 1080], "work": [0, 0, 1920, 1040], "primary": True,
                  "dpi": 96}],
    "windows": [],
    "system": {"product": "Windows 11 Pro", "release": "23H2", "version": [10, 0, 22631, 3007],
               "session": 1, "console_session": 1, "remote": False, "elevated": False,
               "uiaccess": False, "dpi_awareness": "per_monitor_v2",
               "uac": {"EnableLUA": 1, "ConsentPromptBehaviorAdmin": 5,
                       "PromptOnSecureDesktop": 0},
               "uia": True},
}

# Session 0, a second monitor left of the primary at 150 %, UAC's prompt on the secure
# desktop (Windows' defaults), and UI Automation missing.
WARNINGS = {
    "monitors": [{"rect": [0, 0, 1920, 1080], "work": [0, 0, 1920, 1040], "primary": True,
                  "dpi": 96},
                 {"rect": [-2880, -200, 0, 1420], "work": [-2880, -200, 0, 1372], "dpi": 144}],
    "windows": [],
    "system": {"product": "Windows 10 Pro", "release": "22H2", "version": [10, 0, 19045, 3803],
               "session": 0, "console_session": 1, "elevated": False, "uiaccess": False,
               "dpi_awareness": "per_monitor_v2",
               "uac": {"EnableLUA": 1, "ConsentPromptBehaviorAdmin": 5,
                       "PromptOnSecureDesktop": 1},
               "uia": "CoCreateInstance(CUIAutomation) failed: HRESULT 0x80040154"},
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Doctor(unittest.TestCase):
    def run_doctor(self, scene, *args, base_url=None, model="fake-model", key=KEY):
        tmp = tempfile.mkdtemp(prefix="wa-doctor-")
        path = os.path.join(tmp, "scene.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(scene, f)
        env = dict(os.environ, WINAGENT_FAKE_SCENE=path, LLM_PROVIDER="openai-compatible")
        for k in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
            env.pop(k, None)
        if base_url:
            env["LLM_BASE_URL"] = base_url
        if model:
            env["LLM_MODEL"] = model
        if key:
            env["LLM_API_KEY"] = key
        p = subprocess.run([EXE, "doctor", *args], capture_output=True, text=True, env=env,
                           cwd=tmp, timeout=120, stdin=subprocess.DEVNULL)
        self.assertNotIn(KEY, p.stdout + p.stderr)
        self.assertNotIn(KEY[-6:], p.stdout + p.stderr)
        return p

    def doctor_json(self, scene, **kw):
        p = self.run_doctor(scene, "--json", **kw)
        report = json.loads(p.stdout)
        lines = {}
        for c in report["checks"]:
            self.assertIn(c["verdict"], ("ok", "warning", "problem"))
            lines.setdefault(c["section"], []).append(c)
        return p, report, lines

    def test_a_healthy_machine_is_all_ok_and_its_server_answers(self):
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            p = self.run_doctor(HEALTHY, base_url=fake.url + "/v1")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertEqual(len(fake.requests), 1)
            req = fake.requests[0]
            self.assertEqual(req["response"].get("kind"), "reply", req["response"])
            self.assertEqual(req["headers"].get("Authorization"), "Bearer " + KEY)
        out = p.stdout
        for section in ("windows", "session", "integrity", "uiaccess", "dpi", "monitors", "uac",
                        "ui_automation", "model", "model_server"):
            self.assertRegex(out, r"(?m)^(ok|warning|problem) +%s " % section)
        self.assertNotRegex(out, r"(?m)^(warning|problem) ")
        self.assertIn("Windows 11 Pro 23H2 (10.0.22631.3007)", out)
        self.assertIn("monitor 1 (primary): [0,0][1920,1080], work area [0,0][1920,1040], "
                      "scale 100 %", out)
        self.assertRegex(out, r"model_server +answered in [0-9.]+ s \(HTTP 200\): \"ok\"")
        self.assertIn("key set (environment LLM_API_KEY)", out)
        self.assertRegex(out, r"(?m)^\d+ ok, 0 warnings, 0 problems$")

    def test_session_0_two_scales_and_the_secure_desktop_are_named(self):
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            p = self.run_doctor(WARNINGS, base_url=fake.url + "/v1")
        self.assertEqual(p.returncode, 1, "a problem (session 0) makes the exit code 1")
        out = p.stdout
        self.assertRegex(out, r"(?m)^problem +session +session 0, the services' session")
        self.assertRegex(out, r"(?m)^ +-> run winagent in the signed-in user's session")
        self.assertRegex(out, r"(?m)^warning +monitors +monitors at different scales "
                              r"\(100 %, 150 %\)")
        self.assertIn("monitor 2: [-2880,-200][0,1420], work area [-2880,-200][0,1372], "
                      "scale 150 % (144 dpi)", out)
        self.assertRegex(out, r"(?m)^warning +uac +UAC prompts appear on the secure desktop")
        self.assertIn("PromptOnSecureDesktop 1", out)
        self.assertRegex(out, r"(?m)^warning +ui_automation +not reachable: "
                              r"CoCreateInstance\(CUIAutomation\) failed")

    def test_json_holds_every_check_and_the_facts(self):
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            p, report, lines = self.doctor_json(WARNINGS, base_url=fake.url + "/v1")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(lines["session"][0]["verdict"], "problem")
        self.assertIn("advice", lines["session"][0])
        self.assertEqual([c["verdict"] for c in lines["monitors"]], ["ok", "ok", "warning"])
        self.assertEqual(lines["uac"][0]["verdict"], "warning")
        self.assertEqual(lines["model_server"][0]["verdict"], "ok")
        sys_ = report["system"]
        self.assertEqual(sys_["session"], 0)
        self.assertEqual(sys_["uac"], {"EnableLUA": 1, "ConsentPromptBehaviorAdmin": 5,
                                       "PromptOnSecureDesktop": 1})
        self.assertEqual([m["scale_percent"] for m in sys_["monitors"]], [100, 150])
        self.assertEqual(sys_["monitors"][1]["work"], [-2880, -200, 0, 1372])
        self.assertEqual(report["summary"]["problem"], 1)
        self.assertEqual(sum(report["summary"].values()), len(report["checks"]))

    def test_the_secure_desktop_up_now_is_a_warning(self):
        scene = dict(HEALTHY, secure_desktop=True)
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            p = self.run_doctor(scene, base_url=fake.url + "/v1")
        self.assertRegex(p.stdout, r"(?m)^warning +session +the secure desktop has the input")

    def test_a_refused_key_is_a_problem_that_names_the_key_setting(self):
        with fake_llm({"steps": [{"status": 401}]}) as fake:
            p = self.run_doctor(HEALTHY, base_url=fake.url + "/v1")
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"(?m)^problem +model_server +answered HTTP 401")
        self.assertIn("-> check LLM_API_KEY", p.stdout)

    def test_no_server_is_a_problem(self):
        p = self.run_doctor(HEALTHY, base_url="http://127.0.0.1:%d/v1" % free_port())
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"(?m)^problem +model_server +no answer: network_error")
        self.assertIn("-> check LLM_BASE_URL", p.stdout)

    def test_incomplete_settings_are_named_and_no_request_is_made(self):
        p = self.run_doctor(HEALTHY, model=None, key=None,
                            base_url="http://127.0.0.1:%d/v1" % free_port())
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"(?m)^problem +model +no model \(LLM_MODEL\)")
        self.assertRegex(p.stdout, r"(?m)^problem +model_server +not asked")

    def test_unknown_facts_are_warnings_not_guesses(self):
        scene = {"monitors": [{"rect": [0, 0, 800, 600], "primary": True}], "windows": []}
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            p, report, lines = self.doctor_json(scene, base_url=fake.url + "/v1")
        self.assertEqual(lines["windows"][0]["verdict"], "warning")
        self.assertEqual(lines["dpi"][0]["verdict"], "warning")
        self.assertEqual(report["system"]["session"], -1)

    def test_arguments_are_refused(self):
        p = self.run_doctor(HEALTHY, "now")
        self.assertEqual(p.returncode, 1)
        self.assertIn("doctor takes no arguments", p.stderr)


if __name__ == "__main__":
    watest.main()
