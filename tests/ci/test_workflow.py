"""The GitHub Actions workflow of docs/ci, as CI users get it: @action-validator/cli
(pinned by tests/ci/package-lock.json, installed by ./dev.sh deps) accepts it and refuses
broken copies of it, its shard jobs run `winagent batch --shard I/N` on a Windows matrix
and its last job merges their folders with `winagent report`, and every option its
commands give is one the native winagent's --help lists."""
import glob
import os
import re
import subprocess
import tempfile
import unittest

SRC = os.environ.get("WINAGENT_SRC", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
VALIDATOR = os.path.join(SRC, "tests", "ci", "node_modules", ".bin", "action-validator")
WORKFLOW = os.path.join(SRC, "docs", "ci", "winagent-shards.yml")
EXE = os.environ.get("WINAGENT_NATIVE_EXE", "")


def validate(path):
    if not os.path.exists(VALIDATOR):
        raise AssertionError("@action-validator/cli is missing: `./dev.sh deps` runs npm ci "
                             "in tests/ci")
    return subprocess.run([VALIDATOR, path], capture_output=True, text=True, timeout=60)


class Workflow(unittest.TestCase):
    def setUp(self):
        with open(WORKFLOW, encoding="utf-8") as f:
            self.text = f.read()

    def test_every_workflow_in_docs_validates(self):
        files = glob.glob(os.path.join(SRC, "docs", "ci", "*.yml"))
        self.assertIn(WORKFLOW, files)
        for path in files:
            p = validate(path)
            self.assertEqual(p.returncode, 0, path + ":\n" + p.stdout + p.stderr)

    def broken(self, old, new):
        self.assertIn(old, self.text)
        fd, path = tempfile.mkstemp(suffix=".yml")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(self.text.replace(old, new, 1))
        return validate(path)

    def test_the_validator_refuses_broken_copies(self):
        p = self.broken("needs: shard\n", "needs: shards\n")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("unresolved job shards", p.stdout + p.stderr)
        p = self.broken("runs-on: windows-latest", "runs-onn: windows-latest")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("runs-on", p.stdout + p.stderr)

    def test_shards_on_windows_runners_then_one_merge(self):
        self.assertEqual(self.text.count("runs-on: windows-latest"), 2)
        self.assertRegex(self.text, r"matrix:\n\s+shard: \[1, 2, 3\]")
        self.assertIn("--shard ${{ matrix.shard }}/${{ strategy.job-total }}", self.text)
        self.assertIn("name: shard-${{ matrix.shard }}", self.text)  # each its own artifact
        merge = self.text[self.text.index("\n  merge:"):]
        self.assertIn("needs: shard", merge)
        self.assertIn("if: always()", merge)  # a failed shard still gets a report
        self.assertIn("pattern: shard-*", merge)
        self.assertRegex(merge, r"report @batches --out shards --junit shards\\junit\.xml")

    def commands(self, verb):
        """The options of each `winagent VERB` command of the workflow (lines joined at
        PowerShell's backtick)."""
        script = re.sub(r"`\n\s*", " ", self.text)
        found = re.findall(r"& \$env:WINAGENT %s (.*)" % verb, script)
        self.assertTrue(found, verb)
        return [re.findall(r"(--[a-z-]+)", line) for line in found]

    def test_its_commands_use_options_winagent_has(self):
        for verb, extra in (("batch", ["--log-dir", "--budget-tokens"]), ("report", [])):
            p = subprocess.run([EXE, verb, "--help"], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 0, p.stderr)
            for options in self.commands(verb):
                self.assertTrue(options)
                for option in options:
                    if option in extra:  # run options, listed by `winagent --help`
                        continue
                    self.assertIn(option, p.stdout, "%s %s" % (verb, option))
        p = subprocess.run([EXE, "--help"], capture_output=True, text=True, timeout=30)
        for option in ("--log-dir", "--budget-tokens"):
            self.assertIn(option, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
