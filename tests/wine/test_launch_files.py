"""launch judges the file that will run, under Wine, the shell off (the CLI's default).

- A program is known by its file, not its name: a copy of testapp named invoice.ini and a
  copy of cmd.exe named notes.ini are programs to every check (where they lie, their
  console, the allow-list) and are refused; nothing of them starts (no process of that
  image runs afterwards: tests/apps/procstat.exe). A copy of testapp named report.ini in
  Program Files is a program too: --apps notepad (which opens .ini files) refuses it,
  and without a list it starts as testapp. A real .ini document opens in notepad, through
  its association.
- No lookup on a share, in any spelling: Wine's file trace (WINEDEBUG=+file, every
  NtCreateFile, NtQueryAttributesFile, RtlGetFullPathName ... of the process) holds no
  line naming the server for each spelling, where a local path naming it is traced.
- A place is trusted for what it is: testapp copied into the Windows folder's Tasks,
  Temp and System32\\spool\\drivers\\color (folders ordinary users may write on Windows)
  and into a folder whose ACL lets Everyone write (Wine makes it from the mode bits) is
  refused; the same copy in a folder of the Windows folder that nobody else may write
  starts."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

import watest
from watest import TESTAPP_EXE, WINAGENT_EXE

CLI = watest.Cli("wa-files-")
PROCSTAT = os.path.join(os.path.dirname(WINAGENT_EXE), "tests", "apps", "procstat.exe")
HOST = "attacker.invalid"


def drive_c(*parts):
    return os.path.join(os.environ["WINEPREFIX"], "drive_c", *parts)


def launch(command, apps=None, extra_env=None, debug=None):
    """`winagent launch COMMAND --json`: (result, stderr). Its output goes to files: a
    program it starts under Wine inherits its Unix output, and a pipe would stay open
    as long as that program runs."""
    env = CLI.env(**(extra_env or {}))
    if apps:
        env["WINAGENT_APPS"] = apps
    if debug:
        env["WINEDEBUG"] = debug
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out, \
            tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err:
        subprocess.run(["wine", WINAGENT_EXE, "launch", command, "--json"], stdout=out,
                       stderr=err, env=env, timeout=120, stdin=subprocess.DEVNULL)
        out.seek(0)
        err.seek(0)
        text, trace = out.read(), err.read()
    try:
        return json.loads(text), trace
    except ValueError:
        raise AssertionError("launch %s printed no JSON: %s %s" % (command, text,
                                                                   trace[-2000:]))


def running(image):
    """Whether a process of that image name runs (procstat.exe exits 1 when none)."""
    r = subprocess.run(["wine", PROCSTAT, image], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    return r.returncode == 0


def remove_all(paths):
    for p in paths:
        if os.path.isdir(p):
            shutil.rmtree(p, ignore_errors=True)
        elif os.path.exists(p):
            os.unlink(p)


def kill(pid):
    subprocess.run(["wine", "taskkill", "/f", "/pid", str(pid)], capture_output=True,
                   timeout=60)


class FileJudgedAsWhatItIs(unittest.TestCase):
    def setUp(self):
        self.dl = drive_c("users", "Public", "Downloads")
        os.makedirs(self.dl, exist_ok=True)
        self.made = []

    def tearDown(self):
        remove_all(self.made)

    def copy(self, src, *dest):
        path = drive_c(*dest)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.copyfile(src, path)
        self.made.append(path)
        return path

    def assert_nothing_started(self, image):
        time.sleep(3)  # a program that started shows by now
        self.assertFalse(running(image), "%s runs" % image)

    def test_a_program_with_a_documents_name_is_that_program(self):
        self.copy(TESTAPP_EXE, "users", "Public", "Downloads", "invoice.ini")
        self.copy(drive_c("windows", "system32", "cmd.exe"),
                  "users", "Public", "Downloads", "notes.ini")
        res, _ = launch("C:\\users\\Public\\Downloads\\invoice.ini")
        self.assertEqual(res["error"]["code"], "shell_disabled", res)
        self.assertIn("not installed", res["error"]["message"])
        res, _ = launch("C:\\users\\Public\\Downloads\\notes.ini", apps="notepad")
        self.assertEqual(res["error"]["code"], "denied", res)
        self.assertIn("notes.ini is none of the programs", res["error"]["message"])
        res, _ = launch("C:\\users\\Public\\Downloads\\notes.ini")
        self.assertEqual(res["error"]["code"], "shell_disabled", res)
        self.assertIn("console program", res["error"]["message"])
        self.assert_nothing_started("invoice.ini")
        self.assertFalse(running("notes.ini"))

    def test_an_installed_program_with_a_documents_name_is_that_program(self):
        folder = drive_c("Program Files", "wa-report")
        self.made.append(folder)
        self.copy(TESTAPP_EXE, "Program Files", "wa-report", "report.ini")
        command = "C:\\Program Files\\wa-report\\report.ini"
        res, _ = launch(command, apps="notepad")  # notepad opens .ini files: not this one
        self.assertEqual(res["error"]["code"], "denied", res)
        self.assert_nothing_started("report.ini")
        res, _ = launch(command)  # installed, a GUI program: it starts, as itself
        self.assertTrue(res["success"], res)
        try:
            self.assertEqual(res["data"]["window"]["process"], "report.ini")
            self.assertEqual(res["data"]["window"]["title"], "winagent testapp")
        finally:
            kill(res["data"]["window"]["pid"])

    def test_a_document_opens_through_its_association(self):
        doc = os.path.join(self.dl, "settings.ini")
        with open(doc, "w") as f:
            f.write("[section]\r\nkey=value\r\n")
        self.made.append(doc)
        res, _ = launch("C:\\users\\Public\\Downloads\\settings.ini", apps="notepad")
        self.assertTrue(res["success"], res)
        try:
            self.assertEqual(res["data"]["window"]["process"], "notepad.exe")
        finally:
            kill(res["data"]["window"]["pid"])


class NoLookupOnAShare(unittest.TestCase):
    SPELLINGS = [
        "\\\\%s\\share\\ab.exe" % HOST,
        "\\\\%s\\share\\a b" % HOST,  # unquoted, with a space: never tried whole
        "\\\\.\\UNC\\%s\\share\\ab.exe" % HOST,
        "//?/UNC/%s/share/ab.exe" % HOST,
        "\\\\?\\UNC\\%s\\share\\ab.exe" % HOST,
        "\\\\?\\GLOBALROOT\\Device\\Mup\\%s\\share\\ab.exe" % HOST,
        "\\??\\UNC\\%s\\share\\ab.exe" % HOST,
        "\\\\.\\C:\\..\\UNC\\%s\\share\\ab.exe" % HOST,
        "%WA_SHARE%\\ab.exe",  # a share once expanded
        "\"\\\\%s\\share\\ab.exe\" /s" % HOST,
    ]

    def traced(self, command):
        """The lines of Wine's file trace of `launch COMMAND` that name HOST."""
        res, err = launch(command, extra_env={"WA_SHARE": "\\\\%s\\share" % HOST},
                          debug="+file")
        lines = [ln for ln in err.splitlines() if ":file:" in ln and HOST in ln.lower()]
        return res, lines

    def test_no_spelling_of_a_share_is_looked_up(self):
        # the trace shows lookups: a local path that names the host is looked up
        res, lines = self.traced("C:\\%s\\share\\ab.exe" % HOST)
        self.assertFalse(res["success"], res)
        self.assertTrue(lines, "the file trace shows no lookup at all")
        for command in self.SPELLINGS:
            res, lines = self.traced(command)
            self.assertEqual(lines, [], command)
            self.assertEqual(res["error"]["code"], "shell_disabled", (command, res))
            self.assertIn("network share", res["error"]["message"])


