"""The servers stay up, with the real winagent.exe under Wine: `mcp --http` answers every
request of 16 clients for 20 s (14 opening a new connection per request, as urllib and
curl do, 2 keeping theirs) while two more reset connections before and after the server
accepts them, and answers afterwards; `serve --port` the same with 12 and 2 clients for
15 s. Neither holds more handles, threads or memory after the load than before it
(tests/apps/procstat.exe reads the wineserver's counts). Each prints calls per second,
p50 and p99. Loopback only; bounded in time.

Before civetweb's select() left out the except set (base/win/win_select.c),
Wine's wineserver aborted a few thousand such requests in and took the listener with it;
tests/apps/selectcheck.exe shows that without winagent."""
import os
import unittest

import serveload
import watest
from watest import WINAGENT_EXE

MCP_SECONDS, SERVE_SECONDS = 20, 15
# What a server may hold more after the load than before it: a few handles and threads
# that come and go with the last connections, and memory the heap keeps.
MORE = {"handles": 40, "threads": 4, "memory_kb": 24 * 1024}


def sample():
    """The winagent.exe server's handles, threads and working set."""
    return serveload.sample_wine(WINAGENT_EXE)


class Load(unittest.TestCase):
    def test_mcp_http_answers_every_request(self):
        p, port = serveload.mcp_server(["wine", WINAGENT_EXE], "load-test-token")
        try:
            serveload.check(self, "mcp --http under Wine, 16 clients, %d s" % MCP_SECONDS,
                            serveload.mcp_load(port, "load-test-token"), MCP_SECONDS, sample,
                            MORE, 3)
        finally:
            p.kill()
            p.wait(10)

    def test_serve_port_answers_every_request(self):
        p = serveload.serve_server(["wine", WINAGENT_EXE])
        try:
            serveload.check(self, "serve --port under Wine, 14 clients, %d s" % SERVE_SECONDS,
                            serveload.serve_load(p), SERVE_SECONDS, sample, MORE, 3)
        finally:
            p.kill()
            p.wait(10)


if __name__ == "__main__":
    watest.main()
