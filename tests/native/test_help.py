"""winagent --help against the contract: every flag of docs/contract.md's settings table
and every command line of its §2 usage is named, and `winagent help` is SKILL.md."""
import http.server
import os
import re
import subprocess
import threading
import unittest

from test_loop import EXE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def contract():
    with open(os.path.join(ROOT, "docs", "contract.md"), encoding="utf-8") as f:
        return f.read()


class Refuse(http.server.BaseHTTPRequestHandler):
    """A model server that takes no key: 401 to every request."""
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"error":{"message":"no key","type":"invalid_request_error"}}'
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, *args):
        pass


class Help(unittest.TestCase):
    def setUp(self):
        p = subprocess.run([EXE, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.help = p.stdout

    def test_every_flag_of_the_settings_table(self):
        flags = re.findall(r"^\| `(--[a-z-]+)", contract(), re.M)
        self.assertGreater(len(flags), 15)
        missing = [f for f in flags if not re.search(re.escape(f) + r"\b", self.help)]
        self.assertEqual(missing, [], "winagent --help does not name these settings")

    def test_every_value_of_the_providers(self):
        row = re.search(r"^\| `--provider` .*$", contract(), re.M).group(0)
        for value in re.findall(r"`([a-z-]+)`", row.split("|")[4]):
            self.assertIn(value, self.help)

    def test_every_command_of_the_usage(self):
        usage = re.search(r"## 2\. Command line\n\n```\n(.*?)```", contract(), re.S).group(1)
        flat = " ".join(self.help.split())
        for line in usage.splitlines():
            m = re.match(r"winagent ((?:--)?[a-z]+)", line)
            if m:  # a command's own line, or among the desktop commands ("| windows |")
                self.assertRegex(flat, r"(winagent|\|) %s\b" % re.escape(m.group(1)))
        self.assertIn("--http", self.help)

    def test_every_choice_the_help_names_is_taken_and_no_other(self):
        """A run option whose value the help writes as choices (--mode auto|a11y|pixel):
        each choice passes the settings' check, and a wrong value is refused with a
        message that lists the same choices in the same order."""
        choices = re.findall(r"^  (--[a-z-]+) ([a-z0-9-]+(?:\|[a-z0-9-]+)+)\s", self.help, re.M)
        self.assertGreaterEqual(len(choices), 8, self.help)
        # a model and a server that refuses every request at once (401, which no client
        # retries): a value that passes gets past the settings and ends the run at the
        # first request (or at a later setting's check)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.shutdown)
        base = [EXE, "--model", "m", "--base-url", "http://127.0.0.1:%d/v1" % server.server_port,
                "--max-steps", "1"]
        env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"),
               "WINAGENT_LOG_DIR": os.path.join(os.environ.get("TMPDIR", "/tmp"), "help-choices")}

        def run(flag, value):
            p = subprocess.run(base + [flag, value, "open the thing"], capture_output=True,
                               text=True, timeout=60, env=env)
            return p.stdout + p.stderr
        for flag, values in choices:
            with self.subTest(flag=flag):
                said = run(flag, "bogus")
                m = re.search(r"must be (.*?), not 'bogus' \(from flag %s\)" % re.escape(flag),
                              said)
                self.assertIsNotNone(m, f"{flag} bogus: {said}")
                self.assertEqual(re.split(r", | or ", m.group(1)), values.split("|"))
                for value in values.split("|"):
                    said = run(flag, value)
                    self.assertNotIn("(from flag %s)" % flag, said, f"{flag} {value}")

    def test_the_entry_words(self):
        """The words the entry takes before any command: none (the usage on stderr), -h,
        --version, and a lone word that names no command."""
        def run(*args):
            return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=30)
        p = run()
        self.assertEqual((p.returncode, p.stdout, p.stderr), (1, "", self.help))
        p = run("-h")
        self.assertEqual((p.returncode, p.stdout), (0, self.help))
        p = run("--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^winagent \S+ \(\S+\)\n$")
        p = run("frobnicate")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, "winagent: unknown command 'frobnicate' (quote a task "
                         "with spaces in it)\n" + self.help)

    def test_help_is_the_manual(self):
        p = subprocess.run([EXE, "help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(ROOT, "SKILL.md"), encoding="utf-8") as f:
            first = f.readline().strip()
        self.assertIn(first, p.stdout)


if __name__ == "__main__":
    unittest.main()
