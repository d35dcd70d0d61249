"""Shared helpers for winagent's Wine and end-to-end tests (Python standard library).

The ctest harness (tests/wine/harness.sh run ...) exports DISPLAY and WINEPREFIX of
the private Wine ground; tests.cmake exports WINAGENT_EXE, TESTAPP_EXE, WINAGENT_SRC.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

WINAGENT_EXE = os.environ.get("WINAGENT_EXE", "")
TESTAPP_EXE = os.environ.get("TESTAPP_EXE", "")
SRC = os.environ.get("WINAGENT_SRC", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def win_path(path):
    """A Linux path as Wine's Z: drive sees it."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def run_winagent(*args, timeout=60, env=None, input=None, cwd=None):
    """Runs winagent.exe under Wine; returns CompletedProcess with text stdout/stderr."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(["wine", WINAGENT_EXE, *args], capture_output=True, timeout=timeout,
                          env=full_env, input=input, cwd=cwd, encoding="utf-8",
                          errors="replace")


class Cli:
    """winagent as an agent outside runs it: a process of its own for each command, under
    Wine, the refs of one command's state carried to the next by a state folder kept for
    this Cli alone (WINAGENT_STATE_DIR), so other tests' state files never meet ours."""

    def __init__(self, prefix):
        self.state_dir = tempfile.mkdtemp(prefix=prefix)

    def env(self, **extra):
        """The environment of a winagent process of this state folder (a command, or a
        server a test starts itself), with extra variables."""
        env = dict(os.environ, WINAGENT_STATE_DIR=win_path(self.state_dir))
        env.update(extra)
        return env

    def run(self, *args, check=True, timeout=60):
        """One command: CompletedProcess; with check, AssertionError unless it exits 0."""
        r = subprocess.run(["wine", WINAGENT_EXE, *args], capture_output=True, text=True,
                           encoding="utf-8", errors="replace", env=self.env(), timeout=timeout,
                           stdin=subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise AssertionError("winagent %s failed (%d): %s %s" % (args, r.returncode,
                                                                    r.stdout, r.stderr))
        return r

    def json(self, *args, check=True):
        """One command with --json: its result, parsed; AssertionError when it prints no
        JSON, and with check when the result is not a success."""
        r = self.run(*args, "--json", check=False)
        try:
            data = json.loads(r.stdout)
        except ValueError:
            raise AssertionError("winagent %s printed no JSON: %s %s" % (args, r.stdout,
                                                                         r.stderr))
        if check and not data["success"]:
            raise AssertionError("winagent %s: %s %s" % (args, data, r.stderr))
        return data


def ref_of(state_text, kind, name):
    """The ref of the first line `[n] KIND "NAME"` in a state listing."""
    for line in state_text.splitlines():
        line = line.strip()
        if line.startswith("[") and ('] %s "%s"' % (kind, name)) in line:
            return line[1:line.index("]")]
    raise AssertionError('%s "%s" not in state:\n%s' % (kind, name, state_text))


class WineProgram:
    """A Wine program started for one test by its path in the prefix (or a whole path),
    with arguments, killed afterwards: `wine notepad` would run it under start.exe, and
    killing that would leave the program running."""

    def __init__(self, path, *args):
        if not os.path.isabs(path):
            path = os.path.join(os.environ["WINEPREFIX"], "drive_c", *path.split("/"))
        self.cmd = ["wine", path, *args]

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        return False


class TestApp:
    """tests/apps/testapp.exe under Wine, with its JSON-lines event log.

    Use as a context manager: the app is started, `ready` awaited, and killed on exit.
    """

    def __init__(self, *args, panel="main", ready_timeout=30, exe_name=None):
        """exe_name: run a copy of testapp.exe under that file name (the process name
        the security gate sees, e.g. "keepass.exe")."""
        self.dir = tempfile.mkdtemp(prefix="testapp-")
        self.log_path = os.path.join(self.dir, "events.jsonl")
        self.args = ["--log", win_path(self.log_path), "--panel", panel, *args]
        self.ready_timeout = ready_timeout
        self.proc = None
        self.ready = None
        self.exe = TESTAPP_EXE
        if exe_name:
            self.exe = os.path.join(self.dir, exe_name)
            shutil.copyfile(TESTAPP_EXE, self.exe)

    def __enter__(self):
        self.proc = subprocess.Popen(["wine", self.exe, *self.args],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ready = self.wait_event(lambda e: e.get("event") == "ready", self.ready_timeout)
        return self

    def __exit__(self, *exc):
        self.kill()
        return False

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def events(self):
        """Every event logged so far, in order."""
        try:
            with open(self.log_path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass  # a line being written right now
        return out

    def wait_event(self, pred, timeout=10.0):
        """The first event matching pred, waiting up to timeout seconds; AssertionError
        naming the events seen otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            for e in self.events():
                if pred(e):
                    return e
            if self.proc and self.proc.poll() is not None:
                raise AssertionError("testapp exited (%s); events: %s"
                                     % (self.proc.returncode, self.events()[-10:]))
            if time.monotonic() > deadline:
                raise AssertionError("no matching event within %.1fs; last events: %s"
                                     % (timeout, self.events()[-10:]))
            time.sleep(0.05)


class Person:
    """The person at the desk: real X input on the ground's display through xdotool (Wine
    sees it as a person's, not injected). Each method returns when xdotool is done."""

    @staticmethod
    def xdotool(*args, timeout=60):
        subprocess.run(["xdotool", *args], check=True, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def move_for(self, seconds, start=(300, 500), step=6, pause=0.08):
        """Moves the pointer a few pixels at a time for seconds (a person's hand on the
        mouse)."""
        x, y = start
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            x = start[0] + (x - start[0] + step) % 300
            self.xdotool("mousemove", str(x), str(y))
            time.sleep(pause)

    def type(self, text, delay_ms=40):
        self.xdotool("type", "--delay", str(delay_ms), text)

    def corner(self):
        """The stop gesture: the pointer into the top-left corner (held there)."""
        self.xdotool("mousemove", "0", "0")

    def chord(self):
        """The stop chord: ctrl+alt+pause."""
        self.xdotool("key", "ctrl+alt+Pause")


def main():
    """Runs the calling module's unittest tests; verbose so ctest logs show each one."""
    unittest.main(module="__main__", verbosity=2)


# ---- the fake LLM server, for whole runs ----

sys.path.insert(0, os.path.join(SRC, "tests", "fake_llm"))


def fake_llm(scenario):
    """A FakeLLM (tests/fake_llm/server.py) serving `scenario` (a dict or a path) on
    127.0.0.1; use as a context manager. `.url` is its base, `.requests` the records."""
    from server import FakeLLM  # noqa: E402 (tests/fake_llm is on sys.path)
    if isinstance(scenario, dict):
        fd, path = tempfile.mkstemp(prefix="scenario-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(scenario, f)
        scenario = path
    return FakeLLM(scenario, record_path=None, idle_exit=None)


def tool_call(arguments, name="desktop", id=None):
    """One scripted tool call for a scenario step."""
    call = {"name": name, "arguments": arguments}
    if id:
        call["id"] = id
    return call


class AgentRun:
    """One run of winagent.exe's loop against a fake LLM, with its own log folder."""

    def __init__(self, fake, *args, provider="openai", prompt="do the task", env=None,
                 key="sk-e2e-SECRET-51d0"):
        self.tmp = tempfile.mkdtemp(prefix="wa-e2e-")
        self.log_dir = os.path.join(self.tmp, "logs")
        base = fake.url + ("/v1" if provider in ("openai", "responses") else "")
        self.env = dict(os.environ, LLM_API_KEY=key, WINAGENT_LLM_RETRIES="2",
                        WINAGENT_LLM_MAX_WAIT_MS="300")
        for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL"):
            self.env.pop(k, None)
        if env:
            self.env.update(env)
        names = {"openai": "openai-compatible", "gemini": "google",
                 "responses": "openai-responses", "anthropic": "anthropic"}
        self.argv = ["wine", WINAGENT_EXE, "--provider", names[provider],
                     "--base-url", base, "--model", "fake-model",
                     "--log-dir", win_path(self.log_dir), *args, prompt]

    def start(self, stdin=subprocess.DEVNULL):
        return subprocess.Popen(self.argv, env=self.env, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, encoding="utf-8", errors="replace")

    def run(self, timeout=180):
        p = self.start()
        self.out, self.err = p.communicate(timeout=timeout)
        self.code = p.returncode
        return self

    def run_dir(self):
        dirs = run_dirs(self.log_dir)
        assert len(dirs) == 1, dirs
        return dirs[0]

    def agent_log(self):
        with open(os.path.join(self.run_dir(), "agent.log"), encoding="utf-8") as f:
            return f.read()

    def results(self):
        """Every tool call's result in the trace, in order."""
        return [c.get("result", {}) for t in read_trace(self.run_dir())
                for c in t.get("tool_calls", [])]


class McpError(Exception):
    """A JSON-RPC error response: .code, .message."""

    def __init__(self, error):
        super().__init__("%s: %s" % (error.get("code"), error.get("message")))
        self.code = error.get("code")
        self.message = error.get("message")


class McpSession:
    """`winagent mcp` over stdio with one request at a time, answers read as they come."""

    def __init__(self, *args, env=None, version="2025-06-18"):
        self.proc = subprocess.Popen(["wine", WINAGENT_EXE, "mcp", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env or dict(os.environ))
        self.next_id = 0
        self.notifications = []  # what the server sent of its own (log, progress)
        self.init = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                    "clientInfo": {"name": "watest", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        reply = self.read_reply()
        assert reply["id"] == self.next_id, reply
        if "error" in reply:
            raise McpError(reply["error"])
        return reply["result"]

    def read_reply(self):
        """The next response; notifications before it are kept in self.notifications."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError("mcp ended: " +
                                     self.proc.stderr.read().decode(errors="replace"))
            msg = json.loads(line)
            if "id" in msg:
                return msg
            self.notifications.append(msg)

    def call(self, name, **arguments):
        """(result JSON from the first text item, the whole tools/call result)"""
        res = self.request("tools/call", {"name": name, "arguments": arguments})
        return json.loads(res["content"][0]["text"]), res

    def ref(self, kind, name, window):
        """The ref of the first `[n] KIND "NAME"` line of window's state."""
        _, res = self.call("state", window=window)
        tree = "\n".join(c["text"] for c in res["content"][1:] if c["type"] == "text")
        for line in tree.splitlines():
            line = line.strip()
            if line.startswith("[") and ('] %s "%s"' % (kind, name)) in line:
                return line[1:line.index("]")]
        raise AssertionError("%s %s not in\n%s" % (kind, name, tree))

    def close(self):
        self.proc.stdin.close()
        rc = self.proc.wait(30)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return rc


def run_dirs(log_dir):
    """The run folders winagent made under log_dir, oldest first."""
    if not os.path.isdir(log_dir):
        return []
    return sorted(os.path.join(log_dir, d) for d in os.listdir(log_dir)
                  if os.path.isdir(os.path.join(log_dir, d)))


def read_trace(run_dir, call_done=False):
    """The trace's lines; the lines of single calls done (each repeated in its step's own
    line) only with call_done."""
    with open(os.path.join(run_dir, "trace.jsonl"), encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [t for t in lines if call_done or "call_done" not in t]


def assert_secret_absent(testcase, root, secret):
    """Fails when `secret` appears in any file under root (text or binary)."""
    needle = secret.encode()
    for dirpath, _, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as f:
                testcase.assertNotIn(needle, f.read(), "key found in " + name)
