"""The security gate under Wine, through MCP, serve and the CLI: restricted processes are
refused, the rate limit holds, dry-run touches nothing, and the audit log records every
action without the text that was typed."""
import json
import os
import subprocess
import tempfile
import time
import unittest

import watest
from watest import TestApp, WINAGENT_EXE

STATE = watest.Cli("wa-gate-state-")
WINDOW = "winagent testapp"


def server_env(**extra):
    """STATE's environment with no gate setting inherited from ours, and with extra."""
    env = STATE.env()
    for k in ("WINAGENT_RESTRICTED", "WINAGENT_MAX_ACTIONS_PER_S", "WINAGENT_AUDIT_LOG"):
        env.pop(k, None)
    env.update(extra)
    return env


class McpSession(watest.McpSession):
    def __init__(self, *args, env=None):
        super().__init__(*args, env=env or server_env())

    def ref(self, kind, name, window=WINDOW):
        return super().ref(kind, name, window)


def clicks_on(app, control):
    return [e for e in app.events() if e.get("event") == "click" and e.get("control") == control]


class Gate(unittest.TestCase):
    def test_restricted_process_is_refused(self):
        with TestApp() as app:
            s = McpSession()
            ok = s.ref("Button", "OK")  # refs taken while testapp is not restricted
            self.assertEqual(s.close(), 0)
            env = server_env(WINAGENT_RESTRICTED="notepad.exe, TESTAPP.exe")
            s = McpSession(env=env)
            # Observing it is refused too: a password manager's tree shows its secrets. A
            # selector sees only what the gate allows: the restricted window answers as a
            # missing one does, word for word.
            j, res = s.call("state", window=WINDOW)
            self.assertTrue(res["isError"])
            self.assertEqual(j["error"]["code"], "window_not_found")
            self.assertNotIn("image", [c["type"] for c in res["content"]])
            gone, _ = s.call("state", window="winagent testapX")
            self.assertEqual(j["error"]["message"].replace(WINDOW, "W"),
                             gone["error"]["message"].replace("winagent testapX", "W"))
            j, _ = s.call("windows")
            self.assertNotIn("testapp.exe", [w["process"] for w in j["data"]["windows"]])
            j, res = s.call("click", window=WINDOW, ref=ok)
            self.assertTrue(res["isError"])
            self.assertEqual(j["error"]["code"], "window_not_found")
            self.assertNotIn("testapp.exe", j["error"]["message"])
            self.assertNotIn("image", [c["type"] for c in res["content"]])
            j, res = s.call("type", window=WINDOW, text="nope")
            self.assertEqual(j["error"]["code"], "window_not_found")
            # In front, the input it would receive is refused, saying why.
            j, res = s.call("type", text="nope")
            self.assertEqual(j["error"]["code"], "denied", j)
            self.assertIn("restricted", j["error"]["message"])
            self.assertEqual(s.close(), 0)

            # The CLI goes through the same gate.
            r = subprocess.run(["wine", WINAGENT_EXE, "click", ok, "--window", WINDOW],
                               capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL, env=env)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("window_not_found", r.stderr)
            self.assertNotIn("testapp.exe", r.stderr)

            time.sleep(1.0)
            self.assertEqual(clicks_on(app, "OK"), [])
            self.assertFalse([e for e in app.events() if e.get("event") == "char"])

    def test_rate_limit_holds(self):
        with TestApp():
            audit = os.path.join(tempfile.mkdtemp(prefix="wa-gate-"), "audit.jsonl")
            s = McpSession("--audit-log", watest.win_path(audit),
                           env=server_env(WINAGENT_MAX_ACTIONS_PER_S="2"))
            t0 = time.monotonic()
            results = [s.call("focus", window=WINDOW, screenshot=False)[0] for _ in range(6)]
            elapsed = time.monotonic() - t0
            self.assertEqual(s.close(), 0)
            # Two at once from a full bucket, then one every 500 ms: waited, not refused.
            self.assertTrue(all(r["success"] for r in results), results)
            self.assertGreaterEqual(elapsed, 1.8)
            with open(audit, encoding="utf-8") as f:
                lines = [json.loads(l) for l in f]
            self.assertEqual([l["command"] for l in lines], ["focus"] * 6)

            # Slower than one a second: the next slot is too far away to wait for.
            s = McpSession(env=server_env(WINAGENT_MAX_ACTIONS_PER_S="0.5"))
            first, _ = s.call("focus", window=WINDOW, screenshot=False)
            second, res = s.call("focus", window=WINDOW, screenshot=False)
            self.assertEqual(s.close(), 0)
            self.assertTrue(first["success"], first)
            self.assertTrue(res["isError"])
            self.assertEqual(second["error"]["code"], "denied")
            self.assertIn("rate limit of 0.5 actions per second exceeded",
                          second["error"]["message"])

    def test_dry_run_touches_nothing(self):
        with TestApp() as app:
            s = McpSession("--dry-run")
            ok = s.ref("Button", "OK")
            edit = s.ref("Edit", "Name:")
            j, res = s.call("click", window=WINDOW, ref=ok)
            self.assertFalse(res["isError"], j)
            self.assertTrue(j["dry_run"])
            j, _ = s.call("fill", window=WINDOW, ref=edit, text="dry")
            self.assertTrue(j["success"], j)
            j, _ = s.call("keys", window=WINDOW, keys="ctrl+s")
            self.assertTrue(j["success"], j)
            self.assertEqual(s.close(), 0)
            time.sleep(1.0)
            self.assertEqual(clicks_on(app, "OK"), [])
            touched = [e for e in app.events()
                       if e.get("event") in ("char", "key", "text_changed", "accelerator")]
            self.assertEqual(touched, [])

    def test_audit_log_records_each_action_without_secrets(self):
        secret = "s3cret-hunter2"
        audit = os.path.join(tempfile.mkdtemp(prefix="wa-gate-"), "audit.jsonl")
        with TestApp() as app:
            s = McpSession("--audit-log", watest.win_path(audit))
            ok = s.ref("Button", "OK")
            edit = s.ref("Edit", "Name:")
            s.call("click", window=WINDOW, ref=ok, screenshot=False)
            s.call("fill", window=WINDOW, ref=edit, text=secret, screenshot=False)
            s.call("keys", window=WINDOW, keys="ctrl+a", screenshot=False)
            s.call("click", window=WINDOW, ref="e9999", screenshot=False)  # fails
            self.assertEqual(s.close(), 0)
            app.wait_event(lambda e: e.get("event") == "text_changed" and e.get("text") == secret)
        with open(audit, "rb") as f:
            raw = f.read()
        self.assertNotIn(secret.encode(), raw)
        lines = [json.loads(l) for l in raw.decode("utf-8").splitlines()]
        # One line per acting call, none for state (which only reads).
        self.assertEqual([l["command"] for l in lines], ["click", "fill", "keys", "click"])
        self.assertEqual([l["outcome"] for l in lines], ["ok", "ok", "ok", "stale_ref"])
        for l in lines:
            self.assertRegex(l["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
            self.assertIsInstance(l["pid"], int)
        for l in lines[:3]:
            self.assertRegex(l["window"], r"^0x[0-9a-f]+$")
            self.assertEqual(l["process"], "testapp.exe")
            self.assertIsNone(l["error"])
        self.assertEqual(lines[1]["params"]["text"], {"length": len(secret)})
        self.assertEqual(lines[2]["params"]["keys"], "ctrl+a")
        self.assertIn("9999", lines[3]["error"])


if __name__ == "__main__":
    watest.main()
