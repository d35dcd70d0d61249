"""The Windows backend's run_shell under Wine, through the real `powershell` tool: an
agent run against the fake LLM calls it with WINAGENT_SHELL='cmd.exe /c' (Wine has no
PowerShell), and the results are read back from the run's trace."""
import os
import subprocess
import tempfile
import unittest

import watest
from watest import TestApp, fake_llm, tool_call, run_dirs, read_trace, win_path, WINAGENT_EXE


def shell_results(commands, env=None):
    """Runs the agent with one powershell call per step; returns the tool results in
    order (the data: exit_code, timed_out, stdout, stderr, ms; or the failure with
    success false and its error)."""
    steps = [{"tool_calls": [tool_call(c, name="powershell", id="call_%d" % i)]}
             for i, c in enumerate(commands)]
    steps.append({"text": "done"})
    log_dir = tempfile.mkdtemp(prefix="wa-shell-")
    full_env = dict(os.environ, LLM_API_KEY="sk-shell-test", WINAGENT_SHELL="cmd.exe /c")
    for k in ("LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "WINAGENT_SHELL_POLICY"):
        full_env.pop(k, None)
    full_env.update(env or {})
    with TestApp(), fake_llm({"steps": steps}) as fake, tempfile.TemporaryFile() as err:
        # stderr into a file: whatever the shell starts inherits it under Wine
        p = subprocess.run(["wine", WINAGENT_EXE, "--provider", "openai-compatible",
                            "--base-url", fake.url + "/v1", "--model", "fake-model",
                            "--log-dir", win_path(log_dir), "run the commands"],
                           env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=err, timeout=300)
        err.seek(0)
        if p.returncode != 0:
            raise AssertionError("agent run failed (%d): %s"
                                 % (p.returncode, err.read().decode("utf-8", "replace")))
    (run_dir,) = run_dirs(log_dir)
    results = []
    for line in read_trace(run_dir):
        for call in line.get("tool_calls", []):
            if call.get("name") == "powershell":
                res = call["result"]
                results.append(res["data"] if res.get("success") else res)
    return results


def wine_processes(name):
    """Linux pids of this Wine prefix's processes whose command line names `name`."""
    prefix = os.environ.get("WINEPREFIX", "")
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().decode("utf-8", "replace").lower()
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if name in cmd and ("WINEPREFIX=" + prefix).encode() in env:
            pids.append(int(pid))
    return pids


class Shell(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = shell_results([
            {"command": "echo hello& echo oops 1>&2& exit /b 3"},
            {"command": "echo héllo wörld"},
            {"command": "ping -n 30 127.0.0.1", "timeout_s": 3},
            {"command": "for /l %i in (1,1,5000) do @echo line %i"},
            {"command": "\"C:\\windows\\system32\\cmd.exe\" /c echo \"quoted arg\""},
        ])

    def test_stdout_stderr_and_exit_code(self):
        r = self.r[0]
        self.assertEqual(r["exit_code"], 3, r)
        self.assertFalse(r["timed_out"])
        self.assertEqual(r["stdout"].strip(), "hello")
        self.assertEqual(r["stderr"].strip(), "oops")

    def test_non_ascii_output_is_decoded_to_utf8(self):
        # cmd writes its console (OEM) code page into the pipe; it comes back as UTF-8
        self.assertEqual(self.r[1]["stdout"].strip(), "héllo wörld", self.r[1])

    def test_timeout_kills_the_whole_tree(self):
        r = self.r[2]
        self.assertTrue(r["timed_out"], r)
        self.assertEqual(r["exit_code"], -1)
        self.assertLess(r["ms"], 8000)
        self.assertGreaterEqual(r["ms"], 2900)
        # ping ran under cmd: the job took it down with its shell
        self.assertEqual(wine_processes("ping.exe"), [])

    def test_big_output_keeps_head_and_tail(self):
        out = self.r[3]["stdout"]
        self.assertTrue(out.startswith("line 1\r\nline 2\r\n"), out[:40])
        self.assertTrue(out.endswith("line 4999\r\nline 5000\r\n"), out[-40:])
        self.assertRegex(out, "\n\u2026\\[\\d+ bytes omitted\\]\u2026\n")
        self.assertLess(len(out.encode("utf-8")), 16 * 1024 + 64)

    def test_a_command_starting_with_a_quote_reaches_cmd_intact(self):
        r = self.r[4]
        self.assertEqual(r["exit_code"], 0, r)
        self.assertEqual(r["stdout"].strip(), "\"quoted arg\"")


class ShellStartFailure(unittest.TestCase):
    def test_a_missing_shell_is_reported_to_the_model(self):
        (r,) = shell_results([{"command": "echo hi"}],
                             env={"WINAGENT_SHELL": "no-such-shell.exe -c"})
        self.assertFalse(r["success"], r)
        self.assertEqual(r["error"]["code"], "action_failed")
        self.assertIn("WINAGENT_SHELL", r["error"]["message"])


if __name__ == "__main__":
    watest.main()
