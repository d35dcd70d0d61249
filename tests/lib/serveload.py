"""Load on winagent's servers, for tests/native/test_serving_load.py,
tests/wine/test_serving_load.py and the bench's part 6 (tests/bench/serving.py): many
clients at once against `mcp --http` or `serve --port`, each either opening a new
connection per request (as urllib and curl do) or keeping one open, beside clients that
reset their connections before and after the server accepts them (from a source address
of their own, 127.0.0.9). Everything goes to 127.0.0.1 and is bounded in time. Reports
calls per second, p50 and p99, and what failed, between two samples of what the server
holds (its handles, threads and memory: sample_native, sample_wine).
"""
import http.client
import json
import os
import re
import socket
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.request

RESET_SOURCE = "127.0.0.9"
# The native winagent's fake desktop while it serves: notepad open.
NATIVE_ENV = {"WINAGENT_FAKE_SCENE": os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "native", "scene_notepad.json")}


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.ok = 0
        self.failed = {}
        self.latencies = []
        self.resets = 0

    def done(self, seconds):
        with self.lock:
            self.ok += 1
            self.latencies.append(seconds)

    def fail(self, why):
        with self.lock:
            self.failed[why] = self.failed.get(why, 0) + 1

    def report(self, seconds):
        lat = sorted(self.latencies)

        def pct(p):
            return lat[min(len(lat) - 1, int(len(lat) * p))] * 1000 if lat else None
        return {"calls": self.ok, "failed": sum(self.failed.values()), "why": self.failed,
                "calls_per_s": self.ok / seconds if seconds else 0, "p50_ms": pct(0.50),
                "p99_ms": pct(0.99), "resets": self.resets}


def reset_connection(port, after_accept):
    """Connects and aborts with a reset: at once (before the server accepts it, as far as
    it can tell), or after sending half a request and letting the server take it."""
    s = socket.socket()
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.bind((RESET_SOURCE, 0))
        s.connect(("127.0.0.1", port))
        if after_accept:
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
            time.sleep(0.05)
    finally:
        s.close()


def run(port, seconds, new_call, new_clients, kept_call, kept_clients, resetters=2):
    """new_clients threads call new_call() (a new connection each, True when the answer
    was right) and kept_clients threads call kept_call(state) (a connection kept in
    state between calls) for seconds, while resetters threads reset connections to port.
    The tally's report."""
    t = Tally()
    stop = time.monotonic() + seconds

    def caller(fn):
        state = {}
        while time.monotonic() < stop:
            t0 = time.monotonic()
            try:
                good, why = fn(state), "wrong answer"
            except (OSError, http.client.HTTPException, ValueError) as e:
                good, why = False, "%s: %s" % (type(e).__name__, str(e)[:80])
            if good:
                t.done(time.monotonic() - t0)
                continue
            t.fail(why)
            conn = state.pop("conn", None)
            if conn:
                conn.close()
            state.clear()

    def resetter(i):
        while time.monotonic() < stop:
            try:
                reset_connection(port, after_accept=i % 2 == 1)
                with t.lock:
                    t.resets += 1
            except OSError:
                time.sleep(0.01)

    threads = [threading.Thread(target=caller, args=(lambda state: new_call(),))
               for _ in range(new_clients)]
    threads += [threading.Thread(target=caller, args=(kept_call,)) for _ in range(kept_clients)]
    threads += [threading.Thread(target=resetter, args=(i,)) for i in range(resetters)]
    t0 = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return t.report(time.monotonic() - t0)


# ---- mcp --http ----

