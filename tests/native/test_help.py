"""winagent --help against the contract: every flag of docs/contract.md's settings table
and every command line of its §2 usage is named, and `winagent help` is SKILL.md."""
import os
import re
import subprocess
import unittest

from test_loop import EXE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def contract():
    with open(os.path.join(ROOT, "docs", "contract.md"), encoding="utf-8") as f:
        return f.read()


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
