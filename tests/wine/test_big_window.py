"""Big windows as users meet them (bigapp: a 3,000-row report list view and a 2,000-item
tree view under an edit box; regedit's HKEY_CLASSES_ROOT), through the command line and
the loop: what is on screen is observed, the rest counted, any item reached by `find`,
and acting on one scrolls it into view first. The program's own log judges."""
import os
import json
import re
import tempfile
import time
import unittest

import watest
from watest import Cli, McpSession, TestApp, WineProgram, fake_llm
from server import observation_texts  # noqa: E402 (tests/fake_llm, on sys.path by watest)

BIGAPP_EXE = os.path.join(os.path.dirname(watest.TESTAPP_EXE), "bigapp.exe")
SEL = "winagent bigwin"


class BigApp(TestApp):
    """tests/apps/bigapp.exe with its event log (TestApp's helpers)."""

    def __init__(self, *args):
        super().__init__()
        self.exe = BIGAPP_EXE
        self.args = ["--log", watest.win_path(self.log_path), *args]


def line_of(text, pattern):
    """The first line of a listing matching the regex, or AssertionError."""
    for line in text.splitlines():
        if re.search(pattern, line):
            return line
    raise AssertionError("no line like %r in:\n%s" % (pattern, text[-3000:]))


def ref(line):
    return int(re.match(r"\s*\[(\d+)\]", line).group(1))


def wait_state(cli, sel, timeout=30.0):
    """`state` of the window sel once it exists (the program may still be starting)."""
    deadline = time.monotonic() + timeout
    while True:
        r = cli.run("state", "--window", sel, check=False)
        if r.returncode == 0:
            return r.stdout
        if time.monotonic() > deadline:
            raise AssertionError("no state of %r within %.0fs: %s" % (sel, timeout, r.stderr))
        time.sleep(0.5)


class BigWindowCli(unittest.TestCase):
    def setUp(self):
        self.app = BigApp()
        self.app.__enter__()
        self.cli = Cli("wa-bigwin-")

    def tearDown(self):
        self.app.kill()

    def state(self):
        return self.cli.run("state", "--window", SEL).stdout

    def test_what_shows_is_observed_and_the_rest_counted(self):
        text = self.state()
        line_of(text, r'\] Edit "Filter:" @')  # the edit box above the lists
        files = line_of(text, r'\] List "Files" @\(\d+,\d+\) 3000 items, 0-\d+ shown')
        first, last = map(int, re.search(r"(\d+)-(\d+) shown", files).groups())
        self.assertEqual(first, 0)
        self.assertGreater(last, 20)  # the rows a 560-pixel list shows
        rows = [l for l in text.splitlines() if '] ListItem "report-' in l]
        self.assertLess(len(rows), last + 10)  # what shows and a few around, not 3,000
        shown = [l for l in rows if "offscreen" not in l]
        self.assertEqual(len(shown), last - first + 1)
        line_of(text, r'\] Tree "Folders" @\(\d+,\d+\) 2000 items, \d+ shown')
        line_of(text, r'\] TreeItem "item-00-03" @')
        self.assertNotIn('"item-39-48"', text)
        self.assertNotIn("WARNING", text)

    def test_rows_in_view_after_scrolling_to_the_end(self):
        text = self.state()
        self.cli.run("click", str(ref(line_of(text, r'\] ListItem "report-3\.txt"'))))
        self.cli.run("keys", "ctrl+end", "--window", SEL)
        self.app.wait_event(lambda e: e.get("event") == "list_select" and e["index"] == 2999)
        text = self.state()
        files = line_of(text, r'\] List "Files" @\(\d+,\d+\) 3000 items, \d+-2999 shown')
        first = int(re.search(r"(\d+)-2999 shown", files).group(1))
        self.assertGreater(first, 2900)
        for i in (first, 2999):
            row = line_of(text, r'\] ListItem "report-%d\.txt"' % i)
            self.assertNotIn("offscreen", row)
        self.assertIn("selected", line_of(text, r'\] ListItem "report-2999\.txt"'))
        self.assertNotIn('"report-0.txt"', text)

    def test_find_reaches_a_far_row_and_select_selects_it(self):
        r = self.cli.run("find", "~report-2718*", "--window", SEL)
        found = line_of(r.stdout, r'\] ListItem "report-2718\.txt"')
        self.cli.run("select", str(ref(found)))
        e = self.app.wait_event(lambda e: e.get("event") == "list_select")
        self.assertEqual((e["index"], e["text"]), (2718, "report-2718.txt"))
        # scrolled into view, as a person would see it
        row = line_of(self.state(), r'\] ListItem "report-2718\.txt"')
        self.assertNotIn("offscreen", row)
        self.assertIn("selected", row)

    def test_find_reaches_a_far_tree_item(self):
        r = self.cli.json("find", "item-33-07", "--window", SEL)
        item = r["data"]["matches"][0]
        self.assertEqual((item["type"], item["name"]), ("TreeItem", "item-33-07"))
        self.assertIn("offscreen", item["states"])
        self.cli.run("select", str(item["id"]))
        e = self.app.wait_event(lambda e: e.get("event") == "tree_select")
        self.assertEqual(e["text"], "item-33-07")

    def test_json_carries_the_summary(self):
        data = self.cli.json("state", "--window", SEL)["data"]
        files = [e for e in data["elements"] if e["type"] == "List" and e["name"] == "Files"][0]
        self.assertEqual(files["items"]["count"], 3000)
        self.assertEqual(files["items"]["shown"][0], 0)
        rows = [e for e in data["elements"] if e["parent"] == files["id"]
                and e["type"] == "ListItem"]
        self.assertEqual([r["index"] for r in rows[:3]], [0, 1, 2])


