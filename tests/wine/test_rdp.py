"""`winagent serve --ipc-dir` driven the way agent-rdp's daemon drives its automation
folder, by a client written from that protocol alone: requests pretty-printed to
requests/req_<id>.json through a .tmp file and a rename, responses/res_<id>.json polled
every 50 ms and deleted once read. What testapp received is checked from its own log."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import uuid

import watest
from watest import TestApp, WINAGENT_EXE, win_path

WINDOW = "winagent testapp"
COMMANDS = ["snapshot", "get", "focus", "click", "right_click", "double_click", "fill",
            "clear", "select", "check", "scroll", "window", "run", "wait_for", "status",
            "invoke", "toggle", "expand", "collapse", "context_menu"]
ELEMENT_KEYS = {"ref", "role", "name", "automation_id", "class_name", "bounds", "states",
                "value", "patterns", "children"}


class Daemon:
    """The daemon's side of the folder."""

    def __init__(self, root):
        self.root = root
        self.requests = os.path.join(root, "requests")
        self.responses = os.path.join(root, "responses")

    def handshake(self, timeout=30):
        path = os.path.join(self.root, "handshake.json")
        delay, deadline = 0.5, time.time() + timeout
        while time.time() < deadline:  # the daemon's backoff
            if os.path.exists(path):
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8-sig")
                try:
                    h = json.loads(text)
                    if h.get("ready"):
                        return h
                except ValueError:
                    pass
            time.sleep(delay)
            delay = min(delay * 1.5, 5)
        raise AssertionError("no handshake in %s" % self.root)

    def send(self, command, params=None, timeout=30):
        rid = uuid.uuid4().hex[:8]
        body = json.dumps({"id": rid, "command": command, "params": params or {}}, indent=2)
        tmp = os.path.join(self.requests, "req_%s.json.tmp" % rid)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(body)
        os.replace(tmp, os.path.join(self.requests, "req_%s.json" % rid))
        res_path = os.path.join(self.responses, "res_%s.json" % rid)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if os.path.exists(res_path):
                with open(res_path, "rb") as f:
                    text = f.read().decode("utf-8-sig")
                try:
                    res = json.loads(text)
                except ValueError:  # still being written: the daemon retries
                    time.sleep(0.1)
                    continue
                os.remove(res_path)
                assert res["id"] == rid, res
                assert set(res) >= {"id", "timestamp", "success", "data", "error"}, res
                return res
            time.sleep(0.05)
        raise AssertionError("no response to %s %s" % (command, params))


def walk(node):
    yield node
    for c in node.get("children", []):
        yield from walk(c)


def events(app, kind, **match):
    return [e for e in app.events() if e.get("event") == kind and
            all(e.get(k) == v for k, v in match.items())]


