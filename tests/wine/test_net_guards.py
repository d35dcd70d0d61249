"""The network front ends under load, with the real winagent.exe under Wine: clients
that dribble their HTTP headers, or send nothing at all, cannot starve or slow `mcp
--http`'s requests from other addresses (connections are counted per address from the
moment they are accepted, before their headers), one client address holds at most 24
connections (one past them is answered 429 at once, other addresses are served),
silent connections hold no `serve --port` slot (a client that shows the token is
served past them, and they are dropped), and serving off loopback needs
--allow-remote and says that the traffic is clear text. Every connection goes to
127.0.0.1 only (from 127.0.0.x source addresses, each a client address of its own), is
bounded in count and time, and is closed by the test."""
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import unittest

import watest
from watest import WINAGENT_EXE

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mcp_http import INIT, Server  # noqa: E402

DRIBBLERS = 30
PER_ADDRESS_MAX = 24


def dribble(port, stop, sockets, source="127.0.0.2"):
    """A connection that sends its request line and then one header byte a second."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    except OSError:
        return
    sockets.append(s)
    try:
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        while not stop.is_set():
            s.sendall(b"X")
            stop.wait(1.0)
    except OSError:
        pass


def hold(port, token, source, stop, sockets):
    """A connection from source whose headers are whole and whose body comes a byte a
    second: it is being served (its request is in a handler) while it lasts."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    except OSError:
        return
    sockets.append(s)
    try:
        s.sendall(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
                   "Content-Type: application/json\r\nAccept: application/json, text/event-stream"
                   "\r\nContent-Length: 1000\r\n\r\n"
                   % (port, token)).encode())
        while not stop.is_set():
            s.sendall(b" ")
            stop.wait(1.0)
    except OSError:
        pass


class HttpUnderLoad(unittest.TestCase):
    def test_dribbling_clients_do_not_starve_a_request(self):
        with Server() as s:
            stop, sockets = threading.Event(), []
            threads = [threading.Thread(target=dribble, args=(s.port, stop, sockets), daemon=True)
                       for _ in range(DRIBBLERS)]
            for t in threads:
                t.start()
            time.sleep(2)  # they all hold a connection, mid-headers
            try:
                t0 = time.monotonic()
                status, _, body = s.post(INIT, timeout=30)
                took = time.monotonic() - t0
            finally:
                stop.set()
                for sock in sockets:
                    sock.close()
            self.assertEqual(status, 200, body)
            self.assertIn("serverInfo", body)
            self.assertLess(took, 10.0)

    def test_idle_sockets_do_not_slow_another_addresss_requests(self):
        """100 connections that send nothing, from one address: 24 of them wait for
        their headers on a thread each, the rest are answered 429 and closed at once, so
        the threads left serve an authenticated client at once (3.5 s when they were
        counted only once their headers were in)."""
        with Server() as s:
            sid = s.session()
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "windows", "arguments": {}}}
            head = {"Mcp-Session-Id": sid}

            def five_calls():
                took = []
                for _ in range(5):
                    t0 = time.monotonic()
                    status, _, body = s.post(call, head)
                    took.append(time.monotonic() - t0)
                    self.assertEqual(status, 200, body)
                return took
            quiet = five_calls()
            idle = [socket.create_connection(("127.0.0.1", s.port), timeout=5,
                                             source_address=("127.0.0.5", 0))
                    for _ in range(100)]
            try:
                time.sleep(1.0)  # every one of them accepted, none of them sent a byte
                loaded = five_calls()
                # the ones past the address's share were closed, having heard why
                refused = 0
                for c in idle:
                    c.settimeout(0.2)
                    try:
                        refused += c.recv(100).startswith(b"HTTP/1.1 429")
                    except OSError:
                        pass
            finally:
                for c in idle:
                    c.close()
            self.assertGreaterEqual(refused, 100 - PER_ADDRESS_MAX - 4, refused)
            self.assertLess(max(loaded), max(quiet) + 1.0, (quiet, loaded))

    def test_one_address_holds_at_most_its_share(self):
        with Server() as s:
            stop, sockets = threading.Event(), []
            threads = [threading.Thread(target=hold,
                                        args=(s.port, s.token, "127.0.0.3", stop, sockets),
                                        daemon=True)
                       for _ in range(PER_ADDRESS_MAX)]
            for t in threads:
                t.start()
            time.sleep(1.5)  # the address's share is taken, each mid-body
            try:
                t0 = time.monotonic()
                status, h, body = s.post(INIT, timeout=30, source="127.0.0.3")
                took = time.monotonic() - t0
                other, _, other_body = s.post(INIT, timeout=30, source="127.0.0.4")
            finally:
                stop.set()
                for sock in sockets:
                    sock.close()
            self.assertEqual(status, 429, body)
            self.assertEqual(h.get("retry-after"), "1")
            self.assertIn("127.0.0.3", body)
            self.assertLess(took, 3.0)
            self.assertEqual(other, 200, other_body)
            # Its connections closed, the address is served again.
            deadline = time.time() + 15
            while True:
                status, _, body = s.post(INIT, timeout=30, source="127.0.0.3")
                if status == 200 or time.time() > deadline:
                    break
                time.sleep(0.5)
            self.assertEqual(status, 200, body)

    def test_every_address_needs_allow_remote_and_allow_host_and_says_clear_text(self):
        r = subprocess.run(["wine", WINAGENT_EXE, "mcp", "--http", "0.0.0.0:0"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--allow-remote", r.stderr)
        r = subprocess.run(["wine", WINAGENT_EXE, "mcp", "--http", "0.0.0.0:0",
                            "--allow-remote"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--allow-host", r.stderr)
        p = subprocess.Popen(["wine", WINAGENT_EXE, "mcp", "--http", "0.0.0.0:0",
                              "--allow-remote", "--allow-host", "desk.example"],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            err, deadline = "", time.time() + 30
            while time.time() < deadline and "clear text" not in err:
                line = p.stderr.readline()
                if not line:
                    break
                err += line
            self.assertIn("WARNING", err)
            self.assertIn("clear text", err)
        finally:
            p.kill()
            p.wait(10)


class ServeSlots(unittest.TestCase):
    def setUp(self):
        self.server = subprocess.Popen(["wine", WINAGENT_EXE, "serve", "--port", "0"],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
        self.hello = json.loads(self.server.stdout.readline())
        threading.Thread(target=self.server.stderr.read, daemon=True).start()

    def tearDown(self):
        self.server.kill()
        self.server.wait(10)

    def test_silent_connections_hold_no_slot(self):
        port, token = self.hello["port"], self.hello["token"]
        silent = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(20)]
        try:
            time.sleep(0.5)
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            f = s.makefile("r", encoding="utf-8")
            s.sendall(json.dumps({"id": 1, "token": token, "command": "windows"}).encode() + b"\n")
            res = json.loads(f.readline())
            self.assertTrue(res["success"], res)
            s.close()
            # the silent ones are dropped once they had their few seconds to show a token
            time.sleep(7)
            silent[0].settimeout(5)
            self.assertEqual(silent[0].recv(100), b"")
        finally:
            for c in silent:
                c.close()


if __name__ == "__main__":
    watest.main()
