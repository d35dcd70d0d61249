"""fill never says ok for nothing, on programs written by others: the file name of
notepad's Save As dialog (an editable combo box whose text is its edit's) and
wordpad's rich edit either hold the text afterwards, read back from the control, or
the call fails with not_verified saying what they hold."""
import json
import time
import unittest

import watest
from watest import run_winagent, WineProgram




def wa_json(*args):
    r = run_winagent(*args, "--json")
    try:
        return json.loads(r.stdout), r
    except ValueError:
        raise AssertionError("winagent %s printed no JSON: %s %s" % (args, r.stdout, r.stderr))


def wait_elements(sel, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        res, r = wa_json("state", "--window", sel)
        if res["success"]:
            return res["data"]["elements"]
        if time.monotonic() > deadline:
            raise AssertionError("no state of %r: %s" % (sel, r.stderr))
        time.sleep(0.5)


def held_or_said(test, res, text):
    """ok only with the text read back; else not_verified saying what is held."""
    if res["success"]:
        test.assertTrue(res["data"].get("verified"), res)
    else:
        test.assertEqual(res["error"]["code"], "not_verified", res)
        test.assertIn("read_back", res["error"], res)


class Fill(unittest.TestCase):
    def test_save_as_file_name(self):
        with WineProgram("windows/system32/notepad.exe"):
            wait_elements("Untitled - Notepad")
            run_winagent("keys", "ctrl+s", "--window", "Untitled - Notepad")
            els = wait_elements("Save As")
            names = [e for e in els if e["type"] == "ComboBox" and e["name"].startswith("File name")]
            self.assertTrue(names, [(e["type"], e["name"]) for e in els])
            res, r = wa_json("fill", str(names[0]["id"]), "notes-from-winagent.txt",
                             "--window", "Save As")
            held_or_said(self, res, "notes-from-winagent.txt")
            self.assertTrue(res["success"], res)  # the edit of the combo box holds it
            els = wait_elements("Save As")
            combo = [e for e in els if e["type"] == "ComboBox" and e["name"].startswith("File name")]
            edits = [e for e in els if e["type"] == "Edit" and e.get("value")]
            values = [e.get("value") for e in combo + edits]
            self.assertIn("notes-from-winagent.txt", values, values)
            run_winagent("keys", "esc", "--window", "Save As")

    def test_wordpad_rich_edit(self):
        with WineProgram("Program Files/Windows NT/Accessories/wordpad.exe"):
            els = wait_elements("WordPad")
            docs = [e for e in els if e.get("class", "").lower().startswith("richedit")]
            self.assertTrue(docs, [(e["type"], e["name"], e.get("class")) for e in els])
            res, r = wa_json("fill", str(docs[0]["id"]), "hello from winagent",
                             "--window", "WordPad")
            held_or_said(self, res, "hello from winagent")


if __name__ == "__main__":
    watest.main()