class AgentRdpDaemon(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix="wa-rdp-")
        self.root = os.path.join(self.base, "automation-" + uuid.uuid4().hex)
        os.makedirs(self.root)
        self.state = tempfile.mkdtemp(prefix="wa-rdp-state-")
        self.server = subprocess.Popen(
            ["wine", WINAGENT_EXE, "serve", "--ipc-dir", win_path(self.root)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=dict(os.environ, WINAGENT_STATE_DIR=win_path(self.state)))
        self.d = Daemon(self.root)
        self.hs = self.d.handshake()

    def tearDown(self):
        self.server.kill()
        self.server.wait(10)
        self.server.stderr.close()
        shutil.rmtree(self.base, ignore_errors=True)
        shutil.rmtree(self.state, ignore_errors=True)

    def test_handshake_and_status(self):
        for key in ("version", "agent_pid", "started_at", "capabilities", "ready"):
            self.assertIn(key, self.hs)
        for c in COMMANDS:
            self.assertIn(c, self.hs["capabilities"])
        res = self.d.send("status")
        self.assertTrue(res["success"], res)
        data = res["data"]
        self.assertTrue(data["agent_running"])
        self.assertEqual(data["agent_pid"], self.hs["agent_pid"])
        self.assertEqual(sorted(data["capabilities"]), sorted(COMMANDS))
        self.assertTrue(data["version"])
        res = self.d.send("teleport")
        self.assertFalse(res["success"])
        self.assertIsNone(res["data"])
        self.assertEqual(res["error"]["code"], "unknown")

    def test_snapshot_click_fill_get_window_list(self):
        with TestApp() as app:
            res = self.d.send("snapshot", {"include_refs": True, "scope": "desktop",
                                           "max_depth": 10})
            self.assertTrue(res["success"], res)
            snap = res["data"]
            self.assertTrue(snap["snapshot_id"])
            root = snap["root"]
            self.assertEqual(root["role"], "Desktop")
            self.assertEqual(root["ref"], 1)
            nodes = list(walk(root))
            self.assertEqual(snap["ref_count"], len(nodes))
            self.assertEqual([n["ref"] for n in nodes],
                             list(range(1, len(nodes) + 1)))  # depth first
            for n in nodes:
                self.assertEqual(set(n), ELEMENT_KEYS, n)
                self.assertEqual(set(n["bounds"]), {"x", "y", "width", "height"})
            win = [n for n in root["children"] if n["name"] == WINDOW]
            self.assertEqual(len(win), 1, [n["name"] for n in root["children"]])
            ok = next(n for n in walk(win[0]) if n["role"] == "Button" and n["name"] == "OK")
            edit = next(n for n in walk(win[0]) if n["role"] == "Edit")
            box = next(n for n in walk(win[0]) if n["name"] == "Enable feature")
            self.assertGreater(ok["bounds"]["width"], 0)

            res = self.d.send("click", {"selector": "@e%d" % ok["ref"], "button": "left",
                                        "double": False})
            self.assertTrue(res["success"], res)
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")

            res = self.d.send("fill", {"selector": "@e%d" % edit["ref"], "text": "from the daemon"})
            self.assertTrue(res["success"], res)
            app.wait_event(lambda e: e.get("event") == "text_changed"
                           and e.get("text") == "from the daemon")
            res = self.d.send("get", {"selector": "@e%d" % edit["ref"], "property": "value"})
            self.assertTrue(res["success"], res)
            self.assertEqual(res["data"], {"value": "from the daemon"})  # that property alone
            res = self.d.send("get", {"selector": "@e%d" % edit["ref"]})
            self.assertTrue(set(res["data"]) >= {"name", "value", "states", "bounds"}, res)

            # the same ref without its "e", and selectors searched on the whole desktop
            res = self.d.send("check", {"selector": "@%d" % box["ref"]})
            self.assertTrue(res["success"], res)
            self.assertTrue(res["data"]["checked"])
            res = self.d.send("check", {"selector": "~Enable*"})  # already checked: nothing
            self.assertTrue(res["success"], res)
            self.assertFalse(res["data"]["changed"])
            self.assertEqual([e["checked"] for e in events(app, "checkbox")], [True])
            res = self.d.send("click", {"selector": "role:Button[Apply]"})
            self.assertTrue(res["success"], res)
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "Apply")

            res = self.d.send("window", {"action": "list"})
            self.assertTrue(res["success"], res)
            mine = [w for w in res["data"]["windows"] if w["title"] == WINDOW]
            self.assertEqual(len(mine), 1, res["data"])
            w = mine[0]
            self.assertEqual(w["process_name"].lower(), "testapp.exe")
            self.assertIsInstance(w["process_id"], int)
            self.assertFalse(w["minimized"])
            self.assertGreater(w["bounds"]["width"], 800)

            res = self.d.send("wait_for", {"selector": "OK", "state": "visible",
                                           "timeout_ms": 5000})
            self.assertTrue(res["success"], res)
            res = self.d.send("wait_for", {"selector": "#nothing-like-it", "timeout_ms": 600})
            self.assertEqual(res["error"]["code"], "timeout", res)

    def test_depth_properties_and_a_closed_windows_refs(self):
        with TestApp() as app:
            res = self.d.send("snapshot", {"scope": "desktop", "max_depth": 0})
            self.assertTrue(res["success"], res)
            self.assertEqual(res["data"]["root"]["children"], [])
            self.assertEqual(res["data"]["ref_count"], 1)
            res = self.d.send("snapshot", {"scope": "desktop", "max_depth": 1})
            wins = res["data"]["root"]["children"]
            self.assertIn(WINDOW, [w["name"] for w in wins])
            self.assertEqual([w["children"] for w in wins], [[] for _ in wins])
            self.assertEqual(res["data"]["ref_count"], 1 + len(wins))
            res = self.d.send("snapshot", {"scope": "window", "window": WINDOW, "max_depth": 1})
            root = res["data"]["root"]
            self.assertEqual(root["name"], WINDOW)
            self.assertTrue(root["children"], root)
            self.assertEqual([c["children"] for c in root["children"]],
                             [[] for _ in root["children"]])
            full = self.d.send("snapshot", {"scope": "window", "window": WINDOW})["data"]
            self.assertGreater(full["ref_count"], res["data"]["ref_count"])

            ok = next(n for n in walk(full["root"]) if n["name"] == "OK")
            res = self.d.send("get", {"selector": "@%d" % ok["ref"], "property": "states"})
            self.assertEqual(list(res["data"]), ["states"], res)
            self.assertIn("focusable", res["data"]["states"])
            res = self.d.send("get", {"selector": "@%d" % ok["ref"], "property": "size"})
            self.assertEqual(res["error"]["code"], "command_failed", res)
            self.assertIn("property", res["error"]["message"])
            # the role is a control type, in any case, as the daemon's clients write it
            res = self.d.send("click", {"selector": "role:button[OK]"})
            self.assertTrue(res["success"], res)
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")

            app.kill()
            deadline = time.time() + 10
            while time.time() < deadline and WINDOW in [
                    w["title"] for w in self.d.send("window")["data"]["windows"]]:
                time.sleep(0.2)
            res = self.d.send("click", {"selector": "@e%d" % ok["ref"]})
            self.assertFalse(res["success"])
            self.assertEqual(res["error"]["code"], "stale_ref", res)
            res = self.d.send("click", {"selector": "role:Button[OK]"})
            self.assertEqual(res["error"]["code"], "element_not_found", res)

    def test_errors_in_the_daemons_words(self):
        with TestApp() as app:
            res = self.d.send("click", {"selector": "@e99999"})
            self.assertFalse(res["success"])
            self.assertEqual(res["error"]["code"], "stale_ref")
            res = self.d.send("click", {"selector": "#no-such-automation-id"})
            self.assertEqual(res["error"]["code"], "element_not_found")
            self.assertIn("#no-such-automation-id", res["error"]["message"])
            # run obeys the shell permission: without --allow-shell nothing runs
            marker = os.path.join(self.base, "ran.txt")
            res = self.d.send("run", {"command": "cmd.exe",
                                      "args": ["/c", "echo ran > " + win_path(marker)],
                                      "wait": True, "hidden": True})
            self.assertFalse(res["success"], res)
            self.assertEqual(res["error"]["code"], "command_failed")
            self.assertIn("shell", res["error"]["message"])
            time.sleep(1)
            self.assertFalse(os.path.exists(marker))
            self.assertEqual(events(app, "click"), [])


class AgentRdpWithShell(unittest.TestCase):
    def test_run_with_the_shell_permission(self):
        base = tempfile.mkdtemp(prefix="wa-rdp-")
        root = os.path.join(base, "automation-x")
        os.makedirs(root)
        server = subprocess.Popen(
            ["wine", WINAGENT_EXE, "serve", "--ipc-dir", win_path(root), "--allow-shell"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=dict(os.environ, WINAGENT_SHELL="cmd.exe /c"))
        try:
            d = Daemon(root)
            d.handshake()
            res = d.send("run", {"command": "echo", "args": ["hello", "rdp"], "wait": True})
            self.assertTrue(res["success"], res)
            self.assertEqual(res["data"]["exit_code"], 0)
            self.assertIn("hello rdp", res["data"]["stdout"])
        finally:
            server.kill()
            server.wait(10)
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    watest.main()
