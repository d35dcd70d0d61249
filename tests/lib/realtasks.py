"""The real-program suite: tasks on Wine's own programs (and testapp's menus), each a
plan of steps that two drivers carry out, judged outside winagent.

A plan names what to act on by type and name, never by ref: the command-line driver
reads `winagent state` (or the state an action returned) and acts on the ref it finds
there, as an agent outside would; the loop driver is a scripted model (a policy of the
fake LLM) that reads the observation it was sent and picks the element's id from it.
Judges look at what the program left behind: the registry (`reg query`), a file on
disk, a process gone, testapp's event log.

Wine 8 serves no other program's menu items (no cross-process route reads them): their
open menus are `Menu` elements whose items are not readable, so the tasks pick menu
items there with the keyboard, after checking that the open menu is in what they saw.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import watest
from watest import TestApp, WINAGENT_EXE, fake_llm

SYSTEM32 = "windows/system32/"
WORK = tempfile.mkdtemp(prefix="wa-suite-")
SUITE_KEY = r"HKCU\Software\WinagentSuite"

# ---- the steps of a plan ----


class Pick:
    """An element by type and name; `below` = (type, name) of a label the element is
    the nearest below (dialogs whose edits all carry one name); name None: any.
    Rows without names (a list the program draws itself) are picked by place, as one
    reading the image would: `in_list` k keeps the items of the k-th List of the
    listing (0-based), `nth` takes the n-th match (0-based) in listing order."""

    def __init__(self, type_, name=None, below=None, nth=0, in_list=None):
        self.type, self.name, self.below = type_, name, below
        self.nth, self.in_list = nth, in_list

    def items_of_list(self, lines):
        """The lines under the in_list-th List of a listing with depths (a tree)."""
        lists = [i for i, l in enumerate(lines) if l["type"] == "List" and l["depth"] is not None]
        if self.in_list >= len(lists):
            return []
        at = lists[self.in_list]
        depth = lines[at]["depth"]
        out = []
        for l in lines[at + 1:]:
            if l["depth"] is None or l["depth"] <= depth:
                break
            out.append(l)
        return out

    def find(self, lines):
        """The matching line of a parsed listing, or None."""
        if self.in_list is not None:
            lines = self.items_of_list(lines)
        cands = [l for l in lines if l["type"] == self.type
                 and (self.name is None or l["name"] == self.name)]
        if self.nth:
            return cands[self.nth] if len(cands) > self.nth else None
        if self.below:
            label = [l for l in lines if (l["type"], l["name"]) == self.below]
            if not label or label[0]["y"] is None:
                return None
            y0 = label[0]["y"]
            cands = sorted((l for l in cands if l["y"] is not None and l["y"] > y0),
                           key=lambda l: l["y"] - y0)
        return cands[0] if cands else None

    def __str__(self):
        s = '%s "%s"' % (self.type, self.name if self.name is not None else "*")
        return s + (' below %s "%s"' % self.below if self.below else "")


class Act:
    """An element action: click, double_click, right_click, set_value, select, expand.
    expect: error codes the action must fail with (a click another program's window
    covers, a program that crashes over it), within `within` seconds; the driver
    records each such failure in task.failures as (code, seconds, message)."""

    def __init__(self, action, pick, value=None, item=None, menu=False, expect=(), within=30):
        self.action, self.pick, self.value, self.item = action, pick, value, item
        self.menu = menu  # it opens a menu: the next observation must show it
        self.expect, self.within = expect, within


class Keys:
    """A key combination; menu=True: the open menu must be in the next observation."""

    def __init__(self, keys, menu=False):
        self.keys, self.menu = keys, menu


class Type:
    def __init__(self, text):
        self.text = text


class Window:
    """From here on the task acts on this window (a dialog that just opened)."""

    def __init__(self, title):
        self.title = title


class MenuPath:
    def __init__(self, path):
        self.path = path


class MoveWindow:
    def __init__(self, x, y, w, h):
        self.rect = (x, y, w, h)


CLI_ACTION = {"click": "click", "double_click": "dblclick", "right_click": "rightclick",
              "set_value": "fill", "select": "select", "expand": "expand",
              "collapse": "collapse", "toggle": "toggle", "invoke": "invoke"}

# ---- reading listings ----

LINE = re.compile(r'^(\s*)\[(\d+)\] (\S+) "((?:[^"\\]|\\.)*)"(?: @\((-?\d+),(-?\d+)\))?(.*)$')


def parse_listing(text):
    """The element lines of a state listing or an observation's tree (or the list of
    numbered marks sent with an image): dicts with ref, type, name, x, y, rest."""
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            # marks listed beside an image have no indent and no place: no depth
            tree = m.group(5) is not None
            out.append({"ref": int(m.group(2)), "type": m.group(3),
                        "depth": len(m.group(1)) // 2 if tree else None,
                        "name": re.sub(r"\\(.)", r"\1", m.group(4)),
                        "x": int(m.group(5)) if m.group(5) else None,
                        "y": int(m.group(6)) if m.group(6) else None, "rest": m.group(7)})
    return out


def shows_open_menu(lines):
    return any(l["type"] == "Menu" for l in lines)


def sees_open_menu(text, lines):
    """Whether an observation shows an open menu: a Menu element in its tree, the change
    report saying one opened, or the verdict of an image sent because of one."""
    return shows_open_menu(lines) or "menu opened" in text or "an open menu" in text


# ---- the programs ----


class Program:
    """A program started by its path in the prefix (argv after it), by a whole path (a
    program built outside the prefix), or testapp."""

    def __init__(self, path, *args, cwd=None, wait_title=None):
        """wait_title: start() returns once a window of that title is listed (a program
        that must be up before the next one starts)."""
        self.path, self.args, self.cwd, self.wait_title = path, args, cwd, wait_title
        self.proc = None
        self.app = None

    def start(self):
        if self.path == "testapp":
            self.app = TestApp(*self.args).__enter__()
            self.proc = self.app.proc
            return self
        exe = self.path if os.path.isabs(self.path) else os.path.join(
            os.environ["WINEPREFIX"], "drive_c", *self.path.split("/"))
        # a group of its own: some programs (winecfg) go on in a child of the process
        # started here, and the kill must reach it too
        self.proc = subprocess.Popen(["wine", exe, *self.args], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, cwd=self.cwd or WORK,
                                     start_new_session=True)
        if self.wait_title:
            listed = poll(lambda: ('"%s"' % self.wait_title) in window_list(), 30, 0.3)
            if not listed:
                raise StepFailed("%s never showed its window" % self.path)
        return self

    def wait_exit(self, timeout=10.0):
        try:
            self.proc.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self):
        if self.app:
            self.app.kill()
        elif self.proc:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass  # the group is gone already
            self.proc.wait(10)


def wine_quiet(*args, timeout=30):
    return subprocess.run(["wine", *args], capture_output=True, text=True, encoding="utf-8",
                          errors="replace", timeout=timeout, stdin=subprocess.DEVNULL)


def reg_query(key, value=None):
    """The data of a registry value (None when absent), or with value None whether the
    key exists: `reg query` as a person would check it."""
    args = ["reg", "query", key] + (["/v", value] if value is not None else [])
    r = wine_quiet(*args)
    if r.returncode != 0:
        return None
    if value is None:
        return True
    for line in r.stdout.splitlines():
        m = re.match(r"^\s+(.*?)\s+(REG_\w+)(?:\s+(.*))?$", line)
        if m and m.group(1) == value:
            return (m.group(3) or "").rstrip()
    return None


def reg(*args):
    wine_quiet("reg", *args, "/f")


def close_gracefully(prog, image):
    """Asks the program's windows to close, as the user would (WM_CLOSE through
    taskkill without /f), so that it saves its settings; waits for it to exit."""
    wine_quiet("taskkill", "/im", image)
    return prog.wait_exit(15)


def poll(pred, timeout=8.0, every=0.2):
    """pred()'s first truthy value within timeout, else its last value."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(every)


def file_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


# ---- the grounds of other languages ----