class PlacesByWhatTheyAre(unittest.TestCase):
    def setUp(self):
        self.made = []

    def folder(self, *parts, mode=0o755):
        path = drive_c(*parts)
        if not os.path.isdir(path):
            os.makedirs(path)
            self.made.append(path)
        os.chmod(path, mode)
        shutil.copyfile(TESTAPP_EXE, os.path.join(path, "tool.exe"))
        if path not in self.made:
            self.made.append(os.path.join(path, "tool.exe"))
        return "C:\\" + "\\".join(parts) + "\\tool.exe"

    def tearDown(self):
        remove_all(self.made)

    def test_a_program_where_users_may_write_needs_the_shell(self):
        for parts, why in ((("windows", "tasks"), "Tasks"), (("windows", "temp"), "Temp"),
                           (("windows", "system32", "spool", "drivers", "color"),
                            "spool\\drivers\\color"),
                           (("windows", "wa-loose"), "Everyone may create files in")):
            command = self.folder(*parts, mode=0o777 if parts[-1] == "wa-loose" else 0o755)
            res, _ = launch(command)
            self.assertEqual(res["error"]["code"], "shell_disabled", (command, res))
            self.assertIn(why, res["error"]["message"])
            self.assertIn("not installed", res["error"]["message"])
        time.sleep(3)
        self.assertFalse(running("tool.exe"))
        # the same program where nobody else may write starts
        res, _ = launch(self.folder("windows", "wa-installed"))
        self.assertTrue(res["success"], res)
        kill(res["data"]["window"]["pid"])


if __name__ == "__main__":
    watest.main()
