"""`winagent serve` under Wine: the shared-folder file protocol (as over an RDP drive
redirection; here a Linux folder seen through Wine's Z: drive) and loopback TCP with its
token, driven by test controllers written here."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest

import watest
from watest import TestApp, WINAGENT_EXE

server_env = watest.Cli("wa-serve-state-").env
WINDOW = "winagent testapp"


def wait_for(pred, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


class IpcController:
    """The controller's side of the folder protocol."""

    def __init__(self, root):
        self.root = root
        self.requests = os.path.join(root, "requests")
        self.responses = os.path.join(root, "responses")

    def request_path(self, rid):
        return os.path.join(self.requests, "req_%s.json" % rid)

    def write(self, rid, command, params=None, bom=False):
        body = json.dumps({"id": rid, "command": command, "params": params or {}})
        data = (b"\xef\xbb\xbf" if bom else b"") + body.encode()
        # Atomic, as a careful controller does: the server ignores the temporary name.
        tmp = self.request_path(rid) + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, self.request_path(rid))

    def response(self, rid, timeout=30):
        path = os.path.join(self.responses, "res_%s.json" % rid)
        wait_for(lambda: os.path.exists(path), timeout, "res_%s.json" % rid)
        with open(path, "rb") as f:
            raw = f.read()
        os.remove(path)
        return json.loads(raw.decode("utf-8"))

    def call(self, rid, command, params=None, **kw):
        self.write(rid, command, params, **kw)
        return self.response(rid)


class FolderAccess(unittest.TestCase):
    def test_a_folder_others_may_write_is_refused_and_one_gets_a_token_kept_outside(self):
        base = tempfile.mkdtemp(prefix="wa-ipc-")
        try:
            os.chmod(base, 0o777)  # under Wine: an ACL that lets Everyone write
            r = subprocess.run(["wine", WINAGENT_EXE, "serve", "--ipc-dir", watest.win_path(base)],
                               capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL, env=server_env())
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("can be written by other users", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(base, "handshake.json")))
            os.chmod(base, 0o700)
            p = subprocess.Popen(["wine", WINAGENT_EXE, "serve", "--ipc-dir",
                                  watest.win_path(base)], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                 env=server_env())
            try:
                hello = json.loads(p.stdout.readline())
                self.assertRegex(hello["token"], r"^[0-9a-f]{32}$")
                self.assertFalse(hello["token_required"])
                # the token's file never lies in the folder it guards: in the state folder
                self.assertNotIn("token", os.listdir(base))
                state = server_env()["WINAGENT_STATE_DIR"]
                self.assertTrue(hello["token_file"].lower().startswith(state.lower()), hello)
                name = hello["token_file"][len(state):].lstrip("\\")
                with open(os.path.join(state[2:].replace("\\", "/"), name),
                          encoding="utf-8") as f:
                    self.assertEqual(f.read(), hello["token"])
            finally:
                p.kill()
                p.wait(10)
        finally:
            shutil.rmtree(base, ignore_errors=True)


