"""The scripted UI Automation client (tests/uia_fake) for the wine.uia_* tests.

Windows' UI Automation core does not exist under Wine 8, so these tests register
uia_fake.dll for CLSID_CUIAutomation and CLSID_CUIAutomation8 under HKLM classes of the
private test prefix (`registered()`, for the length of one test module). The real,
unmodified winagent.exe then creates it and walks a scene the test wrote
(WINAGENT_UIA_SCENE); every pattern call and focus request lands in a JSON-lines call
log (WINAGENT_UIA_LOG). The DLL refuses to be created when no scene is named, so the
registration changes nothing for other programs, even if a crash left it behind.
"""
import contextlib
import json
import os
import subprocess
import tempfile

import watest

UIA_FAKE_DLL = os.environ.get("UIA_FAKE_DLL", "")
CLSIDS = ("{ff48dba4-60ef-4201-aa87-54103eef594e}",   # CUIAutomation
          "{e22ad333-b25f-460c-83d0-0581107395c9}")   # CUIAutomation8
CLASSES = r"HKEY_LOCAL_MACHINE\Software\Classes\CLSID"


def _regedit(lines):
    fd, path = tempfile.mkstemp(prefix="uia-fake-", suffix=".reg")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("REGEDIT4\n\n" + "\n".join(lines) + "\n")
    try:
        r = subprocess.run(["wine", "regedit", "/S", watest.win_path(path)],
                           capture_output=True, timeout=60)
        if r.returncode != 0:
            raise AssertionError("regedit failed (%d): %r" % (r.returncode, r.stderr[-500:]))
    finally:
        os.unlink(path)


def register():
    """Registers uia_fake.dll as the in-process server of both UI Automation classes."""
    if not os.path.isfile(UIA_FAKE_DLL):
        raise AssertionError("uia_fake.dll was not built: %r (./dev.sh build)" % UIA_FAKE_DLL)
    dll = watest.win_path(UIA_FAKE_DLL).replace("\\", "\\\\")
    lines = []
    for clsid in CLSIDS:
        lines += ["[%s\\%s\\InprocServer32]" % (CLASSES, clsid),
                  '@="%s"' % dll, '"ThreadingModel"="Both"', ""]
    _regedit(lines)


def unregister():
    _regedit(["[-%s\\%s]" % (CLASSES, clsid) for clsid in CLSIDS])


@contextlib.contextmanager
def registered():
    register()
    try:
        yield
    finally:
        unregister()


# ---- scenes ----

def element(type_, children=(), **props):
    """One scene element: type_ is a UI Automation control type name; props as in
    tests/uia_fake/README.md (name, automation_id, cls -> "class", hwnd, bounds, ...)."""
    e = {"type": type_}
    if "cls" in props:
        props["class"] = props.pop("cls")
    e.update(props)
    if children:
        e["children"] = list(children)
    return e


def inset(rect, by):
    return [rect[0] + by, rect[1] + by, rect[2] - by, rect[3] - by]


class Scene:
    """A scene file and its call log, in a fresh temporary folder."""

    def __init__(self, window, root, **options):
        self.dir = tempfile.mkdtemp(prefix="uia-scene-")
        self.path = os.path.join(self.dir, "scene.json")
        self.log_path = os.path.join(self.dir, "calls.jsonl")
        doc = {"window": window, "root": root}
        doc.update(options)
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(doc, f)

    def env(self):
        """The environment winagent.exe needs to reach this scene."""
        return {"WINAGENT_UIA_SCENE": watest.win_path(self.path),
                "WINAGENT_UIA_LOG": watest.win_path(self.log_path)}

    def calls(self, name=None):
        """The call log so far (entries with call == name when given)."""
        try:
            with open(self.log_path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        out = [json.loads(line) for line in lines if line.endswith("}")]
        return [c for c in out if name is None or c["call"] == name]

    def clear(self):
        with open(self.log_path, "w", encoding="utf-8"):
            pass

    def run(self, *args, timeout=90, env=None):
        """winagent.exe with this scene; returns CompletedProcess."""
        full = self.env()
        if env:
            full.update(env)
        return watest.run_winagent(*args, timeout=timeout, env=full)

    def tree(self, window, *extra):
        """`tree --window W --json` with this scene: (tree, stderr)."""
        r = self.run("tree", "--window", window, "--json", *extra)
        if r.returncode != 0:
            raise AssertionError("tree failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
        return json.loads(r.stdout)["data"], r.stderr

    def act(self, window, call):
        """`act CALL --window W` with this scene: (CompletedProcess, result JSON)."""
        r = self.run("act", json.dumps(call), "--window", window)
        try:
            return r, json.loads(r.stdout)
        except ValueError:
            raise AssertionError("act printed no JSON (%d): %s %s" % (r.returncode, r.stdout,
                                                                      r.stderr))


# ---- scenes over testapp ----

KEYS = "7894561230+="  # testapp's keypad, row by row
KEY_IDS = {"0": "num0Button", "+": "plusButton", "=": "equalButton"}
KEY_IDS.update({k: "num%sButton" % k for k in "123456789"})


def calculator_scene(app, unnamed=False, extra=(), faults=(), **options):
    """testapp's keypad (`TestApp(panel="keypad")`) as a UWP calculator shows it: one
    window handle, every button a virtual element (handle 0) over a real key, named
    only by its AutomationId (not even that when unnamed). extra: more elements;
    faults: the root's; options: the scene's."""
    c = app.ready["controls"]
    buttons = [element("Button", cls="Button", bounds=c["key_" + k], patterns=["invoke"],
                       focusable=True, **({} if unnamed else {"automation_id": KEY_IDS[k]}))
               for k in KEYS]
    pad = inset(app.ready["client_rect"], 10)
    # The root has neither Name nor AutomationId: its name is its window's text.
    root = element("Window", [
        element("Text", automation_id="CalculatorResults", name="Display is 0",
                bounds=[pad[0], pad[1], pad[2], pad[1] + 8]),
        element("Group", buttons, automation_id="NumberPad", bounds=pad),
        # Virtual and without any name: stays unnamed (there is no window to ask).
        element("Button", cls="Button", bounds=[pad[0], pad[3] - 8, pad[0] + 8, pad[3]]),
        *extra,
    ], cls="ApplicationFrameWindow")
    if faults:
        root["faults"] = list(faults)
    return Scene(app.ready["hwnd"], root, **options)


def win32_scene(app):
    """testapp's main window as UI Automation's Win32 proxies show it: each control an
    element with its window handle, here without Name, so that names must come from
    the fallbacks (the CheckBox has its control id as AutomationId, as the proxies do)."""
    c, h = app.ready["controls"], app.ready["control_hwnds"]
    root = element("Window", [
        element("Button", hwnd=h["OK"], bounds=c["OK"], cls="Button"),
        element("Edit", hwnd=h["edit"], bounds=c["edit"], cls="Edit"),
        element("CheckBox", automation_id="102", hwnd=h["checkbox"], bounds=c["checkbox"],
                cls="Button"),
        element("Button", hwnd=h["owner1"], bounds=c["owner1"], cls="Button"),
    ], cls="WinagentTestApp")
    return Scene(app.ready["hwnd"], root)