class Ground:
    """The Wine ground of another language (tests/wine/harness.sh with
    WINAGENT_WINE_LANG): a display and a prefix of its own, made once under that locale
    and kept in build/native/wine/<lang>/ like the main one. Brought up when a task of
    that language first runs, down when the suite's test ends."""

    up_now = {}

    def __init__(self, lang):
        self.lang = lang
        self.state = os.path.join(os.environ.get("WINAGENT_WINE_STATE", ""),
                                  lang.split(".")[0])

    def harness(self, cmd):
        env = dict(os.environ, WINAGENT_WINE_LANG=self.lang)
        for k in ("DISPLAY", "WINEPREFIX", "LANG", "LC_ALL"):
            env.pop(k, None)
        r = subprocess.run(["bash", os.path.join(watest.SRC, "tests", "wine", "harness.sh"),
                            cmd], env=env, capture_output=True, text=True, timeout=600,
                           stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise StepFailed("the %s ground did not come %s: %s" % (self.lang, cmd,
                                                                   r.stderr[-500:]))

    def env(self):
        """The variables of the running ground (its env.sh)."""
        out = {}
        with open(os.path.join(self.state, "env.sh"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r'^export (\w+)="?(.*?)"?$', line.strip())
                if m:
                    out[m.group(1)] = m.group(2)
        return out

    @classmethod
    def of(cls, lang):
        g = cls.up_now.get(lang)
        if not g:
            g = cls(lang)
            g.harness("up")
            cls.up_now[lang] = g
        return g

    @classmethod
    def down_all(cls):
        for g in cls.up_now.values():
            g.harness("down")
        cls.up_now.clear()


class on_ground:
    """While a task of another language runs, every program, winagent and `reg` call of
    the suite runs on that language's ground (os.environ is what they all read)."""

    def __init__(self, lang):
        self.lang, self.saved = lang, None

    def __enter__(self):
        if self.lang:
            self.saved = dict(os.environ)
            os.environ.update(Ground.of(self.lang).env())
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            os.environ.clear()
            os.environ.update(self.saved)
        return False


# ---- the task table ----


class Task:
    """name; what it exercises; programs to start (the first is the one acted on, its
    window `window`); the plan; setup() before, judge(task) -> (ok, detail) after,
    cleanup() in any case."""

    def __init__(self, name, about, programs, window, plan, judge, setup=None, cleanup=None,
                 prompt=None, lang=None, shell=False, needs=()):
        """lang: the locale of the ground it runs on (a prefix of its own, Ground).
        shell: a program of the task is a terminal (PuTTY), which the gate counts as a
        route to a shell: the command line acts with --allow-shell, the loop with
        --shell on. needs: files (environment variables naming them) without which the
        task cannot run; it fails saying which."""
        self.shell, self.needs = shell, needs
        self.name, self.about, self.programs, self.window = name, about, programs, window
        self.plan, self.judge_fn = plan, judge
        self.setup_fn, self.cleanup_fn = setup, cleanup
        self.prompt = prompt or about
        self.lang = lang
        self.running = []
        self.failures = []  # (code, seconds, message) of the steps expected to fail

    def start(self):
        self.failures = []
        missing = [n for n in self.needs if not os.path.exists(os.environ.get(n, "") or "/-")]
        if missing:
            raise StepFailed("%s names no file here: run ./dev.sh deps, which builds the "
                             "programs the suite needs" % ", ".join(missing))
        if self.setup_fn:
            self.setup_fn()
        self.running = []
        for p in self.programs():
            self.running.append(p.start())

    @property
    def main(self):
        return self.running[-1]

    def judge(self):
        return self.judge_fn(self)

    def stop(self):
        for p in self.running:
            p.kill()
        if self.cleanup_fn:
            self.cleanup_fn()


def out_path(name):
    return os.path.join(WORK, name)


def regedit_to_suite_key():
    """Opens HKCU > Software in regedit's tree and selects the suite's key."""
    return [Act("expand", Pick("TreeItem", "HKEY_CURRENT_USER")),
            Act("expand", Pick("TreeItem", "Software")),
            Act("select", Pick("TreeItem", "WinagentSuite"))]


def suite_key_setup(*values):
    def setup():
        reg("delete", SUITE_KEY)
        reg("add", SUITE_KEY)
        for name, data in values:
            reg("add", SUITE_KEY, "/v", name, "/d", data)
    return setup


def suite_key_cleanup():
    reg("delete", SUITE_KEY)


def judge_file(name, want, exact=True):
    def judge(task):
        text = poll(lambda: file_text(out_path(name)), 8)
        ok = text is not None and (text == want if exact else want in text)
        return ok, "%s holds %r" % (name, (text or "")[:200])
    return judge


def judge_reg(key, value, want):
    """value None: the key's presence (want True)."""
    def judge(task):
        got = [None]

        def check():
            got[0] = reg_query(key, value)
            return got[0] == want
        poll(check, 8)
        return got[0] == want, "%s %s = %r" % (key, value or "(key)", got[0])
    return judge


def judge_value_deleted(task):
    gone = poll(lambda: reg_query(SUITE_KEY, "Obsolete") is None, 8)
    kept = reg_query(SUITE_KEY, "Kept")
    return gone and kept == "stays", "Obsolete %s, Kept = %r" % (
        "deleted" if gone else "still there", kept)


def remove_outputs(*names):
    def clean():
        for n in names:
            try:
                os.remove(out_path(n))
            except OSError:
                pass
    return clean


def winemine_reset():
    key = r"HKCU\Software\Microsoft\WinMine"
    for name, data in (("Difficulty", "0"), ("Height", "9"), ("Width", "9"), ("Mines", "10")):
        reg("add", key, "/v", name, "/t", "REG_DWORD", "/d", data)


def judge_winemine(want):
    """Closes winemine (it saves its board on exit) and reads what it saved."""
    def judge(task):
        closed = close_gracefully(task.main, "winemine.exe")
        key = r"HKCU\Software\Microsoft\WinMine"
        got = {k: reg_query(key, k) for k in want}
        return closed and got == want, "closed=%s saved %s" % (closed, got)
    return judge


def judge_notepad_saved(want):
    """Notepad saves its settings (window size among them) when it exits."""
    def judge(task):
        exited = task.main.wait_exit(10)
        key = r"HKCU\Software\Microsoft\Notepad"
        got = {k: reg_query(key, k) for k in want}
        return exited and got == want, "exited=%s saved %s" % (exited, got)
    return judge


def notepad_settings(**values):
    def setup():
        for name, data in values.items():
            reg("add", r"HKCU\Software\Microsoft\Notepad", "/v", name, "/t", "REG_DWORD",
                "/d", str(data))
    return setup


class KeptValues:
    """Registry values a task changes on purpose, put back as they were afterwards (the
    prefix is kept between runs)."""

    def __init__(self, key, *names):
        self.key, self.names, self.saved = key, names, {}

    def save(self):
        r = wine_quiet("reg", "query", self.key)
        self.saved = {n: None for n in self.names}
        for line in r.stdout.splitlines():
            m = re.match(r"^\s+(.*?)\s+(REG_\w+)(?:\s+(.*))?$", line)
            if m and m.group(1) in self.saved:
                self.saved[m.group(1)] = (m.group(2), (m.group(3) or "").rstrip())

    def restore(self):
        for name, v in self.saved.items():
            if v is None:
                reg("delete", self.key, "/v", name)
            else:
                reg("add", self.key, "/v", name, "/t", v[0], "/d", v[1])


NOTEPAD_SIZE = KeptValues(r"HKCU\Software\Microsoft\Notepad", "iWindowPosX", "iWindowPosY",
                          "iWindowPosDX", "iWindowPosDY")


def judge_testapp_menu(item):
    def judge(task):
        try:
            e = task.main.app.wait_event(lambda e: e.get("event") == "menu", 8)
        except AssertionError as exc:
            return False, str(exc)[:200]
        items = [e["item"] for e in task.main.app.events() if e.get("event") == "menu"]
        return items == [item], "testapp got menu commands %s" % items
    return judge


def judge_gone(task):
    victim = task.running[0]
    gone = victim.wait_exit(10)
    return gone, "the WineMine process %s" % ("exited" if gone else "still runs")


IE_MAIN = r"HKCU\Software\Microsoft\Internet Explorer\Main"
NT_VERSION = r"HKLM\Software\Microsoft\Windows NT\CurrentVersion"
NOTE = "Suite note: milk, eggs, bread"
RICH = "Suite wordpad text"


def winver_restore():
    # winecfg writes the global version into HKLM; put back Wine's default of this suite
    wine_quiet("winecfg.exe", "-v", "win7")


# ---- round two: the common dialogs, the value dialogs, the controls, other languages ----

NOTEPAD_KEY = r"HKCU\Software\Microsoft\Notepad"
NOTEPAD_FONT = KeptValues(NOTEPAD_KEY, "lfFaceName", "lfWeight", "lfItalic")
NOTEPAD_PAGE = KeptValues(NOTEPAD_KEY, "szHeader", "iMarginLeft")
DE_TEXT = "Grüße aus Köln: Äpfel, Öl und Straße"
ZH_TEXT = "你好，世界：记事本保存中文"


def notepad_font_setup():
    NOTEPAD_FONT.save()
    reg("add", NOTEPAD_KEY, "/v", "lfFaceName", "/d", "DejaVu Sans")
    reg("add", NOTEPAD_KEY, "/v", "lfWeight", "/t", "REG_DWORD", "/d", "400")


def judge_failed(codes, within, *words):
    """The step expected to fail did, with one of codes, within `within` seconds, its
    message naming each of words."""
    def judge(task):
        if not task.failures:
            return False, "no step failed as expected"
        code, took, msg = task.failures[0]
        ok = code in codes and took <= within and all(w in msg for w in words)
        return ok, "%s after %.1f s: %s" % (code, took, msg[:200])
    return judge


def judge_crash(task):
    ok, detail = judge_failed(("target_gone", "target_hung"), 20)(task)
    gone = task.main.wait_exit(30)
    return ok and gone, detail + "; notepad %s" % ("ended" if gone else "still runs")


def wait_debugger_gone():
    """Wine's crash debugger shows a console for a while: the next task starts without it."""
    poll(lambda: '"Wine Debugger"' not in window_list(), 30, 0.5)


def judge_text_file(name, want, encoding):
    def judge(task):
        def read():
            try:
                with open(out_path(name), "rb") as f:
                    return f.read()
            except OSError:
                return None
        data = poll(read, 8)
        text = data.decode(encoding, "replace").lstrip("\ufeff") if data else None
        return text == want, "%s holds %r" % (name, text)
    return judge


def judge_lines(name, want):
    """The file's lines, whatever line ends the program chose."""
    def judge(task):
        text = poll(lambda: file_text(out_path(name)), 8)
        got = text.replace("\r\n", "\n").split("\n") if text is not None else None
        return got == want, "%s holds %r" % (name, text)
    return judge


def judge_export(task):
    try:
        with open(out_path("suite.reg"), "rb") as f:
            text = f.read().decode("utf-16", "replace")
    except OSError:
        return False, "no suite.reg"
    want = ("[HKEY_CURRENT_USER\\Software\\WinagentSuite]", '"Kept"="stays"')
    return all(w in text for w in want), "suite.reg: %r" % text[:300]


def judge_renamed(task):
    new, old = reg_query(SUITE_KEY, "NewName"), reg_query(SUITE_KEY, "OldName")
    return new == "x" and old is None, "NewName = %r, OldName = %r" % (new, old)


def judge_path_renamed(folder, old, new):
    def judge(task):
        there = poll(lambda: os.path.exists(os.path.join(folder, new)), 8)
        gone = not os.path.exists(os.path.join(folder, old))
        return there and gone, "%s: %s" % (folder, sorted(os.listdir(folder)))
    return judge


EXPLORER_DIR = os.path.join(WORK, "renames")
SUITE_APP = os.path.join(WORK, "suiteapp.exe")
APP_KEY = r"HKCU\Software\Wine\AppDefaults\suiteapp.exe"
DPI = KeptValues(r"HKCU\Control Panel\Desktop", "LogPixels")
COLORS = KeptValues(r"HKCU\Control Panel\Colors", "Background")
METRICS = KeptValues(r"HKCU\Control Panel\Desktop\WindowMetrics", "ScrollWidth",
                     "ScrollHeight")


def explorer_setup():
    os.makedirs(EXPLORER_DIR, exist_ok=True)
    for n in os.listdir(EXPLORER_DIR):
        os.remove(os.path.join(EXPLORER_DIR, n))
    with open(os.path.join(EXPLORER_DIR, "draft.txt"), "w") as f:
        f.write("draft")


def suite_app_setup():
    shutil.copy(watest.TESTAPP_EXE, SUITE_APP)
    reg("delete", APP_KEY)


def winefile_setup():
    """A program in C:\\ root: the row after the five folders of a new prefix."""
    shutil.copy(watest.TESTAPP_EXE, os.path.join(os.environ["WINEPREFIX"], "drive_c",
                                                 "suite-rows.exe"))


def winefile_cleanup():
    subprocess.run(["pkill", "-f", "suite-rows.exe"], capture_output=True)
    try:
        os.remove(os.path.join(os.environ["WINEPREFIX"], "drive_c", "suite-rows.exe"))
    except OSError:
        pass


def judge_started(image):
    """A program the task opened runs (as `ps` shows Wine's processes)."""
    def judge(task):
        def running():
            r = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True)
            return [line for line in r.stdout.splitlines() if image in line]
        found = poll(running, 15, 0.5)
        return bool(found), "running: %s" % (found or "nothing named " + image)
    return judge


def open_setup():
    with open(out_path("opened.txt"), "w", newline="") as f:
        f.write("second line")


def notepad_replace_plan():
    return [Act("set_value", Pick("Edit"), value="milk Milk"), Keys("alt+s", menu=True),
            Keys("r"), Window("Replace"),
            Act("set_value", Pick("Edit", "Find What:"), value="Milk"),
            Act("set_value", Pick("Edit", "Replace With:"), value="Tea")]


def notepad_save_in(language, lang, text, about, window, menu, dialog, file_label,
                    encoding_label, save):
    """The same task in another language: notepad, typing text of that language and
    saving it as UTF-8 through Save As, every name in that language."""
    name = "notepad_%s.txt" % language
    return Task("notepad_save_" + language, about, NOTEPAD, window,
                [Type(text), Keys(menu[0], menu=True), Keys(menu[1]), Window(dialog),
                 Act("set_value", Pick("ComboBox", file_label),
                     value=watest.win_path(out_path(name))),
                 Act("select", Pick("ComboBox", encoding_label), item="Unicode (UTF-8)"),
                 Act("click", Pick("Button", save))],
                judge_text_file(name, text, "utf-8"), cleanup=remove_outputs(name), lang=lang)


def winecfg_version_in(language, lang, about, window, label, ok):
    """winecfg's Windows version in another language."""
    return Task("winecfg_version_" + language, about, WINECFG, window,
                [Act("select", Pick("ComboBox", label), item="Windows XP"),
                 Act("click", Pick("Button", ok))],
                judge_reg(NT_VERSION, "ProductName", "Microsoft Windows XP"),
                cleanup=winver_restore, lang=lang)


def NOTEPAD():
    return [Program(SYSTEM32 + "notepad.exe")]


def REGEDIT():
    return [Program("windows/regedit.exe")]


def WINECFG():
    return [Program(SYSTEM32 + "winecfg.exe")]


TASKS_ROUND_TWO = [
    Task("notepad_font_by_click",
         "In Notepad's Edit > Font dialog, click DejaVu Serif in the Font list and Bold in "
         "the Font Style list, press OK and quit Notepad",
         NOTEPAD, "Untitled - Notepad",
         [Keys("alt+e", menu=True), Keys("f"), Window("Font"),
          Act("click", Pick("ListItem", "DejaVu Serif")), Act("click", Pick("ListItem", "Bold")),
          Act("click", Pick("Button", "OK")), Window("Untitled - Notepad"),
          Keys("alt+f", menu=True), Keys("x")],
         judge_notepad_saved({"lfFaceName": "DejaVu Serif", "lfWeight": "0x2bc"}),
         setup=notepad_font_setup, cleanup=NOTEPAD_FONT.restore),
    Task("notepad_page_setup",
         "In Notepad's File > Page Setup, set the header to 'Suite header' and the left "
         "margin to 30 mm, press OK and quit Notepad",
         NOTEPAD, "Untitled - Notepad",
         [Keys("alt+f", menu=True), Keys("t"), Window("Page Setup"),
          Act("set_value", Pick("Edit", "Header:"), value="Suite header"),
          Act("set_value", Pick("Edit", "Left:"), value="30"),
          Act("click", Pick("Button", "OK")), Window("Untitled - Notepad"),
          Keys("alt+f", menu=True), Keys("x")],
         judge_notepad_saved({"szHeader": "Suite header", "iMarginLeft": "0xbb8"}),
         setup=NOTEPAD_PAGE.save, cleanup=NOTEPAD_PAGE.restore),
    Task("notepad_replace_match_case",
         "In Notepad, type 'milk Milk', replace the capitalised Milk by Tea in Search > "
         "Replace with Match Case on, and save the text as a file",
         NOTEPAD, "Untitled - Notepad",
         notepad_replace_plan() +
         [Act("click", Pick("CheckBox", "Match Case")),
          # the first press finds the next match, the second replaces it and looks for
          # another: none is left, and a message box says so
          Act("click", Pick("Button", "Replace")), Act("click", Pick("Button", "Replace")),
          Window("Notepad"), Act("click", Pick("Button", "OK")),
          Window("Replace"), Act("click", Pick("Button", "Cancel")),
          Window("Untitled - Notepad"), Keys("ctrl+s"), Window("Save As"),
          Act("set_value", Pick("ComboBox", "File name:"),
              value=watest.win_path(out_path("replaced.txt"))),
          Act("click", Pick("Button", "Save"))],
         judge_file("replaced.txt", "milk Tea"), cleanup=remove_outputs("replaced.txt")),
    Task("notepad_open_file",
         "In Notepad, open a file through File > Open, add a first line to it and save it",
         NOTEPAD, "Untitled - Notepad",
         [Keys("ctrl+o"), Window("Open"),
          Act("set_value", Pick("ComboBox", "File name:"),
              value=watest.win_path(out_path("opened.txt"))),
          Act("click", Pick("Button", "Open")), Window("opened.txt - Notepad"),
          Type("first line\n"), Keys("ctrl+s")],
         judge_lines("opened.txt", ["first line", "second line"]),
         setup=open_setup, cleanup=remove_outputs("opened.txt")),
    Task("notepad_replace_all_crash",
         "In Notepad, replace every Milk by Tea with Replace All, which crashes Wine 8's "
         "notepad: the click must come back within 20 s saying the program went or hung",
         NOTEPAD, "Untitled - Notepad",
         notepad_replace_plan() +
         [Act("click", Pick("Button", "Replace All"), expect=("target_gone", "target_hung"))],
         judge_crash, cleanup=wait_debugger_gone),
    Task("notepad_click_covered",
         "Click into Notepad's text while another program's window stays on top of it: the "
         "click must be refused, naming that window",
         lambda: [Program(SYSTEM32 + "notepad.exe", wait_title="Untitled - Notepad"),
                  Program("testapp", "--topmost", "1", "--x", "200", "--y", "200",
                          "--title", "Cover app")],
         "Untitled - Notepad",
         [Act("click", Pick("Edit"), expect=("covered",))],
         judge_failed(("covered",), 20, "Cover app", "testapp.exe")),
    Task("regedit_dword_decimal",
         "In the Registry Editor, add a DWORD value Count = 1234, typed in decimal in its Edit "
         "DWORD dialog",
         REGEDIT, "Registry Editor",
         regedit_to_suite_key() + [Keys("alt+e", menu=True), Keys("n", menu=True), Keys("d"),
                                   Type("Count"), Keys("enter"),
                                   Act("double_click", Pick("ListItem", "Count")),
                                   Window("Edit DWORD"),
                                   Act("click", Pick("RadioButton", "Decimal")),
                                   Act("set_value", Pick("Edit", "Value data:"), value="1234"),
                                   Act("click", Pick("Button", "OK"))],
         judge_reg(SUITE_KEY, "Count", "0x4d2"),
         setup=suite_key_setup(), cleanup=suite_key_cleanup),
    Task("regedit_dword_hex",
         "In the Registry Editor, add a DWORD value Mask = ff, typed in hexadecimal",
         REGEDIT, "Registry Editor",
         regedit_to_suite_key() + [Keys("alt+e", menu=True), Keys("n", menu=True), Keys("d"),
                                   Type("Mask"), Keys("enter"),
                                   Act("double_click", Pick("ListItem", "Mask")),
                                   Window("Edit DWORD"),
                                   Act("set_value", Pick("Edit", "Value data:"), value="ff"),
                                   Act("click", Pick("Button", "OK"))],
         judge_reg(SUITE_KEY, "Mask", "0xff"),
         setup=suite_key_setup(), cleanup=suite_key_cleanup),
    Task("regedit_multi_string",
         "In the Registry Editor, add a multi-string value Lines holding 'one' and 'two'",
         REGEDIT, "Registry Editor",
         regedit_to_suite_key() + [Keys("alt+e", menu=True), Keys("n", menu=True), Keys("m"),
                                   Type("Lines"), Keys("enter"),
                                   Act("double_click", Pick("ListItem", "Lines")),
                                   Window("Edit Multi-String"),
                                   Act("set_value", Pick("Edit", "Value data:"),
                                       value="one\r\ntwo"),
                                   Act("click", Pick("Button", "OK"))],
         judge_reg(SUITE_KEY, "Lines", "one\\0two"),
         setup=suite_key_setup(), cleanup=suite_key_cleanup),
    Task("regedit_rename_value",
         "In the Registry Editor, rename the value OldName to NewName in place (Edit > Rename)",
         REGEDIT, "Registry Editor",
         regedit_to_suite_key() + [Act("click", Pick("ListItem", "OldName")),
                                   Keys("alt+e", menu=True), Keys("r"),
                                   Act("set_value", Pick("Edit", ""), value="NewName"),
                                   Keys("enter")],
         judge_renamed, setup=suite_key_setup(("OldName", "x")), cleanup=suite_key_cleanup),
    Task("regedit_export_branch",
         "In the Registry Editor, export the selected branch HKCU\\Software\\WinagentSuite to a "
         ".reg file through Registry > Export",
         REGEDIT, "Registry Editor",
         regedit_to_suite_key() + [Keys("alt+r", menu=True), Keys("e"),
                                   Window("Export Registry File"),
                                   Act("click", Pick("RadioButton", "Selected branch:")),
                                   Act("set_value", Pick("ComboBox", "File name:"),
                                       value=watest.win_path(out_path("suite.reg"))),
                                   Act("click", Pick("Button", "Save"))],
         judge_export, setup=suite_key_setup(("Kept", "stays")),
         cleanup=lambda: (suite_key_cleanup(), remove_outputs("suite.reg")())),
    Task("winecfg_add_application",
         "In Wine configuration's Applications tab, add an application through Add "
         "application... (an Open dialog), give it Windows XP and press OK",
         WINECFG, "Wine configuration",
         [Act("select", Pick("TabItem", "Applications")),
          Act("click", Pick("Button", "Add application...")),
          Window("Select an executable file"),
          Act("set_value", Pick("ComboBox", "File name:"), value=watest.win_path(SUITE_APP)),
          Act("click", Pick("Button", "Open")), Window("Wine configuration for suiteapp.exe"),
          Act("select", Pick("ComboBox", "Windows Version:"), item="Windows XP"),
          Act("click", Pick("Button", "OK"))],
         judge_reg(APP_KEY, "Version", "winxp64"), setup=suite_app_setup,
         cleanup=lambda: reg("delete", APP_KEY)),
    Task("winecfg_dpi_slider",
         "In Wine configuration's Graphics tab, move the screen resolution slider one step "
         "up (120 dpi) and press OK",
         WINECFG, "Wine configuration",
         [Act("select", Pick("TabItem", "Graphics")), Act("set_value", Pick("Slider"), value="1"),
          Act("click", Pick("Button", "OK"))],
         judge_reg(r"HKCU\Control Panel\Desktop", "LogPixels", "0x78"),
         setup=DPI.save, cleanup=DPI.restore),
    Task("winecfg_color_dialog",
         "In Wine configuration's Desktop Integration tab, give the Desktop item the colour "
         "200, 100, 50 in its Color dialog (Define Custom Colors) and press OK twice",
         WINECFG, "Wine configuration",
         [Act("select", Pick("TabItem", "Desktop Integration")),
          Act("select", Pick("ComboBox", "Item:"), item="Desktop"),
          Act("click", Pick("Button", "")), Window("Color"),
          Act("click", Pick("Button", "Define Custom Colors >>")),
          Act("set_value", Pick("Edit", "Red:"), value="200"),
          Act("set_value", Pick("Edit", "Green:"), value="100"),
          Act("set_value", Pick("Edit", "Blue:"), value="50"),
          Act("click", Pick("Button", "OK")), Window("Wine configuration"),
          Act("click", Pick("Button", "OK"))],
         judge_reg(r"HKCU\Control Panel\Colors", "Background", "200 100 50"),
         setup=COLORS.save, cleanup=COLORS.restore),
    Task("winecfg_scrollbar_spinner",
         "In Wine configuration's Desktop Integration tab, make the Scrollbar item 20 pixels "
         "wide with its Size spin button and press OK",
         WINECFG, "Wine configuration",
         [Act("select", Pick("TabItem", "Desktop Integration")),
          Act("select", Pick("ComboBox", "Item:"), item="Scrollbar"),
          Act("set_value", Pick("Spinner", "Size:"), value="20"),
          Act("click", Pick("Button", "OK"))],
         judge_reg(METRICS.key, "ScrollWidth", "-300"),
         setup=METRICS.save, cleanup=METRICS.restore),
    Task("explorer_rename_in_place",
         "In Wine's explorer, rename draft.txt to final.txt in place (F2)",
         lambda: [Program("windows/explorer.exe", "/root," + watest.win_path(EXPLORER_DIR))],
         "renames",
         [Act("click", Pick("ListItem", "draft.txt")), Keys("f2"),
          Act("set_value", Pick("Edit", ""), value="final.txt"), Keys("enter")],
         judge_path_renamed(EXPLORER_DIR, "draft.txt", "final.txt"), setup=explorer_setup),
    Task("winefile_rows_by_place",
         "In Wine File Manager (rows it draws itself, without names), open drive C: from the "
         "file pane and start the program listed after its five folders",
         lambda: [Program(SYSTEM32 + "winefile.exe",
                          cwd=os.path.join(os.environ["WINEPREFIX"], "drive_c"))],
         "Wine File Manager",
         [Act("double_click", Pick("ListItem", "", in_list=1)),
          Act("click", Pick("ListItem", "", in_list=1, nth=5)), Keys("enter")],
         judge_started("suite-rows.exe"), setup=winefile_setup, cleanup=winefile_cleanup),
    notepad_save_in("german", "de_DE.UTF-8", DE_TEXT,
                    "Im deutschen Editor einen deutschen Satz tippen und über Datei > "
                    "Speichern unter als UTF-8 speichern",
                    "(unbenannt) - Editor", ("alt+d", "u"), "Speichern als", "Dateiname:",
                    "Kodierung:", "Speichern"),
    winecfg_version_in("german", "de_DE.UTF-8",
                       "In der Wine-Konfiguration die Windows-Version auf Windows XP stellen "
                       "und OK drücken",
                       "Wine-Konfiguration", "Windows-Version:", "OK"),
    notepad_save_in("chinese", "zh_CN.UTF-8", ZH_TEXT,
                    "在中文记事本里输入一句中文，用 文件 > 另存为 以 UTF-8 保存",
                    "(未命名) - 记事本", ("alt+f", "a"), "另存为", "文件名(N):", "编码:",
                    "保存(S)"),
    winecfg_version_in("chinese", "zh_CN.UTF-8", "在 Wine 设置里把 Windows 版本改成 Windows XP 并按确定",
                       "Wine 设置", "Windows 版本:", "确定"),
]

TASKS = [
    Task("notepad_save_as",
         "In Notepad, type a note, open the File menu with the keyboard, choose Save As and "
         "save the note as a file", lambda: [Program(SYSTEM32 + "notepad.exe")],
         "Untitled - Notepad",
         [Act("set_value", Pick("Edit"), value=NOTE),
          Keys("alt+f", menu=True), Keys("a"), Window("Save As"),
          Act("set_value", Pick("ComboBox", "File name:"),
              value=watest.win_path(out_path("note.txt"))),
          Act("click", Pick("Button", "Save"))],
         judge_file("note.txt", NOTE), cleanup=remove_outputs("note.txt")),
    Task("notepad_window_size",
         "Resize Notepad's window to 700x450 and quit it through File > Exit",
         lambda: [Program(SYSTEM32 + "notepad.exe")], "Untitled - Notepad",
         [MoveWindow(40, 30, 700, 450), Keys("alt+f", menu=True), Keys("x")],
         judge_notepad_saved({"iWindowPosDX": "0x2bc", "iWindowPosDY": "0x1c2"}),
         setup=NOTEPAD_SIZE.save, cleanup=NOTEPAD_SIZE.restore),
    Task("notepad_status_bar",
         "Hide Notepad's status bar from the View menu, by the keyboard, then quit",
         lambda: [Program(SYSTEM32 + "notepad.exe")], "Untitled - Notepad",
         [Keys("alt+v", menu=True), Keys("s"), Keys("alt+f", menu=True), Keys("x")],
         judge_notepad_saved({"bStatusBar": "0x0"}),
         setup=notepad_settings(bStatusBar=1), cleanup=notepad_settings(bStatusBar=1)),
    Task("regedit_new_key_by_menu",
         "In the Registry Editor, select HKCU\\Software\\WinagentSuite and create a key "
         "MenuKey under it through Edit > New > Key, by the keyboard",
         lambda: [Program("windows/regedit.exe")], "Registry Editor",
         regedit_to_suite_key() + [Keys("alt+e", menu=True), Keys("n", menu=True), Keys("k"),
                                   Type("MenuKey"), Keys("enter")],
         judge_reg(SUITE_KEY + r"\MenuKey", None, True),
         setup=suite_key_setup(), cleanup=suite_key_cleanup),
    Task("regedit_new_key_by_context_menu",
         "In the Registry Editor, create a key ContextKey under HKCU\\Software\\WinagentSuite "
         "from the key's context menu",
         lambda: [Program("windows/regedit.exe")], "Registry Editor",
         regedit_to_suite_key()[:2] + [Act("right_click", Pick("TreeItem", "WinagentSuite"),
                                           menu=True),
                                       Keys("n", menu=True), Keys("k"), Type("ContextKey"),
                                       Keys("enter")],
         judge_reg(SUITE_KEY + r"\ContextKey", None, True),
         setup=suite_key_setup(), cleanup=suite_key_cleanup),
    Task("regedit_string_value",
         "In the Registry Editor, add a string value Greeting = 'hello suite' to "
         "HKCU\\Software\\WinagentSuite (Edit > New > String Value, then its Edit String "
         "dialog)",
         lambda: [Program("windows/regedit.exe")], "Registry Editor",
         regedit_to_suite_key() + [Keys("alt+e", menu=True), Keys("n", menu=True), Keys("s"),
                                   Type("Greeting"), Keys("enter"),
                                   Act("double_click", Pick("ListItem", "Greeting")),
                                   Window("Edit String"),
                                   Act("set_value", Pick("Edit", below=("Text", "Value data:")),
                                       value="hello suite"),
                                   Act("click", Pick("Button", "OK"))],
         judge_reg(SUITE_KEY, "Greeting", "hello suite"),
         setup=suite_key_setup(), cleanup=suite_key_cleanup),
    Task("regedit_delete_value",
         "In the Registry Editor, delete the value Obsolete of HKCU\\Software\\WinagentSuite",
         lambda: [Program("windows/regedit.exe")], "Registry Editor",
         regedit_to_suite_key() + [Act("click", Pick("ListItem", "Obsolete")), Keys("delete"),
                                   Window("Confirm Value Delete"),
                                   Act("click", Pick("Button", "Yes"))],
         judge_value_deleted,
         setup=suite_key_setup(("Obsolete", "old"), ("Kept", "stays")),
         cleanup=suite_key_cleanup),
    Task("winecfg_windows_version",
         "In Wine configuration, set the Windows version to Windows XP and press OK",
         lambda: [Program(SYSTEM32 + "winecfg.exe")], "Wine configuration",
         [Act("select", Pick("ComboBox", "Windows Version:"), item="Windows XP"),
          Act("click", Pick("Button", "OK"))],
         judge_reg(NT_VERSION, "ProductName", "Microsoft Windows XP"), cleanup=winver_restore),
    Task("winecfg_dll_override",
         "In Wine configuration's Libraries tab, add a DLL override for 'suitetest' and "
         "press OK",
         lambda: [Program(SYSTEM32 + "winecfg.exe")], "Wine configuration",
         [Act("select", Pick("TabItem", "Libraries")),
          Act("set_value", Pick("ComboBox", "New override for library:"), value="suitetest"),
          Act("click", Pick("Button", "Add")), Act("click", Pick("Button", "OK"))],
         judge_reg(r"HKCU\Software\Wine\DllOverrides", "suitetest", "native,builtin"),
         cleanup=lambda: reg("delete", r"HKCU\Software\Wine\DllOverrides", "/v", "suitetest")),
    Task("taskmgr_end_task",
         "In the Task Manager's Applications list, end WineMine",
         lambda: [Program(SYSTEM32 + "winemine.exe", wait_title="WineMine"),
                  Program(SYSTEM32 + "taskmgr.exe")],
         "Task Manager",
         [Act("click", Pick("ListItem", "WineMine")), Act("click", Pick("Button", "End Task"))],
         judge_gone),
    Task("winemine_expert",
         "In WineMine, choose the Expert board from the Game menu, by the keyboard",
         lambda: [Program(SYSTEM32 + "winemine.exe")], "WineMine",
         [Keys("alt+g", menu=True), Keys("e")],
         judge_winemine({"Difficulty": "0x2", "Width": "0x1e", "Height": "0x10"}),
         setup=winemine_reset, cleanup=winemine_reset),
    Task("winemine_custom",
         "In WineMine, make a custom board of 10 rows, 12 columns and 15 mines (Game > "
         "Custom...)",
         lambda: [Program(SYSTEM32 + "winemine.exe")], "WineMine",
         [Keys("alt+g", menu=True), Keys("c"), Window("Custom Game"),
          Act("set_value", Pick("Edit", below=("Text", "Rows")), value="10"),
          Act("set_value", Pick("Edit", below=("Text", "Columns")), value="12"),
          Act("set_value", Pick("Edit", below=("Text", "Mines")), value="15"),
          Act("click", Pick("Button", "OK"))],
         judge_winemine({"Difficulty": "0x3", "Height": "0xa", "Width": "0xc", "Mines": "0xf"}),
         setup=winemine_reset, cleanup=winemine_reset),
    Task("wordpad_save_as",
         "In WordPad, type a line, save it through File > Save As (by the keyboard)",
         lambda: [Program("Program Files/Windows NT/Accessories/wordpad.exe")], "WordPad",
         [Act("set_value", Pick("Edit"), value=RICH), Keys("alt+f", menu=True), Keys("a"),
          Window("Save As"),
          Act("set_value", Pick("ComboBox", "File name:"),
              value=watest.win_path(out_path("letter.rtf"))),
          Act("click", Pick("Button", "Save"))],
         judge_file("letter.rtf", RICH, exact=False), cleanup=remove_outputs("letter.rtf")),
    Task("inetcpl_home_page",
         "In the Internet Settings control panel applet, set the home page and press OK",
         lambda: [Program(SYSTEM32 + "control.exe", "inetcpl.cpl")], "Internet Settings",
         [Act("select", Pick("TabItem", "General")),
          Act("set_value",
              Pick("Edit", "You can choose the address that will be used as your home page."),
              value="https://suite.example/"),
          Act("click", Pick("Button", "OK"))],
         judge_reg(IE_MAIN, "Start Page", "https://suite.example/"),
         cleanup=lambda: reg("add", IE_MAIN, "/v", "Start Page", "/d", "https://www.winehq.org")),
    Task("testapp_menu_by_ref",
         "In testapp, open the File menu and choose Save as... by clicking their elements",
         lambda: [Program("testapp")], "winagent testapp",
         [Act("click", Pick("MenuItem", "File"), menu=True), Act("click", Pick("MenuItem", "Save as..."))],
         judge_testapp_menu("Save as...")),
    Task("testapp_submenu_path",
         "In testapp, choose File > Recent > 2 todo.txt in one menu call",
         lambda: [Program("testapp")], "winagent testapp",
         [MenuPath("File > Recent > 2 todo.txt")], judge_testapp_menu("2 todo.txt")),
] + TASKS_ROUND_TWO


# ---- the drivers ----


class StepFailed(Exception):
    pass


class CliDriver:
    """Drives a task through winagent's command line, one process per command, refs kept
    in a state folder between them: read the listing, pick by type and name, act on the
    ref (`--return-state` gives the listing after the action, as `state` would)."""

    mode = "cli"

    def __init__(self):
        self.state_dir = tempfile.mkdtemp(prefix="cli-state-", dir=WORK)
        self.notes = []
        self.calls = 0
        self.turns = None
        self.transcript = []

    def wa(self, *args, read=False):
        """One winagent process. A read (state) that has not answered in 45 s is
        asked once more, and the report says so: now and then, under load, a winagent
        started while a program starts has not answered at all (not seen alone)."""
        self.calls += 1
        env = dict(os.environ, WINAGENT_STATE_DIR=watest.win_path(self.state_dir))
        r = run_recorded(["wine", WINAGENT_EXE, *args], env, 45 if read else 90,
                         self.transcript)
        if r is None:
            if not read:
                raise StepFailed("winagent %s did not answer" % " ".join(args))
            self.notes.append("`winagent %s` did not answer in 45 s; asked again" % args[0])
            return self.wa(*args)
        self.transcript.append("$ winagent %s -> %d\n%s%s" % (
            " ".join(args), r.returncode, r.stdout[-1500:], r.stderr[-500:]))
        return r

    def state(self, sel, want=None, timeout=15.0):
        """The listing of sel once want(lines) holds: an agent reads again while a
        window is still coming or a menu still opening."""
        deadline = time.monotonic() + timeout
        while True:
            r = self.wa("state", "--window", sel, read=True)
            lines = parse_listing(r.stdout) if r.returncode == 0 else []
            if r.returncode == 0 and (want is None or want(lines)):
                return lines
            if time.monotonic() > deadline:
                raise StepFailed("state of %r never showed what was wanted: %s %s"
                                 % (sel, r.stdout[-800:], r.stderr[-300:]))
            time.sleep(0.3)

    def expect_failure(self, task, step, args):
        """An action that must fail with one of step.expect within step.within seconds."""
        t0 = time.monotonic()
        r = self.wa(*args)
        took = time.monotonic() - t0
        m = re.search(r"^winagent: (\w+): (.*)$", r.stderr, re.M)
        if r.returncode == 0 or not m or m.group(1) not in step.expect:
            raise StepFailed("winagent %s should have failed with %s: %s %s"
                             % (" ".join(args), "/".join(step.expect), r.stdout[-500:],
                                r.stderr[-500:]))
        task.failures.append((m.group(1), took, m.group(2)))

    def run(self, task):
        sel = task.window
        lines = self.state(sel)
        for step in task.plan:
            if isinstance(step, Window):
                sel = step.title
                lines = self.state(sel)
                continue
            window_arg = ["--window", sel] + (["--allow-shell"] if task.shell else [])
            if isinstance(step, Act):
                el = step.pick.find(lines or [])
                if el is None:
                    lines = self.state(sel, lambda ls: step.pick.find(ls) is not None)
                    el = step.pick.find(lines)
                args = [CLI_ACTION[step.action], str(el["ref"])]
                if step.value is not None:
                    args.append(step.value)
                if step.item is not None:
                    args.append(step.item)
            elif isinstance(step, Keys):
                args = ["keys", step.keys]
            elif isinstance(step, Type):
                args = ["type", step.text]
            elif isinstance(step, MenuPath):
                args = ["menu", step.path]
            elif isinstance(step, MoveWindow):
                args, window_arg = ["move", sel] + [str(v) for v in step.rect], window_arg[2:]
            if isinstance(step, Act) and step.expect:
                self.expect_failure(task, step, args + window_arg)
                continue
            r = self.wa(*args, *window_arg, "--return-state")
            if r.returncode != 0 and isinstance(step, Act) and (
                    "stale_ref" in r.stderr or ("timeout" in r.stderr and step.action in (
                        "select", "set_value", "expand"))):
                # the window changed since the listing (or was too busy to answer, for an
                # action that can be done twice): read it again and act again
                lines = self.state(sel, lambda ls: step.pick.find(ls) is not None)
                args[1] = str(step.pick.find(lines)["ref"])
                r = self.wa(*args, *window_arg, "--return-state")
            if r.returncode != 0:
                raise StepFailed("winagent %s: %s %s" % (" ".join(args), r.stdout[-800:],
                                                        r.stderr[-400:]))
            lines = parse_listing(r.stdout)
            if getattr(step, "menu", False) and not shows_open_menu(lines):
                lines = self.state(sel, shows_open_menu, 5)


def newest_text(req):
    """The texts the model got since its last reply: the result of its last call (or
    the task and first observation), images left out."""
    msgs = req.body.get("messages") or []
    tail = []
    for m in reversed(msgs):
        if m.get("role") == "assistant":
            break
        tail.insert(0, m)
    out = []
    for m in tail:
        c = m.get("content")
        parts = c if isinstance(c, list) else [c]
        for p in parts:
            if isinstance(p, str):
                out.append(p)
            elif isinstance(p, dict) and isinstance(p.get("text"), str):
                out.append(p["text"])
    text = "\n".join(out)
    # a tool result may be JSON with the tree inside one of its strings
    try:
        obj = json.loads(text)
        text += "\n" + "\n".join(s for s in _strings(obj))
    except ValueError:
        pass
    return text


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


FAILED_RESULT = re.compile(r'"success"\s*:\s*false|^(error|failed)\b', re.I | re.M)


class ModelScript:
    """The scripted model of a task: a fake LLM policy that carries out the plan one
    call per turn, choosing every element from the observation it was just sent (the
    tree's lines, or the numbered marks listed with an image), by type and name."""

    LOOKS = 12  # observations it takes before giving up on an element or a window

    def __init__(self, task):
        self.task = task
        self.plan = list(task.plan)
        self.expecting = None  # the Act whose failure the next result must show
        self.sent_at = 0.0
        self.i = 0
        self.looks = 0
        self.expect_menu = False
        self.focusing = False
        self.window_call = None  # the last call of a Window step: list, wait or focus
        self.retries = 0
        self.failure = None
        self.done = False

    def call(self, **args):
        return {"tool_calls": [watest.tool_call(args)]}

    def look(self):
        """Asks for the tree itself: in auto mode an image may come instead (an open menu
        whose items cannot be read, unnamed toolbar buttons), and the marks listed with
        it name only buttons and items, not edits or menus."""
        return self.call(action="window_screenshot", mode="a11y")

    def fail(self, why):
        self.failure = why
        return {"text": "FAILED: " + why}

    def __call__(self, req):
        if self.done:
            return None
        text = newest_text(req)
        lines = parse_listing(text)
        if self.expect_menu:
            if not sees_open_menu(text, lines):
                # a menu opens in its own time: look again, as a model would
                self.looks += 1
                if self.looks > self.LOOKS:
                    self.done = True
                    return self.fail("no open menu in the observation after step %d:\n%s"
                                     % (self.i, text[-1500:]))
                return self.look()
            self.expect_menu = False
            self.looks = 0
        elif self.expecting and FAILED_RESULT.search(text):
            step, self.expecting = self.expecting, None
            m = re.search(r'"code"\s*:\s*"(\w+)"', text)
            if not m or m.group(1) not in step.expect:
                self.done = True
                return self.fail("step %d should have failed with %s: %s"
                                 % (self.i, "/".join(step.expect), text[-800:]))
            msg = re.search(r'"message"\s*:\s*"((?:[^"\\]|\\.)*)"', text)
            self.task.failures.append((m.group(1), time.monotonic() - self.sent_at,
                                       msg.group(1) if msg else ""))
        elif self.expecting:
            self.done = True
            return self.fail("step %d should have failed with %s: %s"
                             % (self.i, "/".join(self.expecting.expect), text[-800:]))
        elif self.i and not self.focusing and FAILED_RESULT.search(text):
            if '"timeout"' in text and self.retries < 2:
                # the program was too busy to answer (winecfg building a page): look
                # again and do the step again, with the ids of the new look
                self.retries += 1
                self.i -= 1
                return self.look()
            self.done = True
            return self.fail("step %d failed: %s" % (self.i, text[-800:]))
        while self.i < len(self.plan):
            step = self.plan[self.i]
            if isinstance(step, Window):
                # list the windows; focus the one of that title once listed, else wait
                # a moment and list again (a dialog opens in its own time)
                last, self.window_call = self.window_call, None
                if last == "focus" and not FAILED_RESULT.search(text):
                    self.focusing = False
                    self.looks = 0
                    self.i += 1
                    continue
                self.looks += 1
                if self.looks > self.LOOKS:
                    self.done = True
                    return self.fail("no window %r: %s" % (step.title, text[-500:]))
                self.focusing = True
                if last == "list" and ('"%s"' % step.title) in text:
                    self.window_call = "focus"
                    return self.call(action="focus_window", window=step.title)
                if last == "list":
                    self.window_call = "wait"
                    return self.call(action="wait", seconds=1)
                self.window_call = "list"
                return self.call(action="list_windows")
            self.i += 1
            if isinstance(step, Act):
                el = step.pick.find(lines)
                if el is None:
                    self.i -= 1
                    self.looks += 1
                    if self.looks > self.LOOKS:
                        self.done = True
                        return self.fail("no %s in the observation:\n%s" % (step.pick,
                                                                            text[-1500:]))
                    return self.look()
                self.looks = 0
                if step.expect:
                    self.expecting = step
                    self.sent_at = time.monotonic()
                args = {"action": step.action, "element": el["ref"]}
                if step.value is not None:
                    args["value"] = step.value
                if step.item is not None:
                    args["item"] = step.item
            elif isinstance(step, Keys):
                args = {"action": "key", "keys": step.keys}
            elif isinstance(step, Type):
                args = {"action": "type", "text": step.text}
            elif isinstance(step, MenuPath):
                args = {"action": "select_menu", "path": step.path}
            elif isinstance(step, MoveWindow):
                x, y, w, h = step.rect
                args = {"action": "move_window", "window": self.window_of(text),
                        "x": x, "y": y, "width": w, "height": h}
            self.expect_menu = getattr(step, "menu", False)
            return {"tool_calls": [watest.tool_call(args)]}
        self.done = True
        return {"text": "done"}

    @staticmethod
    def window_of(text):
        """The title of the observed window, from the observation's header."""
        m = re.search(r'^Window: "((?:[^"\\]|\\.)*)"', text, re.M)
        return m.group(1) if m else ""


class LoopDriver:
    """Drives a task through winagent's own loop against the fake LLM speaking the
    Chat Completions wire format, the model being the task's ModelScript."""

    mode = "loop"

    def __init__(self):
        self.calls = 0
        self.turns = 0
        self.notes = []
        self.transcript = []

    def run(self, task):
        wait_foreground(task.window, self.notes, self.transcript)
        script = ModelScript(task)
        with fake_llm({"steps": []}) as fake:
            fake.policy = script
            run = watest.AgentRun(fake, "--max-steps", "60",
                                  *(["--shell", "on"] if task.shell else []), prompt=task.prompt)
            r = run_recorded(run.argv, run.env, 300, self.transcript)
            if r is not None and r.returncode == 0 and not r.stdout and not script.done:
                # Now and then, under load, `wine` returns at once (exit 0, no output)
                # while winagent goes on without it: follow the run through its model's
                # requests instead.
                self.notes.append("wine returned before winagent ended; followed the run "
                                  "through its model requests")
                poll(lambda: script.done, 300, 0.5)
                time.sleep(1)  # the run's last step: its final answer being logged
            reqs = fake.requests
        if r is None:
            raise StepFailed("the loop did not end within 300 s")
        run.code, run.out, run.err = r.returncode, r.stdout, r.stderr
        self.turns = len(reqs)
        try:
            self.calls = len(run.results())
        except (OSError, AssertionError, ValueError):
            self.calls = 0
        self.transcript.append("exit %s\n%s\n%s" % (run.code, run.out[-1000:], run.err[-3000:]))
        if script.failure:
            raise StepFailed(script.failure)
        if run.code != 0 or not script.done:
            raise StepFailed("the loop ended with exit %s before the plan was done: %s"
                             % (run.code, run.err[-800:]))


def window_list():
    """`winagent windows` as text ("" when it did not answer)."""
    r = run_recorded(["wine", WINAGENT_EXE, "windows"], dict(os.environ), 45, [])
    return r.stdout if r else ""


def wine_processes():
    """The Wine programs running now, for the record of a call that hung."""
    r = subprocess.run(["ps", "-eo", "pid,stat,etime,args"], capture_output=True, text=True)
    return "\n".join(l for l in r.stdout.splitlines()
                     if ".exe" in l and (os.environ.get("WINEPREFIX", "?") in l
                                         or WINAGENT_EXE in l)
                     or "wineserver" in l)


def run_recorded(argv, env, timeout, transcript):
    """The CompletedProcess of argv, or None when it has not ended within timeout: then
    the Wine processes running at that moment go into the transcript before it is
    killed. Output goes through files and the wait is for the process, not for the end
    of its output: a pipe given to a Wine process can stay open in the wineserver after
    the process has gone, and a reader waiting for its end waits until its timeout."""
    with tempfile.TemporaryFile(dir=WORK) as out, tempfile.TemporaryFile(dir=WORK) as err:
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=env, stdin=subprocess.DEVNULL)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            transcript.append("hung after %d s: %s\nrunning:\n%s" % (
                timeout, " ".join(argv), wine_processes()))
            p.kill()
            p.wait()
            return None
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, p.returncode,
                                           out.read().decode("utf-8", "replace"),
                                           err.read().decode("utf-8", "replace"))


