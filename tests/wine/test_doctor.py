"""`winagent doctor` of the real winagent.exe under Wine: every section with a verdict,
the facts as Wine gives them (its version, the session, the integrity level, per-monitor
DPI awareness, the Xvfb screen as one monitor, no UAC), UI Automation missing and then
reachable through the scripted client (tests/uia_fake), and a real request from the exe
to the fake model server; the key never shown. Wine 8 answers as Windows 7 unless its
prefix says otherwise, runs programs elevated (high integrity) and cannot tell UIAccess:
doctor says so, as warnings, with no problem."""
import json
import unittest

import uiafake
import watest
from watest import fake_llm

KEY = "sk-wine-doctor-SECRET-0c77a1"
SECTIONS = ("windows", "session", "integrity", "uiaccess", "dpi", "monitors", "uac",
            "ui_automation", "model", "model_server")


def doctor(fake, *args, env=None):
    full = {"LLM_PROVIDER": "openai-compatible", "LLM_BASE_URL": fake.url + "/v1",
            "LLM_MODEL": "fake-model", "LLM_API_KEY": KEY}
    full.update(env or {})
    r = watest.run_winagent("doctor", *args, env=full, timeout=120)
    return r


class WineDoctor(unittest.TestCase):
    def test_every_section_has_a_verdict(self):
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            r = doctor(fake)
            self.assertEqual(len(fake.requests), 1, "one real request to the model server")
            self.assertEqual(fake.requests[0]["headers"].get("Authorization"), "Bearer " + KEY)
        out = r.stdout
        self.assertNotIn(KEY, out + r.stderr)
        self.assertEqual(r.returncode, 0, out + r.stderr)
        for section in SECTIONS:
            self.assertRegex(out, r"(?m)^(ok|warning|problem) +%s +\S" % section)
        self.assertRegex(out, r"(?m)^ok +windows +Wine \d+\.\d+.*, answering as .* "
                              r"\d+\.\d+\.\d+")
        self.assertRegex(out, r"(?m)^ok +session +session [1-9]\d*")
        self.assertRegex(out, r"(?m)^warning +integrity +high integrity, elevated: the programs "
                              r"it starts")
        self.assertRegex(out, r"(?m)^warning +uiaccess +UIAccess cannot be read")
        self.assertRegex(out, r"(?m)^ok +dpi +per-monitor aware")
        self.assertRegex(out, r"(?m)^ok +monitors +monitor 1 \(primary\): \[0,0\]\[\d+,\d+\], "
                              r"work area \[0,0\]\[\d+,\d+\], scale 100 % \(96 dpi\)")
        self.assertRegex(out, r"(?m)^ok +uac +Wine shows no UAC prompts")
        self.assertRegex(out, r"(?m)^warning +ui_automation +not reachable: "
                              r"CoCreateInstance\(CUIAutomation\) failed: HRESULT 0x80040154 "
                              r"\(class not registered\)")
        self.assertRegex(out, r"(?m)^ +-> trees then come from MSAA")
        self.assertRegex(out, r"(?m)^ok +model_server +answered in [0-9.]+ s \(HTTP 200\)")
        self.assertRegex(out, r"(?m)^\d+ ok, \d+ warnings?, 0 problems$")

    def test_json_facts_match_wine(self):
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            r = doctor(fake, "--json")
        self.assertNotIn(KEY, r.stdout + r.stderr)
        report = json.loads(r.stdout)
        s = report["system"]
        self.assertRegex(s["wine"], r"^\d+\.\d+")
        self.assertGreaterEqual(s["version"][0], 6)
        self.assertGreater(s["session"], 0)
        self.assertEqual((s["integrity"], s["elevated"]), (0x3000, 1))
        self.assertIn(s["dpi_awareness"], ("per_monitor", "per_monitor_v2"))
        self.assertGreaterEqual(len(s["monitors"]), 1)
        self.assertEqual(s["monitors"][0]["rect"][:2], [0, 0])
        self.assertTrue(s["monitors"][0]["primary"])
        self.assertEqual(s["uia"], 0)
        sections = {c["section"] for c in report["checks"]}
        self.assertEqual(sections, set(SECTIONS))

    def test_ui_automation_is_reachable_where_a_client_is_registered(self):
        with testapp_scene() as scene, fake_llm({"steps": [{"text": "ok"}]}) as fake:
            r = doctor(fake, env=scene.env())
            calls = scene.calls()
        self.assertRegex(r.stdout, r"(?m)^ok +ui_automation +reachable: CUIAutomation answers")
        self.assertTrue(any(c["call"] == "CreateInstance" for c in calls), calls)

    def test_a_server_that_is_down_is_a_problem(self):
        with fake_llm({"steps": [{"text": "ok"}]}) as fake:
            url = fake.url
        r = watest.run_winagent("doctor", env={"LLM_BASE_URL": url + "/v1",
                                               "LLM_MODEL": "fake-model", "LLM_API_KEY": KEY},
                                timeout=120)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stdout, r"(?m)^problem +model_server +no answer: network_error")
        self.assertNotIn(KEY, r.stdout + r.stderr)


class testapp_scene:
    """uia_fake registered, with a scene over a running testapp window."""

    def __enter__(self):
        uiafake.register()
        self.app = watest.TestApp().__enter__()
        self.scene = uiafake.win32_scene(self.app)
        return self.scene

    def __exit__(self, *exc):
        self.app.__exit__(*exc)
        uiafake.unregister()


if __name__ == "__main__":
    watest.main()