class BigWindowOwnerData(BigWindowCli):
    """The same, with a list whose program keeps its rows (LVS_OWNERDATA): the list view
    asks bigapp for each cell, and its own search (LVN_ODFINDITEM) goes unanswered, as in
    many programs with virtual lists; find still reaches a far row."""

    def setUp(self):
        self.app = BigApp("--ownerdata")
        self.app.__enter__()
        self.cli = Cli("wa-bigwin-od-")


class RegeditClassesRoot(unittest.TestCase):
    """regedit with HKEY_CLASSES_ROOT open: hundreds of keys, those in view listed."""

    def test_hkcr_is_observed_with_what_is_in_view(self):
        cli = Cli("wa-bigwin-reg-")
        with WineProgram("windows/regedit.exe"):
            text = wait_state(cli, "Registry Editor")
            hkcr = line_of(text, r'\] TreeItem "HKEY_CLASSES_ROOT"')
            cli.run("expand", str(ref(hkcr)))
            text = cli.run("state", "--window", "Registry Editor").stdout
            tree = line_of(text, r'\] Tree "[^"]*" @\(\d+,\d+\) \d+ items, \d+ shown')
            count = int(re.search(r"\) (\d+) items", tree).group(1))
            self.assertGreater(count, 100)
            keys = [l for l in text.splitlines() if "] TreeItem " in l]
            self.assertLess(len(keys), 120)  # what shows, not every key
            shown = [l for l in keys if "offscreen" not in l]
            self.assertGreater(len(shown), 5)
            # a key far down, by its name, reached and selected
            r = cli.json("find", "TreeItem:txtfile", "--window", "Registry Editor")
            cli.run("select", str(r["data"]["matches"][0]["id"]))
            text = cli.run("state", "--window", "Registry Editor").stdout
            self.assertIn("selected", line_of(text, r'\] TreeItem "txtfile"'))