class Mcp:
    """An MCP session on `mcp --http` at port, with token."""

    def __init__(self, port, token):
        self.port, self.token = port, token
        self.url = "http://127.0.0.1:%d/mcp" % port
        status, head, _ = self.post_new({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                         "params": {"protocolVersion": "2025-06-18",
                                                    "capabilities": {},
                                                    "clientInfo": {"name": "load", "version": "0"}}})
        assert status == 200, status
        self.sid = head["mcp-session-id"]
        self.post_new({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def headers(self):
        h = {"Authorization": "Bearer " + self.token, "Content-Type": "application/json",
             "Accept": "application/json, text/event-stream",
             "MCP-Protocol-Version": "2025-06-18"}
        if getattr(self, "sid", None):
            h["Mcp-Session-Id"] = self.sid
        return h

    def post_new(self, body):
        """One request on a connection of its own, as urllib sends it (Connection:
        close): (status, headers, body)."""
        req = urllib.request.Request(self.url, json.dumps(body).encode(), self.headers())
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        except urllib.error.HTTPError as e:
            return e.code, {}, e.read()

    WINDOWS = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "windows", "arguments": {}}}

    def call_new(self):
        status, _, body = self.post_new(self.WINDOWS)
        return status == 200 and b'"isError":false' in body

    def call_kept(self, state):
        """A request on a connection kept open between calls (http.client opens it again
        when the server closed it)."""
        conn = state.get("conn")
        if conn is None:
            conn = state["conn"] = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("POST", "/mcp", json.dumps(self.WINDOWS), self.headers())
        r = conn.getresponse()
        body = r.read()
        return r.status == 200 and b'"isError":false' in body


# ---- serve --port ----

