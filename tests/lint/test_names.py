#!/usr/bin/env python3
"""The name check finds what it is for: the real tree passes, and the same tree with a
function outside its file's prefix, a file named like a system header, or a static named
like another file's public function, fails."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(HERE, "names.py")
FOLDERS = ["base", "automation", "llm", "agent"]


def run(root):
    p = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
    return p.returncode, p.stdout


def append(path, text):
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


class Names(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="names-")
        for d in FOLDERS:
            shutil.copytree(os.path.join(ROOT, d), os.path.join(self.tmp, d))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_the_tree_follows_the_names(self):
        code, out = run(self.tmp)
        self.assertEqual(code, 0, out)
        self.assertIn("every name where its prefix says", out)

    def test_a_function_outside_its_files_prefix_fails(self):
        # the look before, defined where act-then-know lives
        append(os.path.join(self.tmp, "agent/core/call/verify.c"),
               "\nvoid look_again(struct call *k)\n{\n    (void)k;\n}\n")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("agent/core/call/verify.c: look_again does not start with its file's prefix", out)

    def test_a_static_may_take_any_prefix(self):
        append(os.path.join(self.tmp, "agent/core/call/verify.c"),
               "\nstatic void look_again(struct call *k)\n{\n    (void)k;\n}\n")
        code, out = run(self.tmp)
        self.assertEqual(code, 0, out)

    def test_a_prefix_listed_for_the_folder_passes(self):
        append(os.path.join(self.tmp, "automation/win/desktop/win_input.c"),
               "\nint win_planted(void)\n{\n    return 0;\n}\n")
        code, out = run(self.tmp)
        self.assertEqual(code, 0, out)

    def test_a_file_named_like_a_system_header_fails(self):
        core = os.path.join(self.tmp, "agent/core/call")
        shutil.copy(os.path.join(core, "target.h"), os.path.join(core, "windows.h"))
        shutil.copy(os.path.join(self.tmp, "base/str.c"), os.path.join(self.tmp, "base/string.c"))
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("agent/core/call/windows.h: named like the system header <windows.h>", out)
        self.assertIn("base/string.c: named like the system header <string.h>", out)

    def test_a_static_named_like_a_public_function_elsewhere_fails(self):
        append(os.path.join(self.tmp, "automation/win/desktop/win_input.c"),
               "\nstatic int send_move(int x)\n{\n    return x;\n}\n")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("automation/win/desktop/win_input.c: static send_move shares its name with "
                      "send_move of agent/core/call/send.c", out)


if __name__ == "__main__":
    unittest.main()