def wait_foreground(title, notes, transcript, timeout=60.0):
    """Waits until a window whose title holds `title` is in front (the loop observes the
    window in front), as `winagent windows` lists it."""
    deadline = time.monotonic() + timeout
    focused = False
    while True:
        r = run_recorded(["wine", WINAGENT_EXE, "windows"], dict(os.environ), 45, transcript)
        if r is None:  # see CliDriver.wa
            notes.append("`winagent windows` did not answer in 45 s; asked again")
            continue
        for line in r.stdout.splitlines():
            if title.lower() not in line.lower():
                continue
            if " foreground " in line:
                return
            if not focused:  # another program of the task came up later, in front
                transcript.append("focus: " + watest.run_winagent("focus", title).stderr)
                focused = True
        if time.monotonic() > deadline:
            raise StepFailed("%r never came to the front: %s %s" % (title, r.stdout[-600:],
                                                                   r.stderr[-300:]))
        time.sleep(0.3)


# ---- running and reporting ----


def run_task(task, driver):
    """One run of a task by a driver: a report row (dict)."""
    t0 = time.monotonic()
    row = {"task": task.name, "mode": driver.mode, "pass": False, "calls": 0,
           "model_turns": None, "seconds": 0.0, "detail": ""}
    row["lang"] = task.lang or "en"
    ground = on_ground(task.lang)
    try:
        ground.__enter__()
        task.start()
        driver.run(task)
        ok, detail = task.judge()
        row["pass"], row["detail"] = bool(ok), detail
        if getattr(driver, "notes", None):
            row["detail"] += " (" + "; ".join(driver.notes) + ")"
    except (StepFailed, AssertionError, subprocess.TimeoutExpired, OSError) as exc:
        row["detail"] = "%s: %s" % (type(exc).__name__, str(exc)[:1500])
    finally:
        task.stop()
        ground.__exit__()
        row["calls"] = driver.calls
        row["model_turns"] = driver.turns
        row["seconds"] = round(time.monotonic() - t0, 1)
    row["transcript"] = driver.transcript
    return row


