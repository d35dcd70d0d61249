"""Typed text is text, under Wine with Wine's own programs.

WordPad (outside the allow-list) puts a secret on the clipboard. An edit control takes
the character U+0016 as Ctrl+V: typed into notepad it would paste that secret, in the
foreground (SendInput's Unicode characters) and in the background (WM_CHAR). With
--apps notepad, `type "A\\x16B"` (and `fill`, and the other control characters) is
refused with invalid_args naming the character, in both deliveries, and notepad never
holds the secret: what it holds is read back from it."""
import json
import time
import unittest

import watest
from watest import WineProgram, ref_of

CLI = watest.Cli("wa-typed-")
WORDPAD = "Program Files/Windows NT/Accessories/wordpad.exe"
SECRET = "CLIPBOARD-SECRET-7319"


def wa_json(*args, apps=None):
    env = CLI.env(**({"WINAGENT_APPS": apps} if apps else {}))
    r = watest.subprocess.run(["wine", watest.WINAGENT_EXE, *args, "--json"],
                              capture_output=True, text=True, encoding="utf-8",
                              errors="replace", env=env, timeout=60,
                              stdin=watest.subprocess.DEVNULL)
    try:
        return json.loads(r.stdout)
    except ValueError:
        raise AssertionError("winagent %s printed no JSON: %s %s" % (args, r.stdout, r.stderr))


def ok(*args, apps=None):
    res = wa_json(*args, apps=apps)
    if not res.get("success"):
        raise AssertionError("winagent %s: %s" % (args, res))
    return res


def wait_window(title, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        res = wa_json("windows")
        for w in res.get("data", {}).get("windows", []):
            if title in w["title"]:
                return w
        time.sleep(0.3)
    raise AssertionError("no window %r" % title)


def document(window):
    """The ref of the edit of window (notepad's Edit, wordpad's Document)."""
    state = CLI.run("state", "--window", window).stdout
    for kind in ("Edit", "Document"):
        try:
            return ref_of(state, kind, "")
        except AssertionError:
            pass
    raise AssertionError("no edit in %s:\n%s" % (window, state))


def notepad_text():
    doc = document("Notepad")
    return CLI.run("get", "value", doc, "--window", "Notepad").stdout.strip()


class TypedTextIsText(unittest.TestCase):
    def test_a_control_character_never_pastes_what_another_program_copied(self):
        with WineProgram("windows/system32/notepad.exe"), WineProgram(WORDPAD):
            wait_window("Notepad")
            wait_window("Wordpad")
            # WordPad, which the allow-list will leave out, fills the clipboard
            ok("type", SECRET, "--window", "WordPad")
            ok("keys", "ctrl+a", "--window", "WordPad")
            ok("keys", "ctrl+c", "--window", "WordPad")
            # it is there to paste: without an allow-list a paste key brings it, and the
            # character U+0016 is what an edit control takes as that key
            ok("keys", "ctrl+v", "--window", "Notepad")
            self.assertEqual(notepad_text(), SECRET)
            ok("keys", "ctrl+a", "--window", "Notepad")
            ok("keys", "delete", "--window", "Notepad")
            self.assertEqual(notepad_text(), "")
            for delivery in ("foreground", "background"):
                for text, named in (("A\x16B", "U+0016 (Ctrl+V as a character: pastes)"),
                                    ("\x18", "U+0018 (Ctrl+X"), ("x\x03", "U+0003 (Ctrl+C")):
                    res = wa_json("type", text, "--window", "Notepad", "--delivery", delivery,
                                  apps="notepad.exe")
                    self.assertNotIn(SECRET, notepad_text(), (delivery, text, res))
                    self.assertEqual(res["error"]["code"], "invalid_args", (delivery, res))
                    self.assertIn(named, res["error"]["message"])
                res = wa_json("fill", document("Notepad"), "A\x16B", "--window", "Notepad",
                              "--delivery", delivery, apps="notepad.exe")
                self.assertEqual(res["error"]["code"], "invalid_args", (delivery, res))
                # and the paste key itself stays refused: WordPad's clipboard, not notepad's
                res = wa_json("keys", "ctrl+v", "--window", "Notepad", apps="notepad.exe")
                self.assertEqual(res["error"]["code"], "denied", res)
                time.sleep(0.5)  # anything sent would have arrived by now
                got = notepad_text()
                self.assertNotIn(SECRET, got)
                self.assertEqual(got, "")
            # text is still text: tab and newlines are typed, and read back
            res = ok("type", "a\tb\nc", "--window", "Notepad", apps="notepad.exe")
            self.assertTrue(res["data"].get("verified"), res)
            self.assertEqual(notepad_text(), "a\\tb\\r\\nc")  # as `get` escapes it
            ok("keys", "ctrl+a", "--window", "Notepad")
            ok("keys", "delete", "--window", "Notepad")


if __name__ == "__main__":
    watest.main()