class LaterLooks(unittest.TestCase):
    """In one session (MCP), a later look takes what is unchanged of the last one and reads
    what changed: a row renamed, a cell changed, the edit's new text, a scroll."""

    def test_a_later_look_shows_every_change(self):
        with BigApp() as app:
            mcp = McpSession()
            try:
                taken = []  # per look: the nodes taken from the last one instead of read

                def state():
                    _, res = mcp.call("state", window=SEL)
                    taken.append(json.loads(res["content"][0]["text"])["data"]["taken"])
                    return "\n".join(c["text"] for c in res["content"][1:] if c["type"] == "text")

                first = state()
                self.assertEqual(taken[-1], 0)
                edit = ref(line_of(first, r'\] Edit "Filter:"'))
                self.assertIn('"report-7.txt"', first)
                mcp.call("fill", ref=str(edit), text="rename 7")
                app.wait_event(lambda e: e.get("event") == "row_changed" and e["index"] == 7)
                text = state()
                self.assertIn('value="rename 7"', line_of(text, r'\] Edit "Filter:"'))
                line_of(text, r'\] ListItem "report-7\.txt \(changed\)"')
                self.assertIn('value="Size: 42 KB; Type: Text Document"',
                              line_of(text, r'\] ListItem "report-6\.txt"'))
                # what looks as it did (the rows in view, the tree's rows, the windows) is
                # taken from the last look, not read again: 81 of 86 nodes on Wine
                self.assertGreater(taken[-1], 60)
                edit = ref(line_of(text, r'\] Edit "Filter:"'))
                mcp.call("fill", ref=str(edit), text="resize 9")
                app.wait_event(lambda e: e.get("event") == "cell_changed" and e["index"] == 9)
                text = state()
                self.assertIn('value="Size: 1234 KB; Type: Text Document"',
                              line_of(text, r'\] ListItem "report-9\.txt"'))
                line_of(text, r'\] ListItem "report-7\.txt \(changed\)"')
                # a column renamed: the header looks otherwise, so the columns are read
                # again (a later look keeps them only while their header looks the same)
                edit = ref(line_of(text, r'\] Edit "Filter:"'))
                mcp.call("fill", ref=str(edit), text="retitle 1")
                app.wait_event(lambda e: e.get("event") == "column_changed")
                text = state()
                self.assertIn('value="Bytes: 1234 KB; Type: Text Document"',
                              line_of(text, r'\] ListItem "report-9\.txt"'))
                self.assertIn('value="Bytes: 35 KB; Type: Text Document"',
                              line_of(text, r'\] ListItem "report-5\.txt"'))
                # a row listed beside the view (off screen): no pixels tell, it is read
                below = int(re.search(r"3000 items, 0-(\d+)", line_of(
                    text, r'\] List "Files"')).group(1)) + 2
                edit = ref(line_of(text, r'\] Edit "Filter:"'))
                mcp.call("fill", ref=str(edit), text="rename %d" % below)
                app.wait_event(lambda e: e.get("event") == "row_changed" and e["index"] == below)
                text = state()
                self.assertIn("offscreen", line_of(
                    text, r'\] ListItem "report-%d\.txt \(changed\)"' % below))
                # scrolled away and back: the rows in view are the ones shown
                files = ref(line_of(text, r'\] List "Files"'))
                mcp.call("scroll", ref=str(files), direction="down", amount=10)
                text = state()
                first_shown = int(re.search(r"3000 items, (\d+)-", line_of(
                    text, r'\] List "Files"')).group(1))
                self.assertGreater(first_shown, 10)
                self.assertNotIn("offscreen", line_of(text, r'\] ListItem "report-%d\.txt"'
                                                      % first_shown))
            finally:
                mcp.close()


class FileDialogFolder(unittest.TestCase):
    """notepad's Open dialog on a folder of 400 files: the files in view listed, the rest
    counted; a far one found, selected and opened (notepad then shows what it holds)."""

    def test_a_far_file_is_found_and_opened(self):
        folder = tempfile.mkdtemp(prefix="wa-many-")
        for i in range(400):
            with open(os.path.join(folder, "file-%04d.txt" % i), "w") as f:
                f.write("hello %d" % i)
        cli = Cli("wa-bigwin-dlg-")
        with WineProgram("windows/system32/notepad.exe"):
            wait_state(cli, "Untitled - Notepad")
            cli.run("keys", "ctrl+o", "--window", "Untitled - Notepad")
            text = wait_state(cli, "Open")
            name = ref(line_of(text, r'\] (Edit|ComboBox) "File name:?"'))
            cli.run("fill", str(name), watest.win_path(folder))
            cli.run("keys", "enter", "--window", "Open")
            deadline = time.monotonic() + 30
            while True:
                text = cli.run("state", "--window", "Open").stdout
                m = re.search(r'\] List "[^"]*" @\(\d+,\d+\) (\d+) items', text)
                if m and int(m.group(1)) >= 400:
                    break
                self.assertLess(time.monotonic(), deadline, text[-2000:])
                time.sleep(0.5)
            rows = [l for l in text.splitlines() if '] ListItem "file-' in l]
            self.assertLess(len(rows), 120)  # what shows and a few around, not 400
            self.assertTrue([l for l in rows if "offscreen" not in l], text[-2000:])
            r = cli.json("find", "~file-0350*", "--window", "Open")
            cli.run("select", str(r["data"]["matches"][0]["id"]))
            cli.run("keys", "enter", "--window", "Open")
            deadline = time.monotonic() + 30
            while "hello 350" not in cli.run("state", "--window", "Notepad", check=False).stdout:
                self.assertLess(time.monotonic(), deadline, "file-0350.txt was not opened")
                time.sleep(0.5)