def report_dir():
    build = os.environ.get("WINAGENT_BUILD_DIR") or os.path.dirname(
        os.environ.get("WINAGENT_WINE_STATE", WORK))
    d = os.path.join(build, "real_programs")
    os.makedirs(d, exist_ok=True)
    return d


def write_report(mode, rows):
    """Writes this mode's rows as JSON and the whole suite's table (both modes, as far
    as they have run) as markdown; returns the markdown path."""
    d = report_dir()
    with open(os.path.join(d, mode + ".json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)
    all_rows = []
    for m in ("cli", "loop"):
        try:
            with open(os.path.join(d, m + ".json"), encoding="utf-8") as f:
                all_rows += json.load(f)
        except (OSError, ValueError):
            pass
    md = ["# Real-program suite", "",
          "| task | mode | pass | calls | model turns | seconds | judged |",
          "|---|---|---|---|---|---|---|"]
    for r in all_rows:
        md.append("| %s | %s | %s | %d | %s | %.1f | %s |" % (
            r["task"], r["mode"], "pass" if r["pass"] else "FAIL", r["calls"],
            "-" if r["model_turns"] is None else r["model_turns"], r["seconds"],
            r["detail"].replace("|", "\\|").replace("\n", " ")[:160]))
    passed = sum(1 for r in all_rows if r["pass"])
    md += ["", "%d of %d runs passed (%d tasks), %.0f s in all." % (
        passed, len(all_rows), len({r["task"] for r in all_rows}),
        sum(r["seconds"] for r in all_rows))]
    # the pass rate per program (a task's name starts with it) and language
    per = {}
    for r in all_rows:
        key = (r["task"].split("_")[0], r.get("lang", "en"))
        per.setdefault(key, {}).setdefault(r["mode"], []).append(r["pass"])
    md += ["", "| program | language | cli | loop |", "|---|---|---|---|"]
    for (prog, lang), modes in sorted(per.items()):
        cells = ["%d of %d" % (sum(modes[m]), len(modes[m])) if m in modes else "-"
                 for m in ("cli", "loop")]
        md.append("| %s | %s | %s | %s |" % (prog, lang, cells[0], cells[1]))
    path = os.path.join(d, "report.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    return path


def print_row(r):
    print("%-34s %-4s %-4s calls=%-3d turns=%-3s %5.1fs  %s" % (
        r["task"], r["mode"], "pass" if r["pass"] else "FAIL", r["calls"],
        "-" if r["model_turns"] is None else r["model_turns"], r["seconds"],
        r["detail"][:120].replace("\n", " ")), flush=True)


# ---- the suite as unittest tests ----


def selected(tasks):
    """The tasks to run: all, or those WINAGENT_SUITE_TASKS=name,name names."""
    only = [n for n in os.environ.get("WINAGENT_SUITE_TASKS", "").split(",") if n]
    return [t for t in tasks if not only or t.name in only]


def test_case(driver_class, tasks=None):
    """A unittest TestCase class, RealPrograms, with one test per selected task run by
    a new `driver_class()`; once they have run, the report of the driver's mode is
    written (write_report). The calling test module binds it to a module-level name."""
    rows = []

    def make_test(task):
        def test(self):
            row = run_task(task, driver_class())
            rows.append(row)
            print_row(row)
            if not row["pass"]:
                self.fail("%s: %s\n%s" % (task.name, row["detail"],
                                          "\n".join(row["transcript"])[-6000:]))
        test.__doc__ = task.about
        return test

    def tear_down_class(cls):
        Ground.down_all()
        path = write_report(driver_class.mode, rows)
        print("report: " + path)

    # __module__ and __qualname__ as if the class were written in the test script, so
    # unittest names its tests as before (RealPrograms.test_<task> in __main__).
    attrs = {"__module__": "__main__", "__qualname__": "RealPrograms",
             "tearDownClass": classmethod(tear_down_class)}
    for task in selected(TASKS if tasks is None else tasks):
        attrs["test_" + task.name] = make_test(task)
    return type("RealPrograms", (unittest.TestCase,), attrs)
