"""Shared helpers for winagent's Wine and end-to-end tests (Python standard library).

The ctest harness (tests/wine/harness.sh run ...) exports DISPLAY and WINEPREFIX of
the private Wine ground; tests.cmake exports WINAGENT_EXE, TESTAPP_EXE, WINAGENT_SRC.
"""
import json
import os
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


class TestApp:
    """tests/apps/testapp.exe under Wine, with its JSON-lines event log.

    Use as a context manager: the app is started, `ready` awaited, and killed on exit.
    """

    def __init__(self, *args, panel="main", ready_timeout=30):
        self.dir = tempfile.mkdtemp(prefix="testapp-")
        self.log_path = os.path.join(self.dir, "events.jsonl")
        self.args = ["--log", win_path(self.log_path), "--panel", panel, *args]
        self.ready_timeout = ready_timeout
        self.proc = None
        self.ready = None

    def __enter__(self):
        self.proc = subprocess.Popen(["wine", TESTAPP_EXE, *self.args],
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


def main():
    """Runs the calling module's unittest tests; verbose so ctest logs show each one."""
    unittest.main(module="__main__", verbosity=2)
