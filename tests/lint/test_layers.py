#!/usr/bin/env python3
"""The include-order check finds what it is for: the real tree passes, and the same
tree with one back-include, an include between layers side by side (the Windows backend
and llm), a platform half included by the portable core, <windows.h> outside the Windows
backend and base/win, two modules that include each other, or a folder of sources that
is not a layer, fails."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(HERE, "layers.py")
FOLDERS = ["base", "automation", "llm", "agent"]


def run(root):
    p = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
    return p.returncode, p.stdout


def add_include(path, header):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    marker = "#include"
    i = text.index(marker)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:i] + f'#include "{header}"\n' + text[i:])


class Layers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="layers-")
        for d in FOLDERS:
            shutil.copytree(os.path.join(ROOT, d), os.path.join(self.tmp, d))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_the_tree_follows_the_order(self):
        code, out = run(self.tmp)
        self.assertEqual(code, 0, out)
        self.assertIn("no circles", out)

    def test_a_back_include_fails(self):
        add_include(os.path.join(self.tmp, "agent/core/request/ops.c"), "agent/front/cli.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("agent/core/request/ops.c: includes agent/front/cli.h", out)

    def test_a_side_include_between_layers_of_one_rank_fails(self):
        add_include(os.path.join(self.tmp, "llm/sse.c"), "automation/tree.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("llm/sse.c: includes automation/tree.h", out)

    def test_the_windows_backend_including_llm_fails(self):
        add_include(os.path.join(self.tmp, "automation/win/desktop/win_input.c"), "llm/llm.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("automation/win/desktop/win_input.c: includes llm/llm.h", out)

    def test_llm_including_a_backend_fails(self):
        add_include(os.path.join(self.tmp, "llm/client.c"), "automation/fake/fake_backend.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("llm/client.c: includes automation/fake/fake_backend.h", out)

    def test_the_core_including_a_backend_fails(self):
        add_include(os.path.join(self.tmp, "agent/core/host.c"), "automation/win/desktop/win_window.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("agent/core/host.c: includes automation/win/desktop/win_window.h", out)

    def test_the_portable_core_including_a_platform_half_fails(self):
        add_include(os.path.join(self.tmp, "automation/image/image.c"), "base/win/win_utf8.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("automation/image/image.c: includes base/win/win_utf8.h", out)

    def test_base_including_its_platform_half_fails(self):
        add_include(os.path.join(self.tmp, "base/os_common.c"), "base/win/win_utf8.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("base/os_common.c: includes base/win/win_utf8.h", out)

    def test_windows_h_outside_the_backend_and_base_win_fails(self):
        with open(os.path.join(self.tmp, "agent/main_win.c"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(self.tmp, "agent/main_win.c"), "w", encoding="utf-8") as f:
            f.write(text.replace("#include <stdio.h>", "#include <windows.h>\n#include <stdio.h>"))
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("agent/main_win.c: includes <windows.h>, which only automation/win and "
                      "base/win may", out)

    def test_a_folder_that_is_no_layer_fails(self):
        os.makedirs(os.path.join(self.tmp, "automation/mac"))
        with open(os.path.join(self.tmp, "automation/mac/mac_backend.c"), "w") as f:
            f.write('#include "automation/backend.h"\n')
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("automation/mac: holds sources but is not a layer", out)

    def test_a_circle_inside_a_layer_fails(self):
        # send is above target; target including send closes a circle
        add_include(os.path.join(self.tmp, "agent/core/call/target.c"), "agent/core/call/send.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("around a circle", out)
        self.assertIn("agent/core/call/send", out)
        self.assertIn("agent/core/call/target", out)

    def test_a_circle_through_a_header_fails(self):
        add_include(os.path.join(self.tmp, "agent/core/call/call.h"), "agent/core/call/look.h")
        code, out = run(self.tmp)
        self.assertEqual(code, 1, out)
        self.assertIn("agent/core/call/call -> agent/core/call/look -> agent/core/call/call", out)


if __name__ == "__main__":
    unittest.main()
