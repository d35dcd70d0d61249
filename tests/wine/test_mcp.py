"""`winagent mcp` under Wine, driven by the official MCP TypeScript SDK (an MCP client we
did not write: tests/mcp_client/client.mjs), and the stdio protocol's edges from Python."""
import base64
import json
import struct
import os
import shutil
import subprocess
import sys
import unittest

import watest
from watest import McpSession, TestApp, WINAGENT_EXE

CLIENT_DIR = os.path.join(watest.SRC, "tests", "mcp_client")
SDK_DIR = os.path.join(CLIENT_DIR, "node_modules", "@modelcontextprotocol", "sdk")
server_env = watest.Cli("wa-mcp-state-").env  # a private refs folder
WINDOW = "winagent testapp"


@unittest.skipUnless(shutil.which("node") and os.path.isdir(SDK_DIR),
                     "node or the MCP SDK is missing (./dev.sh deps installs it into "
                     "tests/mcp_client/node_modules)")
class OfficialSdkClient(unittest.TestCase):
    def test_initialise_list_state_screenshot_click(self):
        with TestApp() as app:
            r = subprocess.run(["node", os.path.join(CLIENT_DIR, "client.mjs")],
                               capture_output=True, text=True, timeout=240, cwd=CLIENT_DIR,
                               env=server_env(WINAGENT_EXE=WINAGENT_EXE, WINDOW=WINDOW))
            self.assertEqual(r.returncode, 0, "client failed:\n%s\n%s" % (r.stdout, r.stderr))
            facts = json.loads(r.stdout.strip().splitlines()[-1])
            # The click really reached testapp's OK button.
            app.wait_event(lambda e: e.get("event") == "click" and e.get("control") == "OK")
        self.assertEqual(facts["server"]["name"], "winagent")
        self.assertIn("click", facts["tools"])
        self.assertNotIn("powershell", facts["tools"])
        self.assertEqual(facts["click"]["element"]["name"], "OK")
        self.assertEqual(facts["click"]["window_state"]["title"], WINDOW)
        self.assertTrue(facts["click"]["window_state"]["is_foreground"])
        shot = facts["screenshot"]
        self.assertGreater(shot["bytes"], 1000)
        # testapp's window is about 900x700 pixels: no downscale needed below 1280.
        self.assertGreater(shot["width"], 800)
        self.assertEqual(shot["scale"], 1)
        self.assertIn(facts["bogus_error"]["code"], ("stale_ref", "element_not_found"))
        # resources, completion, prompts, logging, progress and cancellation (client.mjs)
        self.assertGreater(facts["resources"]["png_bytes"], 1000)
        self.assertIn(WINDOW, facts["resources"]["completions"])
        self.assertGreaterEqual(facts["logs"], 1)
        self.assertGreaterEqual(len(facts["progress"]), 3)
        self.assertLess(facts["cancel"]["aborted_after_ms"], 5000)
        self.assertLess(facts["cancel"]["next_call_ms"], 8000)
        # the server's log went to stderr, never into the protocol
        self.assertIn("winagent mcp", r.stderr)


