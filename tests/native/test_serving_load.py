"""The servers stay up, on the native winagent (fake desktop): `mcp --http` and `serve
--port` answer every request of 16 and 14 clients for 10 s each (new connections per
request and kept ones, beside two clients that reset theirs before and after the server
accepts them), answer afterwards, and hold no more descriptors, threads or memory after
the load than before it (read from /proc). Each prints calls per second, p50 and p99.
The same load on the Windows build under Wine: tests/wine/test_serving_load.py."""
import os
import unittest

import serveload

EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")
SECONDS = 10
MORE = {"handles": 16, "threads": 4, "memory_kb": 16 * 1024}  # fds, threads, resident KB
# Under AddressSanitizer (sanitize.unit_and_native) freed memory waits in its quarantine:
# resident memory says nothing of what the server holds, so only fds and threads count.
if "ASAN_OPTIONS" in os.environ:
    MORE["memory_kb"] = float("inf")


class Load(unittest.TestCase):
    def test_mcp_http_answers_every_request(self):
        p, port = serveload.mcp_server([EXE], "load-token", env=serveload.NATIVE_ENV)
        try:
            serveload.check(self, "mcp --http native, 16 clients, %d s" % SECONDS,
                            serveload.mcp_load(port, "load-token"), SECONDS,
                            lambda: serveload.sample_native(p.pid), MORE, 2)
        finally:
            p.kill()
            p.wait(10)

    def test_serve_port_answers_every_request(self):
        p = serveload.serve_server([EXE], env=serveload.NATIVE_ENV)
        try:
            serveload.check(self, "serve --port native, 14 clients, %d s" % SECONDS,
                            serveload.serve_load(p), SECONDS,
                            lambda: serveload.sample_native(p.pid), MORE, 2)
        finally:
            p.kill()
            p.wait(10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