class FolderProtocol(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix="wa-ipc-")
        self.root = os.path.join(self.base, "automation-1234")
        os.mkdir(self.root)
        self.ctl = IpcController(self.root)
        self.server = subprocess.Popen(
            ["wine", WINAGENT_EXE, "serve", "--ipc-dir", watest.win_path(self.root)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=server_env())
        hs = os.path.join(self.root, "handshake.json")
        wait_for(lambda: os.path.exists(hs), 30, "handshake.json")
        with open(hs, "rb") as f:
            self.handshake = json.loads(f.read())

    def tearDown(self):
        if self.server.poll() is None:
            self.server.kill()
            self.server.wait(10)
        self.server.stdout.close()
        self.server.stderr.close()
        shutil.rmtree(self.base, ignore_errors=True)

    def check_response(self, res, rid):
        self.assertEqual(set(res) - {"window_state", "op", "notes", "dry_run", "changes"},
                         {"id", "timestamp", "success", "data", "error"}, res)
        self.assertEqual(res["id"], rid)
        self.assertRegex(res["timestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
        if res["success"]:
            self.assertIsNone(res["error"])
        else:
            self.assertIsNone(res["data"])
            self.assertEqual(set(res["error"]), {"code", "message"})

    def test_handshake(self):
        h = self.handshake
        self.assertTrue(h["ready"])
        self.assertIsInstance(h["pid"], int)
        self.assertIsInstance(h["version"], str)
        self.assertRegex(h["started_at"], r"Z$")
        for cmd in ("state", "click", "fill", "invoke", "windows", "wait"):
            self.assertIn(cmd, h["capabilities"])
        self.assertNotIn("powershell", h["capabilities"])
        self.assertTrue(os.path.isdir(self.ctl.requests))
        self.assertTrue(os.path.isdir(self.ctl.responses))

    def test_bom_half_written_and_acting_requests(self):
        with TestApp() as app:
            # A request with a UTF-8 BOM, as PowerShell writes them.
            res = self.ctl.call("bom1", "state", {"window": WINDOW}, bom=True)
            self.check_response(res, "bom1")
            self.assertTrue(res["success"], res)
            self.assertIn('Button "OK"', res["data"]["tree"])
            self.assertFalse(os.path.exists(self.ctl.request_path("bom1")))

            # A request written in two halves: answered only once whole.
            # (click is agent-rdp's here: a selector, searched on the whole desktop)
            body = json.dumps({"id": "half", "command": "click",
                               "params": {"selector": "OK"}}).encode()
            path = self.ctl.request_path("half")
            with open(path, "wb") as f:
                f.write(body[:len(body) // 2])
            time.sleep(0.3)
            self.assertFalse(os.path.exists(os.path.join(self.ctl.responses, "res_half.json")))
            self.assertTrue(os.path.exists(path))
            with open(path, "ab") as f:
                f.write(body[len(body) // 2:])
            res = self.ctl.response("half")
            self.check_response(res, "half")
            self.assertTrue(res["success"], res)
            self.assertEqual(res["data"]["action"], "click")
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
            self.assertFalse(os.path.exists(path))

            # A failure is a response too.
            res = self.ctl.call("bad1", "click", {"selector": "@e9999"})
            self.check_response(res, "bad1")
            self.assertFalse(res["success"])
            self.assertEqual(res["error"]["code"], "stale_ref")

    def test_requests_answered_in_name_order(self):
        for i in (2, 1, 0):  # written last first, within one poll interval
            self.ctl.write("n%d" % i, "wait", {"seconds": 0})
        got = [self.ctl.response("n%d" % i) for i in range(3)]
        stamps = [g["timestamp"] for g in got]
        self.assertEqual(stamps, sorted(stamps))
        self.assertTrue(all(g["success"] for g in got), got)

    def test_broken_request_gets_parse_error(self):
        with open(self.ctl.request_path("junk"), "wb") as f:
            f.write(b"{ this never becomes JSON")
        res = self.ctl.response("junk", timeout=15)
        self.check_response(res, "junk")
        self.assertEqual(res["error"]["code"], "parse_error")

    def test_removing_the_folder_stops_the_server(self):
        res = self.ctl.call("w", "windows")
        self.assertTrue(res["success"])
        shutil.rmtree(self.root)
        t0 = time.monotonic()
        rc = self.server.wait(10)
        self.assertEqual(rc, 0, self.server.stderr.read().decode(errors="replace"))
        self.assertLess(time.monotonic() - t0, 3.0)


class TcpTransport(unittest.TestCase):
    def setUp(self):
        self.server = subprocess.Popen(["wine", WINAGENT_EXE, "serve", "--port", "0"],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=server_env())
        first = self.server.stdout.readline()
        self.hello = json.loads(first)

    def tearDown(self):
        self.server.kill()
        self.server.wait(10)
        self.server.stdout.close()
        self.server.stderr.close()

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.hello["port"]), timeout=30)
        return s, s.makefile("rb")

    def ask(self, conn, request):
        s, f = conn
        s.sendall(json.dumps(request).encode() + b"\n")
        return json.loads(f.readline())

    def test_two_clients_at_once_never_interleave_their_typing(self):
        # Each client presses a sequence of its own letter into testapp's edit at the
        # same moment (a pause between chords); the core serialises input, so each
        # sequence arrives whole.
        with TestApp() as app:
            a, b = self.connect(), self.connect()
            hwnd = app.ready["hwnd"]
            token = self.hello["token"]
            results = {}

            def client(conn, letter):
                results[letter] = self.ask(conn, {
                    "id": letter, "token": token, "command": "keys",
                    "params": {"window": hwnd, "keys": " ".join([letter] * 12)}})

            import threading
            threads = [threading.Thread(target=client, args=(a, "a")),
                       threading.Thread(target=client, args=(b, "b"))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            self.assertTrue(all(results[x]["success"] for x in "ab"), results)
            done = app.wait_event(lambda e: e.get("event") == "text_changed"
                                  and len(e.get("text", "")) == 24, timeout=20)
            self.assertIn(done["text"], ("a" * 12 + "b" * 12, "b" * 12 + "a" * 12), done)
            for conn in (a, b):
                conn[0].close()

    def test_token_and_requests(self):
        token = self.hello["token"]
        self.assertRegex(token, r"^[0-9a-f]{32}$")
        conn = self.connect()
        res = self.ask(conn, {"id": 1, "command": "windows"})
        self.assertFalse(res["success"])
        self.assertEqual(res["error"]["code"], "denied")
        res = self.ask(conn, {"id": 2, "token": "0" * 32, "command": "windows"})
        self.assertEqual(res["error"]["code"], "denied")
        self.assertEqual(res["id"], 2)
        res = self.ask(conn, {"id": 3, "token": token, "command": "windows"})
        self.assertTrue(res["success"], res)
        self.assertIsNone(res["error"])
        self.assertIsInstance(res["data"], dict)
        conn[0].sendall(b"not json\n")
        self.assertEqual(json.loads(conn[1].readline())["error"]["code"], "parse_error")
        conn[0].close()

        # A client that left does not stop the server; the next one is served.
        conn = self.connect()
        res = self.ask(conn, {"id": "again", "token": token, "command": "wait",
                              "params": {"seconds": 0}})
        self.assertTrue(res["success"], res)
        self.assertEqual(res["id"], "again")
        conn[0].close()

    def test_listens_on_loopback_only(self):
        port = self.hello["port"]
        with open("/proc/net/tcp") as f:
            rows = [l.split() for l in f.read().splitlines()[1:]]
        listening = [r[1] for r in rows if r[3] == "0A" and int(r[1].split(":")[1], 16) == port]
        self.assertEqual(listening, ["0100007F:%04X" % port])


if __name__ == "__main__":
    watest.main()