class StdioProtocol(unittest.TestCase):
    def run_lines(self, lines, *args):
        r = subprocess.run(["wine", WINAGENT_EXE, "mcp", *args],
                           input="".join(l + "\n" for l in lines), capture_output=True,
                           text=True, encoding="utf-8", timeout=120, env=server_env())
        replies = [json.loads(l) for l in r.stdout.splitlines()]  # only JSON on stdout
        return r, replies

    def test_messages_in_order_and_exit_at_end_of_input(self):
        r, replies = self.run_lines([
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                                   "clientInfo": {"name": "py", "version": "0"}}}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            "this is not json",
            json.dumps({"jsonrpc": "2.0", "id": "p", "method": "ping"}),
            json.dumps({"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage"}),
            json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                        "params": {"name": "windows", "arguments": {}}}),
        ])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(replies), 5, r.stdout)  # nothing for the notification
        self.assertEqual(replies[0]["result"]["protocolVersion"], "2024-11-05")
        self.assertEqual(replies[1]["error"]["code"], -32700)
        self.assertIsNone(replies[1]["id"])
        self.assertEqual(replies[2], {"jsonrpc": "2.0", "id": "p", "result": {}})
        self.assertEqual(replies[3]["error"]["code"], -32601)
        self.assertFalse(replies[4]["result"]["isError"])
        listed = json.loads(replies[4]["result"]["content"][0]["text"])
        self.assertTrue(listed["success"])

    def test_powershell_only_with_allow_shell(self):
        req = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        _, off = self.run_lines([req])
        _, on = self.run_lines([req], "--allow-shell")
        names_off = {t["name"] for t in off[0]["result"]["tools"]}
        names_on = {t["name"] for t in on[0]["result"]["tools"]}
        self.assertNotIn("powershell", names_off)
        self.assertIn("powershell", names_on)
        call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "powershell", "arguments": {"command": "echo"}}})
        _, refused = self.run_lines([call])
        self.assertEqual(refused[0]["error"]["code"], -32602)

    def test_usage_errors(self):
        r = subprocess.run(["wine", WINAGENT_EXE, "mcp", "--bogus"], capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--bogus", r.stderr)
        self.assertEqual(r.stdout, "")


class Versions(unittest.TestCase):
    def test_each_version_is_spoken_as_asked(self):
        for v in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"):
            s = McpSession(env=server_env(), version=v)
            try:
                init = s.init
                self.assertEqual(init["protocolVersion"], v)
                for cap in ("tools", "logging", "resources", "prompts"):
                    self.assertIn(cap, init["capabilities"], (v, init))
                click = {t["name"]: t for t in s.request("tools/list", {})["tools"]}["click"]
                state = {t["name"]: t for t in s.request("tools/list", {})["tools"]}["state"]
                if v >= "2025-06-18":  # titles and structured results came then
                    self.assertEqual(click["title"], "Click")
                    self.assertIn("outputSchema", state)
                    self.assertNotIn("outputSchema", click)  # it acts; its data is no point
                else:
                    self.assertNotIn("title", click)
                    self.assertNotIn("outputSchema", state)
                if v >= "2025-03-26":
                    self.assertFalse(click["annotations"]["readOnlyHint"])
                else:
                    self.assertNotIn("annotations", click)
            finally:
                s.close()
        # a version nobody knows gets the newest
        s = McpSession(env=server_env(), version="2099-01-01")
        try:
            init = s.init
            self.assertEqual(init["protocolVersion"], "2025-11-25")
        finally:
            s.close()


class Features(unittest.TestCase):
    def test_images_are_fitted_to_the_client(self):
        with TestApp():
            big = McpSession(env=server_env())
            small = McpSession(env=server_env(WINAGENT_MCP_IMAGE_MAX_BYTES="20000",
                                              WINAGENT_MCP_IMAGE_MAX_PX="400"))
            try:
                j_big, r_big = big.call("screenshot", window=WINDOW)
                j, r = small.call("screenshot", window=WINDOW)
            finally:
                big.close()
                small.close()
        img = [c for c in r["content"] if c["type"] == "image"][0]
        self.assertLessEqual(len(img["data"]), 20000)
        png = base64.b64decode(img["data"])
        w, h = struct.unpack(">II", png[16:24])
        self.assertLessEqual(max(w, h), 400)
        self.assertEqual(j["data"]["image"]["width"], w)
        self.assertLess(j["data"]["image"]["scale"], j_big["data"]["image"]["scale"])
        self.assertTrue(any("scaled to %dx%d" % (w, h) in n for n in j["notes"]), j["notes"])
        # structuredContent carries the same result
        self.assertEqual(r["structuredContent"]["data"]["image"]["width"], w)

    def test_log_level_and_bad_requests(self):
        s = McpSession(env=server_env())
        try:
            with self.assertRaises(watest.McpError) as bad:
                s.request("logging/setLevel", {"level": "loud"})
            self.assertEqual(bad.exception.code, -32602)
            s.request("logging/setLevel", {"level": "debug"})
            s.call("windows")
            logs = [n for n in s.notifications if n["method"] == "notifications/message"]
            self.assertTrue(any("windows: ok" in n["params"]["data"] for n in logs), logs)
            with self.assertRaises(watest.McpError) as missing:
                s.request("resources/read", {"uri": "winagent://nothing"})
            self.assertEqual(missing.exception.code, -32002)
            with self.assertRaises(watest.McpError) as noprompt:
                s.request("prompts/get", {"name": "desktop-task", "arguments": {}})
            self.assertEqual(noprompt.exception.code, -32602)
        finally:
            s.close()


if __name__ == "__main__":
    watest.main()
