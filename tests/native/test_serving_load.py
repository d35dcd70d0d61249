"""The servers stay up, on the native winagent (fake desktop): `mcp --http` and `serve
--port` answer every request of 16 and 14 clients for 10 s each (new connections per
request and kept ones, beside two clients that reset theirs before and after the server
accepts them), answer afterwards, and hold no more descriptors, threads or memory after
the load than before it (read from /proc). Each prints calls per second, p50 and p99.
The same load on the Windows build under Wine: tests/wine/test_serving_load.py."""
import os
import re
import subprocess
import threading
import unittest

import serveload

EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")
SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scene_notepad.json")
SECONDS = 10
MORE = {"handles": 16, "threads": 4, "memory_kb": 16 * 1024}  # fds, threads, resident KB
# Under AddressSanitizer (sanitize.unit_and_native) freed memory waits in its quarantine:
# resident memory says nothing of what the server holds, so only fds and threads count.
if "ASAN_OPTIONS" in os.environ:
    MORE["memory_kb"] = float("inf")


def sample(pid):
    """The process's open descriptors, threads and resident memory."""
    status = open("/proc/%d/status" % pid, encoding="utf-8").read()
    return {"handles": len(os.listdir("/proc/%d/fd" % pid)),
            "threads": int(re.search(r"Threads:\s+(\d+)", status).group(1)),
            "memory_kb": int(re.search(r"VmRSS:\s+(\d+)", status).group(1))}


def server(*args, env=None):
    return subprocess.Popen([EXE, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, WINAGENT_FAKE_SCENE=SCENE, **(env or {})))


class Load(unittest.TestCase):
    def test_mcp_http_answers_every_request(self):
        p = server("mcp", "--http", "127.0.0.1:0", env={"WINAGENT_MCP_TOKEN": "load-token"})
        try:
            port = int(re.search(r"127\.0\.0\.1:(\d+)/mcp", p.stderr.readline()).group(1))
            threading.Thread(target=p.stderr.read, daemon=True).start()
            serveload.check_mcp(self, "mcp --http native, 16 clients, %d s" % SECONDS, port,
                                "load-token", SECONDS, lambda: sample(p.pid), MORE, 2)
        finally:
            p.kill()
            p.wait(10)

    def test_serve_port_answers_every_request(self):
        p = server("serve", "--port", "0")
        try:
            serveload.check_serve(self, "serve --port native, 14 clients, %d s" % SECONDS, p,
                                  SECONDS, lambda: sample(p.pid), MORE, 2)
        finally:
            p.kill()
            p.wait(10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