class RegeditLoop(unittest.TestCase):
    """The loop on regedit: a scripted model opens HKEY_CLASSES_ROOT, sees its keys in
    view counted, finds a far key by name and selects it."""

    def test_model_opens_hkcr_and_selects_a_far_key(self):
        cli = Cli("wa-bigwin-regloop-")
        with WineProgram("windows/regedit.exe"):
            wait_state(cli, "Registry Editor")
            seen = {}

            def policy(req):
                texts = "\n".join(observation_texts(req))
                step = seen.get("step", 0)
                seen["step"] = step + 1
                call = lambda **a: {"tool_calls": [watest.tool_call(a)]}  # noqa: E731
                if step == 0:
                    return call(action="window_screenshot", mode="a11y")
                if step == 1:
                    m = re.findall(r'\[(\d+)\] TreeItem \\?"HKEY_CLASSES_ROOT', texts)
                    return call(action="expand", element=int(m[-1])) if m else \
                        {"text": "FAILED: no HKCR in " + texts[-800:]}
                if step == 2:
                    seen["observed"] = texts
                    return call(action="find", selector="TreeItem:txtfile")
                if step == 3:
                    m = re.findall(r'"matches":\[\{"id":(\d+)', texts.replace(" ", ""))
                    return call(action="select", element=int(m[-1])) if m else \
                        {"text": "FAILED: no match in " + texts[-800:]}
                return {"text": "done"} if step == 4 else None

            with fake_llm({"steps": []}) as fake:
                fake.policy = policy
                run = watest.AgentRun(fake, "--max-steps", "8", "--mode", "a11y",
                                      prompt="open HKEY_CLASSES_ROOT and select txtfile")
                run.run(timeout=300)
            self.assertEqual(run.code, 0, run.err[-2000:])
            self.assertRegex(seen.get("observed", ""), r'Tree \\?"[^"]*\\?" @\(\d+,\d+\) \d{3,} items')
            text = cli.run("state", "--window", "Registry Editor").stdout
            self.assertIn("selected", line_of(text, r'\] TreeItem "txtfile"'))


class BigWindowLoop(unittest.TestCase):
    """The loop: a scripted model that sees the observation, finds row 2,718 with the
    desktop tool's find and selects the id find gave it."""

    def test_model_finds_and_selects_a_far_row(self):
        with BigApp() as app:
            seen = {}

            def policy(req):
                texts = "\n".join(observation_texts(req))
                step = seen.get("step", 0)
                seen["step"] = step + 1
                if step == 0:
                    return {"tool_calls": [watest.tool_call(
                        {"action": "window_screenshot", "mode": "a11y"})]}
                if step == 1:
                    seen["observed"] = texts
                    return {"tool_calls": [watest.tool_call(
                        {"action": "find", "selector": "~report-2718*"})]}
                if step == 2:
                    m = re.findall(r'"matches":\[\{"id":(\d+)', texts.replace(" ", ""))
                    if not m:
                        return {"text": "FAILED: no match in " + texts[-800:]}
                    return {"tool_calls": [watest.tool_call(
                        {"action": "select", "element": int(m[-1])})]}
                return {"text": "done"} if step == 3 else None

            with fake_llm({"steps": []}) as fake:
                fake.policy = policy
                run = watest.AgentRun(fake, "--max-steps", "6", "--mode", "a11y",
                                      prompt="select row 2718 of the Files list")
                run.run(timeout=240)
            self.assertEqual(run.code, 0, run.err[-2000:])
            self.assertRegex(seen.get("observed", ""), r'List \\?"Files\\?" @\(\d+,\d+\) 3000 items')
            e = app.wait_event(lambda e: e.get("event") == "list_select")
            self.assertEqual(e["index"], 2718)


if __name__ == "__main__":
    watest.main()