class Serve:
    """`serve --port` at port, with token: one JSON request per line."""

    def __init__(self, port, token):
        self.port, self.token = port, token

    def line(self, i):
        return (json.dumps({"id": i, "token": self.token, "command": "windows"}) + "\n").encode()

    @staticmethod
    def answered(line):
        """True for a success; an error answer raises ValueError with its message."""
        answer = json.loads(line) if line else {}
        if answer.get("success") is not True:
            raise ValueError(str(answer.get("error"))[:120] if line else "no answer")
        return True

    def call_new(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
            s.sendall(self.line(1))
            answer = s.makefile("r", encoding="utf-8").readline()
        return self.answered(answer)

    def call_kept(self, state):
        if "conn" not in state:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
            state["conn"], state["file"] = s, s.makefile("r", encoding="utf-8")
        state["conn"].sendall(self.line(2))
        return self.answered(state["file"].readline())


class Load:
    """The clients of one server: new ones on call_new (a new connection per request),
    kept ones on call_kept, and resetters resetting their connections to port."""

    def __init__(self, port, call_new, new, call_kept, kept, resetters=2):
        self.port, self.call_new, self.new = port, call_new, new
        self.call_kept, self.kept, self.resetters = call_kept, kept, resetters
        self.clients = "%d new + %d kept, %d resetting" % (new, kept, resetters)

    def run(self, seconds, resetters=None):
        """The tally's report of seconds of this load (resetters: other than its own)."""
        return run(self.port, seconds, self.call_new, self.new, self.call_kept, self.kept,
                   self.resetters if resetters is None else resetters)


def mcp_server(argv, token, env=None):
    """`mcp --http 127.0.0.1:0` of the winagent argv runs (["wine", exe] or [exe]) with
    token: (the process, its port), its stderr read on so that it never blocks."""
    p = subprocess.Popen([*argv, "mcp", "--http", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, WINAGENT_MCP_TOKEN=token, **(env or {})))
    seen = []
    for line in p.stderr:
        seen.append(line)
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", line)
        if m:
            threading.Thread(target=p.stderr.read, daemon=True).start()
            return p, int(m.group(1))
    p.kill()
    p.wait(10)
    raise AssertionError("no mcp --http server: " + "".join(seen))


def serve_server(argv, env=None):
    """`serve --port 0` of the winagent argv runs, its stderr read on: the process."""
    p = subprocess.Popen([*argv, "serve", "--port", "0"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, **(env or {})))
    threading.Thread(target=p.stderr.read, daemon=True).start()
    return p


def mcp_load(port, token):
    """The load on `mcp --http` at port: 14 clients on new connections, 2 on kept ones."""
    mcp = Mcp(port, token)
    return Load(port, mcp.call_new, 14, mcp.call_kept, 2)


def serve_load(proc):
    """The load on the `serve --port 0` running as proc (its first line says where): 12
    clients on new connections, 2 on kept ones."""
    hello = json.loads(proc.stdout.readline())
    serve = Serve(hello["port"], hello["token"])
    return Load(serve.port, serve.call_new, 12, serve.call_kept, 2)


def sample_native(pid):
    """What the native process pid holds: its open descriptors (as handles), threads and
    resident memory, read from /proc."""
    with open("/proc/%d/status" % pid, encoding="utf-8") as f:
        status = f.read()
    return {"handles": len(os.listdir("/proc/%d/fd" % pid)),
            "threads": int(re.search(r"Threads:\s+(\d+)", status).group(1)),
            "memory_kb": int(re.search(r"VmRSS:\s+(\d+)", status).group(1))}


def sample_wine(exe):
    """What the one winagent.exe running under Wine holds: its handles, threads and working
    set, as tests/apps/procstat.exe of exe's build reads the wineserver's counts."""
    procstat = os.path.join(os.path.dirname(exe), "tests", "apps", "procstat.exe")
    r = subprocess.run(["wine", procstat, "winagent.exe"], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    rows = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    assert len(rows) == 1, r.stdout + r.stderr  # the server is the one running
    return {"handles": rows[0]["handles"], "threads": rows[0]["threads"],
            "memory_kb": rows[0]["working_set_kb"]}


def measure(load, seconds, sample, warm_seconds):
    """load warms the server up for warm_seconds (no resets: threads, sessions and
    buffers as they will stay), then runs for seconds between two samples of what the
    server holds (sample() -> {handles, threads, memory_kb}): (report, before, after),
    the report with the load average of the minute before the run ("load")."""
    load.run(warm_seconds, 0)
    time.sleep(2)
    before = sample()
    with open("/proc/loadavg", encoding="ascii") as f:
        loadavg = float(f.read().split()[0])
    report = load.run(seconds)
    report["load"] = loadavg
    time.sleep(2)
    return report, before, sample()


def check(test, name, load, seconds, sample, more, warm_seconds):
    """The load test of a server, for a unittest.TestCase test: measure()'s run, in which
    every request is answered, the server answers afterwards, and holds at most more[k]
    more of each of handles, threads and memory_kb. Prints what it measured."""
    report, before, after = measure(load, seconds, sample, warm_seconds)
    print("\n" + describe(name, report, before, after), flush=True)
    test.assertEqual(report["failed"], 0, report["why"])
    test.assertGreater(report["calls"], 200, report)
    test.assertGreater(report["resets"], 50, report)
    test.assertTrue(load.call_new(), "no answer after the load")
    for k in ("handles", "threads", "memory_kb"):
        test.assertLessEqual(after[k] - before[k], more[k], (k, before, after))


def describe(name, report, before, after):
    """One line of what a load run measured."""
    return ("%s: %d calls, %.0f calls/s, p50 %.0f ms, p99 %.0f ms, %d failed, %d resets; "
            "handles %s -> %s, threads %s -> %s, memory %s -> %s KB" % (
                name, report["calls"], report["calls_per_s"], report["p50_ms"] or 0,
                report["p99_ms"] or 0, report["failed"], report["resets"], before["handles"],
                after["handles"], before["threads"], after["threads"], before["memory_kb"],
                after["memory_kb"]))


def hammer(port, clients, seconds):
    """clients threads POST to http://127.0.0.1:port/ for seconds, a new connection each
    (as urllib sends them): how tests/apps/selectcheck.exe is driven by hand."""
    def post(state):
        req = urllib.request.Request("http://127.0.0.1:%d/" % port, b'{"a":1}',
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status == 200 and bool(r.read())
    return run(port, seconds, lambda: post({}), clients, post, 0, resetters=0)


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 4:
        sys.exit("usage: serveload.py PORT CLIENTS SECONDS   (a new connection per request)")
    print(hammer(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
